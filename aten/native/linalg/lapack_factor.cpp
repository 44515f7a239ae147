// LAPACK factorizations on CPU through LAPACKE, float32 and float64: LU with partial pivoting
// (getrf), the general eigendecomposition (geev, complex results), the symmetric-indefinite
// LDL^T factorization and its solve (sytrf, sytrs) and the Householder QR in LAPACK's packed
// form (geqrf). Buffers follow Note [LAPACK buffers] (LapackBuffers.h); the composites over
// them (lu, lu_solve, inv_ex, ...) are in linalg_composites.cpp and python/ember/linalg.py.
#include <lapacke.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <vector>

#include "aten/native/linalg/Blas.h"
#include "aten/native/linalg/LapackBuffers.h"
#include "aten/native/linalg/LinalgChecks.h"
#include "c10/util/Exception.h"
#include "c10/util/LinAlgError.h"
#include "ember/generated/ops/empty.h"
#include "ember/generated/ops/zeros.h"

namespace ember::native {
namespace {

using namespace linalg_checks;
using namespace lapack;

static_assert(sizeof(lapack_int) == sizeof(int32_t), "pivots are int32 tensors, as PyTorch's");

// ---- typed LAPACKE entry points --------------------------------------------------------------

lapack_int getrf(lapack_int m, lapack_int n, float* a, lapack_int* piv) {
  return LAPACKE_sgetrf(LAPACK_COL_MAJOR, m, n, a, ld(m), piv);
}
lapack_int getrf(lapack_int m, lapack_int n, double* a, lapack_int* piv) {
  return LAPACKE_dgetrf(LAPACK_COL_MAJOR, m, n, a, ld(m), piv);
}
lapack_int geev(lapack_int n, float* a, float* wr, float* wi, float* vr) {
  return LAPACKE_sgeev(LAPACK_COL_MAJOR, 'N', 'V', n, a, ld(n), wr, wi, nullptr, 1, vr, ld(n));
}
lapack_int geev(lapack_int n, double* a, double* wr, double* wi, double* vr) {
  return LAPACKE_dgeev(LAPACK_COL_MAJOR, 'N', 'V', n, a, ld(n), wr, wi, nullptr, 1, vr, ld(n));
}
lapack_int sytrf(lapack_int n, float* a, lapack_int* piv) {
  return LAPACKE_ssytrf(LAPACK_COL_MAJOR, 'L', n, a, ld(n), piv);
}
lapack_int sytrf(lapack_int n, double* a, lapack_int* piv) {
  return LAPACKE_dsytrf(LAPACK_COL_MAJOR, 'L', n, a, ld(n), piv);
}
lapack_int sytrs(lapack_int n, lapack_int k, const float* a, const lapack_int* piv, float* b) {
  return LAPACKE_ssytrs(LAPACK_COL_MAJOR, 'L', n, k, a, ld(n), piv, b, ld(n));
}
lapack_int sytrs(lapack_int n, lapack_int k, const double* a, const lapack_int* piv, double* b) {
  return LAPACKE_dsytrs(LAPACK_COL_MAJOR, 'L', n, k, a, ld(n), piv, b, ld(n));
}

std::vector<int64_t> with_last(std::vector<int64_t> batch, int64_t n) {
  batch.push_back(n);
  return batch;
}

TensorOptions int32_options(const Tensor& t) { return t.options().dtype(ScalarType::Int); }

// PyTorch's getrf and geqrf kernels: NotImplementedError for dtypes LAPACK has no routine for.
void check_kernel_dtype(const char* op, const char* arg, const Tensor& t) {
  const ScalarType dt = t.scalar_type();
  EMBER_CHECK_NOT_IMPLEMENTED(dt == ScalarType::Float || dt == ScalarType::Double, op, "(): not "
                              "implemented for '", arg, "' of dtype ", dt, " (float32 and float64 are)");
}

}  // namespace

std::tuple<Tensor, Tensor, Tensor> linalg_lu_factor_ex_cpu(const Tensor& A, bool pivot, bool check_errors) {
  const char* op = "linalg_lu_factor_ex";
  check_kernel_dtype(op, "A", A);
  check_matrix(op, "A", A);
  EMBER_CHECK(pivot, op, "(): LU without pivoting is not implemented on the CPU; pass pivot=True");
  const int64_t m = A.size(-2), n = A.size(-1), k = std::min(m, n);
  const std::vector<int64_t> batch = batch_of(A);
  const int64_t count = numel_of(batch);
  Tensor a = column_major(A);
  Tensor pivots = ember::empty(with_last(batch, k), int32_options(A));
  Tensor info = ember::zeros(batch, int32_options(A));
  dispatch_lapack(A.scalar_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* pa = static_cast<T*>(a.data_ptr());
    auto* pp = static_cast<lapack_int*>(pivots.data_ptr());
    auto* pi = static_cast<int32_t*>(info.data_ptr());
    set_blas_threads();
    for (int64_t b = 0; b < count && k > 0; ++b) {
      // info > 0: U[info-1, info-1] is an exact zero (the factorization still completes).
      pi[b] = getrf(li(m), li(n), pa + b * m * n, pp + b * k);
      EMBER_CHECK_LINALG(!check_errors || pi[b] == 0, op, "(): ", batch_element(count, b), "U[", pi[b], ",",
                         pi[b], "] is zero and using it on lu_solve would result in a division by zero; "
                         "pass check_errors=False to factor it anyway");
    }
  });
  return {from_column_major(a), pivots, info};
}

std::tuple<Tensor, Tensor> linalg_eig_cpu(const Tensor& self) {
  const char* op = "linalg_eig";
  const ScalarType dt = self.scalar_type();
  EMBER_CHECK_NOT_IMPLEMENTED(dt == ScalarType::Float || dt == ScalarType::Double, op, "(): not "
                              "implemented for 'self' of dtype ", dt, " (float32 and float64 are)");
  check_square(op, "self", self);
  const int64_t n = self.size(-1);
  const std::vector<int64_t> batch = batch_of(self);
  const int64_t count = numel_of(batch);
  const ScalarType ct = dt == ScalarType::Float ? ScalarType::ComplexFloat : ScalarType::ComplexDouble;
  Tensor a = column_major(self);
  Tensor w = ember::empty(with_last(batch, n), self.options().dtype(ct));
  Tensor v = ember::empty(with_matrix(batch, n, n), self.options().dtype(ct));  // column-major
  dispatch_lapack(dt, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using C = std::complex<T>;
    T* pa = static_cast<T*>(a.data_ptr());
    C* pw = static_cast<C*>(w.data_ptr());
    C* pv = static_cast<C*>(v.data_ptr());
    std::vector<T> wr(std::max<int64_t>(n, 1)), wi(wr.size()), vr(std::max<int64_t>(n * n, 1));
    set_blas_threads();
    for (int64_t b = 0; b < count && n > 0; ++b) {
      T* ab = pa + b * n * n;
      EMBER_CHECK(std::all_of(ab, ab + n * n, [](T x) { return std::isfinite(x); }), op, "(): expected "
                  "'self' to hold finite values, but it contains infs or NaNs");
      const lapack_int info = geev(li(n), ab, wr.data(), wi.data(), vr.data());
      EMBER_CHECK_LINALG(info == 0, op, "(): ", batch_element(count, b), "the algorithm failed to converge "
                         "because the input matrix is ill-conditioned or has too many repeated eigenvalues "
                         "(error code: ", info, ")");
      C* wb = pw + b * n;
      C* vb = pv + b * n * n;
      for (int64_t j = 0; j < n; ++j) wb[j] = C(wr[j], wi[j]);
      // A complex pair j, j+1 holds its eigenvector's real and imaginary parts in columns j, j+1.
      for (int64_t j = 0; j < n;) {
        if (wi[j] == 0) {
          for (int64_t i = 0; i < n; ++i) vb[j * n + i] = C(vr[j * n + i], 0);
          ++j;
          continue;
        }
        for (int64_t i = 0; i < n; ++i) {
          const T re = vr[j * n + i], im = j + 1 < n ? vr[(j + 1) * n + i] : 0;
          vb[j * n + i] = C(re, im);
          if (j + 1 < n) vb[(j + 1) * n + i] = C(re, -im);
        }
        j += 2;
      }
    }
  });
  return {w, from_column_major(v)};
}

std::tuple<Tensor, Tensor, Tensor> linalg_ldl_factor_ex_cpu(const Tensor& self, bool hermitian, bool check_errors) {
  const char* op = "linalg_ldl_factor_ex";
  (void)hermitian;  // a real symmetric matrix is Hermitian: one factorization
  check_square(op, "self", self);
  const int64_t n = self.size(-1);
  const std::vector<int64_t> batch = batch_of(self);
  const int64_t count = numel_of(batch);
  Tensor a = column_major(self);
  Tensor pivots = ember::empty(with_last(batch, n), int32_options(self));
  Tensor info = ember::zeros(batch, int32_options(self));
  dispatch_lapack(self.scalar_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* pa = static_cast<T*>(a.data_ptr());
    auto* pp = static_cast<lapack_int*>(pivots.data_ptr());
    auto* pi = static_cast<int32_t*>(info.data_ptr());
    set_blas_threads();
    for (int64_t b = 0; b < count && n > 0; ++b) {
      T* ab = pa + b * n * n;
      pi[b] = sytrf(li(n), ab, pp + b * n);  // reads the lower triangle
      EMBER_CHECK_LINALG(!check_errors || pi[b] == 0, op, "(): ", batch_element(count, b), "the "
                         "factorization could not be completed because D[", pi[b], ",", pi[b], "] is zero");
      // The strict upper triangle LAPACK left as the input was: zeros, as PyTorch returns.
      for (int64_t j = 0; j < n; ++j) {
        for (int64_t i = 0; i < j; ++i) ab[j * n + i] = 0;
      }
    }
  });
  return {from_column_major(a), pivots, info};
}

Tensor linalg_ldl_solve_cpu(const Tensor& LD, const Tensor& pivots, const Tensor& B, bool hermitian) {
  const char* op = "linalg_ldl_solve";
  (void)hermitian;
  check_square(op, "LD", LD);
  check_same_dtype(op, LD, "LD", B, "B");
  // Any integer dtype, as PyTorch's (read as LAPACK's int32).
  EMBER_CHECK(is_integral(pivots.scalar_type(), /*include_bool=*/false), op, "(): expected 'pivots' to be "
              "an integer tensor, but got ", pivots.scalar_type());
  EMBER_CHECK(B.dim() >= 2, op, "(): expected 'B' to have at least 2 dimensions, but got a ", B.dim(),
              "-d tensor");
  const int64_t n = LD.size(-1), k = B.size(-1);
  EMBER_CHECK(B.size(-2) == n, op, "(): expected 'B' to have ", n, " rows (LD.size(-1)), but got shape ",
              B.sizes());
  const std::vector<int64_t> batch = batch_of(B);
  EMBER_CHECK(batch_of(LD) == batch, op, "(): expected the batch dimensions of 'LD' ", LD.sizes(),
              " and 'B' ", B.sizes(), " to be the same");
  EMBER_CHECK(pivots.dim() == LD.dim() - 1 && pivots.size(-1) == n, op, "(): expected 'pivots' to have "
              "shape LD.shape[:-1], but got ", pivots.sizes(), " for 'LD' of shape ", LD.sizes());
  const int64_t count = numel_of(batch);
  Tensor a = column_major(LD);
  Tensor piv = pivots.to(ScalarType::Int).contiguous();
  Tensor x = column_major(B);
  dispatch_lapack(LD.scalar_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* pa = static_cast<const T*>(a.data_ptr());
    const auto* pp = static_cast<const lapack_int*>(piv.data_ptr());
    T* px = static_cast<T*>(x.data_ptr());
    for (int64_t b = 0; b < count * n; ++b) {
      const lapack_int p = pp[b];
      EMBER_CHECK(p != 0 && (p > 0 ? p : -p) <= n, op, "(): expected 'pivots' to hold LAPACK's pivots "
                  "(1 to n, negated for 2x2 blocks), but got ", p);
    }
    set_blas_threads();
    for (int64_t b = 0; b < count && n > 0 && k > 0; ++b) {
      sytrs(li(n), li(k), pa + b * n * n, pp + b * n, px + b * n * k);
    }
  });
  return from_column_major(x);
}

std::tuple<Tensor, Tensor> geqrf_cpu(const Tensor& self) {
  const char* op = "geqrf";
  check_kernel_dtype(op, "self", self);
  check_matrix(op, "self", self);
  const int64_t m = self.size(-2), n = self.size(-1), k = std::min(m, n);
  const std::vector<int64_t> batch = batch_of(self);
  const int64_t count = numel_of(batch);
  Tensor a = column_major(self);
  Tensor tau = ember::empty(with_last(batch, k), self.options());
  dispatch_lapack(self.scalar_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* pa = static_cast<T*>(a.data_ptr());
    T* pt = static_cast<T*>(tau.data_ptr());
    set_blas_threads();
    for (int64_t b = 0; b < count && k > 0; ++b) geqrf(li(m), li(n), pa + b * m * n, pt + b * k);
  });
  return {from_column_major(a), tau};
}

}  // namespace ember::native
