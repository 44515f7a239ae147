#pragma once
/// Calling a generic lambda with the C++ type of a runtime dtype, and converting between
/// element types with PyTorch's rules (c10::convert / static_cast_with_inter_type).

#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "c10/core/Scalar.h"
#include "c10/core/ScalarType.h"
#include "c10/util/Exception.h"
#include "c10/util/Half.h"

namespace ember {

/// The C++ element type of each dtype.
template <ScalarType S> struct CppTypeOf;
template <> struct CppTypeOf<ScalarType::Byte> { using type = uint8_t; };
template <> struct CppTypeOf<ScalarType::Char> { using type = int8_t; };
template <> struct CppTypeOf<ScalarType::Short> { using type = int16_t; };
template <> struct CppTypeOf<ScalarType::Int> { using type = int32_t; };
template <> struct CppTypeOf<ScalarType::Long> { using type = int64_t; };
template <> struct CppTypeOf<ScalarType::Half> { using type = Half; };
template <> struct CppTypeOf<ScalarType::Float> { using type = float; };
template <> struct CppTypeOf<ScalarType::Double> { using type = double; };
template <> struct CppTypeOf<ScalarType::ComplexFloat> { using type = std::complex<float>; };
template <> struct CppTypeOf<ScalarType::ComplexDouble> { using type = std::complex<double>; };
template <> struct CppTypeOf<ScalarType::Bool> { using type = bool; };
template <> struct CppTypeOf<ScalarType::BFloat16> { using type = BFloat16; };

/// The dtype of each C++ element type.
template <class T> inline constexpr ScalarType kScalarTypeOf = ScalarType::Undefined;
template <> inline constexpr ScalarType kScalarTypeOf<uint8_t> = ScalarType::Byte;
template <> inline constexpr ScalarType kScalarTypeOf<int8_t> = ScalarType::Char;
template <> inline constexpr ScalarType kScalarTypeOf<int16_t> = ScalarType::Short;
template <> inline constexpr ScalarType kScalarTypeOf<int32_t> = ScalarType::Int;
template <> inline constexpr ScalarType kScalarTypeOf<int64_t> = ScalarType::Long;
template <> inline constexpr ScalarType kScalarTypeOf<Half> = ScalarType::Half;
template <> inline constexpr ScalarType kScalarTypeOf<float> = ScalarType::Float;
template <> inline constexpr ScalarType kScalarTypeOf<double> = ScalarType::Double;
template <>
inline constexpr ScalarType kScalarTypeOf<std::complex<float>> = ScalarType::ComplexFloat;
template <>
inline constexpr ScalarType kScalarTypeOf<std::complex<double>> = ScalarType::ComplexDouble;
template <> inline constexpr ScalarType kScalarTypeOf<bool> = ScalarType::Bool;
template <> inline constexpr ScalarType kScalarTypeOf<BFloat16> = ScalarType::BFloat16;

/// Carries a type into a generic lambda:
/// `[&](auto tag) { using T = typename decltype(tag)::type; ... }`.
template <class T>
struct TypeTag {
  using type = T;
};

template <class T> struct IsComplex : std::false_type {};
template <class T> struct IsComplex<std::complex<T>> : std::true_type {};
template <class T> inline constexpr bool kIsComplex = IsComplex<T>::value;

/// The real type of an element type: a complex's value type, else the type itself.
template <class T> struct RealOf { using type = T; };
template <class T> struct RealOf<std::complex<T>> { using type = T; };
template <class T> using RealType = typename RealOf<T>::type;

/// Calls f(TypeTag<T>{}) for the C++ type T of dtype t (all 12 dtypes); `op` names the
/// caller in the error for Undefined.
template <class F>
decltype(auto) dispatch_all_types(ScalarType t, const char* op, F&& f) {
  switch (t) {
    case ScalarType::Byte: return f(TypeTag<uint8_t>{});
    case ScalarType::Char: return f(TypeTag<int8_t>{});
    case ScalarType::Short: return f(TypeTag<int16_t>{});
    case ScalarType::Int: return f(TypeTag<int32_t>{});
    case ScalarType::Long: return f(TypeTag<int64_t>{});
    case ScalarType::Half: return f(TypeTag<Half>{});
    case ScalarType::Float: return f(TypeTag<float>{});
    case ScalarType::Double: return f(TypeTag<double>{});
    case ScalarType::ComplexFloat: return f(TypeTag<std::complex<float>>{});
    case ScalarType::ComplexDouble: return f(TypeTag<std::complex<double>>{});
    case ScalarType::Bool: return f(TypeTag<bool>{});
    case ScalarType::BFloat16: return f(TypeTag<BFloat16>{});
    case ScalarType::Undefined: break;
  }
  EMBER_THROW(TypeError, op, "(): expected a defined dtype, but got ", t);
}

/// One element converted to To as PyTorch converts it: complex to real keeps the real part;
/// anything to bool is `!= 0`; floating to uint8 goes through int64 (defined for negative
/// values); other floating to integral conversions truncate (out-of-range values are
/// unspecified, as in PyTorch); 16-bit floats convert through float, and a double or an
/// integer reaches them through float too (c10's double rounding).
template <class To, class From>
constexpr To convert(From v) {
  if constexpr (std::is_same_v<To, From>) {
    return v;
  } else if constexpr (std::is_same_v<To, bool>) {
    if constexpr (kIsComplex<From>) return v.real() != 0 || v.imag() != 0;
    else if constexpr (Float16<From>) return float(v) != 0;
    else return v != From(0);
  } else if constexpr (Float16<From>) {
    return convert<To>(static_cast<float>(v));
  } else if constexpr (kIsComplex<To>) {
    using V = typename To::value_type;
    if constexpr (kIsComplex<From>) return To(static_cast<V>(v.real()), static_cast<V>(v.imag()));
    else return To(static_cast<V>(v), V(0));
  } else if constexpr (kIsComplex<From>) {
    return convert<To>(v.real());
  } else if constexpr (Float16<To>) {
    return To(static_cast<float>(v));
  } else if constexpr (std::is_same_v<To, uint8_t> && std::is_floating_point_v<From>) {
    return static_cast<uint8_t>(static_cast<int64_t>(v));
  } else {
    return static_cast<To>(v);
  }
}

namespace detail {

// The largest finite value of a real element type, as a double.
template <class R>
constexpr double max_finite() {
  if constexpr (std::is_same_v<R, Half>) return 65504.0;
  else if constexpr (std::is_same_v<R, BFloat16>) return 3.3895313892515355e38;
  else return static_cast<double>(std::numeric_limits<R>::max());
}

// c10::overflows for a real target R: infinities fit types that have them, NaN fits only
// floating types; integers may not leave [lowest, max] (unsigned types also take negative
// values down to -max, which wrap, as in PyTorch).
template <class R>
bool overflows_double(double v) {
  constexpr bool floating = std::is_floating_point_v<R> || Float16<R>;
  if (std::isinf(v)) return !floating;
  if (std::isnan(v)) return !floating;
  if constexpr (floating) return v < -max_finite<R>() || v > max_finite<R>();
  else return v < static_cast<double>(std::numeric_limits<R>::lowest()) || v > max_finite<R>();
}
template <class R>
bool overflows_int(int64_t v) {
  if constexpr (std::is_floating_point_v<R> || Float16<R>) {
    return static_cast<double>(v) < -max_finite<R>() || static_cast<double>(v) > max_finite<R>();
  } else if constexpr (std::is_unsigned_v<R>) {
    const uint64_t mag = v < 0 ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
    return mag > static_cast<uint64_t>(std::numeric_limits<R>::max());
  } else {
    return v < static_cast<int64_t>(std::numeric_limits<R>::lowest()) ||
           v > static_cast<int64_t>(std::numeric_limits<R>::max());
  }
}

}  // namespace detail

/// Whether converting s to T loses its magnitude (PyTorch's checked_convert): a value
/// outside T's range, NaN or inf for integers, a nonzero imaginary part for a real T.
/// Nothing overflows bool.
template <class T>
bool scalar_overflows(const Scalar& s) {
  if constexpr (std::is_same_v<T, bool>) {
    return false;
  } else {
    using R = RealType<T>;
    switch (s.kind()) {
      case Scalar::Kind::Bool: return false;
      case Scalar::Kind::Int: return detail::overflows_int<R>(s.to_long());
      case Scalar::Kind::Double: return detail::overflows_double<R>(s.to_double());
      case Scalar::Kind::Complex: {
        const std::complex<double> c = s.to_complex();
        if (!kIsComplex<T> && c.imag() != 0) return true;
        return detail::overflows_double<R>(c.real()) || detail::overflows_double<R>(c.imag());
      }
    }
    return false;
  }
}

/// s converted to T by convert() from the kind it was given as.
template <class T>
T scalar_to(const Scalar& s) {
  switch (s.kind()) {
    case Scalar::Kind::Bool: return convert<T>(s.to_long() != 0);
    case Scalar::Kind::Int: return convert<T>(s.to_long());
    case Scalar::Kind::Double: return convert<T>(s.to_double());
    case Scalar::Kind::Complex: return convert<T>(s.to_complex());
  }
  return T();
}

/// s as a T; ValueError "<op>(): expected '<arg>' to fit in <dtype> without overflow" when
/// it does not (see scalar_overflows).
template <class T>
T checked_scalar_to(const Scalar& s, const char* op, const char* arg) {
  EMBER_CHECK_VALUE(!scalar_overflows<T>(s), op, "(): expected '", arg, "' to fit in ",
                    kScalarTypeOf<T>, " without overflow, but got ", s);
  return scalar_to<T>(s);
}

}  // namespace ember
