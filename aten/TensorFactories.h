#pragma once
/// Tensors from C++ values, as torch.tensor() builds them from Python lists, and back:
///   ember::tensor({1.0, 2.0})            // float32 (the default float type), shape [2]
///   ember::tensor({{1, 2}, {3, 4}})      // int64, shape [2, 2]
///   ember::tensor(std::vector<std::vector<double>>{...}, ScalarType::Double)
///   ember::element(t, {1, 0}).to_double(), ember::to_vector<float>(t)

#include <complex>
#include <functional>
#include <initializer_list>
#include <type_traits>
#include <vector>

#include "aten/native/Dispatch.h"
#include "c10/core/Tensor.h"
#include "c10/core/TensorOptions.h"

namespace ember {

/// A C++ type tensor() accepts as an element: bool, an integer, a float or a std::complex.
template <class T>
concept TensorLiteral = std::is_arithmetic_v<T> || kIsComplex<T>;

namespace detail {

// Each literal is stored as one of four wide types, and tensor() infers the dtype as
// torch.tensor() does: bool, int64, the default float32, complex64.
template <TensorLiteral T>
using WideLiteral = std::conditional_t<
    std::is_same_v<T, bool>, bool,
    std::conditional_t<std::is_integral_v<T>, int64_t,
                       std::conditional_t<std::is_floating_point_v<T>, double,
                                          std::complex<double>>>>;

template <TensorLiteral T>
constexpr ScalarType inferred_dtype() {
  using W = WideLiteral<T>;
  if constexpr (std::is_same_v<W, bool>) return ScalarType::Bool;
  else if constexpr (std::is_same_v<W, int64_t>) return ScalarType::Long;
  else if constexpr (std::is_same_v<W, double>) return ScalarType::Float;
  else return ScalarType::ComplexFloat;
}

/// A tensor of `options`' dtype (else `inferred`) and device from contiguous values of
/// dtype `data_dtype` (bool, int64, float64 or complex128) in row-major order.
EMBER_API Tensor tensor_from_data(const void* data, ScalarType data_dtype, IntArrayRef sizes,
                                  ScalarType inferred, const TensorOptions& options);

// How a wide literal is buffered: bools as bytes (std::vector<bool> has no data()).
template <class W>
using Buffered = std::conditional_t<std::is_same_v<W, bool>, uint8_t, W>;

template <TensorLiteral T, class L>
void flatten(const T& v, size_t, std::vector<int64_t>&, std::vector<L>& out) {
  out.push_back(static_cast<L>(static_cast<WideLiteral<T>>(v)));
}
template <class V, class L>
void flatten(const std::vector<V>& v, size_t depth, std::vector<int64_t>& sizes,
             std::vector<L>& out);
template <class V, class L>
void flatten(std::initializer_list<V> v, size_t depth, std::vector<int64_t>& sizes,
             std::vector<L>& out);

// Records the size of this nesting level the first time it is seen; later lists at the
// same level must match it (a ragged list is a ValueError, as in torch.tensor()).
EMBER_API void check_level(size_t depth, size_t size, std::vector<int64_t>& sizes);

template <class V, class L>
void flatten(const std::vector<V>& v, size_t depth, std::vector<int64_t>& sizes,
             std::vector<L>& out) {
  check_level(depth, v.size(), sizes);
  for (const V& x : v) flatten(x, depth + 1, sizes, out);
}
template <class V, class L>
void flatten(std::initializer_list<V> v, size_t depth, std::vector<int64_t>& sizes,
             std::vector<L>& out) {
  check_level(depth, v.size(), sizes);
  for (const V& x : v) flatten(x, depth + 1, sizes, out);
}

template <class T> struct LiteralOf { using type = T; };
template <class T> struct LiteralOf<std::vector<T>> : LiteralOf<T> {};
template <class T> struct LiteralOf<std::initializer_list<T>> : LiteralOf<T> {};

template <class Nested>
Tensor tensor_from_nested(const Nested& values, const TensorOptions& options) {
  using T = typename LiteralOf<Nested>::type;
  using W = WideLiteral<T>;
  std::vector<int64_t> sizes;
  std::vector<Buffered<W>> flat;
  flatten(values, 0, sizes, flat);
  return tensor_from_data(flat.data(), kScalarTypeOf<W>, sizes, inferred_dtype<T>(), options);
}

}  // namespace detail

/// A 0-d tensor holding value.
template <TensorLiteral T>
Tensor tensor(T value, const TensorOptions& options = {}) {
  const detail::WideLiteral<T> wide = static_cast<detail::WideLiteral<T>>(value);
  return detail::tensor_from_data(&wide, kScalarTypeOf<detail::WideLiteral<T>>, IntArrayRef(),
                                  detail::inferred_dtype<T>(), options);
}
/// A 1-d tensor: `tensor({1.0, 2.0})`.
template <TensorLiteral T>
Tensor tensor(std::initializer_list<T> values, const TensorOptions& options = {}) {
  return detail::tensor_from_nested(values, options);
}
/// A 2-d tensor: `tensor({{1, 2}, {3, 4}})`.
template <TensorLiteral T>
Tensor tensor(std::initializer_list<std::initializer_list<T>> values,
              const TensorOptions& options = {}) {
  return detail::tensor_from_nested(values, options);
}
/// A 3-d tensor.
template <TensorLiteral T>
Tensor tensor(std::initializer_list<std::initializer_list<std::initializer_list<T>>> values,
              const TensorOptions& options = {}) {
  return detail::tensor_from_nested(values, options);
}
/// A 4-d tensor.
template <TensorLiteral T>
Tensor tensor(std::initializer_list<
                  std::initializer_list<std::initializer_list<std::initializer_list<T>>>> values,
              const TensorOptions& options = {}) {
  return detail::tensor_from_nested(values, options);
}
/// A tensor from (nested, rectangular) vectors: `tensor(std::vector<std::vector<int>>{...})`.
template <class V>
Tensor tensor(const std::vector<V>& values, const TensorOptions& options = {}) {
  return detail::tensor_from_nested(values, options);
}

/// A CPU tensor over memory the caller owns (libtorch's from_blob): no copy, and the memory
/// must outlive every tensor that views it. Strides are in elements; options' dtype
/// (default float32) is the memory's element type. Throws ValueError for a null pointer
/// with elements, negative sizes or strides, or mismatched ranks, NotImplementedError
/// for a device other than the CPU, and ValueError for requires_grad on a dtype that
/// cannot require grad (TypeError never: the dtype is the caller's word).
EMBER_API Tensor from_blob(void* data, IntArrayRef sizes, IntArrayRef strides,
                           const TensorOptions& options = {});
/// The same, contiguous.
EMBER_API Tensor from_blob(void* data, IntArrayRef sizes, const TensorOptions& options = {});
/// The same, calling deleter(data) once the last tensor viewing the memory is gone.
EMBER_API Tensor from_blob(void* data, IntArrayRef sizes, IntArrayRef strides,
                           const std::function<void(void*)>& deleter,
                           const TensorOptions& options = {});
EMBER_API Tensor from_blob(void* data, IntArrayRef sizes,
                           const std::function<void(void*)>& deleter,
                           const TensorOptions& options = {});

/// The element of a CPU tensor at `index` (one entry per dimension; negative entries count
/// from the end), as item() would return it. IndexError when out of range.
EMBER_API Scalar element(const Tensor& t, IntArrayRef index);

/// Every element of a CPU tensor in row-major order, converted to T (one of the element
/// types: bool, uint8_t ... int64_t, Half, BFloat16, float, double, std::complex).
template <class T>
std::vector<T> to_vector(const Tensor& t) {
  EMBER_CHECK_VALUE(t.device().type() == DeviceType::CPU,
                    "to_vector(): expected a CPU tensor, but got a ", t.device(), " tensor");
  const Tensor c = t.to(kScalarTypeOf<T>).contiguous();
  const T* p = static_cast<const T*>(c.data_ptr());
  return std::vector<T>(p, p + c.numel());
}

}  // namespace ember
