#pragma once
/// One operator's schema and dispatch table.

#include <array>
#include <atomic>
#include <list>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "c10/core/DispatchKeySet.h"
#include "c10/core/IValue.h"
#include "c10/dispatch/FunctionSchema.h"
#include "c10/dispatch/KernelFunction.h"

namespace ember {

/// A schema plus what calls need precomputed from it; immutable once published.
struct EMBER_API SchemaInfo {
  explicit SchemaInfo(FunctionSchema s, std::string debug);

  FunctionSchema schema;
  /// "(Tensor, Tensor, Scalar) -> Tensor": what an unboxed kernel's C++ types must map to.
  std::string signature;
  /// Positions of Tensor, Tensor? and Tensor[] arguments (key extraction for boxed calls).
  std::vector<uint32_t> tensor_args;
  /// Per argument, a bit per IValue::Tag it accepts (boxed calls check with one AND).
  std::vector<uint32_t> accepted_tags;
  /// Where it was defined ("file.cpp:12").
  std::string debug;
};

/// The normalized signature of a schema ("(Tensor, int[]) -> Tensor"), SymInt as int.
EMBER_API std::string schema_signature(const FunctionSchema& s);
/// The spelling of a type in signatures and messages ("Tensor?", "int[]", ...).
EMBER_API std::string schema_type_str(const SchemaType& t);
/// Whether a boxed value is acceptable for an argument of type t.
EMBER_API bool ivalue_matches(const IValue& v, const SchemaType& t);

// Note [Retired kernels]: a table slot points at an immutable KernelFunction. Registration
// builds a new one and swaps the pointer in; the one it replaces is moved to a retired
// list and lives until the process ends, so a call that loaded the old pointer just
// before the swap still runs safely. Calls take no lock. (Unloading a library whose code
// is still running a call is the caller's mistake, as with any dlclose.)
/// An operator: name, schema (once defined), kernels per key, and the dispatch table.
class EMBER_API OperatorEntry {
 public:
  explicit OperatorEntry(OperatorName name);
  OperatorEntry(const OperatorEntry&) = delete;
  OperatorEntry& operator=(const OperatorEntry&) = delete;

  const OperatorName& name() const { return name_; }
  /// "ns::name.overload", kept so lookups by name compare without building strings.
  const std::string& qualified_name() const { return qualified_name_; }
  /// The schema, or null while the operator is not defined.
  const SchemaInfo* schema() const { return schema_.load(std::memory_order_acquire); }

  /// Keys this op does not fall through: a call's keys are masked by it.
  EMBER_ALWAYS_INLINE DispatchKeySet mask() const {
    return DispatchKeySet::from_raw(mask_.load(std::memory_order_relaxed));
  }
  /// The table entry for a runtime key (never null).
  EMBER_ALWAYS_INLINE const KernelFunction& lookup(DispatchKey k) const {
    return *table_[static_cast<uint8_t>(k)].load(std::memory_order_acquire);
  }

  /// Whether a call reaching runtime key k finds a kernel (its own, a composite's or a
  /// fallback), not the missing-kernel error.
  bool has_kernel_for(DispatchKey k) const { return &lookup(k) != &missing_; }
  /// Keys (runtime or alias) with a kernel registered directly for this op.
  std::vector<DispatchKey> registered_keys() const;
  /// Throws the missing-kernel error for a call that reached `key`.
  [[noreturn]] void report_missing_kernel(DispatchKey key) const;
  /// One line per runtime key with a non-missing entry: "CPU: kernel [file:line]".
  std::string dump_table() const;

 private:
  friend class Dispatcher;
  struct Registration {
    std::unique_ptr<KernelFunction> kernel;
    const void* owner;
  };

  // All below: called with the dispatcher's mutex held.
  void set_schema(std::unique_ptr<SchemaInfo> info);
  void clear_schema();
  void add_kernel(DispatchKey key, std::unique_ptr<KernelFunction> k, const void* owner);
  void remove_kernel(DispatchKey key, const KernelFunction* k);
  bool has_kernel(DispatchKey key) const;
  bool owner_has_kernel(DispatchKey key, const void* owner) const;
  void refresh(const std::array<const KernelFunction*, kNumRuntimeKeys>& fallbacks);
  const KernelFunction* compute_entry(
      DispatchKey k, const std::array<const KernelFunction*, kNumRuntimeKeys>& fallbacks) const;

  OperatorName name_;
  std::string qualified_name_;
  std::atomic<uint64_t> mask_{DispatchKeySet::full().raw()};
  std::array<std::atomic<const KernelFunction*>, kNumRuntimeKeys> table_;
  std::atomic<const SchemaInfo*> schema_{nullptr};
  KernelFunction missing_;
  std::map<DispatchKey, std::list<Registration>> kernels_;
  std::vector<std::unique_ptr<KernelFunction>> retired_kernels_;
  std::vector<std::unique_ptr<SchemaInfo>> schemas_;  // current one last; see Note [Retired kernels]
};

}  // namespace ember
