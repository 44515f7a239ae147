// The CPU extrema reductions: max, min, argmax, argmin, max/min with their indices and
// aminmax, for the ordered (non-complex) dtypes (Note [Reduction plan] in aten/native/Reduce.h).
#include <cstdint>
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
void extrema_typed(const ReduceArgs& args, const ReducePlan& plan) {
  if constexpr (kOrdered<T>) {
    switch (args.kind) {
      case ReduceKind::Max: run(MaxOp<T, true>{{}, out_ptr<T>(args, 0)}, args, plan); return;
      case ReduceKind::Min: run(MaxOp<T, false>{{}, out_ptr<T>(args, 0)}, args, plan); return;
      case ReduceKind::ArgMax:
        run(ArgOp<T, true>{{}, {}, out_ptr<int64_t>(args, 0)}, args, plan);
        return;
      case ReduceKind::ArgMin:
        run(ArgOp<T, false>{{}, {}, out_ptr<int64_t>(args, 0)}, args, plan);
        return;
      case ReduceKind::MaxWithIndex:
        run(ArgOp<T, true>{{}, out_ptr<T>(args, 0), out_ptr<int64_t>(args, 1)}, args, plan);
        return;
      case ReduceKind::MinWithIndex:
        run(ArgOp<T, false>{{}, out_ptr<T>(args, 0), out_ptr<int64_t>(args, 1)}, args, plan);
        return;
      case ReduceKind::MinMax:
        run(MinMaxOp<T>{{}, out_ptr<T>(args, 0), out_ptr<T>(args, 1)}, args, plan);
        return;
      default: break;
    }
  }
  unsupported("this reduction", args.self->dtype());
}

}  // namespace

void reduce_extrema(const ReduceArgs& args, const ReducePlan& plan) {
  dispatch_all_types(args.self->dtype(), "reduce", [&](auto tag) {
    using T = typename decltype(tag)::type;
    // Note [Reduction copies] (cpu/reduce.cpp): the wide copies hold the floating real
    // dtypes; the 16-bit floats run the float ops (Note [16-bit floats in reductions]).
    if constexpr (kHalfLike<T>) extrema_typed<float>(args, plan);
    else if constexpr (!kWideCpuCopy || std::is_floating_point_v<T>) extrema_typed<T>(args, plan);
    else unsupported("this reduction", args.self->dtype());
  });
}

EMBER_CPU_NAMESPACE_END
}  // namespace ember::native
