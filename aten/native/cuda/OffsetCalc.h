#pragma once
/// OffsetCalc: the CUDA elementwise launcher's index maths (Note [CUDA elementwise] in
/// Loops.cuh), apart from any CUDA header so that the host compiler builds it too and
/// test/cpp/aten/cuda_offsets_test.cpp checks it against TensorIterator's own walk.
#include <cstdint>

#include "aten/native/TensorIterator.h"
#include "c10/macros/HostDevice.h"
#include "c10/util/Exception.h"

namespace ember::native::cuda {

inline constexpr int kMaxDims = 16;

/// Per-operand byte offsets of a linear index over the iterator's shape.
template <int N, class Index>
struct OffsetCalc {
  int dims = 0;
  Index sizes[kMaxDims];
  Index strides[kMaxDims][N];

  EMBER_HOST_DEVICE void get(Index linear, Index (&off)[N]) const {
EMBER_UNROLL
    for (int k = 0; k < N; ++k) off[k] = 0;
    for (int d = 0; d < dims; ++d) {
      const Index i = linear % sizes[d];
      linear /= sizes[d];
EMBER_UNROLL
      for (int k = 0; k < N; ++k) off[k] += i * strides[d][k];
    }
  }
};

template <int N, class Index>
OffsetCalc<N, Index> offset_calc(const TensorIterator& it, const char* op) {
  OffsetCalc<N, Index> c;
  const IntArrayRef shape = it.shape();
  EMBER_CHECK(shape.size() <= static_cast<size_t>(kMaxDims), op, "(): CUDA kernels take at most ", kMaxDims,
              " dimensions after merging, but the operands need ", shape.size());
  c.dims = static_cast<int>(shape.size());
  for (int d = 0; d < c.dims; ++d) {
    c.sizes[d] = static_cast<Index>(shape[static_cast<size_t>(d)]);
    for (int k = 0; k < N; ++k) c.strides[d][k] = static_cast<Index>(it.strides(k)[static_cast<size_t>(d)]);
  }
  return c;
}

/// Whether every operand's furthest byte and the element count fit 32-bit index maths.
inline bool fits_32bit(const TensorIterator& it, int ntensors) {
  if (it.numel() >= (int64_t{1} << 31)) return false;
  for (int k = 0; k < ntensors; ++k) {
    int64_t span = 0;
    for (size_t d = 0; d < it.shape().size(); ++d) span += (it.shape()[d] - 1) * it.strides(k)[d];
    if (span >= (int64_t{1} << 32) - 16) return false;
  }
  return true;
}

}  // namespace ember::native::cuda
