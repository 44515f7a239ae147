// The CPU reductions' entry (Note [Reduction plan] in aten/native/Reduce.h):
// reduce_kernel_cpu hands each ReduceKind to its group (cpu/ReduceLoops.h), and the
// reductions written as functors over the op structs of cpu/ReduceOps.h (Note [Reduction
// functors]). Plain loops over fixed lane arrays, which GCC vectorises at -O3; no global state.
#include <type_traits>

#include "aten/native/CpuCapability.h"
#include "aten/native/Dispatch.h"
#include "aten/native/Reduce.h"
#include "aten/native/cpu/ReduceLoops.h"
#include "aten/native/cpu/ReduceOps.h"
#include "c10/util/Exception.h"
#include "ember/generated/ops/empty.h"
#include "ember/generated/ops/frobenius_norm_native.h"

namespace ember::native {
EMBER_CPU_NAMESPACE_BEGIN

void reduce_kernel_cpu(const ReduceArgs& args, const ReducePlan& plan) {
  // Note [Reduction copies]: the wide-vector copies hold the floating real dtypes only
  // (what float workloads reduce); integers, bool and complex run the baseline copy. Each
  // (dtype, kind) pair is a whole loop nest, and those eight dtypes took 60% of the
  // file's compile time in every copy.
  if (kWideCpuCopy && !is_floating_point(args.self->dtype())) {
    ::ember::native::reduce_kernel_cpu(args, plan);
    return;
  }
  switch (args.kind) {
    case ReduceKind::Sum:
    case ReduceKind::NanSum:
    case ReduceKind::Prod:
    case ReduceKind::All:
    case ReduceKind::Any:
    case ReduceKind::CountNonzero:
    case ReduceKind::NotNanCount: reduce_sums(args, plan); return;
    case ReduceKind::Max:
    case ReduceKind::Min:
    case ReduceKind::ArgMax:
    case ReduceKind::ArgMin:
    case ReduceKind::MaxWithIndex:
    case ReduceKind::MinWithIndex:
    case ReduceKind::MinMax: reduce_extrema(args, plan); return;
    case ReduceKind::NormP:
    case ReduceKind::SquaredDeviation:
    case ReduceKind::ExpShifted: reduce_norms(args, plan); return;
  }
  unsupported("this reduction", args.self->dtype());
}

// ---- the functor path ------------------------------------------------------------------------

// Note [Reduction functors]: a reduction whose result dtype is a rule of its input's
// (Reduce.h's ReduceDtypes) and whose loop is one of the op structs above is one functor
// here: its rule `kDtypes`, the op struct `Op<T>` that reduces an input of type T, and
// optionally `kMaxDims`, the most dimensions one call may name. EMBER_REDUCE_KERNEL makes
// the functor the structured kernel the YAML names for `(Tensor self, int[1] dim, bool
// keepdim=False)`; the entry's `meta:` is the rule's helper (reduce_to_real_meta for ToReal),
// which checks the dtype and sizes out (out= must have the result dtype exactly). The kernel
// builds the plan, runs Op<T> over the walks into out (through a contiguous temporary where
// out is not contiguous) and, like reduce_kernel_cpu, leaves all but the floating real
// dtypes to the baseline copy (Note [Reduction copies]). The op struct's output pointer `out`
// is set here; its other members keep their default values.

namespace {

// sqrt(sum |x|^2) over at most two dimensions, real for complex inputs.
struct FrobeniusNorm {
  static constexpr ReduceDtypes kDtypes = ReduceDtypes::ToReal;
  static constexpr int64_t kMaxDims = 2;
  template <class T>
  using Op = NormOp<T, Norm::Two>;
};

// Whether rule R takes inputs of type T.
template <ReduceDtypes R, class T>
constexpr bool kTakes = R == ReduceDtypes::Same || (R == ReduceDtypes::ToReal && kFloating<T>);

// Runs functor F over self's dimensions in dim into out (of the meta's sizes, with or
// without keepdim's 1s: the plan writes the same elements). `baseline` runs the same
// kernel's baseline copy.
template <class F, class Baseline>
void reduce_functor_cpu(const char* name, const Tensor& self, IntArrayRef dim, const Tensor& out,
                        const Baseline& baseline) {
  if constexpr (requires { F::kMaxDims; }) {
    EMBER_CHECK(static_cast<int64_t>(dim.size()) <= F::kMaxDims, name, "(): Expected at most ",
                F::kMaxDims, " dimensions, but got ", dim.size(), " dimensions instead.");
  }
  if (kWideCpuCopy && !is_floating_point(self.dtype())) {
    baseline();
    return;
  }
  const ScalarType result = reduce_result_type(F::kDtypes, name, self.dtype());
  const ReducePlan plan = make_reduce_plan(self, dim_mask(self, dim));
  const bool direct = out.is_contiguous() && out.dtype() == result;
  const Tensor target =
      direct ? out : ember::empty(out.sizes(), TensorOptions().dtype(result).device(out.device()));
  dispatch_all_types(self.dtype(), name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    // The 16-bit floats run the float op (Note [16-bit floats in reductions]).
    using K = std::conditional_t<kHalfLike<T>, float, T>;
    if constexpr (kTakes<F::kDtypes, T> && (!kWideCpuCopy || std::is_floating_point_v<T> || kHalfLike<T>)) {
      typename F::template Op<K> op{};
      op.out = out_of<typename decltype(op.out)::value_type>(target);
      run(op, self, plan);
    } else {
      unsupported(name, self.dtype());
    }
  });
  if (!direct) copy_into_out(out, target);
}

}  // namespace

// The structured kernel `kernel` the YAML names, running reduction functor F.
#define EMBER_REDUCE_KERNEL(kernel, F, name)                                                \
  void kernel(const Tensor& self, IntArrayRef dim, bool keepdim, const Tensor& out) {       \
    reduce_functor_cpu<F>(name, self, dim, out,                                             \
                          [&] { ::ember::native::kernel(self, dim, keepdim, out); });       \
  }
EMBER_REDUCE_KERNEL(frobenius_norm_out_cpu, FrobeniusNorm, "frobenius_norm")
#undef EMBER_REDUCE_KERNEL

EMBER_CPU_NAMESPACE_END
}  // namespace ember::native
