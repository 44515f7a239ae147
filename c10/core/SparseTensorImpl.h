#pragma once
/// A sparse COO tensor (layout sparse_coo, key SparseCPU): an int64 `indices` matrix of
/// [sparse_dim, nnz] coordinates and `values` of [nnz, dense sizes...], one slice per
/// coordinate (the tensor's trailing dense_dim dims; hybrid when dense_dim > 0). It has no
/// storage of its own: the members hold the data. `coalesced` says the coordinates are
/// sorted (row-major) and unique; duplicates, when present, add up (PyTorch's semantics).
///
/// Note [Sparse invariants]: every SparseTensorImpl is made by sparse::make_coo (aten/native/
/// sparse/), which checks the members' shapes and dtypes and every coordinate against the
/// sizes before the tensor exists, so no kernel can read out of bounds through one.

#include "c10/core/Tensor.h"
#include "c10/core/TensorImpl.h"

namespace ember {

class EMBER_API SparseTensorImpl final : public TensorImpl {
 public:
  SparseTensorImpl(Device device, ScalarType dtype);

  int64_t sparse_dim() const { return sparse_dim_; }
  int64_t dense_dim() const { return dim() - sparse_dim_; }
  int64_t nnz() const { return values_.defined() ? values_.sizes()[0] : 0; }
  const Tensor& indices() const { return indices_; }
  const Tensor& values() const { return values_; }
  bool coalesced() const { return coalesced_; }
  void set_coalesced(bool c) { coalesced_ = c; }

  /// Sets the geometry and the members; the caller (sparse::make_coo) has checked them.
  void set_members(IntArrayRef sizes, int64_t sparse_dim, Tensor indices, Tensor values, bool coalesced);

 private:
  int64_t sparse_dim_ = 0;
  Tensor indices_;
  Tensor values_;
  bool coalesced_ = false;
};

/// t's SparseTensorImpl; a clear error naming `op` when t is not a sparse COO tensor.
EMBER_API SparseTensorImpl& sparse_coo_impl(const Tensor& t, const char* op);

}  // namespace ember
