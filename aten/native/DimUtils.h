#pragma once
/// Dimension arguments: wrapping negative dims with errors that name the op and argument.

#include <cstdint>

#include "c10/util/DimVector.h"
#include "c10/util/Exception.h"

namespace ember::native {

/// dim wrapped into [0, ndim) (a 0-d tensor takes 0 and -1); IndexError naming op and arg
/// ("permute(): argument 'dims' (position 1): Dimension out of range (expected to be in
/// range of [-2, 1], but got 2)") otherwise.
inline int64_t wrap_dim(const char* op, const char* arg, int64_t dim, int64_t ndim) {
  const int64_t n = ndim > 0 ? ndim : 1;
  EMBER_CHECK_INDEX(dim >= -n && dim < n, op, "(): '", arg, "': Dimension out of range (expected "
                    "to be in range of [", -n, ", ", n - 1, "], but got ", dim, ")");
  return dim < 0 ? dim + n : dim;
}

/// Each of dims wrapped (as wrap_dim), refusing a dimension named twice.
inline DimVector wrap_dims(const char* op, const char* arg, IntArrayRef dims, int64_t ndim) {
  DimVector out;
  uint64_t seen = 0;
  for (int64_t d : dims) {
    const int64_t w = wrap_dim(op, arg, d, ndim);
    EMBER_CHECK(!(seen >> w & 1), op, "(): '", arg, "': dim ", w, " appears multiple times in the "
                "list of dims ", dims);
    seen |= uint64_t(1) << w;
    out.push_back(w);
  }
  return out;
}

/// Refuses a tensor to be written whose elements share memory (a stride-0 dim of size > 1),
/// with PyTorch's message.
inline void check_no_internal_overlap(const char* op, IntArrayRef sizes, IntArrayRef strides) {
  for (int64_t s : sizes) {
    if (s == 0) return;  // no elements
  }
  for (size_t d = 0; d < sizes.size(); ++d) {
    EMBER_CHECK(sizes[d] < 2 || strides[d] != 0, op, "(): unsupported operation: more than one "
                "element of the written-to tensor refers to a single memory location. Please "
                "clone() the tensor before performing the operation.");
  }
}

/// Whether dims [begin, end) of (sizes, strides) lay their elements out densely in
/// row-major order (size-1 dims ignored): their offsets are 0, 1, 2, ...
inline bool is_row_major_run(IntArrayRef sizes, IntArrayRef strides, size_t begin, size_t end) {
  int64_t expected = 1;
  for (size_t d = end; d-- > begin;) {
    if (sizes[d] == 1) continue;
    if (strides[d] != expected) return false;
    expected *= sizes[d];
  }
  return true;
}

/// A contiguous tensor seen along one dim: `outer` runs of `n` steps, each step `inner`
/// elements apart (the walk of the per-dim kernels: softmax, the scans).
struct DimWalk {
  int64_t outer = 1, n = 1, inner = 1;
};

inline DimWalk dim_walk(IntArrayRef sizes, int64_t dim) {
  DimWalk w;
  for (int64_t d = 0; d < static_cast<int64_t>(sizes.size()); ++d) {
    if (d < dim) w.outer *= sizes[d];
    else if (d == dim) w.n = sizes[d];
    else w.inner *= sizes[d];
  }
  return w;
}

}  // namespace ember::native
