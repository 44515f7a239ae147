#pragma once
/// Handles to operators: untyped (boxed calls) and typed (the unboxed fast path).

#include <optional>

#include "c10/core/LocalDispatchKeySet.h"
#include "c10/dispatch/OperatorEntry.h"

namespace ember {

template <class Sig>
class TypedOperatorHandle;

/// A handle to an operator in the dispatcher; valid for the life of the process.
class EMBER_API OperatorHandle {
 public:
  explicit OperatorHandle(OperatorEntry* entry) : entry_(entry) {}

  const OperatorName& name() const { return entry_->name(); }
  /// The schema; throws if the operator is not (or no longer) defined.
  const FunctionSchema& schema() const;
  OperatorEntry& entry() const { return *entry_; }

  /// A typed handle for unboxed calls; throws TypeError when the C++ signature does not
  /// match the schema, naming both.
  template <class Sig>
  TypedOperatorHandle<Sig> typed() const {
    check_signature(sig::Signature<Sig>::str());
    return TypedOperatorHandle<Sig>(entry_);
  }

  /// Calls with arguments on the stack (missing trailing defaults are filled in); leaves
  /// the returns there. Throws on a wrong number or type of arguments before any kernel runs.
  void call_boxed(Stack* stack) const;
  /// Calls the kernel for the highest of `keys` (masked by the op's fallthroughs).
  void redispatch_boxed(DispatchKeySet keys, Stack* stack) const;

  bool operator==(const OperatorHandle& o) const { return entry_ == o.entry_; }

 protected:
  void check_signature(const std::string& cpp_signature) const;
  OperatorEntry* entry_;
};

namespace detail {

EMBER_ALWAYS_INLINE DispatchKeySet keys_of(const Tensor& t) { return t.key_set(); }
inline DispatchKeySet keys_of(const std::optional<Tensor>& t) {
  return t ? t->key_set() : DispatchKeySet();
}
inline DispatchKeySet keys_of(TensorList ts) {
  DispatchKeySet ks;
  for (const Tensor& t : ts) ks = ks | t.key_set();
  return ks;
}
template <class T>
EMBER_ALWAYS_INLINE DispatchKeySet keys_of(const T&) {
  return DispatchKeySet();
}

/// Calls a boxed-only kernel from an unboxed call: box, call, unbox the result.
template <class R, class... CArgs>
EMBER_NOINLINE R call_boxed_kernel(const KernelFunction& k, const OperatorHandle& op,
                                   DispatchKeySet keys, CArgs... args) {
  Stack stack;
  stack.reserve(sizeof...(CArgs));
  (stack.push_back(sig::to_ivalue(args)), ...);
  k.boxed(k.fn, op, keys, &stack);
  return sig::pop_result<R>(&stack);
}

}  // namespace detail

/// An operator handle checked against a C++ signature: calls go straight to the kernel.
template <class Ret, class... Args>
class TypedOperatorHandle<Ret(Args...)> : public OperatorHandle {
 public:
  using R = sig::CanonRet<Ret>;

  /// The keys a call with these arguments dispatches on (after TLS and fallthroughs).
  EMBER_ALWAYS_INLINE DispatchKeySet dispatch_keys(sig::Canon<Args>... args) const {
    const LocalDispatchKeySet tls = local_dispatch_key_set();
    const DispatchKeySet from_args = (DispatchKeySet() | ... | detail::keys_of(args));
    return ((from_args | tls.included) - tls.excluded) & entry_->mask();
  }

  /// Dispatches on the arguments' keys and this thread's TLS key sets.
  EMBER_ALWAYS_INLINE R call(sig::Canon<Args>... args) const {
    return call_kernel(dispatch_keys(args...), args...);
  }

  /// Calls the kernel for the highest of `keys`: a layer passes the keys it was called
  /// with, minus itself and what is above it (`keys.below(MyKey)`).
  EMBER_ALWAYS_INLINE R redispatch(DispatchKeySet keys, sig::Canon<Args>... args) const {
    return call_kernel(keys & entry_->mask(), args...);
  }

 private:
  friend class OperatorHandle;
  explicit TypedOperatorHandle(OperatorEntry* entry) : OperatorHandle(entry) {}

  EMBER_ALWAYS_INLINE R call_kernel(DispatchKeySet keys, sig::Canon<Args>... args) const {
    const KernelFunction& k = entry_->lookup(keys.highest());
    if (EMBER_LIKELY(k.unboxed != nullptr)) {
      using Fn = R (*)(void*, DispatchKeySet, sig::Canon<Args>...);
      return reinterpret_cast<Fn>(k.unboxed)(k.fn, keys, args...);
    }
    return detail::call_boxed_kernel<R, sig::Canon<Args>...>(k, *this, keys, args...);
  }
};

}  // namespace ember
