#include "c10/core/Generator.h"

#include <array>

#include "c10/util/Exception.h"

namespace ember {
namespace {

std::mutex registry_mutex;
std::array<Generator, kNumDeviceTypes> defaults;  // by DeviceType

}  // namespace

Generator default_generator(DeviceType type) {
  std::lock_guard<std::mutex> lock(registry_mutex);
  const Generator& g = defaults[static_cast<int>(type)];
  EMBER_CHECK(g.defined(), "default_generator(): no generator is registered for device type '",
              device_type_name(type), "'");
  return g;
}

void set_default_generator(DeviceType type, Generator g) {
  std::lock_guard<std::mutex> lock(registry_mutex);
  defaults[static_cast<int>(type)] = std::move(g);
}

void manual_seed(uint64_t seed) {
  std::lock_guard<std::mutex> lock(registry_mutex);
  for (const Generator& g : defaults) {
    if (g.defined()) g.manual_seed(seed);
  }
}

}  // namespace ember
