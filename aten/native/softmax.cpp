// softmax and log_softmax's composite front ends (the kernels: cpu/softmax.cpp).
#include "ember/generated/ops/_log_softmax.h"
#include "ember/generated/ops/_softmax.h"

namespace ember::native {

Tensor softmax(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  return ember::_softmax(dtype ? self.to(*dtype) : self, dim, false);
}

Tensor log_softmax(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  return ember::_log_softmax(dtype ? self.to(*dtype) : self, dim, false);
}

}  // namespace ember::native
