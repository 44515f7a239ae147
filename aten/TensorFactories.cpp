#include "aten/TensorFactories.h"

#include <cstring>
#include <memory>

#include "c10/core/DispatchKeySet.h"
#include "c10/core/Storage.h"
#include "c10/util/DimVector.h"
#include "ember/generated/ops/empty.h"

namespace ember {
namespace detail {

void check_level(size_t depth, size_t size, std::vector<int64_t>& sizes) {
  if (depth == sizes.size()) {
    sizes.push_back(static_cast<int64_t>(size));
    return;
  }
  EMBER_CHECK_VALUE(depth < sizes.size() && sizes[depth] == static_cast<int64_t>(size),
                    "tensor(): expected a rectangular nested list, but got a list of ", size,
                    " at depth ", depth, " where the first had ",
                    depth < sizes.size() ? sizes[depth] : 0);
}

Tensor tensor_from_data(const void* data, ScalarType data_dtype, IntArrayRef sizes,
                        ScalarType inferred, const TensorOptions& options) {
  Tensor values = ember::empty(sizes, TensorOptions().dtype(data_dtype));
  if (values.numel() > 0) {
    std::memcpy(values.data_ptr(), data, values.numel() * itemsize(data_dtype));
  }
  // requires_grad applies to the filled result (finish below), not to the empty one.
  Tensor result = ember::empty(
      sizes, options.dtype(options.dtype_opt().value_or(inferred)).requires_grad(std::nullopt));
  result.copy_(values);
  return options.finish(result);
}

}  // namespace detail

namespace {

// The context a from_blob deleter travels in: DataPtr's deleter is a plain function.
struct BlobDeleter {
  std::function<void(void*)> deleter;
  void* data;
};

void call_blob_deleter(void* context) {
  std::unique_ptr<BlobDeleter> d(static_cast<BlobDeleter*>(context));
  d->deleter(d->data);
}

Tensor blob_tensor(void* data, IntArrayRef sizes, IntArrayRef strides,
                   const std::function<void(void*)>* deleter, const TensorOptions& options) {
  EMBER_CHECK_VALUE(sizes.size() == strides.size(), "from_blob(): expected 'strides' to have one "
                    "entry per dim of 'sizes' (", sizes.size(), "), but got ", strides.size());
  EMBER_CHECK_NOT_IMPLEMENTED(options.device().is_cpu(),
                              "from_blob(): expected a CPU device, but got ", options.device());
  EMBER_CHECK_NOT_IMPLEMENTED(options.layout() == Layout::Strided,
                              "from_blob(): expected a strided layout, but got ", options.layout());
  const ScalarType dtype = options.dtype();
  int64_t numel = 1, last = 0;
  for (size_t d = 0; d < sizes.size(); ++d) {
    EMBER_CHECK_VALUE(sizes[d] >= 0, "from_blob(): expected non-negative sizes, but got ", sizes);
    EMBER_CHECK_VALUE(strides[d] >= 0, "from_blob(): expected non-negative strides, but got ",
                      strides);
    numel *= sizes[d];
    last += (sizes[d] - 1) * strides[d];
  }
  EMBER_CHECK_VALUE(data != nullptr || numel == 0,
                    "from_blob(): expected a non-null data pointer for ", numel, " elements");
  const size_t nbytes = numel == 0 ? 0 : static_cast<size_t>(last + 1) * itemsize(dtype);
  DataPtr ptr(data, nullptr, nullptr, Device(DeviceType::CPU));
  if (deleter && *deleter) {
    auto* context = new BlobDeleter{*deleter, data};
    ptr = DataPtr(data, context, &call_blob_deleter, Device(DeviceType::CPU));
  }
  Storage storage(make_intrusive<StorageImpl>(std::move(ptr), nbytes));
  auto impl = make_intrusive<TensorImpl>(std::move(storage),
                                         tensor_key_set(Device(DeviceType::CPU)), dtype);
  impl->set_sizes_and_strides(sizes, strides, 0);
  return options.finish(Tensor(std::move(impl)));
}

DimVector contiguous_strides(IntArrayRef sizes) {
  DimVector strides(sizes.size(), 1);
  for (size_t d = sizes.size(); d-- > 1;) strides[d - 1] = strides[d] * std::max<int64_t>(sizes[d], 1);
  return strides;
}

}  // namespace

Tensor from_blob(void* data, IntArrayRef sizes, IntArrayRef strides, const TensorOptions& options) {
  return blob_tensor(data, sizes, strides, nullptr, options);
}

Tensor from_blob(void* data, IntArrayRef sizes, const TensorOptions& options) {
  return blob_tensor(data, sizes, contiguous_strides(sizes), nullptr, options);
}

Tensor from_blob(void* data, IntArrayRef sizes, IntArrayRef strides,
                 const std::function<void(void*)>& deleter, const TensorOptions& options) {
  return blob_tensor(data, sizes, strides, &deleter, options);
}

Tensor from_blob(void* data, IntArrayRef sizes, const std::function<void(void*)>& deleter,
                 const TensorOptions& options) {
  return blob_tensor(data, sizes, contiguous_strides(sizes), &deleter, options);
}

Scalar element(const Tensor& t, IntArrayRef index) {
  EMBER_CHECK_VALUE(t.device().type() == DeviceType::CPU,
                    "element(): expected a CPU tensor, but got a ", t.device(), " tensor");
  EMBER_CHECK_INDEX(static_cast<int64_t>(index.size()) == t.dim(), "element(): expected ", t.dim(),
                    " indices for a ", t.dim(), "-D tensor, but got ", index);
  int64_t offset = 0;
  for (int64_t d = 0; d < t.dim(); ++d) {
    const int64_t size = t.sizes()[d];
    const int64_t i = index[d] < 0 ? index[d] + size : index[d];
    EMBER_CHECK_INDEX(i >= 0 && i < size, "element(): index ", index[d], " is out of range for "
                      "dimension ", d, " of size ", size);
    offset += i * t.strides()[d];
  }
  return dispatch_all_types(t.scalar_type(), "element", [&](auto tag) -> Scalar {
    using T = typename decltype(tag)::type;
    const T v = static_cast<const T*>(t.data_ptr())[offset];
    if constexpr (std::is_same_v<T, bool> || kIsComplex<T>) return Scalar(v);
    else if constexpr (std::is_integral_v<T>) return Scalar(static_cast<int64_t>(v));
    else return Scalar(static_cast<double>(v));
  });
}

}  // namespace ember
