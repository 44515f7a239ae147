#pragma once
/// Out-of-tree backends loaded at run time: the versioned interface a backend and Ember agree
/// on, and the loader (Note [Backend interface]).
///
/// A backend is a shared library built against an installed Ember. It exports two symbols,
/// both made by EMBER_BACKEND(name, register_fn):
///   - ember_backend_abi(): its AbiStamp, the interface version and the sizes of the shared
///     types as its compiler saw them; Ember checks them before it calls anything else;
///   - ember_backend_register(Registration&): given a device slot, it installs its device
///     hooks and registers its kernels under the slot's dispatch keys.
/// ember::backend::load(path) dlopens it, checks the stamp, takes a device slot by the
/// backend's name (Note [Device slots], c10/core/Device.cpp) and calls the register
/// function; unload(name) undoes all of it, leaving the dispatch tables as they were.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "c10/core/Allocator.h"
#include "c10/core/Device.h"
#include "c10/core/DispatchKey.h"
#include "c10/core/IValue.h"
#include "c10/core/Storage.h"
#include "c10/core/Tensor.h"
#include "c10/core/TensorImpl.h"
#include "c10/dispatch/Library.h"
#include "c10/macros/Export.h"

namespace ember::backend {

// Note [Backend interface]: what is stable. A backend sees Ember through (a) the hooks
// below, plain function pointers in a struct whose size is checked, and (b) the C++ types
// its kernels take (Tensor, TensorImpl, Storage, IValue, Library), whose sizes are checked.
// kAbiVersion changes whenever any of them changes in a way a built backend would not
// survive (a field's meaning, a virtual function, a hook's signature); a backend built
// against another version is refused at load with both versions named, before any of its
// code runs beyond ember_backend_abi(). The first two fields of AbiStamp never move.
inline constexpr uint32_t kAbiVersion = 1;

/// Which way a copy goes (DeviceHooks::copy).
enum class CopyKind : int32_t { HostToDevice = 0, DeviceToHost = 1, DeviceToDevice = 2 };

/// What a backend gives Ember about its device: Ember's allocator, guard, copies,
/// synchronisation and generator seeding go through these. The ones marked required must
/// be set; Registration::set_hooks checks.
struct DeviceHooks {
  /// Required. How many devices of this type there are.
  int (*device_count)() = nullptr;
  /// Required. The calling thread's current device index, and setting it (the guard).
  int (*current_device)() = nullptr;
  void (*set_device)(int index) = nullptr;
  /// Required. Device memory: an opaque address of the device's (never dereferenced by
  /// Ember), freed by deallocate with the same device index. allocate may return null only
  /// for nbytes == 0; it reports failure by throwing (an ember::Error).
  void* (*allocate)(int device, size_t nbytes) = nullptr;
  void (*deallocate)(int device, void* ptr) = nullptr;
  /// Required. Copies nbytes, ordered after the work queued on `device`'s current stream;
  /// a copy to the host returns once the bytes are there.
  void (*copy)(void* dst, const void* src, size_t nbytes, CopyKind kind, int device) = nullptr;
  /// Required. Waits until everything queued on `device` has run.
  void (*synchronize)(int device) = nullptr;
  /// Optional. Seeds the device's default generator (ember.<name>.manual_seed).
  void (*manual_seed)(uint64_t seed) = nullptr;
  /// Optional, all or none (ember.<name>.Event): an event marks a point in a device's
  /// stream. record queues the mark on `device`'s stream; synchronize waits until the
  /// stream has passed it; query says whether it has (1) or not (0); elapsed_ms is the
  /// time between two passed marks.
  void* (*event_create)() = nullptr;
  void (*event_destroy)(void* event) = nullptr;
  void (*event_record)(void* event, int device) = nullptr;
  void (*event_synchronize)(void* event) = nullptr;
  int (*event_query)(void* event) = nullptr;
  double (*event_elapsed_ms)(void* start, void* end) = nullptr;
};

/// The stamp a backend exports; made in the backend's own compilation by this_abi().
struct AbiStamp {
  uint32_t abi_version;  // never moves
  uint32_t stamp_size;   // never moves: sizeof(AbiStamp) as the backend saw it
  uint32_t hooks_size;
  uint32_t tensor_impl_size;
  uint32_t storage_impl_size;
  uint32_t ivalue_size;
  uint32_t data_ptr_size;
  uint32_t library_size;
  const char* name;  // the device type name the backend wants ("openreg")
  // Dispatcher::singleton as the backend's dynamic linker resolved it: another address
  // means the backend links another copy of libember (another install), whose dispatcher
  // is not this process's.
  Dispatcher& (*dispatcher)();
};

/// The stamp of the code that includes this header, with the backend's name.
inline AbiStamp this_abi(const char* name) {
  return AbiStamp{kAbiVersion,
                  static_cast<uint32_t>(sizeof(AbiStamp)),
                  static_cast<uint32_t>(sizeof(DeviceHooks)),
                  static_cast<uint32_t>(sizeof(TensorImpl)),
                  static_cast<uint32_t>(sizeof(StorageImpl)),
                  static_cast<uint32_t>(sizeof(IValue)),
                  static_cast<uint32_t>(sizeof(DataPtr)),
                  static_cast<uint32_t>(sizeof(Library)),
                  name,
                  &Dispatcher::singleton};
}

/// Handed to a backend's register function: its device slot, and where its hooks and
/// kernels go. Everything registered through it is undone when the backend unloads (or
/// when the register function throws).
class EMBER_API Registration {
 public:
  Registration(std::string name, DeviceType type);
  ~Registration();
  Registration(const Registration&) = delete;
  Registration& operator=(const Registration&) = delete;

  const std::string& name() const { return name_; }
  /// The slot's device type (PrivateUse1 ... PrivateUse4), its backend dispatch key
  /// (PrivateUseN) and its autograd key (AutogradPrivateUseN).
  DeviceType device_type() const { return type_; }
  DispatchKey key() const;
  DispatchKey autograd_key() const;
  /// A Device of this type.
  Device device(int8_t index = 0) const { return Device(type_, index); }

  /// Installs the device hooks; throws ValueError naming a missing required hook.
  void set_hooks(const DeviceHooks& hooks);
  const DeviceHooks& hooks() const { return hooks_; }
  bool has_hooks() const { return has_hooks_; }

  /// A library of kernels for this slot's backend key in namespace ns ("aten", or "_" for
  /// a fallback), kept until unload.
  Library& kernels(const char* ns = "aten");
  /// A library of kernels for this slot's autograd key.
  Library& autograd_kernels(const char* ns = "aten");

 private:
  std::string name_;
  DeviceType type_;
  DeviceHooks hooks_{};
  bool has_hooks_ = false;
  std::vector<std::unique_ptr<Library>> libraries_;
};

/// Loads the backend at `path` and returns the device type it was given. Refuses, with an
/// error naming the path and the reason: a file that is not a loadable library, one that
/// is not an Ember backend, an ABI stamp that differs from this Ember's, a name already
/// loaded, no free device slot, and a register function that throws (all its
/// registrations are undone then, the slot is freed and the library unloaded).
EMBER_API DeviceType load(const std::string& path);
/// Unloads the backend named `name`: its kernels, hooks, allocator and slot go. Refuses
/// while any of its device memory is alive (naming how many blocks).
EMBER_API void unload(std::string_view name);
/// The names of the loaded backends, in load order.
EMBER_API std::vector<std::string> loaded();
/// The hooks of a loaded backend's device type, or null.
EMBER_API const DeviceHooks* hooks_of(DeviceType type);
/// Blocks of device memory of a loaded backend that are not freed yet.
EMBER_API int64_t live_blocks(DeviceType type);

/// A contiguous tensor of `size` and `dtype` on `device` (of a loaded backend's type), its
/// memory from the device's allocator (the backend's allocate hook) on that device index,
/// or the current one when `device` has none: what a backend's factory kernels return.
EMBER_API Tensor empty_on_device(IntArrayRef size, ScalarType dtype, Device device);

/// Makes `device` the current device of its (loaded backend's) type for a scope, through
/// the set_device hook, and restores the previous one after: what a backend's factory
/// kernels use for their `device` argument; a CUDA device goes through the CUDA runtime. A
/// device without an index, or of a type no loaded backend has, leaves everything as it is.
class EMBER_API DeviceGuard {
 public:
  explicit DeviceGuard(Device device);
  ~DeviceGuard();
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;

 private:
  const DeviceHooks* hooks_ = nullptr;
  int previous_ = -1;
  bool cuda_ = false;  // a CUDA device was made current (c10/cuda/CudaRuntime.h)
};

}  // namespace ember::backend

#define EMBER_BACKEND_EXPORT extern "C" __attribute__((visibility("default")))

/// Exports a backend's stamp and register function:
/// EMBER_BACKEND("openreg", register_openreg) with void register_openreg(Registration&).
#define EMBER_BACKEND(name, register_fn)                                                 \
  EMBER_BACKEND_EXPORT const ::ember::backend::AbiStamp* ember_backend_abi() {           \
    static const ::ember::backend::AbiStamp stamp = ::ember::backend::this_abi(name);     \
    return &stamp;                                                                        \
  }                                                                                       \
  EMBER_BACKEND_EXPORT void ember_backend_register(::ember::backend::Registration& r) {  \
    register_fn(r);                                                                       \
  }
