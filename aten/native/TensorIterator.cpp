#include "aten/native/TensorIterator.h"

#include <algorithm>
#include <cstdlib>
#include <numeric>

#include "aten/native/Parallel.h"
#include "c10/util/Exception.h"

namespace ember {

// ---- type promotion ------------------------------------------------------------------------

namespace {

ScalarType promote_skip_undefined(ScalarType a, ScalarType b) {
  if (a == ScalarType::Undefined) return b;
  if (b == ScalarType::Undefined) return a;
  return promote_types(a, b);
}

ScalarType to_complex(ScalarType t) {
  return t == ScalarType::Double ? ScalarType::ComplexDouble : ScalarType::ComplexFloat;
}

// PyTorch's combine_categories: `lower` (0-d tensors, then scalars) changes the result
// only when its category (bool < integral < floating < complex) is higher.
ScalarType combine_categories(ScalarType higher, ScalarType lower) {
  if (is_complex(higher)) return higher;
  if (is_complex(lower)) return is_floating_point(higher) ? to_complex(higher) : lower;
  if (is_floating_point(higher)) return higher;
  if (higher == ScalarType::Bool || is_floating_point(lower)) {
    return promote_skip_undefined(higher, lower);
  }
  return higher != ScalarType::Undefined ? higher : lower;
}

}  // namespace

ResultType& ResultType::add(const Tensor& t) {
  if (!t.defined()) return *this;
  ScalarType& slot = t.dim() == 0 ? zero_ : dim_;
  slot = promote_skip_undefined(slot, t.dtype());
  return *this;
}

ResultType& ResultType::add(const Scalar& s) {
  // A Python number is as wide as the defaults of its category.
  ScalarType t = ScalarType::Long;
  if (s.is_bool()) t = ScalarType::Bool;
  else if (s.is_floating_point()) t = get_default_dtype();
  else if (s.is_complex()) t = get_default_complex_dtype();
  wrapped_ = promote_skip_undefined(wrapped_, t);
  return *this;
}

ScalarType ResultType::get() const {
  return combine_categories(dim_, combine_categories(zero_, wrapped_));
}

// ---- shapes and output strides ---------------------------------------------------------------

DimVector broadcast_shapes(IntArrayRef a, IntArrayRef b, const char* op) {
  const size_t n = std::max(a.size(), b.size());
  DimVector out(n);
  for (size_t i = 0; i < n; ++i) {
    const int64_t da = i < n - a.size() ? 1 : a[i - (n - a.size())];
    const int64_t db = i < n - b.size() ? 1 : b[i - (n - b.size())];
    EMBER_CHECK_VALUE(da == db || da == 1 || db == 1, op, "(): the size of tensor a (", da,
                      ") must match the size of tensor b (", db, ") at non-singleton dimension ",
                      i, " (shapes ", a, " and ", b, " do not broadcast)");
    out[i] = da == 1 ? db : da;
  }
  return out;
}

namespace {

// Byte strides of t over `shape` (t broadcast to it): 0 where t has size 1 or no dimension.
DimVector broadcast_strides(const Tensor& t, IntArrayRef shape) {
  const size_t n = shape.size();
  const size_t offset = n - static_cast<size_t>(t.dim());
  const auto item = static_cast<int64_t>(t.element_size());
  DimVector s(n, 0);
  for (size_t d = offset; d < n; ++d) {
    const int64_t size = t.sizes()[d - offset];
    s[d] = (size == 1 && shape[d] != 1) ? 0 : t.strides()[d - offset] * item;
  }
  return s;
}

// PyTorch's reorder_dimensions: a permutation of the dimensions, fastest first, from the
// operands' strides (an operand broadcasting along either dimension has no say; equal
// strides put the smaller dimension first).
DimVector fastest_first(IntArrayRef shape, const std::vector<DimVector>& strides) {
  const int64_t ndim = static_cast<int64_t>(shape.size());
  DimVector perm(static_cast<size_t>(ndim));
  for (int64_t i = 0; i < ndim; ++i) perm[i] = ndim - 1 - i;
  auto should_swap = [&](int64_t d0, int64_t d1) {
    for (const DimVector& s : strides) {
      const int64_t s0 = s[d0], s1 = s[d1];
      if (s0 == 0 || s1 == 0) continue;
      if (s0 < s1) return -1;
      if (s0 > s1) return 1;
      if (shape[d0] > shape[d1]) return 1;
    }
    return 0;
  };
  for (int64_t i = 1; i < ndim; ++i) {
    int64_t d1 = i;
    for (int64_t d0 = i - 1; d0 >= 0; --d0) {
      const int c = should_swap(perm[d0], perm[d1]);
      if (c > 0) {
        std::swap(perm[d0], perm[d1]);
        d1 = d0;
      } else if (c < 0) {
        break;
      }
    }
  }
  return perm;
}

}  // namespace

TensorMeta elementwise_meta(std::initializer_list<const Tensor*> inputs, ScalarType dtype,
                            const char* op) {
  TensorMeta meta;
  meta.dtype = dtype;
  bool first = true;
  bool all_contiguous = true;
  for (const Tensor* t : inputs) {
    if (first) meta.sizes = DimVector(t->sizes());
    else if (t->sizes() != meta.sizes.ref()) meta.sizes = broadcast_shapes(meta.sizes, t->sizes(), op);
    first = false;
    all_contiguous = all_contiguous && t->is_contiguous();
  }
  if (all_contiguous) return meta;  // contiguous strides (meta.strides left empty)
  std::vector<DimVector> strides;
  for (const Tensor* t : inputs) {
    DimVector s = broadcast_strides(*t, meta.sizes);
    for (int64_t& v : s) v /= static_cast<int64_t>(t->element_size());  // compare in elements
    strides.push_back(std::move(s));
  }
  const DimVector perm = fastest_first(meta.sizes, strides);
  meta.strides = DimVector(meta.sizes.size());
  int64_t next = 1;
  for (int64_t d : perm) {
    meta.strides[d] = next;
    next *= std::max<int64_t>(meta.sizes[d], 1);
  }
  return meta;
}

// ---- overlap --------------------------------------------------------------------------------

namespace {

std::pair<const char*, const char*> byte_range(const Tensor& t) {
  const char* begin = static_cast<const char*>(t.impl()->data());
  int64_t last = 0;
  for (int64_t d = 0; d < t.dim(); ++d) last += (t.sizes()[d] - 1) * t.strides()[d];
  return {begin, begin + (last + 1) * static_cast<int64_t>(t.element_size())};
}

}  // namespace

void check_output_overlap(const Tensor& out, std::initializer_list<const Tensor*> inputs) {
  if (out.numel() == 0) return;
  for (int64_t d = 0; d < out.dim(); ++d) {
    EMBER_CHECK(out.sizes()[d] < 2 || out.strides()[d] != 0,
                "unsupported operation: more than one element of the written-to tensor refers "
                "to a single memory location. Please clone() the tensor before performing the "
                "operation.");
  }
  for (const Tensor* in : inputs) {
    if (in->numel() == 0 || !in->impl()->storage().is_alias_of(out.impl()->storage())) continue;
    const bool same = in->storage_offset() == out.storage_offset() &&
                      in->sizes() == out.sizes() && in->strides() == out.strides() &&
                      in->dtype() == out.dtype();
    if (same) continue;
    const auto [a0, a1] = byte_range(out);
    const auto [b0, b1] = byte_range(*in);
    EMBER_CHECK(!(a0 < b1 && b0 < a1),
                "unsupported operation: some elements of the input tensor and the written-to "
                "tensor refer to a single memory location. Please clone() the tensor before "
                "performing the operation.");
  }
}

// ---- the iterator ------------------------------------------------------------------------------

TensorIterator::TensorIterator(std::initializer_list<const Tensor*> outputs,
                               std::initializer_list<const Tensor*> inputs, const char* op) {
  EMBER_INTERNAL_ASSERT(outputs.size() + inputs.size() <= kMaxOperands, op, "(): too many operands");
  for (const Tensor* t : outputs) operands_[ntensors_++] = t;
  for (const Tensor* t : inputs) operands_[ntensors_++] = t;
  const Tensor& out = *operands_[0];
  const IntArrayRef full = out.sizes();
  numel_ = out.numel();

  // The common case: every operand contiguous and of the output's shape is one run.
  bool flat = true;
  for (int k = 0; k < ntensors_ && flat; ++k) {
    flat = operands_[k]->is_contiguous() && operands_[k]->sizes() == full;
  }
  if (flat) {
    if (numel_ != 1) {
      shape_ = DimVector(static_cast<size_t>(1), numel_);
      for (int k = 0; k < ntensors_; ++k) {
        strides_[k] = DimVector(static_cast<size_t>(1), static_cast<int64_t>(operands_[k]->element_size()));
      }
    }
    return;
  }

  for (const Tensor* in : inputs) {
    const DimVector b = broadcast_shapes(full, in->sizes(), op);
    EMBER_CHECK_VALUE(b.ref() == full, op, "(): input of shape ", in->sizes(),
                      " does not broadcast to the output's shape ", full);
  }
  std::vector<DimVector> byte_strides;
  for (int k = 0; k < ntensors_; ++k) byte_strides.push_back(broadcast_strides(*operands_[k], full));

  // Fastest dimension first, then merge neighbours every operand walks as one.
  const DimVector perm = fastest_first(full, byte_strides);
  for (int64_t d : perm) {
    if (full[d] == 1) continue;  // size-1 dimensions add nothing to the walk
    const bool merge = !shape_.empty() && [&] {
      for (int k = 0; k < ntensors_; ++k) {
        if (strides_[k][strides_[k].size() - 1] * shape_[shape_.size() - 1] != byte_strides[k][d]) return false;
      }
      return true;
    }();
    if (merge) {
      shape_[shape_.size() - 1] *= full[d];
      continue;
    }
    shape_.push_back(full[d]);
    for (int k = 0; k < ntensors_; ++k) strides_[k].push_back(byte_strides[k][d]);
  }
}

void TensorIterator::serial_for_each(const Loop2d& loop, int64_t begin, int64_t end) const {
  if (begin >= end) return;  // nothing to walk (an empty iterator has a size-0 dimension)
  const auto nt = static_cast<size_t>(ntensors_);
  std::array<int64_t, 2 * kMaxOperands> data_strides{};
  std::array<char*, kMaxOperands> base{}, ptrs{};
  for (size_t k = 0; k < nt; ++k) base[k] = static_cast<char*>(operands_[k]->impl()->data());
  const size_t ndim = shape_.size();
  if (ndim == 0) {
    loop(base.data(), data_strides.data(), 1, 1);
    return;
  }
  for (size_t k = 0; k < nt; ++k) {
    data_strides[k] = strides_[k][0];
    data_strides[nt + k] = ndim > 1 ? strides_[k][1] : 0;
  }
  // The coordinates of `begin`, fastest first.
  DimVector coord(ndim, 0);
  int64_t rest = begin;
  for (size_t d = 0; d < ndim; ++d) {
    coord[d] = rest % shape_[d];
    rest /= shape_[d];
  }
  int64_t pos = begin;
  while (pos < end) {
    for (size_t k = 0; k < nt; ++k) {
      int64_t off = 0;
      for (size_t d = 0; d < ndim; ++d) off += coord[d] * strides_[k][d];
      ptrs[k] = base[k] + off;
    }
    int64_t size0 = std::min(shape_[0] - coord[0], end - pos);
    int64_t size1 = 1;
    if (coord[0] == 0 && size0 == shape_[0] && ndim > 1) {
      size1 = std::min(shape_[1] - coord[1], (end - pos) / shape_[0]);
    }
    loop(ptrs.data(), data_strides.data(), size0, size1);
    // Advance the coordinates by size0 * size1 elements.
    int64_t step = size0 * size1;
    pos += step;
    if (size1 > 1) {
      coord[1] += size1;
    } else {
      coord[0] += size0;
      if (coord[0] < shape_[0]) continue;
      coord[0] = 0;
      if (ndim > 1) ++coord[1];
    }
    for (size_t d = 1; d + 1 < ndim && coord[d] >= shape_[d]; ++d) {
      coord[d] = 0;
      ++coord[d + 1];
    }
  }
}

// Note [Tiles]: when one operand walks the two fastest dimensions the other way round (the
// inner dimension of `M.t() + M2` is a column of M), a row-by-row walk reads that operand a
// cache line per element, and the lines are evicted before the next row comes back for
// their neighbours. Walking kTile x kTile tiles instead keeps each tile's lines of every
// operand in L1 until all of their elements are used: both sides stream.
constexpr int64_t kTile = 64;  // the side of a tile

bool TensorIterator::tiled() const {
  if (shape_.size() < 2 || shape_[0] < 2 * kTile || shape_[1] < 2 * kTile) return false;
  for (int k = 0; k < ntensors_; ++k) {
    const int64_t s0 = std::abs(strides_[k][0]), s1 = std::abs(strides_[k][1]);
    if (s1 != 0 && s1 < s0) return true;
  }
  return false;
}

void TensorIterator::tiled_for_each(const Loop2d& loop, int64_t grain_size) const {
  const auto nt = static_cast<size_t>(ntensors_);
  std::array<int64_t, 2 * kMaxOperands> data_strides{};
  std::array<char*, kMaxOperands> base{};
  for (size_t k = 0; k < nt; ++k) {
    base[k] = static_cast<char*>(operands_[k]->impl()->data());
    data_strides[k] = strides_[k][0];
    data_strides[nt + k] = strides_[k][1];
  }
  const int64_t tiles0 = (shape_[0] + kTile - 1) / kTile, tiles1 = (shape_[1] + kTile - 1) / kTile;
  int64_t outer = 1;
  for (size_t d = 2; d < shape_.size(); ++d) outer *= shape_[d];
  const int64_t tiles = tiles0 * tiles1 * outer;
  const int64_t grain = std::max<int64_t>(1, grain_size / (kTile * kTile));
  parallel_for(0, tiles, grain, [&](int64_t b, int64_t e) {
    std::array<char*, kMaxOperands> ptrs{};
    for (int64_t t = b; t < e; ++t) {
      const int64_t i0 = t % tiles0, i1 = (t / tiles0) % tiles1;
      int64_t rest = t / (tiles0 * tiles1);
      for (size_t k = 0; k < nt; ++k) ptrs[k] = base[k] + i0 * kTile * strides_[k][0] + i1 * kTile * strides_[k][1];
      for (size_t d = 2; d < shape_.size(); ++d) {
        const int64_t c = rest % shape_[d];
        rest /= shape_[d];
        for (size_t k = 0; k < nt; ++k) ptrs[k] += c * strides_[k][d];
      }
      loop(ptrs.data(), data_strides.data(), std::min(kTile, shape_[0] - i0 * kTile),
           std::min(kTile, shape_[1] - i1 * kTile));
    }
  });
}

void TensorIterator::for_each(const Loop2d& loop, int64_t grain_size) const {
  if (numel_ == 0) return;
  if (tiled()) return tiled_for_each(loop, grain_size);
  parallel_for(0, numel_, grain_size, [&](int64_t b, int64_t e) { serial_for_each(loop, b, e); });
}

}  // namespace ember
