#pragma once
/// CPU autocast (torch.autocast("cpu")): while a region is open on a thread, a boxed
/// fallback at DispatchKey::AutocastCPU casts the floating inputs of the ops on PyTorch's
/// CPU lists before they run: the lower-precision list (matmul, mm, bmm, addmm, linear,
/// convolution, ...) to the region's dtype, the float32 list (losses, prod, cdist, the
/// LAPACK and FFT ops, ...) to float32, and the promote list (cat, stack, index_copy) to
/// float32 when one input is float32, else the region's dtype (float64 takes no part). Other ops run as they are. The casts are ordinary
/// `to` calls, so autograd records them and gradients come back in the inputs' dtypes.
/// Outside a region the key is in no key set: no cost.

#include "c10/core/ScalarType.h"
#include "c10/macros/Export.h"

namespace ember::amp {

struct AutocastState {
  bool enabled = false;
  ScalarType dtype = ScalarType::BFloat16;  ///< the lower-precision dtype (bfloat16, float16)
};

/// This thread's CPU autocast state.
EMBER_API AutocastState cpu_autocast_state();
/// Sets it (adds or removes AutocastCPU in this thread's included keys). An enabled state's
/// dtype must be bfloat16 or float16.
EMBER_API void set_cpu_autocast_state(AutocastState state);

/// RAII: opens (or, enabled = false, suspends) a CPU autocast region on this thread and
/// restores the previous state when it goes out of scope. C++'s `with torch.autocast("cpu")`.
class CpuAutocastGuard {
 public:
  explicit CpuAutocastGuard(ScalarType dtype = ScalarType::BFloat16, bool enabled = true)
      : previous_(cpu_autocast_state()) {
    set_cpu_autocast_state({enabled, dtype});
  }
  ~CpuAutocastGuard() { set_cpu_autocast_state(previous_); }
  CpuAutocastGuard(const CpuAutocastGuard&) = delete;
  CpuAutocastGuard& operator=(const CpuAutocastGuard&) = delete;

 private:
  AutocastState previous_;
};

/// The list an operator (by its base name, "mm") is on: what its inputs are cast to.
enum class CastPolicy : uint8_t { None, LowerPrecision, Float32, Promote };
EMBER_API CastPolicy cpu_cast_policy(const char* op_name);

}  // namespace ember::amp
