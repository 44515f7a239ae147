#pragma once
/// Helpers the generated backward formulas call (native_functions.yaml `autograd:`); all
/// written in ember ops, so they are differentiable themselves (higher order).

#include <array>
#include <optional>
#include <string_view>
#include <tuple>

#include "aten/TensorOperators.h"
#include "aten/autograd/Node.h"

namespace ember::autograd {

inline const Tensor* optional_ptr(const std::optional<Tensor>& t) { return t ? &*t : nullptr; }
inline std::optional<Tensor> optional_of(Tensor t) {
  return t.defined() ? std::optional<Tensor>(std::move(t)) : std::nullopt;
}
inline bool any_defined(const variable_list& v) {
  for (const Tensor& t : v) {
    if (t.defined()) return true;
  }
  return false;
}

/// The conjugate of t for complex dtypes, else t itself: the factors of the backward formulas
/// of holomorphic ops (PyTorch's convention: the gradient is grad * conj(f'(z))).
inline Tensor conj_of(const Tensor& t) {
  return is_complex(t.dtype()) ? t.conj_physical() : t;
}

inline Scalar conj_of(const Scalar& s) {
  return s.is_complex() ? Scalar(std::conj(s.to_complex())) : s;
}

/// A gradient of zeros shaped like t.
EMBER_API Tensor zeros_of(const Tensor& t);
/// The formula of an input PyTorch has no derivative for: raises NotImplementedError ("the
/// derivative for '<what>' is not implemented.") when that input's gradient is needed.
EMBER_API Tensor not_implemented_grad(const char* what);
/// Where mask holds, the gradient; elsewhere 0 (never 0 * inf).
EMBER_API Tensor masked_grad(const Tensor& mask, const Tensor& grad);
/// grad * alpha, skipping the multiplication for alpha 1.
EMBER_API Tensor maybe_multiply(const Tensor& grad, const Scalar& alpha);
/// The correction of var/std: `unbiased` or the Scalar? correction (default 1).
EMBER_API double correction_of(const std::optional<Scalar>& correction);

/// grad of a reduction over dims (None or empty: all) given back its reduced dims (size 1).
EMBER_API Tensor restore_reduced_dims(const Tensor& grad, std::optional<IntArrayRef> dims,
                                      bool keepdim, int64_t ndim);
EMBER_API Tensor sum_backward(const Tensor& grad, IntArrayRef sizes, std::optional<IntArrayRef> dims,
                              bool keepdim);
EMBER_API Tensor mean_backward(const Tensor& grad, IntArrayRef sizes, std::optional<IntArrayRef> dims,
                               bool keepdim);
EMBER_API Tensor nansum_backward(const Tensor& grad, const Tensor& self,
                                 std::optional<IntArrayRef> dims, bool keepdim);
EMBER_API Tensor nanmean_backward(const Tensor& grad, const Tensor& self,
                                  std::optional<IntArrayRef> dims, bool keepdim);
EMBER_API Tensor prod_backward(const Tensor& grad, const Tensor& self, const Tensor& result,
                               std::optional<int64_t> dim, bool keepdim);
EMBER_API Tensor var_backward(const Tensor& grad, const Tensor& self, std::optional<IntArrayRef> dims,
                              double correction, bool keepdim);
EMBER_API Tensor std_backward(const Tensor& result, const Tensor& grad, const Tensor& self,
                              std::optional<IntArrayRef> dims, double correction, bool keepdim);
EMBER_API Tensor var_mean_backward(const Tensor& gvar, const Tensor& gmean, const Tensor& self,
                                   std::optional<IntArrayRef> dims, double correction, bool keepdim);
EMBER_API Tensor std_mean_backward(const Tensor& gstd, const Tensor& gmean, const Tensor& self,
                                   const Tensor& std, std::optional<IntArrayRef> dims,
                                   double correction, bool keepdim);
EMBER_API Tensor norm_backward(const Tensor& grad, const Tensor& self, const std::optional<Scalar>& p,
                               const Tensor& norm, std::optional<IntArrayRef> dims, bool keepdim);
EMBER_API Tensor logsumexp_backward(const Tensor& grad, const Tensor& self, const Tensor& result,
                                    IntArrayRef dims, bool keepdim);
/// max()/min() of all elements: the gradient shared evenly by the elements equal to it.
EMBER_API Tensor evenly_distribute_backward(const Tensor& grad, const Tensor& self, const Tensor& value);
/// amax/amin/aminmax: the same over the reduced dims.
EMBER_API Tensor amax_backward(const Tensor& grad, const Tensor& self, const Tensor& result,
                               std::optional<IntArrayRef> dims, bool keepdim);
EMBER_API Tensor aminmax_backward(const Tensor& gmin, const Tensor& gmax, const Tensor& self,
                                  const Tensor& min, const Tensor& max, std::optional<int64_t> dim,
                                  bool keepdim);
/// max.dim/min.dim: the gradient to the element each index picked.
/// binary_cross_entropy's gradients, as PyTorch's: for self, grad (p - y) / max(p (1 - p),
/// 1e-12), finite where p is 0 or 1 (the composite's clamped logs would give 0/0 there);
/// for target, grad (log(1 - p) - log p); both times weight, and over numel for Mean.
EMBER_API Tensor binary_cross_entropy_backward(const Tensor& grad, const Tensor& self,
                                               const Tensor& target,
                                               const std::optional<Tensor>& weight,
                                               int64_t reduction);
EMBER_API Tensor binary_cross_entropy_target_backward(const Tensor& grad, const Tensor& self,
                                                      const Tensor& target,
                                                      const std::optional<Tensor>& weight,
                                                      int64_t reduction);
EMBER_API Tensor value_selecting_reduction_backward(const Tensor& grad, int64_t dim,
                                                    const Tensor& indices, IntArrayRef sizes,
                                                    bool keepdim);

EMBER_API Tensor select_backward(const Tensor& grad, IntArrayRef sizes, int64_t dim, int64_t index);
/// grad with sizes (a copy when its strides do not allow a view).
EMBER_API Tensor reshape_to(const Tensor& grad, IntArrayRef sizes);

// ---- views, shape ops and indexing ----
EMBER_API Tensor as_strided_backward(const Tensor& grad, const Tensor& self, IntArrayRef size,
                                     IntArrayRef stride, std::optional<int64_t> storage_offset);
EMBER_API Tensor permute_backward(const Tensor& grad, IntArrayRef dims);
EMBER_API Tensor slice_backward(const Tensor& grad, IntArrayRef sizes, int64_t dim,
                                std::optional<int64_t> start, std::optional<int64_t> end, int64_t step);
EMBER_API Tensor diagonal_backward(const Tensor& grad, IntArrayRef sizes, int64_t offset, int64_t dim1,
                                   int64_t dim2);
EMBER_API Tensor unfold_backward(const Tensor& grad, IntArrayRef sizes, int64_t dimension, int64_t size,
                                 int64_t step);
EMBER_API variable_list cat_backward(const Tensor& grad, int64_t dim,
                                     const std::vector<std::vector<int64_t>>& sizes);
EMBER_API Tensor roll_backward(const Tensor& grad, IntArrayRef shifts, IntArrayRef dims);
EMBER_API Tensor repeat_backward(const Tensor& grad, IntArrayRef repeats, IntArrayRef sizes);
EMBER_API Tensor index_select_backward(const Tensor& grad, IntArrayRef sizes, int64_t dim,
                                       const Tensor& index);
/// sort/topk: each gradient back to the position its value came from (others 0).
EMBER_API Tensor values_at_indices_backward(const Tensor& grad, IntArrayRef sizes, int64_t dim,
                                           const Tensor& indices);
/// scatter's src: the gradient at the positions index sends src's elements to (src may be
/// larger than index: its other elements get 0).
EMBER_API Tensor scatter_src_backward(const Tensor& grad, int64_t dim, const Tensor& index,
                                      IntArrayRef src_sizes);
EMBER_API Tensor gather_backward(const Tensor& grad, IntArrayRef sizes, int64_t dim, const Tensor& index);
EMBER_API std::tuple<Tensor, Tensor> scatter_reduce_backward(
    const Tensor& grad, const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
    std::string_view reduce, bool include_self, const Tensor& result,
    const std::array<bool, 2>& grad_input_mask);
EMBER_API Tensor take_backward(const Tensor& grad, IntArrayRef sizes, const Tensor& index);
EMBER_API Tensor put_self_backward(const Tensor& grad, const Tensor& index, bool accumulate);
EMBER_API Tensor masked_select_backward(const Tensor& grad, IntArrayRef sizes, const Tensor& mask);
EMBER_API Tensor masked_scatter_source_backward(const Tensor& grad, const Tensor& mask,
                                                IntArrayRef source_sizes);
EMBER_API Tensor index_backward(const Tensor& grad, IntArrayRef sizes, TensorList indices);
EMBER_API Tensor index_add_source_backward(const Tensor& grad, int64_t dim, const Tensor& index,
                                           IntArrayRef source_sizes, const Scalar& alpha);

/// 1 / (self^2 + other^2), 0 where both are 0 (PyTorch's gradient of atan2 at the origin).
EMBER_API Tensor atan2_recip(const Tensor& self, const Tensor& other);
EMBER_API Tensor sgn_backward(const Tensor& grad, const Tensor& self, const Tensor& result);
EMBER_API Tensor pow_backward(const Tensor& grad, const Tensor& self, const Scalar& exponent);
EMBER_API Tensor pow_backward_self(const Tensor& grad, const Tensor& self, const Tensor& exponent);
EMBER_API Tensor pow_backward_exponent(const Tensor& grad, const Tensor& self, const Tensor& exponent,
                                       const Tensor& result);
EMBER_API Tensor pow_backward_exponent(const Tensor& grad, const Scalar& base, const Tensor& exponent,
                                       const Tensor& result);

EMBER_API std::tuple<Tensor, Tensor, Tensor> clamp_backward_min_max(
    const Tensor& grad, const Tensor& self, const std::optional<Tensor>& min,
    const std::optional<Tensor>& max, const std::array<bool, 3>& grad_input_mask);
EMBER_API Tensor clamp_backward(const Tensor& grad, const Tensor& self, const std::optional<Scalar>& min,
                                const std::optional<Scalar>& max);

EMBER_API Tensor gelu_backward(const Tensor& grad, const Tensor& self, std::string_view approximate);
EMBER_API Tensor elu_backward(const Tensor& grad, const Scalar& alpha, const Scalar& scale,
                              const Scalar& input_scale, const Tensor& self);
EMBER_API Tensor logit_backward(const Tensor& grad, const Tensor& self, std::optional<double> eps);
EMBER_API Tensor softplus_backward(const Tensor& grad, const Tensor& self, const Scalar& beta,
                                   const Scalar& threshold);
EMBER_API Tensor mish_backward(const Tensor& grad, const Tensor& self);
EMBER_API Tensor silu_backward(const Tensor& grad, const Tensor& self);
EMBER_API Tensor hardswish_backward(const Tensor& grad, const Tensor& self);

// Linear algebra (aten/autograd/LinalgBackward.cpp). Multi-output factorizations take one
// gradient per output, any of which may be undefined.
EMBER_API std::tuple<Tensor, Tensor> linalg_solve_backward(const Tensor& grad, const Tensor& A,
                                                           const Tensor& B, const Tensor& X, bool left,
                                                           const std::array<bool, 2>& grad_input_mask);
EMBER_API std::tuple<Tensor, Tensor> linalg_solve_triangular_backward(
    const Tensor& grad, const Tensor& A, const Tensor& X, bool upper, bool left, bool unitriangular,
    const std::array<bool, 2>& grad_input_mask);
EMBER_API Tensor slogdet_backward(const Tensor& grad_logabsdet, const Tensor& A, const Tensor& sign,
                                  const Tensor& logabsdet);
EMBER_API Tensor det_backward(const Tensor& grad, const Tensor& A, const Tensor& det);
EMBER_API Tensor cholesky_backward(const Tensor& grad, bool upper, const Tensor& L);
EMBER_API Tensor linalg_qr_backward(const Tensor& gQ, const Tensor& gR, const Tensor& Q, const Tensor& R,
                                    std::string_view mode);
/// The gradient of A from that of linalg_lu_factor_ex's packed LU (A = P L U, any m x n).
EMBER_API Tensor linalg_lu_factor_ex_backward(const Tensor& grad, const Tensor& LU, const Tensor& pivots);
/// The gradient of a real A from those of linalg_eig's complex eigenvalues L and eigenvectors V.
EMBER_API Tensor linalg_eig_backward(const Tensor& gL, const Tensor& gV, const Tensor& L, const Tensor& V);
EMBER_API Tensor linalg_eigh_backward(const Tensor& gL, const Tensor& gV, const Tensor& L, const Tensor& V);
EMBER_API Tensor linalg_svd_backward(const Tensor& gU, const Tensor& gS, const Tensor& gVh, const Tensor& U,
                                     const Tensor& S, const Tensor& Vh, bool full_matrices);

// The scan family (aten/autograd/ScanBackward.cpp).
/// cumsum: the gradient summed from each position to the end of dim.
EMBER_API Tensor cumsum_backward(const Tensor& grad, int64_t dim);
/// cumprod, exact where self holds zeros (one or several per slice).
EMBER_API Tensor cumprod_backward(const Tensor& grad, const Tensor& self, int64_t dim, const Tensor& result);
/// cummax/cummin: each gradient added at the position its value came from.
EMBER_API Tensor cummaxmin_backward(const Tensor& grad, const Tensor& self, const Tensor& indices, int64_t dim);
/// logcumsumexp, summed in log space (no overflow for large magnitudes).
EMBER_API Tensor logcumsumexp_backward(const Tensor& grad, const Tensor& self, const Tensor& result, int64_t dim);

// The DFT primitives (aten/autograd/FftBackward.cpp).
/// _fft_r2c: the inverse transform of grad (zero-padded to the full length when onesided),
/// its real part.
EMBER_API Tensor fft_r2c_backward(const Tensor& grad, const Tensor& self, IntArrayRef dim,
                                  int64_t normalization, bool onesided);
/// _fft_c2r: the one-sided forward transform of grad, the mirrored bins counted twice.
EMBER_API Tensor fft_c2r_backward(const Tensor& grad, IntArrayRef dim, int64_t normalization);

/// Note [Sparse gradients]: the gradient of a sparse tensor's values() (grad [nnz, dense...])
/// as a sparse tensor of self's pattern and layout.
Tensor sparse_values_backward(const Tensor& grad, const Tensor& self);
/// The values' gradient of a COO constructor: grad at each coordinate of indices.
Tensor sparse_coo_values_backward(const Tensor& grad, const Tensor& indices);
/// The values' gradient of a compressed constructor: grad at each entry, in values' shape.
Tensor sparse_compressed_values_backward(const Tensor& grad, const Tensor& compressed_indices,
                                         const Tensor& plain_indices, const Tensor& values, IntArrayRef size,
                                         Layout layout);

/// The gradient of ember.sparse.softmax (log: log_softmax) given its sparse result.
Tensor sparse_softmax_grad(const Tensor& grad, const Tensor& result, int64_t dim, bool log);

}  // namespace ember::autograd
