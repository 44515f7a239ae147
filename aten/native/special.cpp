// The special functions' shared part: polygamma's meta and the composites of the gamma
// family (the method form and in-place polygamma, mvlgamma). The loops are in
// cpu/binary_special.cpp (polygamma, incomplete gammas, zeta), cpu/binary_polynomial.cpp
// (orthogonal polynomials) and cpu/unary_bessel.cpp (Bessel and Airy functions).
#include <cmath>

#include "aten/TensorOperators.h"
#include "aten/native/TensorIterator.h"
#include "aten/native/unary.h"
#include "c10/util/Exception.h"
#include "ember/generated/ops/lgamma.h"
#include "ember/generated/ops/polygamma.h"

namespace ember::native {

TensorMeta polygamma_meta(int64_t n, const Tensor& self) {
  EMBER_CHECK(n >= 0, "polygamma(): expected 'n' to be non-negative (polygamma(n, x) does not "
              "support negative n), but got ", n);
  EMBER_CHECK_NOT_IMPLEMENTED(!is_complex(self.dtype()), "polygamma(): not implemented for '",
                              self.dtype(), "'");
  return elementwise_meta({&self}, float_result_type(self.dtype()), "polygamma");
}

Tensor polygamma(const Tensor& self, int64_t n) { return ember::polygamma(n, self); }

Tensor& polygamma_(Tensor& self, int64_t n) {
  EMBER_CHECK_NOT_IMPLEMENTED(!is_complex(self.dtype()), "polygamma_(): not implemented for '",
                              self.dtype(), "'");
  EMBER_CHECK(is_floating_point(self.dtype()), "polygamma_(): result type Float can't be cast to "
              "the desired output type ", self.dtype());
  self.copy_(ember::polygamma(n, self));
  return self;
}

// Note [mvlgamma]: log Gamma_p(a) = p (p - 1) / 4 log(pi) + sum over j < p of lgamma(a - j / 2),
// defined for a > (p - 1) / 2; as PyTorch 2.13's, other elements are not refused (they give
// the sum's value).
Tensor mvlgamma(const Tensor& self, int64_t p) {
  EMBER_CHECK(p >= 1, "mvlgamma(): expected 'p' to be greater than or equal to 1, but got ", p);
  EMBER_CHECK_NOT_IMPLEMENTED(!is_complex(self.dtype()), "mvlgamma(): not implemented for '",
                              self.dtype(), "'");
  const Tensor a = is_floating_point(self.dtype()) ? self : self.to(float_result_type(self.dtype()));
  constexpr double kLogPi = 1.14472988584940017414342735135305871;
  Tensor out = ember::lgamma(a);
  for (int64_t j = 1; j < p; ++j) out = out + ember::lgamma(a - Scalar(static_cast<double>(j) / 2));
  // PyTorch sums over a new last dimension: its result is contiguous whatever self's strides.
  return (out + Scalar(static_cast<double>(p) * static_cast<double>(p - 1) / 4 * kLogPi)).contiguous();
}

Tensor& mvlgamma_(Tensor& self, int64_t p) {
  EMBER_CHECK_NOT_IMPLEMENTED(!is_complex(self.dtype()), "mvlgamma_(): not implemented for '",
                              self.dtype(), "'");
  EMBER_CHECK(is_floating_point(self.dtype()), "mvlgamma_(): result type Float can't be cast to "
              "the desired output type ", self.dtype());
  self.copy_(mvlgamma(self, p));
  return self;
}

}  // namespace ember::native
