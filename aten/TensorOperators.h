#pragma once
/// C++ operators on tensors, as libtorch has them: arithmetic (a + b, 2 * t, -t), compound
/// assignment (t += 1), comparisons (a < b, t == 0: bool tensors), bitwise and shift
/// operators (a & b, ~m, t << 1), and the whole-tensor predicates allclose and equal.

#include "ember/generated/ops/add.h"
#include "ember/generated/ops/div.h"
#include "ember/generated/ops/mul.h"
#include "ember/generated/ops/neg.h"
#include "ember/generated/ops/reciprocal.h"
#include "ember/generated/ops/sub.h"

namespace ember {

inline Tensor operator-(const Tensor& a) { return ember::neg(a); }
inline Tensor operator+(const Tensor& a, const Tensor& b) { return ember::add(a, b); }
inline Tensor operator+(const Tensor& a, const Scalar& b) { return ember::add(a, b); }
inline Tensor operator+(const Scalar& a, const Tensor& b) { return ember::add(b, a); }
inline Tensor operator-(const Tensor& a, const Tensor& b) { return ember::sub(a, b); }
inline Tensor operator-(const Tensor& a, const Scalar& b) { return ember::sub(a, b); }
inline Tensor operator-(const Scalar& a, const Tensor& b) { return ember::add(ember::neg(b), a); }
inline Tensor operator*(const Tensor& a, const Tensor& b) { return ember::mul(a, b); }
inline Tensor operator*(const Tensor& a, const Scalar& b) { return ember::mul(a, b); }
inline Tensor operator*(const Scalar& a, const Tensor& b) { return ember::mul(b, a); }
inline Tensor operator/(const Tensor& a, const Tensor& b) { return ember::div(a, b); }
inline Tensor operator/(const Tensor& a, const Scalar& b) { return ember::div(a, b); }
inline Tensor operator/(const Scalar& a, const Tensor& b) { return ember::mul(ember::reciprocal(b), a); }
inline Tensor operator%(const Tensor& a, const Tensor& b) { return a.remainder(b); }
inline Tensor operator%(const Tensor& a, const Scalar& b) { return a.remainder(b); }

// Compound assignment writes into the left side (a temporary too: `t[0] += 1`).
#define EMBER_COMPOUND_ASSIGNMENT(op, method)                                             \
  inline Tensor& operator op(Tensor& a, const Tensor& b) { a.method(b); return a; }      \
  inline Tensor& operator op(Tensor& a, const Scalar& b) { a.method(b); return a; }      \
  inline Tensor operator op(Tensor&& a, const Tensor& b) { a.method(b); return a; }      \
  inline Tensor operator op(Tensor&& a, const Scalar& b) { a.method(b); return a; }
EMBER_COMPOUND_ASSIGNMENT(+=, add_)
EMBER_COMPOUND_ASSIGNMENT(-=, sub_)
EMBER_COMPOUND_ASSIGNMENT(*=, mul_)
EMBER_COMPOUND_ASSIGNMENT(/=, div_)
EMBER_COMPOUND_ASSIGNMENT(&=, bitwise_and_)
EMBER_COMPOUND_ASSIGNMENT(|=, bitwise_or_)
EMBER_COMPOUND_ASSIGNMENT(^=, bitwise_xor_)
#undef EMBER_COMPOUND_ASSIGNMENT

// Comparisons give bool tensors; a scalar on the left compares as the mirrored operator.
#define EMBER_COMPARISON(op, method, mirrored)                                                 \
  inline Tensor operator op(const Tensor& a, const Tensor& b) { return a.method(b); }         \
  inline Tensor operator op(const Tensor& a, const Scalar& b) { return a.method(b); }         \
  inline Tensor operator op(const Scalar& a, const Tensor& b) { return b.mirrored(a); }
EMBER_COMPARISON(==, eq, eq)
EMBER_COMPARISON(!=, ne, ne)
EMBER_COMPARISON(<, lt, gt)
EMBER_COMPARISON(<=, le, ge)
EMBER_COMPARISON(>, gt, lt)
EMBER_COMPARISON(>=, ge, le)
#undef EMBER_COMPARISON

// Bitwise operators (logical on bool tensors); a scalar on the left commutes.
#define EMBER_BITWISE(op, method)                                                              \
  inline Tensor operator op(const Tensor& a, const Tensor& b) { return a.method(b); }         \
  inline Tensor operator op(const Tensor& a, const Scalar& b) { return a.method(b); }         \
  inline Tensor operator op(const Scalar& a, const Tensor& b) { return b.method(a); }
EMBER_BITWISE(&, bitwise_and)
EMBER_BITWISE(|, bitwise_or)
EMBER_BITWISE(^, bitwise_xor)
#undef EMBER_BITWISE
inline Tensor operator~(const Tensor& a) { return a.bitwise_not(); }
inline Tensor operator<<(const Tensor& a, const Tensor& b) { return a.bitwise_left_shift(b); }
inline Tensor operator<<(const Tensor& a, const Scalar& b) { return a.bitwise_left_shift(b); }
inline Tensor operator>>(const Tensor& a, const Tensor& b) { return a.bitwise_right_shift(b); }
inline Tensor operator>>(const Tensor& a, const Scalar& b) { return a.bitwise_right_shift(b); }

/// Whether a and b have the same sizes and equal elements (torch.equal).
inline bool equal(const Tensor& a, const Tensor& b) { return a.equal(b); }
/// Whether |a - b| <= atol + rtol * |b| elementwise (torch.allclose); NaNs are equal only
/// with equal_nan.
inline bool allclose(const Tensor& a, const Tensor& b, double rtol = 1e-05, double atol = 1e-08,
                     bool equal_nan = false) {
  return a.allclose(b, rtol, atol, equal_nan);
}

}  // namespace ember
