// A small backend for the loader's tests (test/python/test_backends.py): built several
// times with different EMBER_TEST_BACKEND_* definitions, so that two backends can share a
// process and each failure the loader must survive has a library of its own:
//   EMBER_TEST_BACKEND_NAME    the device type name it asks for;
//   EMBER_TEST_BACKEND_SCALE   what its add kernel multiplies the sum by (so a test can tell
//                              which backend's kernel ran);
//   EMBER_TEST_BACKEND_BAD_ABI a stamp of another interface version;
//   EMBER_TEST_BACKEND_BAD_SIGNATURE a kernel whose C++ signature does not match its schema;
//   EMBER_TEST_BACKEND_NO_HOOKS a register function that forgets set_hooks();
//   EMBER_TEST_BACKEND_FALLBACK Ember's CPU fallback, denying aten::mm;
//   EMBER_TEST_BACKEND_SHADOWS  a kernel for relu, a CompositeImplicitAutograd operator.
// Its "device memory" is host memory behind a tag: a pointer Ember or a kernel dereferences
// without going through the copy hook crashes at once instead of working by accident.
#include <ember/ember.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "aten/BackendFallback.h"
#include "c10/backend/Backend.h"

namespace {

using ember::Tensor;
using ember::backend::CopyKind;
using ember::backend::DeviceHooks;
using ember::backend::Registration;

// The slot this copy of the backend was given, for its kernels.
ember::DeviceType g_type = ember::DeviceType::PrivateUse1;
std::atomic<int64_t> g_add_calls{0};
std::atomic<uint64_t> g_seed{0};
thread_local int g_current = 0;

// Device addresses are host addresses with the top bits flipped: never dereferenceable.
constexpr uintptr_t kTag = uintptr_t{0xA5} << 56;
void* to_device(void* host) { return reinterpret_cast<void*>(reinterpret_cast<uintptr_t>(host) ^ kTag); }
void* to_host(const void* dev) { return reinterpret_cast<void*>(reinterpret_cast<uintptr_t>(dev) ^ kTag); }

int device_count() { return 2; }
int current_device() { return g_current; }
void set_device(int i) {
  EMBER_CHECK_VALUE(i >= 0 && i < 2, "set_device(): expected a device index in [0, 2), but got ", i);
  g_current = i;
}
void* allocate(int, size_t nbytes) {
  if (nbytes == 0) return nullptr;
  void* p = std::malloc(nbytes);
  EMBER_CHECK(p != nullptr, "out of memory allocating ", nbytes, " bytes");
  return to_device(p);
}
void deallocate(int, void* p) {
  if (p) std::free(to_host(p));
}
void copy(void* dst, const void* src, size_t nbytes, CopyKind kind, int) {
  void* d = kind == CopyKind::DeviceToHost ? dst : to_host(dst);
  const void* s = kind == CopyKind::HostToDevice ? src : to_host(src);
  if (nbytes) std::memcpy(d, s, nbytes);
}
void synchronize(int) {}
void manual_seed(uint64_t seed) { g_seed = seed; }

bool on_device(const Tensor& t) { return t.device().type() == g_type; }

Tensor empty_dev(ember::IntArrayRef size, std::optional<ember::ScalarType> dtype, std::optional<ember::Layout>,
                 std::optional<ember::Device> device, std::optional<bool>, std::optional<ember::MemoryFormat>) {
  return ember::backend::empty_on_device(size, dtype.value_or(ember::ScalarType::Float),
                                         device.value_or(ember::Device(g_type)));
}

// copy_ between the host and this device (contiguous, one dtype): through the copy hook.
Tensor& copy_dev(Tensor& self, const Tensor& src, bool) {
  EMBER_CHECK_NOT_IMPLEMENTED(self.dtype() == src.dtype() && self.is_contiguous() && src.is_contiguous() &&
                                  self.numel() == src.numel(),
                              "copy_(): this test backend copies only contiguous tensors of one dtype and size");
  const size_t nbytes = static_cast<size_t>(self.numel()) * ember::itemsize(self.dtype());
  const CopyKind kind = on_device(self) ? (on_device(src) ? CopyKind::DeviceToDevice : CopyKind::HostToDevice)
                                        : CopyKind::DeviceToHost;
  copy(self.data_ptr(), src.data_ptr(), nbytes, kind, 0);
  return self;
}

[[maybe_unused]] Tensor add_dev(const Tensor& self, const Tensor& other, const ember::Scalar& alpha) {
  g_add_calls.fetch_add(1);
  EMBER_CHECK_NOT_IMPLEMENTED(self.dtype() == ember::ScalarType::Float && other.dtype() == ember::ScalarType::Float &&
                                  self.sizes() == other.sizes() && self.is_contiguous() && other.is_contiguous(),
                              "add(): this test backend adds only contiguous float32 tensors of one shape");
  EMBER_CHECK_VALUE(self.numel() != 13, "add(): this test backend refuses 13 elements (a kernel that throws)");
  Tensor out = empty_dev(self.sizes(), self.dtype(), std::nullopt, std::nullopt, std::nullopt, std::nullopt);
  const auto* a = static_cast<const float*>(to_host(self.data_ptr()));
  const auto* b = static_cast<const float*>(to_host(other.data_ptr()));
  auto* o = static_cast<float*>(to_host(out.data_ptr()));
  const auto al = static_cast<float>(alpha.toDouble());
  for (int64_t i = 0; i < self.numel(); ++i) o[i] = static_cast<float>((a[i] + al * b[i]) * EMBER_TEST_BACKEND_SCALE);
  return out;
}

#ifdef EMBER_TEST_BACKEND_BAD_SIGNATURE
Tensor add_wrong(const Tensor& self) { return self; }
#endif

void register_backend(Registration& r) {
  g_type = r.device_type();
  DeviceHooks h;
  h.device_count = &device_count;
  h.current_device = &current_device;
  h.set_device = &set_device;
  h.allocate = &allocate;
  h.deallocate = &deallocate;
  h.copy = &copy;
  h.synchronize = &synchronize;
  h.manual_seed = &manual_seed;
#ifndef EMBER_TEST_BACKEND_NO_HOOKS
  r.set_hooks(h);
#endif
  r.kernels("aten")
      .impl("empty.memory_format", &empty_dev)
      .impl("copy_", &copy_dev)
#ifdef EMBER_TEST_BACKEND_BAD_SIGNATURE
      .impl("add.Tensor", &add_wrong);
#else
      .impl("add.Tensor", &add_dev);
#endif
#ifdef EMBER_TEST_BACKEND_FALLBACK
  ember::backend::enable_cpu_fallback(r, {{"aten::mm"}, true});
#endif
#ifdef EMBER_TEST_BACKEND_SHADOWS
  r.kernels("aten").impl("relu", +[](const Tensor& self) { return self; });
#endif
}

}  // namespace

#ifdef EMBER_TEST_BACKEND_BAD_ABI
EMBER_BACKEND_EXPORT const ember::backend::AbiStamp* ember_backend_abi() {
  static ember::backend::AbiStamp stamp = ember::backend::this_abi(EMBER_TEST_BACKEND_NAME);
  stamp.abi_version = ember::backend::kAbiVersion + 1;
  return &stamp;
}
EMBER_BACKEND_EXPORT void ember_backend_register(ember::backend::Registration& r) { register_backend(r); }
#else
EMBER_BACKEND(EMBER_TEST_BACKEND_NAME, register_backend)
#endif

/// Calls of this backend's add kernel.
EMBER_BACKEND_EXPORT int64_t test_backend_add_calls() { return g_add_calls.load(); }
/// The last seed manual_seed gave.
EMBER_BACKEND_EXPORT uint64_t test_backend_seed() { return g_seed.load(); }
