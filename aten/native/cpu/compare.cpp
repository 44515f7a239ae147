// Comparisons on the CPU: eq, ne, lt, le, gt, ge (Tensor and Scalar forms), with the functors
// of aten/native/CompareOps.h (CUDA's too). Operands are compared in their promoted dtype;
// the result is bool (an out= of another dtype receives a converted copy). Complex operands
// compare only for (in)equality, as in PyTorch.
#include <type_traits>

#include "aten/native/CompareOps.h"
#include "aten/native/CpuCapability.h"
#include "aten/native/Dispatch.h"
#include "aten/native/Structured.h"
#include "aten/native/TensorIterator.h"
#include "aten/native/cpu/Loops.h"
#include "c10/util/Exception.h"
#include "ember/generated/ops/empty_like.h"

namespace ember::native {
EMBER_CPU_NAMESPACE_BEGIN
namespace {

template <Cmp c, class T>
void loop(const TensorIterator& it, const Scalar* constant) {
  if (!constant) {
    elementwise_loop<bool, T, 2>(it, Compare<c, Acc<T>>{});
    return;
  }
  Acc<T> b;
  if constexpr (kIsComplex<T>) b = static_cast<T>(constant->to_complex());
  else if constexpr (std::is_same_v<T, bool>) b = constant->to<bool>();
  else b = constant->to<Acc<T>>();
  elementwise_loop<bool, T, 1>(it, BindSecond<Compare<c, Acc<T>>, Acc<T>>{{}, b});
}

template <Cmp c>
void run(const char* name, ScalarType compute, const Tensor& dst, const Tensor& a,
         const Tensor* b, const Scalar* constant) {
  EMBER_CHECK_TYPE(!is_complex(compute) || c == Cmp::Eq || c == Cmp::Ne, name,
                   "(): not implemented for '", compute, "' (complex numbers are not ordered)");
  if (b) check_output_overlap(dst, {&a, b});
  else check_output_overlap(dst, {&a});
  const Tensor a_c = a.dtype() == compute ? a : a.to(compute);
  Tensor b_c;
  if (b) b_c = b->dtype() == compute ? *b : b->to(compute);
  const bool direct = dst.dtype() == ScalarType::Bool;
  const Tensor out = direct ? dst : ember::empty_like(dst, TensorOptions().dtype(ScalarType::Bool));
  dispatch_all_types(compute, name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if (b) loop<c, T>(TensorIterator({&out}, {&a_c, &b_c}, name), nullptr);
    else loop<c, T>(TensorIterator({&out}, {&a_c}, name), constant);
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

#define EMBER_COMPARISON_KERNELS(op, C)                                                     \
  void op##_out_cpu(const Tensor& self, const Tensor& other, const Tensor& out) {           \
    run<C>(#op, ResultType().add(self).add(other).get(), out, self, &other, nullptr);       \
  }                                                                                         \
  Tensor op##_scalar_cpu(const Tensor& self, const Scalar& other) {                         \
    return scalar_form<C>(#op, self, other);                                                \
  }
EMBER_COMPARISON_KERNELS(eq, Cmp::Eq)
EMBER_COMPARISON_KERNELS(ne, Cmp::Ne)
EMBER_COMPARISON_KERNELS(lt, Cmp::Lt)
EMBER_COMPARISON_KERNELS(le, Cmp::Le)
EMBER_COMPARISON_KERNELS(gt, Cmp::Gt)
EMBER_COMPARISON_KERNELS(ge, Cmp::Ge)
#undef EMBER_COMPARISON_KERNELS

EMBER_CPU_NAMESPACE_END
}  // namespace ember::native
