#include "c10/core/SparseTensorImpl.h"

#include "c10/util/Exception.h"

namespace ember {

SparseTensorImpl::SparseTensorImpl(Device device, ScalarType dtype)
    : TensorImpl(Storage(), tensor_key_set(device, Layout::Sparse), dtype) {}

void SparseTensorImpl::set_members(IntArrayRef sizes, int64_t sparse_dim, Tensor indices,
                                   Tensor values, bool coalesced) {
  set_sizes_contiguous(sizes);
  sparse_dim_ = sparse_dim;
  indices_ = std::move(indices);
  values_ = std::move(values);
  coalesced_ = coalesced;
}

SparseTensorImpl& sparse_coo_impl(const Tensor& t, const char* op) {
  EMBER_CHECK_VALUE(t.defined() && t.layout() == Layout::Sparse, op,
                    "(): expected a sparse_coo tensor, but got ",
                    t.defined() ? layout_name(t.layout()) : "an undefined tensor");
  return *static_cast<SparseTensorImpl*>(t.impl());
}

}  // namespace ember
