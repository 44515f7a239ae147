// Indexing along one dimension: repeat_interleave (composite, built on index_select). The
// kernels of index_select, index_add, index_copy and index_fill, and repeat_interleave's
// loop, are in cpu/indexing.cpp.
#include "aten/native/indexing.h"

#include "aten/native/DimUtils.h"
#include "c10/util/Exception.h"
#include "ember/generated/ops/flatten.h"
#include "ember/generated/ops/index_select.h"
#include "ember/generated/ops/repeat_interleave_native.h"
#include "ember/generated/ops/scalar_tensor.h"

namespace ember::native {

// ---- repeat_interleave (composite) ------------------------------------------------------

Tensor repeat_interleave(const Tensor& repeats, std::optional<int64_t> output_size) {
  EMBER_CHECK(repeats.dim() == 1, "repeat_interleave(): expected 'repeats' to be a 1-d tensor, but "
              "it has ", repeats.dim(), " dimensions");
  EMBER_CHECK_TYPE(repeats.scalar_type() == ScalarType::Long || repeats.scalar_type() == ScalarType::Int,
                   "repeat_interleave(): expected 'repeats' of dtype int64 or int32, but got ",
                   repeats.scalar_type());
  static const auto kernel = EMBER_CPU_KERNEL(repeat_interleave_kernel_cpu);
  return kernel(repeats, output_size);
}

Tensor repeat_interleave(const Tensor& self, const Tensor& repeats, std::optional<int64_t> dim,
                         std::optional<int64_t> output_size) {
  Tensor input = dim ? self : ember::flatten(self, 0, -1);
  const int64_t d = dim ? wrap_dim("repeat_interleave", "dim", *dim, self.dim()) : 0;
  const int64_t size = input.dim() == 0 ? 1 : input.sizes()[d];
  Tensor reps = repeats;
  EMBER_CHECK(repeats.dim() <= 1, "repeat_interleave(): expected 'repeats' to be 0-d or 1-d, but it "
              "has ", repeats.dim(), " dimensions");
  if (repeats.numel() == 1) {
    reps = repeats.reshape({1}).expand({size});
  } else {
    EMBER_CHECK(repeats.numel() == size, "repeat_interleave(): 'repeats' must have the same size as "
                "the input along dim, but got repeats.size(0) = ", repeats.numel(), " and input.size(",
                d, ") = ", size);
  }
  const Tensor index = native::repeat_interleave(reps.reshape({-1}), output_size);
  return ember::index_select(input, d, index);
}

Tensor repeat_interleave(const Tensor& self, int64_t repeats, std::optional<int64_t> dim,
                         std::optional<int64_t> output_size) {
  return native::repeat_interleave(self, ember::scalar_tensor(repeats, TensorOptions().dtype(ScalarType::Long)),
                           dim, output_size);
}

}  // namespace ember::native
