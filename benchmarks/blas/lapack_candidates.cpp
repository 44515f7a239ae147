// The BLAS/LAPACK choice (benchmarks/README.md, "BLAS choice"): sgemm/dgemm 512^3, a loop of
// 64 128^3 products, sgesv/dgesv 512 (1 and 512 right-hand sides), gesdd and syevd 256;
// medians of repeated runs. Built by benchmarks/blas/compare.sh against MKL and OpenBLAS.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>
#ifdef USE_MKL
#include <mkl_cblas.h>
#include <mkl_lapacke.h>
#else
#include <cblas.h>
#include <lapacke.h>
#endif
template <class F> double median_ms(F f, int reps) {
  f();
  std::vector<double> t;
  for (int i = 0; i < reps; ++i) {
    auto a = std::chrono::steady_clock::now(); f();
    t.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - a).count());
  }
  std::sort(t.begin(), t.end()); return t[t.size() / 2];
}
template <class T> void run(const char* name) {
  const int n = 512;
  std::mt19937 g(0); std::normal_distribution<double> d;
  std::vector<T> a(n * n), b(n * n), c(n * n), lu(n * n), rhs(n * n); std::vector<int> piv(n);
  for (auto& x : a) x = d(g);
  for (int i = 0; i < n; ++i) a[i * n + i] += n;  // well conditioned
  for (auto& x : b) x = d(g);
  double gemm = median_ms([&] {
    if constexpr (sizeof(T) == 4) cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1, a.data(), n, b.data(), n, 0, c.data(), n);
    else cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1, a.data(), n, b.data(), n, 0, c.data(), n);
  }, 21);
  for (int nrhs : {1, n}) {
    double solve = median_ms([&] {
      lu = a; std::copy(b.begin(), b.begin() + n * nrhs, rhs.begin());
      int info;
      if constexpr (sizeof(T) == 4) info = LAPACKE_sgesv(LAPACK_ROW_MAJOR, n, nrhs, lu.data(), n, piv.data(), rhs.data(), nrhs);
      else info = LAPACKE_dgesv(LAPACK_ROW_MAJOR, n, nrhs, lu.data(), n, piv.data(), rhs.data(), nrhs);
      if (info) std::abort();
    }, 21);
    std::printf("%s solve 512 nrhs=%d: %.3f ms\n", name, nrhs, solve);
  }
  std::printf("%s gemm 512^3: %.3f ms (%.0f GFLOP/s)\n", name, gemm, 2.0 * n * n * n / gemm / 1e6);
  const int bs = 64, bn = 128;
  double bmm = median_ms([&] {
    for (int i = 0; i < bs; ++i) {
      const T* pa = a.data() + (i % 16) * bn * bn; const T* pb = b.data() + (i % 16) * bn * bn; T* pc = c.data() + (i % 16) * bn * bn;
      if constexpr (sizeof(T) == 4) cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, bn, bn, bn, 1, pa, bn, pb, bn, 0, pc, bn);
      else cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, bn, bn, bn, 1, pa, bn, pb, bn, 0, pc, bn);
    }
  }, 21);
  std::printf("%s 64 x 128^3 gemm loop: %.3f ms\n", name, bmm);
  const int m = 256;
  std::vector<T> s(m), u(m * m), vt(m * m), w(m);
  double svd = median_ms([&] {
    for (int i = 0; i < m; ++i) for (int j = 0; j < m; ++j) lu[i * m + j] = a[i * n + j];
    int info;
    if constexpr (sizeof(T) == 4) info = LAPACKE_sgesdd(LAPACK_ROW_MAJOR, 'S', m, m, lu.data(), m, s.data(), u.data(), m, vt.data(), m);
    else info = LAPACKE_dgesdd(LAPACK_ROW_MAJOR, 'S', m, m, lu.data(), m, s.data(), u.data(), m, vt.data(), m);
    if (info) std::abort();
  }, 11);
  double eig = median_ms([&] {
    for (int i = 0; i < m; ++i) for (int j = 0; j < m; ++j) lu[i * m + j] = a[i * n + j] + a[j * n + i];
    int info;
    if constexpr (sizeof(T) == 4) info = LAPACKE_ssyevd(LAPACK_ROW_MAJOR, 'V', 'L', m, lu.data(), m, w.data());
    else info = LAPACKE_dsyevd(LAPACK_ROW_MAJOR, 'V', 'L', m, lu.data(), m, w.data());
    if (info) std::abort();
  }, 11);
  std::printf("%s svd 256: %.3f ms, eigh 256: %.3f ms\n", name, svd, eig);
}
int main() { run<float>("float32"); run<double>("float64"); }
