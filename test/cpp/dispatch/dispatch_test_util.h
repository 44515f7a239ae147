#pragma once
// Helpers shared by the dispatcher tests.

#include "test/cpp/ember_api.h"

namespace ember::testing {

/// A tensor with no data whose key set is the one a tensor on `device` has.
inline Tensor tensor_on(Device device, Layout layout = Layout::Strided) {
  auto impl = make_intrusive<TensorImpl>(Storage(), tensor_key_set(device, layout), ScalarType::Float);
  return Tensor(std::move(impl));
}

/// A tensor with exactly these keys.
inline Tensor tensor_with_keys(DispatchKeySet keys) {
  return Tensor(make_intrusive<TensorImpl>(Storage(), keys, ScalarType::Float));
}

}  // namespace ember::testing
