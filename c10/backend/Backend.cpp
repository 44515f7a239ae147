#include "c10/backend/Backend.h"

#include "c10/cuda/CudaRuntime.h"

#include <dlfcn.h>

#include <atomic>
#include <cstdint>
#include <mutex>

#include "c10/core/Generator.h"
#include "c10/dispatch/OperatorEntry.h"
#include "c10/util/Exception.h"

namespace ember::backend {

Registration::Registration(std::string name, DeviceType type) : name_(std::move(name)), type_(type) {}

// Libraries go newest first, as registrations are undone elsewhere.
Registration::~Registration() {
  while (!libraries_.empty()) libraries_.pop_back();
}

DispatchKey Registration::key() const { return backend_key_of(Device(type_)); }
DispatchKey Registration::autograd_key() const { return autograd_key_of(key()); }

void Registration::set_hooks(const DeviceHooks& h) {
  const std::pair<const void*, const char*> required[] = {
      {reinterpret_cast<const void*>(h.device_count), "device_count"},
      {reinterpret_cast<const void*>(h.current_device), "current_device"},
      {reinterpret_cast<const void*>(h.set_device), "set_device"},
      {reinterpret_cast<const void*>(h.allocate), "allocate"},
      {reinterpret_cast<const void*>(h.deallocate), "deallocate"},
      {reinterpret_cast<const void*>(h.copy), "copy"},
      {reinterpret_cast<const void*>(h.synchronize), "synchronize"},
  };
  for (const auto& [fn, what] : required) {
    EMBER_CHECK_VALUE(fn != nullptr, "backend '", name_, "': set_hooks(): the required hook '", what, "' is not set");
  }
  const void* events[] = {reinterpret_cast<const void*>(h.event_create), reinterpret_cast<const void*>(h.event_destroy),
                          reinterpret_cast<const void*>(h.event_record), reinterpret_cast<const void*>(h.event_synchronize),
                          reinterpret_cast<const void*>(h.event_query), reinterpret_cast<const void*>(h.event_elapsed_ms)};
  int set = 0;
  for (const void* e : events) set += e != nullptr;
  EMBER_CHECK_VALUE(set == 0 || set == 6, "backend '", name_, "': set_hooks(): the event hooks come all six or "
                    "none, but ", set, " are set");
  hooks_ = h;
  has_hooks_ = true;
}

Library& Registration::kernels(const char* ns) {
  libraries_.push_back(std::make_unique<Library>(Library::Kind::Impl, ns, key(), name_.c_str(), 0));
  return *libraries_.back();
}

Library& Registration::autograd_kernels(const char* ns) {
  libraries_.push_back(std::make_unique<Library>(Library::Kind::Impl, ns, autograd_key(), name_.c_str(), 0));
  return *libraries_.back();
}

namespace {

// The allocator Ember installs for a loaded backend's device type: the backend's
// allocate/deallocate hooks, each block counted so that unload can refuse while any lives.
class HooksAllocator final : public Allocator {
 public:
  HooksAllocator(DeviceType type, const DeviceHooks* hooks) : type_(type), hooks_(hooks) {}

  DataPtr allocate(size_t nbytes) override {
    int index = hooks_->current_device();
    const Device device(type_, static_cast<int8_t>(index));
    if (nbytes == 0) return DataPtr(nullptr, nullptr, nullptr, device);
    void* p = hooks_->allocate(index, nbytes);
    EMBER_CHECK(p != nullptr, device_type_name(type_), ": the backend's allocator returned null for ", nbytes,
                " bytes");
    auto* block = new Block{this, p, index};
    live_.fetch_add(1, std::memory_order_relaxed);
    return DataPtr(p, block, &HooksAllocator::free_block, device);
  }

  // Both blocks are on the current device: StorageImpl::resize allocates the new one there,
  // under the guard of the storage's device (the resize_ kernel's).
  void copy_data(void* dst, const void* src, size_t nbytes) const override {
    if (nbytes > 0) hooks_->copy(dst, src, nbytes, CopyKind::DeviceToDevice, hooks_->current_device());
  }

  int64_t live() const { return live_.load(std::memory_order_relaxed); }

 private:
  struct Block {
    HooksAllocator* owner;
    void* ptr;
    int device;
  };
  static void free_block(void* ctx) {
    auto* b = static_cast<Block*>(ctx);
    b->owner->hooks_->deallocate(b->device, b->ptr);
    b->owner->live_.fetch_sub(1, std::memory_order_relaxed);
    delete b;
  }

  DeviceType type_;
  const DeviceHooks* hooks_;
  std::atomic<int64_t> live_{0};
};

// A loaded backend: its library handle, registration (kernels and hooks) and allocator.
struct Loaded {
  std::string path;
  void* handle = nullptr;
  std::unique_ptr<Registration> reg;
  std::unique_ptr<HooksAllocator> allocator;
};

std::mutex loader_mutex;
std::vector<std::unique_ptr<Loaded>>& registry() {
  static auto* r = new std::vector<std::unique_ptr<Loaded>>();  // outlives static destructors
  return *r;
}

std::string dl_error() {
  const char* e = dlerror();
  return e ? e : "unknown error";
}

// Compares the backend's stamp with this Ember's, field by field, naming the first that
// differs. The version is compared first: with another version, nothing else is read.
void check_stamp(const std::string& path, const AbiStamp* s) {
  const AbiStamp mine = this_abi("");
  EMBER_CHECK(s->abi_version == mine.abi_version, "backends.load(): '", path,
              "' was built against Ember's backend interface version ", s->abi_version,
              ", but this Ember has version ", mine.abi_version, "; rebuild the backend against this Ember");
  EMBER_CHECK(s->stamp_size == mine.stamp_size, "backends.load(): '", path, "' has an ABI stamp of ", s->stamp_size,
              " bytes, but this Ember's is ", mine.stamp_size, " bytes (same version ", mine.abi_version,
              "); rebuild the backend against this Ember");
  const std::pair<const char*, std::pair<uint32_t, uint32_t>> sizes[] = {
      {"DeviceHooks", {s->hooks_size, mine.hooks_size}},
      {"TensorImpl", {s->tensor_impl_size, mine.tensor_impl_size}},
      {"StorageImpl", {s->storage_impl_size, mine.storage_impl_size}},
      {"IValue", {s->ivalue_size, mine.ivalue_size}},
      {"DataPtr", {s->data_ptr_size, mine.data_ptr_size}},
      {"Library", {s->library_size, mine.library_size}},
  };
  for (const auto& [what, v] : sizes) {
    EMBER_CHECK(v.first == v.second, "backends.load(): '", path, "' was built with sizeof(", what, ") == ", v.first,
                ", but this Ember has ", v.second, " (interface version ", mine.abi_version,
                " both); rebuild the backend against this Ember with the same compiler settings");
  }
  EMBER_CHECK(s->name != nullptr, "backends.load(): '", path, "' gives no device type name in its ABI stamp");
  Dl_info theirs{}, ours{};
  EMBER_CHECK(s->dispatcher == mine.dispatcher, "backends.load(): '", path, "' links another copy of libember (",
              dladdr(reinterpret_cast<void*>(s->dispatcher), &theirs) && theirs.dli_fname ? theirs.dli_fname : "?",
              ") than this process (", dladdr(reinterpret_cast<void*>(mine.dispatcher), &ours) && ours.dli_fname
                                           ? ours.dli_fname : "?",
              "); its kernels would go to a dispatcher nobody calls. Build it against this Ember's install");
}

// A backend kernel for a CompositeImplicitAutograd operator takes the decomposition's place
// at the backend key, and with it the gradient: the operator has no autograd kernel of its
// own, so on this device it would silently stop being differentiable (a trap PyTorch's
// backends fall into). Refused, naming the operator, unless the backend registered an
// autograd kernel for it too.
void check_no_shadowed_decompositions(const Registration& r, const std::string& path) {
  const DispatchKey key = r.key(), autograd = r.autograd_key();
  for (const OperatorHandle& op : Dispatcher::singleton().ops()) {
    bool mine = false, cia = false, has_autograd = false;
    for (DispatchKey k : op.entry().registered_keys()) {
      mine |= k == key;
      cia |= k == DispatchKey::CompositeImplicitAutograd;
      has_autograd |= k == autograd || k == DispatchKey::Autograd;
    }
    EMBER_CHECK_VALUE(!(mine && cia && !has_autograd), "backends.load(): '", r.name(), "' (", path,
                      ") registers a kernel for ", op.name().str(), ", a CompositeImplicitAutograd operator: its "
                      "kernel would replace the decomposition, and on '", r.name(), "' the operator would no longer "
                      "be differentiable. Register the operators it decomposes into instead, or an autograd kernel "
                      "for it too (Registration::autograd_kernels)");
  }
}

}  // namespace

DeviceType load(const std::string& path) {
  std::lock_guard<std::mutex> lock(loader_mutex);
  dlerror();
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  EMBER_CHECK(handle != nullptr, "backends.load(): cannot load '", path, "': ", dl_error());
  auto loaded = std::make_unique<Loaded>();
  loaded->path = path;
  loaded->handle = handle;
  // Until the backend is in the registry, an error unloads it again (after its
  // registrations, held by `loaded`, are undone).
  struct Closer {
    std::unique_ptr<Loaded>* l;
    ~Closer() {
      if (*l && (*l)->handle) {
        void* h = (*l)->handle;
        const DeviceType t = (*l)->reg ? (*l)->reg->device_type() : DeviceType::CPU;
        const bool had_slot = (*l)->reg != nullptr;
        if ((*l)->allocator) set_allocator(t, nullptr);
        // A generator the register function installed (set_default_generator) goes too.
        if (had_slot) set_default_generator(t, Generator());
        l->reset();
        if (had_slot) release_device_type(t);
        dlclose(h);
      }
    }
  } closer{&loaded};

  using AbiFn = const AbiStamp* (*)();
  using RegisterFn = void (*)(Registration&);
  auto abi = reinterpret_cast<AbiFn>(dlsym(handle, "ember_backend_abi"));
  EMBER_CHECK(abi != nullptr, "backends.load(): '", path, "' is not an Ember backend: it exports no "
              "ember_backend_abi() (define one with EMBER_BACKEND(name, register_fn), c10/backend/Backend.h)");
  auto reg_fn = reinterpret_cast<RegisterFn>(dlsym(handle, "ember_backend_register"));
  EMBER_CHECK(reg_fn != nullptr, "backends.load(): '", path, "' is not an Ember backend: it exports no "
              "ember_backend_register()");
  const AbiStamp* stamp = abi();
  check_stamp(path, stamp);
  const std::string name = stamp->name;
  for (const auto& l : registry()) {
    EMBER_CHECK(l->reg->name() != name, "backends.load(): a backend named '", name, "' is loaded already (from '",
                l->path, "'); unload it first");
  }
  const DeviceType type = register_device_type(name);
  loaded->reg = std::make_unique<Registration>(name, type);
  // The backend's error, of its kind, with what failed said first.
  const std::string failed = str("backends.load(): the register function of '", name, "' (", path, ") failed: ");
  const char* undone = "; everything it registered is undone";
  try {
    reg_fn(*loaded->reg);
  } catch (const ValueError& e) {
    throw ValueError(failed + e.message() + undone, __FILE__, __LINE__);
  } catch (const TypeError& e) {
    throw TypeError(failed + e.message() + undone, __FILE__, __LINE__);
  } catch (const NotImplementedError& e) {
    throw NotImplementedError(failed + e.message() + undone, __FILE__, __LINE__);
  } catch (const IndexError& e) {
    throw IndexError(failed + e.message() + undone, __FILE__, __LINE__);
  } catch (const Error& e) {
    throw Error(failed + e.message() + undone, __FILE__, __LINE__);
  } catch (const std::exception& e) {
    throw Error(failed + e.what() + undone, __FILE__, __LINE__);
  }
  EMBER_CHECK(loaded->reg->has_hooks(), "backends.load(): the register function of '", name, "' (", path,
              ") did not call set_hooks(); a backend must give its device hooks");
  check_no_shadowed_decompositions(*loaded->reg, path);
  loaded->allocator = std::make_unique<HooksAllocator>(type, &loaded->reg->hooks());
  set_allocator(type, loaded->allocator.get());
  registry().push_back(std::move(loaded));
  return type;
}

void unload(std::string_view name) {
  std::lock_guard<std::mutex> lock(loader_mutex);
  auto& r = registry();
  for (auto it = r.begin(); it != r.end(); ++it) {
    Loaded& l = **it;
    if (l.reg->name() != name) continue;
    const int64_t live = l.allocator->live();
    EMBER_CHECK(live == 0, "backends.unload(): ", live, " block(s) of '", name, "' device memory are still alive; "
                "delete the tensors on it first");
    const DeviceType type = l.reg->device_type();
    void* handle = l.handle;
    set_allocator(type, nullptr);
    set_default_generator(type, Generator());
    r.erase(it);  // the registration's libraries go: the tables are as before the load
    release_device_type(type);
    dlclose(handle);
    return;
  }
  std::string names;
  for (const auto& l : r) names += (names.empty() ? "'" : ", '") + l->reg->name() + "'";
  EMBER_THROW(ValueError, "backends.unload(): no backend named '", name, "' is loaded (loaded: ",
              names.empty() ? "none" : names, ")");
}

std::vector<std::string> loaded() {
  std::lock_guard<std::mutex> lock(loader_mutex);
  std::vector<std::string> out;
  for (const auto& l : registry()) out.push_back(l->reg->name());
  return out;
}

const DeviceHooks* hooks_of(DeviceType type) {
  std::lock_guard<std::mutex> lock(loader_mutex);
  for (const auto& l : registry()) {
    if (l->reg->device_type() == type) return &l->reg->hooks();
  }
  return nullptr;
}

int64_t live_blocks(DeviceType type) {
  std::lock_guard<std::mutex> lock(loader_mutex);
  for (const auto& l : registry()) {
    if (l->reg->device_type() == type) return l->allocator->live();
  }
  return 0;
}

Tensor empty_on_device(IntArrayRef size, ScalarType dtype, Device device) {
  EMBER_CHECK_VALUE(is_privateuse(device.type()), "empty_on_device(): expected an out-of-tree device, but got '",
                    device, "'");
  const DeviceGuard guard(device);
  int64_t n = 1;
  for (int64_t s : size) {
    EMBER_CHECK_VALUE(s >= 0, "empty(): expected non-negative sizes, but got ", size);
    EMBER_CHECK_VALUE(s == 0 || n <= INT64_MAX / s, "empty(): sizes ", size, " hold more elements than int64 counts");
    n *= s;
  }
  const auto* hooks = hooks_of(device.type());
  const int index = device.has_index() ? device.index() : hooks ? hooks->current_device() : 0;
  const Device d(device.type(), static_cast<int8_t>(index));
  auto storage = make_intrusive<StorageImpl>(static_cast<size_t>(n) * itemsize(dtype), get_allocator(device.type()));
  auto impl = make_intrusive<TensorImpl>(Storage(std::move(storage)), tensor_key_set(d), dtype);
  impl->set_sizes_contiguous(size);
  return Tensor(std::move(impl));
}

DeviceGuard::DeviceGuard(Device device) {
  if (device.type() == DeviceType::CUDA && device.has_index()) {
    previous_ = cuda::current_device();
    if (previous_ != device.index()) {
      cuda::set_device(device.index());
      cuda_ = true;
    }
    return;
  }
  if (!device.has_index() || !is_privateuse(device.type())) return;
  hooks_ = hooks_of(device.type());
  if (!hooks_) return;
  previous_ = hooks_->current_device();
  if (previous_ == device.index()) {
    hooks_ = nullptr;
    return;
  }
  EMBER_CHECK_VALUE(device.index() < hooks_->device_count(), "expected a '", device_type_name(device.type()),
                    "' device index below ", hooks_->device_count(), ", but got ", device);
  hooks_->set_device(device.index());
}

DeviceGuard::~DeviceGuard() {
  if (cuda_) cuda::set_device(previous_);
  if (hooks_) hooks_->set_device(previous_);
}

}  // namespace ember::backend
