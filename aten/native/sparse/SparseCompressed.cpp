// Sparse compressed tensors (sparse_csr, sparse_csc; c10/core/SparseCsrTensorImpl.h):
// construction with its checks, the accessors, and the conversions between every pair of
// layouts.
//
// Note [Compressed through COO]: a compressed tensor is a sorted COO tensor with its major
// coordinates run-length encoded, so the conversions both ways are one pass over the entries.
// Every op with a kernel for COO therefore works on CSR and CSC too: the boxed fallback at
// SparseCsrCPU (the end of this file) converts compressed arguments to COO, calls the COO
// kernel and converts a sparse result back to the first compressed argument's layout. An op
// is written once, layout-generically; a compressed kernel of its own (mm, sum over rows,
// add with a dense tensor) is registered only where the conversion would cost too much, and
// wins over the fallback. The coverage table (sparse.md) says which path each op takes.
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "aten/native/Dispatch.h"
#include "aten/native/Parallel.h"
#include "aten/native/sparse/SparseTensor.h"
#include "c10/dispatch/Library.h"
#include "c10/dispatch/OperatorHandle.h"
#include "c10/util/Exception.h"
#include "ember/generated/ops/_nnz_native.h"
#include "ember/generated/ops/_sparse_compressed_tensor_unsafe_native.h"
#include "ember/generated/ops/_to_dense_native.h"
#include "ember/generated/ops/_to_sparse_csc_native.h"
#include "ember/generated/ops/_to_sparse_csr_native.h"
#include "ember/generated/ops/_to_sparse_native.h"
#include "ember/generated/ops/_values_native.h"
#include "ember/generated/ops/ccol_indices_native.h"
#include "ember/generated/ops/col_indices_native.h"
#include "ember/generated/ops/crow_indices_native.h"
#include "ember/generated/ops/row_indices_native.h"
#include "ember/generated/ops/sparse_mask_native.h"
#include "ember/generated/ops/empty.h"
#include "ember/generated/ops/reshape.h"
#include "ember/generated/ops/zeros.h"

namespace ember::native {
namespace {

// The names PyTorch gives a layout's members, for messages.
struct CompressedNames {
  const char* compressed;
  const char* plain;
  const char* major;  // what a compressed line is
};

CompressedNames names_of(Layout l) {
  return l == Layout::SparseCsr ? CompressedNames{"crow_indices", "col_indices", "row"}
                                : CompressedNames{"ccol_indices", "row_indices", "column"};
}

// 0 when the compressed dim is the rows (CSR), 1 when it is the columns (CSC).
int64_t major_offset(Layout l) { return l == Layout::SparseCsr ? 0 : 1; }

template <class F>
decltype(auto) dispatch_index(ScalarType t, F&& f) {
  if (t == ScalarType::Int) return f(TypeTag<int32_t>{});
  return f(TypeTag<int64_t>{});
}

// Checks the index members against each other and the sizes (Note [Sparse invariants]) and
// returns whether the plain indices increase strictly along every line (canonical).
template <class I>
bool check_compressed_indices(const Tensor& compressed, const Tensor& plain, int64_t nb, int64_t n_major,
                              int64_t n_minor, int64_t nnz, Layout layout, const char* op) {
  const CompressedNames nm = names_of(layout);
  const I* c = compressed.data_ptr<I>();
  const I* p = plain.data_ptr<I>();
  bool canonical = true;
  for (int64_t b = 0; b < nb; ++b) {
    const I* cb = c + b * (n_major + 1);
    const I* pb = p + b * nnz;
    EMBER_CHECK_VALUE(cb[0] == 0, op, "(): expected ", nm.compressed, "[..., 0] == 0, but got ",
                      static_cast<int64_t>(cb[0]), nb > 1 ? " in batch " + std::to_string(b) : std::string());
    EMBER_CHECK_VALUE(cb[n_major] == nnz, op, "(): expected ", nm.compressed, "[..., -1] == nnz (", nnz,
                      "), but got ", static_cast<int64_t>(cb[n_major]),
                      nb > 1 ? " in batch " + std::to_string(b) : std::string());
    // The whole compressed row first: only then does every line lie within [0, nnz).
    for (int64_t i = 0; i < n_major; ++i) {
      EMBER_CHECK_VALUE(cb[i] <= cb[i + 1], op, "(): expected non-decreasing ", nm.compressed, ", but ",
                        nm.compressed, "[", i, "] = ", static_cast<int64_t>(cb[i]), " > ", nm.compressed, "[",
                        i + 1, "] = ", static_cast<int64_t>(cb[i + 1]));
    }
    for (int64_t i = 0; i < n_major; ++i) {
      for (I k = cb[i]; k < cb[i + 1]; ++k) {
        EMBER_CHECK_VALUE(pb[k] >= 0 && pb[k] < n_minor, op, "(): ", nm.plain, "[", static_cast<int64_t>(k),
                          "] = ", static_cast<int64_t>(pb[k]), " is out of bounds: expected 0 <= ", nm.plain,
                          " < ", n_minor);
        if (k > cb[i] && pb[k] <= pb[k - 1]) canonical = false;
      }
    }
  }
  return canonical;
}

}  // namespace

Tensor make_sparse_compressed(const Tensor& compressed_in, const Tensor& plain_in, const Tensor& values,
                              IntArrayRef size, Layout layout, bool check_invariants, const char* op) {
  EMBER_CHECK_VALUE(is_sparse_compressed(layout), op, "(): expected layout torch.sparse_csr or torch.sparse_csc, "
                    "but got ", layout);
  const CompressedNames nm = names_of(layout);
  EMBER_CHECK_VALUE(compressed_in.defined() && plain_in.defined() && values.defined(), op,
                    "(): expected defined ", nm.compressed, ", ", nm.plain, " and values");
  EMBER_CHECK_VALUE(compressed_in.layout() == Layout::Strided && plain_in.layout() == Layout::Strided &&
                        values.layout() == Layout::Strided,
                    op, "(): expected strided ", nm.compressed, ", ", nm.plain, " and values");
  const ScalarType it = compressed_in.dtype();
  EMBER_CHECK_TYPE(it == ScalarType::Int || it == ScalarType::Long, op, "(): expected ", nm.compressed,
                   " of dtype int32 or int64, but got ", it);
  EMBER_CHECK_TYPE(plain_in.dtype() == it, op, "(): expected ", nm.plain, " of the dtype of ", nm.compressed,
                   " (", it, "), but got ", plain_in.dtype());
  EMBER_CHECK_VALUE(compressed_in.dim() >= 1 && plain_in.dim() == compressed_in.dim(), op, "(): expected ",
                    nm.compressed, " and ", nm.plain, " with the same number of dims (at least 1), but got ",
                    compressed_in.dim(), " and ", plain_in.dim());
  const auto B = static_cast<size_t>(compressed_in.dim() - 1);
  const IntArrayRef batch(compressed_in.sizes().data(), B);
  for (size_t d = 0; d < B; ++d) {
    EMBER_CHECK_VALUE(plain_in.sizes()[d] == batch[d], op, "(): expected ", nm.plain, " with the batch sizes ",
                      batch, " of ", nm.compressed, ", but got ", plain_in.sizes());
  }
  const int64_t nnz = plain_in.sizes()[B];
  EMBER_CHECK_VALUE(values.dim() >= static_cast<int64_t>(B) + 1, op, "(): expected values of at least ", B + 1,
                    " dims [*batch, nnz, *dense], but got ", values.sizes());
  for (size_t d = 0; d < B; ++d) {
    EMBER_CHECK_VALUE(values.sizes()[d] == batch[d], op, "(): expected values with the batch sizes ", batch,
                      ", but got ", values.sizes());
  }
  EMBER_CHECK_VALUE(values.sizes()[B] == nnz, op, "(): expected values with ", nnz, " entries (", nm.plain,
                    "'s last size) in dim ", B, ", but got ", values.sizes());
  const size_t dense_dim = static_cast<size_t>(values.dim()) - B - 1;
  EMBER_CHECK_VALUE(size.size() == B + 2 + dense_dim, op, "(): expected a size of ", B + 2 + dense_dim,
                    " dims (", B, " batch + 2 sparse + ", dense_dim, " dense), but got ", size);
  for (size_t d = 0; d < size.size(); ++d) {
    EMBER_CHECK_VALUE(size[d] >= 0, op, "(): expected non-negative sizes, but got ", size);
    if (d < B) {
      EMBER_CHECK_VALUE(size[d] == batch[d], op, "(): expected the batch sizes ", batch, " in size, but got ", size);
    } else if (d >= B + 2) {
      EMBER_CHECK_VALUE(size[d] == values.sizes()[d - 1], op, "(): expected the dense sizes of values ",
                        values.sizes(), " at the end of size, but got ", size);
    }
  }
  const int64_t n_major = size[B + static_cast<size_t>(major_offset(layout))];
  const int64_t n_minor = size[B + 1 - static_cast<size_t>(major_offset(layout))];
  EMBER_CHECK_VALUE(compressed_in.sizes()[B] == n_major + 1, op, "(): expected ", nm.compressed, " of ",
                    n_major + 1, " entries (one more than the ", n_major, " ", nm.major, "s), but got ",
                    compressed_in.sizes()[B]);
  const Tensor compressed = compressed_in.contiguous();
  const Tensor plain = plain_in.contiguous();
  const int64_t nb = size_product(batch, 0, B);
  const bool canonical = dispatch_index(it, [&](auto tag) {
    using I = typename decltype(tag)::type;
    return check_compressed_indices<I>(compressed, plain, nb, n_major, n_minor, nnz, layout, op);
  });
  EMBER_CHECK_VALUE(canonical || !check_invariants, op, "(): expected ", nm.plain, " sorted and unique along "
                    "each ", nm.major, " (check_invariants=True), but they are not");
  auto impl = make_intrusive<SparseCsrTensorImpl>(Device(DeviceType::CPU), values.dtype(), layout);
  impl->set_members(size, compressed, plain, values, canonical);
  return Tensor(std::move(impl));
}

Tensor compressed_with_values(const Tensor& like, const Tensor& values, const char* op) {
  const SparseCsrTensorImpl& s = sparse_compressed_impl(like, op);
  EMBER_CHECK_VALUE(values.defined() && values.sizes() == s.values().sizes(), op,
                    "(): expected values of sizes ", s.values().sizes(), ", but got ",
                    values.defined() ? values.sizes() : IntArrayRef());
  auto impl = make_intrusive<SparseCsrTensorImpl>(Device(DeviceType::CPU), values.dtype(), like.layout());
  impl->set_members(like.sizes(), s.compressed_indices(), s.plain_indices(), values, s.canonical());
  return Tensor(std::move(impl));
}

Tensor compressed_to_coo(const Tensor& self) {
  const SparseCsrTensorImpl& s = sparse_compressed_impl(self, "to_sparse");
  const IntArrayRef size = self.sizes();
  const auto B = static_cast<size_t>(s.batch_dim());
  const int64_t nb = size_product(size, 0, B);
  const int64_t nnz = s.nnz();
  const bool csr = self.layout() == Layout::SparseCsr;
  const int64_t n_major = size[B + (csr ? 0 : 1)];
  Tensor indices = ember::empty({static_cast<int64_t>(B) + 2, nb * nnz}, TensorOptions().dtype(ScalarType::Long));
  int64_t* out = indices.data_ptr<int64_t>();
  const int64_t total = nb * nnz;
  dispatch_index(s.compressed_indices().dtype(), [&](auto tag) {
    using I = typename decltype(tag)::type;
    const I* c = s.compressed_indices().data_ptr<I>();
    const I* p = s.plain_indices().data_ptr<I>();
    for (int64_t b = 0; b < nb; ++b) {
      // The batch coordinates of b, row-major over the batch sizes.
      int64_t rest = b;
      for (size_t d = B; d-- > 0;) {
        const int64_t bc = rest % size[d];
        rest /= size[d];
        std::fill(out + static_cast<int64_t>(d) * total + b * nnz, out + static_cast<int64_t>(d) * total + (b + 1) * nnz, bc);
      }
      int64_t* rows = out + static_cast<int64_t>(B) * total + b * nnz;
      int64_t* cols = rows + total;
      const I* cb = c + b * (n_major + 1);
      const I* pb = p + b * nnz;
      for (int64_t i = 0; i < n_major; ++i) {
        for (I k = cb[i]; k < cb[i + 1]; ++k) {
          (csr ? rows : cols)[k] = i;
          (csr ? cols : rows)[k] = static_cast<int64_t>(pb[k]);
        }
      }
    }
  });
  std::vector<int64_t> vshape{nb * nnz};
  for (size_t d = B + 2; d < size.size(); ++d) vshape.push_back(size[d]);
  const Tensor values = ember::reshape(s.values(), vshape);
  return make_sparse_coo(indices, values, size, csr && s.canonical(), "to_sparse");
}

Tensor coo_to_compressed(const Tensor& self, Layout layout, ScalarType index_dtype, const char* op) {
  const SparseTensorImpl& s0 = sparse_coo_impl(self, op);
  const int64_t sd = s0.sparse_dim();
  const IntArrayRef size = self.sizes();
  EMBER_CHECK_VALUE(sd >= 2, op, "(): expected at least 2 sparse dims (the last two become the compressed pair; "
                    "any before them are batch dims), but got a sparse tensor with ", sd);
  const auto B = static_cast<size_t>(sd - 2);
  const bool csr = layout == Layout::SparseCsr;
  // CSC is the CSR of the transpose: swap the pair, coalesce (column-major order), swap back.
  Tensor c;
  if (csr) {
    c = coalesce_sparse_cpu(self);
  } else {
    Tensor idx = s0.indices().clone();
    std::vector<int64_t> tsize(size.begin(), size.end());
    std::swap(tsize[B], tsize[B + 1]);
    Tensor r = s0.indices().select(0, static_cast<int64_t>(B));
    Tensor q = s0.indices().select(0, static_cast<int64_t>(B) + 1);
    idx.select(0, static_cast<int64_t>(B)).copy_(q);
    idx.select(0, static_cast<int64_t>(B) + 1).copy_(r);
    c = coalesce_sparse_cpu(make_sparse_coo(idx, s0.values(), tsize, false, op));
  }
  const SparseTensorImpl& s = sparse_coo_impl(c, op);
  const Tensor idx = s.indices().contiguous();
  const int64_t total = s.nnz();
  const int64_t nb = size_product(size, 0, B);
  const int64_t n_major = size[B + (csr ? 0 : 1)];
  const int64_t* ip = idx.data_ptr<int64_t>();
  // Entries are sorted by (batch..., major, minor): each batch's entries are one run.
  std::vector<int64_t> per_batch(static_cast<size_t>(std::max<int64_t>(nb, 1)), 0);
  for (int64_t k = 0; k < total; ++k) {
    int64_t b = 0;
    for (size_t d = 0; d < B; ++d) b = b * size[d] + ip[static_cast<int64_t>(d) * total + k];
    ++per_batch[static_cast<size_t>(b)];
  }
  const int64_t nnz = nb > 0 ? per_batch[0] : 0;
  for (int64_t b = 1; b < nb; ++b) {
    EMBER_CHECK_VALUE(per_batch[static_cast<size_t>(b)] == nnz, op, "(): expected the same number of specified "
                      "elements in every batch (", nnz, " in batch 0), but batch ", b, " has ",
                      per_batch[static_cast<size_t>(b)]);
  }
  std::vector<int64_t> csize(size.begin(), size.begin() + static_cast<std::ptrdiff_t>(B));
  std::vector<int64_t> psize = csize;
  csize.push_back(n_major + 1);
  psize.push_back(nnz);
  Tensor compressed = ember::zeros(csize, TensorOptions().dtype(index_dtype));
  Tensor plain = ember::empty(psize, TensorOptions().dtype(index_dtype));
  dispatch_index(index_dtype, [&](auto tag) {
    using I = typename decltype(tag)::type;
    I* cp = compressed.data_ptr<I>();
    I* pp = plain.data_ptr<I>();
    const int64_t* major = ip + static_cast<int64_t>(B) * total;
    const int64_t* minor = major + total;
    for (int64_t k = 0; k < total; ++k) {
      const int64_t b = nnz > 0 ? k / nnz : 0;
      ++cp[b * (n_major + 1) + major[k] + 1];
      pp[k] = static_cast<I>(minor[k]);
    }
    for (int64_t b = 0; b < nb; ++b) {
      for (int64_t i = 0; i < n_major; ++i) cp[b * (n_major + 1) + i + 1] += cp[b * (n_major + 1) + i];
    }
  });
  std::vector<int64_t> vshape(size.begin(), size.begin() + static_cast<std::ptrdiff_t>(B));
  vshape.push_back(nnz);
  for (size_t d = B + 2; d < size.size(); ++d) vshape.push_back(size[d]);
  return make_sparse_compressed(compressed, plain, ember::reshape(s.values(), vshape), size, layout, false, op);
}

Tensor to_sparse_compressed(const Tensor& self, Layout layout, std::optional<int64_t> dense_dim, const char* op) {
  if (is_sparse_compressed(self.layout())) {
    const SparseCsrTensorImpl& s = sparse_compressed_impl(self, op);
    EMBER_CHECK_VALUE(!dense_dim || *dense_dim == s.dense_dim(), op, "(): changing the dense_dim of a "
                      "compressed tensor (", s.dense_dim(), " to ", *dense_dim, ") is not supported; go "
                      "through .to_dense()");
    if (self.layout() == layout) return self;
    return coo_to_compressed(compressed_to_coo(self), layout, s.compressed_indices().dtype(), op);
  }
  if (self.layout() == Layout::Sparse) {
    const SparseTensorImpl& s = sparse_coo_impl(self, op);
    EMBER_CHECK_VALUE(!dense_dim || *dense_dim == s.dense_dim(), op, "(): changing the dense_dim of a "
                      "sparse COO tensor (", s.dense_dim(), " to ", *dense_dim, ") is not supported; go "
                      "through .to_dense()");
    return coo_to_compressed(self, layout, ScalarType::Long, op);
  }
  EMBER_CHECK_VALUE(self.layout() == Layout::Strided, op, "(): expected a strided, sparse COO or compressed "
                    "tensor, but got ", self.layout());
  const int64_t dd = dense_dim.value_or(0);
  EMBER_CHECK_VALUE(dd >= 0 && self.dim() - dd >= 2, op, "(): expected a tensor of at least 2 dims before its ",
                    dd, " dense dims, but got one of ", self.dim(), " dims");
  return coo_to_compressed(_to_sparse_cpu(self, self.dim() - dd), layout, ScalarType::Long, op);
}

Tensor sparse_to_dense(const Tensor& self) {
  if (is_sparse_compressed(self.layout())) return _to_dense_sparse_cpu(compressed_to_coo(self));
  return _to_dense_sparse_cpu(self);
}

Tensor sparse_shallow_copy(const Tensor& t) {
  if (t.layout() == Layout::Sparse) {
    const SparseTensorImpl& s = sparse_coo_impl(t, "sparse_shallow_copy");
    auto impl = make_intrusive<SparseTensorImpl>(t.device(), t.dtype());
    impl->set_members(t.sizes(), s.sparse_dim(), s.indices(), s.values(), s.coalesced());
    return Tensor(std::move(impl));
  }
  if (is_sparse_compressed(t.layout())) {
    const SparseCsrTensorImpl& s = sparse_compressed_impl(t, "sparse_shallow_copy");
    auto impl = make_intrusive<SparseCsrTensorImpl>(t.device(), t.dtype(), t.layout());
    impl->set_members(t.sizes(), s.compressed_indices(), s.plain_indices(), s.values(), s.canonical());
    return Tensor(std::move(impl));
  }
  return Tensor();
}

Tensor sparse_gradient(const Tensor& grad, Layout layout, const Tensor& pattern) {
  if (layout == Layout::Strided) return is_sparse_layout(grad.layout()) ? sparse_to_dense(grad) : grad;
  if (!is_sparse_layout(layout) || grad.layout() == layout) return grad;
  // Onto the coalesced pattern: a projection that repeated a coordinate would stand for a
  // multiple of the gradient there.
  if (grad.layout() == Layout::Strided) {
    return sparse_mask_sparse(grad, pattern.layout() == Layout::Sparse ? coalesce_sparse_cpu(pattern) : pattern);
  }
  if (layout == Layout::Sparse) return compressed_to_coo(grad);
  return to_sparse_compressed(grad, layout, std::nullopt, "backward");
}

// The YAML's kernels (native_functions.yaml, "sparse").
Tensor sparse_compressed_tensor_unsafe_cpu(const Tensor& compressed_indices, const Tensor& plain_indices,
                                           const Tensor& values, IntArrayRef size, Layout layout,
                                           bool check_invariants) {
  return make_sparse_compressed(compressed_indices, plain_indices, values, size, layout, check_invariants,
                                layout == Layout::SparseCsc ? "sparse_csc_tensor" : "sparse_csr_tensor");
}

Tensor to_sparse_csr_cpu(const Tensor& self, std::optional<int64_t> dense_dim) {
  return to_sparse_compressed(self, Layout::SparseCsr, dense_dim, "to_sparse_csr");
}

Tensor to_sparse_csc_cpu(const Tensor& self, std::optional<int64_t> dense_dim) {
  return to_sparse_compressed(self, Layout::SparseCsc, dense_dim, "to_sparse_csc");
}

Tensor to_sparse_sparse_csr(const Tensor& self, int64_t sparse_dim) {
  const SparseCsrTensorImpl& s = sparse_compressed_impl(self, "to_sparse");
  EMBER_CHECK_VALUE(sparse_dim == s.batch_dim() + 2, "to_sparse(): a compressed tensor becomes COO over its ",
                    s.batch_dim() + 2, " batch and sparse dims; sparse_dim=", sparse_dim, " is not supported");
  return compressed_to_coo(self);
}

Tensor to_dense_sparse_csr(const Tensor& self, std::optional<ScalarType> dtype, std::optional<bool> masked_grad) {
  (void)masked_grad;
  EMBER_CHECK_VALUE(!dtype.has_value(), "to_dense(): the dtype argument is not supported for sparse tensors "
                    "(PyTorch's neither); convert the result with .to(dtype)");
  return sparse_to_dense(self);
}

Tensor values_sparse_csr(const Tensor& self) { return sparse_compressed_impl(self, "values").values(); }
int64_t nnz_sparse_csr(const Tensor& self) { return sparse_compressed_impl(self, "_nnz").nnz(); }

namespace {
Tensor member(const Tensor& self, Layout want, bool compressed, const char* op) {
  const SparseCsrTensorImpl& s = sparse_compressed_impl(self, op);
  EMBER_CHECK_VALUE(self.layout() == want, op, "(): expected a ", layout_name(want), " tensor, but got a ",
                    layout_name(self.layout()), " one (use ",
                    self.layout() == Layout::SparseCsr ? (compressed ? "crow_indices" : "col_indices")
                                                       : (compressed ? "ccol_indices" : "row_indices"),
                    "())");
  return compressed ? s.compressed_indices() : s.plain_indices();
}
}  // namespace

Tensor crow_indices_sparse_csr(const Tensor& self) { return member(self, Layout::SparseCsr, true, "crow_indices"); }
Tensor col_indices_sparse_csr(const Tensor& self) { return member(self, Layout::SparseCsr, false, "col_indices"); }
Tensor ccol_indices_sparse_csr(const Tensor& self) { return member(self, Layout::SparseCsc, true, "ccol_indices"); }
Tensor row_indices_sparse_csr(const Tensor& self) { return member(self, Layout::SparseCsc, false, "row_indices"); }

namespace {

// ember.sparse.densify_fallback(): per thread, with the warning Python gives.
struct DensifyState {
  bool on = false;
  void (*warn)(const std::string&) = nullptr;
};
thread_local DensifyState tls_densify;

void sparse_missing(const OperatorHandle& op, DispatchKeySet keys, Stack* stack);

// Whether the op has a COO kernel of its own (not the SparseCPU fallback).
bool has_coo_kernel(const OperatorHandle& op) {
  const KernelFunction& k = op.entry().lookup(DispatchKey::SparseCPU);
  return op.entry().has_kernel_for(DispatchKey::SparseCPU) && k.fn != reinterpret_cast<void*>(&sparse_missing);
}

// The op on the dense forms of its sparse arguments, with a warning (densify_fallback), or
// the one missing-kernel error naming the op and the layout.
void densify_or_refuse(const OperatorHandle& op, DispatchKeySet keys, Stack* stack, DispatchKey key) {
  if (!tls_densify.on) op.entry().report_missing_kernel(key);
  const FunctionSchema& schema = op.schema();
  for (const Argument& a : schema.arguments) {
    EMBER_CHECK_NOT_IMPLEMENTED(!(a.alias && a.alias->is_write), op.name().str(), "(): densify_fallback cannot run "
                                "an op that writes its sparse argument '", a.name, "' (its result would be dense)");
  }
  if (tls_densify.warn) {
    tls_densify.warn(op.name().str() + "(): no sparse kernel; running it on the dense form of its sparse "
                     "arguments (ember.sparse.densify_fallback)");
  }
  sparse_on_dense(op, keys, stack);
}

void sparse_missing(const OperatorHandle& op, DispatchKeySet keys, Stack* stack) {
  densify_or_refuse(op, keys, stack, DispatchKey::SparseCPU);
}

// Note [Compressed through COO]: the SparseCsrCPU fallback.
void compressed_through_coo(const OperatorHandle& op, DispatchKeySet keys, Stack* stack) {
  const std::string name = op.name().str();
  if (!has_coo_kernel(op)) return densify_or_refuse(op, keys, stack, DispatchKey::SparseCsrCPU);
  const FunctionSchema& schema = op.schema();
  const size_t nargs = schema.arguments.size();
  EMBER_CHECK(stack->size() >= nargs, name, "(): the stack holds fewer values than the op's arguments");
  const size_t first = stack->size() - nargs;
  std::optional<Layout> layout;
  int64_t batch_dim = 0;
  ScalarType index_dtype = ScalarType::Long;
  Tensor inplace_self;
  auto note = [&](const Tensor& t) {
    if (!layout) {
      const SparseCsrTensorImpl& s = sparse_compressed_impl(t, name.c_str());
      layout = t.layout();
      batch_dim = s.batch_dim();
      index_dtype = s.compressed_indices().dtype();
    }
  };
  for (size_t i = 0; i < nargs; ++i) {
    IValue& v = (*stack)[first + i];
    if (v.is_tensor()) {
      const Tensor t = v.to_tensor();
      if (!t.defined() || !is_sparse_compressed(t.layout())) continue;
      note(t);
      const auto& alias = schema.arguments[i].alias;
      if (alias && alias->is_write) {
        EMBER_CHECK_NOT_IMPLEMENTED(i == 0, name, "(): writing into a ", layout_name(t.layout()),
                                    " '", schema.arguments[i].name, "' is not supported; write into a strided "
                                    "or COO tensor and convert");
        inplace_self = t;
      }
      v = IValue(compressed_to_coo(t));
    } else if (v.is_tensor_list()) {
      std::vector<Tensor> ts = v.to_tensor_list();
      bool any = false;
      for (Tensor& t : ts) {
        if (!t.defined() || !is_sparse_compressed(t.layout())) continue;
        note(t);
        t = compressed_to_coo(t);
        any = true;
      }
      if (any) v = IValue(std::move(ts));
    }
  }
  op.redispatch_boxed(DispatchKeySet(DispatchKey::SparseCPU), stack);
  if (!layout) return;
  const size_t nret = schema.returns.size();
  for (size_t i = stack->size() - nret; i < stack->size(); ++i) {
    IValue& v = (*stack)[i];
    if (!v.is_tensor()) continue;
    const Tensor t = v.to_tensor();
    if (!t.defined() || t.layout() != Layout::Sparse || sparse_coo_impl(t, name.c_str()).sparse_dim() != batch_dim + 2) {
      continue;
    }
    Tensor back = coo_to_compressed(t, *layout, index_dtype, name.c_str());
    if (inplace_self.defined() && i == stack->size() - nret) {
      // An in-place op wrote the COO copy of self: self takes the result's members.
      const SparseCsrTensorImpl& r = sparse_compressed_impl(back, name.c_str());
      static_cast<SparseCsrTensorImpl*>(inplace_self.impl())
          ->set_members(back.sizes(), r.compressed_indices(), r.plain_indices(), r.values(), r.canonical());
      back = inplace_self;
    }
    v = IValue(std::move(back));
  }
}

}  // namespace

EMBER_LIBRARY_IMPL(_, SparseCsrCPU, m) { m.fallback(CppFunction::boxed(&compressed_through_coo)); }
EMBER_LIBRARY_IMPL(_, SparseCPU, m) { m.fallback(CppFunction::boxed(&sparse_missing)); }

void set_sparse_densify_fallback(bool on, void (*warn)(const std::string&)) { tls_densify = {on, warn}; }
bool sparse_densify_fallback() { return tls_densify.on; }

}  // namespace ember::native
