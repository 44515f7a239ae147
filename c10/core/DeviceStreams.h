#pragma once
/// Streams of a device type (Note [Device streams]): each thread's current stream per
/// device, and a lazily created pool of streams per device and priority. Written against a
/// small driver interface, as the caching allocator is, so that its logic is tested on the
/// CPU with a fake device (test/cpp/c10/device_streams_test.cpp); the CUDA backend's driver
/// is c10/cuda/CudaRuntime.cpp's.
#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "c10/macros/Export.h"

namespace ember {

/// The driver calls the streams need. A stream handle is opaque (a cudaStream_t); 0 is
/// the device's default stream, which always exists.
class EMBER_API DeviceStreamDriver {
 public:
  using Handle = uintptr_t;
  virtual ~DeviceStreamDriver() = default;
  /// A new stream on `device` of priority 0 (normal) or 1 (high); never destroyed by the
  /// registry (pool streams live as long as the process, as in PyTorch).
  virtual Handle create_stream(int device, int priority) = 0;
};

/// One stream: the device it belongs to and its handle.
struct DeviceStream {
  int device = 0;
  DeviceStreamDriver::Handle handle = 0;
  bool operator==(const DeviceStream&) const = default;
};

// Note [Device streams]: PyTorch's model.
//  - Every thread starts on each device's default stream (handle 0), and changes its own
//    current stream only: set_current on one thread is invisible to the others.
//  - The pool: kPoolSize streams per device and priority, created on the first request for
//    that device and priority (so a process that never asks creates none), handed out
//    round robin; two requests may share a stream once the pool wraps around.
//  - Devices are checked against the count the registry was made with (ValueError naming
//    the device and the count).
class EMBER_API DeviceStreamRegistry {
 public:
  static constexpr int kPoolSize = 32;
  static constexpr int kPriorities = 2;  ///< 0: normal, 1: high

  /// `type` ("cuda") is what errors name.
  DeviceStreamRegistry(DeviceStreamDriver& driver, int device_count, std::string type);
  ~DeviceStreamRegistry();
  DeviceStreamRegistry(const DeviceStreamRegistry&) = delete;
  DeviceStreamRegistry& operator=(const DeviceStreamRegistry&) = delete;

  int device_count() const { return count_; }
  DeviceStream default_stream(int device) const;
  /// This thread's current stream on `device`.
  DeviceStream current(int device) const;
  /// Makes s this thread's current stream on s.device.
  void set_current(DeviceStream s);
  /// The next stream of `device`'s pool of that priority.
  DeviceStream from_pool(int device, bool high_priority);
  /// Throws ValueError unless 0 <= device < device_count().
  void check_device(int device) const;

 private:
  struct Pool {
    std::once_flag created;
    std::array<DeviceStreamDriver::Handle, kPoolSize> streams{};
    std::atomic<uint32_t> next{0};
  };
  std::vector<DeviceStreamDriver::Handle>& thread_current() const;

  DeviceStreamDriver& driver_;
  int count_;
  std::string type_;
  uint64_t id_;  // tells this registry's per-thread state from another's
  std::unique_ptr<Pool[]> pools_;  // [device * kPriorities + priority]
};

}  // namespace ember
