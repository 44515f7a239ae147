#pragma once
/// select(c, a, b): c ? a : b without a branch. A bit mask made from the condition blends
/// the two values' bits, so a loop of these compiles to vector blends or conditional moves.
/// A plain ?: on data-dependent conditions (a where() mask, the winner of a max-pool window)
/// often stays a branch, mispredicted about half the time on real data.

#include <bit>
#include <cstdint>
#include <type_traits>

#include "aten/native/CpuCapability.h"

namespace ember::native {
EMBER_CPU_NAMESPACE_BEGIN

template <class T>
inline T select(bool c, T a, T b) {
  if constexpr (sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8) {
    using Bits = std::conditional_t<
        sizeof(T) == 1, uint8_t,
        std::conditional_t<sizeof(T) == 2, uint16_t, std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>>>;
    const Bits m = static_cast<Bits>(Bits(0) - static_cast<Bits>(c));
    return std::bit_cast<T>(static_cast<Bits>((std::bit_cast<Bits>(a) & m) | (std::bit_cast<Bits>(b) & ~m)));
  } else {
    return c ? a : b;
  }
}

EMBER_CPU_NAMESPACE_END
}  // namespace ember::native
