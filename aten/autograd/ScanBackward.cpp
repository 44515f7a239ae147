// Derivatives of the scan family (aten/native/scan.cpp), written with ember ops so that
// they are differentiable themselves. Each takes the scanned dim as the forward got it.
#include <limits>

#include "aten/TensorOperators.h"
#include "aten/autograd/FunctionsManual.h"
#include "ember/generated/ops/abs.h"
#include "ember/generated/ops/cumprod.h"
#include "ember/generated/ops/cumsum.h"
#include "ember/generated/ops/eq.h"
#include "ember/generated/ops/exp.h"
#include "ember/generated/ops/flip.h"
#include "ember/generated/ops/full.h"
#include "ember/generated/ops/gt.h"
#include "ember/generated/ops/log.h"
#include "ember/generated/ops/logcumsumexp.h"
#include "ember/generated/ops/logical_and.h"
#include "ember/generated/ops/lt.h"
#include "ember/generated/ops/masked_fill.h"
#include "ember/generated/ops/scatter_add.h"
#include "ember/generated/ops/where.h"
#include "ember/generated/ops/zeros.h"

namespace ember::autograd {

namespace {

int64_t scan_dim(int64_t dim, int64_t ndim) { return dim < 0 ? dim + ndim : dim; }

// The sums of t from each position to the end of dim.
Tensor reverse_cumsum(const Tensor& t, int64_t dim) {
  const int64_t dims[] = {dim};
  return ember::cumsum(ember::flip(t, dims), dim).flip(dims);
}

}  // namespace

Tensor cumsum_backward(const Tensor& grad, int64_t dim) {
  if (grad.dim() == 0 || grad.numel() == 0) return grad;
  return reverse_cumsum(grad, scan_dim(dim, grad.dim()));
}

// d y_j / d x_k = prod_{i <= j, i != k} x_i for k <= j. Before the first zero of a slice
// that is y_j / x_k, so grad_k = (sum_{j >= k} grad_j y_j) / x_k. At the first zero z it is
// the running product with x_z taken as 1, summed against grad from z on. After z every
// term holds x_z: 0.
Tensor cumprod_backward(const Tensor& grad, const Tensor& self, int64_t dim, const Tensor& result) {
  if (self.dim() == 0 || self.numel() == 0) return grad;
  const int64_t d = scan_dim(dim, self.dim());
  const Tensor is_zero = self.eq(0);
  const Tensor zeros_so_far = ember::cumsum(is_zero, d);
  const Tensor before_zero = zeros_so_far.eq(0);
  const Tensor first_zero = ember::logical_and(is_zero, zeros_so_far.eq(1));
  const Tensor before = ember::where(before_zero, reverse_cumsum(grad * conj_of(result), d) /
                                                      conj_of(self.masked_fill(before_zero.eq(0), 1)), 0);
  const Tensor skipping_zero = ember::cumprod(self.masked_fill(first_zero, 1), d);
  return before + ember::where(first_zero, reverse_cumsum(grad * conj_of(skipping_zero), d), 0);
}

Tensor cummaxmin_backward(const Tensor& grad, const Tensor& self, const Tensor& indices, int64_t dim) {
  if (self.dim() == 0 || self.numel() == 0) return grad;
  const Tensor zeros = ember::zeros(self.sizes(), TensorOptions().dtype(grad.scalar_type()).device(grad.device()));
  return zeros.scatter_add(scan_dim(dim, self.dim()), indices, grad);
}

// grad_k = sum_{j >= k} grad_j exp(x_k - y_j), summed in log space for the positive and the
// negative parts of grad separately (the reversed logcumsumexp of log|grad_j| - y_j), so no
// term overflows; a zero part stands as the dtype's lowest value (exp gives 0).
Tensor logcumsumexp_backward(const Tensor& grad, const Tensor& self, const Tensor& result, int64_t dim) {
  if (self.dim() == 0 || self.numel() == 0) return grad;
  const int64_t d = scan_dim(dim, self.dim());
  const int64_t dims[] = {d};
  const double lowest = grad.scalar_type() == ScalarType::Double ? std::numeric_limits<double>::lowest()
                                                                  : std::numeric_limits<float>::lowest();
  const Tensor floor = ember::full({}, lowest, TensorOptions().dtype(grad.scalar_type()).device(grad.device()));
  const Tensor log_abs = ember::log(ember::abs(grad));
  auto part = [&](const Tensor& mask) {
    const Tensor terms = ember::where(mask, log_abs, floor) - result;
    return ember::exp(ember::logcumsumexp(terms.flip(dims), d).flip(dims) + self);
  };
  return part(grad.gt(0)) - part(grad.lt(0));
}

}  // namespace ember::autograd
