// The inner loops of the sparse products (aten/native/sparse/SparseBlas.h). For float and
// double the row update out[i, :] += v * B[r, :] is written with Vectorized (a register per
// step; the compiler would not vectorise a loop of unknown length at -O2); other dtypes take
// the scalar loop. No FMA: the result does not depend on the capability (-ffp-contract=off).
#include <algorithm>
#include <complex>
#include <cstdint>
#include <cstring>

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

// f(TypeTag<value type>, TypeTag<index type>) for the values' and the indices' dtypes.
template <class F>
void dispatch_blas(ScalarType values, ScalarType indices, F&& f) {
  dispatch_sparse_blas(values, "mm", [&](auto vt) { dispatch_index_type(indices, [&](auto it) { f(vt, it); }); });
}

// Rows per parallel chunk: about 64 Ki multiply-adds each.
int64_t grain(int64_t rows, int64_t work) {
  const int64_t per_row = std::max<int64_t>(1, work / std::max<int64_t>(rows, 1));
  return std::max<int64_t>(1, 65536 / per_row);
}

}  // namespace

namespace {

// out[i, j0:j0 + W * kSize] = sum_k v[k] * b[col[k], j0:...] for row i: the W registers of the
// tile accumulate over the row's entries and are stored once (the output is written, not
// read: no zeroing pass, no read-modify-write per entry).
template <class T, class I, int W>
inline void csr_row_tile(const I* cp, const I* ci, const T* v, const T* b, int64_t n, int64_t i, int64_t j0, T* oi) {
  using V = Vectorized<T>;
  V acc[W];
  for (int w = 0; w < W; ++w) acc[w] = V(T(0));
  for (I k = cp[i]; k < cp[i + 1]; ++k) {
    const V a(v[k]);
    const T* br = b + static_cast<int64_t>(ci[k]) * n + j0;
    for (int w = 0; w < W; ++w) acc[w] = acc[w] + a * V::loadu(br + w * V::kSize);
  }
  for (int w = 0; w < W; ++w) acc[w].store(oi + j0 + w * V::kSize);
}

}  // namespace

void csr_dense_mm_kernel(const Tensor& crow, const Tensor& col, const Tensor& values, const Tensor& dense,
                         const Tensor& out) {
  // out is written whole (it need not be zeroed).
  const int64_t m = crow.numel() - 1, n = dense.sizes()[1];
  const int64_t nnz = col.numel();
  dispatch_blas(out.dtype(), crow.dtype(), [&](auto vt, auto it) {
    using T = typename decltype(vt)::type;
    using I = typename decltype(it)::type;
    const I* cp = crow.data_ptr<I>();
    const I* ci = col.data_ptr<I>();
    const T* v = values.data_ptr<T>();
    const T* b = dense.data_ptr<T>();
    T* o = out.data_ptr<T>();
    parallel_for(0, m, grain(m, nnz * n), [&](int64_t r0, int64_t r1) {
      for (int64_t i = r0; i < r1; ++i) {
        T* oi = o + i * n;
        int64_t j = 0;
        if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
          constexpr int64_t K = Vectorized<T>::kSize;
          for (; j + 4 * K <= n; j += 4 * K) csr_row_tile<T, I, 4>(cp, ci, v, b, n, i, j, oi);
          for (; j + K <= n; j += K) csr_row_tile<T, I, 1>(cp, ci, v, b, n, i, j, oi);
        }
        for (int64_t jj = j; jj < n; ++jj) oi[jj] = T(0);
        if (j < n) {
          for (I k = cp[i]; k < cp[i + 1]; ++k) {
            const T a = v[k];
            const T* br = b + static_cast<int64_t>(ci[k]) * n;
            for (int64_t jj = j; jj < n; ++jj) oi[jj] += a * br[jj];
          }
        }
      }
    });
  });
}

void csc_dense_mm_kernel(const Tensor& ccol, const Tensor& row, const Tensor& values, const Tensor& dense,
                         const Tensor& out) {
  // out [M, N] += A @ dense for CSC A [M, K]: column k of A scatters dense row k into the
  // rows of its entries. The threads split the columns of out, so no two write one element.
  const int64_t k = ccol.numel() - 1, n = dense.sizes()[1];
  const int64_t nnz = row.numel();
  dispatch_blas(out.dtype(), ccol.dtype(), [&](auto vt, auto it) {
    using T = typename decltype(vt)::type;
    using I = typename decltype(it)::type;
    const I* cp = ccol.data_ptr<I>();
    const I* ri = row.data_ptr<I>();
    const T* v = values.data_ptr<T>();
    const T* b = dense.data_ptr<T>();
    T* o = out.data_ptr<T>();
    const int64_t block = 16;
    const int64_t nblocks = (n + block - 1) / block;
    parallel_for(0, nblocks, std::max<int64_t>(1, 65536 / std::max<int64_t>(1, nnz * block)), [&](int64_t b0, int64_t b1) {
      const int64_t j0 = b0 * block, j1 = std::min(n, b1 * block);
      for (int64_t c = 0; c < k; ++c) {
        const T* bc = b + c * n;
        for (I q = cp[c]; q < cp[c + 1]; ++q) axpy<T>(j1 - j0, v[q], bc + j0, o + static_cast<int64_t>(ri[q]) * n + j0);
      }
    });
  });
}

void dense_csr_mm_kernel(const Tensor& dense, const Tensor& crow, const Tensor& col, const Tensor& values,
                         const Tensor& out) {
  const int64_t m = dense.sizes()[0], k = dense.sizes()[1], n = out.sizes()[1];
  const int64_t nnz = col.numel();
  dispatch_blas(out.dtype(), crow.dtype(), [&](auto vt, auto it) {
    using T = typename decltype(vt)::type;
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
}

namespace {

template <class T, size_t Bytes>
struct VectorOfBytes {
  typedef T type __attribute__((vector_size(Bytes)));
};
template <class T, size_t Bytes>
using VectorOf = typename VectorOfBytes<T, Bytes>::type;

// The sum of a register's lanes, in registers: its halves added, then their halves, and so
// on (through memory, the lanes cost a stalled store-to-load forward each).
template <class T, size_t Bytes>
inline T lane_sum(VectorOf<T, Bytes> v) {
  if constexpr (Bytes == sizeof(T)) {
    return v[0];
  } else {
    VectorOf<T, Bytes / 2> lo, hi;
    std::memcpy(&lo, &v, Bytes / 2);
    std::memcpy(&hi, reinterpret_cast<const char*>(&v) + Bytes / 2, Bytes / 2);
    return lane_sum<T, Bytes / 2>(lo + hi);
  }
}

// x[0] + ... + x[n - 1] for a CSR row (tens of entries, typically): every chain of dependent
// adds kept short, since for such rows the latency of the adds, not their number, is the
// cost. Float and double add in two registers of partial sums, their lanes then in a tree;
// the tail and the other dtypes in four scalar partial sums.
template <class T>
inline T range_sum(const T* x, int64_t n) {
  int64_t j = 0;
  T head = T(0);
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
    using V = Vectorized<T>;
    if (n >= V::kSize) {
      V a0(T(0)), a1(T(0));
      for (; j + 2 * V::kSize <= n; j += 2 * V::kSize) {
        a0 = a0 + V::loadu(x + j);
        a1 = a1 + V::loadu(x + j + V::kSize);
      }
      if (j + V::kSize <= n) {
        a0 = a0 + V::loadu(x + j);
        j += V::kSize;
      }
      head = lane_sum<T, sizeof(typename V::Raw)>((a0 + a1).v);
    }
  }
  T a0 = T(0), a1 = T(0), a2 = T(0), a3 = T(0);
  for (; j + 4 <= n; j += 4) {
    a0 = static_cast<T>(a0 + x[j]);
    a1 = static_cast<T>(a1 + x[j + 1]);
    a2 = static_cast<T>(a2 + x[j + 2]);
    a3 = static_cast<T>(a3 + x[j + 3]);
  }
  if (j < n) a0 = static_cast<T>(a0 + x[j]);
  if (j + 1 < n) a1 = static_cast<T>(a1 + x[j + 1]);
  if (j + 2 < n) a2 = static_cast<T>(a2 + x[j + 2]);
  return static_cast<T>(head + static_cast<T>(static_cast<T>(a0 + a1) + static_cast<T>(a2 + a3)));
}

}  // namespace

void compressed_line_sum_kernel(const Tensor& compressed, const Tensor& values, const int64_t* slot,
                                const Tensor& sums) {
  const int64_t lines = compressed.numel() - 1;
  const int64_t nnz = values.numel();
  dispatch_index_type(compressed.dtype(), [&](auto it) {
    using I = typename decltype(it)::type;
    const I* cp = compressed.data_ptr<I>();
    dispatch_all_types(values.dtype(), "sum", [&](auto vt) {
      using T = typename decltype(vt)::type;
      const T* vp = values.data_ptr<T>();
      T* sp = sums.data_ptr<T>();
      parallel_for(0, lines, std::max<int64_t>(1, lines * 16384 / std::max<int64_t>(1, nnz)),
                   [&](int64_t i0, int64_t i1) {
        for (int64_t i = i0; i < i1; ++i) {
          if (cp[i + 1] == cp[i]) continue;
          sp[slot[i]] = range_sum(vp + cp[i], static_cast<int64_t>(cp[i + 1] - cp[i]));
        }
      });
    });
  });
}

EMBER_CPU_NAMESPACE_END
}  // namespace ember::native
