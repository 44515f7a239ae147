// The inner loops of the sparse products (aten/native/sparse/SparseBlas.h). For float and
// double the row update out[i, :] += v * B[r, :] is written with Vectorized (a register per
// step; the compiler would not vectorise a loop of unknown length at -O2); other dtypes take
// the scalar loop. No FMA: the result does not depend on the capability (-ffp-contract=off).
#include <algorithm>
#include <complex>
#include <cstdint>

#include "aten/native/Dispatch.h"
#include "aten/native/Parallel.h"
#include "aten/native/sparse/SparseBlas.h"
#include "aten/native/cpu/Vectorized.h"
#include "c10/util/Exception.h"

namespace ember::native {
EMBER_CPU_NAMESPACE_BEGIN
namespace {

// y[0:n] += a * x[0:n]
template <class T>
inline void axpy(int64_t n, T a, const T* x, T* y) {
  int64_t j = 0;
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
    using V = Vectorized<T>;
    const V va(a);
    for (; j + 2 * V::kSize <= n; j += 2 * V::kSize) {
      const V y0 = V::loadu(y + j) + va * V::loadu(x + j);
      const V y1 = V::loadu(y + j + V::kSize) + va * V::loadu(x + j + V::kSize);
      y0.store(y + j);
      y1.store(y + j + V::kSize);
    }
    for (; j + V::kSize <= n; j += V::kSize) (V::loadu(y + j) + va * V::loadu(x + j)).store(y + j);
  }
  for (; j < n; ++j) y[j] += a * x[j];
}

template <class F>
void dispatch_sparse_blas(ScalarType t, const char* op, F&& f) {
  switch (t) {
    case ScalarType::Float: return f(TypeTag<float>{});
    case ScalarType::Double: return f(TypeTag<double>{});
    case ScalarType::ComplexFloat: return f(TypeTag<std::complex<float>>{});
    case ScalarType::ComplexDouble: return f(TypeTag<std::complex<double>>{});
    case ScalarType::Long: return f(TypeTag<int64_t>{});
    case ScalarType::Int: return f(TypeTag<int32_t>{});
    case ScalarType::Short: return f(TypeTag<int16_t>{});
    case ScalarType::Char: return f(TypeTag<int8_t>{});
    case ScalarType::Byte: return f(TypeTag<uint8_t>{});
    default: break;
  }
  EMBER_THROW(TypeError, op, "(): sparse products take float, double, complex and integer values, but got ", t);
}

template <class F>
void dispatch_index_type(ScalarType t, F&& f) {
  if (t == ScalarType::Int) f(TypeTag<int32_t>{});
  else f(TypeTag<int64_t>{});
}

// Rows per parallel chunk: about 64 Ki multiply-adds each.
int64_t grain(int64_t rows, int64_t work) {
  const int64_t per_row = std::max<int64_t>(1, work / std::max<int64_t>(rows, 1));
  return std::max<int64_t>(1, 65536 / per_row);
}

}  // namespace

void csr_dense_mm_kernel(const Tensor& crow, const Tensor& col, const Tensor& values, const Tensor& dense,
                         const Tensor& out) {
  const int64_t m = crow.numel() - 1, n = dense.sizes()[1];
  const int64_t nnz = col.numel();
  dispatch_sparse_blas(out.dtype(), "mm", [&](auto vt) {
    using T = typename decltype(vt)::type;
    dispatch_index_type(crow.dtype(), [&](auto it) {
      using I = typename decltype(it)::type;
      const I* cp = crow.data_ptr<I>();
      const I* ci = col.data_ptr<I>();
      const T* v = values.data_ptr<T>();
      const T* b = dense.data_ptr<T>();
      T* o = out.data_ptr<T>();
      parallel_for(0, m, grain(m, nnz * n), [&](int64_t r0, int64_t r1) {
        for (int64_t i = r0; i < r1; ++i) {
          T* oi = o + i * n;
          for (I k = cp[i]; k < cp[i + 1]; ++k) axpy<T>(n, v[k], b + static_cast<int64_t>(ci[k]) * n, oi);
        }
      });
    });
  });
}

void dense_csr_mm_kernel(const Tensor& dense, const Tensor& crow, const Tensor& col, const Tensor& values,
                         const Tensor& out) {
  const int64_t m = dense.sizes()[0], k = dense.sizes()[1], n = out.sizes()[1];
  const int64_t nnz = col.numel();
  dispatch_sparse_blas(out.dtype(), "mm", [&](auto vt) {
    using T = typename decltype(vt)::type;
    dispatch_index_type(crow.dtype(), [&](auto it) {
      using I = typename decltype(it)::type;
      const I* cp = crow.data_ptr<I>();
      const I* ci = col.data_ptr<I>();
      const T* v = values.data_ptr<T>();
      const T* a = dense.data_ptr<T>();
      T* o = out.data_ptr<T>();
      parallel_for(0, m, grain(m, nnz * std::max<int64_t>(m, 1)), [&](int64_t r0, int64_t r1) {
        for (int64_t i = r0; i < r1; ++i) {
          const T* ai = a + i * k;
          T* oi = o + i * n;
          for (int64_t r = 0; r < k; ++r) {
            const T air = ai[r];
            for (I q = cp[r]; q < cp[r + 1]; ++q) oi[ci[q]] += air * v[q];
          }
        }
      });
    });
  });
}

EMBER_CPU_NAMESPACE_END
}  // namespace ember::native
