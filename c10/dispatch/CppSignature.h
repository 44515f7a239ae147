#pragma once
/// How C++ kernel and caller types map onto schema types, and the one calling convention
/// (the canonical types) every unboxed kernel is called with.

#include <array>
#include <complex>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <vector>

#include "c10/core/DispatchKeySet.h"
#include "c10/core/IValue.h"
#include "c10/core/MemoryFormat.h"
#include "c10/core/Scalar.h"
#include "c10/core/Tensor.h"
#include "c10/util/Exception.h"

namespace ember {

// Note [Canonical calling convention]: a schema type has exactly one C++ parameter type
// (its canonical type, below) in the unboxed calling convention. Kernels and callers may
// use other spellings of it (`Tensor` by value, `Tensor&` for out arguments); the
// trampolines convert. So two signatures that agree as schema types agree as function
// pointer types, and the registration-time schema check makes the unboxed call safe.
namespace sig {

template <class T, class Enable = void>
struct ArgTraits {
  static_assert(sizeof(T) == 0,
                "this C++ type has no schema type; use one of Tensor, std::optional<Tensor>, "
                "TensorList, int64_t, double, bool, Scalar, std::string_view, IntArrayRef, "
                "ArrayRef<double>, ScalarType, Device, Layout, MemoryFormat, or std::optional of "
                "those");
};

#define EMBER_ARG_TRAITS(CppType, Canonical, SchemaName)  \
  template <>                                             \
  struct ArgTraits<CppType> {                             \
    using canonical = Canonical;                          \
    static constexpr const char* name = SchemaName;       \
  };
EMBER_ARG_TRAITS(Tensor, const Tensor&, "Tensor")
EMBER_ARG_TRAITS(std::optional<Tensor>, const std::optional<Tensor>&, "Tensor?")
EMBER_ARG_TRAITS(TensorList, TensorList, "Tensor[]")
EMBER_ARG_TRAITS(int64_t, int64_t, "int")
EMBER_ARG_TRAITS(std::optional<int64_t>, std::optional<int64_t>, "int?")
EMBER_ARG_TRAITS(double, double, "float")
EMBER_ARG_TRAITS(std::optional<double>, std::optional<double>, "float?")
EMBER_ARG_TRAITS(bool, bool, "bool")
EMBER_ARG_TRAITS(std::optional<bool>, std::optional<bool>, "bool?")
EMBER_ARG_TRAITS(std::complex<double>, std::complex<double>, "complex")
EMBER_ARG_TRAITS(Scalar, const Scalar&, "Scalar")
EMBER_ARG_TRAITS(std::optional<Scalar>, const std::optional<Scalar>&, "Scalar?")
EMBER_ARG_TRAITS(std::string_view, std::string_view, "str")
EMBER_ARG_TRAITS(std::optional<std::string_view>, std::optional<std::string_view>, "str?")
EMBER_ARG_TRAITS(IntArrayRef, IntArrayRef, "int[]")
EMBER_ARG_TRAITS(std::optional<IntArrayRef>, std::optional<IntArrayRef>, "int[]?")
EMBER_ARG_TRAITS(ArrayRef<double>, ArrayRef<double>, "float[]")
EMBER_ARG_TRAITS(ScalarType, ScalarType, "ScalarType")
EMBER_ARG_TRAITS(std::optional<ScalarType>, std::optional<ScalarType>, "ScalarType?")
EMBER_ARG_TRAITS(Device, Device, "Device")
EMBER_ARG_TRAITS(std::optional<Device>, std::optional<Device>, "Device?")
EMBER_ARG_TRAITS(Layout, Layout, "Layout")
EMBER_ARG_TRAITS(std::optional<Layout>, std::optional<Layout>, "Layout?")
EMBER_ARG_TRAITS(MemoryFormat, MemoryFormat, "MemoryFormat")
EMBER_ARG_TRAITS(std::optional<MemoryFormat>, std::optional<MemoryFormat>, "MemoryFormat?")
EMBER_ARG_TRAITS(std::optional<Generator>, std::optional<Generator>, "Generator?")
#undef EMBER_ARG_TRAITS
template <size_t N>
struct ArgTraits<std::array<bool, N>> {
  using canonical = std::array<bool, N>;
  static constexpr const char* name = "bool[]";
};

/// The canonical parameter type of a C++ argument type (any cv/ref spelling).
template <class T>
using Canon = typename ArgTraits<std::remove_cvref_t<T>>::canonical;

/// Canonical kernel argument to the kernel's own parameter type.
template <class KArg, class C>
decltype(auto) to_kernel_arg(C&& c) {
  if constexpr (std::is_lvalue_reference_v<KArg> &&
                !std::is_const_v<std::remove_reference_t<KArg>>) {
    // `Tensor& out`: the handle is the caller's; kernels write through it, as in PyTorch.
    return const_cast<KArg>(c);
  } else {
    return std::forward<C>(c);
  }
}

/// Return types: Tensor, Tensor& (returned as Tensor), tuples of them, vectors, scalars.
/// `names` spells the schema's returns; `parens` says whether they print in parentheses.
template <class T>
struct RetTraits {
  using canonical = std::remove_cvref_t<T>;
  static constexpr std::array<const char*, 1> names{ArgTraits<canonical>::name};
  static constexpr bool parens = false;
};
template <>
struct RetTraits<void> {
  using canonical = void;
  static constexpr std::array<const char*, 0> names{};
  static constexpr bool parens = true;
};
template <>
struct RetTraits<std::vector<Tensor>> {
  using canonical = std::vector<Tensor>;
  static constexpr std::array<const char*, 1> names{"Tensor[]"};
  static constexpr bool parens = false;
};
template <class... Ts>
struct RetTraits<std::tuple<Ts...>> {
  using canonical = std::tuple<std::remove_cvref_t<Ts>...>;
  static constexpr std::array<const char*, sizeof...(Ts)> names{RetTraits<Ts>::names[0]...};
  static constexpr bool parens = true;
};
template <class T>
using CanonRet = typename RetTraits<T>::canonical;

/// Drops a leading DispatchKeySet parameter (kernels that redispatch take one).
template <class... Args>
struct TakesKeys : std::false_type {};
template <class First, class... Rest>
struct TakesKeys<First, Rest...> : std::is_same<std::remove_cvref_t<First>, DispatchKeySet> {};

/// The schema names of a parameter list, as a constant array.
template <class... Args>
struct ArgNames {
  static constexpr std::array<const char*, sizeof...(Args)> names{
      ArgTraits<std::remove_cvref_t<Args>>::name...};
};
template <class... Args>
struct SchemaArgs : ArgNames<Args...> {};
template <class First, class... Rest>
  requires TakesKeys<First, Rest...>::value
struct SchemaArgs<First, Rest...> : ArgNames<Rest...> {};

/// "(Tensor, Tensor, Scalar) -> Tensor" from the names; out of line, so that a
/// registration or a typed() call holds no string code of its own (Note [Signature names]).
EMBER_API std::string signature_string(const char* const* args, size_t n_args,
                                       const char* const* rets, size_t n_rets, bool parens);

// Note [Signature names]: a C++ signature is checked against its schema as text at
// registration and at typed(). The names are compile-time arrays and one non-template
// function joins them: building the string inline, from std::string concatenations in
// each op's own instantiation, was a third of the compile time of the generated
// Operators_N.cpp files.
template <class Sig>
struct Signature;
/// "(Tensor, Tensor, Scalar) -> Tensor" for a C++ function type (keys parameter skipped).
template <class Ret, class... Args>
struct Signature<Ret(Args...)> {
  static std::string str() {
    using A = SchemaArgs<Args...>;
    using R = RetTraits<Ret>;
    return signature_string(A::names.data(), A::names.size(), R::names.data(), R::names.size(),
                            R::parens);
  }
};

// --- Boxing and unboxing ---------------------------------------------------------------

template <class T>
struct FromIValue;
template <>
struct FromIValue<const Tensor&> {
  static const Tensor& get(const IValue& v) { return v.to_tensor(); }
};
template <>
struct FromIValue<const std::optional<Tensor>&> {
  static std::optional<Tensor> get(const IValue& v) {
    return v.is_none() ? std::nullopt : std::optional<Tensor>(v.to_tensor());
  }
};
template <>
struct FromIValue<TensorList> {
  static TensorList get(const IValue& v) { return v.to_tensor_list(); }
};
template <>
struct FromIValue<int64_t> {
  static int64_t get(const IValue& v) { return v.to_int(); }
};
template <>
struct FromIValue<double> {
  static double get(const IValue& v) { return v.to_double(); }
};
template <>
struct FromIValue<bool> {
  static bool get(const IValue& v) { return v.to_bool(); }
};
template <>
struct FromIValue<std::complex<double>> {
  static std::complex<double> get(const IValue& v) { return v.to_complex(); }
};
template <>
struct FromIValue<const Scalar&> {
  static Scalar get(const IValue& v) { return v.to_scalar(); }
};
template <>
struct FromIValue<Scalar> : FromIValue<const Scalar&> {};
template <>
struct FromIValue<std::string_view> {
  static std::string_view get(const IValue& v) { return v.to_string(); }
};
template <>
struct FromIValue<IntArrayRef> {
  static IntArrayRef get(const IValue& v) { return v.to_int_list(); }
};
template <>
struct FromIValue<ArrayRef<double>> {
  static ArrayRef<double> get(const IValue& v) { return v.to_double_list(); }
};
template <size_t N>
struct FromIValue<std::array<bool, N>> {
  static std::array<bool, N> get(const IValue& v) {
    const std::vector<bool>& list = v.to_bool_list();
    EMBER_CHECK(list.size() == N, "expected a list of ", N, " bools, got ", list.size());
    std::array<bool, N> out{};
    for (size_t i = 0; i < N; ++i) out[i] = list[i];
    return out;
  }
};
template <>
struct FromIValue<ScalarType> {
  static ScalarType get(const IValue& v) { return v.to_scalar_type(); }
};
template <>
struct FromIValue<Device> {
  static Device get(const IValue& v) { return v.to_device(); }
};
template <>
struct FromIValue<Layout> {
  static Layout get(const IValue& v) { return v.to_layout(); }
};
template <>
struct FromIValue<MemoryFormat> {
  static MemoryFormat get(const IValue& v) { return static_cast<MemoryFormat>(v.to_int()); }
};
template <>
struct FromIValue<Generator> {
  static Generator get(const IValue& v) { return v.to_generator(); }
};
template <class T>
struct FromIValue<std::optional<T>> {
  static std::optional<T> get(const IValue& v) {
    if (v.is_none()) return std::nullopt;
    return FromIValue<T>::get(v);
  }
};
template <class T>
struct FromIValue<const std::optional<T>&> : FromIValue<std::optional<T>> {};

/// A canonical argument as an IValue (for calling boxed kernels unboxed).
template <class C>
IValue to_ivalue(const C& c) {
  if constexpr (std::is_same_v<C, MemoryFormat>) {
    return IValue(static_cast<int64_t>(c));
  } else if constexpr (std::is_same_v<C, std::optional<MemoryFormat>>) {
    return c ? IValue(static_cast<int64_t>(*c)) : IValue();
  } else if constexpr (std::is_same_v<C, std::optional<IntArrayRef>>) {
    return c ? IValue(c->vec()) : IValue();
  } else if constexpr (std::is_same_v<C, std::optional<std::string_view>>) {
    return c ? IValue(std::string(*c)) : IValue();
  } else if constexpr (std::is_same_v<C, ArrayRef<double>>) {
    return IValue(c.vec());
  } else if constexpr (requires { std::tuple_size<C>::value; }) {
    return IValue(std::vector<bool>(c.begin(), c.end()));
  } else {
    return IValue(c);
  }
}

/// Pushes a kernel's result onto a stack.
template <class R>
void push_result(Stack* stack, R&& r) {
  using D = std::remove_cvref_t<R>;
  if constexpr (std::is_same_v<D, MemoryFormat>) {
    stack->emplace_back(static_cast<int64_t>(r));
  } else if constexpr (std::is_same_v<D, std::vector<Tensor>>) {
    stack->emplace_back(std::vector<Tensor>(std::forward<R>(r)));
  } else if constexpr (requires { std::tuple_size<D>::value; }) {
    std::apply([&](auto&&... parts) { (push_result(stack, parts), ...); }, std::forward<R>(r));
  } else {
    stack->emplace_back(std::forward<R>(r));
  }
}

/// Pops a result of canonical type R from the end of a stack (holding exactly the returns).
template <class R>
R pop_result(Stack* stack) {
  if constexpr (std::is_void_v<R>) {
    return;
  } else if constexpr (std::is_same_v<R, Tensor>) {
    return std::move(stack->front()).to_tensor();
  } else if constexpr (std::is_same_v<R, std::vector<Tensor>>) {
    return stack->front().to_tensor_list();
  } else if constexpr (requires { std::tuple_size<R>::value; }) {
    return [&]<size_t... I>(std::index_sequence<I...>) {
      return R(std::move((*stack)[I]).to_tensor()...);
    }(std::make_index_sequence<std::tuple_size_v<R>>());
  } else {
    return FromIValue<R>::get(stack->front());
  }
}

}  // namespace sig
}  // namespace ember
