// c10/cuda/CudaRuntime.h in a build without CUDA (CMakeLists.txt compiles this file
// instead of CudaRuntime.cpp): no devices.
#include "c10/cuda/CudaRuntime.h"

#include "c10/util/Exception.h"

namespace ember::cuda {

bool built() { return false; }
int device_count() { return 0; }
std::string unavailable_reason() { return "Ember was built without CUDA (EMBER_CUDA=OFF, or no nvcc was found)"; }

namespace {
[[noreturn]] void no_device(int index) {
  EMBER_THROW(ValueError, "cuda:", index, ": ", unavailable_reason());
}
}  // namespace

DeviceMemoryStats memory_stats(int index) { no_device(index); }
void reset_peak_memory_stats(int index) { no_device(index); }
void empty_cache(int) {}
void synchronize(int index) { no_device(index); }

}  // namespace ember::cuda
