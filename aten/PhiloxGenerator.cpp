// The Philox generator (Note [Philox stream layout] in PhiloxGenerator.h) and its registration
// as the CPU (and CUDA) default generator when libember loads.
#include "aten/PhiloxGenerator.h"

#include "c10/cuda/CudaRuntime.h"
#include "c10/util/Exception.h"

#if defined(__AVX2__)
#include <immintrin.h>
#endif

namespace ember {

PhiloxGenerator::PhiloxGenerator(uint64_t seed, Device device) : GeneratorImpl(device), seed_(seed) {}

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

namespace {

#if defined(__AVX2__)
// 32x32 -> 64-bit products of the 8 lanes of x by m: low and high words, per lane.
inline void mul_wide(__m256i x, __m256i m, __m256i& lo, __m256i& hi) {
  const __m256i even = _mm256_mul_epu32(x, m);                         // lanes 0, 2, 4, 6
  const __m256i odd = _mm256_mul_epu32(_mm256_srli_epi64(x, 32), m);  // lanes 1, 3, 5, 7
  lo = _mm256_blend_epi32(even, _mm256_slli_epi64(odd, 32), 0xAA);
  hi = _mm256_blend_epi32(_mm256_srli_epi64(even, 32), odd, 0xAA);
}

// Blocks first .. first + 7: philox4x32_10 on 8 counters at once, the counter words in
// lanes, transposed back to 4 words per block on the way out.
void philox_8_blocks(uint64_t seed, uint64_t first, uint32_t* out) {
  alignas(32) uint32_t lo_words[8], hi_words[8];
  for (int i = 0; i < 8; ++i) {
    lo_words[i] = static_cast<uint32_t>(first + i);
    hi_words[i] = static_cast<uint32_t>((first + i) >> 32);
  }
  __m256i c0 = _mm256_load_si256(reinterpret_cast<const __m256i*>(lo_words));
  __m256i c1 = _mm256_load_si256(reinterpret_cast<const __m256i*>(hi_words));
  __m256i c2 = _mm256_setzero_si256(), c3 = _mm256_setzero_si256();
  uint32_t k0 = static_cast<uint32_t>(seed), k1 = static_cast<uint32_t>(seed >> 32);
  const __m256i m0 = _mm256_set1_epi32(static_cast<int>(0xD2511F53u));
  const __m256i m1 = _mm256_set1_epi32(static_cast<int>(0xCD9E8D57u));
  for (int round = 0; round < 10; ++round) {
    if (round > 0) {
      k0 += 0x9E3779B9u;
      k1 += 0xBB67AE85u;
    }
    __m256i lo0, hi0, lo1, hi1;
    mul_wide(c0, m0, lo0, hi0);
    mul_wide(c2, m1, lo1, hi1);
    c0 = _mm256_xor_si256(_mm256_xor_si256(hi1, c1), _mm256_set1_epi32(static_cast<int>(k0)));
    c1 = lo1;
    c2 = _mm256_xor_si256(_mm256_xor_si256(hi0, c3), _mm256_set1_epi32(static_cast<int>(k1)));
    c3 = lo0;
  }
  const __m256i t0 = _mm256_unpacklo_epi32(c0, c1), t1 = _mm256_unpackhi_epi32(c0, c1);
  const __m256i t2 = _mm256_unpacklo_epi32(c2, c3), t3 = _mm256_unpackhi_epi32(c2, c3);
  const __m256i b04 = _mm256_unpacklo_epi64(t0, t2), b15 = _mm256_unpackhi_epi64(t0, t2);
  const __m256i b26 = _mm256_unpacklo_epi64(t1, t3), b37 = _mm256_unpackhi_epi64(t1, t3);
  auto* o = reinterpret_cast<__m256i*>(out);
  _mm256_storeu_si256(o + 0, _mm256_permute2x128_si256(b04, b15, 0x20));
  _mm256_storeu_si256(o + 1, _mm256_permute2x128_si256(b26, b37, 0x20));
  _mm256_storeu_si256(o + 2, _mm256_permute2x128_si256(b04, b15, 0x31));
  _mm256_storeu_si256(o + 3, _mm256_permute2x128_si256(b26, b37, 0x31));
}
#endif

}  // namespace

void philox_blocks(uint64_t seed, uint64_t first, int64_t n, uint32_t* out) {
  int64_t b = 0;
#if defined(__AVX2__)
  for (; b + 8 <= n; b += 8) philox_8_blocks(seed, first + static_cast<uint64_t>(b), out + 4 * b);
#endif
  const std::array<uint32_t, 2> key{static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32)};
  for (; b < n; ++b) {
    const uint64_t c = first + static_cast<uint64_t>(b);
    const PhiloxBlock r =
        philox4x32_10({static_cast<uint32_t>(c), static_cast<uint32_t>(c >> 32), 0u, 0u}, key);
    std::copy(r.begin(), r.end(), out + 4 * b);
  }
}

Generator make_cpu_generator(uint64_t seed) {
  return Generator(make_intrusive<PhiloxGenerator>(seed));
}

PhiloxStream philox_reserve(const std::optional<Generator>& gen, uint64_t words, const char* op,
                            DeviceType type) {
  // Hold a reference for the reservation: the default generator may be replaced meanwhile.
  Generator g = gen && gen->defined() ? *gen : default_generator(type);
  const char* name = type == DeviceType::CPU ? "CPU" : "CUDA";
  EMBER_CHECK_VALUE(g.device().type() == type, op, "(): expected 'generator' to be a ", name,
                    " generator, but got one for '", device_type_name(g.device().type()), "'");
  auto* philox = dynamic_cast<PhiloxGenerator*>(g.impl());
  EMBER_CHECK_VALUE(philox != nullptr, op, "(): expected 'generator' to be a ", name,
                    " Philox generator (make_cpu_generator), but got another ", name, " generator type");
  if (words == 0) return PhiloxStream{philox->current_seed(), philox->offset() / 4};
  return philox->reserve(words);
}

namespace {

// Registered at load time so default_generator(CPU) and manual_seed work before any op
// runs. Generator.cpp's registry is constant-initialised, so the order of static
// initialisers across files does not matter.
[[maybe_unused]] const bool kCpuGeneratorRegistered = [] {
  set_default_generator(DeviceType::CPU, make_cpu_generator());
  // CUDA's default generator is a state on the host (the kernels take a reservation), so it
  // exists from the start and manual_seed reaches it before any CUDA work, as PyTorch's
  // queued seeding does.
  if (cuda::built()) {
    set_default_generator(DeviceType::CUDA, Generator(make_intrusive<PhiloxGenerator>(
                                                PhiloxGenerator::kDefaultSeed, Device(DeviceType::CUDA))));
  }
  return true;
}();

}  // namespace
}  // namespace ember
