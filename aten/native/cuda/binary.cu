// add, sub, mul and div on CUDA (Tensor and Scalar forms): the CPU's functors
// (aten/native/ArithOps.h) through the elementwise launcher (Note [CUDA elementwise]).
// Operands are converted to the compute dtype first, as on the CPU; an out= of another
// dtype receives a converted copy; a CPU 0-d operand is a number.
#include "aten/native/ArithOps.h"
#include "aten/native/Structured.h"
#include "aten/native/TensorIterator.h"
#include "aten/native/binary.h"
#include "aten/native/cuda/CudaDispatch.h"
#include "aten/native/cuda/Loops.cuh"
#include "ember/generated/ops/empty_like.h"

namespace ember::native {
namespace {

using cuda::OpMath;

template <class T>
OpMath<T> scalar_as(const Scalar& s) {
  if constexpr (std::is_same_v<T, bool>) return s.to<bool>();
  else return static_cast<OpMath<T>>(s.to<OpMath<T>>());
}

// Runs op into dst (the result's shape) from a and b (a tensor, or the number b_scalar),
// computing in `compute`.
void run(ArithOp op, const char* name, ScalarType compute, const Tensor& dst, const Tensor& a, const Tensor* b,
         const Scalar* b_scalar, const Scalar& alpha) {
  Scalar number;
  if (b && b->device().type() == DeviceType::CPU) {
    // A CPU 0-d tensor (check_same_device let it through) takes part as a number.
    number = b->item();
    b_scalar = &number;
    b = nullptr;
  }
  if (a.device().type() == DeviceType::CPU) {
    // a is the number: a + alpha*b == alpha*b + a only for add; compute on a broadcast copy.
    const Tensor moved = a.to(dst.device());
    run(op, name, compute, dst, moved, b, b_scalar, alpha);
    return;
  }
  if (b) check_output_overlap(dst, {&a, b});
  else check_output_overlap(dst, {&a});
  cuda::DeviceGuard guard(dst.device());
  const Tensor a_c = a.dtype() == compute ? a : a.to(compute);
  Tensor b_c;
  if (b) b_c = b->dtype() == compute ? *b : b->to(compute);
  const bool direct = dst.dtype() == compute;
  const Tensor out = direct ? dst : ember::empty_like(dst, TensorOptions().dtype(compute));
  cuda::dispatch_types(compute, name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using C = OpMath<T>;
    auto go = [&](auto f) {
      if (b) {
        cuda::launch<T, T, 2>(TensorIterator({&out}, {&a_c, &b_c}, name), f, name);
      } else {
        cuda::launch<T, T, 1>(TensorIterator({&out}, {&a_c}, name), WithSecond<decltype(f), C>{f, scalar_as<T>(*b_scalar)},
                              name);
      }
    };
    const C al = scalar_as<T>(alpha);
    switch (op) {
      case ArithOp::Add: go(Arith<ArithOp::Add, C>{al}); break;
      case ArithOp::Mul: go(Arith<ArithOp::Mul, C>{al}); break;
      case ArithOp::Div:
        if constexpr (std::is_floating_point_v<C>) go(Arith<ArithOp::Div, C>{al});
        else EMBER_INTERNAL_ASSERT(false, name, "(): integral division");
        break;
    }
  });
  if (!direct) dst.copy_(out);
}

Scalar negated(const Scalar& alpha) {
  if (alpha.is_complex()) return Scalar(-alpha.to_complex());
  if (alpha.is_floating_point()) return Scalar(-alpha.to_double());
  if (alpha.is_bool()) return alpha;
  return Scalar(-alpha.to_long());
}

void binary(ArithOp op, const char* name, ScalarType compute, const Tensor& self, const Tensor& other,
            const Scalar& alpha, const Tensor& out) {
  cuda::check_same_device(name, {&out, &self, &other});
  run(op, name, compute, out, self, &other, nullptr, alpha);
}

Tensor scalar_form(ArithOp op, const char* name, const Tensor& self, const Scalar& other, const Scalar& alpha) {
  ScalarType dtype = ResultType().add(self).add(other).get();
  if (op == ArithOp::Div) dtype = div_result_type(dtype);
  Tensor out = make_output(elementwise_meta({&self}, dtype, name), self.device());
  run(op, name, dtype, out, self, nullptr, &other, alpha);
  return out;
}

Tensor& scalar_form_(ArithOp op, const char* name, Tensor& self, const Scalar& other, const Scalar& alpha) {
  ScalarType dtype = ResultType().add(self).add(other).get();
  if (op == ArithOp::Div) dtype = div_result_type(dtype);
  EMBER_CHECK_TYPE(can_cast(dtype, self.dtype()), name, "(): result type ", dtype,
                   " can't be cast to the desired output type ", self.dtype());
  run(op, name, dtype, self, self, nullptr, &other, alpha);
  return self;
}

}  // namespace

void add_out_cuda(const Tensor& self, const Tensor& other, const Scalar& alpha, const Tensor& out) {
  binary(ArithOp::Add, "add", ResultType().add(self).add(other).get(), self, other, alpha, out);
}

void sub_out_cuda(const Tensor& self, const Tensor& other, const Scalar& alpha, const Tensor& out) {
  binary(ArithOp::Add, "sub", ResultType().add(self).add(other).get(), self, other, negated(alpha), out);
}

void mul_out_cuda(const Tensor& self, const Tensor& other, const Tensor& out) {
  binary(ArithOp::Mul, "mul", ResultType().add(self).add(other).get(), self, other, 1, out);
}

void div_out_cuda(const Tensor& self, const Tensor& other, const Tensor& out) {
  binary(ArithOp::Div, "div", div_result_type(ResultType().add(self).add(other).get()), self, other, 1, out);
}

Tensor add_scalar_cuda(const Tensor& self, const Scalar& other, const Scalar& alpha) {
  check_alpha("add", ResultType().add(self).add(other).get(), alpha);
  return scalar_form(ArithOp::Add, "add", self, other, alpha);
}

Tensor& add_scalar_inplace_cuda(Tensor& self, const Scalar& other, const Scalar& alpha) {
  check_alpha("add_", ResultType().add(self).add(other).get(), alpha);
  return scalar_form_(ArithOp::Add, "add_", self, other, alpha);
}

Tensor sub_scalar_cuda(const Tensor& self, const Scalar& other, const Scalar& alpha) {
  check_sub_operands(self.dtype(), other.is_bool() ? ScalarType::Bool : ScalarType::Long);
  check_alpha("sub", ResultType().add(self).add(other).get(), alpha);
  return scalar_form(ArithOp::Add, "sub", self, other, negated(alpha));
}

Tensor& sub_scalar_inplace_cuda(Tensor& self, const Scalar& other, const Scalar& alpha) {
  check_sub_operands(self.dtype(), other.is_bool() ? ScalarType::Bool : ScalarType::Long);
  check_alpha("sub_", ResultType().add(self).add(other).get(), alpha);
  return scalar_form_(ArithOp::Add, "sub_", self, other, negated(alpha));
}

Tensor div_scalar_cuda(const Tensor& self, const Scalar& other) {
  return scalar_form(ArithOp::Div, "div", self, other, 1);
}

Tensor& div_scalar_inplace_cuda(Tensor& self, const Scalar& other) {
  return scalar_form_(ArithOp::Div, "div_", self, other, 1);
}

Tensor mul_scalar_cuda(const Tensor& self, const Scalar& other) {
  return scalar_form(ArithOp::Mul, "mul", self, other, 1);
}

Tensor& mul_scalar_inplace_cuda(Tensor& self, const Scalar& other) {
  return scalar_form_(ArithOp::Mul, "mul_", self, other, 1);
}

}  // namespace ember::native
