#pragma once
/// The 16-bit floating-point element types: `Half` (IEEE float16) and `BFloat16`, stored as
/// bits and converted to and from float with round-to-nearest-even, bit for bit as
/// PyTorch's c10::Half and c10::BFloat16 convert (NaN becomes a quiet NaN).

#include <bit>
#include <cstdint>
#include <ostream>
#include <type_traits>

namespace ember {

namespace detail {

/// float -> float16 bits, round to nearest even; overflow to inf; NaN -> sign | 0x7E00.
constexpr uint16_t fp16_bits_from_float(float f) {
  const uint32_t x = std::bit_cast<uint32_t>(f);
  const uint32_t sign = (x >> 16) & 0x8000u;
  const uint32_t abs = x & 0x7FFFFFFFu;
  if (abs > 0x7F800000u) return static_cast<uint16_t>(sign | 0x7E00u);
  if (abs >= 0x477FF000u) return static_cast<uint16_t>(sign | 0x7C00u);  // >= 65520: inf
  if (abs >= 0x38800000u) {  // normal half: rebias the exponent, round away 13 mantissa bits
    const uint32_t rounded = abs + 0xFFFu + ((abs >> 13) & 1u) - (112u << 23);
    return static_cast<uint16_t>(sign | (rounded >> 13));
  }
  // Subnormal half (a multiple of 2^-24), or zero.
  const uint32_t exp = abs >> 23;
  if (exp < 102) return static_cast<uint16_t>(sign);  // below 2^-25: rounds to zero
  const uint32_t mant = (abs & 0x7FFFFFu) | 0x800000u;
  const uint32_t shift = 126 - exp;  // 14..24
  uint32_t q = mant >> shift;
  const uint32_t rem = mant & ((1u << shift) - 1);
  const uint32_t half = 1u << (shift - 1);
  if (rem > half || (rem == half && (q & 1u))) ++q;
  return static_cast<uint16_t>(sign | q);
}

/// float16 bits -> float (exact).
constexpr float fp16_bits_to_float(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1Fu;
  const uint32_t mant = h & 0x3FFu;
  if (exp == 0x1F) return std::bit_cast<float>(sign | 0x7F800000u | (mant << 13));
  if (exp == 0) {
    const float v = static_cast<float>(mant) * 5.9604644775390625e-8f;  // mant * 2^-24, exact
    return sign ? -v : v;
  }
  return std::bit_cast<float>(sign | ((exp + 112u) << 23) | (mant << 13));
}

/// float -> bfloat16 bits, round to nearest even; NaN -> 0x7FC0 (c10's rule).
constexpr uint16_t bf16_bits_from_float(float f) {
  if (f != f) return 0x7FC0u;
  const uint32_t x = std::bit_cast<uint32_t>(f);
  return static_cast<uint16_t>((x + 0x7FFFu + ((x >> 16) & 1u)) >> 16);
}

constexpr float bf16_bits_to_float(uint16_t b) {
  return std::bit_cast<float>(static_cast<uint32_t>(b) << 16);
}

}  // namespace detail

/// Tag for constructing a 16-bit float from its bit pattern.
struct FromBits {};

/// IEEE 754 binary16. Converts implicitly to float; from float with round-to-nearest-even
/// (a double or integer is first converted to float, as c10::Half does).
struct Half {
  uint16_t x = 0;
  Half() = default;
  constexpr Half(uint16_t bits, FromBits) : x(bits) {}
  constexpr Half(float v) : x(detail::fp16_bits_from_float(v)) {}
  constexpr operator float() const {
#if defined(__F16C__)
    // The kernels' AVX2 and AVX-512 copies have F16C: one instruction the vectoriser can
    // widen (the same value; a signalling NaN comes back quiet).
    if (!std::is_constant_evaluated()) return static_cast<float>(std::bit_cast<_Float16>(x));
#endif
    return detail::fp16_bits_to_float(x);
  }
};

/// bfloat16: the top half of a float32. Same conversion rules as Half.
struct BFloat16 {
  uint16_t x = 0;
  BFloat16() = default;
  constexpr BFloat16(uint16_t bits, FromBits) : x(bits) {}
  constexpr BFloat16(float v) : x(detail::bf16_bits_from_float(v)) {}
  constexpr operator float() const { return detail::bf16_bits_to_float(x); }
};

/// Half or BFloat16.
template <class T>
concept Float16 = std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;

// Arithmetic as in c10: two 16-bit operands (or one and an integer) compute in float and
// round back; with a float or double operand the result is float or double.
#define EMBER_FLOAT16_BINARY_OP(op)                                                      \
  template <Float16 H>                                                                   \
  constexpr H operator op(H a, H b) { return H(float(a) op float(b)); }                  \
  template <Float16 H, class I>                                                          \
    requires std::is_integral_v<I>                                                       \
  constexpr H operator op(H a, I b) { return a op H(static_cast<float>(b)); }            \
  template <Float16 H, class I>                                                          \
    requires std::is_integral_v<I>                                                       \
  constexpr H operator op(I a, H b) { return H(static_cast<float>(a)) op b; }            \
  template <Float16 H, class F>                                                          \
    requires std::is_floating_point_v<F>                                                 \
  constexpr F operator op(H a, F b) { return static_cast<F>(float(a)) op b; }            \
  template <Float16 H, class F>                                                          \
    requires std::is_floating_point_v<F>                                                 \
  constexpr F operator op(F a, H b) { return a op static_cast<F>(float(b)); }
EMBER_FLOAT16_BINARY_OP(+)
EMBER_FLOAT16_BINARY_OP(-)
EMBER_FLOAT16_BINARY_OP(*)
EMBER_FLOAT16_BINARY_OP(/)
#undef EMBER_FLOAT16_BINARY_OP

template <Float16 H>
constexpr H operator-(H a) {
  return H(static_cast<uint16_t>(a.x ^ 0x8000u), FromBits{});
}

inline std::ostream& operator<<(std::ostream& os, Half h) { return os << float(h); }
inline std::ostream& operator<<(std::ostream& os, BFloat16 h) { return os << float(h); }

}  // namespace ember
