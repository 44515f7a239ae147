#pragma once
/// What libember knows of CUDA at run time: whether it was built with it, the devices the
/// driver reports, and each device's caching allocator (Note [Device caching allocator]),
/// installed as DeviceType::CUDA's allocator on first use. In a build without CUDA
/// (c10/cuda/CudaRuntimeStub.cpp) there are no devices and built() is false.
#include <cstddef>
#include <string>
#include <vector>

#include "c10/core/Allocator.h"
#include "c10/core/DeviceCachingAllocator.h"
#include "c10/core/DeviceStreams.h"
#include "c10/macros/Export.h"

namespace ember::cuda {

/// Whether libember was built with the CUDA backend (EMBER_CUDA).
EMBER_API bool built();
/// The architectures the kernels were compiled for ("sm_90", ...; EMBER_CUDA_ARCHITECTURES).
EMBER_API std::vector<std::string> arch_list();
/// Opens one of NVIDIA's libraries by soname (libcudart.so.13, libcublas.so.13): on the
/// loader's path, else in the nvidia wheels' folder beside an installed ember package
/// (site-packages/nvidia/cu13/lib). Null when neither has it; *tried lists where it looked.
EMBER_API void* open_nvidia_library(const char* soname, std::string* tried);
/// Opens libember_cuda.so, the CUDA kernels (Note [The CUDA library]), once; "" when it is
/// loaded, else why not. The first device query does it when there is a device; a test may
/// do it without one, to see the kernels registered.
EMBER_API std::string load_kernels();
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
/// Waits for all work on device `index` (torch.cuda.synchronize; -1: the current device).
EMBER_API void synchronize(int index);

// Below, a device index of -1 means the calling thread's current device; every call throws
// a ValueError saying why when there is no such device (or none at all).

/// The calling thread's current device, and setting it (cudaGetDevice / cudaSetDevice).
EMBER_API int current_device();
EMBER_API void set_device(int index);

/// What torch.cuda.get_device_properties reports.
struct DeviceProperties {
  std::string name;
  int major = 0, minor = 0;  ///< compute capability
  size_t total_memory = 0;
  int multi_processor_count = 0;
};
EMBER_API DeviceProperties device_properties(int index);
/// The driver's free and total bytes of the device (torch.cuda.mem_get_info).
EMBER_API void mem_get_info(int index, size_t* free, size_t* total);

/// Streams (Note [Device streams]): the thread's current stream, the default stream (handle
/// 0), setting the current one, the pools, and a new stream of its own (torch.cuda.Stream;
/// priority < 0 is high, as PyTorch's).
EMBER_API DeviceStream current_stream(int index = -1);
EMBER_API DeviceStream default_stream(int index = -1);
EMBER_API void set_current_stream(DeviceStream s);
EMBER_API DeviceStream stream_from_pool(bool high_priority = false, int index = -1);
EMBER_API DeviceStream create_stream(int index, int priority);
/// Whether s has run all its work; waiting for it.
EMBER_API bool stream_query(DeviceStream s);
EMBER_API void stream_synchronize(DeviceStream s);

/// Events (torch.cuda.Event): the driver's event is made on the first record, on the
/// stream's device. A never-recorded event counts as passed.
EMBER_API void* event_create(bool enable_timing, bool blocking);
EMBER_API void event_destroy(void* event);
EMBER_API void event_record(void* event, DeviceStream s);
EMBER_API bool event_query(void* event);
EMBER_API void event_synchronize(void* event);
/// Makes s's later work wait until the event has passed (cudaStreamWaitEvent).
EMBER_API void event_wait(void* event, DeviceStream s);
/// Milliseconds between two recorded timing events (ValueError otherwise).
EMBER_API float event_elapsed_ms(void* start, void* end);

/// Marks the block at ptr (allocated on s.device) as used by s too (Tensor.record_stream).
EMBER_API void record_stream(void* ptr, DeviceStream s);

enum class CopyDirection { HostToDevice, DeviceToHost, DeviceToDevice };
/// Queues a copy of nbytes on s (a host side in pageable memory makes it synchronous).
EMBER_API void memcpy_async(void* dst, const void* src, size_t nbytes, CopyDirection dir, DeviceStream s);

/// Page-locked host memory (cudaHostAlloc), for asynchronous copies (pin_memory()).
EMBER_API void* host_alloc(size_t nbytes);
EMBER_API void host_free(void* ptr);
/// The allocator of pinned CPU storages (Tensor.pin_memory(); is_pinned() asks whether a
/// storage came from it): page-locked blocks, freed blocks kept for reuse by size. Null in
/// a build without CUDA.
EMBER_API Allocator* pinned_allocator();

}  // namespace ember::cuda
