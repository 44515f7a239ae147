// Views: ops that only change a tensor's geometry (sizes, strides, offset) over the same
// storage and version counter, and the composite shape ops written with them.
#include <algorithm>

#include "aten/TensorFactories.h"
#include "aten/native/DimUtils.h"
#include "c10/util/DimVector.h"
#include "c10/util/Exception.h"
#include "ember/generated/ops/atleast_1d_native.h"
#include "ember/generated/ops/atleast_2d_native.h"
#include "ember/generated/ops/atleast_3d_native.h"
#include "ember/generated/ops/cat.h"
#include "ember/generated/ops/clamp.h"
#include "ember/generated/ops/diag_embed_native.h"
#include "ember/generated/ops/diagonal.h"
#include "ember/generated/ops/empty.h"
#include "ember/generated/ops/flip.h"
#include "ember/generated/ops/movedim_native.h"
#include "ember/generated/ops/permute.h"
#include "ember/generated/ops/reshape.h"
#include "ember/generated/ops/select.h"
#include "ember/generated/ops/slice.h"
#include "ember/generated/ops/split_native.h"
#include "ember/generated/ops/split_with_sizes_native.h"
#include "ember/generated/ops/transpose.h"
#include "ember/generated/ops/transpose_native.h"
#include "ember/generated/ops/unsqueeze.h"
#include "ember/generated/ops/view.h"
#include "ember/generated/ops/zeros.h"

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


namespace {

// A view of self's storage with other sizes, strides, offset and (view_as_real/complex) dtype.
Tensor make_alias(const Tensor& self, IntArrayRef sizes, IntArrayRef strides, int64_t offset,
                  ScalarType dtype) {
  TensorImpl* src = self.impl();
  auto impl = make_intrusive<TensorImpl>(src->storage(), src->key_set(), dtype);
  impl->set_sizes_and_strides(sizes, strides, offset);
  impl->share_version_counter(*src);
  return Tensor(std::move(impl));
}

Tensor make_alias(const Tensor& self, IntArrayRef sizes, IntArrayRef strides, int64_t offset) {
  return make_alias(self, sizes, strides, offset, self.scalar_type());
}

}  // namespace

Tensor as_strided_strided(const Tensor& self, IntArrayRef size, IntArrayRef stride,
                          std::optional<int64_t> storage_offset) {
  EMBER_CHECK(size.size() == stride.size(), "as_strided(): mismatch in length of 'size' (",
              size.size(), ") and 'stride' (", stride.size(), ")");
  const int64_t offset = storage_offset.value_or(self.storage_offset());
  EMBER_CHECK(offset >= 0, "as_strided(): expected 'storage_offset' >= 0, but got ", offset);
  int64_t extent = 1;  // elements the view reaches past its offset
  bool empty = false;
  for (size_t i = 0; i < size.size(); ++i) {
    EMBER_CHECK(size[i] >= 0, "as_strided(): expected 'size' to hold non-negative sizes, but got ", size);
    EMBER_CHECK(stride[i] >= 0, "as_strided(): negative strides are not supported, but 'stride' is ",
                stride);
    empty = empty || size[i] == 0;
    extent += (size[i] - 1) * stride[i];
  }
  const Storage& storage = self.impl()->storage();
  if (!empty && storage) {
    const int64_t item = static_cast<int64_t>(itemsize(self.scalar_type()));
    const int64_t need = (offset + extent) * item;
    EMBER_CHECK(need <= static_cast<int64_t>(storage->nbytes()), "as_strided(): sizes ", size,
                ", strides ", stride, " and storage offset ", offset, " need a storage of ", need,
                " bytes, but self's storage has ", storage->nbytes(), " bytes");
  }
  return make_alias(self, size, stride, offset);
}

Tensor permute_strided(const Tensor& self, IntArrayRef dims) {
  const int64_t ndim = self.dim();
  EMBER_CHECK(static_cast<int64_t>(dims.size()) == ndim, "permute(): the number of dims in 'dims' (",
              dims.size(), ") does not match the input's number of dimensions (", ndim, ")");
  const DimVector order = wrap_dims("permute", "dims", dims, ndim);
  DimVector sizes(static_cast<size_t>(ndim)), strides(static_cast<size_t>(ndim));
  for (size_t i = 0; i < order.size(); ++i) {
    sizes[i] = self.sizes()[order[i]];
    strides[i] = self.strides()[order[i]];
  }
  return make_alias(self, sizes, strides, self.storage_offset());
}

namespace {

// self without the dimensions of size 1 marked in mask.
Tensor squeeze_mask(const Tensor& self, uint64_t mask) {
  DimVector sizes, strides;
  for (int64_t d = 0; d < self.dim(); ++d) {
    if ((mask >> d & 1) && self.sizes()[d] == 1) continue;
    sizes.push_back(self.sizes()[d]);
    strides.push_back(self.strides()[d]);
  }
  return make_alias(self, sizes, strides, self.storage_offset());
}

}  // namespace

Tensor squeeze_strided(const Tensor& self) { return squeeze_mask(self, ~uint64_t(0)); }

Tensor squeeze_strided(const Tensor& self, int64_t dim) {
  const int64_t d = wrap_dim("squeeze", "dim", dim, self.dim());
  return squeeze_mask(self, self.dim() == 0 ? 0 : uint64_t(1) << d);
}

Tensor squeeze_strided(const Tensor& self, IntArrayRef dims) {
  uint64_t mask = 0;
  for (int64_t d : wrap_dims("squeeze", "dim", dims, self.dim())) mask |= uint64_t(1) << d;
  return squeeze_mask(self, self.dim() == 0 ? 0 : mask);
}

Tensor slice_strided(const Tensor& self, int64_t dim, std::optional<int64_t> start,
                     std::optional<int64_t> end, int64_t step) {
  EMBER_CHECK_INDEX(self.dim() > 0, "slice(): cannot be applied to a 0-dim tensor");
  EMBER_CHECK_VALUE(step > 0, "slice(): expected 'step' > 0 (negative steps are not supported), "
                    "but got ", step);
  const int64_t d = wrap_dim("slice", "dim", dim, self.dim());
  const int64_t size = self.sizes()[d];
  // Python's clamping: negative bounds count from the end; out-of-range bounds clamp.
  auto clamp = [size](int64_t i) {
    if (i < 0) i += size;
    return i < 0 ? 0 : (i > size ? size : i);
  };
  const int64_t lo = start ? clamp(*start) : 0;
  const int64_t hi = std::max(lo, end ? clamp(*end) : size);
  DimVector sizes(self.sizes()), strides(self.strides());
  sizes[d] = (hi - lo + step - 1) / step;
  strides[d] *= step;
  return make_alias(self, sizes, strides, self.storage_offset() + lo * self.strides()[d]);
}

Tensor diagonal_strided(const Tensor& self, int64_t offset, int64_t dim1, int64_t dim2) {
  const int64_t ndim = self.dim();
  EMBER_CHECK_INDEX(ndim >= 2, "diagonal(): expected a tensor of at least 2 dimensions, but self "
                    "is ", ndim, "-d");
  const int64_t d1 = wrap_dim("diagonal", "dim1", dim1, ndim);
  const int64_t d2 = wrap_dim("diagonal", "dim2", dim2, ndim);
  EMBER_CHECK(d1 != d2, "diagonal(): 'dim1' and 'dim2' cannot be identical, but both are ", d1);
  int64_t start = self.storage_offset();
  int64_t n;
  if (offset >= 0) {
    n = std::max<int64_t>(std::min(self.sizes()[d1], self.sizes()[d2] - offset), 0);
    if (n > 0) start += offset * self.strides()[d2];
  } else {
    n = std::max<int64_t>(std::min(self.sizes()[d1] + offset, self.sizes()[d2]), 0);
    if (n > 0) start -= offset * self.strides()[d1];
  }
  DimVector sizes, strides;
  for (int64_t d = 0; d < ndim; ++d) {
    if (d == d1 || d == d2) continue;
    sizes.push_back(self.sizes()[d]);
    strides.push_back(self.strides()[d]);
  }
  sizes.push_back(n);
  strides.push_back(self.strides()[d1] + self.strides()[d2]);
  return make_alias(self, sizes, strides, start);
}

Tensor unfold_strided(const Tensor& self, int64_t dimension, int64_t size, int64_t step) {
  const int64_t ndim = self.dim();
  const int64_t d = wrap_dim("unfold", "dimension", dimension, ndim);
  const int64_t len = ndim == 0 ? 1 : self.sizes()[d];
  EMBER_CHECK(size >= 0, "unfold(): expected 'size' >= 0, but got ", size);
  EMBER_CHECK(size <= len, "unfold(): 'size' is ", size, " but the size of dimension ", d, " is ", len);
  EMBER_CHECK(step > 0, "unfold(): expected 'step' > 0, but got ", step);
  DimVector sizes(self.sizes()), strides(self.strides());
  if (ndim == 0) {
    sizes.push_back(size);
    strides.push_back(1);
  } else {
    sizes[d] = (len - size) / step + 1;
    strides[d] *= step;
    sizes.push_back(size);
    strides.push_back(self.strides()[d]);
  }
  return make_alias(self, sizes, strides, self.storage_offset());
}

Tensor alias_strided(const Tensor& self) {
  return make_alias(self, self.sizes(), self.strides(), self.storage_offset());
}

Tensor view_as_real_strided(const Tensor& self) {
  const ScalarType t = self.scalar_type();
  EMBER_CHECK(is_complex(t), "view_as_real(): expected a complex tensor, but self is ", t);
  DimVector sizes(self.sizes()), strides(self.strides());
  for (int64_t& s : strides) s *= 2;
  sizes.push_back(2);
  strides.push_back(1);
  return make_alias(self, sizes, strides, self.storage_offset() * 2,
                    t == ScalarType::ComplexFloat ? ScalarType::Float : ScalarType::Double);
}

Tensor view_as_complex_strided(const Tensor& self) {
  const ScalarType t = self.scalar_type();
  EMBER_CHECK(t == ScalarType::Float || t == ScalarType::Double, "view_as_complex(): expected a "
              "float32 or float64 tensor, but self is ", t);
  EMBER_CHECK(self.dim() > 0 && self.sizes().back() == 2, "view_as_complex(): expected the last "
              "dimension of self to have size 2, but self's sizes are ", self.sizes());
  EMBER_CHECK(self.strides().back() == 1, "view_as_complex(): expected the last dimension of self "
              "to have stride 1, but self's strides are ", self.strides());
  EMBER_CHECK(self.storage_offset() % 2 == 0, "view_as_complex(): expected self's storage offset "
              "to be even, but it is ", self.storage_offset());
  DimVector sizes, strides;
  for (int64_t d = 0; d + 1 < self.dim(); ++d) {
    EMBER_CHECK(self.strides()[d] % 2 == 0, "view_as_complex(): expected every stride of self but "
                "the last to be even, but self's strides are ", self.strides());
    sizes.push_back(self.sizes()[d]);
    strides.push_back(self.strides()[d] / 2);
  }
  return make_alias(self, sizes, strides, self.storage_offset() / 2,
                    t == ScalarType::Float ? ScalarType::ComplexFloat : ScalarType::ComplexDouble);
}

// ---- composite shape ops (differentiated through the views they call) -------------------

Tensor reshape(const Tensor& self, IntArrayRef shape) {
  SizesAndStrides geometry;
  infer_view_size(shape, self.numel(), geometry);
  if (view_strides(self.sizes(), self.strides(), self.numel(), geometry)) return ember::view(self, shape);
  return ember::view(self.clone(MemoryFormat::Contiguous), shape);
}

Tensor view_as(const Tensor& self, const Tensor& other) { return ember::view(self, other.sizes()); }
Tensor reshape_as(const Tensor& self, const Tensor& other) { return ember::reshape(self, other.sizes()); }

Tensor flatten(const Tensor& self, int64_t start_dim, int64_t end_dim) {
  const int64_t ndim = self.dim();
  const int64_t s = wrap_dim("flatten", "start_dim", start_dim, ndim);
  const int64_t e = wrap_dim("flatten", "end_dim", end_dim, ndim);
  EMBER_CHECK_VALUE(s <= e, "flatten(): 'start_dim' (", s, ") cannot come after 'end_dim' (", e, ")");
  if (ndim == 0) return ember::reshape(self, {1});
  if (s == e) return self;
  DimVector sizes;
  for (int64_t d = 0; d < s; ++d) sizes.push_back(self.sizes()[d]);
  int64_t merged = 1;
  for (int64_t d = s; d <= e; ++d) merged *= self.sizes()[d];
  sizes.push_back(merged);
  for (int64_t d = e + 1; d < ndim; ++d) sizes.push_back(self.sizes()[d]);
  return ember::reshape(self, sizes);
}

Tensor unflatten(const Tensor& self, int64_t dim, IntArrayRef sizes) {
  const int64_t d = wrap_dim("unflatten", "dim", dim, self.dim());
  EMBER_CHECK(self.dim() > 0, "unflatten(): cannot be applied to a 0-dim tensor");
  EMBER_CHECK(!sizes.empty(), "unflatten(): 'sizes' must be non-empty");
  int64_t known = 1, infer = -1;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == -1) {
      EMBER_CHECK(infer < 0, "unflatten(): 'sizes' can hold only one -1, but got ", sizes);
      infer = static_cast<int64_t>(i);
    } else {
      EMBER_CHECK(sizes[i] >= 0, "unflatten(): 'sizes' must hold sizes >= -1, but got ", sizes);
      known *= sizes[i];
    }
  }
  const int64_t len = self.sizes()[d];
  DimVector out_sizes;
  for (int64_t k = 0; k < d; ++k) out_sizes.push_back(self.sizes()[k]);
  for (size_t i = 0; i < sizes.size(); ++i) {
    out_sizes.push_back(static_cast<int64_t>(i) == infer ? (known == 0 ? 0 : len / known) : sizes[i]);
  }
  EMBER_CHECK(infer >= 0 ? (known != 0 && len % known == 0) : known == len, "unflatten(): sizes ",
              sizes, " don't multiply up to the size of dim ", d, " (", len, ") of the input");
  for (int64_t k = d + 1; k < self.dim(); ++k) out_sizes.push_back(self.sizes()[k]);
  return ember::view(self, out_sizes);
}

Tensor narrow(const Tensor& self, int64_t dim, int64_t start, int64_t length) {
  EMBER_CHECK(self.dim() > 0, "narrow(): cannot be applied to a 0-dim tensor");
  const int64_t d = wrap_dim("narrow", "dim", dim, self.dim());
  const int64_t size = self.sizes()[d];
  EMBER_CHECK_INDEX(start >= -size && start <= size, "narrow(): 'start' (", start, ") is out of "
                    "range for dimension ", d, " of size ", size, " (expected to be in range of [",
                    -size, ", ", size, "])");
  if (start < 0) start += size;
  EMBER_CHECK(length >= 0, "narrow(): expected 'length' >= 0, but got ", length);
  EMBER_CHECK(start + length <= size, "narrow(): start (", start, ") + length (", length,
              ") exceeds the size of dimension ", d, " (", size, ")");
  return ember::slice(self, d, start, start + length, 1);
}

Tensor movedim(const Tensor& self, IntArrayRef source, IntArrayRef destination) {
  const int64_t ndim = self.dim();
  EMBER_CHECK(source.size() == destination.size(), "movedim(): 'source' and 'destination' must have "
              "the same number of dimensions, but got ", source, " and ", destination);
  const DimVector src = wrap_dims("movedim", "source", source, ndim);
  const DimVector dst = wrap_dims("movedim", "destination", destination, ndim);
  DimVector order(static_cast<size_t>(std::max<int64_t>(ndim, 0)), -1);
  uint64_t used = 0;
  for (size_t i = 0; i < src.size(); ++i) {
    if (ndim == 0) break;
    order[dst[i]] = src[i];
    used |= uint64_t(1) << src[i];
  }
  int64_t next = 0;
  for (int64_t& o : order) {
    if (o >= 0) continue;
    while (used >> next & 1) ++next;
    o = next++;
  }
  return ember::permute(self, order);
}

Tensor movedim(const Tensor& self, int64_t source, int64_t destination) {
  return native::movedim(self, IntArrayRef(&source, 1), IntArrayRef(&destination, 1));
}
Tensor moveaxis(const Tensor& self, IntArrayRef source, IntArrayRef destination) {
  return native::movedim(self, source, destination);
}
Tensor moveaxis(const Tensor& self, int64_t source, int64_t destination) {
  return native::movedim(self, source, destination);
}
Tensor swapaxes(const Tensor& self, int64_t axis0, int64_t axis1) {
  return ember::transpose(self, axis0, axis1);
}
Tensor swapdims(const Tensor& self, int64_t dim0, int64_t dim1) {
  return ember::transpose(self, dim0, dim1);
}
Tensor expand_as(const Tensor& self, const Tensor& other) { return self.expand(other.sizes()); }
Tensor broadcast_to(const Tensor& self, IntArrayRef size) { return self.expand(size); }

std::vector<Tensor> unbind(const Tensor& self, int64_t dim) {
  EMBER_CHECK_INDEX(self.dim() > 0, "unbind(): Dimension specified as ", dim, " but tensor has no "
                    "dimensions");
  const int64_t d = wrap_dim("unbind", "dim", dim, self.dim());
  std::vector<Tensor> out;
  for (int64_t i = 0; i < self.sizes()[d]; ++i) out.push_back(ember::select(self, d, i));
  return out;
}

std::vector<Tensor> split_with_sizes(const Tensor& self, IntArrayRef split_sizes, int64_t dim) {
  EMBER_CHECK(self.dim() > 0, "split_with_sizes(): expected at least a 1-dimensional tensor");
  const int64_t d = wrap_dim("split_with_sizes", "dim", dim, self.dim());
  int64_t total = 0;
  for (int64_t s : split_sizes) {
    EMBER_CHECK(s >= 0, "split_with_sizes(): expected 'split_sizes' to hold sizes >= 0, but got ",
                split_sizes);
    total += s;
  }
  EMBER_CHECK(total == self.sizes()[d], "split_with_sizes(): expected 'split_sizes' to sum exactly "
              "to ", self.sizes()[d], " (the input's size at dimension ", d, "), but got ", split_sizes);
  std::vector<Tensor> out;
  int64_t start = 0;
  for (int64_t s : split_sizes) {
    out.push_back(ember::slice(self, d, start, start + s, 1));
    start += s;
  }
  return out;
}

std::vector<Tensor> split(const Tensor& self, int64_t split_size, int64_t dim) {
  EMBER_CHECK(self.dim() > 0, "split(): expected at least a 1-dimensional tensor");
  const int64_t d = wrap_dim("split", "dim", dim, self.dim());
  const int64_t size = self.sizes()[d];
  EMBER_CHECK(split_size >= 0, "split(): expected 'split_size' >= 0, but got ", split_size);
  EMBER_CHECK(split_size > 0 || size == 0, "split(): 'split_size' can only be 0 if the size of "
              "dimension ", d, " is 0, but it is ", size);
  const int64_t n = split_size == 0 ? 1 : std::max<int64_t>((size + split_size - 1) / split_size, 1);
  std::vector<Tensor> out;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t start = i * split_size;
    out.push_back(ember::slice(self, d, start, std::min(size, start + split_size), 1));
  }
  return out;
}

std::vector<Tensor> chunk(const Tensor& self, int64_t chunks, int64_t dim) {
  EMBER_CHECK(self.dim() > 0, "chunk(): expected at least a 1-dimensional tensor");
  EMBER_CHECK(chunks > 0, "chunk(): expected 'chunks' > 0, but got ", chunks);
  const int64_t d = wrap_dim("chunk", "dim", dim, self.dim());
  const int64_t size = self.sizes()[d];
  const int64_t split_size = (size + chunks - 1) / chunks;
  if (split_size == 0 && size == 0) {
    DimVector sizes(static_cast<size_t>(chunks), 0);
    return native::split_with_sizes(self, sizes, d);
  }
  return native::split(self, split_size, d);
}

std::vector<Tensor> tensor_split(const Tensor& self, int64_t sections, int64_t dim) {
  EMBER_CHECK(self.dim() > 0, "tensor_split(): expected at least a 1-dimensional tensor, but got "
              "a tensor with 0 dims");
  EMBER_CHECK(sections > 0, "tensor_split(): expected 'sections' > 0, but got ", sections);
  const int64_t d = wrap_dim("tensor_split", "dim", dim, self.dim());
  const int64_t size = self.sizes()[d];
  const int64_t base = size / sections, extra = size % sections;
  std::vector<Tensor> out;
  int64_t start = 0;
  for (int64_t i = 0; i < sections; ++i) {
    const int64_t len = base + (i < extra ? 1 : 0);
    out.push_back(ember::slice(self, d, start, start + len, 1));
    start += len;
  }
  return out;
}

std::vector<Tensor> tensor_split(const Tensor& self, IntArrayRef indices, int64_t dim) {
  EMBER_CHECK(self.dim() > 0, "tensor_split(): expected at least a 1-dimensional tensor, but got "
              "a tensor with 0 dims");
  const int64_t d = wrap_dim("tensor_split", "dim", dim, self.dim());
  std::vector<Tensor> out;
  int64_t start = 0;
  for (int64_t i : indices) {
    out.push_back(ember::slice(self, d, start, i, 1));
    start = i;
  }
  out.push_back(ember::slice(self, d, start, std::nullopt, 1));
  return out;
}

Tensor atleast_1d(const Tensor& self) { return self.dim() == 0 ? ember::reshape(self, {1}) : self; }

Tensor atleast_2d(const Tensor& self) {
  if (self.dim() == 0) return ember::reshape(self, {1, 1});
  if (self.dim() == 1) return ember::unsqueeze(self, 0);
  return self;
}

Tensor atleast_3d(const Tensor& self) {
  if (self.dim() == 0) return ember::reshape(self, {1, 1, 1});
  if (self.dim() == 1) return ember::unsqueeze(ember::unsqueeze(self, 0), -1);
  if (self.dim() == 2) return ember::unsqueeze(self, -1);
  return self;
}

Tensor concat(TensorList tensors, int64_t dim) { return ember::cat(tensors, dim); }
Tensor concatenate(TensorList tensors, int64_t dim) { return ember::cat(tensors, dim); }

Tensor stack(TensorList tensors, int64_t dim) {
  EMBER_CHECK(!tensors.empty(), "stack(): expects a non-empty TensorList");
  for (size_t i = 1; i < tensors.size(); ++i) {
    EMBER_CHECK(tensors[i].sizes() == tensors[0].sizes(), "stack(): expects each tensor to be equal "
                "size, but got ", tensors[0].sizes(), " at entry 0 and ", tensors[i].sizes(),
                " at entry ", i);
  }
  const int64_t d = wrap_dim("stack", "dim", dim, tensors[0].dim() + 1);
  std::vector<Tensor> parts;
  for (const Tensor& t : tensors) parts.push_back(ember::unsqueeze(t, d));
  return ember::cat(parts, d);
}

namespace {

std::vector<Tensor> each(TensorList tensors, Tensor (*f)(const Tensor&)) {
  std::vector<Tensor> out;
  for (const Tensor& t : tensors) out.push_back(f(t));
  return out;
}

}  // namespace

Tensor hstack(TensorList tensors) {
  EMBER_CHECK(!tensors.empty(), "hstack(): expects a non-empty TensorList");
  std::vector<Tensor> parts = each(tensors, atleast_1d);
  return ember::cat(parts, parts[0].dim() == 1 ? 0 : 1);
}

Tensor vstack(TensorList tensors) {
  EMBER_CHECK(!tensors.empty(), "vstack(): expects a non-empty TensorList");
  return ember::cat(each(tensors, atleast_2d), 0);
}

Tensor dstack(TensorList tensors) {
  EMBER_CHECK(!tensors.empty(), "dstack(): expects a non-empty TensorList");
  return ember::cat(each(tensors, atleast_3d), 2);
}

Tensor fliplr(const Tensor& self) {
  EMBER_CHECK(self.dim() >= 2, "fliplr(): expected a tensor of at least 2 dimensions, but self is ",
              self.dim(), "-d");
  return ember::flip(self, {1});
}

Tensor flipud(const Tensor& self) {
  EMBER_CHECK(self.dim() >= 1, "flipud(): expected a tensor of at least 1 dimension, but self is 0-d");
  return ember::flip(self, {0});
}

Tensor rot90(const Tensor& self, int64_t k, IntArrayRef dims) {
  EMBER_CHECK(dims.size() == 2, "rot90(): expected 'dims' to hold 2 dimensions, but got ", dims);
  EMBER_CHECK(self.dim() >= 2, "rot90(): expected a tensor of at least 2 dimensions, but self is ",
              self.dim(), "-d");
  const int64_t d0 = wrap_dim("rot90", "dims", dims[0], self.dim());
  const int64_t d1 = wrap_dim("rot90", "dims", dims[1], self.dim());
  EMBER_CHECK(d0 != d1, "rot90(): expected the two dims to differ, but got ", dims);
  switch (((k % 4) + 4) % 4) {
    case 1: return ember::transpose(ember::flip(self, {d1}), d0, d1);
    case 2: return ember::flip(self, {d0, d1});
    case 3: return ember::transpose(ember::flip(self, {d0}), d0, d1);
    default: return self.clone(MemoryFormat::Contiguous);
  }
}

Tensor tile(const Tensor& self, IntArrayRef dims) {
  DimVector reps(dims);
  while (static_cast<int64_t>(reps.size()) < self.dim()) reps.insert(0, 1);
  return self.repeat(reps);
}

Tensor diag_embed(const Tensor& self, int64_t offset, int64_t dim1, int64_t dim2) {
  const int64_t ndim = self.dim() + 1;
  const int64_t d1 = wrap_dim("diag_embed", "dim1", dim1, ndim);
  const int64_t d2 = wrap_dim("diag_embed", "dim2", dim2, ndim);
  EMBER_CHECK(d1 != d2, "diag_embed(): 'dim1' and 'dim2' cannot be identical, but both are ", d1);
  const int64_t n = self.sizes().back() + (offset < 0 ? -offset : offset);
  DimVector sizes(self.sizes());
  sizes.resize(sizes.size() - 1);
  sizes.insert(static_cast<size_t>(std::min(d1, d2)), n);
  sizes.insert(static_cast<size_t>(std::max(d1, d2)), n);
  Tensor out = ember::zeros(sizes, TensorOptions().dtype(self.scalar_type()).device(self.device()));
  ember::diagonal(out, offset, d1, d2).copy_(self);
  return out;
}

Tensor diag(const Tensor& self, int64_t diagonal) {
  EMBER_CHECK(self.dim() == 1 || self.dim() == 2, "diag(): expected a 1-d or 2-d tensor, but self is ",
              self.dim(), "-d");
  if (self.dim() == 1) return native::diag_embed(self, diagonal, 0, 1);
  return ember::diagonal(self, diagonal, 0, 1).clone(MemoryFormat::Contiguous);
}

namespace {

// The coordinates of a triangle of a row x col matrix (lower: columns up to row + offset;
// upper: from row + offset), row by row.
Tensor triangle_indices(const char* op, int64_t row, int64_t col, int64_t offset, bool lower,
                        std::optional<ScalarType> dtype, std::optional<Device> device) {
  EMBER_CHECK(row >= 0, op, "(): expected 'row' >= 0, but got ", row);
  EMBER_CHECK(col >= 0, op, "(): expected 'col' >= 0, but got ", col);
  const ScalarType t = dtype.value_or(ScalarType::Long);
  EMBER_CHECK_NOT_IMPLEMENTED(t == ScalarType::Long || t == ScalarType::Int, op, "(): expected "
                              "'dtype' int64 or int32, but got ", t);
  // The row indices, then the column indices, in one list: [2, n] once a tensor.
  std::vector<int64_t> rows, cols;
  for (int64_t r = 0; r < row; ++r) {
    const int64_t lo = lower ? 0 : std::max<int64_t>(0, r + offset);
    const int64_t hi = lower ? std::min<int64_t>(col, std::max<int64_t>(0, r + offset + 1)) : col;
    for (int64_t c = lo; c < hi; ++c) {
      rows.push_back(r);
      cols.push_back(c);
    }
  }
  const int64_t n = static_cast<int64_t>(rows.size());
  if (device && device->type() == DeviceType::Meta) {
    return ember::empty({2, n}, TensorOptions().dtype(t).device(*device));
  }
  EMBER_CHECK_NOT_IMPLEMENTED(!device || device->type() == DeviceType::CPU, op, "(): only the cpu and "
                              "meta devices are supported so far, but got ", *device);
  rows.insert(rows.end(), cols.begin(), cols.end());
  const Tensor out = ember::tensor(rows, TensorOptions().dtype(ScalarType::Long)).view({2, n});
  return t == ScalarType::Long ? out : out.to(t);
}

}  // namespace

Tensor tril_indices(int64_t row, int64_t col, int64_t offset, std::optional<ScalarType> dtype,
                    std::optional<Layout>, std::optional<Device> device, std::optional<bool>) {
  return triangle_indices("tril_indices", row, col, offset, true, dtype, device);
}

Tensor triu_indices(int64_t row, int64_t col, int64_t offset, std::optional<ScalarType> dtype,
                    std::optional<Layout>, std::optional<Device> device, std::optional<bool>) {
  return triangle_indices("triu_indices", row, col, offset, false, dtype, device);
}

}  // namespace native
}  // namespace ember
