// openreg: Ember's reference out-of-tree backend (c10/backend/Backend.h). Two devices whose
// memory is not host memory the host may touch: each is an arena of its own addressed by
// handles (a tag, the device index and an offset), which only the device's worker thread
// resolves, so a host-side dereference of a device pointer faults at once. Each device
// runs its kernels on one stream: a worker thread taking them in order, asynchronously to
// the caller; copies to the host, synchronize() and events wait for it. Kernels: the factories,
// copy_ (host <-> device, device <-> device, any strides), elementwise arithmetic with
// broadcasting, clamp_min (relu), mm, sum, fill_/zero_ and the optimiser's in-place updates, all
// float32 (copies and factories take every dtype); everything else runs on the CPU through
// Ember's CPU fallback, counted (ember.backends.fallback_stats()).
#include <ember/ember.h>
#include <sys/mman.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <deque>
#include <exception>
#include <functional>
#include <map>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <vector>

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
std::atomic<uint64_t> g_seed{0};

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
void manual_seed(uint64_t seed) { g_seed = seed; }

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

Tensor empty_openreg(IntArrayRef size, std::optional<ScalarType> dtype, std::optional<ember::Layout> layout,
                     std::optional<Device> device, std::optional<bool>, std::optional<ember::MemoryFormat>) {
  EMBER_CHECK_NOT_IMPLEMENTED(!layout || *layout == ember::Layout::Strided, "empty(): openreg holds strided tensors only");
  return empty_on(size, dtype.value_or(ember::get_default_dtype()), device.value_or(Device(g_type)));
}

Tensor empty_strided_openreg(IntArrayRef size, IntArrayRef stride, std::optional<ScalarType> dtype,
                             std::optional<ember::Layout> layout, std::optional<Device> device, std::optional<bool>) {
  EMBER_CHECK_NOT_IMPLEMENTED(!layout || *layout == ember::Layout::Strided, "empty_strided(): openreg holds strided "
                              "tensors only");
  // The extent the strides reach, then a view of that geometry.
  int64_t extent = 1;
  for (size_t d = 0; d < size.size(); ++d) {
    if (size[d] == 0) extent = 0;
  }
  if (extent) {
    for (size_t d = 0; d < size.size(); ++d) extent += (size[d] - 1) * stride[d];
  }
  Tensor base = empty_on({extent}, dtype.value_or(ember::get_default_dtype()), device.value_or(Device(g_type)));
  base.impl()->set_sizes_and_strides(size, stride, 0);
  return base;
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

// A CPU 0-d operand (torch allows one beside device tensors) as a value.
std::optional<float> host_scalar(const Tensor& t) {
  if (t.device().is_cpu() && t.dim() == 0) return static_cast<float>(t.item().toDouble());
  return std::nullopt;
}

// out = f(a, b) elementwise, broadcasting; out may alias a (in place).
template <class F>
Tensor& binary_into(const char* op, Tensor& out, const Tensor& a, const Tensor& b, F f) {
  check_float(op, a);
  check_float(op, b);
  check_float(op, out);
  const auto sb = host_scalar(b);
  EMBER_CHECK_VALUE(on_device(a) && (sb || on_device(b)), op, "(): expected tensors on one openreg device");
  const Walk wo = walk_of(out, out.sizes()), wa = walk_of(a, out.sizes());
  const Walk wb = sb ? Walk{} : walk_of(b, out.sizes());
  const Tensor keep_a = a, keep_b = b, keep_o = out;
  const void* ha = a.storage()->data();
  const void* hb = sb ? nullptr : b.storage()->data();
  void* ho = out.storage()->data();
  streams[index_of(out)].enqueue([=] {
    (void)keep_a, (void)keep_b, (void)keep_o;
    const float* pa = reinterpret_cast<const float*>(resolve(ha));
    const float* pb = sb ? nullptr : reinterpret_cast<const float*>(resolve(hb));
    float* po = reinterpret_cast<float*>(resolve(ho));
    // Gather the operands first, so an output aliasing an input is read before written.
    std::vector<float> xa, xb;
    for_each_offset(wa, [&](int64_t, int64_t o) { xa.push_back(pa[o]); });
    if (!sb) for_each_offset(wb, [&](int64_t, int64_t o) { xb.push_back(pb[o]); });
    for_each_offset(wo, [&](int64_t i, int64_t o) { po[o] = f(xa[i], sb ? *sb : xb[i]); });
  });
  return out;
}

// out = f(a) elementwise, a gathered once.
template <class F>
Tensor unary(const char* op, const Tensor& a, F f) {
  check_float(op, a);
  EMBER_CHECK_VALUE(on_device(a), op, "(): expected a tensor on an openreg device");
  Tensor out = empty_on(a.sizes(), ScalarType::Float, a.device());
  const Walk wa = walk_of(a, a.sizes());
  const Tensor keep_a = a, keep_o = out;
  const void* ha = a.storage()->data();
  void* ho = out.storage()->data();
  streams[index_of(out)].enqueue([=] {
    (void)keep_a, (void)keep_o;
    const float* pa = reinterpret_cast<const float*>(resolve(ha));
    float* po = reinterpret_cast<float*>(resolve(ho));  // contiguous: element i at i
    for_each_offset(wa, [&](int64_t i, int64_t o) { po[i] = f(pa[o]); });
  });
  return out;
}

template <class F>
Tensor binary(const char* op, const Tensor& a, const Tensor& b, F f) {
  Tensor out = empty_on(broadcast(op, a.sizes(), b.sizes()), ScalarType::Float, on_device(a) ? a.device() : b.device());
  // A host 0-d self (2 - x): swap its role in f.
  if (auto sa = host_scalar(a)) {
    const float s = *sa;
    return binary_into(op, out, b, b, [=](float x, float) { return f(s, x); });
  }
  return binary_into(op, out, a, b, f);
}

Tensor add_t(const Tensor& a, const Tensor& b, const Scalar& alpha) {
  const auto k = static_cast<float>(alpha.toDouble());
  return binary("add", a, b, [k](float x, float y) { return x + k * y; });
}
Tensor sub_t(const Tensor& a, const Tensor& b, const Scalar& alpha) {
  const auto k = static_cast<float>(alpha.toDouble());
  return binary("sub", a, b, [k](float x, float y) { return x - k * y; });
}
Tensor mul_t(const Tensor& a, const Tensor& b) { return binary("mul", a, b, [](float x, float y) { return x * y; }); }
Tensor div_t(const Tensor& a, const Tensor& b) { return binary("div", a, b, [](float x, float y) { return x / y; }); }
Tensor& add__t(Tensor& self, const Tensor& b, const Scalar& alpha) {
  const auto k = static_cast<float>(alpha.toDouble());
  broadcast("add_", self.sizes(), b.sizes());
  return binary_into("add_", self, self, b, [k](float x, float y) { return x + k * y; });
}
Tensor& mul__t(Tensor& self, const Tensor& b) {
  broadcast("mul_", self.sizes(), b.sizes());
  return binary_into("mul_", self, self, b, [](float x, float y) { return x * y; });
}
// relu is CompositeImplicitAutograd (clamp_min(x, 0)): a kernel for relu itself would take
// the op out of autograd's reach on this device, so the kernel is clamp_min's.
Tensor clamp_min(const Tensor& a, const Scalar& min) {
  const auto lo = static_cast<float>(min.toDouble());
  return unary("clamp_min", a, [lo](float x) { return x < lo ? lo : x; });
}

Tensor& fill_(Tensor& self, const Scalar& value) {
  const Tensor keep = self;
  const Walk w = walk_of(self, self.sizes());
  const size_t item = ember::itemsize(self.scalar_type());
  // The value's bytes in self's dtype, made on the host.
  Tensor one = ember::full({}, value, ember::TensorOptions().dtype(self.scalar_type()));
  std::vector<char> bytes(static_cast<const char*>(one.data_ptr()), static_cast<const char*>(one.data_ptr()) + item);
  void* h = self.storage()->data();
  streams[index_of(self)].enqueue([=] {
    (void)keep;
    char* p = resolve(h);
    for_each_offset(w, [&](int64_t, int64_t o) { std::memcpy(p + o * static_cast<int64_t>(item), bytes.data(), item); });
  });
  return self;
}
Tensor& zero_(Tensor& self) { return fill_(self, Scalar(0)); }

Tensor mm(const Tensor& a, const Tensor& b) {
  check_float("mm", a);
  check_float("mm", b);
  EMBER_CHECK_VALUE(a.dim() == 2 && b.dim() == 2 && a.sizes()[1] == b.sizes()[0], "mm(): self and mat2 shapes "
                    "cannot be multiplied (", a.sizes(), " and ", b.sizes(), ")");
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

Tensor sum_all(const Tensor& a, std::optional<ScalarType> dtype) {
  if (a.scalar_type() != ScalarType::Float || (dtype && *dtype != ScalarType::Float)) {
    // Counting (bool and integer sums, e.g. of correct predictions) is done on the host.
    return ember::sum(a.cpu(), dtype).to(a.device());
  }
  EMBER_CHECK_NOT_IMPLEMENTED(!dtype || *dtype == ScalarType::Float, "sum(): openreg sums in float32 only");
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
Tensor& copy_openreg(Tensor& self, const Tensor& src, bool) {
  if (self.scalar_type() != src.scalar_type()) {
    // Convert on the CPU side (the elementwise conversion is the CPU's kernel).
    const Tensor host = on_device(src) ? src.cpu() : src;
    return copy_openreg(self, host.to(self.scalar_type()), false);
  }
  broadcast("copy_", self.sizes(), src.sizes());
  const size_t item = ember::itemsize(self.scalar_type());
  if (!on_device(self)) {
    // device -> host: gather src into a contiguous device block, then one transfer.
    Tensor staged = on_device(src) && src.is_contiguous() && src.sizes() == self.sizes() ? src : empty_on(self.sizes(), src.scalar_type(), src.device());
    if (!staged.is_same(src)) copy_openreg(staged, src, false);
    Tensor host = self.is_contiguous() ? self : ember::empty(self.sizes(), ember::TensorOptions().dtype(self.scalar_type()));
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
    if (!staged.is_same(self)) copy_openreg(self, staged, false);
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
  r.kernels("aten")
      .impl("empty.memory_format", &empty_openreg)
      .impl("empty_strided", &empty_strided_openreg)
      .impl("copy_", &copy_openreg)
      .impl("add.Tensor", &add_t)
      .impl("sub.Tensor", &sub_t)
      .impl("mul.Tensor", &mul_t)
      .impl("div.Tensor", &div_t)
      .impl("add_.Tensor", &add__t)
      .impl("mul_.Tensor", &mul__t)
      .impl("clamp_min", &clamp_min)
      .impl("fill_.Scalar", &fill_)
      .impl("zero_", &zero_)
      .impl("mm", &mm)
      .impl("sum", &sum_all);
  ember::backend::enable_cpu_fallback(r);
}

}  // namespace

EMBER_BACKEND("openreg", register_openreg)
