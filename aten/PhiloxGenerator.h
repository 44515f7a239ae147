#pragma once
/// The CPU random number generator: Philox4x32-10, counter-based, seed + offset state.
///
/// Note [Philox stream layout]
/// Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", SC'11) maps
/// a 128-bit counter and a 64-bit key to 128 random bits (four 32-bit words) through ten
/// rounds of two 32x32->64-bit multiplies, xors and a key bump (Weyl sequence). Known-answer
/// vectors: Random123's tests/kat_vectors (checked in random_test.cpp).
///
/// A generator's state is (seed, offset). The key is the seed (low word, high word). The
/// offset counts the 32-bit numbers drawn so far and is always a multiple of 4, so it names
/// a Philox block: the stream is block b = offset / 4, b + 1, ..., with counter
/// (b low word, b high word, 0, 0); words 2 and 3 of the counter stay 0 (room for a stream id).
///
/// A kernel call reserves its words up front, under the generator's mutex: it reads the
/// offset and advances it by the words it needs, rounded up to a multiple of 4 (whole
/// blocks). It then computes without the lock. Word p of the call (p = 0, 1, ...) is lane
/// p % 4 of block offset / 4 + p / 4, and element i of the result uses words
/// [i * W, (i + 1) * W) for the op's fixed words-per-element W (1 or 2; a Box-Muller pair
/// counts as one element of 2 words, or 4 for float64). So an element's value depends only
/// on (seed, offset, its logical index i), never on how the work is split: any chunking,
/// any thread count, gives the same bits. Kernels may compute a fixed, index-aligned group
/// of elements together (8 Box-Muller pairs); a group's words are those of its elements,
/// and words computed past the end of a call are discarded, never used. Strided outputs
/// are filled in logical (row-major) order, so a non-contiguous view gets element for
/// element the values of a contiguous tensor of its shape. Per op:
///   uniform_: 1 word per value (24 bits; 11 float16, 8 bfloat16), 2 for float64 (53 bits);
///             complex: real and imaginary parts are values 2i and 2i + 1.
///   normal_: pair k (values 2k, 2k + 1): 2 words (float64: 4); Box-Muller.
///   random_: 1 word per element for ranges up to 2^32, else 2; value from + w % range.
///   bernoulli_: 2 words (a 53-bit uniform u; 1 when u < p).
///   multinomial: 2 words per sample (with replacement) or per category (without).
///   randperm: 2 words per Fisher-Yates step.
/// Bit-for-bit agreement with PyTorch's CPU generator (an mt19937) is not a goal; the
/// distributions' formulas follow PyTorch's.

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <optional>

#include "c10/core/Generator.h"
#include "c10/macros/HostDevice.h"

namespace ember {

/// The 128 random bits of one Philox4x32-10 block.
using PhiloxBlock = std::array<uint32_t, 4>;

/// Philox4x32-10 of counter `ctr` under key `key` (Random123's philox4x32_R(10, ...)).
EMBER_HOST_DEVICE inline PhiloxBlock philox4x32_10(PhiloxBlock ctr, std::array<uint32_t, 2> key) {
  constexpr uint32_t kMul0 = 0xD2511F53u, kMul1 = 0xCD9E8D57u;
  constexpr uint32_t kWeyl0 = 0x9E3779B9u, kWeyl1 = 0xBB67AE85u;
  for (int round = 0; round < 10; ++round) {
    if (round > 0) {
      key[0] += kWeyl0;
      key[1] += kWeyl1;
    }
    const uint64_t p0 = static_cast<uint64_t>(kMul0) * ctr[0];
    const uint64_t p1 = static_cast<uint64_t>(kMul1) * ctr[2];
    ctr = {static_cast<uint32_t>(p1 >> 32) ^ ctr[1] ^ key[0], static_cast<uint32_t>(p1),
           static_cast<uint32_t>(p0 >> 32) ^ ctr[3] ^ key[1], static_cast<uint32_t>(p0)};
  }
  return ctr;
}

/// Writes blocks first, first + 1, ..., first + n - 1 of the stream of `seed` (counter
/// (b low, b high, 0, 0)), four words each, in order, to out (8 blocks at a time with AVX2;
/// the same bits either way).
EMBER_API void philox_blocks(uint64_t seed, uint64_t first, int64_t n, uint32_t* out);

/// The words one kernel call reserved (Note [Philox stream layout]).
struct PhiloxStream {
  uint64_t seed = 0;
  uint64_t first_block = 0;  ///< the generator's offset / 4 at reservation

  /// Block `b` of this call (b counts from the call's first block).
  PhiloxBlock block(uint64_t b) const {
    const uint64_t c = first_block + b;
    return philox4x32_10({static_cast<uint32_t>(c), static_cast<uint32_t>(c >> 32), 0u, 0u},
                         {static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32)});
  }

  /// Calls f(i, words), in increasing i, for elements i in [begin, end), `words` pointing
  /// at element i's W words [i * W, (i + 1) * W) of this call; the words do not depend on
  /// begin/end, so any split gives the same values. W: 1, 2 or a multiple of 4 (a group of
  /// elements computed together, e.g. 8 Box-Muller pairs).
  template <int W, class F>
  void for_each(int64_t begin, int64_t end, F&& f) const {
    static_assert(W == 1 || W == 2 || (W % 4 == 0 && W <= 64), "W: 1, 2 or 4k words");
    constexpr int64_t kBatchBlocks = 64;  // blocks generated per batch (1 KiB)
    constexpr int64_t kPerBatch = kBatchBlocks * 4 / W;
    uint32_t words[kBatchBlocks * 4];
    for (int64_t i = begin; i < end;) {
      const int64_t stop = std::min(end, (i / kPerBatch + 1) * kPerBatch);
      const int64_t block0 = i * W / 4, block1 = (stop * W + 3) / 4;
      philox_blocks(seed, first_block + static_cast<uint64_t>(block0), block1 - block0, words);
      for (; i < stop; ++i) f(i, words + (i * W - block0 * 4));
    }
  }
};

/// The CPU generator: Philox4x32-10 with (seed, offset) state; every member takes mutex().
class EMBER_API PhiloxGenerator : public GeneratorImpl {
 public:
  /// PyTorch's default CPU seed.
  static constexpr uint64_t kDefaultSeed = 67280421310721ull;

  /// A generator of `device`'s type: the CPU's, or CUDA's (whose kernels draw the same
  /// stream layout, cuda/random.cu).
  explicit PhiloxGenerator(uint64_t seed = kDefaultSeed, Device device = Device(DeviceType::CPU));
  /// Restarts the stream: seed = `seed`, offset = 0. Takes the lock.
  void set_current_seed(uint64_t seed) override;
  uint64_t current_seed() const override;
  /// The 32-bit numbers drawn since the seed was set (a multiple of 4).
  uint64_t offset();
  /// Moves the stream to `offset` 32-bit numbers past the seed; must be a multiple of 4.
  void set_offset(uint64_t offset);
  /// Reserves `words` 32-bit numbers for one call, rounded up to whole blocks; takes the lock.
  PhiloxStream reserve(uint64_t words);

 private:
  std::atomic<uint64_t> seed_;  // atomic so current_seed() (const) needs no lock
  uint64_t offset_ = 0;
};

/// A new CPU generator seeded with `seed` (like torch.Generator().manual_seed(seed)).
EMBER_API Generator make_cpu_generator(uint64_t seed = PhiloxGenerator::kDefaultSeed);

/// Reserves `words` numbers for one call of `op` from `gen`, or from the default generator
/// of `type` (the CPU's unless told) when gen is empty (0 words: checks gen, advances
/// nothing). Throws ValueError naming `op` when gen is not a Philox generator of that type.
EMBER_API PhiloxStream philox_reserve(const std::optional<Generator>& gen, uint64_t words, const char* op,
                                      DeviceType type = DeviceType::CPU);

}  // namespace ember
