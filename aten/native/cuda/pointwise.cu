// The several-input pointwise ops on CUDA: where, clamp (clamp_min, clamp_max) with number
// bounds, lerp with a number weight, addcmul, addcdiv, through the CPU's element functions
// (aten/native/PointwiseOps.h) and the elementwise launcher. Operands are converted to the
// computation dtype first, as on the CPU; an out= of another dtype receives a converted copy.
#include <limits>
#include <optional>
#include <type_traits>

#include "aten/native/PointwiseOps.h"
#include "aten/native/TensorIterator.h"
#include "aten/native/cuda/CudaDispatch.h"
#include "aten/native/cuda/Loops.cuh"
#include "aten/native/pointwise.h"
#include "ember/generated/ops/empty_like.h"

namespace ember::native {
namespace {

using cuda::OpMath;

template <class A>
struct Where {
  EMBER_HOST_DEVICE A operator()(A c, A a, A b) const { return where_value<A>(c, a, b); }
};
template <class A>
struct Lerp {
  A w;
  EMBER_HOST_DEVICE A operator()(A a, A b) const { return lerp_value<A, A>(a, b, w); }
};
template <class A>
struct Addcmul {
  A v;
  EMBER_HOST_DEVICE A operator()(A a, A b, A c) const { return addcmul_value<A>(a, b, c, v); }
};
template <class A>
struct Addcdiv {
  A v;
  EMBER_HOST_DEVICE A operator()(A a, A b, A c) const { return addcdiv_value<A>(a, b, c, v); }
};

[[noreturn]] void not_implemented(const char* name, ScalarType t) {
  EMBER_THROW(TypeError, name, "(): not implemented for '", t, "'");
}

// Runs out = f(inputs...) in `compute`; make(tag) builds f (checking the dtype and the number
// arguments before anything is written).
template <int N, class Make>
void pointwise(const char* name, ScalarType compute, const Tensor& out, std::array<const Tensor*, N> inputs,
               const Make& make) {
  if constexpr (N == 1) check_output_overlap(out, {inputs[0]});
  else if constexpr (N == 2) check_output_overlap(out, {inputs[0], inputs[1]});
  else check_output_overlap(out, {inputs[0], inputs[1], inputs[2]});
  cuda::DeviceGuard guard(out.device());
  cuda::dispatch_types(compute, name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const auto f = make(tag);
    std::array<Tensor, N> in;
    for (int k = 0; k < N; ++k) {
      const Tensor& x = *inputs[static_cast<size_t>(k)];
      const Tensor here = x.device() == out.device() ? x : x.to(out.device());  // a CPU 0-d operand
      in[static_cast<size_t>(k)] = here.dtype() == compute ? here : here.to(compute);
    }
    const bool direct = out.dtype() == compute;
    const Tensor dst = direct ? out : ember::empty_like(out, TensorOptions().dtype(compute));
    if (out.numel() > 0) {
      if constexpr (N == 1) cuda::launch<T, T, 1>(TensorIterator({&dst}, {&in[0]}, name), f, name);
      else if constexpr (N == 2) cuda::launch<T, T, 2>(TensorIterator({&dst}, {&in[0], &in[1]}, name), f, name);
      else cuda::launch<T, T, 3>(TensorIterator({&dst}, {&in[0], &in[1], &in[2]}, name), f, name);
    }
    if (!direct) out.copy_(dst);
  });
}

void clamp_run(const char* name, const Tensor& self, const std::optional<Scalar>& min,
               const std::optional<Scalar>& max, const Tensor& out) {
  cuda::check_same_device(name, {&out, &self});
  const ScalarType compute = clamp_result_type(self, min, max);
  EMBER_CHECK(out.dtype() == compute, name, "(): expected 'out' to have the result dtype ", compute, ", but got ",
              out.dtype());
  pointwise<1>(name, compute, out, {&self}, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = OpMath<T>;
    if constexpr (std::is_same_v<T, bool>) {
      not_implemented(name, compute);
      return ClampBounds<A>{};
    } else {
      return clamp_bounds<T, A>(min, max, name);
    }
  });
}

}  // namespace

void where_out_cuda(const Tensor& condition, const Tensor& self, const Tensor& other, const Tensor& out) {
  cuda::check_same_device("where", {&out, &condition, &self, &other});
  const ScalarType compute = ResultType().add(self).add(other).get();
  EMBER_CHECK(out.dtype() == compute, "where(): expected 'out' to have the result dtype ", compute, ", but got ",
              out.dtype());
  const Tensor cond = condition.dtype() == ScalarType::Bool ? condition : condition.to(ScalarType::Bool);
  pointwise<3>("where", compute, out, {&cond, &self, &other}, [&](auto tag) {
    return Where<OpMath<typename decltype(tag)::type>>{};
  });
}

void clamp_out_cuda(const Tensor& self, const std::optional<Scalar>& min, const std::optional<Scalar>& max,
                    const Tensor& out) {
  clamp_run("clamp", self, min, max, out);
}

void clamp_min_out_cuda(const Tensor& self, const Scalar& min, const Tensor& out) {
  clamp_run("clamp_min", self, min, std::nullopt, out);
}

void clamp_max_out_cuda(const Tensor& self, const Scalar& max, const Tensor& out) {
  clamp_run("clamp_max", self, std::nullopt, max, out);
}

void lerp_scalar_out_cuda(const Tensor& self, const Tensor& end, const Scalar& weight, const Tensor& out) {
  cuda::check_same_device("lerp", {&out, &self, &end});
  pointwise<2>("lerp", self.dtype(), out, {&self, &end}, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = OpMath<T>;
    if constexpr (!std::is_floating_point_v<A>) {
      not_implemented("lerp", self.dtype());
      return Lerp<A>{};
    } else {
      return Lerp<A>{checked_scalar_to<A>(weight, "lerp", "weight")};
    }
  });
}

void addcmul_out_cuda(const Tensor& self, const Tensor& tensor1, const Tensor& tensor2, const Scalar& value,
                      const Tensor& out) {
  cuda::check_same_device("addcmul", {&out, &self, &tensor1, &tensor2});
  const ScalarType compute = ResultType().add(self).add(tensor1).add(tensor2).get();
  pointwise<3>("addcmul", compute, out, {&self, &tensor1, &tensor2}, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = OpMath<T>;
    if constexpr (std::is_same_v<T, bool>) {
      not_implemented("addcmul", compute);
      return Addcmul<A>{};
    } else if constexpr (std::is_integral_v<T>) {
      using U = std::make_unsigned_t<T>;
      return Addcmul<A>{static_cast<A>(static_cast<U>(checked_scalar_to<T>(value, "addcmul", "value")))};
    } else {
      return Addcmul<A>{checked_scalar_to<A>(value, "addcmul", "value")};
    }
  });
}

void addcdiv_out_cuda(const Tensor& self, const Tensor& tensor1, const Tensor& tensor2, const Scalar& value,
                      const Tensor& out) {
  cuda::check_same_device("addcdiv", {&out, &self, &tensor1, &tensor2});
  const ScalarType compute = ResultType().add(self).add(tensor1).add(tensor2).get();
  pointwise<3>("addcdiv", compute, out, {&self, &tensor1, &tensor2}, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = OpMath<T>;
    if constexpr (!std::is_floating_point_v<A>) {
      not_implemented("addcdiv", compute);
      return Addcdiv<A>{};
    } else {
      return Addcdiv<A>{checked_scalar_to<A>(value, "addcdiv", "value")};
    }
  });
}

}  // namespace ember::native
