// Derivatives of the DFT primitives (aten/native/cpu/fft.cpp), written with ember ops so
// that they are differentiable themselves. The unnormalized DFT matrix F has the adjoint
// conj(F), the unnormalized inverse, and the normalizations are real scales, so each
// backward is the other direction's transform with the same normalization.
#include "aten/TensorOperators.h"
#include "aten/autograd/FunctionsManual.h"
#include "aten/native/DimUtils.h"
#include "ember/generated/ops/_fft_c2c.h"
#include "ember/generated/ops/_fft_r2c.h"
#include "ember/generated/ops/cat.h"
#include "ember/generated/ops/view_as_real.h"
#include "ember/generated/ops/zeros.h"

namespace ember::autograd {

Tensor fft_r2c_backward(const Tensor& grad, const Tensor& self, IntArrayRef dim, int64_t normalization,
                        bool onesided) {
  Tensor g = grad;
  if (onesided) {
    // The bins the one-sided output left out had no gradient: zeros up to the full length.
    const int64_t d = native::wrap_dim("_fft_r2c", "dim", dim.back(), self.dim());
    const int64_t missing = self.sizes()[d] - grad.sizes()[d];
    if (missing > 0) {
      std::vector<int64_t> sizes(grad.sizes().begin(), grad.sizes().end());
      sizes[d] = missing;
      g = ember::cat({grad, ember::zeros(sizes, grad.options())}, d);
    }
  }
  const Tensor full = ember::_fft_c2c(g, dim, normalization, /*forward=*/false);
  return ember::view_as_real(full.contiguous()).select(-1, 0);
}

Tensor fft_c2r_backward(const Tensor& grad, IntArrayRef dim, int64_t normalization) {
  const int64_t d = native::wrap_dim("_fft_c2r", "dim", dim.back(), grad.dim());
  const Tensor g = ember::_fft_r2c(grad, dim, normalization, /*onesided=*/true);
  // Bins 1 .. n - (n // 2 + 1) also stand for their mirrors n - k of the Hermitian signal.
  const int64_t doubled = grad.sizes()[d] - g.sizes()[d];
  if (doubled <= 0) return g;
  return ember::cat({g.narrow(d, 0, 1), g.narrow(d, 1, doubled) * 2,
                     g.narrow(d, 1 + doubled, g.sizes()[d] - 1 - doubled)}, d);
}

}  // namespace ember::autograd
