// The bitwise, shift and logical binary ops on the CPU (Note [Binary functors], functors
// over cpu/BinaryFunctors.h): bitwise and/or/xor/not, left and right shifts, logical
// and/or/xor/not. Integers and bool only, except the logical ops (every dtype, bool result).
#include <type_traits>

#include "aten/native/CpuCapability.h"
#include "aten/native/Dispatch.h"
#include "aten/native/TensorIterator.h"
#include "aten/native/cpu/BinaryFunctors.h"
#include "aten/native/cpu/Loops.h"
#include "c10/util/Exception.h"
#include "ember/generated/ops/empty_like.h"
#include "ember/generated/ops/bitwise_and_native.h"
#include "ember/generated/ops/bitwise_left_shift_native.h"
#include "ember/generated/ops/bitwise_or_native.h"
#include "ember/generated/ops/bitwise_right_shift_native.h"
#include "ember/generated/ops/bitwise_xor_native.h"
#include "ember/generated/ops/logical_and_native.h"
#include "ember/generated/ops/logical_or_native.h"
#include "ember/generated/ops/logical_xor_native.h"

namespace ember::native {
EMBER_CPU_NAMESPACE_BEGIN
namespace {

struct BitAnd {
  static constexpr BinaryDtypes kDtypes = BinaryDtypes::Bitwise;
  template <class T> static Acc<T> apply(Acc<T> a, Acc<T> b) { return T(a & b); }
};
struct BitOr {
  static constexpr BinaryDtypes kDtypes = BinaryDtypes::Bitwise;
  template <class T> static Acc<T> apply(Acc<T> a, Acc<T> b) { return T(a | b); }
};
struct BitXor {
  static constexpr BinaryDtypes kDtypes = BinaryDtypes::Bitwise;
  template <class T> static Acc<T> apply(Acc<T> a, Acc<T> b) { return T(a ^ b); }
};
struct LeftShift {
  static constexpr BinaryDtypes kDtypes = BinaryDtypes::Integral;
  template <class T> static Acc<T> apply(Acc<T> a, Acc<T> b) { return shift_left<T>(a, b); }
};
struct RightShift {
  static constexpr BinaryDtypes kDtypes = BinaryDtypes::Integral;
  template <class T> static Acc<T> apply(Acc<T> a, Acc<T> b) { return shift_right<T>(a, b); }
};
struct LogicalAnd {
  static constexpr BinaryDtypes kDtypes = BinaryDtypes::Logical;
  template <class T> static bool apply(Acc<T> a, Acc<T> b) { return truth(a) && truth(b); }
};
struct LogicalOr {
  static constexpr BinaryDtypes kDtypes = BinaryDtypes::Logical;
  template <class T> static bool apply(Acc<T> a, Acc<T> b) { return truth(a) || truth(b); }
};
struct LogicalXor {
  static constexpr BinaryDtypes kDtypes = BinaryDtypes::Logical;
  template <class T> static bool apply(Acc<T> a, Acc<T> b) { return truth(a) != truth(b); }
};
}  // namespace

EMBER_BINARY_KERNEL(bitwise_and_out_cpu, BitAnd, "bitwise_and")
EMBER_SCALAR_KERNEL(bitwise_and_scalar_out_cpu, BitAnd, "bitwise_and")
EMBER_SCALAR_TENSOR_KERNEL(bitwise_and_scalar_tensor_cpu, BitAnd, "bitwise_and")
EMBER_BINARY_KERNEL(bitwise_or_out_cpu, BitOr, "bitwise_or")
EMBER_SCALAR_KERNEL(bitwise_or_scalar_out_cpu, BitOr, "bitwise_or")
EMBER_SCALAR_TENSOR_KERNEL(bitwise_or_scalar_tensor_cpu, BitOr, "bitwise_or")
EMBER_BINARY_KERNEL(bitwise_xor_out_cpu, BitXor, "bitwise_xor")
EMBER_SCALAR_KERNEL(bitwise_xor_scalar_out_cpu, BitXor, "bitwise_xor")
EMBER_SCALAR_TENSOR_KERNEL(bitwise_xor_scalar_tensor_cpu, BitXor, "bitwise_xor")
EMBER_BINARY_KERNEL(bitwise_left_shift_out_cpu, LeftShift, "bitwise_left_shift")
EMBER_SCALAR_KERNEL(bitwise_left_shift_scalar_out_cpu, LeftShift, "bitwise_left_shift")
EMBER_SCALAR_TENSOR_KERNEL(bitwise_left_shift_scalar_tensor_cpu, LeftShift,
                           "bitwise_left_shift")
EMBER_BINARY_KERNEL(bitwise_right_shift_out_cpu, RightShift, "bitwise_right_shift")
EMBER_SCALAR_KERNEL(bitwise_right_shift_scalar_out_cpu, RightShift,
                    "bitwise_right_shift")
EMBER_SCALAR_TENSOR_KERNEL(bitwise_right_shift_scalar_tensor_cpu, RightShift,
                           "bitwise_right_shift")
EMBER_BINARY_KERNEL(logical_and_out_cpu, LogicalAnd, "logical_and")
EMBER_BINARY_KERNEL(logical_or_out_cpu, LogicalOr, "logical_or")
EMBER_BINARY_KERNEL(logical_xor_out_cpu, LogicalXor, "logical_xor")
#undef EMBER_BINARY_KERNEL
#undef EMBER_SCALAR_KERNEL
#undef EMBER_SCALAR_TENSOR_KERNEL

void bitwise_not_out_cpu(const Tensor& self, const Tensor& out) {
  // As PyTorch's unary ops: out= must have self's dtype.
  EMBER_CHECK(out.dtype() == self.dtype(), "bitwise_not(): expected 'out' to have the dtype of "
              "'self' (", self.dtype(), "), but got ", out.dtype());
  check_output_overlap(out, {&self});
  dispatch_all_types(self.dtype(), "bitwise_not", [&](auto tag) {
    using T = typename decltype(tag)::type;
    TensorIterator it({&out}, {&self}, "bitwise_not");
    if constexpr (std::is_same_v<T, bool>) elementwise_loop<T, T, 1>(it, [](bool a) { return !a; });
    else if constexpr (kInteger<T>) elementwise_loop<T, T, 1>(it, [](T a) { return T(~a); });
  });
}

void logical_not_out_cpu(const Tensor& self, const Tensor& dst) {
  check_output_overlap(dst, {&self});
  const bool direct = dst.dtype() == ScalarType::Bool;
  const Tensor out = direct ? dst : ember::empty_like(dst, TensorOptions().dtype(ScalarType::Bool));
  dispatch_all_types(self.dtype(), "logical_not", [&](auto tag) {
    using T = typename decltype(tag)::type;
    elementwise_loop<bool, T, 1>(TensorIterator({&out}, {&self}, "logical_not"),
                                 [](Acc<T> a) { return !truth(a); });
  });
  if (!direct) dst.copy_(out);
}

EMBER_CPU_NAMESPACE_END
}  // namespace ember::native
