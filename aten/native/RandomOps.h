#pragma once
/// The conversions of the random kernels' Philox words (Note [Philox stream layout] in
/// aten/PhiloxGenerator.h), one copy for every backend (Note [Shared functors] in
/// ArithOps.h): the CPU kernels (cpu/random.cpp) and the CUDA ones (cuda/random.cu) turn
/// the same words into the same values, so a CUDA generator and a CPU generator seeded alike
/// draw the same uniform_ and bernoulli_ numbers.
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "aten/native/CpuCapability.h"
#include "c10/macros/HostDevice.h"
#include "c10/util/Half.h"

namespace ember::native {
EMBER_CPU_NAMESPACE_BEGIN
namespace random_detail {

/// Per floating type: the type kernels compute in, the mantissa digits (uniform draws keep
/// that many random bits, as PyTorch's uniform_real does) and conversions.
template <class T>
struct Floating;
template <>
struct Floating<Half> {
  using Acc = float;
  static constexpr int kDigits = 11;
  EMBER_HOST_DEVICE static Half from(float v) { return Half(v); }
  EMBER_HOST_DEVICE static double to_double(Half v) { return static_cast<float>(v); }
};
template <>
struct Floating<BFloat16> {
  using Acc = float;
  static constexpr int kDigits = 8;
  EMBER_HOST_DEVICE static BFloat16 from(float v) { return BFloat16(v); }
  EMBER_HOST_DEVICE static double to_double(BFloat16 v) { return static_cast<float>(v); }
};
template <>
struct Floating<float> {
  using Acc = double;  // PyTorch's CPU dist_acctype<float>
  static constexpr int kDigits = 24;
  EMBER_HOST_DEVICE static float from(double v) { return static_cast<float>(v); }
  EMBER_HOST_DEVICE static double to_double(float v) { return v; }
};
template <>
struct Floating<double> {
  using Acc = double;
  static constexpr int kDigits = 53;
  EMBER_HOST_DEVICE static double from(double v) { return v; }
  EMBER_HOST_DEVICE static double to_double(double v) { return v; }
};

// The largest T strictly below `to`, so rounding x * (to - from) + from to T cannot reach
// `to` (PyTorch's formula alone can, e.g. float uniform_(1, 2) rounding 2 - 2^-24 up).
template <class T>
inline double largest_below(double to) {
  using Acc = typename Floating<T>::Acc;
  T v = Floating<T>::from(static_cast<Acc>(to));
  double d = Floating<T>::to_double(v);
  while (d >= to) {
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
      v = std::nextafter(v, -std::numeric_limits<T>::infinity());
    } else {
      // 16-bit floats: step the bit pattern one unit toward -inf.
      uint16_t bits = v.x;
      bits = (bits & 0x8000u) ? static_cast<uint16_t>(bits + 1)
                              : (bits == 0 ? uint16_t{0x8001u} : static_cast<uint16_t>(bits - 1));
      v = T(bits, FromBits{});
    }
    d = Floating<T>::to_double(v);
  }
  return d;
}

/// A uniform number in [0, 1) with `digits` random bits from one or two words (PyTorch's
/// uniform_real: the low bits, scaled by 2^-digits).
template <int kDigits>
EMBER_HOST_DEVICE inline double unit_uniform(const uint32_t* w) {
  if constexpr (kDigits <= 32) {
    constexpr uint32_t kMask = static_cast<uint32_t>((uint64_t{1} << kDigits) - 1);
    return static_cast<double>(w[0] & kMask) * (1.0 / static_cast<double>(uint64_t{1} << kDigits));
  } else {
    const uint64_t v = (static_cast<uint64_t>(w[1]) << 32) | w[0];
    constexpr uint64_t kMask = (uint64_t{1} << kDigits) - 1;
    return static_cast<double>(v & kMask) * (1.0 / static_cast<double>(uint64_t{1} << kDigits));
  }
}

}  // namespace random_detail
EMBER_CPU_NAMESPACE_END
}  // namespace ember::native
