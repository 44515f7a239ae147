// Sparse COO tensors (SparseTensor.h): construction with its checks, coalesce, and the
// conversions to and from strided tensors.
//
// Note [Sparse through dense ops]: these kernels are written over the coordinates' row-major
// linear index, lin = sum_d indices[d] * stride_d (the strides of the sparse sizes), with
// dense ops: to_dense is an index_add_ of the values into a [prod(sparse sizes), dense...]
// view of zeros (duplicates add up), coalesce a unique of lin with an index_add_ of the
// values by inverse, to_sparse a nonzero. So every dtype the dense ops take works, and no
// loop over memory is written here.
#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "aten/native/sparse/SparseTensor.h"
#include "ember/generated/ops/_indices_native.h"
#include "ember/generated/ops/_nnz_native.h"
#include "ember/generated/ops/_sparse_coo_tensor_unsafe_native.h"
#include "ember/generated/ops/_to_dense_native.h"
#include "ember/generated/ops/_to_sparse_native.h"
#include "ember/generated/ops/_values_native.h"
#include "ember/generated/ops/coalesce_native.h"
#include "ember/generated/ops/is_coalesced_native.h"
#include "c10/util/Exception.h"
#include "ember/generated/ops/_unique2.h"
#include "ember/generated/ops/amax.h"
#include "ember/generated/ops/amin.h"
#include "ember/generated/ops/any.h"
#include "ember/generated/ops/copy_.h"
#include "ember/generated/ops/div.h"
#include "ember/generated/ops/empty.h"
#include "ember/generated/ops/fill_.h"
#include "ember/generated/ops/index_add.h"
#include "ember/generated/ops/index_select.h"
#include "ember/generated/ops/mul.h"
#include "ember/generated/ops/ne.h"
#include "ember/generated/ops/nonzero.h"
#include "ember/generated/ops/remainder.h"
#include "ember/generated/ops/reshape.h"
#include "ember/generated/ops/select.h"
#include "ember/generated/ops/sum.h"
#include "ember/generated/ops/t.h"
#include "ember/generated/ops/zeros.h"

namespace ember::native {
namespace {

// The row-major strides of the first `sparse_dim` sizes, as an int64 [sparse_dim, 1] column.
Tensor coo_strides(IntArrayRef size, int64_t sparse_dim) {
  std::vector<int64_t> st(static_cast<size_t>(sparse_dim), 1);
  for (int64_t d = sparse_dim - 1; d > 0; --d) st[static_cast<size_t>(d - 1)] = st[static_cast<size_t>(d)] * size[static_cast<size_t>(d)];
  Tensor s = ember::empty({sparse_dim, 1}, TensorOptions().dtype(ScalarType::Long));
  for (int64_t d = 0; d < sparse_dim; ++d) ember::fill_(ember::select(ember::select(s, 0, d), 0, 0), Scalar(st[static_cast<size_t>(d)]));
  return s;
}

// lin[k] = sum_d indices[d][k] * stride_d (int64 [nnz]).
Tensor coo_linear_index(const Tensor& indices, IntArrayRef size, int64_t sparse_dim) {
  if (sparse_dim == 0) return ember::zeros({indices.sizes()[1]}, TensorOptions().dtype(ScalarType::Long));
  return ember::sum(ember::mul(indices, coo_strides(size, sparse_dim)), IntArrayRef{0}, false, std::nullopt);
}

// The coordinates [sparse_dim, n] of row-major linear indices `lin` (coo_linear_index's
// inverse): div and mod by the sizes, last dim first.
Tensor coo_unravel(const Tensor& lin, IntArrayRef size, int64_t sparse_dim) {
  Tensor indices = ember::empty({sparse_dim, lin.sizes()[0]}, TensorOptions().dtype(ScalarType::Long));
  if (lin.sizes()[0] == 0) return indices;  // (a size may be 0: nothing to divide)
  Tensor rest = lin;
  for (int64_t d = sparse_dim - 1; d >= 0; --d) {
    const int64_t n = size[static_cast<size_t>(d)];
    ember::ops::copy_::call(ember::select(indices, 0, d), d == 0 ? rest : ember::remainder(rest, Scalar(n)), false);
    if (d > 0) rest = ember::div(rest, Scalar(n), std::string_view("floor"));
  }
  return indices;
}

}  // namespace

Tensor sparse_linear_index(const Tensor& indices, IntArrayRef size, int64_t sparse_dim) {
  return coo_linear_index(indices, size, sparse_dim);
}

Tensor sparse_unravel(const Tensor& lin, IntArrayRef size, int64_t sparse_dim) {
  return coo_unravel(lin, size, sparse_dim);
}

namespace {

int64_t sparse_product(IntArrayRef s, size_t begin, size_t end) {
  int64_t p = 1;
  for (size_t i = begin; i < end; ++i) p *= s[i];
  return p;
}


}  // namespace

Tensor make_sparse_coo(const Tensor& indices, const Tensor& values, IntArrayRef size,
                       bool coalesced, const char* op) {
  EMBER_CHECK_VALUE(indices.defined() && values.defined(), op, "(): expected defined indices and values");
  EMBER_CHECK_TYPE(indices.dtype() == ScalarType::Long, op,
                   "(): expected 'indices' of dtype int64, but got ", indices.dtype());
  EMBER_CHECK_VALUE(indices.layout() == Layout::Strided && values.layout() == Layout::Strided, op,
                    "(): expected strided 'indices' and 'values'");
  EMBER_CHECK_VALUE(indices.dim() == 2, op, "(): expected 'indices' of 2 dims [sparse_dim, nnz], but got ",
                    indices.dim(), " dims ", indices.sizes());
  EMBER_CHECK_VALUE(values.dim() >= 1, op, "(): expected 'values' of at least 1 dim [nnz, dense sizes...], but got a 0-d tensor");
  const int64_t sparse_dim = indices.sizes()[0];
  const int64_t nnz = indices.sizes()[1];
  EMBER_CHECK_VALUE(values.sizes()[0] == nnz, op, "(): expected 'values' with ", nnz,
                    " rows (one per column of 'indices'), but got ", values.sizes()[0]);
  const int64_t dense_dim = values.dim() - 1;
  EMBER_CHECK_VALUE(static_cast<int64_t>(size.size()) == sparse_dim + dense_dim, op, "(): expected 'size' of ",
                    sparse_dim + dense_dim, " dims (sparse_dim ", sparse_dim, " + dense_dim ", dense_dim,
                    "), but got ", size);
  for (size_t d = 0; d < size.size(); ++d) {
    EMBER_CHECK_VALUE(size[d] >= 0, op, "(): expected non-negative sizes, but got ", size);
  }
  for (int64_t d = 0; d < dense_dim; ++d) {
    EMBER_CHECK_VALUE(size[static_cast<size_t>(sparse_dim + d)] == values.sizes()[static_cast<size_t>(d + 1)], op,
                      "(): expected the dense sizes ", IntArrayRef(size.data() + sparse_dim, static_cast<size_t>(dense_dim)),
                      " to match 'values' sizes after the first, but got 'values' of ", values.sizes());
  }
  // Note [Sparse invariants]: every coordinate is checked against the sizes, always.
  if (nnz > 0 && sparse_dim > 0) {
    const Tensor lo = ember::amin(indices, IntArrayRef{1}, false);
    const Tensor hi = ember::amax(indices, IntArrayRef{1}, false);
    for (int64_t d = 0; d < sparse_dim; ++d) {
      const int64_t l = ember::select(lo, 0, d).item<int64_t>();
      const int64_t h = ember::select(hi, 0, d).item<int64_t>();
      EMBER_CHECK_VALUE(l >= 0, op, "(): expected non-negative indices, but found ", l, " in row ", d, " of 'indices'");
      EMBER_CHECK_VALUE(h < size[static_cast<size_t>(d)], op, "(): index ", h, " in row ", d,
                        " of 'indices' is out of bounds for size ", size[static_cast<size_t>(d)], " of dim ", d);
    }
  }
  auto impl = make_intrusive<SparseTensorImpl>(Device(DeviceType::CPU), values.dtype());
  impl->set_members(size, sparse_dim, indices, values, coalesced || nnz <= 1);
  return Tensor(std::move(impl));
}

Tensor coalesce_sparse_cpu(const Tensor& self) {
  SparseTensorImpl& s = sparse_coo_impl(self, "coalesce");
  if (s.coalesced()) return self;
  const IntArrayRef size = self.sizes();
  const int64_t sd = s.sparse_dim(), nnz = s.nnz();
  if (sd == 0) {
    // One coordinate (the empty one): every entry adds into it.
    Tensor values = ember::sum(s.values(), IntArrayRef{0}, true, std::nullopt).to(TensorOptions().dtype(self.dtype()));
    return make_sparse_coo(ember::empty({0, 1}, TensorOptions().dtype(ScalarType::Long)), values, size, true, "coalesce");
  }
  // Row-major linear keys, sorted by a radix sort (LSD, 11-bit digits over the bits the
  // largest key needs), then runs of equal keys summed: O(nnz) where a comparison sort of 1M
  // coordinates took most of the time.
  const Tensor idx = s.indices().contiguous();
  const int64_t* ip = idx.data_ptr<int64_t>();
  std::vector<int64_t> key(static_cast<size_t>(nnz), 0);
  int64_t stride = 1;
  for (int64_t d = sd - 1; d >= 0; --d) {
    const int64_t* row = ip + d * nnz;
    for (int64_t k = 0; k < nnz; ++k) key[static_cast<size_t>(k)] += row[k] * stride;
    stride *= size[static_cast<size_t>(d)];
  }
  bool sorted = true;
  for (int64_t k = 1; k < nnz && sorted; ++k) sorted = key[static_cast<size_t>(k)] > key[static_cast<size_t>(k - 1)];
  if (sorted) return make_sparse_coo(s.indices(), s.values(), size, true, "coalesce");
  const int64_t max_key = *std::max_element(key.begin(), key.end());
  int bits = 0;
  while (bits < 63 && (max_key >> bits) != 0) ++bits;
  std::vector<int64_t> pos(static_cast<size_t>(nnz)), key2(static_cast<size_t>(nnz)), pos2(static_cast<size_t>(nnz));
  for (int64_t k = 0; k < nnz; ++k) pos[static_cast<size_t>(k)] = k;
  constexpr int kDigit = 11;
  std::vector<int64_t> count(size_t{1} << kDigit);
  for (int shift = 0; shift < bits; shift += kDigit) {
    std::fill(count.begin(), count.end(), 0);
    const int64_t mask = (int64_t{1} << kDigit) - 1;
    for (int64_t k : key) ++count[static_cast<size_t>((k >> shift) & mask)];
    int64_t total = 0;
    for (int64_t& c : count) {
      const int64_t c0 = c;
      c = total;
      total += c0;
    }
    for (size_t k = 0; k < key.size(); ++k) {
      const auto b = static_cast<size_t>((key[k] >> shift) & mask);
      const auto at = static_cast<size_t>(count[b]++);
      key2[at] = key[k];
      pos2[at] = pos[k];
    }
    key.swap(key2);
    pos.swap(pos2);
  }
  // Groups of equal keys: inverse[original position] = group; the group's coordinates.
  Tensor inverse = ember::empty({nnz}, TensorOptions().dtype(ScalarType::Long));
  int64_t* inv = inverse.data_ptr<int64_t>();
  std::vector<int64_t> uniq;
  uniq.reserve(static_cast<size_t>(nnz));
  for (int64_t k = 0; k < nnz; ++k) {
    if (k == 0 || key[static_cast<size_t>(k)] != key[static_cast<size_t>(k - 1)]) uniq.push_back(key[static_cast<size_t>(k)]);
    inv[pos[static_cast<size_t>(k)]] = static_cast<int64_t>(uniq.size()) - 1;
  }
  const auto ng = static_cast<int64_t>(uniq.size());
  Tensor indices = ember::empty({sd, ng}, TensorOptions().dtype(ScalarType::Long));
  int64_t* op = indices.data_ptr<int64_t>();
  for (int64_t g = 0; g < ng; ++g) {
    int64_t rest = uniq[static_cast<size_t>(g)];
    for (int64_t d = sd - 1; d >= 0; --d) {
      const int64_t n = size[static_cast<size_t>(d)];
      op[d * ng + g] = rest % n;
      rest /= n;
    }
  }
  std::vector<int64_t> vshape(s.values().sizes().begin(), s.values().sizes().end());
  vshape[0] = ng;
  Tensor values = ember::index_add(ember::zeros(vshape, TensorOptions().dtype(self.dtype())), 0, inverse, s.values());
  return make_sparse_coo(indices, values, size, true, "coalesce");
}

Tensor _to_dense_sparse_cpu(const Tensor& self, std::optional<ScalarType> dtype) {
  SparseTensorImpl& s = sparse_coo_impl(self, "to_dense");
  const IntArrayRef size = self.sizes();
  const auto sd = static_cast<size_t>(s.sparse_dim());
  std::vector<int64_t> flat{sparse_product(size, 0, sd)};
  for (size_t d = sd; d < size.size(); ++d) flat.push_back(size[d]);
  const ScalarType out_dtype = dtype.value_or(self.dtype());
  Tensor values = s.values().dtype() == out_dtype ? s.values() : s.values().to(TensorOptions().dtype(out_dtype));
  Tensor out = ember::zeros(flat, TensorOptions().dtype(out_dtype));
  if (s.nnz() > 0) out = ember::index_add(out, 0, coo_linear_index(s.indices(), size, s.sparse_dim()), values);
  return ember::reshape(out, size);
}

Tensor _to_sparse_cpu(const Tensor& self, std::optional<int64_t> sparse_dim) {
  const int64_t dim = self.dim();
  const int64_t sd = sparse_dim.value_or(dim);
  // As PyTorch: at least one sparse dim, unless self is 0-d.
  EMBER_CHECK_VALUE(sd >= (dim > 0 ? 1 : 0) && sd <= dim, "to_sparse(): expected sparse_dim in [",
                    dim > 0 ? 1 : 0, ", ", dim, "], but got ", sd);
  EMBER_CHECK_VALUE(self.layout() == Layout::Strided, "to_sparse(): expected a strided tensor");
  const IntArrayRef size = self.sizes();
  std::vector<int64_t> flat{sparse_product(size, 0, static_cast<size_t>(sd))};
  for (size_t d = static_cast<size_t>(sd); d < size.size(); ++d) flat.push_back(size[d]);
  const Tensor rows = ember::reshape(self, flat);
  // A row is kept when any of its dense elements is non-zero (all of them, for dense_dim 0).
  Tensor keep = ember::ne(rows, Scalar(0));
  if (dim > sd) keep = ember::any(ember::reshape(keep, {flat[0], -1}), 1, false);
  const Tensor where = ember::select(ember::t(ember::nonzero(keep)), 0, 0);  // sorted linear indices
  return make_sparse_coo(coo_unravel(where, size, sd), ember::index_select(rows, 0, where), size, true,
                         "to_sparse");
}

// The YAML's kernels (native_functions.yaml, "sparse").
Tensor sparse_coo_tensor_unsafe_cpu(const Tensor& indices, const Tensor& values, IntArrayRef size,
                                    std::optional<bool> is_coalesced) {
  return make_sparse_coo(indices, values, size, is_coalesced.value_or(false), "sparse_coo_tensor");
}

Tensor to_dense_sparse_cpu(const Tensor& self, std::optional<ScalarType> dtype, std::optional<bool> masked_grad) {
  (void)masked_grad;  // the gradient's pattern; gradients come with the autograd part
  // As PyTorch's sparse_to_dense, which takes no dtype (convert the result instead).
  EMBER_CHECK_VALUE(!dtype.has_value(), "to_dense(): the dtype argument is not supported for ",
                    "sparse tensors (PyTorch's neither); convert the result with .to(dtype)");
  return _to_dense_sparse_cpu(self);
}

Tensor to_sparse_cpu(const Tensor& self, int64_t sparse_dim) { return _to_sparse_cpu(self, sparse_dim); }

Tensor indices_sparse_cpu(const Tensor& self) { return sparse_coo_impl(self, "_indices").indices(); }
Tensor values_sparse_cpu(const Tensor& self) { return sparse_coo_impl(self, "_values").values(); }
int64_t nnz_sparse_cpu(const Tensor& self) { return sparse_coo_impl(self, "_nnz").nnz(); }
bool is_coalesced_sparse_cpu(const Tensor& self) { return sparse_coo_impl(self, "is_coalesced").coalesced(); }

}  // namespace ember::native
