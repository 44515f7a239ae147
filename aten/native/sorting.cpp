// Sorting and selection along a dimension: the checks their backends share (sorting.h),
// and the composites: sort without `stable`, argsort, msort; meshgrid, cartesian_prod and
// combinations. The CPU kernels are in cpu/sorting.cpp and cpu/sorting_bins.cpp.
#include "aten/native/sorting.h"

#include <algorithm>
#include <vector>

#include "c10/util/DimVector.h"
#include "c10/util/Exception.h"
#include "ember/generated/ops/empty.h"
#include "ember/generated/ops/meshgrid.h"
#include "ember/generated/ops/reshape.h"
#include "ember/generated/ops/sort.h"
#include "ember/generated/ops/stack.h"
#include "ember/generated/ops/view.h"

namespace ember::native {

void check_sortable(const char* op, const Tensor& self, bool allow_bool) {
  EMBER_CHECK_NOT_IMPLEMENTED(!is_complex(self.scalar_type()), op, "(): not implemented for complex "
                              "tensors (", self.scalar_type(), ")");
  EMBER_CHECK_NOT_IMPLEMENTED(allow_bool || self.scalar_type() != ScalarType::Bool, op,
                              "(): not implemented for bool tensors");
}

bool check_searchsorted_args(const char* op, const Tensor& sorted_sequence, const Tensor& values,
                             bool right, std::optional<std::string_view> side,
                             const std::optional<Tensor>& sorter) {
  if (side) {
    EMBER_CHECK(*side == "left" || *side == "right", op, "(): side can only be 'left' or 'right', but got '",
                *side, "'");
    EMBER_CHECK(!(right && *side == "left"), op, "(): side and right can't be set to opposites, got side "
                "of left while right was True");
    right = *side == "right";
  }
  EMBER_CHECK(sorted_sequence.dim() >= 1, op, "(): boundaries tensor should have at least 1 dimension, "
              "but got a 0-d tensor");
  EMBER_CHECK_NOT_IMPLEMENTED(!is_complex(sorted_sequence.scalar_type()) && !is_complex(values.scalar_type()),
                              op, "(): complex tensors are not supported");
  const int64_t nd = sorted_sequence.dim();
  if (nd > 1) {
    EMBER_CHECK(values.dim() == nd, op, "(): boundaries tensor should be 1 dimension or the first N-1 "
                "dimensions of boundaries tensor and input value tensor must match, but we got "
                "boundaries tensor ", sorted_sequence.sizes(), " and input value tensor ", values.sizes());
    for (int64_t k = 0; k + 1 < nd; ++k) {
      EMBER_CHECK(values.sizes()[k] == sorted_sequence.sizes()[k], op, "(): the first N-1 dimensions "
                  "of boundaries tensor and input value tensor must match, but we got boundaries tensor ",
                  sorted_sequence.sizes(), " and input value tensor ", values.sizes());
    }
  }
  if (sorter) {
    EMBER_CHECK(sorter->scalar_type() == ScalarType::Long, op, "(): sorter must be a tensor of long "
                "dtype but got ", sorter->scalar_type());
    EMBER_CHECK(sorter->sizes() == sorted_sequence.sizes(), op, "(): boundary and sorter must have the "
                "same size, but got boundary tensor ", sorted_sequence.sizes(), " and got sorter tensor ",
                sorter->sizes());
  }
  return right;
}

// ---- sort without `stable`, argsort, msort (composite) ----------------------------------

std::tuple<Tensor, Tensor> sort(const Tensor& self, int64_t dim, bool descending) {
  return ember::sort(self, false, dim, descending);
}

Tensor argsort(const Tensor& self, int64_t dim, bool descending) {
  return std::get<1>(ember::sort(self, false, dim, descending));
}

Tensor argsort(const Tensor& self, bool stable, int64_t dim, bool descending) {
  return std::get<1>(ember::sort(self, stable, dim, descending));
}

Tensor msort(const Tensor& self) { return std::get<0>(ember::sort(self, false, 0, false)); }

// ---- meshgrid, cartesian_prod, combinations (composite) -------------------------------------

std::vector<Tensor> meshgrid(TensorList tensors, std::string_view indexing) {
  EMBER_CHECK(!tensors.empty(), "meshgrid(): expects a non-empty TensorList");
  EMBER_CHECK_VALUE(indexing == "ij" || indexing == "xy", "meshgrid(): indexing must be one of \"xy\" "
                    "or \"ij\", but received: ", indexing);
  for (size_t i = 0; i < tensors.size(); ++i) {
    EMBER_CHECK(tensors[i].dim() <= 1, "meshgrid(): expected 0D or 1D tensor in the tensor list but got: ",
                tensors[i].sizes());
    EMBER_CHECK(tensors[i].scalar_type() == tensors[0].scalar_type(), "meshgrid(): expects all tensors "
                "to have the same dtype");
  }
  const size_t n = tensors.size();
  const bool swap = indexing == "xy" && n >= 2;
  DimVector shape;
  for (const Tensor& t : tensors) shape.push_back(t.numel());
  if (swap) std::swap(shape[0], shape[1]);
  std::vector<Tensor> out;
  for (size_t i = 0; i < n; ++i) {
    size_t at = i;
    if (swap && i < 2) at = 1 - i;
    DimVector view(n, 1);
    view[at] = tensors[i].numel();
    out.push_back(ember::reshape(tensors[i], view).expand(shape));
  }
  return out;
}

Tensor cartesian_prod(TensorList tensors) {
  for (const Tensor& t : tensors) {
    EMBER_CHECK(t.dim() == 1, "cartesian_prod(): expect a 1D vector, but got shape ", t.sizes());
  }
  if (tensors.size() == 1) return tensors[0];
  std::vector<Tensor> grids = ember::meshgrid(tensors, "ij");
  for (Tensor& g : grids) g = g.flatten();
  return ember::stack(grids, 1);
}

Tensor combinations(const Tensor& self, int64_t r, bool with_replacement) {
  EMBER_CHECK(self.dim() == 1, "combinations(): expect a 1D vector, but got shape ", self.sizes());
  EMBER_CHECK(r >= 0, "combinations(): expect a non-negative number, but got ", r);
  if (r == 0) return ember::empty({0}, TensorOptions().dtype(self.scalar_type()));
  static const auto kernel = EMBER_CPU_KERNEL(combinations_indices_kernel_cpu);
  std::vector<Tensor> cols;
  for (const Tensor& c : kernel(self.numel(), r, with_replacement)) cols.push_back(self.index_select(0, c));
  return ember::stack(cols, 1);
}

}  // namespace ember::native
