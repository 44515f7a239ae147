// Times single-precision GEMM of one BLAS candidate on the benchmark shapes (built
// once per candidate by benchmarks/blas/compare.sh; the library is chosen at compile time).
//   gemm_candidates THREADS  ->  one line per shape: "name shape threads median_ms gflops"
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#if defined(USE_MKL)
#include <mkl.h>
static const char* kName = "mkl";
static void set_threads(int n) { mkl_set_num_threads(n); }
static void sgemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const float* a, int64_t lda,
                  const float* b, int64_t ldb, float* c, int64_t ldc) {
  cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans,
              m, n, k, 1.0f, a, lda, b, ldb, 0.0f, c, ldc);
}
#elif defined(USE_OPENBLAS)
extern "C" {
void scipy_cblas_sgemm64_(int, int, int, int64_t, int64_t, int64_t, float, const float*, int64_t,
                          const float*, int64_t, float, float*, int64_t);
void scipy_openblas_set_num_threads64_(int);
}
static const char* kName = "openblas-0.3.34";
static void set_threads(int n) { scipy_openblas_set_num_threads64_(n); }
static void sgemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const float* a, int64_t lda,
                  const float* b, int64_t ldb, float* c, int64_t ldc) {
  scipy_cblas_sgemm64_(101, ta ? 112 : 111, tb ? 112 : 111, m, n, k, 1.0f, a, lda, b, ldb, 0.0f, c, ldc);
}
#elif defined(USE_DNNL)
#include <dnnl.h>
#ifndef DNNL_NAME
#define DNNL_NAME "onednn"
#endif
static const char* kName = DNNL_NAME;
static void set_threads(int n) { setenv("OMP_NUM_THREADS", std::to_string(n).c_str(), 1); }
static void sgemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const float* a, int64_t lda,
                  const float* b, int64_t ldb, float* c, int64_t ldc) {
  dnnl_sgemm(ta ? 'T' : 'N', tb ? 'T' : 'N', m, n, k, 1.0f, a, lda, b, ldb, 0.0f, c, ldc);
}
#endif

struct Shape { const char* name; int64_t batch, m, n, k; bool tb; };

int main(int argc, char** argv) {
  const int threads = argc > 1 ? std::atoi(argv[1]) : 1;
  set_threads(threads);
  const Shape shapes[] = {{"matmul512", 1, 512, 512, 512, false},
                          {"matmul1024", 1, 1024, 1024, 1024, false},
                          {"matmul2048", 1, 2048, 2048, 2048, false},
                          {"bmm64x128", 64, 128, 128, 128, false},
                          {"linear128x784x512", 1, 128, 512, 784, true},
                          {"lstmstep32x1024x256", 1, 32, 1024, 256, true}};
  for (const Shape& s : shapes) {
    std::vector<float> a(s.batch * s.m * s.k), b(s.batch * s.k * s.n), c(s.batch * s.m * s.n);
    for (size_t i = 0; i < a.size(); ++i) a[i] = float(i % 17) * 0.25f - 2.0f;
    for (size_t i = 0; i < b.size(); ++i) b[i] = float(i % 13) * 0.125f - 0.75f;
    const double flops = 2.0 * s.batch * s.m * s.n * s.k;
    const int reps = std::max(3, int(2e9 / flops));
    std::vector<double> ms;
    for (int r = 0; r < reps + 2; ++r) {
      auto t0 = std::chrono::steady_clock::now();
      for (int64_t i = 0; i < s.batch; ++i)
        sgemm(false, s.tb, s.m, s.n, s.k, a.data() + i * s.m * s.k, s.k, b.data() + i * s.k * s.n,
              s.tb ? s.k : s.n, c.data() + i * s.m * s.n, s.n);
      auto t1 = std::chrono::steady_clock::now();
      if (r >= 2) ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    }
    std::sort(ms.begin(), ms.end());
    const double med = ms[ms.size() / 2];
    std::printf("%s %s %d %.3f %.1f\n", kName, s.name, threads, med, flops / med / 1e6);
  }
}
