#pragma once
/// The process-wide registry of operators and backend fallbacks.

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "c10/dispatch/OperatorHandle.h"

namespace ember {

/// Undoes one registration when destroyed (Library holds these).
class EMBER_API RegistrationHandle {
 public:
  RegistrationHandle() = default;
  explicit RegistrationHandle(std::function<void()> undo) : undo_(std::move(undo)) {}
  RegistrationHandle(RegistrationHandle&& o) noexcept : undo_(std::exchange(o.undo_, nullptr)) {}
  RegistrationHandle& operator=(RegistrationHandle&& o) noexcept {
    RegistrationHandle(std::move(o)).swap(*this);
    return *this;
  }
  ~RegistrationHandle() {
    if (undo_) undo_();
  }
  void swap(RegistrationHandle& o) noexcept { std::swap(undo_, o.undo_); }

 private:
  std::function<void()> undo_;
};

/// Holds every operator; one per process (it lives in libember.so).
class EMBER_API Dispatcher {
 public:
  static Dispatcher& singleton();

  /// The operator "ns::name.overload" if it is defined (has a schema).
  std::optional<OperatorHandle> find_op(std::string_view qualified_name) const;
  /// As find_op, but throws ValueError naming the operator (and close names) if it is not.
  OperatorHandle find_op_or_throw(std::string_view qualified_name) const;
  /// Every defined operator, in name order.
  std::vector<OperatorHandle> ops() const;

  /// Defines an operator; throws if it is already defined or a kernel registered before
  /// the schema does not match it.
  RegistrationHandle def(FunctionSchema schema, std::string debug);
  /// Registers a kernel for (op, key); key may be an alias key. Throws if `owner` already
  /// registered one for the same (op, key) or the signature does not match the schema.
  RegistrationHandle impl(const OperatorName& op, DispatchKey key, KernelFunction kernel,
                          const void* owner);
  /// Registers a backend fallback: the kernel (boxed, or a fallthrough) for every op at key
  /// that has no kernel of its own there.
  RegistrationHandle fallback(DispatchKey key, KernelFunction kernel, const void* owner);

  /// Claims a namespace for one EMBER_LIBRARY; throws naming the first claimant.
  RegistrationHandle claim_namespace(const std::string& ns, std::string debug);
  /// Errors raised while loading libraries (static registration cannot throw to anyone).
  std::vector<std::string> library_errors() const;
  void record_library_error(std::string message);

 private:
  friend class OperatorEntry;  // reads its registrations under mutex_
  Dispatcher();
  OperatorEntry* lookup(std::string_view qualified_name) const;
  OperatorEntry* find_or_create(const OperatorName& name);  // mutex held
  std::array<const KernelFunction*, kNumRuntimeKeys> current_fallbacks() const;  // mutex held
  void refresh_all();  // mutex held

  // Note [Lock-free operator lookup]: an append-only open-addressing table of entries;
  // entries are never removed (an undefined op keeps its entry), so readers probe
  // without a lock while writers insert under the mutex.
  static constexpr size_t kSlots = size_t{1} << 15;
  std::unique_ptr<std::atomic<OperatorEntry*>[]> slots_;
  std::vector<std::unique_ptr<OperatorEntry>> entries_;
  mutable std::mutex mutex_;
  struct Fallback {
    std::unique_ptr<KernelFunction> kernel;
    const void* owner;
  };
  std::array<std::list<Fallback>, kNumRuntimeKeys> fallbacks_;
  std::vector<std::unique_ptr<KernelFunction>> retired_fallbacks_;
  std::map<std::string, std::string> namespaces_;
  std::vector<std::string> library_errors_;
};

}  // namespace ember
