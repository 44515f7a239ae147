// The CPU sum-like reductions: sum, nansum, prod, all/any, count_nonzero and nanmean's count,
// for every dtype (Note [Reduction plan] in aten/native/Reduce.h).
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
void sums_typed(const ReduceArgs& args, const ReducePlan& plan) {
  using A = SumAcc<T>;
  switch (args.kind) {
    case ReduceKind::Sum:
      run(SumOp<T, false>{{}, out_ptr<T>(args, 0), static_cast<A>(convert<A>(args.scale))}, args, plan);
      return;
    case ReduceKind::NanSum:
      // Without NaN (integers, bool) a nansum is a sum; complex inputs are refused earlier.
      if constexpr (kFloating<T> && !kIsComplex<T>) {
        run(SumOp<T, true>{{}, out_ptr<T>(args, 0), static_cast<A>(convert<A>(args.scale))}, args, plan);
      } else {
        run(SumOp<T, false>{{}, out_ptr<T>(args, 0), static_cast<A>(convert<A>(args.scale))}, args, plan);
      }
      return;
    case ReduceKind::Prod:
      run(ProdOp<T>{{}, out_ptr<T>(args, 0)}, args, plan);
      return;
    case ReduceKind::All:
      run(AllOp<T, true>{{}, out_ptr<uint8_t>(args, 0)}, args, plan);
      return;
    case ReduceKind::Any:
      run(AllOp<T, false>{{}, out_ptr<uint8_t>(args, 0)}, args, plan);
      return;
    case ReduceKind::CountNonzero:
      run(CountOp<T, false>{{}, out_ptr<int64_t>(args, 0), args.scale}, args, plan);
      return;
    case ReduceKind::NotNanCount:
      // nanmean's count: its front end takes floating dtypes only.
      if constexpr (kFloating<T> && !kIsComplex<T>) {
        run(CountOp<T, true>{{}, out_ptr<T>(args, 0), 1.0}, args, plan);
        return;
      }
      break;
    default: break;
  }
  unsupported("this reduction", args.self->dtype());
}

}  // namespace

void reduce_sums(const ReduceArgs& args, const ReducePlan& plan) {
  dispatch_all_types(args.self->dtype(), "reduce", [&](auto tag) {
    using T = typename decltype(tag)::type;
    // Note [Reduction copies] (cpu/reduce.cpp): the wide copies hold the floating real
    // dtypes; the 16-bit floats run the float ops (Note [16-bit floats in reductions]).
    if constexpr (kHalfLike<T>) sums_typed<float>(args, plan);
    else if constexpr (!kWideCpuCopy || std::is_floating_point_v<T>) sums_typed<T>(args, plan);
    else unsupported("this reduction", args.self->dtype());
  });
}

EMBER_CPU_NAMESPACE_END
}  // namespace ember::native
