#pragma once
/// C++ arithmetic operators on tensors (a + b, 2 * t, -t), as PyTorch's C++ API has them.

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

}  // namespace ember
