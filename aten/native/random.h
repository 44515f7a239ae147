#pragma once
#include "c10/macros/Export.h"
/// Argument checks of the random ops, shared by their CPU and Meta kernels (random.cpp),
/// so both reject the same calls with the same messages before anything is written.

#include <cstdint>
#include <optional>
#include <vector>

#include "c10/core/Tensor.h"

namespace ember {
namespace native {

/// Rejects a tensor whose elements share memory (a stride 0 over a size > 1): an in-place
/// random op would give them one value, not independent draws.
void check_no_internal_overlap(const Tensor& self, const char* op);

/// uniform_: floating or complex self, finite from <= to within the dtype's range.
EMBER_API void check_uniform_args(const Tensor& self, double from, double to);
/// normal_: floating or complex self, std >= 0.
EMBER_API void check_normal_args(const Tensor& self, double stdev);

/// The integers random_ draws from: [from, from + range); range 0 means 2^64.
struct RandomRange {
  int64_t from;
  uint64_t range;
};
/// random_.from / random_.to: checks from < to (to: the dtype's largest integer + 1 when
/// absent) and that both ends fit the dtype; returns the range.
RandomRange random_from_to_range(const Tensor& self, int64_t from, std::optional<int64_t> to);
/// random_(): [0, max] for integral dtypes, [0, 2^digits] for floating ones.
RandomRange random_default_range(const Tensor& self);

/// bernoulli_.float: non-complex self, p in [0, 1].
EMBER_API void check_bernoulli_args(const Tensor& self, double p);
/// bernoulli_.Tensor: non-complex self, floating p on self's device, broadcastable to
/// self; returns p's strides broadcast to self's sizes (0 for broadcast dimensions).
std::vector<int64_t> check_bernoulli_tensor_args(const Tensor& self, const Tensor& p);

/// multinomial: shape and dtype checks; returns the result's sizes.
std::vector<int64_t> multinomial_result_sizes(const Tensor& self, int64_t num_samples,
                                              bool replacement);
/// randperm: n >= 0 and every value in [0, n) representable in dtype; returns the dtype.
ScalarType check_randperm_args(int64_t n, std::optional<ScalarType> dtype);

/// Mantissa digits of a floating dtype (11, 8, 24, 53); 0 otherwise.
int floating_digits(ScalarType t);

}  // namespace native
}  // namespace ember
