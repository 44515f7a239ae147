// Sparse COO operators (issue 24): arithmetic with sparse and dense operands in either order,
// reductions, softmax, shape ops and indexing, clone, copy_ and empty_like (so .to(dtype), a
// composite, works). Each is written once, for COO, over dense ops on the members (Note
// [Sparse through dense ops], SparseTensor.cpp); CSR and CSC reach them through the
// conversion (Note [Compressed through COO], SparseCompressed.cpp), except sum and
// transpose, whose compressed forms are cheap enough to write here.
//
// Results follow torch.sparse: sparse op sparse stays sparse (add: the union of the
// patterns, mul: the intersection), sparse * dense keeps the sparse pattern, sparse + dense
// is dense; a reduction over some sparse dims is sparse, over all of them dense.
#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "aten/native/DimUtils.h"
#include "aten/native/Dispatch.h"
#include "aten/native/Parallel.h"
#include "aten/native/sparse/SparseBlas.h"
#include "aten/native/sparse/SparseTensor.h"
#include "c10/util/Exception.h"
#include "ember/generated/ops/_sparse_log_softmax_native.h"
#include "ember/generated/ops/_sparse_softmax_native.h"
#include "ember/generated/ops/add_native.h"
#include "ember/generated/ops/add__native.h"
#include "ember/generated/ops/mul__native.h"
#include "ember/generated/ops/sub__native.h"
#include "ember/generated/ops/cat_native.h"
#include "ember/generated/ops/clone_native.h"
#include "ember/generated/ops/copy__native.h"
#include "ember/generated/ops/div_native.h"
#include "ember/generated/ops/empty_like_native.h"
#include "ember/generated/ops/index_select_native.h"
#include "ember/generated/ops/mean_native.h"
#include "ember/generated/ops/mul_native.h"
#include "ember/generated/ops/permute_native.h"
#include "ember/generated/ops/select_native.h"
#include "ember/generated/ops/sparse_mask_native.h"
#include "ember/generated/ops/slice_native.h"
#include "ember/generated/ops/sub_native.h"
#include "ember/generated/ops/sum_native.h"
#include "ember/generated/ops/t_native.h"
#include "ember/generated/ops/transpose_native.h"
#include "ember/generated/ops/unsqueeze_native.h"
#include "ember/generated/ops/view_native.h"
#include "ember/generated/ops/_unique2.h"
#include "ember/generated/ops/add.h"
#include "ember/generated/ops/amax.h"
#include "ember/generated/ops/bitwise_and.h"
#include "ember/generated/ops/cat.h"
#include "ember/generated/ops/div.h"
#include "ember/generated/ops/empty.h"
#include "ember/generated/ops/eq.h"
#include "ember/generated/ops/exp.h"
#include "ember/generated/ops/ge.h"
#include "ember/generated/ops/index.h"
#include "ember/generated/ops/index_add.h"
#include "ember/generated/ops/index_select.h"
#include "ember/generated/ops/log.h"
#include "ember/generated/ops/lt.h"
#include "ember/generated/ops/mul.h"
#include "ember/generated/ops/nonzero.h"
#include "ember/generated/ops/remainder.h"
#include "ember/generated/ops/reshape.h"
#include "ember/generated/ops/scatter_reduce.h"
#include "ember/generated/ops/sub.h"
#include "ember/generated/ops/sum.h"
#include "ember/generated/ops/zeros.h"

namespace ember::native {
namespace {

using Coo = SparseTensorImpl;

// The 1-d positions where a bool [n] mask is true.
Tensor where_true(const Tensor& mask) { return ember::nonzero(mask).select(1, 0); }

// A sparse self's values flattened to [prod(sparse sizes), dense sizes...] positions: the
// strided `out` of self's size viewed that way (out must be contiguous).
Tensor flat_rows(const Tensor& out, int64_t sparse_dim) {
  const IntArrayRef size = out.sizes();
  std::vector<int64_t> flat{size_product(size, 0, static_cast<size_t>(sparse_dim))};
  for (size_t d = static_cast<size_t>(sparse_dim); d < size.size(); ++d) flat.push_back(size[d]);
  return out.view(flat);
}

Scalar negated(const Scalar& s) {
  if (s.is_integral()) return Scalar(-s.to_long());
  if (s.is_complex()) return Scalar(-s.to_complex());
  if (s.is_bool()) return Scalar(-static_cast<int64_t>(s.to<bool>()));
  return Scalar(-s.to_double());
}

// Entries of a dense operand (broadcast to the sparse `size`) at the coordinates of s:
// [nnz, dense sizes...].
Tensor gather_dense(const Tensor& dense, const Coo& s, IntArrayRef size) {
  const Tensor full = dense.expand(size);
  std::vector<Tensor> rows;
  for (int64_t d = 0; d < s.sparse_dim(); ++d) rows.push_back(s.indices().select(0, d));
  if (rows.empty()) return ember::reshape(full, s.values().sizes());
  return ember::index(full, rows);
}

void check_same_size(const char* op, const Tensor& a, const Tensor& b) {
  EMBER_CHECK_VALUE(a.sizes() == b.sizes(), op, "(): expected sparse operands of one size, but got ", a.sizes(),
                    " and ", b.sizes());
}

// The size a dense operand broadcasts to against a sparse one: the sparse size (a sparse
// operand does not broadcast).
void check_dense_fits(const char* op, const Tensor& sparse, const Tensor& dense) {
  const IntArrayRef s = sparse.sizes(), d = dense.sizes();
  bool ok = d.size() <= s.size();
  for (size_t i = 0; ok && i < d.size(); ++i) {
    const int64_t dv = d[d.size() - 1 - i], sv = s[s.size() - 1 - i];
    ok = dv == sv || dv == 1;
  }
  EMBER_CHECK_VALUE(ok, op, "(): a dense operand of size ", d, " does not broadcast to the sparse operand's size ",
                    s, " (a sparse operand does not broadcast)");
}

Tensor coo_with(const Coo& like, Tensor values, IntArrayRef size, const char* op) {
  return make_sparse_coo(like.indices(), std::move(values), size, like.coalesced(), op);
}

void take_members(const Tensor& self, const Tensor& from, const char* op) {
  const Coo& f = sparse_coo_impl(from, op);
  sparse_coo_impl(self, op).set_members(from.sizes(), f.sparse_dim(), f.indices(), f.values(), f.coalesced());
}

}  // namespace

// ---- arithmetic ----

Tensor add_sparse(const Tensor& self, const Tensor& other, const Scalar& alpha) {
  const bool a = self.layout() == Layout::Sparse, b = other.layout() == Layout::Sparse;
  const ScalarType dt = promote_types(self.dtype(), other.dtype());
  if (a && b) {
    check_same_size("add", self, other);
    const Coo& x = sparse_coo_impl(self, "add");
    const Coo& y = sparse_coo_impl(other, "add");
    EMBER_CHECK_VALUE(x.sparse_dim() == y.sparse_dim(), "add(): expected sparse operands with one sparse_dim, but got ",
                      x.sparse_dim(), " and ", y.sparse_dim());
    const Tensor values = ember::cat({x.values().to(TensorOptions().dtype(dt)),
                                      ember::mul(y.values().to(TensorOptions().dtype(dt)), alpha)}, 0);
    const Tensor indices = ember::cat({x.indices(), y.indices()}, 1);
    return coalesce_sparse_cpu(make_sparse_coo(indices, values, self.sizes(), false, "add"));
  }
  const Tensor& sp = a ? self : other;
  const Tensor& de = a ? other : self;
  check_dense_fits("add", sp, de);
  const Coo& s = sparse_coo_impl(sp, "add");
  Tensor out = ember::empty(sp.sizes(), TensorOptions().dtype(dt));
  if (a) {
    out.copy_(ember::mul(de, alpha).expand(sp.sizes()));  // self + alpha * dense
  } else {
    out.copy_(de.expand(sp.sizes()));
  }
  if (s.nnz() > 0) {
    flat_rows(out, s.sparse_dim())
        .index_add_(0, sparse_linear_index(s.indices(), sp.sizes(), s.sparse_dim()),
                    s.values().to(TensorOptions().dtype(dt)), a ? Scalar(1) : alpha);
  }
  return out;
}

Tensor& add__sparse(Tensor& self, const Tensor& other, const Scalar& alpha) {
  const Tensor r = add_sparse(self, other, alpha);
  EMBER_CHECK_TYPE(r.dtype() == self.dtype(), "add_(): result type ", r.dtype(), " can't be cast to the desired "
                   "output type ", self.dtype());
  if (self.layout() == Layout::Strided) {
    self.copy_(r);
  } else {
    EMBER_CHECK_NOT_IMPLEMENTED(r.layout() == Layout::Sparse, "add_(): adding a dense tensor into a sparse self "
                                "makes it dense; use self + other");
    take_members(self, r, "add_");
  }
  return self;
}

Tensor sub_sparse(const Tensor& self, const Tensor& other, const Scalar& alpha) {
  return add_sparse(self, other, negated(alpha));
}

Tensor& sub__sparse(Tensor& self, const Tensor& other, const Scalar& alpha) {
  return add__sparse(self, other, negated(alpha));
}

Tensor mul_sparse(const Tensor& self, const Tensor& other) {
  const bool a = self.layout() == Layout::Sparse, b = other.layout() == Layout::Sparse;
  if (a && b) {
    // The intersection of the two (coalesced, sorted) patterns.
    check_same_size("mul", self, other);
    const Tensor x = coalesce_sparse_cpu(self), y = coalesce_sparse_cpu(other);
    const Coo& sx = sparse_coo_impl(x, "mul");
    const Coo& sy = sparse_coo_impl(y, "mul");
    const Tensor lx = sparse_linear_index(sx.indices(), self.sizes(), sx.sparse_dim()).contiguous();
    const Tensor ly = sparse_linear_index(sy.indices(), self.sizes(), sy.sparse_dim()).contiguous();
    std::vector<int64_t> px, py;
    const int64_t* p = lx.data_ptr<int64_t>();
    const int64_t* q = ly.data_ptr<int64_t>();
    for (int64_t i = 0, j = 0, nx = lx.numel(), ny = ly.numel(); i < nx && j < ny;) {
      if (p[i] < q[j]) ++i;
      else if (q[j] < p[i]) ++j;
      else {
        px.push_back(i++);
        py.push_back(j++);
      }
    }
    const auto n = static_cast<int64_t>(px.size());
    Tensor ix = ember::empty({n}, TensorOptions().dtype(ScalarType::Long));
    Tensor iy = ember::empty({n}, TensorOptions().dtype(ScalarType::Long));
    std::copy(px.begin(), px.end(), ix.data_ptr<int64_t>());
    std::copy(py.begin(), py.end(), iy.data_ptr<int64_t>());
    const Tensor values = ember::mul(ember::index_select(sx.values(), 0, ix), ember::index_select(sy.values(), 0, iy));
    return make_sparse_coo(ember::index_select(sx.indices(), 1, ix), values, self.sizes(), true, "mul");
  }
  const Tensor& sp = a ? self : other;
  const Tensor& de = a ? other : self;
  const Coo& s = sparse_coo_impl(sp, "mul");
  if (de.dim() == 0) return coo_with(s, a ? ember::mul(s.values(), de) : ember::mul(de, s.values()), sp.sizes(), "mul");
  check_dense_fits("mul", sp, de);
  const Tensor g = gather_dense(de, s, sp.sizes());
  return coo_with(s, a ? ember::mul(s.values(), g) : ember::mul(g, s.values()), sp.sizes(), "mul");
}

Tensor& mul__sparse(Tensor& self, const Tensor& other) {
  if (self.layout() == Layout::Strided) {
    // dense *= sparse: zero outside the pattern.
    self.mul_(sparse_to_dense(other));
    return self;
  }
  const Tensor r = mul_sparse(self, other);
  EMBER_CHECK_TYPE(r.dtype() == self.dtype(), "mul_(): result type ", r.dtype(), " can't be cast to the desired "
                   "output type ", self.dtype());
  take_members(self, r, "mul_");
  return self;
}

Tensor div_sparse(const Tensor& self, const Tensor& other) {
  if (self.layout() == Layout::Sparse && other.layout() == Layout::Strided) {
    // sparse / dense keeps the pattern (the zeros elsewhere are 0 / x, as torch leaves them).
    const Coo& s = sparse_coo_impl(self, "div");
    if (other.dim() == 0) return coo_with(s, ember::div(s.values(), other), self.sizes(), "div");
    check_dense_fits("div", self, other);
    return coo_with(s, ember::div(s.values(), gather_dense(other, s, self.sizes())), self.sizes(), "div");
  }
  // A sparse divisor divides by its zeros: the dense result.
  return ember::div(self.layout() == Layout::Strided ? self : sparse_to_dense(self),
                    other.layout() == Layout::Strided ? other : sparse_to_dense(other));
}

// ---- reductions ----

namespace {
const Tensor& values_of(const Tensor& t, const char* op) {
  if (is_sparse_compressed(t.layout())) return sparse_compressed_impl(t, op).values();
  return sparse_coo_impl(t, op).values();
}
}  // namespace

Tensor sum_sparse(const Tensor& self, std::optional<ScalarType> dtype) {
  return ember::sum(values_of(self, "sum"), dtype);
}

Tensor sum_dim_sparse(const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim, std::optional<ScalarType> dtype) {
  const Coo& s = sparse_coo_impl(self, "sum");
  const int64_t ndim = self.dim(), sd = s.sparse_dim();
  if (!dim.has_value() || (*dim).empty()) {
    Tensor all = sum_sparse(self, dtype);
    return keepdim ? ember::reshape(all, std::vector<int64_t>(static_cast<size_t>(ndim), 1)) : all;
  }
  const DimVector dims = wrap_dims("sum", "dim", *dim, ndim);
  std::vector<bool> reduced(static_cast<size_t>(ndim), false);
  for (int64_t d : dims) reduced[static_cast<size_t>(d)] = true;
  // The dense dims are summed in the values ([nnz, dense...]: dim d is values' d - sd + 1).
  std::vector<int64_t> vdims;
  for (int64_t d = sd; d < ndim; ++d) {
    if (reduced[static_cast<size_t>(d)]) vdims.push_back(d - sd + 1);
  }
  Tensor values = vdims.empty() ? (dtype ? s.values().to(TensorOptions().dtype(*dtype)) : s.values())
                                : ember::sum(s.values(), IntArrayRef(vdims), keepdim, dtype);
  if (!dtype && vdims.empty()) {
    // sum's dtype rule (integers and bool as int64) without summing anything
    const ScalarType rt = ember::sum(ember::zeros({0}, TensorOptions().dtype(self.dtype())), std::optional<ScalarType>()).dtype();
    values = values.to(TensorOptions().dtype(rt));
  }
  std::vector<int64_t> kept_rows, out_size;
  for (int64_t d = 0; d < ndim; ++d) {
    if (!reduced[static_cast<size_t>(d)]) out_size.push_back(self.sizes()[static_cast<size_t>(d)]);
    else if (keepdim) out_size.push_back(1);
  }
  for (int64_t d = 0; d < sd; ++d) {
    if (!reduced[static_cast<size_t>(d)]) kept_rows.push_back(d);
  }
  if (kept_rows.empty()) {
    // Every sparse dim reduced: a dense result.
    Tensor out = ember::sum(values, IntArrayRef{0}, false, std::nullopt);
    return ember::reshape(out, out_size);
  }
  Tensor indices;
  if (keepdim) {
    // Reduced sparse dims stay, of size 1, coordinate 0.
    indices = ember::zeros({sd, s.nnz()}, TensorOptions().dtype(ScalarType::Long));
    for (int64_t d : kept_rows) indices.select(0, d).copy_(s.indices().select(0, d));
  } else {
    Tensor rows = ember::empty({static_cast<int64_t>(kept_rows.size())}, TensorOptions().dtype(ScalarType::Long));
    std::copy(kept_rows.begin(), kept_rows.end(), rows.data_ptr<int64_t>());
    indices = ember::index_select(s.indices(), 0, rows);
  }
  return coalesce_sparse_cpu(make_sparse_coo(indices, values, out_size, false, "sum"));
}

Tensor sum_dim_sparse_csr(const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim,
                          std::optional<ScalarType> dtype) {
  const SparseCsrTensorImpl& s = sparse_compressed_impl(self, "sum");
  const int64_t major = self.layout() == Layout::SparseCsr ? 0 : 1;
  if (s.batch_dim() == 0 && s.dense_dim() == 0 && dim && (*dim).size() == 1 &&
      wrap_dim("sum", "dim", (*dim)[0], 2) == 1 - major) {
    // Summing along the plain dim: one sum per compressed line (a CSR matrix's row sums).
    // sum's dtype rule: integers and bool add up in int64.
    const ScalarType rt = dtype.value_or(is_floating_point(self.dtype()) || is_complex(self.dtype())
                                             ? self.dtype() : ScalarType::Long);
    const Tensor v = s.values().to(TensorOptions().dtype(rt)).contiguous();
    const int64_t lines = self.sizes()[static_cast<size_t>(major)];
    const Tensor c = s.compressed_indices().contiguous();
    // out[o] for the o-th non-empty line: its position among them, by a prefix count.
    std::vector<int64_t> slot(static_cast<size_t>(lines) + 1, 0);
    auto number = [&](const auto* cp) {
      for (int64_t i = 0; i < lines; ++i) slot[static_cast<size_t>(i) + 1] = slot[static_cast<size_t>(i)] + (cp[i + 1] > cp[i]);
    };
    if (c.dtype() == ScalarType::Int) number(c.data_ptr<int32_t>());
    else number(c.data_ptr<int64_t>());
    const int64_t nonempty = slot[static_cast<size_t>(lines)];
    Tensor sums = ember::empty({nonempty}, TensorOptions().dtype(rt));
    EMBER_CPU_KERNEL(compressed_line_sum_kernel)(c, v, slot.data(), sums);
    if (keepdim) {
      // The same compressed layout, one column (or row) wide: torch's form.
      Tensor crow = ember::empty({lines + 1}, TensorOptions().dtype(s.compressed_indices().dtype()));
      if (crow.dtype() == ScalarType::Int) {
        std::transform(slot.begin(), slot.end(), crow.data_ptr<int32_t>(), [](int64_t v) { return static_cast<int32_t>(v); });
      } else {
        std::copy(slot.begin(), slot.end(), crow.data_ptr<int64_t>());
      }
      std::vector<int64_t> size{self.sizes()[0], self.sizes()[1]};
      size[static_cast<size_t>(1 - major)] = 1;
      return make_sparse_compressed(crow, ember::zeros({nonempty}, TensorOptions().dtype(crow.dtype())), sums, size,
                                    self.layout(), false, "sum");
    }
    Tensor where = ember::empty({1, nonempty}, TensorOptions().dtype(ScalarType::Long));
    int64_t* wp = where.data_ptr<int64_t>();
    for (int64_t i = 0; i < lines; ++i) {
      if (slot[static_cast<size_t>(i) + 1] > slot[static_cast<size_t>(i)]) wp[slot[static_cast<size_t>(i)]] = i;
    }
    return make_sparse_coo(where, sums, {lines}, true, "sum");
  }
  const Tensor r = sum_dim_sparse(compressed_to_coo(self), dim, keepdim, dtype);
  if (r.layout() == Layout::Sparse && sparse_coo_impl(r, "sum").sparse_dim() == s.batch_dim() + 2) {
    return coo_to_compressed(r, self.layout(), s.compressed_indices().dtype(), "sum");
  }
  return r;
}

namespace {
void check_mean_dtype(const Tensor& self, std::optional<ScalarType> dtype) {
  const ScalarType t = dtype.value_or(self.dtype());
  EMBER_CHECK_TYPE(is_floating_point(t) || is_complex(t), "mean(): could not infer output dtype. Input dtype must "
                   "be either a floating point or complex dtype. Got: ", t);
}
}  // namespace

Tensor mean_sparse(const Tensor& self, std::optional<ScalarType> dtype) {
  check_mean_dtype(self, dtype);
  return ember::div(sum_sparse(self, dtype), Scalar(self.numel()));
}

Tensor mean_dim_sparse(const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim, std::optional<ScalarType> dtype) {
  check_mean_dtype(self, dtype);
  int64_t n = 1;
  if (!dim.has_value() || (*dim).empty()) {
    n = self.numel();
  } else {
    for (int64_t d : wrap_dims("mean", "dim", *dim, self.dim())) n *= self.sizes()[static_cast<size_t>(d)];
  }
  return ember::div(sum_dim_sparse(self, dim, keepdim, dtype), Scalar(n));
}

// ---- softmax over the specified entries (torch.sparse.softmax: unspecified ones are -inf) ----

namespace {
// The softmax groups of a coalesced COO tensor over sparse dim d: entries that differ only in
// coordinate d form one group. Returns each entry's group id and the number of groups.
std::pair<Tensor, int64_t> softmax_groups(const Coo& s, IntArrayRef size, int64_t d) {
  Tensor others = s.indices().clone();
  others.select(0, d).fill_(Scalar(0));
  auto [uniq, group, counts] = ember::_unique2(sparse_linear_index(others, size, s.sparse_dim()), true, true, false);
  (void)counts;
  return {group, uniq.numel()};
}

Tensor sparse_softmax_impl(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype, bool log, const char* op) {
  const Tensor c = coalesce_sparse_cpu(self);
  const Coo& s = sparse_coo_impl(c, op);
  const int64_t sd = s.sparse_dim();
  const int64_t d = wrap_dim(op, "dim", dim, self.dim());
  Tensor v = dtype ? s.values().to(TensorOptions().dtype(*dtype)) : s.values();
  EMBER_CHECK_TYPE(is_floating_point(v.dtype()), op, "(): expected floating values, but got ", v.dtype());
  if (d >= sd) {
    // A dense dim: the dense op on the values.
    const int64_t vd = d - sd + 1;
    const Tensor m = ember::amax(v, IntArrayRef{vd}, true);
    const Tensor e = ember::exp(ember::sub(v, m, Scalar(1)));
    const Tensor z = ember::sum(e, IntArrayRef{vd}, true, std::nullopt);
    const Tensor r = log ? ember::sub(ember::sub(v, m, Scalar(1)), ember::log(z), Scalar(1)) : ember::div(e, z);
    return make_sparse_coo(s.indices(), r, self.sizes(), true, op);
  }
  if (s.nnz() == 0) return make_sparse_coo(s.indices(), v, self.sizes(), true, op);
  const auto [group, ng] = softmax_groups(s, self.sizes(), d);
  std::vector<int64_t> gshape(v.sizes().begin(), v.sizes().end());
  gshape[0] = ng;
  std::vector<int64_t> ishape(static_cast<size_t>(v.dim()), 1);
  ishape[0] = s.nnz();
  const Tensor gidx = ember::reshape(group, ishape).expand(v.sizes()).contiguous();
  const Tensor init = ember::empty(gshape, TensorOptions().dtype(v.dtype()));
  const Tensor gmax = ember::scatter_reduce(init, 0, gidx, v, "amax", false);
  const Tensor shifted = ember::sub(v, ember::index_select(gmax, 0, group), Scalar(1));
  const Tensor e = ember::exp(shifted);
  const Tensor z = ember::index_add(ember::zeros(gshape, TensorOptions().dtype(v.dtype())), 0, group, e);
  const Tensor zi = ember::index_select(z, 0, group);
  const Tensor r = log ? ember::sub(shifted, ember::log(zi), Scalar(1)) : ember::div(e, zi);
  return make_sparse_coo(s.indices(), r, self.sizes(), true, op);
}
}  // namespace

Tensor sparse_softmax_backward(const Tensor& grad, const Tensor& output, int64_t dim, bool log) {
  // y = softmax(x) over the groups of entries sharing every coordinate but dim's:
  // dx = y * (g - sum_group(g * y)); for log_softmax dx = g - exp(y) * sum_group(g).
  const Coo& y = sparse_coo_impl(output, "softmax_backward");
  const int64_t sd = y.sparse_dim();
  const int64_t d = wrap_dim("softmax_backward", "dim", dim, output.dim());
  Tensor g;
  if (grad.layout() == Layout::Strided) {
    g = gather_dense(grad, y, output.sizes());
  } else {
    const Tensor gc = sparse_mask_sparse(sparse_to_dense(grad), output);
    g = sparse_coo_impl(gc, "softmax_backward").values();
  }
  const Tensor& v = y.values();
  if (d >= sd) {
    const int64_t vd = d - sd + 1;
    const Tensor r = log ? ember::sub(g, ember::mul(ember::exp(v), ember::sum(g, IntArrayRef{vd}, true, std::nullopt)), Scalar(1))
                         : ember::mul(v, ember::sub(g, ember::sum(ember::mul(g, v), IntArrayRef{vd}, true, std::nullopt), Scalar(1)));
    return make_sparse_coo(y.indices(), r, output.sizes(), y.coalesced(), "softmax_backward");
  }
  if (y.nnz() == 0) return make_sparse_coo(y.indices(), g, output.sizes(), y.coalesced(), "softmax_backward");
  const auto [group, ng] = softmax_groups(y, output.sizes(), d);
  std::vector<int64_t> gshape(v.sizes().begin(), v.sizes().end());
  gshape[0] = ng;
  const Tensor src = log ? g : ember::mul(g, v);
  const Tensor sums = ember::index_select(
      ember::index_add(ember::zeros(gshape, TensorOptions().dtype(v.dtype())), 0, group, src), 0, group);
  const Tensor r = log ? ember::sub(g, ember::mul(ember::exp(v), sums), Scalar(1))
                       : ember::mul(v, ember::sub(g, sums, Scalar(1)));
  return make_sparse_coo(y.indices(), r, output.sizes(), y.coalesced(), "softmax_backward");
}

Tensor sparse_softmax_sparse(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  return sparse_softmax_impl(self, dim, dtype, false, "softmax");
}

Tensor sparse_log_softmax_sparse(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  return sparse_softmax_impl(self, dim, dtype, true, "log_softmax");
}

// ---- shape ops and indexing ----

Tensor transpose_sparse(const Tensor& self, int64_t dim0, int64_t dim1) {
  const Coo& s = sparse_coo_impl(self, "transpose");
  const int64_t ndim = self.dim();
  if (ndim == 0) return self;
  const int64_t d0 = wrap_dim("transpose", "dim0", dim0, ndim), d1 = wrap_dim("transpose", "dim1", dim1, ndim);
  if (d0 == d1) return self;
  const int64_t sd = s.sparse_dim();
  std::vector<int64_t> size(self.sizes().begin(), self.sizes().end());
  std::swap(size[static_cast<size_t>(d0)], size[static_cast<size_t>(d1)]);
  if (d0 < sd && d1 < sd) {
    Tensor idx = s.indices().clone();
    idx.select(0, d0).copy_(s.indices().select(0, d1));
    idx.select(0, d1).copy_(s.indices().select(0, d0));
    return make_sparse_coo(idx, s.values(), size, false, "transpose");
  }
  EMBER_CHECK_VALUE(d0 >= sd && d1 >= sd, "transpose(): cannot swap a sparse dim with a dense one (dims ", d0,
                    " and ", d1, " of a tensor with ", sd, " sparse dims)");
  return make_sparse_coo(s.indices(), s.values().transpose(d0 - sd + 1, d1 - sd + 1), size, s.coalesced(), "transpose");
}

Tensor t_sparse(const Tensor& self) {
  EMBER_CHECK_VALUE(self.dim() <= 2, "t(): expected a tensor of at most 2 dims, but got ", self.dim(), " dims");
  return self.dim() < 2 ? self : transpose_sparse(self, 0, 1);
}

// A compressed tensor's transpose of its two sparse dims is the other compressed layout
// over the same members (CSR of A is CSC of A^T); other dims go through COO.
Tensor transpose_sparse_csr(const Tensor& self, int64_t dim0, int64_t dim1) {
  const SparseCsrTensorImpl& s = sparse_compressed_impl(self, "transpose");
  const int64_t ndim = self.dim(), b = s.batch_dim();
  const int64_t d0 = wrap_dim("transpose", "dim0", dim0, ndim), d1 = wrap_dim("transpose", "dim1", dim1, ndim);
  if (d0 == d1) return self;
  if (std::min(d0, d1) == b && std::max(d0, d1) == b + 1) {
    std::vector<int64_t> size(self.sizes().begin(), self.sizes().end());
    std::swap(size[static_cast<size_t>(b)], size[static_cast<size_t>(b + 1)]);
    return make_sparse_compressed(s.compressed_indices(), s.plain_indices(), s.values(), size,
                                  self.layout() == Layout::SparseCsr ? Layout::SparseCsc : Layout::SparseCsr, false,
                                  "transpose");
  }
  const Tensor r = transpose_sparse(compressed_to_coo(self), d0, d1);
  if (sparse_coo_impl(r, "transpose").sparse_dim() == b + 2) {
    return coo_to_compressed(r, self.layout(), s.compressed_indices().dtype(), "transpose");
  }
  return r;
}

Tensor t_sparse_csr(const Tensor& self) {
  EMBER_CHECK_VALUE(self.dim() == 2, "t(): expected a 2-D compressed tensor, but got ", self.dim(), " dims");
  return transpose_sparse_csr(self, 0, 1);
}

Tensor permute_sparse(const Tensor& self, IntArrayRef dims) {
  const Coo& s = sparse_coo_impl(self, "permute");
  const int64_t ndim = self.dim(), sd = s.sparse_dim();
  EMBER_CHECK_VALUE(static_cast<int64_t>(dims.size()) == ndim, "permute(): expected ", ndim, " dims, but got ",
                    dims.size());
  const DimVector p = wrap_dims("permute", "dims", dims, ndim);
  std::vector<int64_t> size, vperm{0};
  Tensor rows = ember::empty({sd}, TensorOptions().dtype(ScalarType::Long));
  for (int64_t i = 0; i < ndim; ++i) {
    const int64_t d = p[static_cast<size_t>(i)];
    size.push_back(self.sizes()[static_cast<size_t>(d)]);
    EMBER_CHECK_VALUE((i < sd) == (d < sd), "permute(): a sparse tensor's sparse dims (the first ", sd,
                      ") can only be permuted among themselves, and its dense dims too; got dims ", dims);
    if (i < sd) rows.data_ptr<int64_t>()[i] = d;
    else vperm.push_back(d - sd + 1);
  }
  const Tensor idx = sd > 0 ? ember::index_select(s.indices(), 0, rows) : s.indices();
  return make_sparse_coo(idx, s.values().permute(vperm), size, false, "permute");
}

Tensor view_sparse(const Tensor& self, IntArrayRef size) {
  const Coo& s = sparse_coo_impl(self, "view");
  EMBER_CHECK_NOT_IMPLEMENTED(s.dense_dim() == 0, "view(): reshaping a hybrid sparse tensor (dense_dim ",
                              s.dense_dim(), ") is not supported");
  std::vector<int64_t> shape(size.begin(), size.end());
  int64_t known = 1, infer = -1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1) {
      EMBER_CHECK_VALUE(infer < 0, "view(): only one dimension can be inferred");
      infer = static_cast<int64_t>(i);
    } else {
      EMBER_CHECK_VALUE(shape[i] >= 0, "view(): invalid shape dimension ", shape[i]);
      known *= shape[i];
    }
  }
  if (infer >= 0) {
    EMBER_CHECK_VALUE(known != 0 && self.numel() % known == 0, "view(): shape '", size, "' is invalid for input of size ",
                      self.numel());
    shape[static_cast<size_t>(infer)] = self.numel() / known;
    known *= shape[static_cast<size_t>(infer)];
  }
  EMBER_CHECK_VALUE(known == self.numel(), "view(): shape '", size, "' is invalid for input of size ", self.numel());
  const auto nd = static_cast<int64_t>(shape.size());
  const Tensor lin = sparse_linear_index(s.indices(), self.sizes(), s.sparse_dim());
  // The row-major order of the coordinates is the order of lin: coalesced stays coalesced.
  return make_sparse_coo(sparse_unravel(lin, shape, nd), s.values(), shape, s.coalesced(), "view");
}

Tensor slice_sparse(const Tensor& self, int64_t dim, std::optional<int64_t> start, std::optional<int64_t> end,
                    int64_t step) {
  const Coo& s = sparse_coo_impl(self, "slice");
  const int64_t d = wrap_dim("slice", "dim", dim, self.dim());
  EMBER_CHECK_VALUE(step > 0, "slice(): expected a positive step, but got ", step);
  const int64_t n = self.sizes()[static_cast<size_t>(d)];
  int64_t lo = start.value_or(0), hi = end.value_or(n);
  if (lo < 0) lo += n;
  if (hi < 0) hi += n;
  lo = std::clamp<int64_t>(lo, 0, n);
  hi = std::clamp<int64_t>(hi, lo, n);
  const int64_t len = (hi - lo + step - 1) / step;
  std::vector<int64_t> size(self.sizes().begin(), self.sizes().end());
  size[static_cast<size_t>(d)] = len;
  const int64_t sd = s.sparse_dim();
  if (d >= sd) {
    return make_sparse_coo(s.indices(), s.values().slice(d - sd + 1, lo, hi, step), size, s.coalesced(), "slice");
  }
  const Tensor c = s.indices().select(0, d);
  Tensor keep = ember::bitwise_and(ember::ge(c, Scalar(lo)), ember::lt(c, Scalar(hi)));
  if (step > 1) keep = ember::bitwise_and(keep, ember::eq(ember::remainder(ember::sub(c, Scalar(lo), Scalar(1)), Scalar(step)), Scalar(0)));
  const Tensor at = where_true(keep);
  Tensor idx = ember::index_select(s.indices(), 1, at);
  idx.select(0, d).copy_(ember::div(ember::sub(idx.select(0, d), Scalar(lo), Scalar(1)), Scalar(step), std::string_view("floor")));
  return make_sparse_coo(idx, ember::index_select(s.values(), 0, at), size, s.coalesced(), "slice");
}

Tensor select_sparse(const Tensor& self, int64_t dim, int64_t index) {
  const Coo& s = sparse_coo_impl(self, "select");
  EMBER_CHECK_INDEX(self.dim() > 0, "select(): cannot be applied to a 0-dim tensor");
  const int64_t d = wrap_dim("select", "dim", dim, self.dim());
  const int64_t n = self.sizes()[static_cast<size_t>(d)];
  EMBER_CHECK_INDEX(index >= -n && index < n, "select(): index ", index, " out of range for tensor of size ",
                    self.sizes(), " at dimension ", d);
  if (index < 0) index += n;
  std::vector<int64_t> size(self.sizes().begin(), self.sizes().end());
  size.erase(size.begin() + d);
  const int64_t sd = s.sparse_dim();
  if (d >= sd) return make_sparse_coo(s.indices(), s.values().select(d - sd + 1, index), size, s.coalesced(), "select");
  const Tensor at = where_true(ember::eq(s.indices().select(0, d), Scalar(index)));
  const Tensor values = ember::index_select(s.values(), 0, at);
  if (sd == 1) return ember::sum(values, IntArrayRef{0}, false, std::nullopt).to(TensorOptions().dtype(self.dtype()));
  std::vector<int64_t> rows;
  for (int64_t r = 0; r < sd; ++r) {
    if (r != d) rows.push_back(r);
  }
  Tensor ridx = ember::empty({sd - 1}, TensorOptions().dtype(ScalarType::Long));
  std::copy(rows.begin(), rows.end(), ridx.data_ptr<int64_t>());
  const Tensor idx = ember::index_select(ember::index_select(s.indices(), 1, at), 0, ridx);
  return make_sparse_coo(idx, values, size, s.coalesced(), "select");
}

Tensor index_select_sparse(const Tensor& self, int64_t dim, const Tensor& index) {
  const Coo& s = sparse_coo_impl(self, "index_select");
  const int64_t d = wrap_dim("index_select", "dim", dim, self.dim());
  EMBER_CHECK_TYPE(index.dtype() == ScalarType::Long || index.dtype() == ScalarType::Int, "index_select(): expected "
                   "'index' of dtype int64 or int32, but got ", index.dtype());
  EMBER_CHECK_VALUE(index.dim() <= 1, "index_select(): expected a 1-D 'index', but got ", index.dim(), " dims");
  const Tensor ix = index.reshape({-1}).to(TensorOptions().dtype(ScalarType::Long)).contiguous();
  const int64_t n = self.sizes()[static_cast<size_t>(d)], m = ix.numel();
  const int64_t* ip = ix.data_ptr<int64_t>();
  for (int64_t i = 0; i < m; ++i) {
    EMBER_CHECK_INDEX(ip[i] >= 0 && ip[i] < n, "index_select(): index ", ip[i], " is out of bounds for dimension ", d,
                      " of size ", n);
  }
  std::vector<int64_t> size(self.sizes().begin(), self.sizes().end());
  size[static_cast<size_t>(d)] = m;
  const int64_t sd = s.sparse_dim();
  if (d >= sd) {
    return make_sparse_coo(s.indices(), ember::index_select(s.values(), d - sd + 1, ix), size, s.coalesced(), "index_select");
  }
  // Each entry with coordinate c appears once per position p with index[p] == c.
  std::vector<int64_t> order(static_cast<size_t>(m));
  for (int64_t i = 0; i < m; ++i) order[static_cast<size_t>(i)] = i;
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return ip[a] < ip[b]; });
  std::vector<int64_t> sorted(static_cast<size_t>(m));
  for (int64_t i = 0; i < m; ++i) sorted[static_cast<size_t>(i)] = ip[order[static_cast<size_t>(i)]];
  const Tensor c = s.indices().select(0, d).contiguous();
  const int64_t* cp = c.data_ptr<int64_t>();
  std::vector<int64_t> ent, pos;
  for (int64_t k = 0; k < s.nnz(); ++k) {
    auto lo = std::lower_bound(sorted.begin(), sorted.end(), cp[k]);
    for (auto it = lo; it != sorted.end() && *it == cp[k]; ++it) {
      ent.push_back(k);
      pos.push_back(order[static_cast<size_t>(it - sorted.begin())]);
    }
  }
  const auto nn = static_cast<int64_t>(ent.size());
  Tensor et = ember::empty({nn}, TensorOptions().dtype(ScalarType::Long));
  Tensor pt = ember::empty({nn}, TensorOptions().dtype(ScalarType::Long));
  std::copy(ent.begin(), ent.end(), et.data_ptr<int64_t>());
  std::copy(pos.begin(), pos.end(), pt.data_ptr<int64_t>());
  Tensor idx = ember::index_select(s.indices(), 1, et);
  idx.select(0, d).copy_(pt);
  return make_sparse_coo(idx, ember::index_select(s.values(), 0, et), size, false, "index_select");
}

Tensor cat_sparse(TensorList tensors, int64_t dim) {
  EMBER_CHECK_VALUE(!tensors.empty(), "cat(): expected a non-empty list of Tensors");
  const Tensor& first = tensors[0];
  for (const Tensor& t : tensors) {
    EMBER_CHECK_VALUE(t.layout() == Layout::Sparse, "cat(): expected all tensors sparse (or all strided), but got a ",
                      t.layout(), " one; convert with .to_sparse() or .to_dense()");
  }
  const Coo& s0 = sparse_coo_impl(first, "cat");
  const int64_t ndim = first.dim(), sd = s0.sparse_dim();
  const int64_t d = wrap_dim("cat", "dim", dim, ndim);
  int64_t total = 0;
  for (const Tensor& t : tensors) {
    const Coo& s = sparse_coo_impl(t, "cat");
    EMBER_CHECK_VALUE(t.dim() == ndim && s.sparse_dim() == sd, "cat(): expected sparse tensors of ", ndim,
                      " dims and ", sd, " sparse dims, but got ", t.dim(), " and ", s.sparse_dim());
    for (int64_t k = 0; k < ndim; ++k) {
      EMBER_CHECK_VALUE(k == d || t.sizes()[static_cast<size_t>(k)] == first.sizes()[static_cast<size_t>(k)],
                        "cat(): sizes of tensors must match except in dimension ", d, ", but got ", first.sizes(),
                        " and ", t.sizes());
    }
    total += t.sizes()[static_cast<size_t>(d)];
  }
  std::vector<int64_t> size(first.sizes().begin(), first.sizes().end());
  size[static_cast<size_t>(d)] = total;
  ScalarType dt = first.dtype();
  for (const Tensor& t : tensors) dt = promote_types(dt, t.dtype());
  std::vector<Tensor> idx, vals;
  int64_t offset = 0;
  for (const Tensor& t : tensors) {
    const Coo& s = sparse_coo_impl(t, "cat");
    Tensor v = s.values().to(TensorOptions().dtype(dt));
    Tensor i = s.indices();
    if (d < sd) {
      i = i.clone();
      i.select(0, d).add_(Scalar(offset));
    } else {
      // A dense dim: each tensor's values padded with zeros into the whole extent.
      std::vector<int64_t> vs(v.sizes().begin(), v.sizes().end());
      vs[static_cast<size_t>(d - sd + 1)] = total;
      Tensor padded = ember::zeros(vs, TensorOptions().dtype(dt));
      padded.slice(d - sd + 1, offset, offset + t.sizes()[static_cast<size_t>(d)], 1).copy_(v);
      v = padded;
    }
    idx.push_back(i);
    vals.push_back(v);
    offset += t.sizes()[static_cast<size_t>(d)];
  }
  return make_sparse_coo(ember::cat(idx, 1), ember::cat(vals, 0), size, false, "cat");
}

Tensor unsqueeze_sparse(const Tensor& self, int64_t dim) {
  const Coo& s = sparse_coo_impl(self, "unsqueeze");
  const int64_t d = wrap_dim("unsqueeze", "dim", dim, self.dim() + 1);
  std::vector<int64_t> size(self.sizes().begin(), self.sizes().end());
  size.insert(size.begin() + d, 1);
  const int64_t sd = s.sparse_dim();
  if (d > sd) return make_sparse_coo(s.indices(), s.values().unsqueeze(d - sd + 1), size, s.coalesced(), "unsqueeze");
  Tensor idx = ember::zeros({sd + 1, s.nnz()}, TensorOptions().dtype(ScalarType::Long));
  for (int64_t r = 0, o = 0; r <= sd; ++r) {
    if (r == d) continue;
    idx.select(0, r).copy_(s.indices().select(0, o++));
  }
  return make_sparse_coo(idx, s.values(), size, s.coalesced(), "unsqueeze");
}

// ---- copies ----

Tensor clone_sparse(const Tensor& self, std::optional<MemoryFormat> memory_format) {
  (void)memory_format;  // a sparse tensor has no memory format (torch ignores preserve)
  const Coo& s = sparse_coo_impl(self, "clone");
  return make_sparse_coo(s.indices().clone(), s.values().clone(), self.sizes(), s.coalesced(), "clone");
}

// Also zeros_like's SparseCPU kernel: a sparse tensor with no entries is all zeros.
Tensor empty_like_sparse(const Tensor& self, std::optional<ScalarType> dtype, std::optional<Layout> layout,
                         std::optional<Device> device, std::optional<bool> pin_memory,
                         std::optional<MemoryFormat> memory_format) {
  (void)device;
  (void)pin_memory;
  (void)memory_format;
  const ScalarType dt = dtype.value_or(self.dtype());
  if (layout && *layout == Layout::Strided) return ember::empty(self.sizes(), TensorOptions().dtype(dt));
  const Coo& s = sparse_coo_impl(self, "empty_like");
  std::vector<int64_t> vs{0};
  for (size_t d = static_cast<size_t>(s.sparse_dim()); d < self.sizes().size(); ++d) vs.push_back(self.sizes()[d]);
  return make_sparse_coo(ember::empty({s.sparse_dim(), 0}, TensorOptions().dtype(ScalarType::Long)),
                         ember::empty(vs, TensorOptions().dtype(dt)), self.sizes(), true, "empty_like");
}

Tensor& copy_sparse_(Tensor& self, const Tensor& src, bool non_blocking) {
  (void)non_blocking;
  EMBER_CHECK_VALUE(self.sizes() == src.sizes(), "copy_(): expected src of self's size ", self.sizes(), " for a "
                    "sparse copy, but got ", src.sizes());
  if (self.layout() == Layout::Strided) {
    self.copy_(sparse_to_dense(src));
    return self;
  }
  const Coo& dst = sparse_coo_impl(self, "copy_");
  const Tensor from = src.layout() == Layout::Sparse ? src : _to_sparse_cpu(src, dst.sparse_dim());
  const Coo& f = sparse_coo_impl(from, "copy_");
  sparse_coo_impl(self, "copy_").set_members(self.sizes(), f.sparse_dim(), f.indices().clone(),
                                             f.values().to(TensorOptions().dtype(self.dtype()), false, true),
                                             f.coalesced());
  return self;
}

}  // namespace ember::native
