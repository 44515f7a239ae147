#pragma once
/// A single number of any kind (bool, integer, floating, complex), as `Scalar` arguments.

#include <complex>
#include <cstdint>
#include <ostream>
#include <type_traits>

#include "c10/core/ScalarType.h"

namespace ember {

/// A number passed by value to ops (`Scalar alpha=1`); remembers which kind it was given as.
class Scalar {
 public:
  enum class Kind : uint8_t { Bool, Int, Double, Complex };

  constexpr Scalar() : Scalar(int64_t{0}) {}
  constexpr Scalar(bool v) : kind_(Kind::Bool) { v_.i = v; }
  template <class T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int> = 0>
  constexpr Scalar(T v) : kind_(Kind::Int) { v_.i = static_cast<int64_t>(v); }
  template <class T, std::enable_if_t<std::is_floating_point_v<T>, int> = 0>
  constexpr Scalar(T v) : kind_(Kind::Double) { v_.d = static_cast<double>(v); }
  template <class T>
  constexpr Scalar(std::complex<T> v) : kind_(Kind::Complex) {
    v_.c[0] = v.real();
    v_.c[1] = v.imag();
  }

  constexpr Kind kind() const { return kind_; }
  constexpr bool is_bool() const { return kind_ == Kind::Bool; }
  constexpr bool is_integral() const { return kind_ == Kind::Int; }
  constexpr bool is_floating_point() const { return kind_ == Kind::Double; }
  constexpr bool is_complex() const { return kind_ == Kind::Complex; }

  /// The value converted to T (complex to real keeps the real part).
  template <class T>
  constexpr T to() const {
    switch (kind_) {
      case Kind::Bool:
      case Kind::Int: return static_cast<T>(v_.i);
      case Kind::Double: return static_cast<T>(v_.d);
      case Kind::Complex:
        if constexpr (std::is_constructible_v<T, double, double>) return T(v_.c[0], v_.c[1]);
        else return static_cast<T>(v_.c[0]);
    }
    return T();
  }
  constexpr int64_t to_long() const { return to<int64_t>(); }
  constexpr double to_double() const { return to<double>(); }
  std::complex<double> to_complex() const { return to<std::complex<double>>(); }

  // libtorch's spellings.
  constexpr double toDouble() const { return to<double>(); }
  constexpr float toFloat() const { return to<float>(); }
  constexpr int64_t toLong() const { return to<int64_t>(); }
  constexpr int32_t toInt() const { return to<int32_t>(); }
  constexpr int16_t toShort() const { return to<int16_t>(); }
  constexpr int8_t toChar() const { return to<int8_t>(); }
  constexpr uint8_t toByte() const { return to<uint8_t>(); }
  /// Nonzero is true (a complex value by its real part, as to<bool>()).
  constexpr bool toBool() const { return kind_ == Kind::Double ? v_.d != 0 : to<bool>(); }
  std::complex<double> toComplexDouble() const { return to_complex(); }
  std::complex<float> toComplexFloat() const { return to<std::complex<float>>(); }
  constexpr bool isFloatingPoint() const { return is_floating_point(); }
  /// Whether an integer (or, with include_bool, a bool) was given.
  constexpr bool isIntegral(bool include_bool) const {
    return kind_ == Kind::Int || (include_bool && kind_ == Kind::Bool);
  }
  constexpr bool isBoolean() const { return is_bool(); }
  constexpr bool isComplex() const { return is_complex(); }
  /// The scalar's kind as a dtype: Bool, Long, Double or ComplexDouble.
  constexpr ScalarType type() const { return default_dtype(); }

  /// The dtype a 0-d tensor made from this scalar would have by default.
  constexpr ScalarType default_dtype() const {
    switch (kind_) {
      case Kind::Bool: return ScalarType::Bool;
      case Kind::Int: return ScalarType::Long;
      case Kind::Double: return ScalarType::Double;
      case Kind::Complex: return ScalarType::ComplexDouble;
    }
    return ScalarType::Undefined;
  }

  friend bool operator==(const Scalar& a, const Scalar& b) {
    if (a.kind_ != b.kind_) return false;
    return a.kind_ == Kind::Double    ? a.v_.d == b.v_.d
           : a.kind_ == Kind::Complex ? a.v_.c[0] == b.v_.c[0] && a.v_.c[1] == b.v_.c[1]
                                      : a.v_.i == b.v_.i;
  }

 private:
  Kind kind_;
  union {
    int64_t i;
    double d;
    double c[2];
  } v_{};
};

inline std::ostream& operator<<(std::ostream& os, const Scalar& s) {
  switch (s.kind()) {
    case Scalar::Kind::Bool: return os << (s.to_long() ? "True" : "False");
    case Scalar::Kind::Int: return os << s.to_long();
    case Scalar::Kind::Double: return os << s.to_double();
    case Scalar::Kind::Complex: return os << s.to_complex();
  }
  return os;
}

}  // namespace ember
