// LAPACK on CPU through LAPACKE (Debian's, over OpenBLAS), float32 and float64: solve (gesv), triangular
// solve (trsm), determinants (getrf), Cholesky (potrf), QR (geqrf + orgqr), symmetric
// eigendecomposition (syevd) and SVD (gesdd). The composites built on them are in
// linalg_composites.cpp, their derivatives in aten/autograd/LinalgBackward.cpp.
#include <cblas.h>
#include <lapacke.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "aten/native/Dispatch.h"
#include "aten/native/Parallel.h"
#include "aten/native/linalg/Blas.h"
#include "aten/native/linalg/LapackBuffers.h"
#include "aten/native/linalg/LinalgChecks.h"
#include "c10/core/Threads.h"
#include "c10/util/Exception.h"
#include "c10/util/LinAlgError.h"
#include "ember/generated/ops/empty.h"
#include "ember/generated/ops/tril.h"
#include "ember/generated/ops/zeros.h"

namespace ember::native {
namespace {

using namespace linalg_checks;
using namespace lapack;

// The broadcast of two batch shapes (PyTorch raises RuntimeError here, as this does).
std::vector<int64_t> broadcast_batch(const char* op, const Tensor& a, const char* an, const Tensor& b,
                                     const char* bn) {
  std::vector<int64_t> x = batch_of(a), y = batch_of(b);
  if (x.size() < y.size()) x.insert(x.begin(), y.size() - x.size(), 1);
  if (y.size() < x.size()) y.insert(y.begin(), x.size() - y.size(), 1);
  for (size_t i = 0; i < x.size(); ++i) {
    EMBER_CHECK(x[i] == y[i] || x[i] == 1 || y[i] == 1, op, "(): the batch dimensions of '", an,
                "' ", a.sizes(), " and '", bn, "' ", b.sizes(),
                " do not broadcast");
    x[i] = x[i] == 1 ? y[i] : x[i];
  }
  return x;
}

// OpenBLAS's threads for one call: Ember's count, one inside a parallel region (Blas.h).
void set_lapack_threads() { set_blas_threads(); }

// ---- typed LAPACKE entry points --------------------------------------------------------------

lapack_int gesv(lapack_int n, lapack_int k, float* a, lapack_int* piv, float* b) {
  return LAPACKE_sgesv(LAPACK_COL_MAJOR, n, k, a, ld(n), piv, b, ld(n));
}
lapack_int gesv(lapack_int n, lapack_int k, double* a, lapack_int* piv, double* b) {
  return LAPACKE_dgesv(LAPACK_COL_MAJOR, n, k, a, ld(n), piv, b, ld(n));
}
void trsm(CBLAS_SIDE side, CBLAS_UPLO uplo, CBLAS_DIAG diag, lapack_int m, lapack_int n,
          const float* a, lapack_int lda, float* b) {
  cblas_strsm(CblasColMajor, side, uplo, CblasNoTrans, diag, m, n, 1.0f, a, lda, b, ld(m));
}
void trsm(CBLAS_SIDE side, CBLAS_UPLO uplo, CBLAS_DIAG diag, lapack_int m, lapack_int n,
          const double* a, lapack_int lda, double* b) {
  cblas_dtrsm(CblasColMajor, side, uplo, CblasNoTrans, diag, m, n, 1.0, a, lda, b, ld(m));
}
lapack_int getrf(lapack_int n, float* a, lapack_int* piv) {
  return LAPACKE_sgetrf(LAPACK_COL_MAJOR, n, n, a, ld(n), piv);
}
lapack_int getrf(lapack_int n, double* a, lapack_int* piv) {
  return LAPACKE_dgetrf(LAPACK_COL_MAJOR, n, n, a, ld(n), piv);
}
lapack_int potrf(char uplo, lapack_int n, float* a) { return LAPACKE_spotrf(LAPACK_COL_MAJOR, uplo, n, a, ld(n)); }
lapack_int potrf(char uplo, lapack_int n, double* a) { return LAPACKE_dpotrf(LAPACK_COL_MAJOR, uplo, n, a, ld(n)); }
lapack_int orgqr(lapack_int m, lapack_int n, lapack_int k, float* a, const float* tau) {
  return LAPACKE_sorgqr(LAPACK_COL_MAJOR, m, n, k, a, ld(m), tau);
}
lapack_int orgqr(lapack_int m, lapack_int n, lapack_int k, double* a, const double* tau) {
  return LAPACKE_dorgqr(LAPACK_COL_MAJOR, m, n, k, a, ld(m), tau);
}
lapack_int syevd(char uplo, lapack_int n, float* a, float* w) {
  return LAPACKE_ssyevd(LAPACK_COL_MAJOR, 'V', uplo, n, a, ld(n), w);
}
lapack_int syevd(char uplo, lapack_int n, double* a, double* w) {
  return LAPACKE_dsyevd(LAPACK_COL_MAJOR, 'V', uplo, n, a, ld(n), w);
}
lapack_int gesdd(char jobz, lapack_int m, lapack_int n, float* a, float* s, float* u, lapack_int ldu,
                 float* vt, lapack_int ldvt) {
  return LAPACKE_sgesdd(LAPACK_COL_MAJOR, jobz, m, n, a, ld(m), s, u, ldu, vt, ldvt);
}
lapack_int gesdd(char jobz, lapack_int m, lapack_int n, double* a, double* s, double* u, lapack_int ldu,
                 double* vt, lapack_int ldvt) {
  return LAPACKE_dgesdd(LAPACK_COL_MAJOR, jobz, m, n, a, ld(m), s, u, ldu, vt, ldvt);
}

// B is a batch of vectors: 1-d, or A's shape without its last dim (PyTorch's rule).
bool is_vector_rhs(const Tensor& A, const Tensor& B) {
  if (B.dim() == 1) return true;
  return B.dim() == A.dim() - 1 && std::equal(B.sizes().begin(), B.sizes().end(), A.sizes().begin());
}

// The batch count of (..., r, c) sizes, whatever r and c are.
int64_t batch_numel(IntArrayRef sizes) {
  int64_t n = 1;
  for (size_t i = 0; i + 2 < sizes.size(); ++i) n *= sizes[i];
  return n;
}

// LU factors of each matrix of A (getrf); f(b, lu, pivots, n) reads them.
template <class T, class F>
void lu_each(const Tensor& A, F&& f) {
  const int64_t n = A.size(-1);
  Tensor a = column_major(A);
  const int64_t batch = batch_numel(A.sizes());
  T* pa = static_cast<T*>(a.data_ptr());
  std::vector<lapack_int> piv(std::max<int64_t>(n, 1));
  set_lapack_threads();
  for (int64_t b = 0; b < batch; ++b) {
    T* lu = pa + b * n * n;
    if (n > 0) getrf(li(n), lu, piv.data());  // info > 0: an exact zero on U's diagonal
    f(b, lu, piv.data(), n);
  }
}

}  // namespace

Tensor linalg_solve_cpu(const Tensor& A, const Tensor& B, bool left) {
  const char* op = "linalg_solve";
  check_square(op, "A", A);
  check_same_dtype(op, A, "A", B, "B");
  EMBER_CHECK(B.dim() >= 1, op, "(): expected 'B' to have at least 1 dimension, but got a 0-d tensor");
  const bool vector = is_vector_rhs(A, B);
  const Tensor B_ = vector ? B.unsqueeze(-1) : B;
  const int64_t n = A.size(-1);
  EMBER_CHECK(B_.size(left ? -2 : -1) == n, op, "(): incompatible shapes of A and B for the equation ",
              left ? "AX = B" : "XA = B", " (", n, "x", n, " and ", B_.size(-2), "x", B_.size(-1), ")");
  // X A = B is A^T X^T = B^T.
  const Tensor At = left ? A : A.transpose(-2, -1);
  const Tensor Bt = left ? B_ : B_.transpose(-2, -1);
  const int64_t k = Bt.size(-1);
  const std::vector<int64_t> batch = broadcast_batch(op, A, "A", B_, "B");
  Tensor a = column_major(At.expand(with_matrix(batch, n, n)));
  Tensor x = column_major(Bt.expand(with_matrix(batch, n, k)));
  const int64_t count = numel_of(batch);
  dispatch_lapack(A.scalar_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* pa = static_cast<T*>(a.data_ptr());
    T* px = static_cast<T*>(x.data_ptr());
    std::vector<lapack_int> piv(std::max<int64_t>(n, 1));
    set_lapack_threads();
    for (int64_t b = 0; b < count && n > 0; ++b) {
      const lapack_int info = gesv(li(n), li(k), pa + b * n * n, piv.data(), px + b * n * k);
      EMBER_CHECK_LINALG(info == 0, op, "(): ", batch_element(count, b), "the solver failed because the input "
                  "matrix is singular");
    }
  });
  Tensor X = from_column_major(x);
  if (!left) X = X.transpose(-2, -1);
  if (!vector) return X;
  // PyTorch allocates a vector result column-major too, as if it were a matrix.
  X = X.squeeze(-1);
  return X.dim() >= 2 ? X.transpose(-2, -1).contiguous().transpose(-2, -1) : X;
}

Tensor linalg_solve_triangular_cpu(const Tensor& self, const Tensor& B, bool upper, bool left,
                                   bool unitriangular) {
  const char* op = "linalg_solve_triangular";
  // PyTorch's trsm kernel: NotImplementedError for other dtypes; B is read in self's dtype.
  const ScalarType dt = self.scalar_type();
  EMBER_CHECK_NOT_IMPLEMENTED(dt == ScalarType::Float || dt == ScalarType::Double, op, "(): not "
                              "implemented for 'self' of dtype ", dt, " (float32 and float64 are)");
  check_square(op, "self", self);
  EMBER_CHECK(B.dim() >= 2, op, "(): expected 'B' to have at least 2 dimensions, but got a ", B.dim(),
              "-d tensor");
  const int64_t n = self.size(-1);
  EMBER_CHECK(B.size(left ? -2 : -1) == n, op, "(): incompatible shapes of A and B for the equation ",
              left ? "AX = B" : "XA = B", " (", n, "x", n, " and ", B.size(-2), "x", B.size(-1), ")");
  const int64_t r = B.size(-2), c = B.size(-1);
  const std::vector<int64_t> batch = broadcast_batch(op, self, "self", B, "B");
  Tensor a = column_major(self.expand(with_matrix(batch, n, n)));
  Tensor x = column_major(B.to(dt).expand(with_matrix(batch, r, c)));
  const int64_t count = numel_of(batch);
  dispatch_lapack(dt, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* pa = static_cast<const T*>(a.data_ptr());
    T* px = static_cast<T*>(x.data_ptr());
    set_lapack_threads();
    for (int64_t b = 0; b < count && r > 0 && c > 0; ++b) {
      trsm(left ? CblasLeft : CblasRight, upper ? CblasUpper : CblasLower,
           unitriangular ? CblasUnit : CblasNonUnit, li(r), li(c), pa + b * n * n, ld(n), px + b * r * c);
    }
  });
  return from_column_major(x);
}

std::tuple<Tensor, Tensor> linalg_slogdet_cpu(const Tensor& A) {
  check_square("linalg_slogdet", "A", A);
  const std::vector<int64_t> batch = batch_of(A);
  Tensor sign = ember::empty(batch, A.options());
  Tensor logabsdet = ember::empty(batch, A.options());
  dispatch_lapack(A.scalar_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* ps = static_cast<T*>(sign.data_ptr());
    T* pl = static_cast<T*>(logabsdet.data_ptr());
    lu_each<T>(A, [&](int64_t b, const T* lu, const lapack_int* piv, int64_t n) {
      T s = 1, l = 0;
      for (int64_t i = 0; i < n; ++i) {
        const T d = lu[i * n + i];
        if (piv[i] != i + 1) s = -s;
        if (d < 0) s = -s;
        if (d == 0) s = 0;
        l += std::log(std::abs(d));
      }
      ps[b] = s;
      pl[b] = l;
    });
  });
  return {sign, logabsdet};
}

Tensor linalg_det_cpu(const Tensor& A) {
  check_square("linalg_det", "A", A);
  Tensor det = ember::empty(batch_of(A), A.options());
  dispatch_lapack(A.scalar_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* pd = static_cast<T*>(det.data_ptr());
    lu_each<T>(A, [&](int64_t b, const T* lu, const lapack_int* piv, int64_t n) {
      T d = 1;
      for (int64_t i = 0; i < n; ++i) d *= piv[i] != i + 1 ? -lu[i * n + i] : lu[i * n + i];
      pd[b] = d;
    });
  });
  return det;
}

namespace {

// The Cholesky factors of self's matrices; each potrf info goes to info (int32, batch shape)
// when it is defined, and raises LinAlgError when check_errors.
Tensor cholesky_factor(const char* op, const Tensor& self, bool upper, const Tensor& info, bool check_errors) {
  check_square(op, "self", self);
  const int64_t n = self.size(-1);
  Tensor a = column_major(self);
  const int64_t count = batch_numel(self.sizes());
  int32_t* pi = info.defined() ? static_cast<int32_t*>(info.data_ptr()) : nullptr;
  dispatch_lapack(self.scalar_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* pa = static_cast<T*>(a.data_ptr());
    set_lapack_threads();
    for (int64_t b = 0; b < count && n > 0; ++b) {
      T* m = pa + b * n * n;
      const lapack_int status = potrf(upper ? 'U' : 'L', li(n), m);
      if (pi) pi[b] = status;
      EMBER_CHECK_LINALG(!check_errors || status == 0, op, "(): ", batch_element(count, b), "the "
                         "factorization could not be completed because the input is not positive-definite "
                         "(the leading minor of order ", status, " is not positive-definite)");
      // Zero the triangle LAPACK left untouched (column j holds rows 0..n-1).
      for (int64_t j = 0; j < n; ++j) {
        for (int64_t i = 0; i < n; ++i) {
          if (upper ? i > j : i < j) m[j * n + i] = 0;
        }
      }
    }
  });
  return from_column_major(a);
}

}  // namespace

Tensor linalg_cholesky_cpu(const Tensor& self, bool upper) {
  return cholesky_factor("linalg_cholesky", self, upper, Tensor(), true);
}

std::tuple<Tensor, Tensor> linalg_cholesky_ex_cpu(const Tensor& self, bool upper, bool check_errors) {
  const char* op = "linalg_cholesky_ex";
  check_square(op, "self", self);
  Tensor info = ember::zeros(batch_of(self), self.options().dtype(ScalarType::Int));
  Tensor L = cholesky_factor(op, self, upper, info, check_errors);
  return {L, info};
}

std::tuple<Tensor, Tensor> linalg_qr_cpu(const Tensor& A, std::string_view mode) {
  const char* op = "linalg_qr";
  EMBER_CHECK(mode == "reduced" || mode == "complete" || mode == "r", op, "(): expected 'mode' to be "
              "'reduced' (the default), 'complete' or 'r', but got '", mode, "'");
  check_matrix(op, "A", A);
  const int64_t m = A.size(-2), n = A.size(-1), k = std::min(m, n);
  const bool complete = mode == "complete", want_q = mode != "r";
  const int64_t q_cols = complete ? m : k;
  const std::vector<int64_t> batch = batch_of(A);
  const int64_t count = numel_of(batch);
  Tensor a = column_major(A);
  Tensor q = want_q ? ember::zeros(with_matrix(batch, q_cols, m), A.options()) : Tensor();
  dispatch_lapack(A.scalar_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* pa = static_cast<T*>(a.data_ptr());
    T* pq = want_q ? static_cast<T*>(q.data_ptr()) : nullptr;
    std::vector<T> tau(std::max<int64_t>(k, 1));
    set_lapack_threads();
    for (int64_t b = 0; b < count; ++b) {
      T* ab = pa + b * m * n;
      if (k > 0) geqrf(li(m), li(n), ab, tau.data());
      if (!want_q) continue;
      T* qb = pq + b * m * q_cols;
      if (k == 0) {  // the empty product of reflectors
        for (int64_t i = 0; i < std::min(m, q_cols); ++i) qb[i * m + i] = 1;
        continue;
      }
      std::copy(ab, ab + m * std::min(n, q_cols), qb);
      orgqr(li(m), li(q_cols), li(k), qb, tau.data());
    }
  });
  // R = triu(the first rows of a's matrices), column-major: the transpose of tril(a's rows).
  Tensor R = from_column_major(ember::tril(a.narrow(-1, 0, complete ? m : k)));
  Tensor Q = want_q ? from_column_major(q) : ember::empty({0}, A.options());
  return {Q, R};
}

std::tuple<Tensor, Tensor> linalg_eigh_cpu(const Tensor& self, std::string_view UPLO) {
  const char* op = "linalg_eigh";
  const char uplo = UPLO.size() == 1 ? static_cast<char>(std::toupper(UPLO[0])) : '?';
  EMBER_CHECK(uplo == 'L' || uplo == 'U', op, "(): expected 'UPLO' to be 'L' or 'U', but got '", UPLO, "'");
  // PyTorch's syevd kernel: NotImplementedError for other dtypes.
  const ScalarType dt = self.scalar_type();
  EMBER_CHECK_NOT_IMPLEMENTED(dt == ScalarType::Float || dt == ScalarType::Double, op, "(): not "
                              "implemented for 'self' of dtype ", dt, " (float32 and float64 are)");
  check_square(op, "self", self);
  const int64_t n = self.size(-1);
  const std::vector<int64_t> batch = batch_of(self);
  const int64_t count = numel_of(batch);
  std::vector<int64_t> w_sizes = batch;
  w_sizes.push_back(n);
  Tensor w = ember::empty(w_sizes, self.options());
  Tensor a = column_major(self);
  dispatch_lapack(self.scalar_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* pa = static_cast<T*>(a.data_ptr());
    T* pw = static_cast<T*>(w.data_ptr());
    set_lapack_threads();
    for (int64_t b = 0; b < count && n > 0; ++b) {
      const lapack_int info = syevd(uplo, li(n), pa + b * n * n, pw + b * n);
      EMBER_CHECK_LINALG(info == 0, op, "(): ", batch_element(count, b), "the algorithm failed to converge "
                  "because the input matrix is ill-conditioned or has too many repeated eigenvalues "
                  "(error code: ", info, ")");
    }
  });
  return {w, from_column_major(a)};
}

std::tuple<Tensor, Tensor, Tensor> linalg_svd_cpu(const Tensor& A, bool full_matrices,
                                                  std::optional<std::string_view> driver) {
  const char* op = "linalg_svd";
  EMBER_CHECK(!driver, op, "(): keyword argument 'driver' is only supported on CUDA inputs with the "
              "cuSOLVER backend; leave it None on CPU");
  check_matrix(op, "A", A);
  const int64_t m = A.size(-2), n = A.size(-1), k = std::min(m, n);
  const int64_t u_cols = full_matrices ? m : k, vt_rows = full_matrices ? n : k;
  const std::vector<int64_t> batch = batch_of(A);
  const int64_t count = numel_of(batch);
  std::vector<int64_t> s_sizes = batch;
  s_sizes.push_back(k);
  Tensor s = ember::empty(s_sizes, A.options());
  // Full U and Vh of an empty matrix: the identity (any orthogonal matrix would do).
  Tensor u = ember::zeros(with_matrix(batch, u_cols, m), A.options());
  Tensor vt = ember::zeros(with_matrix(batch, n, vt_rows), A.options());
  Tensor a = column_major(A);
  dispatch_lapack(A.scalar_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* pa = static_cast<T*>(a.data_ptr());
    T* ps = static_cast<T*>(s.data_ptr());
    T* pu = static_cast<T*>(u.data_ptr());
    T* pvt = static_cast<T*>(vt.data_ptr());
    set_lapack_threads();
    for (int64_t b = 0; b < count; ++b) {
      T* ub = pu + b * m * u_cols;
      T* vtb = pvt + b * n * vt_rows;
      if (k == 0) {
        for (int64_t i = 0; i < std::min(m, u_cols); ++i) ub[i * m + i] = 1;
        for (int64_t i = 0; i < std::min(n, vt_rows); ++i) vtb[i * vt_rows + i] = 1;
        continue;
      }
      const lapack_int info = gesdd(full_matrices ? 'A' : 'S', li(m), li(n), pa + b * m * n, ps + b * k,
                                    ub, ld(m), vtb, ld(vt_rows));
      EMBER_CHECK_LINALG(info == 0, op, "(): ", batch_element(count, b), "the algorithm failed to converge "
                  "because the input matrix is ill-conditioned or has too many repeated singular values "
                  "(error code: ", info, ")");
    }
  });
  return {from_column_major(u), s, from_column_major(vt)};
}

}  // namespace ember::native
