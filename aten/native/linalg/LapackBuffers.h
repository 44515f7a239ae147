#pragma once
/// What the LAPACK kernels (lapack.cpp, lapack_factor.cpp) share: column-major buffers
/// (Note [LAPACK buffers]), batch shapes, LAPACK's integer sizes and the dtype switch.

#include <lapacke.h>

#include <algorithm>
#include <string>
#include <vector>

#include "aten/native/Dispatch.h"
#include "c10/core/Tensor.h"
#include "ember/generated/ops/empty.h"

namespace ember::native::lapack {

// Note [LAPACK buffers]
// LAPACK reads column-major matrices. A kernel copies each (..., r, c) input into a fresh
// contiguous (..., c, r) tensor (its transpose), whose matrices LAPACK reads in place as
// column-major r x c matrices with leading dimension r, and returns results as transposed
// views of such buffers: column-major results, as PyTorch returns them.

/// The batch dims of a (..., r, c) tensor.
inline std::vector<int64_t> batch_of(const Tensor& t) {
  return std::vector<int64_t>(t.sizes().begin(), t.sizes().end() - 2);
}

/// batch + (rows, cols).
inline std::vector<int64_t> with_matrix(std::vector<int64_t> batch, int64_t rows, int64_t cols) {
  batch.push_back(rows);
  batch.push_back(cols);
  return batch;
}

/// The product of sizes.
inline int64_t numel_of(const std::vector<int64_t>& sizes) {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  return n;
}

/// A fresh buffer holding t's matrices column-major (Note [LAPACK buffers]).
inline Tensor column_major(const Tensor& t) {
  std::vector<int64_t> sizes(t.sizes().begin(), t.sizes().end());
  std::swap(sizes[sizes.size() - 1], sizes[sizes.size() - 2]);
  Tensor buf = ember::empty(sizes, t.options());
  buf.copy_(t.transpose(-2, -1));
  return buf;
}

/// The matrices a buffer holds, as a (..., r, c) view (Note [LAPACK buffers]).
inline Tensor from_column_major(const Tensor& buf) { return buf.transpose(-2, -1); }

/// LAPACK sizes (LP64: 32-bit), at least 1 where LAPACK wants a leading dimension.
inline lapack_int li(int64_t v) { return static_cast<lapack_int>(v); }
inline lapack_int ld(int64_t v) { return static_cast<lapack_int>(std::max<int64_t>(v, 1)); }

/// f(TypeTag<float>) or f(TypeTag<double>) for a float32 or float64 dtype.
template <class F>
void dispatch_lapack(ScalarType t, F&& f) {
  if (t == ScalarType::Float) f(TypeTag<float>{});
  else f(TypeTag<double>{});
}

/// "(batch element 3): " where there is a batch, as PyTorch words LAPACK errors.
inline std::string batch_element(int64_t batch, int64_t b) {
  return batch > 1 ? "(batch element " + std::to_string(b) + "): " : "";
}

/// The Householder QR of a column-major m x n matrix in place (LAPACK's packed form).
inline lapack_int geqrf(lapack_int m, lapack_int n, float* a, float* tau) {
  return LAPACKE_sgeqrf(LAPACK_COL_MAJOR, m, n, a, ld(m), tau);
}
inline lapack_int geqrf(lapack_int m, lapack_int n, double* a, double* tau) {
  return LAPACKE_dgeqrf(LAPACK_COL_MAJOR, m, n, a, ld(m), tau);
}

}  // namespace ember::native::lapack
