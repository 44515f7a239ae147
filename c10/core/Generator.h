#pragma once
/// Random number generators: a refcounted per-device state behind a Generator handle, and
/// the default generator of each device type (seeded by manual_seed).

#include <cstdint>
#include <mutex>

#include "c10/core/Device.h"
#include "c10/util/IntrusivePtr.h"

namespace ember {

/// A generator's state. Implementations (the CPU Philox generator, a device's own) derive
/// from it; kernels lock mutex() while they draw.
class EMBER_API GeneratorImpl : public IntrusiveTarget {
 public:
  explicit GeneratorImpl(Device device) : device_(device) {}
  Device device() const { return device_; }
  /// Restarts the stream from seed.
  virtual void set_current_seed(uint64_t seed) = 0;
  /// The seed the stream last started from.
  virtual uint64_t current_seed() const = 0;
  std::mutex& mutex() { return mutex_; }

 private:
  Device device_;
  std::mutex mutex_;
};

/// A handle to a generator (copies share the state, like torch.Generator).
class EMBER_API Generator {
 public:
  Generator() = default;
  explicit Generator(IntrusivePtr<GeneratorImpl> impl) : impl_(std::move(impl)) {}
  bool defined() const { return static_cast<bool>(impl_); }
  GeneratorImpl* impl() const { return impl_.get(); }
  Device device() const { return impl_->device(); }
  void manual_seed(uint64_t seed) const { impl_->set_current_seed(seed); }
  uint64_t initial_seed() const { return impl_->current_seed(); }
  bool operator==(const Generator& o) const { return impl_.get() == o.impl_.get(); }

 private:
  IntrusivePtr<GeneratorImpl> impl_;
};

/// The default generator of a device type; throws if none is registered.
EMBER_API Generator default_generator(DeviceType type);
/// Registers the default generator of a device type (the CPU backend registers its own).
EMBER_API void set_default_generator(DeviceType type, Generator g);
/// Seeds the default generator of every device type that has one.
EMBER_API void manual_seed(uint64_t seed);

}  // namespace ember
