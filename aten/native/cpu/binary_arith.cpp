// add, sub, mul and div on the CPU (Tensor and Scalar forms), over TensorIterator (Note
// [TensorIterator]), with the functors of aten/native/ArithOps.h. A number operand is a constant of the loop, never a tensor. Operands are
// converted to the compute dtype first (aten/native/binary.h); an out= of another dtype
// receives a converted copy. Integers wrap on overflow as in PyTorch; 16-bit floats compute
// in float32 and round once. The rest of the binary family is cpu/binary.cpp.
#include <atomic>
#include <climits>
#include <cmath>
#include <type_traits>

#include "aten/native/ArithOps.h"
#include "aten/native/CpuCapability.h"
#include "aten/native/Dispatch.h"
#include "aten/native/Structured.h"
#include "aten/native/TensorIterator.h"
#include "aten/native/binary.h"
#include "aten/native/cpu/Loops.h"
#include "c10/util/Exception.h"
#include "ember/generated/ops/add_native.h"
#include "ember/generated/ops/div_native.h"
#include "ember/generated/ops/empty_like.h"
#include "ember/generated/ops/mul_native.h"
#include "ember/generated/ops/sub_native.h"

namespace ember::native {
EMBER_CPU_NAMESPACE_BEGIN
namespace {

// ---- add, sub, mul, div -------------------------------------------------------------------


using Op = ArithOp;  // the functors are shared with the CUDA kernels (aten/native/ArithOps.h)

template <class T>
Acc<T> scalar_as(const Scalar& s) {
  if constexpr (kIsComplex<T>) return static_cast<T>(s.to_complex());
  else if constexpr (std::is_same_v<T, bool>) return s.to<bool>();
  else return static_cast<Acc<T>>(s.to<Acc<T>>());
}

// Calls go(Arith<op, T>{alpha}) for the runtime op.
template <class T, class G>
void with_arith(Op op, const char* name, Acc<T> alpha, G&& go) {
  switch (op) {
    case Op::Add: go(Arith<Op::Add, Kern<T>>{alpha}); break;
    case Op::Mul: go(Arith<Op::Mul, Kern<T>>{alpha}); break;
    case Op::Div:
      if constexpr (std::is_floating_point_v<Acc<T>> || kIsComplex<T>) go(Arith<Op::Div, Kern<T>>{alpha});
      else EMBER_INTERNAL_ASSERT(false, name, "(): integral computation");
      break;
  }
}

// Whether a call is the per-op-overhead case: dst, a and b (when not a constant)
// contiguous, of one shape and of the computation dtype, with fewer elements than a thread
// is worth. It runs as one plain loop, the iterator's own flat loop, without building the
// iterator.
bool small_and_flat(ScalarType compute, const Tensor& dst, const Tensor& a, const Tensor* b) {
  return dst.numel() < TensorIterator::kGrainSize && dst.dtype() == compute &&
         a.dtype() == compute && a.sizes() == dst.sizes() && dst.is_contiguous() &&
         a.is_contiguous() &&
         (!b || (b->dtype() == compute && b->sizes() == dst.sizes() && b->is_contiguous()));
}

// Runs `op` into dst (dtype `compute`, the result's shape) from a and b (or a constant).
void run(Op op, const char* name, ScalarType compute, const Tensor& dst, const Tensor& a,
         const Tensor* b, const Scalar* b_scalar, const Scalar& alpha) {
  if (b) check_output_overlap(dst, {&a, b});
  else check_output_overlap(dst, {&a});
  if (small_and_flat(compute, dst, a, b)) {
    dispatch_all_types(compute, name, [&](auto tag) {
      using T = typename decltype(tag)::type;
      T* o = static_cast<T*>(dst.impl()->data());
      const T* x = static_cast<const T*>(a.impl()->data());
      const int64_t n = dst.numel();
      with_arith<T>(op, name, scalar_as<T>(alpha), [&](auto f) {
        if (b) {
          const T* y = static_cast<const T*>(b->impl()->data());
          flat_loop<T, 2>(o, {x, y}, n, f);
        } else {
          flat_loop<T, 1>(o, {x}, n, BindSecond<decltype(f), Acc<T>>{f, scalar_as<T>(*b_scalar)});
        }
      });
    });
    return;
  }
  const Tensor a_c = a.dtype() == compute ? a : a.to(compute);
  Tensor b_c;
  if (b) b_c = b->dtype() == compute ? *b : b->to(compute);
  const bool direct = dst.dtype() == compute;
  const Tensor out = direct ? dst : ember::empty_like(dst, TensorOptions().dtype(compute));
  dispatch_all_types(compute, name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    with_arith<T>(op, name, scalar_as<T>(alpha), [&](auto f) {
      if (b) {
        elementwise_loop<T, T, 2>(TensorIterator({&out}, {&a_c, &b_c}, name), f);
      } else {
        elementwise_loop<T, T, 1>(TensorIterator({&out}, {&a_c}, name),
                                  BindSecond<decltype(f), Acc<T>>{f, scalar_as<T>(*b_scalar)});
      }
    });
  });
  if (!direct) dst.copy_(out);
}

Scalar negated(const Scalar& alpha) {
  if (alpha.is_complex()) return Scalar(-alpha.to_complex());
  if (alpha.is_floating_point()) return Scalar(-alpha.to_double());
  return Scalar(-alpha.to_long());
}

// The Scalar forms: dtype from the tensor and the (weak) scalar, shape and strides from self.
Tensor scalar_form(Op op, const char* name, const Tensor& self, const Scalar& other,
                   const Scalar& alpha) {
  ScalarType dtype = ResultType().add(self).add(other).get();
  if (op == Op::Div) dtype = div_result_type(dtype);
  Tensor out = make_output(elementwise_meta({&self}, dtype, name), self.device());
  run(op, name, dtype, out, self, nullptr, &other, alpha);
  return out;
}

Tensor& scalar_form_(Op op, const char* name, Tensor& self, const Scalar& other,
                     const Scalar& alpha) {
  ScalarType dtype = ResultType().add(self).add(other).get();
  if (op == Op::Div) dtype = div_result_type(dtype);
  EMBER_CHECK_TYPE(can_cast(dtype, self.dtype()), name, "(): result type ", dtype,
                   " can't be cast to the desired output type ", self.dtype());
  run(op, name, dtype, self, self, nullptr, &other, alpha);
  return self;
}

ScalarType scalar_sub_check(const Tensor& self, const Scalar& other) {
  check_sub_operands(self.dtype(), other.is_bool() ? ScalarType::Bool : ScalarType::Long);
  return ResultType().add(self).add(other).get();
}

}  // namespace

void add_out_cpu(const Tensor& self, const Tensor& other, const Scalar& alpha, const Tensor& out) {
  run(Op::Add, "add", ResultType().add(self).add(other).get(), out, self, &other, nullptr, alpha);
}

void sub_out_cpu(const Tensor& self, const Tensor& other, const Scalar& alpha, const Tensor& out) {
  run(Op::Add, "sub", ResultType().add(self).add(other).get(), out, self, &other, nullptr,
      negated(alpha));
}

void mul_out_cpu(const Tensor& self, const Tensor& other, const Tensor& out) {
  run(Op::Mul, "mul", ResultType().add(self).add(other).get(), out, self, &other, nullptr, 1);
}

void div_out_cpu(const Tensor& self, const Tensor& other, const Tensor& out) {
  run(Op::Div, "div", div_result_type(ResultType().add(self).add(other).get()), out, self, &other,
      nullptr, 1);
}

Tensor add_scalar_cpu(const Tensor& self, const Scalar& other, const Scalar& alpha) {
  check_alpha("add", ResultType().add(self).add(other).get(), alpha);
  return scalar_form(Op::Add, "add", self, other, alpha);
}

Tensor& add_scalar_inplace_cpu(Tensor& self, const Scalar& other, const Scalar& alpha) {
  check_alpha("add_", ResultType().add(self).add(other).get(), alpha);
  return scalar_form_(Op::Add, "add_", self, other, alpha);
}

Tensor sub_scalar_cpu(const Tensor& self, const Scalar& other, const Scalar& alpha) {
  check_alpha("sub", scalar_sub_check(self, other), alpha);
  return scalar_form(Op::Add, "sub", self, other, negated(alpha));
}

Tensor& sub_scalar_inplace_cpu(Tensor& self, const Scalar& other, const Scalar& alpha) {
  check_alpha("sub_", scalar_sub_check(self, other), alpha);
  return scalar_form_(Op::Add, "sub_", self, other, negated(alpha));
}

Tensor mul_scalar_cpu(const Tensor& self, const Scalar& other) {
  return scalar_form(Op::Mul, "mul", self, other, 1);
}

Tensor& mul_scalar_inplace_cpu(Tensor& self, const Scalar& other) {
  return scalar_form_(Op::Mul, "mul_", self, other, 1);
}

Tensor div_scalar_cpu(const Tensor& self, const Scalar& other) {
  return scalar_form(Op::Div, "div", self, other, 1);
}

Tensor& div_scalar_inplace_cpu(Tensor& self, const Scalar& other) {
  return scalar_form_(Op::Div, "div_", self, other, 1);
}
EMBER_CPU_NAMESPACE_END
}  // namespace ember::native
