#pragma once
/// Helpers the indexing, masking and sorting kernels share: element moves by size, element
/// offsets of a range of dims, and a 0-d tensor seen as 1-d (Note [Index loops]).

#include <array>
#include <cstdint>
#include <vector>

#include "aten/native/Dispatch.h"
#include "c10/core/Tensor.h"
#include "c10/util/DimVector.h"

namespace ember::native {

/// Calls f with an unsigned type of `size` bytes (16: two uint64), for kernels that only
/// move elements.
template <class F>
void dispatch_by_size(size_t size, F&& f) {
  switch (size) {
    case 1: return f(TypeTag<uint8_t>{});
    case 2: return f(TypeTag<uint16_t>{});
    case 4: return f(TypeTag<uint32_t>{});
    case 8: return f(TypeTag<uint64_t>{});
    default: return f(TypeTag<std::array<uint64_t, 2>>{});
  }
}

/// The element offsets of every position of dims [begin, end) of (sizes, strides), row-major.
inline std::vector<int64_t> dim_offsets(IntArrayRef sizes, IntArrayRef strides, int64_t begin, int64_t end) {
  std::vector<int64_t> offsets{0};
  for (int64_t d = begin; d < end; ++d) {
    std::vector<int64_t> next;
    next.reserve(offsets.size() * static_cast<size_t>(sizes[d]));
    for (int64_t o : offsets) {
      for (int64_t i = 0; i < sizes[d]; ++i) next.push_back(o + i * strides[d]);
    }
    offsets.swap(next);
  }
  return offsets;
}

/// A 0-d tensor's sizes and strides as those of a 1-d tensor of one element.
inline DimVector sizes_1d(const Tensor& t) { return t.dim() == 0 ? DimVector{1} : DimVector(t.sizes()); }
inline DimVector strides_1d(const Tensor& t) { return t.dim() == 0 ? DimVector{1} : DimVector(t.strides()); }

}  // namespace ember::native
