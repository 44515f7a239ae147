#pragma once
/// channels_last (NHWC) and channels_last_3d (NDHWC) layouts of 4-d and 5-d tensors, with
/// PyTorch's stride and contiguity rules.

#include <utility>

#include "c10/core/MemoryFormat.h"
#include "c10/util/DimVector.h"
#include "c10/util/Exception.h"

namespace ember::native {

/// The dims of a memory format from innermost to outermost: channels, then the spatial
/// dims from last to first, then the batch.
inline DimVector channels_last_order(MemoryFormat f) {
  return f == MemoryFormat::ChannelsLast ? DimVector{1, 3, 2, 0} : DimVector{1, 4, 3, 2, 0};
}

/// Checks the rank a channels-last format needs (4 for channels_last, 5 for _3d).
inline void check_channels_last_rank(const char* op, MemoryFormat f, size_t ndim) {
  const size_t need = f == MemoryFormat::ChannelsLast ? 4 : 5;
  EMBER_CHECK(ndim == need, op, "(): required rank ", need, " tensor to use ",
              memory_format_name(f), " format, but got a ", ndim, "-d tensor");
}

/// The strides of a dense tensor of `sizes` in format f (contiguous, channels_last or _3d).
inline DimVector strides_for(IntArrayRef sizes, MemoryFormat f) {
  DimVector strides(sizes.size(), 1);
  if (f == MemoryFormat::ChannelsLast || f == MemoryFormat::ChannelsLast3d) {
    int64_t s = 1;
    for (int64_t d : channels_last_order(f)) {
      strides[d] = s;
      s *= sizes[d];
    }
    return strides;
  }
  int64_t s = 1;
  for (size_t d = sizes.size(); d-- > 0;) {
    strides[d] = s;
    s *= sizes[d] > 1 ? sizes[d] : 1;
  }
  return strides;
}

/// PyTorch's is_non_overlapping_and_dense: some permutation of the dimensions of (sizes,
/// strides) is contiguous (size-1 dimensions may have any stride; an empty tensor is dense).
inline bool is_non_overlapping_and_dense(IntArrayRef sizes, IntArrayRef strides) {
  for (int64_t s : sizes) {
    if (s == 0) return true;
  }
  DimVector perm(sizes.size());
  for (size_t i = 0; i < perm.size(); ++i) perm[i] = static_cast<int64_t>(i);
  // Size-0/1 dimensions last; the rest by increasing stride (a stable insertion sort: a
  // handful of dimensions, and no temporary buffer).
  auto before = [&](int64_t a, int64_t b) {
    if ((sizes[a] < 2) != (sizes[b] < 2)) return sizes[b] < 2;
    return sizes[a] >= 2 && strides[a] < strides[b];
  };
  for (size_t i = 1; i < perm.size(); ++i) {
    for (size_t j = i; j > 0 && before(perm[j], perm[j - 1]); --j) std::swap(perm[j], perm[j - 1]);
  }
  int64_t expected = 1;
  for (int64_t d : perm) {
    if (sizes[d] < 2) return true;
    if (strides[d] != expected) return false;
    expected *= sizes[d];
  }
  return true;
}

/// Whether (sizes, strides) is dense in format f (size-1 dims may have any stride).
inline bool is_contiguous_in(IntArrayRef sizes, IntArrayRef strides, MemoryFormat f) {
  if (f == MemoryFormat::ChannelsLast || f == MemoryFormat::ChannelsLast3d) {
    if (sizes.size() != (f == MemoryFormat::ChannelsLast ? 4u : 5u)) return false;
    int64_t expected = 1;
    for (int64_t d : channels_last_order(f)) {
      if (sizes[d] == 1) continue;
      if (strides[d] != expected) return false;
      expected *= sizes[d];
    }
    return true;
  }
  int64_t expected = 1;
  for (size_t d = sizes.size(); d-- > 0;) {
    if (sizes[d] == 1) continue;
    if (strides[d] != expected) return false;
    expected *= sizes[d];
  }
  return true;
}

}  // namespace ember::native
