#include "aten/TensorIndexing.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "c10/util/DimVector.h"
#include "c10/util/Exception.h"
#include "ember/generated/ops/alias.h"
#include "ember/generated/ops/arange.h"
#include "ember/generated/ops/count_nonzero.h"
#include "ember/generated/ops/empty.h"
#include "ember/generated/ops/index.h"
#include "ember/generated/ops/index_put_.h"
#include "ember/generated/ops/movedim.h"
#include "ember/generated/ops/permute.h"
#include "ember/generated/ops/select.h"
#include "ember/generated/ops/slice.h"
#include "ember/generated/ops/unsqueeze.h"

namespace ember::indexing {
namespace {

// The view of self the basic indices select, and the tensor indices with the view dim each
// starts at (Note [Indexing]).
struct Applied {
  Tensor view;
  std::vector<Tensor> tensors;
  std::vector<int64_t> starts;  // view dim where each tensor index begins
  std::vector<int64_t> spans;   // view dims each covers (a mask's number of dims, else 1)
};

bool is_mask(const Tensor& t) {
  return t.scalar_type() == ScalarType::Bool || t.scalar_type() == ScalarType::Byte;
}

Applied apply_basic(const Tensor& self, ArrayRef<TensorIndex> indices) {
  // Each Ellipsis skips the dims the other indices leave (as PyTorch, which unlike NumPy
  // accepts several: the ones after the first find no dims left).
  int64_t consumed = 0;
  for (const TensorIndex& i : indices) {
    if (i.is_integer() || i.is_slice()) ++consumed;
    else if (i.is_tensor()) consumed += is_mask(i.tensor()) ? i.tensor().dim() : 1;
  }
  EMBER_CHECK_INDEX(consumed <= self.dim(), "too many indices for tensor of dimension ", self.dim());
  Applied a;
  a.view = self;
  int64_t dim = 0;
  for (const TensorIndex& index : indices) {
    // A 0-d integer tensor indexes as the integer it holds (a view), as in PyTorch.
    const TensorIndex i = index.is_tensor() && index.tensor().dim() == 0 && !is_mask(index.tensor()) &&
                                  is_integral(index.tensor().scalar_type(), false)
                              ? TensorIndex(index.tensor().item().to_long())
                              : index;
    if (i.is_none()) {
      a.view = ember::unsqueeze(a.view, dim++);
    } else if (i.is_ellipsis()) {
      dim += self.dim() - consumed;
    } else if (i.is_integer()) {
      const int64_t size = a.view.sizes()[dim];
      const int64_t k = i.integer();
      EMBER_CHECK_INDEX(k >= -size && k < size, "index ", k, " is out of bounds for dimension ", dim,
                        " with size ", size);
      a.view = ember::select(a.view, dim, k);
    } else if (i.is_slice()) {
      const Slice& s = i.slice();
      const int64_t step = s.step.value_or(1);
      EMBER_CHECK_VALUE(step > 0, "step must be greater than zero");
      a.view = ember::slice(a.view, dim++, s.start, s.stop, step);
    } else if (i.is_boolean()) {
      a.view = ember::unsqueeze(a.view, dim);
      a.tensors.push_back(ember::arange(i.boolean() ? 1 : 0, TensorOptions().dtype(ScalarType::Long)));
      a.starts.push_back(dim++);
      a.spans.push_back(1);
    } else {
      const Tensor& t = i.tensor();
      const int64_t span = is_mask(t) ? t.dim() : 1;
      if (is_mask(t) && t.dim() == 0) {  // a 0-d mask: as a Python bool
        a.view = ember::unsqueeze(a.view, dim);
        a.tensors.push_back(ember::arange(t.ne(0).item().to_long() ? 1 : 0,
                                          TensorOptions().dtype(ScalarType::Long)));
        a.starts.push_back(dim++);
        a.spans.push_back(1);
        continue;
      }
      a.tensors.push_back(t);
      a.starts.push_back(dim);
      a.spans.push_back(span);
      dim += span;
    }
  }
  return a;
}

// The view with the tensor-indexed dims first (in order), and where the indexed result's
// dims go back: the first tensor index's dim when the tensor indices are adjacent, else 0.
struct Permuted {
  Tensor view;
  int64_t put_back = 0;
  int64_t indexed_dims = 0;
};

Permuted permute_indexed(const Applied& a) {
  Permuted p;
  std::vector<int64_t> order;
  std::vector<bool> indexed(static_cast<size_t>(a.view.dim()), false);
  bool adjacent = true;
  for (size_t k = 0; k < a.starts.size(); ++k) {
    if (k > 0 && a.starts[k] != a.starts[k - 1] + a.spans[k - 1]) adjacent = false;
    for (int64_t j = 0; j < a.spans[k]; ++j) {
      order.push_back(a.starts[k] + j);
      indexed[static_cast<size_t>(a.starts[k] + j)] = true;
    }
  }
  p.indexed_dims = static_cast<int64_t>(order.size());
  for (int64_t d = 0; d < a.view.dim(); ++d) {
    if (!indexed[static_cast<size_t>(d)]) order.push_back(d);
  }
  bool identity = true;
  for (size_t k = 0; k < order.size(); ++k) identity = identity && order[k] == static_cast<int64_t>(k);
  p.view = identity ? a.view : ember::permute(a.view, order);
  p.put_back = adjacent ? a.starts.front() : 0;
  return p;
}

// Moves `n` leading dims of t to position `to` (or back, inverse).
Tensor move_leading(const Tensor& t, int64_t n, int64_t to, bool inverse) {
  if (to == 0 || n == 0) return t;
  std::vector<int64_t> from(static_cast<size_t>(n)), dest(static_cast<size_t>(n));
  for (int64_t k = 0; k < n; ++k) {
    from[k] = k;
    dest[k] = to + k;
  }
  return inverse ? ember::movedim(t, dest, from) : ember::movedim(t, from, dest);
}

// The broadcast shape of the tensor indices' results (a mask gives its number of true elements).
DimVector indexed_shape(const std::vector<Tensor>& tensors) {
  DimVector shape;
  for (const Tensor& t : tensors) {
    DimVector s = is_mask(t) ? DimVector{ember::count_nonzero(t).item().to_long()} : DimVector(t.sizes());
    const size_t n = std::max(shape.size(), s.size());
    DimVector out(n, 1);
    for (size_t i = 0; i < n; ++i) {
      const int64_t x = i < n - shape.size() ? 1 : shape[i - (n - shape.size())];
      const int64_t y = i < n - s.size() ? 1 : s[i - (n - s.size())];
      EMBER_CHECK_INDEX(x == y || x == 1 || y == 1, "shape mismatch: indexing tensors could not be "
                        "broadcast together with shapes ", shape.ref(), " and ", s.ref());
      out[i] = x == 1 ? y : x;
    }
    shape = out;
  }
  return shape;
}

}  // namespace

TensorIndex::TensorIndex(const char* text) : v_(EllipsisIndexType{}) {
  EMBER_CHECK_VALUE(text != nullptr && std::strcmp(text, "...") == 0,
                    "TensorIndex(): expected \"...\" (Ellipsis) as a string index, but got ",
                    text ? "\"" + std::string(text) + "\"" : std::string("a null pointer"));
}

Tensor get(const Tensor& self, ArrayRef<TensorIndex> indices) {
  Applied a = apply_basic(self, indices);
  if (a.tensors.empty()) return a.view.is_same(self) ? ember::alias(self) : a.view;
  const Permuted p = permute_indexed(a);
  Tensor result = ember::index(p.view, a.tensors);
  const int64_t batch = result.dim() - (p.view.dim() - p.indexed_dims);
  if (p.put_back == 0 || batch == 0) return result;
  // The result is a new tensor (not a view of index's), laid out in its final order.
  return move_leading(result, batch, p.put_back, false).clone(MemoryFormat::Contiguous);
}

void set(const Tensor& self, ArrayRef<TensorIndex> indices, const Tensor& value) {
  Applied a = apply_basic(self, indices);
  if (a.tensors.empty()) {
    Tensor view = a.view;
    view.copy_(value);
    return;
  }
  Permuted p = permute_indexed(a);
  DimVector shape = indexed_shape(a.tensors);
  const int64_t batch = static_cast<int64_t>(shape.size());
  for (int64_t d = p.indexed_dims; d < p.view.dim(); ++d) shape.push_back(p.view.sizes()[d]);
  // The value arranged as get() returns the indexed shape, then with the indexed dims first.
  DimVector final_shape = shape;
  if (p.put_back > 0 && batch > 0) {
    final_shape.resize(0);
    for (int64_t d = 0; d < p.put_back; ++d) final_shape.push_back(shape[batch + d]);
    for (int64_t d = 0; d < batch; ++d) final_shape.push_back(shape[d]);
    for (int64_t d = batch + p.put_back; d < static_cast<int64_t>(shape.size()); ++d) final_shape.push_back(shape[d]);
  }
  bool ok = value.dim() <= static_cast<int64_t>(final_shape.size());
  for (int64_t i = 0; ok && i < value.dim(); ++i) {
    const int64_t v = value.sizes()[value.dim() - 1 - i], s = final_shape[final_shape.size() - 1 - i];
    ok = v == s || v == 1;
  }
  EMBER_CHECK(ok, "shape mismatch: value tensor of shape ", value.sizes(), " cannot be broadcast to "
              "indexing result of shape ", final_shape.ref());
  Tensor v = value.scalar_type() == self.scalar_type() ? value : value.to(self.scalar_type());
  v = move_leading(v.expand(final_shape), batch, p.put_back, true);
  ember::index_put_(p.view, a.tensors, v, false);
}

void set(const Tensor& self, ArrayRef<TensorIndex> indices, const Scalar& value) {
  Tensor v = ember::empty({}, TensorOptions().dtype(self.scalar_type()).device(self.device()));
  {
    // The value tensor is a constant: no history, whatever the grad mode.
    v.fill_(value);
  }
  set(self, indices, v);
}

}  // namespace ember::indexing

namespace ember {

using indexing::TensorIndex;

Tensor Tensor::index(ArrayRef<TensorIndex> indices) const { return indexing::get(*this, indices); }
Tensor Tensor::index(std::initializer_list<TensorIndex> indices) const {
  return indexing::get(*this, ArrayRef<TensorIndex>(indices.begin(), indices.size()));
}
const Tensor& Tensor::index_put_(ArrayRef<TensorIndex> indices, const Tensor& values) const {
  indexing::set(*this, indices, values);
  return *this;
}
const Tensor& Tensor::index_put_(std::initializer_list<TensorIndex> indices,
                                 const Tensor& values) const {
  return index_put_(ArrayRef<TensorIndex>(indices.begin(), indices.size()), values);
}
const Tensor& Tensor::index_put_(ArrayRef<TensorIndex> indices, const Scalar& v) const {
  indexing::set(*this, indices, v);
  return *this;
}
const Tensor& Tensor::index_put_(std::initializer_list<TensorIndex> indices, const Scalar& v) const {
  return index_put_(ArrayRef<TensorIndex>(indices.begin(), indices.size()), v);
}
Tensor Tensor::operator[](int64_t index) const { return indexing::get(*this, {TensorIndex(index)}); }
Tensor Tensor::operator[](const Tensor& index) const {
  return indexing::get(*this, {TensorIndex(index)});
}

}  // namespace ember
