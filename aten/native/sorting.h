#pragma once
/// What the backends of the sorting family share (sorting.cpp): the dtype check of the
/// sorting and selection ops and searchsorted's argument checks, so every backend rejects
/// the same calls with the same messages; and the CPU kernel the combinations composite
/// calls directly. The CPU kernels are in cpu/sorting.cpp (sort, topk, kthvalue, median,
/// mode, unique) and cpu/sorting_bins.cpp (searchsorted, bucketize, histc, bincount).

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "aten/native/CpuCapability.h"
#include "c10/core/Tensor.h"

namespace ember::native {

/// Rejects complex self (NotImplementedError naming `op`), and bool self unless allow_bool.
void check_sortable(const char* op, const Tensor& self, bool allow_bool = true);

/// Checks searchsorted's (and bucketize's) side, the boundaries' and values' shapes and
/// dtypes and the sorter; returns `right` as side (when given) decides it.
bool check_searchsorted_args(const char* op, const Tensor& sorted_sequence, const Tensor& values,
                             bool right, std::optional<std::string_view> side,
                             const std::optional<Tensor>& sorter);

/// The positions combinations() takes from a 1-d tensor of n elements: r int64 columns,
/// one row per combination, in lexicographic order (r >= 1).
EMBER_DECLARE_CPU_KERNEL(std::vector<Tensor>, combinations_indices_kernel_cpu,
                         (int64_t n, int64_t r, bool with_replacement))

}  // namespace ember::native
