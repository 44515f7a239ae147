#pragma once
/// What libember knows of CUDA at run time: whether it was built with it, the devices the
/// driver reports, and each device's caching allocator (Note [Device caching allocator]),
/// installed as DeviceType::CUDA's allocator on first use. In a build without CUDA
/// (c10/cuda/CudaRuntimeStub.cpp) there are no devices and built() is false.
#include <cstddef>
#include <string>

#include "c10/core/DeviceCachingAllocator.h"
#include "c10/macros/Export.h"

namespace ember::cuda {

/// Whether libember was built with the CUDA backend (EMBER_CUDA).
EMBER_API bool built();
/// The CUDA devices the driver reports: 0 without a driver, without a device, or in a
/// build without CUDA (never an error).
EMBER_API int device_count();
/// Why there is no device, when device_count() is 0 ("" otherwise): the driver's error.
EMBER_API std::string unavailable_reason();
/// Device `index`'s caching allocator's counters (torch.cuda.memory_stats); throws a
/// ValueError naming the devices there are when there is no such device.
EMBER_API DeviceMemoryStats memory_stats(int index);
EMBER_API void reset_peak_memory_stats(int index);
/// Returns device `index`'s cached blocks to the driver (torch.cuda.empty_cache).
EMBER_API void empty_cache(int index);
/// Waits for all work on device `index` (torch.cuda.synchronize).
EMBER_API void synchronize(int index);

}  // namespace ember::cuda
