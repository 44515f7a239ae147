// The CPU generator (Note [Philox stream layout] in PhiloxGenerator.h) and its registration
// as the CPU default generator when libember loads.
#include "aten/native/cpu/PhiloxGenerator.h"

#include "c10/util/Exception.h"

namespace ember {

PhiloxGenerator::PhiloxGenerator(uint64_t seed)
    : GeneratorImpl(Device(DeviceType::CPU)), seed_(seed) {}

void PhiloxGenerator::set_current_seed(uint64_t seed) {
  std::lock_guard<std::mutex> lock(mutex());
  seed_.store(seed, std::memory_order_relaxed);
  offset_ = 0;
}

uint64_t PhiloxGenerator::current_seed() const { return seed_.load(std::memory_order_relaxed); }

uint64_t PhiloxGenerator::offset() {
  std::lock_guard<std::mutex> lock(mutex());
  return offset_;
}

void PhiloxGenerator::set_offset(uint64_t offset) {
  EMBER_CHECK_VALUE(offset % 4 == 0,
                    "set_offset(): expected 'offset' to be a multiple of 4, but got ", offset);
  std::lock_guard<std::mutex> lock(mutex());
  offset_ = offset;
}

PhiloxStream PhiloxGenerator::reserve(uint64_t words) {
  std::lock_guard<std::mutex> lock(mutex());
  PhiloxStream s{seed_.load(std::memory_order_relaxed), offset_ / 4};
  offset_ += (words + 3) / 4 * 4;
  return s;
}

Generator make_cpu_generator(uint64_t seed) {
  return Generator(make_intrusive<PhiloxGenerator>(seed));
}

PhiloxStream philox_reserve(const std::optional<Generator>& gen, uint64_t words, const char* op) {
  // Hold a reference for the reservation: the default generator may be replaced meanwhile.
  Generator g = gen && gen->defined() ? *gen : default_generator(DeviceType::CPU);
  EMBER_CHECK_VALUE(g.device().type() == DeviceType::CPU, op,
                    "(): expected 'generator' to be a CPU generator, but got one for '",
                    device_type_name(g.device().type()), "'");
  auto* philox = dynamic_cast<PhiloxGenerator*>(g.impl());
  EMBER_CHECK_VALUE(philox != nullptr, op,
                    "(): expected 'generator' to be a CPU Philox generator (make_cpu_generator), "
                    "but got another CPU generator type");
  if (words == 0) return PhiloxStream{philox->current_seed(), philox->offset() / 4};
  return philox->reserve(words);
}

namespace {

// Registered at load time so default_generator(CPU) and manual_seed work before any op
// runs. Generator.cpp's registry is constant-initialised, so the order of static
// initialisers across files does not matter.
[[maybe_unused]] const bool kCpuGeneratorRegistered = [] {
  set_default_generator(DeviceType::CPU, make_cpu_generator());
  return true;
}();

}  // namespace
}  // namespace ember
