// Linear-algebra composites built from the LAPACK kernels (lapack.cpp) and other ops, so
// autograd differentiates through them: inv, logdet, eigvalsh, svdvals, pinv, lstsq and
// matrix_norm.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "aten/TensorOperators.h"
#include "aten/native/DimUtils.h"
#include "aten/native/linalg/LinalgChecks.h"
#include "c10/util/Exception.h"
#include "ember/generated/ops/abs.h"
#include "ember/generated/ops/amax.h"
#include "ember/generated/ops/amin.h"
#include "ember/generated/ops/cat.h"
#include "ember/generated/ops/clamp_min.h"
#include "ember/generated/ops/empty.h"
#include "ember/generated/ops/eye.h"
#include "ember/generated/ops/tril.h"
#include "ember/generated/ops/triu.h"
#include "ember/generated/ops/gt.h"
#include "ember/generated/ops/linalg_eigh.h"
#include "ember/generated/ops/linalg_pinv.h"
#include "ember/generated/ops/linalg_slogdet.h"
#include "ember/generated/ops/linalg_solve.h"
#include "ember/generated/ops/linalg_svd.h"
#include "ember/generated/ops/linalg_svdvals.h"
#include "ember/generated/ops/linalg_vector_norm.h"
#include "ember/generated/ops/lt.h"
#include "ember/generated/ops/matmul.h"
#include "ember/generated/ops/reciprocal.h"
#include "ember/generated/ops/square.h"
#include "ember/generated/ops/sum.h"
#include "ember/generated/ops/where.h"
#include "ember/generated/ops/zeros.h"

namespace ember::native {
namespace {

using namespace linalg_checks;



Tensor mT(const Tensor& t) { return t.transpose(-2, -1); }

double epsilon_of(ScalarType t) {
  return t == ScalarType::Float ? std::numeric_limits<float>::epsilon()
                                : std::numeric_limits<double>::epsilon();
}

// PyTorch's default tolerances: atol 0; rtol eps * max(m, n) unless atol > 0 is given.
double default_rtol(const Tensor& A, std::optional<double> atol, std::optional<double> rtol) {
  if (rtol) return *rtol;
  return atol.value_or(0.0) > 0 ? 0.0 : epsilon_of(A.scalar_type()) * std::max(A.size(-1), A.size(-2));
}

// 1 / s where s > tol, else 0 (the pseudo-inverse of the singular values).
Tensor pinv_values(const Tensor& s, const Tensor& s_abs, const Tensor& tol) {
  return ember::where(ember::gt(s_abs, tol), ember::reciprocal(s), 0);
}

// A permutation moving dims d0, d1 to the end (in that order).
std::vector<int64_t> dims_to_end(int64_t d0, int64_t d1, int64_t ndim) {
  std::vector<int64_t> perm;
  for (int64_t d = 0; d < ndim; ++d) {
    if (d != d0 && d != d1) perm.push_back(d);
  }
  perm.push_back(d0);
  perm.push_back(d1);
  return perm;
}

std::vector<int64_t> inverse_permutation(const std::vector<int64_t>& perm) {
  std::vector<int64_t> inv(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) inv[perm[i]] = static_cast<int64_t>(i);
  return inv;
}

// The matrix_norm checks; returns the two dims, wrapped.
std::pair<int64_t, int64_t> matrix_norm_dims(const Tensor& A, IntArrayRef dim) {
  const char* op = "linalg_matrix_norm";
  EMBER_CHECK(A.dim() >= 2, op, "(): expected 'self' to have at least 2 dimensions, but got a ", A.dim(),
              "-d tensor");
  const ScalarType dt = A.scalar_type();
  EMBER_CHECK(is_floating_point(dt) || is_complex(dt), op, "(): expected 'self' to be a floating point "
              "or complex tensor, but got ", dt);
  EMBER_CHECK(dim.size() == 2, op, "(): expected 'dim' to be a 2-tuple, but got ", dim);
  const int64_t d0 = wrap_dim(op, "dim", dim[0], A.dim()), d1 = wrap_dim(op, "dim", dim[1], A.dim());
  EMBER_CHECK(d0 != d1, op, "(): expected 'dim' to hold two different dims, but got ", dim);
  return {d0, d1};
}

// reduce(svdvals) over the matrices in dims (d0, d1), keepdim as asked.
template <class F>
Tensor singular_value_norm(const Tensor& A, int64_t d0, int64_t d1, bool keepdim, F&& reduce) {
  const std::vector<int64_t> perm = dims_to_end(d0, d1, A.dim());
  Tensor r = reduce(ember::linalg_svdvals(A.permute(perm), std::nullopt));
  if (!keepdim) return r;
  return r.unsqueeze(-1).unsqueeze(-1).permute(inverse_permutation(perm));
}

}  // namespace

Tensor linalg_inv(const Tensor& A) {
  check_square("linalg_inv", "A", A);
  return ember::linalg_solve(A, ember::eye(A.size(-1), A.options()).expand(A.sizes()));
}

Tensor logdet(const Tensor& self) {
  check_square("logdet", "self", self);
  auto [sign, logabsdet] = ember::linalg_slogdet(self);
  return ember::where(ember::lt(sign, 0), std::numeric_limits<double>::quiet_NaN(), logabsdet);
}

std::tuple<Tensor, Tensor, Tensor> lu_unpack(const Tensor& LU_data, const Tensor& LU_pivots, bool unpack_data,
                                             bool unpack_pivots) {
  const char* op = "lu_unpack";
  EMBER_CHECK(LU_data.dim() >= 2, op, "(): expected 'LU_data' to have at least 2 dimensions, but got a ",
              LU_data.dim(), "-d tensor");
  const int64_t m = LU_data.size(-2), n = LU_data.size(-1), k = std::min(m, n);
  const TensorOptions options = LU_data.options();
  Tensor P = ember::empty({0}, options), L = ember::empty({0}, options), U = ember::empty({0}, options);
  if (unpack_data) {
    L = ember::tril(LU_data, -1).narrow(-1, 0, k) + ember::eye(m, k, options);
    U = ember::triu(LU_data).narrow(-2, 0, k);
  }
  if (!unpack_pivots) return {P, L, U};
  EMBER_CHECK(LU_pivots.scalar_type() == ScalarType::Int, op, "(): expected 'LU_pivots' to be an int32 "
              "tensor, but got ", LU_pivots.scalar_type());
  std::vector<int64_t> batch(LU_data.sizes().begin(), LU_data.sizes().end() - 2);
  std::vector<int64_t> piv_sizes = batch;
  piv_sizes.push_back(k);
  EMBER_CHECK(LU_pivots.sizes() == IntArrayRef(piv_sizes), op, "(): expected 'LU_pivots' to have shape ",
              IntArrayRef(piv_sizes), " (LU_data's batch and min(m, n)), but got ", LU_pivots.sizes());
  // Row i of A was swapped with row pivots[i] - 1, in order; P^T A = A[perm], so P[perm[i], i] = 1.
  const Tensor piv = LU_pivots.contiguous();
  const auto* pp = static_cast<const int32_t*>(piv.data_ptr());
  std::vector<int64_t> p_sizes = batch;
  p_sizes.push_back(m);
  p_sizes.push_back(m);
  Tensor Pd = ember::zeros(p_sizes, options.dtype(ScalarType::Double));
  auto* pd = static_cast<double*>(Pd.data_ptr());
  int64_t count = 1;
  for (int64_t s : batch) count *= s;
  std::vector<int64_t> perm(m);
  for (int64_t b = 0; b < count; ++b) {
    for (int64_t i = 0; i < m; ++i) perm[i] = i;
    for (int64_t i = 0; i < k; ++i) {
      const int64_t j = pp[b * k + i] - 1;
      EMBER_CHECK(j >= i && j < m, op, "(): expected 'LU_pivots' to hold getrf's pivots (pivots[i] in [i + 1, ",
                  m, "]), but got ", j + 1, " at position ", i);
      std::swap(perm[i], perm[j]);
    }
    for (int64_t i = 0; i < m; ++i) pd[b * m * m + perm[i] * m + i] = 1;
  }
  return {Pd.to(LU_data.scalar_type()), L, U};
}

Tensor linalg_eigvalsh(const Tensor& self, std::string_view UPLO) {
  return std::get<0>(ember::linalg_eigh(self, UPLO));
}

Tensor linalg_svdvals(const Tensor& A, std::optional<std::string_view> driver) {
  return std::get<1>(ember::linalg_svd(A, false, driver));
}

Tensor linalg_pinv(const Tensor& self, std::optional<double> atol, std::optional<double> rtol, bool hermitian) {
  const char* op = "linalg_pinv";
  check_matrix(op, "self", self);
  if (hermitian) check_square(op, "self", self);
  if (self.numel() == 0) {
    std::vector<int64_t> sizes(self.sizes().begin(), self.sizes().end());
    std::swap(sizes[sizes.size() - 1], sizes[sizes.size() - 2]);
    return ember::empty(sizes, self.options());
  }
  const double a = atol.value_or(0.0), r = default_rtol(self, atol, rtol);
  if (hermitian) {
    // The singular values of a symmetric matrix are its eigenvalues' absolute values.
    auto [L, V] = ember::linalg_eigh(self, "L");
    Tensor L_abs = ember::abs(L);
    Tensor tol = ember::clamp_min(ember::amax(L_abs, {-1}, true) * r, a);
    return ember::matmul(V * pinv_values(L, L_abs, tol).unsqueeze(-2), mT(V));
  }
  auto [U, S, Vh] = ember::linalg_svd(self, false, std::nullopt);
  Tensor tol = ember::clamp_min(S.narrow(-1, 0, 1) * r, a);  // S is descending
  return ember::matmul(mT(Vh) * pinv_values(S, S, tol).unsqueeze(-2), mT(U));
}

Tensor linalg_pinv(const Tensor& self, double rcond, bool hermitian) {
  return ember::linalg_pinv(self, 0.0, rcond, hermitian);
}

std::tuple<Tensor, Tensor, Tensor, Tensor> linalg_lstsq(const Tensor& self, const Tensor& b,
                                                        std::optional<double> rcond,
                                                        std::optional<std::string_view> driver) {
  const char* op = "linalg_lstsq";
  const std::string_view name = driver.value_or("gelsy");
  EMBER_CHECK(name == "gels" || name == "gelsy" || name == "gelsd" || name == "gelss", op, "(): expected "
              "'driver' to be one of gels, gelsy, gelsd or gelss, but got '", name, "'");
  check_matrix(op, "self", self);
  EMBER_CHECK(b.scalar_type() == self.scalar_type(), op, "(): expected 'self' and 'b' to have the same "
              "dtype, but got ", self.scalar_type(), " and ", b.scalar_type());
  EMBER_CHECK(b.dim() >= 1, op, "(): expected 'b' to have at least 1 dimension, but got a 0-d tensor");
  const bool vector = b.dim() == self.dim() - 1;
  const Tensor B = vector ? b.unsqueeze(-1) : b;
  const int64_t m = self.size(-2), n = self.size(-1);
  EMBER_CHECK(B.size(-2) == m, op, "(): expected 'b' to have ", m, " rows (self.size(-2)), but got shape ",
              b.sizes());
  const TensorOptions options = self.options();
  Tensor X, S, rank;
  if (self.numel() == 0) {
    // The least-squares solution of an empty system: zeros.
    X = ember::matmul(ember::zeros({n, m}, options), B);
    S = ember::zeros({0}, options);
    std::vector<int64_t> batch(self.sizes().begin(), self.sizes().end() - 2);
    rank = ember::zeros(batch, options.dtype(ScalarType::Long));
  } else {
    // The solution through the pseudo-inverse; gelsy's rcond picks the rank, as here.
    auto [U, S_, Vh] = ember::linalg_svd(self, false, std::nullopt);
    S = S_;
    const double r = rcond ? *rcond : epsilon_of(self.scalar_type()) * std::max(m, n);
    Tensor keep = ember::gt(S, S.narrow(-1, 0, 1) * r);
    X = ember::matmul(mT(Vh) * ember::where(keep, ember::reciprocal(S), 0).unsqueeze(-2), ember::matmul(mT(U), B));
    rank = ember::sum(keep, IntArrayRef{-1}, false, ScalarType::Long);
  }
  // The extras each LAPACK driver returns in PyTorch: rank (all but gels), singular values
  // (gelsd, gelss), and residuals for m > n except with gelsy (gelsd/gelss: full rank only).
  const bool has_rank = name != "gels", has_sv = name == "gelsd" || name == "gelss";
  bool has_residuals = m > n && name != "gelsy";
  if (has_residuals && has_sv && rank.numel() > 0) {
    has_residuals = ember::amin(rank).item().to<int64_t>() == n;
  }
  Tensor residuals = has_residuals ? ember::sum(ember::square(ember::matmul(self, X) - B), IntArrayRef{-2})
                                   : ember::empty({0}, options);
  // PyTorch returns X as the top rows of a column-major max(m, n) x k buffer (LAPACK's b).
  if (m > n) {
    std::vector<int64_t> pad(X.sizes().begin(), X.sizes().end());
    std::swap(pad[pad.size() - 1], pad[pad.size() - 2]);
    pad.back() = m - n;
    X = mT(ember::cat({mT(X), ember::zeros(pad, options)}, -1)).narrow(-2, 0, n);
  } else {
    X = mT(mT(X).contiguous());
  }
  if (vector) X = X.squeeze(-1);
  return {X, residuals, has_rank ? rank : ember::empty({0}, options.dtype(ScalarType::Long)),
          has_sv ? S : ember::empty({0}, options)};
}

Tensor linalg_matrix_norm(const Tensor& self, const Scalar& ord, IntArrayRef dim, bool keepdim,
                          std::optional<ScalarType> dtype) {
  const char* op = "linalg_matrix_norm";
  auto [d0, d1] = matrix_norm_dims(self, dim);
  const double p = ord.to_double(), abs_p = std::abs(p);
  EMBER_CHECK(abs_p == 1 || abs_p == 2 || std::isinf(p), op, "(): expected 'ord' to be one of 1, -1, 2, "
              "-2, inf, -inf, 'fro' or 'nuc', but got ", p);
  const Tensor A = dtype ? self.to(*dtype) : self;
  const bool largest = p > 0;
  if (abs_p == 2) {
    return singular_value_norm(A, d0, d1, keepdim, [&](const Tensor& s) {
      return largest ? ember::amax(s, {-1}) : ember::amin(s, {-1});
    });
  }
  // 1: the largest column sum (sum over rows, then max over columns); inf: the transpose.
  if (std::isinf(p)) std::swap(d0, d1);
  Tensor sums = ember::sum(ember::abs(A), IntArrayRef{d0}, keepdim);
  if (!keepdim && d0 < d1) --d1;
  return largest ? ember::amax(sums, {d1}, keepdim) : ember::amin(sums, {d1}, keepdim);
}

Tensor linalg_matrix_norm(const Tensor& self, std::string_view ord, IntArrayRef dim, bool keepdim,
                          std::optional<ScalarType> dtype) {
  const char* op = "linalg_matrix_norm";
  EMBER_CHECK(ord == "fro" || ord == "nuc", op, "(): expected 'ord' to be one of 1, -1, 2, -2, inf, -inf, "
              "'fro' or 'nuc', but got '", ord, "'");
  auto [d0, d1] = matrix_norm_dims(self, dim);
  if (ord == "fro") {
    const int64_t dims[] = {d0, d1};
    return ember::linalg_vector_norm(self, 2, IntArrayRef(dims), keepdim, dtype);
  }
  const Tensor A = dtype ? self.to(*dtype) : self;
  return singular_value_norm(A, d0, d1, keepdim, [](const Tensor& s) { return ember::sum(s, IntArrayRef{-1}); });
}

}  // namespace ember::native
