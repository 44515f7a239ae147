#include "aten/TensorFactories.h"

#include <cstring>

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
  Tensor result = ember::empty(sizes, options.dtype(options.dtype().value_or(inferred)));
  result.copy_(values);
  return options.finish(result);
}

}  // namespace detail

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
