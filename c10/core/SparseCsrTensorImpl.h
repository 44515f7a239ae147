#pragma once
/// A sparse compressed tensor (layouts sparse_csr and sparse_csc, key SparseCsrCPU), with
/// optional batch dims in front and dense dims behind (hybrid):
///  - `compressed_indices` [*batch, n_major + 1]: where each major line (a CSR row, a CSC
///    column) starts among the entries, from 0 to nnz (crow_indices / ccol_indices);
///  - `plain_indices` [*batch, nnz]: the minor coordinate of each entry (col_indices /
///    row_indices);
///  - `values` [*batch, nnz, *dense]: one slice per entry.
/// Indices are int32 or int64 (both the same). It has no storage of its own: the members hold
/// the data. `canonical` says the minor coordinates increase strictly along each line (sorted
/// and unique: the compressed form of a coalesced COO tensor).
///
/// Note [Sparse invariants] holds here too: every SparseCsrTensorImpl is made by
/// native::make_sparse_compressed (aten/native/sparse/SparseCompressed.cpp), which checks
/// shapes, dtypes, that each compressed row starts at 0, ends at nnz and never decreases, and
/// that every plain index is in bounds, before the tensor exists. Sortedness is checked only
/// when asked (check_invariants=True, PyTorch's flag); no kernel relies on it for memory safety.

#include "c10/core/Tensor.h"
#include "c10/core/TensorImpl.h"

namespace ember {

/// Whether l is a compressed sparse layout (sparse_csr, sparse_csc).
constexpr bool is_sparse_compressed(Layout l) { return l == Layout::SparseCsr || l == Layout::SparseCsc; }

class EMBER_API SparseCsrTensorImpl final : public TensorImpl {
 public:
  SparseCsrTensorImpl(Device device, ScalarType dtype, Layout layout);

  int64_t batch_dim() const { return compressed_.dim() - 1; }
  int64_t dense_dim() const { return dim() - batch_dim() - 2; }
  int64_t nnz() const { return plain_.sizes().back(); }
  const Tensor& compressed_indices() const { return compressed_; }
  const Tensor& plain_indices() const { return plain_; }
  const Tensor& values() const { return values_; }
  bool canonical() const { return canonical_; }

  /// Sets the geometry and the members; the caller (make_sparse_compressed) has checked them.
  void set_members(IntArrayRef sizes, Tensor compressed, Tensor plain, Tensor values, bool canonical);
  /// Turns a CSR tensor into the CSC tensor of its transpose (or back), same members.
  void set_compressed_layout(Layout l) { set_layout(l); }

 private:
  Tensor compressed_;
  Tensor plain_;
  Tensor values_;
  bool canonical_ = false;
};

/// t's SparseCsrTensorImpl; a clear error naming `op` when t is not sparse CSR or CSC.
EMBER_API SparseCsrTensorImpl& sparse_compressed_impl(const Tensor& t, const char* op);

}  // namespace ember
