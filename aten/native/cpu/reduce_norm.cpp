// The CPU norm-like reductions: p-norms (0, 1, 2, inf, -inf and general p), the squared
// deviations of var/std and logsumexp's shifted exponentials, for the floating dtypes (Note
// [Reduction plan] in aten/native/Reduce.h).
#include <cmath>
#include <type_traits>

#include "aten/native/CpuCapability.h"
#include "aten/native/Dispatch.h"
#include "aten/native/Reduce.h"
#include "aten/native/cpu/ReduceLoops.h"
#include "aten/native/cpu/ReduceOps.h"

namespace ember::native {
EMBER_CPU_NAMESPACE_BEGIN
namespace {

template <class T>
void norms_typed(const ReduceArgs& args, const ReducePlan& plan) {
  if constexpr (kFloating<T>) {
    using A = SumAcc<T>;
    using R = RealType<T>;
    using RA = RealAcc<T>;
    const RA p = static_cast<RA>(args.p);
    switch (args.kind) {
      case ReduceKind::NormP:
        if (std::isinf(args.p)) {
          if (args.p > 0) run(NormInfOp<T, true>{{}, out_ptr<R>(args, 0)}, args, plan);
          else run(NormInfOp<T, false>{{}, out_ptr<R>(args, 0)}, args, plan);
        } else if (args.p == 0) {
          run(NormOp<T, Norm::Zero>{{}, out_ptr<R>(args, 0), p}, args, plan);
        } else if (args.p == 1) {
          run(NormOp<T, Norm::One>{{}, out_ptr<R>(args, 0), p}, args, plan);
        } else if (args.p == 2) {
          run(NormOp<T, Norm::Two>{{}, out_ptr<R>(args, 0), p}, args, plan);
        } else {
          run(NormOp<T, Norm::General>{{}, out_ptr<R>(args, 0), p}, args, plan);
        }
        return;
      case ReduceKind::SquaredDeviation:
        run(SquaredDeviationOp<T>{{}, out_ptr<R>(args, 0),
                                  static_cast<const A*>(args.center->impl()->data()),
                                  static_cast<RA>(args.scale), args.root},
            args, plan);
        return;
      case ReduceKind::ExpShifted:
        if constexpr (!kIsComplex<T>) {
          run(ExpShiftedOp<T>{{}, out_ptr<T>(args, 0),
                              static_cast<const A*>(args.center->impl()->data())},
              args, plan);
          return;
        }
        break;
      default: break;
    }
  }
  unsupported("this reduction", args.self->dtype());
}

}  // namespace

void reduce_norms(const ReduceArgs& args, const ReducePlan& plan) {
  dispatch_all_types(args.self->dtype(), "reduce", [&](auto tag) {
    using T = typename decltype(tag)::type;
    // Note [Reduction copies] (cpu/reduce.cpp): the wide copies hold the floating real
    // dtypes; the 16-bit floats run the float ops (Note [16-bit floats in reductions]).
    if constexpr (kHalfLike<T>) norms_typed<float>(args, plan);
    else if constexpr (!kWideCpuCopy || std::is_floating_point_v<T>) norms_typed<T>(args, plan);
    else unsupported("this reduction", args.self->dtype());
  });
}

EMBER_CPU_NAMESPACE_END
}  // namespace ember::native
