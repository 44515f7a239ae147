// c10/cuda/CudaRuntime.h in a build without CUDA (CMakeLists.txt compiles this file
// instead of CudaRuntime.cpp): no devices; whatever needs one is a ValueError saying why.
#include "c10/cuda/CudaRuntime.h"

#include "c10/util/Exception.h"

namespace ember::cuda {

bool built() { return false; }
std::vector<std::string> arch_list() { return {}; }
std::string load_kernels() { return unavailable_reason(); }
void* open_nvidia_library(const char* soname, std::string* tried) {
  *tried = soname;
  return nullptr;
}
int device_count() { return 0; }
std::string unavailable_reason() { return "Ember was built without CUDA (EMBER_CUDA=OFF, or no nvcc was found)"; }

namespace {
[[noreturn]] void no_device(int index) {
  EMBER_THROW(ValueError, "cuda", index < 0 ? "" : ":" + std::to_string(index), ": ", unavailable_reason());
}
}  // namespace

DeviceMemoryStats memory_stats(int index) { no_device(index); }
void reset_peak_memory_stats(int index) { no_device(index); }
void empty_cache(int) {}
void synchronize(int index) { no_device(index); }
int current_device() { no_device(-1); }
void set_device(int index) { no_device(index); }
DeviceProperties device_properties(int index) { no_device(index); }
void mem_get_info(int index, size_t*, size_t*) { no_device(index); }
DeviceStream current_stream(int index) { no_device(index); }
DeviceStream default_stream(int index) { no_device(index); }
void set_current_stream(DeviceStream s) { no_device(s.device); }
DeviceStream stream_from_pool(bool, int index) { no_device(index); }
DeviceStream create_stream(int index, int) { no_device(index); }
bool stream_query(DeviceStream s) { no_device(s.device); }
void stream_synchronize(DeviceStream s) { no_device(s.device); }
void* event_create(bool, bool) { no_device(-1); }
void event_destroy(void*) {}
void event_record(void*, DeviceStream s) { no_device(s.device); }
bool event_query(void*) { no_device(-1); }
void event_synchronize(void*) { no_device(-1); }
void event_wait(void*, DeviceStream s) { no_device(s.device); }
float event_elapsed_ms(void*, void*) { no_device(-1); }
void record_stream(void*, DeviceStream s) { no_device(s.device); }
void memcpy_async(void*, const void*, size_t, CopyDirection, DeviceStream s) { no_device(s.device); }
void* host_alloc(size_t) { no_device(-1); }
void host_free(void*) {}
Allocator* pinned_allocator() { return nullptr; }

}  // namespace ember::cuda
