#include "c10/core/SparseCsrTensorImpl.h"

#include "c10/util/Exception.h"

namespace ember {

SparseCsrTensorImpl::SparseCsrTensorImpl(Device device, ScalarType dtype, Layout layout)
    : TensorImpl(Storage(), tensor_key_set(device, Layout::SparseCsr), dtype) {
  EMBER_CHECK_VALUE(is_sparse_compressed(layout), "SparseCsrTensorImpl(): expected a compressed layout, but got ",
                    layout);
  set_layout(layout);
}

void SparseCsrTensorImpl::set_members(IntArrayRef sizes, Tensor compressed, Tensor plain, Tensor values,
                                      bool canonical) {
  set_sizes_contiguous(sizes);
  compressed_ = std::move(compressed);
  plain_ = std::move(plain);
  values_ = std::move(values);
  canonical_ = canonical;
}

SparseCsrTensorImpl& sparse_compressed_impl(const Tensor& t, const char* op) {
  EMBER_CHECK_VALUE(t.defined() && is_sparse_compressed(t.layout()), op,
                    "(): expected a sparse_csr or sparse_csc tensor, but got ",
                    t.defined() ? layout_name(t.layout()) : "an undefined tensor");
  return *static_cast<SparseCsrTensorImpl*>(t.impl());
}

}  // namespace ember
