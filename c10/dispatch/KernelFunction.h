#pragma once
/// A kernel as the dispatcher stores it: an unboxed entry (typed function pointer, the
/// fast path) and a boxed entry (a Stack of IValues); either is callable through the other.

#include <string>
#include <utility>

#include "c10/dispatch/CppSignature.h"

namespace ember {

class OperatorHandle;

/// A boxed kernel: reads its arguments from the end of the stack, replaces them by its
/// returns. `fn` is the user function the entry wraps (or null).
using BoxedKernelFn = void (*)(void* fn, const OperatorHandle& op, DispatchKeySet keys,
                               Stack* stack);
/// A boxed kernel written by hand (fallbacks: tracing, "run on CPU", ...).
using BoxedFunction = void (*)(const OperatorHandle& op, DispatchKeySet keys, Stack* stack);

/// An immutable dispatch table entry (see Note [Retired kernels] in OperatorEntry.h).
struct KernelFunction {
  /// Ret(*)(void* fn, DispatchKeySet, Canon<Args>...), or null for boxed-only kernels.
  void* unboxed = nullptr;
  BoxedKernelFn boxed = nullptr;
  void* fn = nullptr;
  /// "(Tensor, Tensor) -> Tensor" for unboxed kernels; empty for boxed ones.
  std::string signature;
  /// Skips this key: the call goes on to the next key down.
  bool fallthrough = false;
  /// Where it was registered ("file.cpp:12"), for error messages and table dumps.
  std::string debug;
};

/// A kernel function known at compile time: `m.impl("op", EMBER_FN(op_cpu))` calls it
/// directly, where a plain function pointer costs one more indirect call.
template <auto F>
struct CompileTimeFunction {};
#define EMBER_FN(f) ::ember::CompileTimeFunction<&(f)>()

namespace detail {

// Where a kernel's function comes from: the pointer stored in the KernelFunction, or a
// template argument (then the call is direct and may be inlined into the trampoline).
struct RuntimeTarget {
  template <class Fn>
  static Fn get(void* fn) { return reinterpret_cast<Fn>(fn); }
};
template <auto F>
struct CompileTimeTarget {
  template <class Fn>
  static constexpr Fn get(void*) { return F; }
};

template <class Target, class Ret, class... KArgs>
struct FunctionKernel {
  using Fn = Ret (*)(KArgs...);
  static constexpr bool kTakesKeys = sig::TakesKeys<KArgs...>::value;

  template <class Sig>
  struct Unboxed;
  template <class K0, class... KRest>
  struct Unboxed<Ret(K0, KRest...)> {
    static sig::CanonRet<Ret> call(void* fn, DispatchKeySet keys, sig::Canon<KRest>... args) {
      return Target::template get<Fn>(fn)(keys, sig::to_kernel_arg<KRest>(args)...);
    }
  };

  template <class... UArgs>
  static sig::CanonRet<Ret> call_plain(void* fn, DispatchKeySet, sig::Canon<UArgs>... args) {
    return Target::template get<Fn>(fn)(sig::to_kernel_arg<UArgs>(args)...);
  }

  static void* unboxed_entry() {
    if constexpr (kTakesKeys) {
      return reinterpret_cast<void*>(&Unboxed<Ret(KArgs...)>::call);
    } else {
      return reinterpret_cast<void*>(&call_plain<KArgs...>);
    }
  }

  // Boxed entry: unbox the last N stack values, call, replace them by the returns.
  template <class... UArgs>
  static void boxed_impl(void* fn, DispatchKeySet keys, Stack* stack) {
    constexpr size_t n = sizeof...(UArgs);
    IValue* base = stack->data() + (stack->size() - n);
    auto invoke = [&]<size_t... I>(std::index_sequence<I...>) -> decltype(auto) {
      // A direct call of the unboxed entry, so the compiler can inline the kernel call.
      if constexpr (kTakesKeys) {
        return Unboxed<Ret(KArgs...)>::call(fn, keys,
                                             sig::FromIValue<sig::Canon<UArgs>>::get(base[I])...);
      } else {
        return call_plain<KArgs...>(fn, keys, sig::FromIValue<sig::Canon<UArgs>>::get(base[I])...);
      }
    };
    if constexpr (std::is_void_v<Ret>) {
      invoke(std::make_index_sequence<n>());
      stack->resize(stack->size() - n);
    } else {
      auto result = invoke(std::make_index_sequence<n>());
      stack->resize(stack->size() - n);
      sig::push_result(stack, std::move(result));
    }
  }
  template <class Sig>
  struct Boxed;
  template <class K0, class... KRest>
  struct Boxed<Ret(K0, KRest...)> {
    static void call(void* fn, const OperatorHandle&, DispatchKeySet keys, Stack* stack) {
      boxed_impl<KRest...>(fn, keys, stack);
    }
  };
  static void boxed_plain(void* fn, const OperatorHandle&, DispatchKeySet keys, Stack* stack) {
    boxed_impl<KArgs...>(fn, keys, stack);
  }
  static BoxedKernelFn boxed_entry() {
    if constexpr (kTakesKeys) {
      return &Boxed<Ret(KArgs...)>::call;
    } else {
      return &boxed_plain;
    }
  }
};

inline void call_boxed_function(void* fn, const OperatorHandle& op, DispatchKeySet keys,
                                Stack* stack) {
  reinterpret_cast<BoxedFunction>(fn)(op, keys, stack);
}

}  // namespace detail

/// What Library::impl accepts: a function pointer (unboxed, boxed form generated), a
/// boxed function, or a fallthrough.
class CppFunction {
 public:
  /// An unboxed kernel; may take `DispatchKeySet` first to redispatch.
  template <class Ret, class... Args>
  CppFunction(Ret (*f)(Args...)) {
    init<detail::FunctionKernel<detail::RuntimeTarget, Ret, Args...>, Ret(Args...)>(
        reinterpret_cast<void*>(f));
  }
  /// An unboxed kernel known at compile time (EMBER_FN(f)): one indirect call less.
  template <auto F>
  CppFunction(CompileTimeFunction<F>) {
    init_compile_time<F>(F);
  }
  /// A boxed kernel, called with the whole stack.
  static CppFunction boxed(BoxedFunction f) {
    CppFunction c;
    c.kernel_.boxed = &detail::call_boxed_function;
    c.kernel_.fn = reinterpret_cast<void*>(f);
    return c;
  }
  /// Skip this key for the op (or, as a fallback, for every op).
  static CppFunction fallthrough() {
    CppFunction c;
    c.kernel_.fallthrough = true;
    return c;
  }
  KernelFunction release() && { return std::move(kernel_); }
  const KernelFunction& kernel() const { return kernel_; }

 private:
  CppFunction() = default;
  template <auto F, class Ret, class... Args>
  void init_compile_time(Ret (*)(Args...)) {
    init<detail::FunctionKernel<detail::CompileTimeTarget<F>, Ret, Args...>, Ret(Args...)>(
        reinterpret_cast<void*>(F));
  }
  template <class K, class Sig>
  void init(void* fn) {
    kernel_.unboxed = K::unboxed_entry();
    kernel_.boxed = K::boxed_entry();
    kernel_.fn = fn;
    kernel_.signature = sig::Signature<Sig>::str();
  }
  KernelFunction kernel_;
};

}  // namespace ember
