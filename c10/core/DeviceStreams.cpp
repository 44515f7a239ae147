#include "c10/core/DeviceStreams.h"

#include <utility>

#include "c10/util/Exception.h"

namespace ember {

namespace {
std::atomic<uint64_t> next_registry_id{1};

// Each thread's current streams, per registry (one in a process that uses CUDA; tests
// make several). A registry id is never reused, so a destroyed registry's entry is inert.
struct ThreadStreams {
  uint64_t registry = 0;
  std::vector<DeviceStreamDriver::Handle> current;
};
thread_local std::vector<ThreadStreams> thread_streams;
}  // namespace

DeviceStreamRegistry::DeviceStreamRegistry(DeviceStreamDriver& driver, int device_count, std::string type)
    : driver_(driver),
      count_(device_count),
      type_(std::move(type)),
      id_(next_registry_id.fetch_add(1)),
      pools_(new Pool[static_cast<size_t>(device_count > 0 ? device_count : 0) * kPriorities]) {}

DeviceStreamRegistry::~DeviceStreamRegistry() = default;

void DeviceStreamRegistry::check_device(int device) const {
  EMBER_CHECK_VALUE(device >= 0 && device < count_, type_, ":", device, ": expected a device index in [0, ",
                    count_, ") (there ", count_ == 1 ? "is 1 device" : "are " + std::to_string(count_) + " devices",
                    ")");
}

std::vector<DeviceStreamDriver::Handle>& DeviceStreamRegistry::thread_current() const {
  for (ThreadStreams& t : thread_streams)
    if (t.registry == id_) return t.current;
  thread_streams.push_back({id_, std::vector<DeviceStreamDriver::Handle>(static_cast<size_t>(count_), 0)});
  return thread_streams.back().current;
}

DeviceStream DeviceStreamRegistry::default_stream(int device) const {
  check_device(device);
  return {device, 0};
}

DeviceStream DeviceStreamRegistry::current(int device) const {
  check_device(device);
  return {device, thread_current()[static_cast<size_t>(device)]};
}

void DeviceStreamRegistry::set_current(DeviceStream s) {
  check_device(s.device);
  thread_current()[static_cast<size_t>(s.device)] = s.handle;
}

DeviceStream DeviceStreamRegistry::from_pool(int device, bool high_priority) {
  check_device(device);
  const int priority = high_priority ? 1 : 0;
  Pool& p = pools_[static_cast<size_t>(device * kPriorities + priority)];
  std::call_once(p.created, [&] {
    for (auto& h : p.streams) h = driver_.create_stream(device, priority);
  });
  return {device, p.streams[p.next.fetch_add(1, std::memory_order_relaxed) % kPoolSize]};
}

}  // namespace ember
