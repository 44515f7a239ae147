// c10/cuda/CudaRuntime.h over the CUDA runtime, opened on first use (Note [Loading cudart]).
#include "c10/cuda/CudaRuntime.h"

#include <cuda_runtime_api.h>
#include <dlfcn.h>

#include <memory>
#include <type_traits>
#include <mutex>
#include <vector>

#include "c10/core/Allocator.h"
#include "c10/core/Device.h"
#include "c10/util/Exception.h"

namespace ember::cuda {
namespace {

// Note [Loading cudart]: libember does not link the CUDA runtime. Linked dynamically, it
// would make libember unloadable wherever libcudart.so.13 is missing; linked statically,
// its initial-exec TLS does not fit the static TLS block of a library Python dlopens
// ("cannot allocate memory in static TLS block"). So the functions used here are looked up
// in libcudart.so.13 (the toolkit's, or the nvidia-cuda-runtime wheel's, on the library
// path) the first time CUDA is asked for; without it there are no devices, and the reason
// says so. Only the types come from the toolkit's header.
struct Cudart {
  decltype(&cudaGetDeviceCount) GetDeviceCount = nullptr;
  decltype(&cudaGetDevice) GetDevice = nullptr;
  decltype(&cudaSetDevice) SetDevice = nullptr;
  decltype(&cudaGetLastError) GetLastError = nullptr;
  decltype(&cudaGetErrorName) GetErrorName = nullptr;
  decltype(&cudaGetErrorString) GetErrorString = nullptr;
  decltype(&cudaMalloc) Malloc = nullptr;
  decltype(&cudaFree) Free = nullptr;
  decltype(&cudaMemGetInfo) MemGetInfo = nullptr;
  decltype(&cudaMemcpy) Memcpy = nullptr;
  decltype(&cudaDeviceSynchronize) DeviceSynchronize = nullptr;
  decltype(&cudaEventCreateWithFlags) EventCreateWithFlags = nullptr;
  decltype(&cudaEventRecord) EventRecord = nullptr;
  decltype(&cudaEventQuery) EventQuery = nullptr;
  decltype(&cudaEventDestroy) EventDestroy = nullptr;
  std::string error;  // why it could not be opened, or ""
};

const Cudart& cudart() {
  static const Cudart* c = [] {
    auto* r = new Cudart;
    void* h = dlopen("libcudart.so.13", RTLD_NOW | RTLD_LOCAL);
    if (!h) {
      const char* e = dlerror();
      r->error = std::string("the CUDA runtime (libcudart.so.13) was not found: ") + (e ? e : "");
      return r;
    }
    auto get = [&](auto& fn, const char* name) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(h, name));
      if (!fn && r->error.empty()) r->error = std::string("libcudart.so.13 has no ") + name;
    };
    get(r->GetDeviceCount, "cudaGetDeviceCount");
    get(r->GetDevice, "cudaGetDevice");
    get(r->SetDevice, "cudaSetDevice");
    get(r->GetLastError, "cudaGetLastError");
    get(r->GetErrorName, "cudaGetErrorName");
    get(r->GetErrorString, "cudaGetErrorString");
    get(r->Malloc, "cudaMalloc");
    get(r->Free, "cudaFree");
    get(r->MemGetInfo, "cudaMemGetInfo");
    get(r->Memcpy, "cudaMemcpy");
    get(r->DeviceSynchronize, "cudaDeviceSynchronize");
    get(r->EventCreateWithFlags, "cudaEventCreateWithFlags");
    get(r->EventRecord, "cudaEventRecord");
    get(r->EventQuery, "cudaEventQuery");
    get(r->EventDestroy, "cudaEventDestroy");
    return r;
  }();
  return *c;
}

void check(cudaError_t e, const char* call) {
  if (e == cudaSuccess) return;
  cudart().GetLastError();  // clears a sticky-free error so the next call starts clean
  EMBER_THROW(Error, "CUDA error in ", call, ": ", cudart().GetErrorName(e), " (", cudart().GetErrorString(e), ")");
}

// Makes `index` the current device for a scope.
class Guard {
 public:
  explicit Guard(int index) {
    check(cudart().GetDevice(&previous_), "cudaGetDevice");
    if (previous_ != index) check(cudart().SetDevice(index), "cudaSetDevice");
    index_ = index;
  }
  ~Guard() {
    if (previous_ != index_) cudart().SetDevice(previous_);
  }
  Guard(const Guard&) = delete;
  Guard& operator=(const Guard&) = delete;

 private:
  int previous_ = 0, index_ = 0;
};

// The caching allocator's driver for one device.
class CudaDriver final : public DeviceMemoryDriver {
 public:
  explicit CudaDriver(int index) : index_(index) {}
  void* malloc(size_t nbytes) override {
    Guard g(index_);
    void* p = nullptr;
    const cudaError_t e = cudart().Malloc(&p, nbytes);
    if (e == cudaErrorMemoryAllocation) {
      cudart().GetLastError();
      return nullptr;  // the allocator frees its cache and retries, then says how much
    }
    check(e, "cudaMalloc");
    return p;
  }
  void free(void* ptr) override {
    Guard g(index_);
    check(cudart().Free(ptr), "cudaFree");
  }
  void mem_info(size_t* free, size_t* total) override {
    Guard g(index_);
    check(cudart().MemGetInfo(free, total), "cudaMemGetInfo");
  }
  void* record_event(Stream stream) override {
    Guard g(index_);
    cudaEvent_t e = nullptr;
    check(cudart().EventCreateWithFlags(&e, cudaEventDisableTiming), "cudaEventCreateWithFlags");
    check(cudart().EventRecord(e, reinterpret_cast<cudaStream_t>(stream)), "cudaEventRecord");
    return e;
  }
  bool query_event(void* event) override {
    const cudaError_t e = cudart().EventQuery(static_cast<cudaEvent_t>(event));
    if (e == cudaErrorNotReady) {
      cudart().GetLastError();
      return false;
    }
    check(e, "cudaEventQuery");
    return true;
  }
  void destroy_event(void* event) override { cudart().EventDestroy(static_cast<cudaEvent_t>(event)); }

 private:
  int index_;
};

struct DeviceState {
  explicit DeviceState(int index)
      : driver(index), allocator(driver, "cuda:" + std::to_string(index)) {}
  CudaDriver driver;
  DeviceCachingAllocator allocator;
};

struct Runtime {
  int count = 0;
  std::string reason;
  std::vector<std::unique_ptr<DeviceState>> devices;
};

// Asked once: the driver's device count and, per device, its allocator (never destroyed:
// tensors may outlive static destructors).
Runtime& runtime() {
  static Runtime* r = [] {
    auto* rt = new Runtime;
    if (!cudart().error.empty()) {
      rt->reason = "no CUDA device is usable: " + cudart().error;
      return rt;
    }
    const cudaError_t e = cudart().GetDeviceCount(&rt->count);
    if (e != cudaSuccess) {
      cudart().GetLastError();
      rt->count = 0;
      rt->reason = std::string("no CUDA device is usable: ") + cudart().GetErrorName(e) + " (" + cudart().GetErrorString(e) + ")";
    } else if (rt->count == 0) {
      rt->reason = "the CUDA driver reports no device";
    }
    for (int i = 0; i < rt->count; ++i) rt->devices.push_back(std::make_unique<DeviceState>(i));
    return rt;
  }();
  return *r;
}

DeviceState& device(int index) {
  Runtime& r = runtime();
  EMBER_CHECK_VALUE(index >= 0 && index < r.count, "cuda:", index, ": ",
                    r.count == 0 ? r.reason : "expected a device index below " + std::to_string(r.count));
  return *r.devices[static_cast<size_t>(index)];
}

struct Block {
  DeviceCachingAllocator* owner;
  void* ptr;
};

void free_block(void* ctx) {
  auto* b = static_cast<Block*>(ctx);
  b->owner->free(b->ptr);
  delete b;
}

// DeviceType::CUDA's allocator: the current device's caching allocator, on the default stream.
class CudaAllocator final : public Allocator {
 public:
  DataPtr allocate(size_t nbytes) override {
    int index = 0;
    if (runtime().count > 0) check(cudart().GetDevice(&index), "cudaGetDevice");
    DeviceState& d = device(index);
    const Device dev(DeviceType::CUDA, static_cast<int8_t>(index));
    if (nbytes == 0) return DataPtr(nullptr, nullptr, nullptr, dev);
    void* p = d.allocator.allocate(nbytes, 0);
    return DataPtr(p, new Block{&d.allocator, p}, &free_block, dev);
  }
  void copy_data(void* dst, const void* src, size_t nbytes) const override {
    if (nbytes > 0) check(cudart().Memcpy(dst, src, nbytes, cudaMemcpyDeviceToDevice), "cudaMemcpy");
  }
};

CudaAllocator cuda_allocator;
[[maybe_unused]] const bool installed = (set_allocator(DeviceType::CUDA, &cuda_allocator), true);

}  // namespace

bool built() { return true; }
int device_count() { return runtime().count; }
std::string unavailable_reason() { return runtime().reason; }
DeviceMemoryStats memory_stats(int index) { return device(index).allocator.stats(); }
void reset_peak_memory_stats(int index) { device(index).allocator.reset_peak_stats(); }
void empty_cache(int index) {
  if (index < runtime().count) device(index).allocator.empty_cache();
}
void synchronize(int index) {
  device(index);
  Guard g(index);
  check(cudart().DeviceSynchronize(), "cudaDeviceSynchronize");
}

}  // namespace ember::cuda
