// c10/cuda/CudaRuntime.h over the CUDA runtime, opened on first use (Note [Loading cudart]).
#include "c10/cuda/CudaRuntime.h"

#include <cuda_runtime_api.h>
#include <dlfcn.h>

#include <map>
#include <memory>
#include <type_traits>
#include <mutex>
#include <vector>

#include "c10/core/Allocator.h"
#include "c10/core/Device.h"
#include "c10/core/DeviceStreams.h"
#include "c10/util/Exception.h"

namespace ember::cuda {
namespace {

// Note [Loading cudart]: libember does not link the CUDA runtime. Linked dynamically, it
// would make libember unloadable wherever libcudart.so.13 is missing; linked statically,
// its initial-exec TLS does not fit the static TLS block of a library Python dlopens
// ("cannot allocate memory in static TLS block"). So the functions used here are looked up
// in libcudart.so.13 (the toolkit's, or the nvidia-cuda-runtime wheel's, on the library
// path or beside an installed ember package) the first time CUDA is asked for; without it
// there are no devices, and the reason says so. Only the types come from the toolkit's
// header.
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
  decltype(&cudaEventSynchronize) EventSynchronize = nullptr;
  decltype(&cudaEventElapsedTime) EventElapsedTime = nullptr;
  decltype(&cudaStreamCreateWithPriority) StreamCreateWithPriority = nullptr;
  decltype(&cudaDeviceGetStreamPriorityRange) DeviceGetStreamPriorityRange = nullptr;
  decltype(&cudaStreamQuery) StreamQuery = nullptr;
  decltype(&cudaStreamSynchronize) StreamSynchronize = nullptr;
  decltype(&cudaStreamWaitEvent) StreamWaitEvent = nullptr;
  decltype(&cudaMemcpyAsync) MemcpyAsync = nullptr;
  decltype(&cudaGetDeviceProperties) GetDeviceProperties = nullptr;
  decltype(&cudaHostAlloc) HostAlloc = nullptr;
  decltype(&cudaFreeHost) FreeHost = nullptr;
  std::string error;  // why it could not be opened, or ""
};

const Cudart& cudart() {
  static const Cudart* c = [] {
    auto* r = new Cudart;
    std::string tried;
    void* h = open_nvidia_library("libcudart.so.13", &tried);
    if (!h) {
      r->error = "the CUDA runtime (libcudart.so.13) was not found (tried " + tried + ")";
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
    get(r->EventSynchronize, "cudaEventSynchronize");
    get(r->EventElapsedTime, "cudaEventElapsedTime");
    get(r->StreamCreateWithPriority, "cudaStreamCreateWithPriority");
    get(r->DeviceGetStreamPriorityRange, "cudaDeviceGetStreamPriorityRange");
    get(r->StreamQuery, "cudaStreamQuery");
    get(r->StreamSynchronize, "cudaStreamSynchronize");
    get(r->StreamWaitEvent, "cudaStreamWaitEvent");
    get(r->MemcpyAsync, "cudaMemcpyAsync");
    get(r->GetDeviceProperties, "cudaGetDeviceProperties");
    get(r->HostAlloc, "cudaHostAlloc");
    get(r->FreeHost, "cudaFreeHost");
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

// Pool streams, at the device's normal or greatest priority (Note [Device streams]).
class CudaStreamDriver final : public DeviceStreamDriver {
 public:
  Handle create_stream(int device, int priority) override {
    Guard g(device);
    int least = 0, greatest = 0;
    check(cudart().DeviceGetStreamPriorityRange(&least, &greatest), "cudaDeviceGetStreamPriorityRange");
    cudaStream_t s = nullptr;
    check(cudart().StreamCreateWithPriority(&s, cudaStreamNonBlocking, priority ? greatest : least),
          "cudaStreamCreateWithPriority");
    return reinterpret_cast<Handle>(s);
  }
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
  CudaStreamDriver stream_driver;
  std::unique_ptr<DeviceStreamRegistry> streams;
};

// Asked once: the driver's device count and, per device, its allocator (never destroyed:
// tensors may outlive static destructors).
Runtime& runtime() {
  static Runtime* r = [] {
    auto* rt = new Runtime;
    if (!cudart().error.empty()) {
      rt->reason = "no CUDA device is usable: " + cudart().error;
    } else if (const cudaError_t e = cudart().GetDeviceCount(&rt->count); e != cudaSuccess) {
      cudart().GetLastError();
      rt->count = 0;
      rt->reason = std::string("no CUDA device is usable: ") + cudart().GetErrorName(e) + " (" + cudart().GetErrorString(e) + ")";
    } else if (rt->count == 0) {
      rt->reason = "the CUDA driver reports no device";
    }
    if (rt->count > 0) {
      // (libember_cuda's initialisers only register: nothing in them may ask runtime().)
      if (std::string e = load_kernels(); !e.empty()) {
        rt->count = 0;
        rt->reason = e;
      }
    }
    for (int i = 0; i < rt->count; ++i) rt->devices.push_back(std::make_unique<DeviceState>(i));
    rt->streams = std::make_unique<DeviceStreamRegistry>(rt->stream_driver, rt->count, "cuda");
    return rt;
  }();
  return *r;
}

// Device `index` (-1: the current one), checked: ValueError naming why there is none.
int checked(int index) {
  Runtime& r = runtime();
  EMBER_CHECK_VALUE(r.count > 0, "cuda", index < 0 ? "" : ":" + std::to_string(index), ": ", r.reason);
  if (index < 0) {
    check(cudart().GetDevice(&index), "cudaGetDevice");
    return index;
  }
  r.streams->check_device(index);
  return index;
}

DeviceState& device(int index) { return *runtime().devices[static_cast<size_t>(checked(index))]; }

cudaStream_t raw(DeviceStream s) { return reinterpret_cast<cudaStream_t>(s.handle); }

struct Block {
  DeviceCachingAllocator* owner;
  void* ptr;
};

void free_block(void* ctx) {
  auto* b = static_cast<Block*>(ctx);
  b->owner->free(b->ptr);
  delete b;
}

// DeviceType::CUDA's allocator: the current device's caching allocator, for the current
// stream (the caching allocator reuses a block on the stream it was allocated for).
class CudaAllocator final : public Allocator {
 public:
  DataPtr allocate(size_t nbytes) override {
    const int index = checked(-1);
    DeviceState& d = *runtime().devices[static_cast<size_t>(index)];
    const Device dev(DeviceType::CUDA, static_cast<int8_t>(index));
    if (nbytes == 0) return DataPtr(nullptr, nullptr, nullptr, dev);
    void* p = d.allocator.allocate(nbytes, current_stream(index).handle);
    return DataPtr(p, new Block{&d.allocator, p}, &free_block, dev);
  }
  void copy_data(void* dst, const void* src, size_t nbytes) const override {
    if (nbytes == 0) return;
    int index = 0;
    check(cudart().GetDevice(&index), "cudaGetDevice");
    const cudaStream_t s = raw(current_stream(index));
    check(cudart().MemcpyAsync(dst, src, nbytes, cudaMemcpyDeviceToDevice, s), "cudaMemcpyAsync");
  }
};

CudaAllocator cuda_allocator;
[[maybe_unused]] const bool installed = (set_allocator(DeviceType::CUDA, &cuda_allocator), true);

// Pinned host blocks, cached by exact rounded size: cudaHostAlloc is slow (it maps and
// locks pages), and pinned buffers are reused in loops (a DataLoader's batches).
class PinnedAllocator final : public Allocator {
 public:
  DataPtr allocate(size_t nbytes) override {
    if (nbytes == 0) return DataPtr(nullptr, nullptr, nullptr, Device(DeviceType::CPU));
    const size_t size = (nbytes + 511) / 512 * 512;
    void* p = nullptr;
    {
      std::lock_guard<std::mutex> g(mutex_);
      auto it = free_.find(size);
      if (it != free_.end()) {
        p = it->second;
        free_.erase(it);
      }
    }
    if (!p) p = host_alloc(size);
    return DataPtr(p, new PinnedBlock{this, p, size}, &release, Device(DeviceType::CPU));
  }

 private:
  struct PinnedBlock {
    PinnedAllocator* owner;
    void* ptr;
    size_t size;
  };
  static void release(void* ctx) {
    auto* b = static_cast<PinnedBlock*>(ctx);
    {
      std::lock_guard<std::mutex> g(b->owner->mutex_);
      b->owner->free_.emplace(b->size, b->ptr);
    }
    delete b;
  }
  std::mutex mutex_;
  std::multimap<size_t, void*> free_;
};

struct Event {
  cudaEvent_t event = nullptr;
  int device = -1;  // where it was created (on its first record)
  bool timing;
  bool blocking;
};

}  // namespace

// Note [The CUDA library]: the CUDA kernels (aten/native/cuda/, and their generated
// registrations, RegisterCUDA.cpp) are built into libember_cuda.so, beside libember.so, which
// links the CUDA runtime and registers them into libember's dispatcher when it is opened:
// the first time a device is found (runtime(), above). libember itself stays loadable where
// there is no CUDA runtime (Note [Loading cudart]); the factories and copies' allocator,
// streams and events are libember's.
namespace {
// The folder libember.so was loaded from ("" if unknown), with its trailing slash.
std::string libember_dir() {
  Dl_info info{};
  if (!dladdr(reinterpret_cast<void*>(&libember_dir), &info) || !info.dli_fname) return "";
  const std::string path = info.dli_fname;
  return path.substr(0, path.find_last_of('/') + 1);
}
}  // namespace

void* open_nvidia_library(const char* soname, std::string* tried) {
  void* h = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
  *tried = soname;
  const std::string dir = libember_dir();
  if (!h && !dir.empty()) {
    const std::string wheel = dir + "../nvidia/cu13/lib/" + soname;
    h = dlopen(wheel.c_str(), RTLD_NOW | RTLD_LOCAL);
    *tried += ", " + wheel;
  }
  return h;
}

std::string load_kernels() {
  static const std::string error = [] {
    const std::string dir = libember_dir();
    if (dir.empty()) return std::string("the CUDA kernels could not be loaded: libember's own path is unknown");
    const std::string path = dir + "libember_cuda.so";
    if (!dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL)) {
      const char* e = dlerror();
      return "the CUDA kernels (" + path + ") could not be loaded: " + (e ? e : "");
    }
    return std::string();
  }();
  return error;
}

bool built() { return true; }

std::vector<std::string> arch_list() {
  std::vector<std::string> out;
  std::string archs = EMBER_CUDA_ARCHS;  // "90,80" (CMakeLists.txt)
  for (size_t start = 0; start < archs.size();) {
    size_t end = archs.find(',', start);
    if (end == std::string::npos) end = archs.size();
    std::string a = archs.substr(start, end - start);
    a = a.substr(0, a.find('-'));  // "90-real" -> "90"
    if (!a.empty()) out.push_back("sm_" + a);
    start = end + 1;
  }
  return out;
}
int device_count() { return runtime().count; }
std::string unavailable_reason() { return runtime().reason; }
DeviceMemoryStats memory_stats(int index) { return device(index).allocator.stats(); }
void reset_peak_memory_stats(int index) { device(index).allocator.reset_peak_stats(); }
void empty_cache(int index) {
  if (index < runtime().count) device(index).allocator.empty_cache();
}
void synchronize(int index) {
  index = checked(index);
  Guard g(index);
  check(cudart().DeviceSynchronize(), "cudaDeviceSynchronize");
}

int current_device() { return checked(-1); }
void set_device(int index) { check(cudart().SetDevice(checked(index)), "cudaSetDevice"); }

DeviceProperties device_properties(int index) {
  index = checked(index);
  cudaDeviceProp p{};
  check(cudart().GetDeviceProperties(&p, index), "cudaGetDeviceProperties");
  return {p.name, p.major, p.minor, p.totalGlobalMem, p.multiProcessorCount};
}

void mem_get_info(int index, size_t* free, size_t* total) { device(index).driver.mem_info(free, total); }

DeviceStream current_stream(int index) {
  index = checked(index);
  return runtime().streams->current(index);
}
DeviceStream default_stream(int index) { return runtime().streams->default_stream(checked(index)); }
void set_current_stream(DeviceStream s) {
  checked(s.device);
  runtime().streams->set_current(s);
}
DeviceStream stream_from_pool(bool high_priority, int index) {
  return runtime().streams->from_pool(checked(index), high_priority);
}
DeviceStream create_stream(int index, int priority) {
  index = checked(index);
  return {index, runtime().stream_driver.create_stream(index, priority < 0 ? 1 : 0)};
}
bool stream_query(DeviceStream s) {
  checked(s.device);
  const cudaError_t e = cudart().StreamQuery(raw(s));
  if (e == cudaErrorNotReady) {
    cudart().GetLastError();
    return false;
  }
  check(e, "cudaStreamQuery");
  return true;
}
void stream_synchronize(DeviceStream s) {
  checked(s.device);
  check(cudart().StreamSynchronize(raw(s)), "cudaStreamSynchronize");
}

void* event_create(bool enable_timing, bool blocking) { return new Event{nullptr, -1, enable_timing, blocking}; }
void event_destroy(void* event) {
  auto* e = static_cast<Event*>(event);
  if (e->event) {
    Guard g(e->device);
    cudart().EventDestroy(e->event);
  }
  delete e;
}
void event_record(void* event, DeviceStream s) {
  auto* e = static_cast<Event*>(event);
  checked(s.device);
  EMBER_CHECK_VALUE(e->device < 0 || e->device == s.device, "Event.record(): the event was recorded on cuda:",
                    e->device, " before; it cannot be recorded on a stream of cuda:", s.device);
  Guard g(s.device);
  if (!e->event) {
    unsigned flags = (e->timing ? cudaEventDefault : cudaEventDisableTiming) | (e->blocking ? cudaEventBlockingSync : 0u);
    check(cudart().EventCreateWithFlags(&e->event, flags), "cudaEventCreateWithFlags");
    e->device = s.device;
  }
  check(cudart().EventRecord(e->event, raw(s)), "cudaEventRecord");
}
bool event_query(void* event) {
  auto* e = static_cast<Event*>(event);
  if (!e->event) return true;  // never recorded: nothing to wait for (as PyTorch)
  const cudaError_t r = cudart().EventQuery(e->event);
  if (r == cudaErrorNotReady) {
    cudart().GetLastError();
    return false;
  }
  check(r, "cudaEventQuery");
  return true;
}
void event_synchronize(void* event) {
  auto* e = static_cast<Event*>(event);
  if (e->event) check(cudart().EventSynchronize(e->event), "cudaEventSynchronize");
}
void event_wait(void* event, DeviceStream s) {
  auto* e = static_cast<Event*>(event);
  checked(s.device);
  if (!e->event) return;
  Guard g(s.device);
  check(cudart().StreamWaitEvent(raw(s), e->event, 0), "cudaStreamWaitEvent");
}
float event_elapsed_ms(void* start, void* end) {
  auto* a = static_cast<Event*>(start);
  auto* b = static_cast<Event*>(end);
  EMBER_CHECK_VALUE(a->timing && b->timing, "Event.elapsed_time(): both events must be created with enable_timing=True");
  EMBER_CHECK_VALUE(a->event && b->event, "Event.elapsed_time(): both events must be recorded first");
  float ms = 0;
  check(cudart().EventElapsedTime(&ms, a->event, b->event), "cudaEventElapsedTime");
  return ms;
}

void record_stream(void* ptr, DeviceStream s) {
  if (ptr) device(s.device).allocator.record_stream(ptr, s.handle);
}

void memcpy_async(void* dst, const void* src, size_t nbytes, CopyDirection dir, DeviceStream s) {
  if (nbytes == 0) return;
  checked(s.device);
  Guard g(s.device);
  const cudaMemcpyKind kind = dir == CopyDirection::HostToDevice   ? cudaMemcpyHostToDevice
                              : dir == CopyDirection::DeviceToHost ? cudaMemcpyDeviceToHost
                                                                   : cudaMemcpyDeviceToDevice;
  check(cudart().MemcpyAsync(dst, src, nbytes, kind, raw(s)), "cudaMemcpyAsync");
}

void* host_alloc(size_t nbytes) {
  checked(-1);
  void* p = nullptr;
  check(cudart().HostAlloc(&p, nbytes, cudaHostAllocDefault), "cudaHostAlloc");
  return p;
}
void host_free(void* ptr) {
  if (ptr) check(cudart().FreeHost(ptr), "cudaFreeHost");
}

Allocator* pinned_allocator() {
  static auto* a = new PinnedAllocator;  // never destroyed: pinned tensors may outlive statics
  return a;
}

}  // namespace ember::cuda
