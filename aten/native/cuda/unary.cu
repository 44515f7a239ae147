// The unary float family on CUDA (exp, log, sqrt, sigmoid, tanh, the trigonometric ops...):
// the CPU's functors (aten/native/UnaryOps.h) through the elementwise launcher (Note [CUDA
// elementwise]), computing in the float result type of self (integral inputs in the
// default float dtype, 16-bit floats in float32), as on the CPU.
#include <type_traits>

#include "aten/native/TensorIterator.h"
#include "aten/native/UnaryOps.h"
#include "aten/native/cuda/CudaDispatch.h"
#include "aten/native/cuda/Loops.cuh"
#include "aten/native/unary.h"
#include "ember/generated/ops/empty_like.h"

namespace ember::native {
namespace {

template <class F>
void float_unary(const char* name, const Tensor& self, const Tensor& out) {
  const ScalarType compute = float_result_type(self.dtype());
  cuda::check_same_device(name, {&out, &self});
  check_output_overlap(out, {&self});
  if (out.numel() == 0) return;
  cuda::DeviceGuard guard(out.device());
  cuda::dispatch_types(compute, name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_floating_point_v<cuda::OpMath<T>>) {
      const Tensor in = self.dtype() == compute ? self : self.to(compute);
      const bool direct = out.dtype() == compute;
      const Tensor dst = direct ? out : ember::empty_like(out, TensorOptions().dtype(compute));
      cuda::launch<T, T, 1>(TensorIterator({&dst}, {&in}, name), F{}, name);
      if (!direct) out.copy_(dst);
    } else {
      EMBER_INTERNAL_ASSERT(false, name, "(): the float family computes in a floating dtype, not ", compute);
    }
  });
}

}  // namespace

#define EMBER_CUDA_FLOAT_UNARY(op, expr) \
  void op##_out_cuda(const Tensor& self, const Tensor& out) { float_unary<real_ops::op>(#op, self, out); }
EMBER_FLOAT_UNARY_OPS(EMBER_CUDA_FLOAT_UNARY)
#undef EMBER_CUDA_FLOAT_UNARY

}  // namespace ember::native
