#pragma once
/// Note [CPU fallback]: the boxed CPU fallback an out-of-tree backend may opt into
/// (c10/backend/Backend.h). An operator with no kernel of the backend's runs on the CPU:
/// its device tensors are copied to the host through the backend's copy_, the CPU kernel
/// runs, and the results go back to the device (results of in-place and out= arguments are
/// copied into the original device tensors, so their effects show). Every call is counted
/// per operator (fallback_stats), the first of each operator warns, and operators on the
/// backend's deny list raise instead. View operators (a result aliasing an input) are never
/// run this way: a copy would break the aliasing, so they raise, naming the operator.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "c10/backend/Backend.h"
#include "c10/macros/Export.h"

namespace ember::backend {

struct CpuFallbackOptions {
  /// Operators ("aten::mm", or "mm" for every overload) that must not fall back: they raise
  /// NotImplementedError naming the operator and the device.
  std::vector<std::string> deny;
  /// Warn (once per operator) when an operator falls back.
  bool warn = true;
};

/// Registers the CPU fallback for r's device (a fallback at its dispatch key).
EMBER_API void enable_cpu_fallback(Registration& r, CpuFallbackOptions options = {});

/// The CPU fallback for CUDA (Note [CUDA fallback] in aten/native/cuda/CudaUtils.cpp): every
/// operator without a CUDA kernel runs on the CPU, warning once per operator. libember_cuda
/// enables it when it loads.
EMBER_API void enable_cuda_cpu_fallback();

/// Calls that went through the CPU fallback: device type name -> operator -> calls, since
/// the backend's fallback was enabled (the counts of an unloaded backend are kept until a
/// backend enables a fallback in its slot again).
EMBER_API std::map<std::string, std::map<std::string, int64_t>> fallback_stats();
/// Zeroes the counts (and forgets which operators warned).
EMBER_API void reset_fallback_stats();
/// Where the warnings go: a handler (Python's warnings.warn), or stderr when null.
EMBER_API void set_fallback_warning_handler(void (*handler)(const std::string& message));

}  // namespace ember::backend
