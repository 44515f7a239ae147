// Matrix products on strided tensors (Note [GEMM operands], Blas.h): OpenBLAS's cblas for
// float64 and complex (and float32 in a build without oneDNN), oneDNN's sgemm for float32, a
// blocked loop for the other dtypes.
#include "aten/native/linalg/Blas.h"

#include <cblas.h>
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <complex>
#include <cstdio>
#include <vector>

#include "aten/native/Dispatch.h"
#include "aten/native/Parallel.h"
#include "aten/native/onednn/Gemm.h"
#include "c10/core/Threads.h"
#include "c10/util/Exception.h"
#include "ember/generated/ops/empty.h"

namespace ember::native {
namespace {

// How the BLAS reads one [batch, rows, cols] operand (Note [GEMM operands]).
struct Operand {
  Tensor t;                 // the tensor read (the input, or a contiguous copy of it)
  bool trans = false;       // stored column-major: the BLAS reads its transpose
  int64_t ld = 1;           // leading dimension
  int64_t batch_stride = 0;
};

// The operand as the BLAS can read it: rows r, cols c, strides (sr, sc).
bool blas_readable(int64_t r, int64_t c, int64_t sr, int64_t sc, bool& trans, int64_t& ld) {
  if (sc == 1 && (r == 1 || sr >= std::max<int64_t>(c, 1))) {
    trans = false;
    ld = std::max<int64_t>({sr, c, 1});
    return true;
  }
  if (sr == 1 && (c == 1 || sc >= std::max<int64_t>(r, 1))) {
    trans = true;
    ld = std::max<int64_t>({sc, r, 1});
    return true;
  }
  return false;
}

Operand operand(const Tensor& x) {
  Operand op;
  const int64_t r = x.sizes()[1], c = x.sizes()[2];
  if (blas_readable(r, c, x.strides()[1], x.strides()[2], op.trans, op.ld)) {
    op.t = x;
  } else {
    op.t = x.contiguous();
    op.trans = false;
    op.ld = std::max<int64_t>(c, 1);
  }
  op.batch_stride = op.t.sizes()[0] == 1 ? 0 : op.t.strides()[0];
  return op;
}

CBLAS_TRANSPOSE cblas_trans(bool t) { return t ? CblasTrans : CblasNoTrans; }

// Runs one(i) for every matrix of a batch: one product per task when the batch splits
// evenly across the threads (or is large), each then on one thread (a BLAS called inside a
// parallel region runs single-threaded); else one after another, each on every thread.
template <class F>
void run_batch(int64_t batch, const F& one) {
  const int threads = in_parallel_region() ? 1 : get_num_threads();
  if (batch > 1 && threads > 1 && (batch % threads == 0 || batch >= 4 * threads)) {
    parallel_for(0, batch, 1, [&](int64_t b0, int64_t b1) {
      for (int64_t i = b0; i < b1; ++i) one(i);
    });
    return;
  }
  set_blas_threads();
  for (int64_t i = 0; i < batch; ++i) one(i);
}

#if EMBER_HAVE_ONEDNN
// Note [float32 GEMM]: float32 products go to oneDNN's sgemm (Debian's oneDNN 2.6, the
// library the convolutions use), float64 ones to OpenBLAS. On this machine's AMD EPYC, MKL
// (the BLAS then) takes its AVX2 code path (about 100 GFLOP/s on one core at every shape measured) while oneDNN
// JIT-compiles AVX-512 kernels for the CPU it finds: 180-250 GFLOP/s from 32x1024x256 to
// 1024^3 (benchmarks/README.md, "BLAS choice"). oneDNN has no float64 GEMM. Its threads are
// OpenMP's, as parallel_for's: as many as Ember is set to, one inside a parallel region; a
// batch runs as run_batch() says.
void onednn_sgemm(const Operand& a, const Operand& b, float* c, int64_t ldc, int64_t c_batch_stride,
                  int64_t batch, int64_t m, int64_t n, int64_t k, float alpha, float beta) {
  const float* pa = static_cast<const float*>(a.t.data_ptr());
  const float* pb = static_cast<const float*>(b.t.data_ptr());
  auto one = [&](int64_t i) {
    onednn::sgemm(a.trans, b.trans, m, n, k, alpha, pa + i * a.batch_stride, a.ld, pb + i * b.batch_stride, b.ld,
                  beta, c + i * c_batch_stride, ldc);
  };
  run_batch(batch, one);
}

#endif

template <class T>
void blas_gemm(const Operand& a, const Operand& b, T* c, int64_t ldc, int64_t c_batch_stride,
               int64_t batch, int64_t m, int64_t n, int64_t k, T alpha, T beta) {
  const T* pa = static_cast<const T*>(a.t.data_ptr());
  const T* pb = static_cast<const T*>(b.t.data_ptr());
  // OpenBLAS 0.3.21 (Debian 12) has no strided batch GEMM: one call per matrix.
  auto call = [&](auto gemm) {
    run_batch(batch, [&](int64_t i) {
      gemm(CblasRowMajor, cblas_trans(a.trans), cblas_trans(b.trans), m, n, k, alpha,
           pa + i * a.batch_stride, a.ld, pb + i * b.batch_stride, b.ld, beta, c + i * c_batch_stride, ldc);
    });
  };
  if constexpr (std::is_same_v<T, float>) {
#if EMBER_HAVE_ONEDNN
    onednn_sgemm(a, b, c, ldc, c_batch_stride, batch, m, n, k, alpha, beta);
#else
    call(cblas_sgemm);
#endif
  } else if constexpr (std::is_same_v<T, double>) {
    call(cblas_dgemm);
  } else {
    // cgemm/zgemm take alpha and beta by address and the matrices as void pointers.
    auto complex_gemm = [&](auto gemm) {
      run_batch(batch, [&](int64_t i) {
        gemm(CblasRowMajor, cblas_trans(a.trans), cblas_trans(b.trans), m, n, k, &alpha,
             pa + i * a.batch_stride, a.ld, pb + i * b.batch_stride, b.ld, &beta,
             c + i * c_batch_stride, ldc);
      });
    };
    if constexpr (std::is_same_v<T, std::complex<float>>) complex_gemm(cblas_cgemm);
    else complex_gemm(cblas_zgemm);
  }
}

// The loop for dtypes no BLAS takes: accumulates in Acc (int64 for integers, float for
// float16 and bfloat16; PyTorch's CPU kernels do the same), over contiguous copies.
template <class T, class Acc>
void loop_gemm(const Tensor& a, const Tensor& b, const Tensor& out, int64_t batch, int64_t m,
               int64_t n, int64_t k, Acc alpha, Acc beta) {
  const Tensor ac = a.contiguous(), bc = b.contiguous();
  const T* pa = static_cast<const T*>(ac.data_ptr());
  const T* pb = static_cast<const T*>(bc.data_ptr());
  const int64_t a_bs = ac.sizes()[0] == 1 ? 0 : m * k, b_bs = bc.sizes()[0] == 1 ? 0 : k * n;
  T* pc = static_cast<T*>(out.data_ptr());
  const int64_t sb = out.strides()[0], sm = out.strides()[1], sn = out.strides()[2];
  parallel_for(0, batch * m, std::max<int64_t>(1, 16384 / std::max<int64_t>(n * k, 1)),
               [&](int64_t begin, int64_t end) {
    std::vector<Acc> row(static_cast<size_t>(n));
    for (int64_t r = begin; r < end; ++r) {
      const int64_t bi = r / m, i = r % m;
      std::fill(row.begin(), row.end(), Acc(0));
      const T* arow = pa + bi * a_bs + i * k;
      const T* bmat = pb + bi * b_bs;
      for (int64_t p = 0; p < k; ++p) {
        const Acc av = static_cast<Acc>(arow[p]);
        const T* brow = bmat + p * n;
        for (int64_t j = 0; j < n; ++j) row[j] += av * static_cast<Acc>(brow[j]);
      }
      T* crow = pc + bi * sb + i * sm;
      for (int64_t j = 0; j < n; ++j) {
        const Acc prev = beta == Acc(0) ? Acc(0) : beta * static_cast<Acc>(crow[j * sn]);
        crow[j * sn] = static_cast<T>(prev + alpha * row[j]);
      }
    }
  });
}

}  // namespace

void set_blas_threads() {
  if (!in_parallel_region()) omp_set_num_threads(get_num_threads());
}

namespace {
std::atomic<GemmFn> cuda_gemm{nullptr};
}  // namespace

void set_cuda_gemm(GemmFn gemm) { cuda_gemm.store(gemm); }

void gemm_batched(const Tensor& out, const Tensor& a, const Tensor& bmat, const Scalar& alpha,
                  const Scalar& beta) {
  if (out.device().type() == DeviceType::CUDA) {
    const GemmFn g = cuda_gemm.load();
    EMBER_CHECK(g, "the CUDA GEMM is not loaded (libember_cuda.so is not open)");
    g(out, a, bmat, alpha, beta);
    return;
  }
  const int64_t batch = out.sizes()[0], m = out.sizes()[1], n = out.sizes()[2];
  const int64_t k = a.sizes()[2];
  if (out.numel() == 0) return;
  const ScalarType dt = out.scalar_type();
  if (k == 0) {  // an empty sum: beta * out
    if (beta.to_double() == 0.0) {
      out.zero_();
    } else {
      out.mul_(beta);
    }
    return;
  }
  if (dt == ScalarType::Float || dt == ScalarType::Double || is_complex(dt)) {
    const Operand oa = operand(a), ob = operand(bmat);
    // The result in place when row-major, or column-major as the transposed product
    // (out^T = b^T a^T); otherwise through a contiguous buffer.
    bool out_trans = false;
    int64_t ldc = 1;
    const bool direct = blas_readable(m, n, out.strides()[1], out.strides()[2], out_trans, ldc) &&
                        (batch == 1 || out.strides()[0] >= m * n);
    Tensor c = direct ? out : (beta.to_double() == 0.0 ? ember::empty(out.sizes(), out.options())
                                                       : out.contiguous());
    if (!direct) {
      out_trans = false;
      ldc = std::max<int64_t>(n, 1);
    }
    const int64_t c_bs = batch == 1 ? 0 : c.strides()[0];
    auto run = [&](auto tag) {
      using T = typename decltype(tag)::type;
      T* pc = static_cast<T*>(c.data_ptr());
      const T al = alpha.to<T>(), be = beta.to<T>();
      if (out_trans) {
        Operand ta = ob, tb = oa;  // out^T [n, m] = b^T [n, k] a^T [k, m]
        ta.trans = !ta.trans;
        tb.trans = !tb.trans;
        blas_gemm<T>(ta, tb, pc, ldc, c_bs, batch, n, m, k, al, be);
      } else {
        blas_gemm<T>(oa, ob, pc, ldc, c_bs, batch, m, n, k, al, be);
      }
    };
    switch (dt) {
      case ScalarType::Float: run(TypeTag<float>{}); break;
      case ScalarType::Double: run(TypeTag<double>{}); break;
      case ScalarType::ComplexFloat: run(TypeTag<std::complex<float>>{}); break;
      default: run(TypeTag<std::complex<double>>{}); break;
    }
    if (!direct) out.copy_(c);
    return;
  }
  EMBER_CHECK_NOT_IMPLEMENTED(dt != ScalarType::Bool, "matrix products are not implemented for "
                              "dtype ", dt);
  dispatch_all_types(dt, "gemm", [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
      loop_gemm<T, int64_t>(a, bmat, out, batch, m, n, k, alpha.to_long(), beta.to_long());
    } else if constexpr (Float16<T>) {
      loop_gemm<T, float>(a, bmat, out, batch, m, n, k, static_cast<float>(alpha.to_double()),
                          static_cast<float>(beta.to_double()));
    }
  });
}

const char* blas_info() {
  static const std::string info = std::string(openblas_get_config()) + " (" + openblas_get_corename() + ")";
  return info.c_str();
}

}  // namespace ember::native
