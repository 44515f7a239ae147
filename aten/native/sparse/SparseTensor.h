#pragma once
/// Sparse COO tensors from C++ (c10/core/SparseTensorImpl.h; Note [Sparse through dense ops]
/// in SparseTensor.cpp). The YAML entries and Python API over these come next (issue 24).

#include <optional>
#include <string>

#include "c10/core/SparseCsrTensorImpl.h"
#include "c10/core/SparseTensorImpl.h"
#include "c10/dispatch/KernelFunction.h"

namespace ember::native {

/// Whether l is a sparse layout (COO, CSR or CSC).
inline bool is_sparse_layout(Layout l) { return l == Layout::Sparse || is_sparse_compressed(l); }
/// The product of s[begin:end].
inline int64_t size_product(IntArrayRef s, size_t begin, size_t end) {
  int64_t p = 1;
  for (size_t i = begin; i < end; ++i) p *= s[i];
  return p;
}

/// A sparse COO tensor of `size` over int64 `indices` [sparse_dim, nnz] and `values`
/// [nnz, dense sizes...] (shared, not copied), after checking shapes, dtypes and that every
/// coordinate lies in [0, size[d]) (Note [Sparse invariants]; a ValueError otherwise, naming `op`).
/// `coalesced` claims sorted, unique coordinates (the caller's word; one or no nonzero is).
EMBER_API Tensor make_sparse_coo(const Tensor& indices, const Tensor& values, IntArrayRef size,
                                 bool coalesced, const char* op = "sparse_coo_tensor");
/// self with its coordinates sorted (row-major) and unique, duplicates summed; self if it
/// is coalesced already.
EMBER_API Tensor coalesce_sparse_cpu(const Tensor& self);
/// The strided tensor self stands for (duplicates add up), in dtype when given.
EMBER_API Tensor _to_dense_sparse_cpu(const Tensor& self, std::optional<ScalarType> dtype = std::nullopt);
/// A strided tensor as sparse COO over its first sparse_dim dims (all by default): the
/// coordinates of the non-zero elements (of the rows with any non-zero, when hybrid),
/// coalesced.
EMBER_API Tensor _to_sparse_cpu(const Tensor& self, std::optional<int64_t> sparse_dim = std::nullopt);

/// A sparse compressed tensor (layout sparse_csr or sparse_csc) of `size` over
/// compressed_indices [*batch, n_major + 1], plain_indices [*batch, nnz] (int32 or int64)
/// and values [*batch, nnz, *dense], after checking shapes, dtypes, the compressed rows and
/// every plain index (Note [Sparse invariants]); with check_invariants, also that the plain
/// indices are sorted and unique along each line. A ValueError otherwise, naming `op`.
EMBER_API Tensor make_sparse_compressed(const Tensor& compressed_indices, const Tensor& plain_indices,
                                        const Tensor& values, IntArrayRef size, Layout layout,
                                        bool check_invariants, const char* op);
/// The compressed tensor with like's indices and other values (of the same sizes).
EMBER_API Tensor compressed_with_values(const Tensor& like, const Tensor& values, const char* op);
/// A compressed tensor as COO over its batch and sparse dims (coalesced when it is canonical CSR).
EMBER_API Tensor compressed_to_coo(const Tensor& self);
/// A COO tensor of at least 2 sparse dims as `layout` (the last two sparse dims compressed,
/// those before them batch dims), with indices of index_dtype (int32 or int64).
EMBER_API Tensor coo_to_compressed(const Tensor& self, Layout layout, ScalarType index_dtype, const char* op);
/// Any tensor (strided, COO, CSR, CSC) as `layout` (sparse_csr or sparse_csc); dense_dim
/// for a strided self (0 by default).
EMBER_API Tensor to_sparse_compressed(const Tensor& self, Layout layout, std::optional<int64_t> dense_dim,
                                      const char* op);
/// A new sparse tensor (no autograd state) over t's members, shared; undefined for a strided t.
EMBER_API Tensor sparse_shallow_copy(const Tensor& t);
/// Note [Sparse gradients] (aten/autograd/Node.h): grad made to fit an output of `layout`:
/// a dense grad of a sparse output is projected onto `pattern` (that output's members), a
/// sparse one of another layout converted, a sparse grad of a strided output made dense.
EMBER_API Tensor sparse_gradient(const Tensor& grad, Layout layout, const Tensor& pattern);
/// The gradient of _sparse_softmax (log: of _sparse_log_softmax) over dim, given its output.
EMBER_API Tensor sparse_softmax_backward(const Tensor& grad, const Tensor& output, int64_t dim, bool log);
/// ember.sparse.densify_fallback(), on this thread: an op without a sparse kernel runs on the
/// dense forms of its sparse arguments (calling `warn` with a message first) instead of
/// raising the missing-kernel error.
EMBER_API void set_sparse_densify_fallback(bool on, void (*warn)(const std::string&));
EMBER_API bool sparse_densify_fallback();
/// The strided tensor a sparse tensor of any layout stands for.
EMBER_API Tensor sparse_to_dense(const Tensor& self);

/// The SparseCPU kernel of every op declared `sparse: values` in the YAML (Note [Sparse on
/// values], codegen/model.py): the op on self's coalesced values, with self's pattern.
EMBER_API void sparse_on_values(const OperatorHandle& op, DispatchKeySet keys, Stack* stack);
/// The SparseCPU kernel of every op declared `sparse: dense` (f(0) != 0): the op on self's
/// dense form; the result is strided.
EMBER_API void sparse_on_dense(const OperatorHandle& op, DispatchKeySet keys, Stack* stack);
/// The kernel of every op declared `sparse: probe`: the op on a zero of self's dtype (the
/// other arguments as given) decides: sparse_on_values when it gives zero, else sparse_on_dense.
EMBER_API void sparse_on_probe(const OperatorHandle& op, DispatchKeySet keys, Stack* stack);
/// lin[k] = sum_d indices[d][k] * stride_d over the row-major strides of the first
/// sparse_dim sizes (int64 [nnz]).
EMBER_API Tensor sparse_linear_index(const Tensor& indices, IntArrayRef size, int64_t sparse_dim);
/// The coordinates [sparse_dim, n] of row-major linear indices (sparse_linear_index's inverse).
EMBER_API Tensor sparse_unravel(const Tensor& lin, IntArrayRef size, int64_t sparse_dim);

}  // namespace ember::native
