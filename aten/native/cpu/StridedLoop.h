#pragma once
/// An elementwise pass over N operands of one shape, given per-operand strides in elements
/// (0 broadcasts). Until TensorIterator lands, this is what copy_ and fill_ loop with.

#include <utility>
#include <array>
#include <cstdint>

#include "aten/native/CpuCapability.h"
#include "c10/util/DimVector.h"

namespace ember::native {
EMBER_CPU_NAMESPACE_BEGIN

/// Drops size-1 dimensions, orders the rest by operand 0's strides (largest outermost) and
/// merges neighbours that every operand walks as one, so the innermost run is as long as
/// the layouts allow. run() then calls the body once per innermost run.
template <size_t N>
class StridedLoop {
 public:
  StridedLoop(IntArrayRef sizes, const std::array<IntArrayRef, N>& strides) {
    numel_ = 1;
    for (int64_t s : sizes) numel_ *= s;
    DimVector order;
    for (size_t d = 0; d < sizes.size(); ++d) {
      if (sizes[d] != 1) order.push_back(static_cast<int64_t>(d));
    }
    auto abs_stride = [&](size_t op, int64_t d) {
      int64_t s = strides[op][d];
      return s < 0 ? -s : s;
    };
    auto outer = [&](int64_t a, int64_t b) {
      for (size_t op = 0; op < N; ++op) {
        if (abs_stride(op, a) != abs_stride(op, b)) return abs_stride(op, a) > abs_stride(op, b);
      }
      return false;
    };
    // A stable insertion sort: a handful of dimensions, and no temporary buffer.
    for (size_t i = 1; i < order.size(); ++i) {
      for (size_t j = i; j > 0 && outer(order[j], order[j - 1]); --j) {
        std::swap(order[j], order[j - 1]);
      }
    }
    for (int64_t d : order) {
      const size_t k = sizes_.size();
      bool merge = k > 0;
      for (size_t op = 0; op < N && merge; ++op) {
        merge = strides_[op][k - 1] == strides[op][d] * sizes[d];
      }
      if (merge) {
        sizes_[k - 1] *= sizes[d];
        for (size_t op = 0; op < N; ++op) strides_[op][k - 1] = strides[op][d];
      } else {
        sizes_.push_back(sizes[d]);
        for (size_t op = 0; op < N; ++op) strides_[op].push_back(strides[op][d]);
      }
    }
  }

  int64_t numel() const { return numel_; }

  /// Calls body(offsets, inner_strides, n) for each innermost run of n elements; offsets
  /// (in elements, per operand) locate the run's first element, inner_strides step in it.
  template <class F>
  void run(F&& body) const {
    if (numel_ == 0) return;
    using Arr = std::array<int64_t, N>;
    Arr offsets{};
    Arr inner{};
    const size_t dims = sizes_.size();
    if (dims == 0) {
      for (size_t op = 0; op < N; ++op) inner[op] = 1;
      body(offsets, inner, int64_t{1});
      return;
    }
    for (size_t op = 0; op < N; ++op) inner[op] = strides_[op][dims - 1];
    const int64_t n = sizes_[dims - 1];
    DimVector counter(dims, 0);
    while (true) {
      body(offsets, inner, n);
      // Advance the odometer over the outer dimensions.
      size_t d = dims - 1;
      while (d > 0) {
        --d;
        if (++counter[d] < sizes_[d]) {
          for (size_t op = 0; op < N; ++op) offsets[op] += strides_[op][d];
          break;
        }
        for (size_t op = 0; op < N; ++op) offsets[op] -= strides_[op][d] * (sizes_[d] - 1);
        counter[d] = 0;
        if (d == 0) return;
      }
      if (dims == 1) return;
    }
  }

 private:
  int64_t numel_ = 0;
  DimVector sizes_;
  std::array<DimVector, N> strides_;
};

EMBER_CPU_NAMESPACE_END
}  // namespace ember::native
