// Shape ops that copy: cat, flip, roll, repeat, tril/triu. Each builds its result from views
// of self and copy_ (which converts dtypes and walks any strides), so they take every dtype
// and layout the views and copy_ take, on every device whose copy_ does (CPU and CUDA).
#include <algorithm>

#include "aten/TensorOperators.h"
#include "aten/native/DimUtils.h"
#include "aten/native/RangeFactories.h"
#include "aten/native/Reduce.h"
#include "c10/util/Exception.h"
#include "ember/generated/ops/arange.h"
#include "ember/generated/ops/cat_native.h"
#include "ember/generated/ops/empty.h"
#include "ember/generated/ops/empty_like.h"
#include "ember/generated/ops/flatten.h"
#include "ember/generated/ops/flip_native.h"
#include "ember/generated/ops/repeat_native.h"
#include "ember/generated/ops/reshape.h"
#include "ember/generated/ops/roll_native.h"
#include "ember/generated/ops/slice.h"
#include "ember/generated/ops/tril__native.h"
#include "ember/generated/ops/tril_native.h"
#include "ember/generated/ops/triu__native.h"
#include "ember/generated/ops/triu_native.h"
#include "ember/generated/ops/where.h"
#include "ember/generated/ops/zeros.h"

namespace ember::native {
namespace {

// PyTorch skips 1-d empty tensors in cat (a legacy rule: they stand for "nothing").
bool skipped_in_cat(const Tensor& t) { return t.dim() == 1 && t.sizes()[0] == 0; }

struct CatPlan {
  DimVector sizes;
  int64_t dim = 0;
  ScalarType dtype = ScalarType::Float;
};

CatPlan plan_cat(TensorList tensors, int64_t dim) {
  EMBER_CHECK(!tensors.empty(), "cat(): expected a non-empty list of Tensors");
  CatPlan p;
  p.dtype = tensors[0].scalar_type();
  const Tensor* first = nullptr;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    EMBER_CHECK(t.dim() > 0, "cat(): zero-dimensional tensor (at position ", i, ") cannot be "
                "concatenated");
    EMBER_CHECK(t.device() == tensors[0].device(), "cat(): expected all tensors on one device, but "
                "tensor 0 is on ", tensors[0].device(), " and tensor ", i, " on ", t.device());
    p.dtype = promote_types(p.dtype, t.scalar_type());
    if (!first && !skipped_in_cat(t)) first = &t;
  }
  if (!first) {
    p.sizes = DimVector{0};
    p.dim = wrap_dim("cat", "dim", dim, 1);
    return p;
  }
  p.dim = wrap_dim("cat", "dim", dim, first->dim());
  p.sizes = DimVector(first->sizes());
  p.sizes[p.dim] = 0;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    if (skipped_in_cat(t)) continue;
    EMBER_CHECK(t.dim() == first->dim(), "cat(): tensors must have the same number of dimensions: "
                "got ", first->dim(), " and ", t.dim(), " (tensor number ", i, " in the list)");
    for (int64_t d = 0; d < t.dim(); ++d) {
      EMBER_CHECK(d == p.dim || t.sizes()[d] == first->sizes()[d], "cat(): sizes of tensors must "
                  "match except in dimension ", p.dim, ". Expected size ", first->sizes()[d],
                  " but got size ", t.sizes()[d], " for tensor number ", i, " in the list.");
    }
    p.sizes[p.dim] += t.sizes()[p.dim];
  }
  return p;
}

void cat_into(TensorList tensors, const CatPlan& p, const Tensor& out) {
  int64_t offset = 0;
  for (const Tensor& t : tensors) {
    if (skipped_in_cat(t)) continue;
    const int64_t n = t.sizes()[p.dim];
    if (n > 0) ember::slice(out, p.dim, offset, offset + n, 1).copy_(t);
    offset += n;
  }
}

}  // namespace

Tensor cat_dense(TensorList tensors, int64_t dim) {
  const CatPlan p = plan_cat(tensors, dim);
  Tensor out = ember::empty(p.sizes, TensorOptions().dtype(p.dtype).device(tensors[0].device()));
  cat_into(tensors, p, out);
  return out;
}

Tensor& cat_out_dense(TensorList tensors, int64_t dim, Tensor& out) {
  const CatPlan p = plan_cat(tensors, dim);
  EMBER_CHECK_TYPE(can_cast(p.dtype, out.scalar_type()), "cat(): result type ", p.dtype,
              " can't be cast to the desired output type ", out.scalar_type());
  for (size_t i = 0; i < tensors.size(); ++i) {
    EMBER_CHECK(!tensors[i].storage().is_alias_of(out.storage()) || out.numel() == 0 ||
                tensors[i].numel() == 0, "cat(): unsupported operation: the input tensors cannot "
                "refer to any of the output memory (tensor number ", i, ")");
  }
  resize_out(out, p.sizes);
  cat_into(tensors, p, out);
  return out;
}

Tensor flip_dense(const Tensor& self, IntArrayRef dims) {
  const DimVector flipped = wrap_dims("flip", "dims", dims, self.dim());
  Tensor out = ember::empty_like(self);  // self's layout, as PyTorch's flip
  if (self.numel() == 0) return out;
  // self read backwards: negated strides along the flipped dims, starting at their last element.
  DimVector strides(self.strides());
  int64_t offset = self.storage_offset();
  for (int64_t d : flipped) {
    if (self.dim() == 0) break;
    offset += (self.sizes()[d] - 1) * strides[d];
    strides[d] = -strides[d];
  }
  TensorImpl* src = self.impl();
  auto impl = make_intrusive<TensorImpl>(src->storage(), src->key_set(), src->dtype());
  impl->set_sizes_and_strides(self.sizes(), strides, offset);
  out.copy_(Tensor(std::move(impl)));
  return out;
}

Tensor roll_dense(const Tensor& self, IntArrayRef shifts, IntArrayRef dims) {
  EMBER_CHECK(!shifts.empty(), "roll(): 'shifts' required");
  if (dims.empty()) {
    EMBER_CHECK(shifts.size() == 1, "roll(): 'shifts' and 'dims' must align when no dims are given: "
                "expected one shift, but got ", shifts);
    const Tensor flat = ember::flatten(self, 0, -1);
    return roll_dense(flat, shifts, {0}).view(self.sizes());
  }
  EMBER_CHECK(shifts.size() == dims.size(), "roll(): 'shifts' and 'dims' must align. shifts: ",
              shifts.size(), ", dims: ", dims.size());
  Tensor src = self;
  Tensor out;
  for (size_t k = 0; k < dims.size(); ++k) {
    const int64_t d = wrap_dim("roll", "dims", dims[k], self.dim());
    out = ember::empty(self.sizes(), TensorOptions().dtype(self.scalar_type()).device(self.device()));
    const int64_t n = self.dim() == 0 ? 1 : self.sizes()[d];
    const int64_t s = n == 0 ? 0 : ((shifts[k] % n) + n) % n;
    if (self.dim() == 0 || s == 0 || n == 0) {
      out.copy_(src);
    } else {
      ember::slice(out, d, s, n, 1).copy_(ember::slice(src, d, 0, n - s, 1));
      ember::slice(out, d, 0, s, 1).copy_(ember::slice(src, d, n - s, n, 1));
    }
    src = out;
  }
  return out;
}

Tensor repeat_dense(const Tensor& self, IntArrayRef repeats) {
  const int64_t ndim = static_cast<int64_t>(repeats.size());
  EMBER_CHECK(ndim >= self.dim(), "repeat(): the number of repeats (", ndim, ") can not be smaller "
              "than the number of dimensions of self (", self.dim(), ")");
  for (int64_t r : repeats) {
    EMBER_CHECK(r >= 0, "repeat(): expected 'repeats' to hold counts >= 0, but got ", repeats);
  }
  // self padded with leading 1s to ndim dims, viewed as [1, s0, 1, s1, ...], expanded to
  // [r0, s0, r1, s1, ...]: one copy into the result viewed the same way.
  DimVector padded(static_cast<size_t>(ndim - self.dim()), 1);
  for (int64_t s : self.sizes()) padded.push_back(s);
  DimVector out_sizes, pair_sizes, pair_one;
  for (int64_t d = 0; d < ndim; ++d) {
    out_sizes.push_back(padded[d] * repeats[d]);
    pair_sizes.push_back(repeats[d]);
    pair_sizes.push_back(padded[d]);
    pair_one.push_back(1);
    pair_one.push_back(padded[d]);
  }
  Tensor out = ember::empty(out_sizes, TensorOptions().dtype(self.scalar_type()).device(self.device()));
  if (out.numel() == 0) return out;
  out.view(pair_sizes).copy_(ember::reshape(self, pair_one).expand(pair_sizes));
  return out;
}

namespace {

// Where column - row <= diagonal (lower) or >= diagonal (upper), over self's last two dims.
Tensor triangle_mask(const Tensor& self, int64_t diagonal, bool lower, const char* op) {
  EMBER_CHECK(self.dim() >= 2, op, "(): expected a tensor of at least 2 dimensions, but self is ",
              self.dim(), "-d");
  const int64_t m = self.sizes()[self.dim() - 2], n = self.sizes().back();
  const TensorOptions opt = TensorOptions().dtype(ScalarType::Long).device(self.device());
  const Tensor diff = ember::arange(n, opt) - ember::arange(m, opt).unsqueeze(1);
  return lower ? diff.le(diagonal) : diff.ge(diagonal);
}

Tensor zero_like_scalar(const Tensor& self) {
  return ember::zeros({}, TensorOptions().dtype(self.scalar_type()).device(self.device()));
}

}  // namespace

Tensor tril_dense(const Tensor& self, int64_t diagonal) {
  return ember::where(triangle_mask(self, diagonal, true, "tril"), self, zero_like_scalar(self));
}

Tensor triu_dense(const Tensor& self, int64_t diagonal) {
  return ember::where(triangle_mask(self, diagonal, false, "triu"), self, zero_like_scalar(self));
}

Tensor& tril__dense(Tensor& self, int64_t diagonal) {
  self.copy_(tril_dense(self, diagonal));
  return self;
}

Tensor& triu__dense(Tensor& self, int64_t diagonal) {
  self.copy_(triu_dense(self, diagonal));
  return self;
}

}  // namespace ember::native
