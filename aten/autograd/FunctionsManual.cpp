#include "aten/autograd/FunctionsManual.h"

#include "aten/native/sparse/SparseTensor.h"
#include "ember/generated/ops/_sparse_compressed_tensor_unsafe.h"
#include "ember/generated/ops/_sparse_coo_tensor_unsafe.h"
#include "ember/generated/ops/index.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "aten/autograd/Engine.h"
#include "c10/util/Exception.h"
#include "ember/generated/ops/amax.h"
#include "ember/generated/ops/arange.h"
#include "ember/generated/ops/as_strided.h"
#include "ember/generated/ops/cat.h"
#include "ember/generated/ops/clamp_min.h"
#include "ember/generated/ops/diagonal.h"
#include "ember/generated/ops/narrow.h"
#include "ember/generated/ops/ones.h"
#include "ember/generated/ops/ones_like.h"
#include "ember/generated/ops/roll.h"
#include "ember/generated/ops/slice.h"
#include "ember/generated/ops/softplus.h"
#include "ember/generated/ops/sum.h"
#include "ember/generated/ops/view_as_real.h"
#include "ember/generated/ops/where.h"
#include "ember/generated/ops/zeros.h"
#include "ember/generated/ops/zeros_like.h"

namespace ember::autograd {

namespace {

// The reduced dims, non-negative and sorted (None or empty: all).
std::vector<int64_t> reduced_dims(std::optional<IntArrayRef> dims, int64_t ndim) {
  std::vector<int64_t> out;
  if (!dims || dims->empty()) {
    for (int64_t d = 0; d < ndim; ++d) out.push_back(d);
    return out;
  }
  for (int64_t d : *dims) out.push_back(d < 0 ? d + std::max<int64_t>(ndim, 1) : d);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

int64_t reduced_numel(IntArrayRef sizes, std::optional<IntArrayRef> dims) {
  int64_t n = 1;
  for (int64_t d : reduced_dims(dims, static_cast<int64_t>(sizes.size()))) {
    if (d < static_cast<int64_t>(sizes.size())) n *= sizes[d];
  }
  return n;
}

std::optional<IntArrayRef> as_dims(const std::vector<int64_t>& v) { return IntArrayRef(v); }

}  // namespace

Tensor zeros_of(const Tensor& t) { return ember::zeros_like(t); }

Tensor masked_grad(const Tensor& mask, const Tensor& grad) { return ember::where(mask, grad, 0); }

Tensor not_implemented_grad(const char* what) {
  EMBER_CHECK_NOT_IMPLEMENTED(false, "the derivative for '", what, "' is not implemented.");
  return {};
}

Tensor maybe_multiply(const Tensor& grad, const Scalar& alpha) {
  if (!alpha.is_complex() && alpha.to_double() == 1.0) return grad;
  return grad * alpha;
}

double correction_of(const std::optional<Scalar>& correction) {
  return correction ? correction->to_double() : 1.0;
}

Tensor restore_reduced_dims(const Tensor& grad, std::optional<IntArrayRef> dims, bool keepdim, int64_t ndim) {
  if (keepdim || ndim == 0) return grad;
  Tensor g = grad;
  for (int64_t d : reduced_dims(dims, ndim)) g = g.unsqueeze(d);
  return g;
}

// A sparse gradient (of a sparse op's result) made dense for the dense formulas below; the
// engine projects their result back onto a sparse input's pattern (Note [Sparse gradients]).
static Tensor dense_grad(const Tensor& grad) { return grad.layout() == Layout::Strided ? grad : grad._to_dense(); }

Tensor sum_backward(const Tensor& grad, IntArrayRef sizes, std::optional<IntArrayRef> dims, bool keepdim) {
  return restore_reduced_dims(dense_grad(grad), dims, keepdim, static_cast<int64_t>(sizes.size())).expand(sizes);
}

Tensor mean_backward(const Tensor& grad, IntArrayRef sizes, std::optional<IntArrayRef> dims, bool keepdim) {
  const int64_t n = reduced_numel(sizes, dims);
  return sum_backward(grad, sizes, dims, keepdim) / static_cast<double>(n);
}

Tensor nansum_backward(const Tensor& grad, const Tensor& self, std::optional<IntArrayRef> dims, bool keepdim) {
  Tensor g = sum_backward(grad, self.sizes(), dims, keepdim);
  return ember::where(self.isnan(), 0, g);
}

Tensor nanmean_backward(const Tensor& grad, const Tensor& self, std::optional<IntArrayRef> dims, bool keepdim) {
  const Tensor not_nan = self.isnan().logical_not();
  const Tensor count = not_nan.sum(dims, /*keepdim=*/true);
  Tensor g = restore_reduced_dims(grad, dims, keepdim, self.dim()) / count;
  return ember::where(not_nan, g.expand(self.sizes()), 0);
}

Tensor prod_backward(const Tensor& grad, const Tensor& self, const Tensor& result,
                     std::optional<int64_t> dim, bool keepdim) {
  if (self.numel() == 0) return ember::zeros_like(self);
  std::vector<int64_t> dv;
  if (dim) dv.push_back(*dim);
  const std::optional<IntArrayRef> dims = dim ? as_dims(dv) : std::nullopt;
  const bool keep = dim ? keepdim : false;
  const Tensor g = restore_reduced_dims(grad, dims, keep, self.dim());
  const Tensor r = restore_reduced_dims(result, dims, keep, self.dim());
  // Exact with zeros: the product of the other elements is result / x where no element of
  // the slice is zero; the product of the non-zeros at a slice's only zero; else 0.
  const Tensor is_zero = self.eq(0);
  const Tensor zeros_in_slice = dim ? is_zero.sum(dims, true) : is_zero.sum(std::nullopt, true);
  const Tensor nonzero_prod = dim ? ember::where(is_zero, 1, self).prod(*dim, true)
                                  : ember::where(is_zero, 1, self).prod().view(std::vector<int64_t>(self.dim(), 1));
  const Tensor others = ember::where(zeros_in_slice.eq(0), r / ember::where(is_zero, 1, self),
                                     ember::where(zeros_in_slice.eq(1).logical_and(is_zero),
                                                  nonzero_prod.expand(self.sizes()), 0));
  return g * conj_of(others);
}

Tensor var_backward(const Tensor& grad, const Tensor& self, std::optional<IntArrayRef> dims,
                    double correction, bool keepdim) {
  const int64_t n = reduced_numel(self.sizes(), dims);
  const double scale = 2.0 / (static_cast<double>(n) - correction);
  const Tensor g = restore_reduced_dims(grad, dims, keepdim, self.dim());
  return (scale * g) * (self - self.mean(dims, /*keepdim=*/true));
}

Tensor std_backward(const Tensor& result, const Tensor& grad, const Tensor& self,
                    std::optional<IntArrayRef> dims, double correction, bool keepdim) {
  const Tensor g = ember::where(result.eq(0), 0, grad / (result * 2));
  return var_backward(g, self, dims, correction, keepdim);
}

Tensor var_mean_backward(const Tensor& gvar, const Tensor& gmean, const Tensor& self,
                         std::optional<IntArrayRef> dims, double correction, bool keepdim) {
  Tensor out;
  if (gvar.defined()) out = var_backward(gvar, self, dims, correction, keepdim);
  if (gmean.defined()) {
    Tensor m = mean_backward(gmean, self.sizes(), dims, keepdim);
    out = out.defined() ? out + m : m;
  }
  return out;
}

Tensor std_mean_backward(const Tensor& gstd, const Tensor& gmean, const Tensor& self, const Tensor& std,
                         std::optional<IntArrayRef> dims, double correction, bool keepdim) {
  Tensor out;
  if (gstd.defined()) out = std_backward(std, gstd, self, dims, correction, keepdim);
  if (gmean.defined()) {
    Tensor m = mean_backward(gmean, self.sizes(), dims, keepdim);
    out = out.defined() ? out + m : m;
  }
  return out;
}

Tensor norm_backward(const Tensor& grad, const Tensor& self, const std::optional<Scalar>& p_,
                     const Tensor& norm, std::optional<IntArrayRef> dims, bool keepdim) {
  const double p = p_ ? p_->to_double() : 2.0;
  const Tensor g = restore_reduced_dims(grad, dims, keepdim, self.dim());
  const Tensor n = restore_reduced_dims(norm, dims, keepdim, self.dim());
  if (p == 0.0) return Tensor();  // no gradient, as PyTorch's (None from autograd.grad)
  if (p == 1.0) return self.sgn() * g;
  if (p == 2.0) return ember::where(n.eq(0), 0, self * (g / n));
  if (std::isinf(p)) {
    // The gradient goes evenly to the elements whose |x| is the norm.
    const Tensor mask = self.abs().eq(n);
    const Tensor count = mask.sum(dims, /*keepdim=*/true);
    return self.sgn() * ember::where(mask, g / count, 0);
  }
  // |x|^(p-1) sign(x) g / norm^(p-1); 0 where the norm is 0.
  const Tensor scaled = self * self.abs().pow(p - 2) * g / n.pow(p - 1);
  return ember::where(n.eq(0), 0, scaled);
}

Tensor logsumexp_backward(const Tensor& grad, const Tensor& self, const Tensor& result,
                          IntArrayRef dims, bool keepdim) {
  const Tensor g = restore_reduced_dims(grad, dims, keepdim, self.dim());
  const Tensor r = restore_reduced_dims(result, dims, keepdim, self.dim());
  return g * (self - r).exp();
}

Tensor evenly_distribute_backward(const Tensor& grad, const Tensor& self, const Tensor& value) {
  const bool nan_value = value.isnan().item().to<bool>();
  const Tensor mask = nan_value ? self.isnan() : self.eq(value);
  return ember::where(mask, grad / mask.sum(), 0);
}

Tensor amax_backward(const Tensor& grad, const Tensor& self, const Tensor& result,
                     std::optional<IntArrayRef> dims, bool keepdim) {
  // PyTorch's scale_grad_by_count: NaN where no element equals the result (a NaN slice).
  const Tensor g = restore_reduced_dims(grad, dims, keepdim, self.dim());
  const Tensor r = restore_reduced_dims(result, dims, keepdim, self.dim());
  const Tensor mask = self.eq(r);
  return (g / mask.sum(dims, /*keepdim=*/true)) * mask;
}

Tensor aminmax_backward(const Tensor& gmin, const Tensor& gmax, const Tensor& self, const Tensor& min,
                        const Tensor& max, std::optional<int64_t> dim, bool keepdim) {
  std::vector<int64_t> dv;
  if (dim) dv.push_back(*dim);
  const std::optional<IntArrayRef> dims = dim ? as_dims(dv) : std::nullopt;
  const bool keep = dim ? keepdim : false;
  Tensor out;
  if (gmin.defined()) out = amax_backward(gmin, self, min, dims, keep);
  if (gmax.defined()) {
    Tensor g = amax_backward(gmax, self, max, dims, keep);
    out = out.defined() ? out + g : g;
  }
  return out;
}

namespace {
Tensor bce_scale(Tensor g, const Tensor& self, const std::optional<Tensor>& weight,
                 int64_t reduction) {
  if (weight && weight->defined()) g = g * weight->to(self.scalar_type());
  if (reduction == Reduction::Mean && self.numel() > 0) g = g / static_cast<double>(self.numel());
  return g;
}
}  // namespace

Tensor binary_cross_entropy_backward(const Tensor& grad, const Tensor& self, const Tensor& target,
                                     const std::optional<Tensor>& weight, int64_t reduction) {
  // The floor is the float 1e-12 (9.99999996e-13), as in PyTorch's kernel, for every dtype.
  const Tensor denom = ember::clamp_min((1 - self) * self, static_cast<double>(1e-12f));
  return bce_scale(grad * (self - target) / denom, self, weight, reduction);
}

Tensor binary_cross_entropy_target_backward(const Tensor& grad, const Tensor& self,
                                            const Tensor& target,
                                            const std::optional<Tensor>& weight,
                                            int64_t reduction) {
  static_cast<void>(target);
  return bce_scale(grad * ((1 - self).log() - self.log()), self, weight, reduction);
}

Tensor value_selecting_reduction_backward(const Tensor& grad, int64_t dim, const Tensor& indices,
                                          IntArrayRef sizes, bool keepdim) {
  const int64_t ndim = static_cast<int64_t>(sizes.size());
  if (ndim == 0) return grad;
  if (dim < 0) dim += ndim;
  std::vector<int64_t> one_dim{dim};
  const Tensor g = restore_reduced_dims(grad, as_dims(one_dim), keepdim, ndim);
  const Tensor idx = restore_reduced_dims(indices, as_dims(one_dim), keepdim, ndim);
  std::vector<int64_t> shape(ndim, 1);
  shape[dim] = sizes[dim];
  const Tensor positions = ember::arange(sizes[dim], TensorOptions().dtype(ScalarType::Long)).view(shape);
  return ember::where(positions.eq(idx), g, 0).expand(sizes);
}

Tensor select_backward(const Tensor& grad, IntArrayRef sizes, int64_t dim, int64_t index) {
  Tensor out = ember::zeros(sizes, TensorOptions().dtype(grad.dtype()).device(grad.device()));
  out.select(dim, index).copy_(grad);
  return out;
}

Tensor reshape_to(const Tensor& grad, IntArrayRef sizes) { return grad.contiguous().view(sizes); }

// ---- views, shape ops and indexing ------------------------------------------------------

namespace {

TensorOptions options_of(const Tensor& t) {
  return TensorOptions().dtype(t.scalar_type()).device(t.device());
}

int64_t wrap(int64_t dim, int64_t ndim) {
  const int64_t n = std::max<int64_t>(ndim, 1);
  return dim < 0 ? dim + n : dim;
}

// Elements a geometry reaches past its offset (0 when it has none).
int64_t extent_of(IntArrayRef sizes, IntArrayRef strides) {
  int64_t extent = 1;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == 0) return 0;
    extent += (sizes[i] - 1) * strides[i];
  }
  return extent;
}

}  // namespace

// The gradient flows through the storage both geometries share: the output's gradient is
// added into a flat buffer at the positions the output reads (several times where it
// overlaps itself), then read back at the positions self reads, shared evenly where self
// overlaps itself (as PyTorch's as_strided_backward).
Tensor as_strided_backward(const Tensor& grad, const Tensor& self, IntArrayRef size,
                           IntArrayRef stride, std::optional<int64_t> storage_offset) {
  const int64_t in_off = self.storage_offset();
  const int64_t out_off = storage_offset.value_or(in_off);
  const int64_t in_ext = extent_of(self.sizes(), self.strides());
  const int64_t out_ext = extent_of(size, stride);
  if (in_ext == 0 || out_ext == 0) return ember::zeros(self.sizes(), options_of(grad));
  const int64_t base = std::min(in_off, out_off);
  const int64_t extent = std::max(in_off + in_ext, out_off + out_ext) - base;
  const TensorOptions longs = TensorOptions().dtype(ScalarType::Long);
  const Tensor positions = ember::arange(extent, longs);
  const Tensor out_pos = ember::as_strided(positions, size, stride, out_off - base).reshape({-1});
  const Tensor in_pos =
      ember::as_strided(positions, self.sizes(), self.strides(), in_off - base).reshape({-1});
  Tensor buffer = ember::zeros({extent}, options_of(grad));
  buffer = buffer.index_add(0, out_pos, grad.reshape({-1}));
  Tensor result = buffer.index_select(0, in_pos);
  const Tensor counts =
      ember::zeros({extent}, longs).index_add(0, in_pos, ember::ones({in_pos.numel()}, longs));
  if (ember::amax(counts, {}, false).item().to_long() > 1) {
    result = result / counts.index_select(0, in_pos);
  }
  return result.reshape(self.sizes());
}

Tensor permute_backward(const Tensor& grad, IntArrayRef dims) {
  std::vector<int64_t> inverse(dims.size());
  for (size_t i = 0; i < dims.size(); ++i) {
    inverse[static_cast<size_t>(wrap(dims[i], grad.dim()))] = static_cast<int64_t>(i);
  }
  return grad.permute(inverse);
}

Tensor slice_backward(const Tensor& grad, IntArrayRef sizes, int64_t dim, std::optional<int64_t> start,
                      std::optional<int64_t> end, int64_t step) {
  Tensor out = ember::zeros(sizes, options_of(grad));
  ember::slice(out, dim, start, end, step).copy_(grad);
  return out;
}

Tensor diagonal_backward(const Tensor& grad, IntArrayRef sizes, int64_t offset, int64_t dim1,
                         int64_t dim2) {
  Tensor out = ember::zeros(sizes, options_of(grad));
  ember::diagonal(out, offset, dim1, dim2).copy_(grad);
  return out;
}

// Each element of a window adds into the input position it came from: one strided slice of
// the input per position in the window.
Tensor unfold_backward(const Tensor& grad, IntArrayRef sizes, int64_t dimension, int64_t size,
                       int64_t step) {
  if (sizes.empty()) return size == 0 ? ember::zeros(sizes, options_of(grad)) : grad.reshape(sizes);
  Tensor out = ember::zeros(sizes, options_of(grad));
  const int64_t d = wrap(dimension, static_cast<int64_t>(sizes.size()));
  const int64_t windows = grad.sizes()[static_cast<size_t>(d)];
  if (windows == 0) return out;
  for (int64_t k = 0; k < size; ++k) {
    ember::slice(out, d, k, k + step * (windows - 1) + 1, step).add_(grad.select(-1, k));
  }
  return out;
}

variable_list cat_backward(const Tensor& grad, int64_t dim, const std::vector<std::vector<int64_t>>& sizes) {
  variable_list out;
  int64_t offset = 0;
  for (const std::vector<int64_t>& s : sizes) {
    if (s.size() == 1 && s[0] == 0) {  // skipped by cat
      out.push_back(ember::zeros(s, options_of(grad)));
      continue;
    }
    const int64_t d = wrap(dim, grad.dim());
    const int64_t n = s[static_cast<size_t>(d)];
    out.push_back(ember::slice(grad, d, offset, offset + n, 1));
    offset += n;
  }
  return out;
}

Tensor roll_backward(const Tensor& grad, IntArrayRef shifts, IntArrayRef dims) {
  std::vector<int64_t> negated;
  for (int64_t s : shifts) negated.push_back(-s);
  return ember::roll(grad, negated, dims);
}

Tensor repeat_backward(const Tensor& grad, IntArrayRef repeats, IntArrayRef sizes) {
  const size_t ndim = repeats.size();
  if (ndim == 0) return grad;
  if (grad.numel() == 0) return ember::zeros(sizes, options_of(grad));
  std::vector<int64_t> padded(ndim - sizes.size(), 1);
  padded.insert(padded.end(), sizes.begin(), sizes.end());
  std::vector<int64_t> pairs, summed;
  for (size_t d = 0; d < ndim; ++d) {
    pairs.push_back(repeats[d]);
    pairs.push_back(padded[d]);
    summed.push_back(static_cast<int64_t>(2 * d));
  }
  return ember::sum(grad.reshape(pairs), summed, false).reshape(sizes);
}

Tensor index_select_backward(const Tensor& grad, IntArrayRef sizes, int64_t dim, const Tensor& index) {
  return ember::zeros(sizes, options_of(grad)).index_add(dim, index, dense_grad(grad));
}

Tensor index_add_source_backward(const Tensor& grad, int64_t dim, const Tensor& index,
                                 IntArrayRef source_sizes, const Scalar& alpha) {
  return maybe_multiply(grad.index_select(dim, index), alpha).reshape(source_sizes);
}

Tensor atan2_recip(const Tensor& self, const Tensor& other) {
  const Tensor d = self * self + other * other;
  return ember::where(d.eq(0), 0, d.reciprocal());
}

// d sgn(z) = dz / (2|z|) - sgn(z)^2 conj(dz) / (2|z|) for complex z != 0; 0 for real z.
Tensor sgn_backward(const Tensor& grad, const Tensor& self, const Tensor& result) {
  if (!is_complex(self.dtype())) return zeros_of(grad);
  const Tensor abs = self.abs();
  return ember::where(abs.eq(0), 0, (grad - result * result * grad.conj_physical()) / (abs * 2));
}

Tensor pow_backward(const Tensor& grad, const Tensor& self, const Scalar& exponent) {
  if (exponent.to_double() == 0.0) return ember::zeros_like(self);
  if (exponent.is_complex() || is_complex(self.dtype())) {
    return grad * conj_of(self.pow(exponent.to_complex() - 1.0) * exponent);
  }
  return grad * (self.pow(exponent.to_double() - 1.0) * exponent);
}

Tensor pow_backward_self(const Tensor& grad, const Tensor& self, const Tensor& exponent) {
  return ember::where(exponent.eq(0), 0, grad * conj_of(exponent * self.pow(exponent - 1)));
}

Tensor pow_backward_exponent(const Tensor& grad, const Tensor& self, const Tensor& exponent,
                             const Tensor& result) {
  // PyTorch's rule: no gradient where the base is 0 and the exponent's real part is >= 0.
  const Tensor real_exponent =
      is_complex(exponent.dtype()) ? ember::view_as_real(exponent.contiguous()).select(-1, 0) : exponent;
  const Tensor cond = self.eq(0).logical_and(real_exponent.ge(0));
  return grad * conj_of(ember::where(cond, 0, result * self.log()));
}

Tensor pow_backward_exponent(const Tensor& grad, const Scalar& base, const Tensor& exponent,
                             const Tensor& result) {
  const double b = base.to_double();
  if (b == 0.0) return grad * ember::where(exponent.ge(0), 0, result * std::log(b));
  return grad * (result * std::log(b));
}

std::tuple<Tensor, Tensor, Tensor> clamp_backward_min_max(
    const Tensor& grad, const Tensor& self, const std::optional<Tensor>& min,
    const std::optional<Tensor>& max, const std::array<bool, 3>& mask) {
  Tensor gs, gmin, gmax;
  if (min && max) {
    if (mask[0]) gs = ember::where(self.ge(*min).logical_and(self.le(*max)), grad, 0);
    if (mask[1]) gmin = ember::where(self.lt(*min).logical_and(min->lt(*max)), grad, 0);
    if (mask[2]) gmax = ember::where(self.gt(*max).logical_or(max->lt(*min)), grad, 0);
  } else if (min) {
    if (mask[0]) gs = ember::where(self.ge(*min), grad, 0);
    if (mask[1]) gmin = ember::where(self.lt(*min), grad, 0);
  } else if (max) {
    if (mask[0]) gs = ember::where(self.le(*max), grad, 0);
    if (mask[2]) gmax = ember::where(self.gt(*max), grad, 0);
  } else if (mask[0]) {
    gs = grad;
  }
  return {gs, gmin, gmax};
}

Tensor clamp_backward(const Tensor& grad, const Tensor& self, const std::optional<Scalar>& min,
                      const std::optional<Scalar>& max) {
  if (min && max) return ember::where(self.ge(*min).logical_and(self.le(*max)), grad, 0);
  if (min) return ember::where(self.ge(*min), grad, 0);
  if (max) return ember::where(self.le(*max), grad, 0);
  return grad;
}

Tensor gelu_backward(const Tensor& grad, const Tensor& self, std::string_view approximate) {
  if (approximate == "tanh") {
    constexpr double kBeta = 0.7978845608028654;  // sqrt(2/pi)
    constexpr double kKappa = 0.044715;
    const Tensor x2 = self * self;
    const Tensor inner = (self + x2 * self * kKappa) * kBeta;
    const Tensor t = inner.tanh();
    const Tensor left = (t + 1) * 0.5;
    const Tensor dinner = (x2 * (3 * kKappa) + 1) * kBeta;
    const Tensor right = self * 0.5 * (1 - t * t) * dinner;
    return grad * (left + right);
  }
  constexpr double kAlpha = 0.7071067811865476;  // 1/sqrt(2)
  constexpr double kBeta = 0.3989422804014327;   // 1/sqrt(2 pi)
  const Tensor cdf = ((self * kAlpha).erf() + 1) * 0.5;
  const Tensor pdf = (self * self * -0.5).exp() * kBeta;
  return grad * (cdf + self * pdf);
}

Tensor elu_backward(const Tensor& grad, const Scalar& alpha, const Scalar& scale,
                    const Scalar& input_scale, const Tensor& self) {
  const double neg = alpha.to_double() * scale.to_double();
  const double in = input_scale.to_double();
  return ember::where(self.le(0), grad * ((self * in).exp() * (in * neg)), grad * scale);
}

Tensor logit_backward(const Tensor& grad, const Tensor& self, std::optional<double> eps) {
  // At 0 and 1 the derivative is infinite with grad's sign (PyTorch's kernel).
  const Tensor d = ember::where(self.eq(0).logical_or(self.eq(1)),
                                grad * std::numeric_limits<double>::infinity(),
                                grad / (self * (1 - self)));
  if (!eps) return ember::where(self.lt(0).logical_or(self.gt(1)), std::nan(""), d);
  return ember::where(self.lt(*eps).logical_or(self.gt(1 - *eps)), 0, d);
}

Tensor softplus_backward(const Tensor& grad, const Tensor& self, const Scalar& beta, const Scalar& threshold) {
  const Tensor z = self * beta;
  return ember::where(z.gt(threshold), grad, grad * z.sigmoid());
}

Tensor mish_backward(const Tensor& grad, const Tensor& self) {
  const Tensor sig = self.sigmoid();
  const Tensor tsp = ember::softplus(self).tanh();
  return grad * (tsp + self * sig * (1 - tsp * tsp));
}

Tensor silu_backward(const Tensor& grad, const Tensor& self) {
  const Tensor sig = self.sigmoid();
  return grad * (sig * (1 + self * (1 - sig)));
}

Tensor hardswish_backward(const Tensor& grad, const Tensor& self) {
  return ember::where(self.lt(-3), 0, ember::where(self.le(3), grad * (self / 3 + 0.5), grad));
}

}  // namespace ember::autograd

namespace ember::autograd {

Tensor values_at_indices_backward(const Tensor& grad, IntArrayRef sizes, int64_t dim, const Tensor& indices) {
  return ember::zeros(sizes, options_of(grad)).scatter(wrap(dim, static_cast<int64_t>(sizes.size())), indices, grad);
}

namespace {

// g (index-shaped) in the leading corner of zeros of src's sizes.
Tensor pad_to_sizes(const Tensor& g, IntArrayRef src_sizes) {
  if (g.sizes() == src_sizes) return g;
  Tensor out = ember::zeros(src_sizes, options_of(g));
  Tensor region = out;
  for (int64_t d = 0; d < g.dim(); ++d) region = ember::narrow(region, d, 0, g.sizes()[d]);
  region.copy_(g);
  return out;
}

}  // namespace

Tensor scatter_src_backward(const Tensor& grad, int64_t dim, const Tensor& index, IntArrayRef src_sizes) {
  return pad_to_sizes(grad.gather(dim, index), src_sizes);
}

Tensor gather_backward(const Tensor& grad, IntArrayRef sizes, int64_t dim, const Tensor& index) {
  return ember::zeros(sizes, options_of(grad)).scatter_add(dim, index, grad);
}

// Each reduction's gradient, per element reduced into a target (self's value there when
// include_self, and every src element index sends there):
// - sum: the target's gradient; mean: that over the number of elements reduced there;
// - prod: the product of the others (result / x where x != 0; with zeros, the product of the
//   non-zero others where x is the only zero, else 0);
// - amax/amin: shared evenly by the elements equal to the result.
// self's own positions that no index reaches keep their gradient.
std::tuple<Tensor, Tensor> scatter_reduce_backward(
    const Tensor& grad, const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
    std::string_view reduce, bool include_self, const Tensor& result,
    const std::array<bool, 2>& grad_input_mask) {
  Tensor grad_self, grad_src;
  const Tensor ones_src = ember::ones_like(src);
  // Where some index lands (those targets are reduced).
  const Tensor touched = ember::zeros_like(self).scatter_add(dim, index, ones_src).gt(0);
  if (reduce == "sum") {
    if (grad_input_mask[0]) grad_self = include_self ? grad : grad.masked_fill(touched, 0);
    if (grad_input_mask[1]) grad_src = grad.gather(dim, index);
  } else if (reduce == "mean") {
    Tensor n = ember::zeros_like(self).scatter_add(dim, index, ones_src);
    if (include_self) n = n + 1;
    n = n.masked_fill(n.eq(0), 1);
    const Tensor g = grad / n;
    if (grad_input_mask[0]) grad_self = include_self ? g : g.masked_fill(touched, 0);
    if (grad_input_mask[1]) grad_src = g.gather(dim, index);
  } else if (reduce == "prod") {
    // Zeros reduced into each target, and the product of its non-zero elements.
    Tensor zeros = ember::zeros_like(self).scatter_add(dim, index, src.eq(0).to(self.scalar_type()));
    const Tensor self_nz = self.masked_fill(self.eq(0), 1);
    const Tensor prod_nz = self_nz.scatter_reduce(dim, index, src.masked_fill(src.eq(0), 1), "prod",
                                                  include_self);
    if (include_self) zeros = zeros + self.eq(0).to(self.scalar_type());
    const Tensor only_zero = zeros.eq(1);
    if (grad_input_mask[0]) {
      const Tensor g = ember::where(self.eq(0), ember::where(only_zero, grad * prod_nz, 0),
                                    grad * result / self_nz);
      grad_self = include_self ? g : grad.masked_fill(touched, 0);
    }
    if (grad_input_mask[1]) {
      const Tensor src_nz = src.masked_fill(src.eq(0), 1);
      grad_src = ember::where(src.eq(0), (ember::where(only_zero, grad * prod_nz, 0)).gather(dim, index),
                              (grad * result).gather(dim, index) / src_nz);
    }
  } else {  // amax, amin
    // As PyTorch: self's value is counted among the ties even with include_self=False.
    const Tensor src_hit = src.eq(result.gather(dim, index)).to(self.scalar_type());
    const Tensor self_hit = self.eq(result).to(self.scalar_type());
    const Tensor n = self_hit.scatter_add(dim, index, src_hit);
    const Tensor g = grad / n.masked_fill(n.eq(0), 1);
    if (grad_input_mask[0]) {
      grad_self = include_self ? ember::where(touched, g * self_hit, grad) : grad.masked_fill(touched, 0);
    }
    if (grad_input_mask[1]) grad_src = g.gather(dim, index) * src_hit;
  }
  if (grad_src.defined()) grad_src = pad_to_sizes(grad_src, src.sizes());
  return {grad_self, grad_src};
}

Tensor take_backward(const Tensor& grad, IntArrayRef sizes, const Tensor& index) {
  return ember::zeros(sizes, options_of(grad)).put(index, grad, true);
}

Tensor put_self_backward(const Tensor& grad, const Tensor& index, bool accumulate) {
  if (accumulate) return grad;
  return grad.put(index, ember::zeros(index.sizes(), options_of(grad)), false);
}

Tensor masked_select_backward(const Tensor& grad, IntArrayRef sizes, const Tensor& mask) {
  DimVector shape(sizes);
  {
    const IntArrayRef m = mask.sizes();
    const size_t n = std::max(shape.size(), m.size());
    DimVector out(n, 1);
    for (size_t i = 0; i < n; ++i) {
      const int64_t x = i < n - shape.size() ? 1 : shape[i - (n - shape.size())];
      const int64_t y = i < n - m.size() ? 1 : m[i - (n - m.size())];
      out[i] = x == 1 ? y : x;
    }
    shape = out;
  }
  const Tensor full = ember::zeros(shape, options_of(grad)).masked_scatter(mask, grad);
  return sum_to(full, sizes);
}

Tensor masked_scatter_source_backward(const Tensor& grad, const Tensor& mask, IntArrayRef source_sizes) {
  int64_t numel = 1;
  for (int64_t s : source_sizes) numel *= s;
  const Tensor picked = grad.masked_select(mask);
  const int64_t pad = numel - picked.numel();
  const Tensor flat = pad > 0 ? ember::cat({picked, ember::zeros({pad}, options_of(grad))}, 0) : picked;
  return flat.reshape(source_sizes);
}

Tensor index_backward(const Tensor& grad, IntArrayRef sizes, TensorList indices) {
  return ember::zeros(sizes, options_of(grad)).index_put(indices, grad, true);
}

}  // namespace ember::autograd

// ---- sparse (Note [Sparse gradients], aten/autograd/Node.h) ----
namespace ember::autograd {

Tensor sparse_values_backward(const Tensor& grad, const Tensor& self) {
  if (self.layout() == Layout::Sparse) {
    return ember::_sparse_coo_tensor_unsafe(self._indices(), grad, self.sizes(), self.is_coalesced());
  }
  const bool csr = self.layout() == Layout::SparseCsr;
  return ember::_sparse_compressed_tensor_unsafe(csr ? self.crow_indices() : self.ccol_indices(),
                                                 csr ? self.col_indices() : self.row_indices(), grad, self.sizes(),
                                                 self.layout());
}

namespace {
// The gradient at each coordinate column of a COO indices matrix: [nnz, dense sizes...].
Tensor gather_at(const Tensor& grad, const Tensor& indices) {
  const Tensor g = grad.layout() == Layout::Strided ? grad : grad._to_dense();
  const int64_t sd = indices.sizes()[0];
  if (sd == 0) return g.unsqueeze(0).repeat_interleave(indices.sizes()[1], 0);
  std::vector<Tensor> rows;
  for (int64_t d = 0; d < sd; ++d) rows.push_back(indices.select(0, d));
  return ember::index(g, rows);
}
}  // namespace

Tensor sparse_coo_values_backward(const Tensor& grad, const Tensor& indices) { return gather_at(grad, indices); }

Tensor sparse_compressed_values_backward(const Tensor& grad, const Tensor& compressed_indices,
                                         const Tensor& plain_indices, const Tensor& values, IntArrayRef size,
                                         Layout layout) {
  const Tensor pattern = native::make_sparse_compressed(compressed_indices, plain_indices, values.detach(), size,
                                                        layout, false, "backward");
  const Tensor coo = native::compressed_to_coo(pattern);
  return gather_at(grad, coo._indices()).reshape(values.sizes());
}

}  // namespace ember::autograd

namespace ember::autograd {
Tensor sparse_softmax_grad(const Tensor& grad, const Tensor& result, int64_t dim, bool log) {
  return native::sparse_softmax_backward(grad, result, dim, log);
}
}  // namespace ember::autograd
