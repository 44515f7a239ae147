// Comparisons on CUDA: eq, ne, lt, le, gt, ge (Tensor and Scalar forms), with the CPU's
// functors (aten/native/CompareOps.h) through the elementwise launcher. Operands are
// compared in their promoted dtype; the result is bool (an out= of another dtype receives a
// converted copy); a CPU 0-d operand is a number.
#include "aten/native/CompareOps.h"
#include "aten/native/Structured.h"
#include "aten/native/TensorIterator.h"
#include "aten/native/cuda/CudaDispatch.h"
#include "aten/native/cuda/Loops.cuh"
#include "ember/generated/ops/empty_like.h"

namespace ember::native {
namespace {

using cuda::OpMath;

template <class F, class C>
struct WithConstant {
  F f;
  C b;
  EMBER_HOST_DEVICE bool operator()(C a) const { return f(a, b); }
};

template <Cmp c>
void run(const char* name, ScalarType compute, const Tensor& dst, const Tensor& a, const Tensor* b,
         const Scalar* constant) {
  EMBER_CHECK_TYPE(!is_complex(compute) || c == Cmp::Eq || c == Cmp::Ne, name, "(): not implemented for '", compute,
                   "' (complex numbers are not ordered)");
  Scalar number;
  if (b && b->device().type() == DeviceType::CPU) {  // a CPU 0-d operand: a number
    number = b->item();
    constant = &number;
    b = nullptr;
  }
  if (b) check_output_overlap(dst, {&a, b});
  else check_output_overlap(dst, {&a});
  cuda::DeviceGuard guard(dst.device());
  const Tensor a_c = a.device() != dst.device() ? a.to(dst.device()).to(compute) : (a.dtype() == compute ? a : a.to(compute));
  Tensor b_c;
  if (b) b_c = b->dtype() == compute ? *b : b->to(compute);
  const bool direct = dst.dtype() == ScalarType::Bool;
  const Tensor out = direct ? dst : ember::empty_like(dst, TensorOptions().dtype(ScalarType::Bool));
  cuda::dispatch_types(compute, name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = OpMath<T>;
    if (b) {
      cuda::launch<bool, T, 2>(TensorIterator({&out}, {&a_c, &b_c}, name), Compare<c, A>{}, name);
    } else {
      A v;
      if constexpr (std::is_same_v<T, bool>) v = constant->to<bool>();
      else v = constant->to<A>();
      cuda::launch<bool, T, 1>(TensorIterator({&out}, {&a_c}, name), WithConstant<Compare<c, A>, A>{{}, v}, name);
    }
  });
  if (!direct) dst.copy_(out);
}

template <Cmp c>
Tensor scalar_form(const char* name, const Tensor& self, const Scalar& other) {
  const ScalarType compute = ResultType().add(self).add(other).get();
  Tensor out = make_output(elementwise_meta({&self}, ScalarType::Bool, name), self.device());
  run<c>(name, compute, out, self, nullptr, &other);
  return out;
}

}  // namespace

#define EMBER_CUDA_COMPARISONS(op, C)                                                       \
  void op##_out_cuda(const Tensor& self, const Tensor& other, const Tensor& out) {         \
    cuda::check_same_device(#op, {&out, &self, &other});                                    \
    run<C>(#op, ResultType().add(self).add(other).get(), out, self, &other, nullptr);       \
  }                                                                                         \
  Tensor op##_scalar_cuda(const Tensor& self, const Scalar& other) { return scalar_form<C>(#op, self, other); }
EMBER_CUDA_COMPARISONS(eq, Cmp::Eq)
EMBER_CUDA_COMPARISONS(ne, Cmp::Ne)
EMBER_CUDA_COMPARISONS(lt, Cmp::Lt)
EMBER_CUDA_COMPARISONS(le, Cmp::Le)
EMBER_CUDA_COMPARISONS(gt, Cmp::Gt)
EMBER_CUDA_COMPARISONS(ge, Cmp::Ge)
#undef EMBER_CUDA_COMPARISONS

}  // namespace ember::native
