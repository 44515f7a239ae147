// openreg: Ember's reference out-of-tree backend (c10/backend/Backend.h). Two devices whose
// memory is not host memory the host may touch: each is an arena of its own addressed by
// handles (a tag, the device index and an offset), which only the device's worker thread
// resolves, so a host-side dereference of a device pointer faults at once. Each device
// runs its kernels on one stream: a worker thread taking them in order, asynchronously to
// the caller; copies to the host, synchronize() and events wait for it. Kernels: the factories,
// copy_ (host <-> device, device <-> device, any strides), elementwise arithmetic with
// broadcasting, clamp_min (relu), sqrt, mm, sum, fill_/zero_, the optimisers' in-place updates
// and random fills from the device's own generator, all float32 (copies and factories take
// every dtype), declared in openreg.yaml (Note [Backend YAML], codegen/gen_backend.py);
// everything else runs on the CPU through Ember's CPU fallback, counted
// (ember.backends.fallback_stats()).
#include <ember/ember.h>
#include <sys/mman.h>

#include <array>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <deque>
#include <exception>
#include <functional>
#include <map>
#include <mutex>
#include <thread>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "Kernels.h"  // generated from openreg.yaml (ember_add_backend)
#include "aten/BackendFallback.h"
#include "c10/backend/Backend.h"

namespace {

using ember::Device;
using ember::IntArrayRef;
using ember::Scalar;
using ember::ScalarType;
using ember::Tensor;
using ember::backend::CopyKind;

constexpr int kDevices = 2;
constexpr size_t kArenaBytes = size_t{1} << 32;  // reserved, not committed (MAP_NORESERVE)
constexpr uintptr_t kTag = uintptr_t{0x0E} << 56;
constexpr uintptr_t kOffsetMask = (uintptr_t{1} << 48) - 1;

ember::DeviceType g_type = ember::DeviceType::PrivateUse1;
thread_local int g_current = 0;

// --- Memory: an arena per device, blocks by power-of-two size class ---------------------
class Arena {
 public:
  void* allocate(int device, size_t nbytes) {
    std::lock_guard<std::mutex> lock(m_);
    if (!base_) {
      void* p = mmap(nullptr, kArenaBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
      EMBER_CHECK(p != MAP_FAILED, "openreg: cannot reserve the device arena");
      base_ = static_cast<char*>(p);
    }
    size_t size = 256;
    while (size < nbytes) size <<= 1;
    uint64_t off;
    auto& list = free_[size];
    if (!list.empty()) {
      off = list.back();
      list.pop_back();
    } else {
      EMBER_CHECK(top_ + size <= kArenaBytes, "openreg: out of device memory on openreg:", device, " (asked ",
                  nbytes, " bytes; ", top_, " of ", kArenaBytes, " in use or cached)");
      off = top_;
      top_ += size;
    }
    size_of_[off] = size;
    return reinterpret_cast<void*>(kTag | (uintptr_t(device) << 48) | off);
  }
  void deallocate(const void* handle) {
    std::lock_guard<std::mutex> lock(m_);
    const uint64_t off = reinterpret_cast<uintptr_t>(handle) & kOffsetMask;
    auto it = size_of_.find(off);
    EMBER_CHECK(it != size_of_.end(), "openreg: freeing a handle that is not a live block");
    free_[it->second].push_back(off);
    size_of_.erase(it);
  }
  char* base() const { return base_; }

 private:
  std::mutex m_;
  char* base_ = nullptr;
  uint64_t top_ = 0;
  std::map<size_t, std::vector<uint64_t>> free_;
  std::unordered_map<uint64_t, size_t> size_of_;
};

Arena arenas[kDevices];

int device_of(const void* handle) { return static_cast<int>((reinterpret_cast<uintptr_t>(handle) >> 48) & 0xFF); }

// Only the worker threads (and copies after a synchronize) resolve handles to addresses.
char* resolve(const void* handle) {
  if (!handle) return nullptr;  // a zero-byte block: never read
  const auto v = reinterpret_cast<uintptr_t>(handle);
  EMBER_CHECK((v & ~((uintptr_t{0xFF} << 48) | kOffsetMask)) == kTag, "openreg: not a device handle");
  return arenas[device_of(handle)].base() + (v & kOffsetMask);
}

// --- Streams: one worker thread per device, kernels in order ----------------------------
class Stream {
 public:
  ~Stream() {
    {
      std::lock_guard<std::mutex> lock(m_);
      stop_ = true;
    }
    cv_.notify_all();
    if (worker_.joinable()) worker_.join();
  }
  void enqueue(std::function<void()> fn) {
    std::lock_guard<std::mutex> lock(m_);
    if (!worker_.joinable()) worker_ = std::thread([this] { run(); });
    queue_.push_back(std::move(fn));
    cv_.notify_all();
  }
  // Waits for every queued kernel; an error one of them raised comes out here.
  void synchronize() {
    std::unique_lock<std::mutex> lock(m_);
    idle_.wait(lock, [this] { return queue_.empty() && !busy_; });
    if (error_) {
      std::exception_ptr e = error_;
      error_ = nullptr;
      std::rethrow_exception(e);
    }
  }

 private:
  void run() {
    std::unique_lock<std::mutex> lock(m_);
    for (;;) {
      cv_.wait(lock, [this] { return stop_ || !queue_.empty(); });
      if (queue_.empty()) return;
      std::function<void()> fn = std::move(queue_.front());
      queue_.pop_front();
      busy_ = true;
      lock.unlock();
      try {
        fn();
      } catch (...) {
        std::lock_guard<std::mutex> g(m_);
        if (!error_) error_ = std::current_exception();
      }
      fn = nullptr;  // the tensors a kernel captured are released on the worker
      lock.lock();
      busy_ = false;
      if (queue_.empty()) idle_.notify_all();
    }
  }

  std::mutex m_;
  std::condition_variable cv_, idle_;
  std::deque<std::function<void()>> queue_;
  bool busy_ = false, stop_ = false;
  std::exception_ptr error_;
  std::thread worker_;
};

Stream streams[kDevices];

// --- Hooks ------------------------------------------------------------------------------
int device_count() { return kDevices; }
int current_device() { return g_current; }
void set_device(int i) {
  EMBER_CHECK_VALUE(i >= 0 && i < kDevices, "openreg: expected a device index in [0, ", kDevices, "), but got ", i);
  g_current = i;
}
void* allocate(int device, size_t nbytes) { return nbytes ? arenas[device].allocate(device, nbytes) : nullptr; }
void deallocate(int, void* p) {
  if (p) arenas[device_of(p)].deallocate(p);
}
void copy_bytes(void* dst, const void* src, size_t nbytes, CopyKind kind, int device) {
  if (!nbytes) return;
  if (kind == CopyKind::DeviceToDevice) {
    streams[device].enqueue([=] { std::memcpy(resolve(dst), resolve(src), nbytes); });
    return;
  }
  streams[device].synchronize();  // ordered after the queued work; the host side is ready now
  if (kind == CopyKind::HostToDevice) std::memcpy(resolve(dst), src, nbytes);
  else std::memcpy(dst, resolve(src), nbytes);
}
void synchronize(int device) { streams[device].synchronize(); }

// Events: a mark the worker reaches in order, with the time it did.
struct Event {
  std::mutex m;
  std::condition_variable cv;
  bool recorded = false, reached = false;
  std::chrono::steady_clock::time_point when;
};
void* event_create() { return new Event; }
void event_destroy(void* e) { delete static_cast<Event*>(e); }
void event_record(void* e, int device) {
  auto* ev = static_cast<Event*>(e);
  {
    std::lock_guard<std::mutex> lock(ev->m);
    ev->recorded = true;
    ev->reached = false;
  }
  streams[device].enqueue([ev] {
    std::lock_guard<std::mutex> lock(ev->m);
    ev->when = std::chrono::steady_clock::now();
    ev->reached = true;
    ev->cv.notify_all();
  });
}
void event_synchronize(void* e) {
  auto* ev = static_cast<Event*>(e);
  std::unique_lock<std::mutex> lock(ev->m);
  ev->cv.wait(lock, [ev] { return !ev->recorded || ev->reached; });
}
int event_query(void* e) {
  auto* ev = static_cast<Event*>(e);
  std::lock_guard<std::mutex> lock(ev->m);
  return !ev->recorded || ev->reached ? 1 : 0;
}
double event_elapsed_ms(void* a, void* b) {
  auto* x = static_cast<Event*>(a);
  auto* y = static_cast<Event*>(b);
  std::scoped_lock lock(x->m, y->m);
  EMBER_CHECK(x->reached && y->reached, "elapsed_time(): both events must have been reached");
  return std::chrono::duration<double, std::milli>(y->when - x->when).count();
}

// --- Helpers ------------------------------------------------------------------------------
bool on_device(const Tensor& t) { return t.defined() && t.device().type() == g_type; }
int index_of(const Tensor& t) { return std::max<int>(t.device().index(), 0); }

Tensor empty_on(IntArrayRef size, ScalarType dtype, Device device) {
  return ember::backend::empty_on_device(size, dtype, device);
}

// Element offsets (in elements) of t's elements in row-major order over `shape`, t broadcast
// to it: the strided walk every kernel shares.
struct Walk {
  std::vector<int64_t> shape, strides;
  int64_t offset;
};
Walk walk_of(const Tensor& t, IntArrayRef shape) {
  Walk w{std::vector<int64_t>(shape.begin(), shape.end()), std::vector<int64_t>(shape.size(), 0), t.storage_offset()};
  const int64_t lead = static_cast<int64_t>(shape.size()) - t.dim();
  for (int64_t d = 0; d < t.dim(); ++d) {
    if (t.sizes()[d] != 1) w.strides[static_cast<size_t>(d + lead)] = t.strides()[d];
  }
  return w;
}
template <class F>
void for_each_offset(const Walk& w, F&& f) {
  const size_t nd = w.shape.size();
  int64_t n = 1;
  for (int64_t s : w.shape) n *= s;
  if (n == 0) return;
  std::vector<int64_t> idx(nd, 0);
  int64_t off = w.offset;
  for (int64_t i = 0; i < n; ++i) {
    f(i, off);
    for (size_t d = nd; d-- > 0;) {
      if (++idx[d] < w.shape[d]) {
        off += w.strides[d];
        break;
      }
      off -= w.strides[d] * (w.shape[d] - 1);
      idx[d] = 0;
    }
  }
}

void check_float(const char* op, const Tensor& t) {
  EMBER_CHECK_NOT_IMPLEMENTED(t.scalar_type() == ScalarType::Float, op, "(): openreg computes in float32 only, "
                              "but got ", t.scalar_type(), "; move the tensor to the CPU for other dtypes");
}

std::vector<int64_t> broadcast(const char* op, IntArrayRef a, IntArrayRef b) {
  const size_t n = std::max(a.size(), b.size());
  std::vector<int64_t> out(n);
  for (size_t i = 0; i < n; ++i) {
    const int64_t x = i < n - a.size() ? 1 : a[i - (n - a.size())];
    const int64_t y = i < n - b.size() ? 1 : b[i - (n - b.size())];
    EMBER_CHECK_VALUE(x == y || x == 1 || y == 1, op, "(): shapes ", a, " and ", b, " cannot be broadcast");
    out[i] = x == 1 ? y : x;
  }
  return out;
}

// An in-place op's operand must broadcast to self's shape, not grow it.
void check_broadcasts_to(const char* op, const Tensor& self, const Tensor& other) {
  const std::vector<int64_t> shape = broadcast(op, self.sizes(), other.sizes());
  EMBER_CHECK_VALUE(IntArrayRef(shape) == self.sizes(), op, "(): an operand of shape ", other.sizes(),
                    " does not broadcast to self's shape ", self.sizes());
}

// A CPU 0-d operand (torch allows one beside device tensors) as a value.
std::optional<float> host_scalar(const Tensor& t) {
  if (t.device().is_cpu() && t.dim() == 0) return static_cast<float>(t.item().toDouble());
  return std::nullopt;
}

// out[i] = f(x1[i], ..., xN[i]) over out's shape, each input broadcast to it (or a host
// 0-d one read as a value); out may alias an input (in place): the inputs are gathered
// before anything is written.
template <size_t N, class F>
Tensor& elementwise_into(const char* op, Tensor& out, std::array<const Tensor*, N> in, F f) {
  check_float(op, out);
  EMBER_CHECK_VALUE(on_device(out), op, "(): expected the output on an openreg device");
  std::array<std::optional<float>, N> scalar;
  std::array<Walk, N> walks;
  std::array<const void*, N> handles{};
  std::vector<Tensor> keep{out};
  for (size_t k = 0; k < N; ++k) {
    const Tensor& t = *in[k];
    check_float(op, t);
    scalar[k] = host_scalar(t);
    if (scalar[k]) continue;
    EMBER_CHECK_VALUE(on_device(t) && index_of(t) == index_of(out), op, "(): expected every tensor on ",
                      out.device(), ", but got one on ", t.device());
    walks[k] = walk_of(t, out.sizes());
    handles[k] = t.storage()->data();
    keep.push_back(t);
  }
  const Walk wo = walk_of(out, out.sizes());
  void* ho = out.storage()->data();
  streams[index_of(out)].enqueue([=] {
    (void)keep;
    std::array<std::vector<float>, N> x;
    for (size_t k = 0; k < N; ++k) {
      if (scalar[k]) continue;
      const float* p = reinterpret_cast<const float*>(resolve(handles[k]));
      for_each_offset(walks[k], [&](int64_t, int64_t o) { x[k].push_back(p[o]); });
    }
    float* po = reinterpret_cast<float*>(resolve(ho));
    for_each_offset(wo, [&](int64_t i, int64_t o) {
      std::array<float, N> v;
      for (size_t k = 0; k < N; ++k) v[k] = scalar[k] ? *scalar[k] : x[k][static_cast<size_t>(i)];
      po[o] = std::apply(f, v);
    });
  });
  return out;
}

// A new float32 tensor of the inputs' broadcast shape, on the first device operand's device.
template <size_t N, class F>
Tensor elementwise(const char* op, std::array<const Tensor*, N> in, F f) {
  std::vector<int64_t> shape(in[0]->sizes().begin(), in[0]->sizes().end());
  const Tensor* where = nullptr;
  for (const Tensor* t : in) {
    shape = broadcast(op, shape, t->sizes());
    if (!where && on_device(*t)) where = t;
  }
  EMBER_CHECK_VALUE(where != nullptr, op, "(): expected a tensor on an openreg device");
  Tensor out = empty_on(shape, ScalarType::Float, where->device());
  return elementwise_into(op, out, in, f);
}

// self = f(self, others...) in place; each operand broadcasts to self's shape.
template <class F, class... T>
Tensor& inplace(const char* op, Tensor& self, F f, const T&... others) {
  (check_broadcasts_to(op, self, others), ...);
  return elementwise_into<1 + sizeof...(T)>(op, self, {&self, &others...}, f);
}

// An in-place update of a tensor openreg does not compute in (an int64 counter, such as
// batch norm's num_batches_tracked): done on a host copy, then copied back.
template <class F>
Tensor& on_host(Tensor& self, F f) {
  Tensor h = self.cpu();
  f(h);
  self.copy_(h);
  return self;
}

float as_float(const Scalar& s) { return static_cast<float>(s.toDouble()); }

// --- Generator: counter-based, a draw's values depend only on (seed, counter) -----------
// Each kernel reserves the counters it uses under the generator's mutex, on the calling
// thread, so draws are reproducible whatever order the worker later runs in.
class OpenregGenerator final : public ember::GeneratorImpl {
 public:
  explicit OpenregGenerator(Device device) : GeneratorImpl(device) {}
  void set_current_seed(uint64_t seed) override {
    seed_ = seed;
    counter_ = 0;
  }
  uint64_t current_seed() const override { return seed_; }
  // The first of n fresh counters.
  uint64_t reserve(uint64_t n) {
    std::lock_guard<std::mutex> lock(mutex());
    const uint64_t first = counter_;
    counter_ += n;
    return first;
  }

 private:
  uint64_t seed_ = 67280421310721ULL;  // torch's default seed
  uint64_t counter_ = 0;
};

// splitmix64's finaliser over (seed, counter): 24 uniform bits -> [0, 1).
float uniform01(uint64_t seed, uint64_t counter) {
  uint64_t z = seed + 0x9E3779B97F4A7C15ULL * (counter + 1);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  z ^= z >> 31;
  return static_cast<float>(z >> 40) * 0x1p-24f;
}

OpenregGenerator& generator_of(const char* op, const std::optional<ember::Generator>& gen) {
  const ember::Generator g = gen && gen->defined() ? *gen : ember::default_generator(g_type);
  EMBER_CHECK_VALUE(g.device().type() == g_type, op, "(): expected a generator of the openreg device, but got one of ",
                    g.device());
  return static_cast<OpenregGenerator&>(*g.impl());
}

// self[i] = f(seed, first counter + i * per) over self's elements.
template <class F>
Tensor& draw(const char* op, Tensor& self, const std::optional<ember::Generator>& gen, uint64_t per, F f) {
  check_float(op, self);
  EMBER_CHECK_VALUE(on_device(self), op, "(): expected a tensor on an openreg device");
  OpenregGenerator& g = generator_of(op, gen);
  const uint64_t seed = g.current_seed();
  const uint64_t first = g.reserve(static_cast<uint64_t>(self.numel()) * per);
  const Walk w = walk_of(self, self.sizes());
  const Tensor keep = self;
  void* h = self.storage()->data();
  streams[index_of(self)].enqueue([=] {
    (void)keep;
    float* p = reinterpret_cast<float*>(resolve(h));
    for_each_offset(w, [&](int64_t i, int64_t o) { p[o] = f(seed, first + static_cast<uint64_t>(i) * per); });
  });
  return self;
}

void manual_seed(uint64_t seed) { ember::default_generator(g_type).manual_seed(seed); }

}  // namespace

// --- Kernels (openreg.yaml; Kernels is declared in the generated Kernels.h) --------------
namespace ember::openreg {

Tensor Kernels::empty(IntArrayRef size, std::optional<ScalarType> dtype, std::optional<Layout> layout,
                      std::optional<Device> device, std::optional<bool>, std::optional<MemoryFormat> memory_format) {
  EMBER_CHECK_NOT_IMPLEMENTED(!layout || *layout == Layout::Strided, "empty(): openreg holds strided tensors only");
  const MemoryFormat f = memory_format.value_or(MemoryFormat::Contiguous);
  Tensor t = empty_on(size, dtype.value_or(get_default_dtype()), device.value_or(Device(g_type)));
  if (f == MemoryFormat::ChannelsLast || f == MemoryFormat::ChannelsLast3d) {
    // The same bytes, restrided (resize_ computes channels-last strides on every device).
    return t.resize_(size, f);
  }
  return t;
}

Tensor Kernels::empty_strided(IntArrayRef size, IntArrayRef stride, std::optional<ScalarType> dtype,
                              std::optional<Layout> layout, std::optional<Device> device, std::optional<bool>) {
  EMBER_CHECK_NOT_IMPLEMENTED(!layout || *layout == Layout::Strided, "empty_strided(): openreg holds strided "
                              "tensors only");
  EMBER_CHECK_VALUE(size.size() == stride.size(), "empty_strided(): expected as many strides as sizes, but got ",
                    stride.size(), " strides for ", size.size(), " sizes");
  // The extent the strides reach, then a view of that geometry.
  int64_t extent = 1;
  for (size_t d = 0; d < size.size(); ++d) {
    EMBER_CHECK_VALUE(size[d] >= 0 && stride[d] >= 0, "empty_strided(): expected non-negative sizes and strides, "
                      "but got ", size, " and ", stride);
    if (size[d] == 0) extent = 0;
  }
  if (extent) {
    for (size_t d = 0; d < size.size(); ++d) extent += (size[d] - 1) * stride[d];
  }
  Tensor base = empty_on({extent}, dtype.value_or(get_default_dtype()), device.value_or(Device(g_type)));
  base.impl()->set_sizes_and_strides(size, stride, 0);
  return base;
}

Tensor Kernels::add(const Tensor& a, const Tensor& b, const Scalar& alpha) {
  const float k = as_float(alpha);
  return elementwise<2>("add", {&a, &b}, [k](float x, float y) { return x + k * y; });
}
Tensor Kernels::sub(const Tensor& a, const Tensor& b, const Scalar& alpha) {
  const float k = as_float(alpha);
  return elementwise<2>("sub", {&a, &b}, [k](float x, float y) { return x - k * y; });
}
Tensor Kernels::mul(const Tensor& a, const Tensor& b) {
  return elementwise<2>("mul", {&a, &b}, [](float x, float y) { return x * y; });
}
Tensor Kernels::div(const Tensor& a, const Tensor& b) {
  return elementwise<2>("div", {&a, &b}, [](float x, float y) { return x / y; });
}
Tensor Kernels::add_scalar(const Tensor& a, const Scalar& other, const Scalar& alpha) {
  const float v = as_float(other) * as_float(alpha);
  return elementwise<1>("add", {&a}, [v](float x) { return x + v; });
}
Tensor Kernels::mul_scalar(const Tensor& a, const Scalar& other) {
  const float v = as_float(other);
  return elementwise<1>("mul", {&a}, [v](float x) { return x * v; });
}
Tensor Kernels::div_scalar(const Tensor& a, const Scalar& other) {
  const float v = as_float(other);
  return elementwise<1>("div", {&a}, [v](float x) { return x / v; });
}
Tensor& Kernels::add_(Tensor& self, const Tensor& b, const Scalar& alpha) {
  const float k = as_float(alpha);
  return inplace("add_", self, [k](float x, float y) { return x + k * y; }, b);
}
Tensor& Kernels::mul_(Tensor& self, const Tensor& b) {
  return inplace("mul_", self, [](float x, float y) { return x * y; }, b);
}
Tensor& Kernels::add_scalar_(Tensor& self, const Scalar& other, const Scalar& alpha) {
  if (self.scalar_type() != ScalarType::Float) return on_host(self, [&](Tensor& h) { h.add_(other, alpha); });
  const float v = as_float(other) * as_float(alpha);
  return inplace("add_", self, [v](float x) { return x + v; });
}
Tensor& Kernels::mul_scalar_(Tensor& self, const Scalar& other) {
  if (self.scalar_type() != ScalarType::Float) return on_host(self, [&](Tensor& h) { h.mul_(other); });
  const float v = as_float(other);
  return inplace("mul_", self, [v](float x) { return x * v; });
}
Tensor& Kernels::div_scalar_(Tensor& self, const Scalar& other) {
  if (self.scalar_type() != ScalarType::Float) return on_host(self, [&](Tensor& h) { h.div_(other); });
  const float v = as_float(other);
  return inplace("div_", self, [v](float x) { return x / v; });
}
// relu is CompositeImplicitAutograd (clamp_min(x, 0)): a kernel for relu itself would take
// the op out of autograd's reach on this device, so the kernel is clamp_min's.
Tensor Kernels::clamp_min(const Tensor& a, const Scalar& min) {
  const float lo = as_float(min);
  return elementwise<1>("clamp_min", {&a}, [lo](float x) { return x < lo ? lo : x; });
}
Tensor Kernels::sqrt(const Tensor& a) {
  return elementwise<1>("sqrt", {&a}, [](float x) { return std::sqrt(x); });
}
Tensor Kernels::neg(const Tensor& a) {
  return elementwise<1>("neg", {&a}, [](float x) { return -x; });
}

// The optimisers' updates (Adam: lerp_, addcmul_, sqrt, addcdiv_; SGD: add_, mul_).
Tensor& Kernels::addcmul_(Tensor& self, const Tensor& t1, const Tensor& t2, const Scalar& value) {
  const float v = as_float(value);
  return inplace("addcmul_", self, [v](float s, float x, float y) { return s + v * x * y; }, t1, t2);
}
Tensor& Kernels::addcdiv_(Tensor& self, const Tensor& t1, const Tensor& t2, const Scalar& value) {
  const float v = as_float(value);
  return inplace("addcdiv_", self, [v](float s, float x, float y) { return s + v * x / y; }, t1, t2);
}
Tensor& Kernels::lerp_(Tensor& self, const Tensor& end, const Scalar& weight) {
  const float w = as_float(weight);
  return inplace("lerp_", self, [w](float s, float e) { return s + w * (e - s); }, end);
}

Tensor& Kernels::fill_(Tensor& self, const Scalar& value) {
  const Tensor keep = self;
  const Walk w = walk_of(self, self.sizes());
  const size_t item = itemsize(self.scalar_type());
  // The value's bytes in self's dtype, made on the host.
  Tensor one = full({}, value, TensorOptions().dtype(self.scalar_type()));
  std::vector<char> bytes(static_cast<const char*>(one.data_ptr()), static_cast<const char*>(one.data_ptr()) + item);
  void* h = self.storage()->data();
  streams[index_of(self)].enqueue([=] {
    (void)keep;
    char* p = resolve(h);
    for_each_offset(w, [&](int64_t, int64_t o) { std::memcpy(p + o * static_cast<int64_t>(item), bytes.data(), item); });
  });
  return self;
}
Tensor& Kernels::zero_(Tensor& self) { return fill_(self, Scalar(0)); }

// Random fills from openreg's own generator (ember.openreg.manual_seed seeds it).
Tensor& Kernels::uniform_(Tensor& self, double from, double to, std::optional<Generator> gen) {
  EMBER_CHECK_VALUE(from <= to, "uniform_(): expected from <= to, but got from=", from, " to=", to);
  const auto lo = static_cast<float>(from), span = static_cast<float>(to - from);
  return draw("uniform_", self, gen, 1, [=](uint64_t seed, uint64_t c) { return lo + span * uniform01(seed, c); });
}
Tensor& Kernels::normal_(Tensor& self, double mean, double std, std::optional<Generator> gen) {
  EMBER_CHECK_VALUE(std >= 0, "normal_(): expected std >= 0, but got std=", std);
  const auto m = static_cast<float>(mean), s = static_cast<float>(std);
  return draw("normal_", self, gen, 2, [=](uint64_t seed, uint64_t c) {
    const float u1 = 1.f - uniform01(seed, c), u2 = uniform01(seed, c + 1);  // u1 in (0, 1]
    return m + s * std::sqrt(-2.f * std::log(u1)) * std::cos(6.2831853f * u2);
  });
}
Tensor& Kernels::bernoulli_(Tensor& self, double p, std::optional<Generator> gen) {
  EMBER_CHECK_VALUE(p >= 0 && p <= 1, "bernoulli_(): expected 0 <= p <= 1, but got p=", p);
  const auto q = static_cast<float>(p);
  return draw("bernoulli_", self, gen, 1, [=](uint64_t seed, uint64_t c) { return uniform01(seed, c) < q ? 1.f : 0.f; });
}

Tensor Kernels::mm(const Tensor& a, const Tensor& b) {
  check_float("mm", a);
  check_float("mm", b);
  EMBER_CHECK_VALUE(a.dim() == 2 && b.dim() == 2 && a.sizes()[1] == b.sizes()[0], "mm(): self and mat2 shapes "
                    "cannot be multiplied (", a.sizes(), " and ", b.sizes(), ")");
  EMBER_CHECK_VALUE(on_device(a) && on_device(b) && index_of(a) == index_of(b), "mm(): expected both matrices on one "
                    "openreg device, but got ", a.device(), " and ", b.device());
  const int64_t m = a.sizes()[0], k = a.sizes()[1], n = b.sizes()[1];
  Tensor out = empty_on({m, n}, ScalarType::Float, a.device());
  const int64_t as0 = a.strides()[0], as1 = a.strides()[1], bs0 = b.strides()[0], bs1 = b.strides()[1];
  const int64_t ao = a.storage_offset(), bo = b.storage_offset();
  const Tensor ka = a, kb = b, ko = out;
  const void *ha = a.storage()->data(), *hb = b.storage()->data();
  void* hc = out.storage()->data();
  streams[index_of(a)].enqueue([=] {
    (void)ka, (void)kb, (void)ko;
    const float* pa = reinterpret_cast<const float*>(resolve(ha)) + ao;
    const float* pb = reinterpret_cast<const float*>(resolve(hb)) + bo;
    float* pc = reinterpret_cast<float*>(resolve(hc));
    std::fill(pc, pc + m * n, 0.f);
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t r = 0; r < k; ++r) {
        const float x = pa[i * as0 + r * as1];
        for (int64_t j = 0; j < n; ++j) pc[i * n + j] += x * pb[r * bs0 + j * bs1];
      }
    }
  });
  return out;
}

Tensor Kernels::sum(const Tensor& a, std::optional<ScalarType> dtype) {
  if (a.scalar_type() != ScalarType::Float || (dtype && *dtype != ScalarType::Float)) {
    // Counting (bool and integer sums, e.g. of correct predictions) is done on the host.
    return ember::sum(a.cpu(), dtype).to(a.device());
  }
  Tensor out = empty_on({}, ScalarType::Float, a.device());
  const Walk w = walk_of(a, a.sizes());
  const Tensor ka = a, ko = out;
  const void* ha = a.storage()->data();
  void* ho = out.storage()->data();
  streams[index_of(a)].enqueue([=] {
    (void)ka, (void)ko;
    const float* p = reinterpret_cast<const float*>(resolve(ha));
    double s = 0;
    for_each_offset(w, [&](int64_t, int64_t o) { s += p[o]; });
    *reinterpret_cast<float*>(resolve(ho)) = static_cast<float>(s);
  });
  return out;
}

// copy_: bytes of one dtype between any two of host and device, any strides, src broadcast.
Tensor& Kernels::copy_(Tensor& self, const Tensor& src, bool) {
  if (self.scalar_type() != src.scalar_type()) {
    // Convert on the CPU side (the elementwise conversion is the CPU's kernel).
    const Tensor host = on_device(src) ? src.cpu() : src;
    return copy_(self, host.to(self.scalar_type()), false);
  }
  broadcast("copy_", self.sizes(), src.sizes());
  const size_t item = itemsize(self.scalar_type());
  if (!on_device(self)) {
    // device -> host: gather src into a contiguous device block, then one transfer.
    Tensor staged = on_device(src) && src.is_contiguous() && src.sizes() == self.sizes() ? src : empty_on(self.sizes(), src.scalar_type(), src.device());
    if (!staged.is_same(src)) copy_(staged, src, false);
    Tensor host = self.is_contiguous() ? self : ember::empty(self.sizes(), TensorOptions().dtype(self.scalar_type()));
    copy_bytes(host.data_ptr(), staged.data_ptr(), static_cast<size_t>(self.numel()) * item, CopyKind::DeviceToHost,
               index_of(src));
    if (!host.is_same(self)) self.copy_(host);
    return self;
  }
  if (!on_device(src)) {
    // host -> device: one transfer of a contiguous host copy, then (if self is strided) a
    // scatter on the device.
    const Tensor host = src.expand(self.sizes()).contiguous();
    Tensor staged = self.is_contiguous() ? self : empty_on(self.sizes(), self.scalar_type(), self.device());
    copy_bytes(staged.data_ptr(), host.data_ptr(), static_cast<size_t>(self.numel()) * item, CopyKind::HostToDevice,
               index_of(self));
    if (!staged.is_same(self)) copy_(self, staged, false);
    return self;
  }
  // device -> device: a strided walk on the destination's stream (the source's device is
  // synchronized first when it is another one).
  if (index_of(src) != index_of(self)) streams[index_of(src)].synchronize();
  const Walk wd = walk_of(self, self.sizes()), ws = walk_of(src, self.sizes());
  const Tensor kd = self, ks = src;
  void* hd = self.storage()->data();
  const void* hs = src.storage()->data();
  streams[index_of(self)].enqueue([=] {
    (void)kd, (void)ks;
    char* pd = resolve(hd);
    const char* ps = resolve(hs);
    std::vector<int64_t> from;
    for_each_offset(ws, [&](int64_t, int64_t o) { from.push_back(o); });
    std::vector<char> tmp(from.size() * item);
    for (size_t i = 0; i < from.size(); ++i) std::memcpy(tmp.data() + i * item, ps + from[i] * static_cast<int64_t>(item), item);
    for_each_offset(wd, [&](int64_t i, int64_t o) {
      std::memcpy(pd + o * static_cast<int64_t>(item), tmp.data() + i * static_cast<int64_t>(item), item);
    });
  });
  return self;
}


}  // namespace ember::openreg

namespace {

void register_openreg(ember::backend::Registration& r) {
  g_type = r.device_type();
  ember::backend::DeviceHooks h;
  h.device_count = &device_count;
  h.current_device = &current_device;
  h.set_device = &set_device;
  h.allocate = &allocate;
  h.deallocate = &deallocate;
  h.copy = &copy_bytes;
  h.synchronize = &synchronize;
  h.manual_seed = &manual_seed;
  h.event_create = &event_create;
  h.event_destroy = &event_destroy;
  h.event_record = &event_record;
  h.event_synchronize = &event_synchronize;
  h.event_query = &event_query;
  h.event_elapsed_ms = &event_elapsed_ms;
  r.set_hooks(h);
  // The device's default generator (unload takes it out again): what the random kernels
  // draw from when no generator is passed.
  ember::set_default_generator(g_type, ember::Generator(ember::make_intrusive<OpenregGenerator>(Device(g_type))));
  ember::openreg::register_kernels(r);  // generated from openreg.yaml
  ember::backend::enable_cpu_fallback(r);
}

}  // namespace

EMBER_BACKEND("openreg", register_openreg)
