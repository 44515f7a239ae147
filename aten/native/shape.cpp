// Shape ops that only change a tensor's geometry: view, select, transpose, t, expand, unsqueeze.
#include "ember/generated/NativeFunctions.h"
#include "c10/util/DimVector.h"
#include "c10/util/Exception.h"

namespace ember {
namespace {

// The sizes a view asks for, with one -1 inferred from numel, written into `out`.
void infer_view_size(IntArrayRef size, int64_t numel, SizesAndStrides& out) {
  int64_t known = 1;
  int64_t infer_at = -1;
  for (size_t i = 0; i < size.size(); ++i) {
    if (size[i] == -1) {
      EMBER_CHECK_VALUE(infer_at < 0, "view(): expected at most one -1 in 'size', but got ", size);
      infer_at = static_cast<int64_t>(i);
    } else {
      EMBER_CHECK_VALUE(size[i] >= 0, "view(): expected 'size' to hold sizes >= -1, but got ", size);
      known *= size[i];
    }
  }
  if (infer_at >= 0) {
    EMBER_CHECK_VALUE(known != 0 && numel % known == 0, "view(): shape ", size,
                      " is invalid for input of size ", numel);
  } else {
    EMBER_CHECK_VALUE(known == numel, "view(): shape ", size, " is invalid for input of size ", numel);
  }
  out.resize(size.size());
  int64_t* sizes = out.sizes_data();
  for (size_t i = 0; i < size.size(); ++i) sizes[i] = size[i];
  if (infer_at >= 0) sizes[infer_at] = numel / known;
}

// Strides for viewing `self` as `sizes` without copying, if possible (PyTorch's
// computeStride: chunks of contiguous dims of the old shape map onto the new one).
bool view_strides(IntArrayRef old_sizes, IntArrayRef old_strides, int64_t numel, SizesAndStrides& s) {
  const size_t new_dim = s.dim();
  int64_t* new_strides = s.strides_data();
  const int64_t* new_sizes = s.sizes_data();
  if (numel == 0 || old_sizes.empty()) {
    int64_t stride = 1;
    for (size_t i = new_dim; i-- > 0;) {
      new_strides[i] = stride;
      stride *= new_sizes[i] > 1 ? new_sizes[i] : 1;
    }
    return true;
  }
  int64_t view_d = static_cast<int64_t>(new_dim) - 1;
  int64_t chunk_base_stride = old_strides.back();
  int64_t tensor_numel = 1, view_numel = 1;
  for (int64_t d = static_cast<int64_t>(old_sizes.size()) - 1; d >= 0; --d) {
    tensor_numel *= old_sizes[d];
    if (d == 0 || (old_sizes[d - 1] != 1 && old_strides[d - 1] != tensor_numel * chunk_base_stride)) {
      while (view_d >= 0 && (view_numel < tensor_numel || new_sizes[view_d] == 1)) {
        new_strides[view_d] = view_numel * chunk_base_stride;
        view_numel *= new_sizes[view_d];
        --view_d;
      }
      if (view_numel != tensor_numel) return false;
      if (d > 0) {
        chunk_base_stride = old_strides[d - 1];
        tensor_numel = 1;
        view_numel = 1;
      }
    }
  }
  return view_d == -1;
}

}  // namespace

namespace native {

Tensor view_strided(const Tensor& self, IntArrayRef size) {
  SizesAndStrides geometry;
  infer_view_size(size, self.numel(), geometry);
  EMBER_CHECK(view_strides(self.sizes(), self.strides(), self.numel(), geometry),
              "view(): size ", size, " is not compatible with the input's sizes ", self.sizes(),
              " and strides ", self.strides(),
              " (at least one dimension spans two contiguous subspaces); use reshape() instead");
  TensorImpl* src = self.impl();
  auto impl = make_intrusive<TensorImpl>(src->storage(), src->key_set(), src->dtype());
  impl->set_sizes_and_strides(geometry.sizes(), geometry.strides(), src->storage_offset());
  impl->share_version_counter(*src);
  return Tensor(std::move(impl));
}

namespace {

// A view of self's storage with other sizes and strides (same offset).
Tensor alias_of(const Tensor& self, IntArrayRef sizes, IntArrayRef strides) {
  TensorImpl* src = self.impl();
  auto impl = make_intrusive<TensorImpl>(src->storage(), src->key_set(), src->dtype());
  impl->set_sizes_and_strides(sizes, strides, src->storage_offset());
  impl->share_version_counter(*src);
  return Tensor(std::move(impl));
}

}  // namespace

Tensor select_strided(const Tensor& self, int64_t dim, int64_t index) {
  const int64_t ndim = self.dim();
  EMBER_CHECK_INDEX(ndim > 0, "select(): cannot be applied to a 0-dim tensor");
  EMBER_CHECK_INDEX(dim >= -ndim && dim < ndim, "select(): dimension out of range (expected to "
                    "be in range of [", -ndim, ", ", ndim - 1, "], but got ", dim, ")");
  if (dim < 0) dim += ndim;
  const int64_t size = self.sizes()[dim];
  EMBER_CHECK_INDEX(index >= -size && index < size, "select(): index ", index, " out of range "
                    "for tensor of size ", self.sizes(), " at dimension ", dim);
  if (index < 0) index += size;
  TensorImpl* src = self.impl();
  DimVector sizes, strides;
  for (int64_t d = 0; d < ndim; ++d) {
    if (d == dim) continue;
    sizes.push_back(self.sizes()[d]);
    strides.push_back(self.strides()[d]);
  }
  auto impl = make_intrusive<TensorImpl>(src->storage(), src->key_set(), src->dtype());
  impl->set_sizes_and_strides(sizes, strides, src->storage_offset() + index * self.strides()[dim]);
  impl->share_version_counter(*src);
  return Tensor(std::move(impl));
}

Tensor transpose_strided(const Tensor& self, int64_t dim0, int64_t dim1) {
  const int64_t ndim = self.dim();
  const int64_t lo = ndim == 0 ? -1 : -ndim, hi = ndim == 0 ? 0 : ndim - 1;
  for (int64_t d : {dim0, dim1}) {
    EMBER_CHECK_INDEX(d >= lo && d <= hi, "transpose(): Dimension out of range (expected to be "
                      "in range of [", lo, ", ", hi, "], but got ", d, ")");
  }
  if (ndim == 0) return alias_of(self, self.sizes(), self.strides());
  if (dim0 < 0) dim0 += ndim;
  if (dim1 < 0) dim1 += ndim;
  DimVector sizes(self.sizes()), strides(self.strides());
  std::swap(sizes[static_cast<size_t>(dim0)], sizes[static_cast<size_t>(dim1)]);
  std::swap(strides[static_cast<size_t>(dim0)], strides[static_cast<size_t>(dim1)]);
  return alias_of(self, sizes, strides);
}

Tensor t_strided(const Tensor& self) {
  EMBER_CHECK_VALUE(self.dim() <= 2, "t(): expects a tensor with <= 2 dimensions, but self is ",
                    self.dim(), "D");
  return transpose_strided(self, 0, self.dim() < 2 ? 0 : 1);
}

Tensor expand_strided(const Tensor& self, IntArrayRef size, bool implicit) {
  (void)implicit;
  const int64_t ndim = self.dim();
  const int64_t n = static_cast<int64_t>(size.size());
  EMBER_CHECK(n >= ndim, "expand(): the number of sizes provided (", n, ") must be greater or "
              "equal to the number of dimensions in the tensor (", ndim, ")");
  DimVector sizes(static_cast<size_t>(n)), strides(static_cast<size_t>(n));
  for (int64_t i = n - 1; i >= 0; --i) {
    const int64_t d = i - (n - ndim);
    int64_t target = size[i];
    if (d < 0) {
      EMBER_CHECK(target >= 0, "expand(): the expanded size of the tensor (", target, ") isn't "
                  "allowed in a leading, non-existing dimension ", i);
      sizes[i] = target;
      strides[i] = 0;
      continue;
    }
    const int64_t have = self.sizes()[d];
    if (target == -1) target = have;
    EMBER_CHECK(target >= 0, "expand(): expected sizes >= -1, but got ", target, " at dimension ", i);
    if (have == target) {
      sizes[i] = have;
      strides[i] = self.strides()[d];
    } else {
      EMBER_CHECK(have == 1, "expand(): the expanded size of the tensor (", target, ") must match "
                  "the existing size (", have, ") at non-singleton dimension ", i, ".  Target sizes: ",
                  size, ".  Tensor sizes: ", self.sizes());
      sizes[i] = target;
      strides[i] = 0;
    }
  }
  return alias_of(self, sizes, strides);
}

Tensor unsqueeze_strided(const Tensor& self, int64_t dim) {
  const int64_t ndim = self.dim();
  EMBER_CHECK_INDEX(dim >= -ndim - 1 && dim <= ndim, "unsqueeze(): Dimension out of range (expected "
                    "to be in range of [", -ndim - 1, ", ", ndim, "], but got ", dim, ")");
  if (dim < 0) dim += ndim + 1;
  DimVector sizes(self.sizes()), strides(self.strides());
  const int64_t stride = dim >= ndim ? 1 : sizes[static_cast<size_t>(dim)] * strides[static_cast<size_t>(dim)];
  sizes.insert(static_cast<size_t>(dim), 1);
  strides.insert(static_cast<size_t>(dim), stride);
  return alias_of(self, sizes, strides);
}

}  // namespace native
}  // namespace ember
