#pragma once
/// widen and narrow: blocks of 16-bit floats (Half, BFloat16) to float and back, the
/// conversions of Note [16-bit floats in blocks] (cpu/Loops.h) and Note [16-bit floats in
/// reductions] (cpu/ReduceLoops.h): vector instructions where the capability has them (F16C
/// for Half, integer shifts for BFloat16) instead of the scalar code of c10/util/Half.h.

#include <bit>
#include <cstdint>
#include <type_traits>

#include "aten/native/CpuCapability.h"
#include "c10/util/Half.h"

#if defined(__F16C__)
#include <immintrin.h>
#endif

namespace ember::native {
EMBER_CPU_NAMESPACE_BEGIN

/// float -> 16-bit bits of n floats into a run of stride `stride` bytes.
template <class T>
__attribute__((noinline)) void narrow(const float* in, char* out, int64_t stride, int64_t n) {
  int64_t i = 0;
  if (stride == static_cast<int64_t>(sizeof(T))) {
    auto* o = reinterpret_cast<uint16_t*>(out);
    if constexpr (std::is_same_v<T, BFloat16>) {
      // bf16_bits_from_float without the branch: the vectoriser takes the select.
      for (; i < n; ++i) {
        const uint32_t x = std::bit_cast<uint32_t>(in[i]);
        const uint16_t r = static_cast<uint16_t>((x + 0x7FFFu + ((x >> 16) & 1u)) >> 16);
        o[i] = in[i] != in[i] ? uint16_t(0x7FC0u) : r;
      }
      return;
    } else {
#if defined(__F16C__)
      for (; i + 8 <= n; i += 8) {
        const __m256 v = _mm256_loadu_ps(in + i);
        _mm_storeu_si128(reinterpret_cast<__m128i*>(o + i),
                         _mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
        // c10's NaN is sign | 0x7E00; the instruction keeps the payload's top bits.
        if (const int nan = _mm256_movemask_ps(_mm256_cmp_ps(v, v, _CMP_UNORD_Q))) {
          for (int j = 0; j < 8; ++j) {
            if ((nan >> j) & 1) o[i + j] = static_cast<uint16_t>((o[i + j] & 0x8000u) | 0x7E00u);
          }
        }
      }
#endif
    }
  }
  for (; i < n; ++i) *reinterpret_cast<T*>(out + i * stride) = T(in[i]);
}

/// 16-bit floats -> float: n elements of a run of stride `stride` bytes into out.
template <class T>
__attribute__((noinline)) void widen(const char* in, int64_t stride, int64_t n, float* out) {
  int64_t i = 0;
  if (stride == static_cast<int64_t>(sizeof(T))) {
    const auto* p = reinterpret_cast<const uint16_t*>(in);
    if constexpr (std::is_same_v<T, BFloat16>) {
      for (; i < n; ++i) out[i] = std::bit_cast<float>(static_cast<uint32_t>(p[i]) << 16);
      return;
    } else {
#if defined(__F16C__)
      for (; i + 8 <= n; i += 8) {
        _mm256_storeu_ps(out + i, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i))));
      }
#endif
    }
  }
  if (stride == 0) {
    const float v = float(*reinterpret_cast<const T*>(in));
    for (; i < n; ++i) out[i] = v;
    return;
  }
  for (; i < n; ++i) out[i] = float(*reinterpret_cast<const T*>(in + i * stride));
}

EMBER_CPU_NAMESPACE_END
}  // namespace ember::native
