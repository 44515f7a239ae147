// CPU kernels of the in-place random ops: uniform_, normal_, random_, bernoulli_. Each
// checks its arguments (aten/native/random.h), reserves its Philox words and fills self in
// logical order (Note [Philox stream layout] in PhiloxGenerator.h).
#include <algorithm>
#include <atomic>
#include <cmath>
#include <numbers>
#include <thread>

#include "aten/native/CpuCapability.h"
#include "aten/PhiloxGenerator.h"
#include "aten/native/cpu/random_loops.h"
#include "aten/native/random.h"

// Note [Reproducible arithmetic]: no contraction of a * b + c into an FMA in this file, so
// a seed gives the same bits whether or not the build targets FMA hardware
// (-march=native fuses by default in GCC, the baseline build cannot).
#pragma GCC optimize("fp-contract=off")

namespace ember {
namespace native {
EMBER_CPU_NAMESPACE_BEGIN

namespace {

constexpr int64_t kDefaultGrain = 65536;
std::atomic<int64_t> random_grain{kDefaultGrain};
std::atomic<int> random_threads{1};

}  // namespace

void set_random_threading(int64_t grain, int threads) {
  random_grain.store(grain > 0 ? grain : kDefaultGrain, std::memory_order_relaxed);
  random_threads.store(threads > 0 ? threads : 1, std::memory_order_relaxed);
}

namespace random_detail {

void run_chunks(int64_t n, const std::function<void(int64_t, int64_t)>& f) {
  const int64_t grain = random_grain.load(std::memory_order_relaxed);
  const int64_t chunks = (n + grain - 1) / grain;
  const int64_t threads = std::min<int64_t>(random_threads.load(std::memory_order_relaxed), chunks);
  if (threads <= 1) {
    for (int64_t b = 0; b < n; b += grain) f(b, std::min(n, b + grain));
    return;
  }
  // Workers take chunks in whatever order they get them: each chunk's values depend only
  // on its indices, so the result does not.
  std::atomic<int64_t> next{0};
  auto work = [&] {
    for (int64_t c; (c = next.fetch_add(1, std::memory_order_relaxed)) < chunks;) {
      f(c * grain, std::min(n, (c + 1) * grain));
    }
  };
  std::vector<std::thread> pool;
  for (int64_t t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (std::thread& t : pool) t.join();
}

void scatter_logical(const void* src, const Tensor& dst) {
  const size_t item = dst.element_size();
  const char* in = static_cast<const char*>(src);
  char* out = static_cast<char*>(dst.data_ptr());
  for_each_offset(dst.sizes(), dst.strides(), [&](int64_t i, int64_t offset) {
    std::memcpy(out + offset * static_cast<int64_t>(item), in + i * static_cast<int64_t>(item),
                item);
  });
}

std::vector<double> read_floating(const Tensor& t, IntArrayRef sizes, IntArrayRef strides) {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  std::vector<double> values(static_cast<size_t>(n));
  visit_floating(t.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* data = static_cast<const T*>(t.data_ptr());
    for_each_offset(sizes, strides, [&](int64_t i, int64_t offset) {
      values[static_cast<size_t>(i)] = Floating<T>::to_double(data[offset]);
    });
  });
  return values;
}

}  // namespace random_detail

using namespace random_detail;

namespace {

// Writes `count` values x * (to - from) + from, x uniform in [0, 1) with T's digits.
template <class T>
void uniform_fill(const Tensor& self, int64_t count, double from, double to,
                  const PhiloxStream& s) {
  using Acc = typename Floating<T>::Acc;
  constexpr int kDigits = Floating<T>::kDigits;
  constexpr int W = kDigits > 32 ? 2 : 1;
  const Acc lo = static_cast<Acc>(from), width = static_cast<Acc>(to - from);
  const double cap = from < to ? largest_below<T>(to) : from;
  fill_logical<T>(self, count, [&](T* out, int64_t b, int64_t e) {
    s.for_each<W>(b, e, [&](int64_t i, const uint32_t* w) {
      const Acc x = static_cast<Acc>(unit_uniform<kDigits>(w));
      T v = Floating<T>::from(x * width + lo);
      if (Floating<T>::to_double(v) > cap) v = Floating<T>::from(static_cast<Acc>(cap));
      out[i] = v;
    });
  });
}

// Note [Vectorized Box-Muller]: float normals (float16, bfloat16, float32) come from
// 8 pairs at a time, pair k from words 2k (u1) and 2k + 1 (u2), 24 bits each:
// r = sqrt(-2 log(1 - u2)), value 2k = r cos(2 pi u1), value 2k + 1 = r sin(2 pi u1).
// log, sin and cos are Cephes' single-precision polynomials written with GCC vector
// types; only IEEE-rounded operations (+ - * / sqrt, exact conversions) are used, never
// fused (Note [Reproducible arithmetic]), so the bits are the same on every x86-64 and in
// every build (AVX or not). The angle needs no inexact range reduction: 4 u1 splits
// exactly into a quadrant and a fraction in [-1/2, 1/2].
using Float8 = float __attribute__((vector_size(32)));
using Int8 = int32_t __attribute__((vector_size(32)));
using UInt8 = uint32_t __attribute__((vector_size(32)));

inline void box_muller_8(const uint32_t* w, float* z) {
  Int8 a, b;
  for (int j = 0; j < 8; ++j) {
    a[j] = static_cast<int32_t>(w[2 * j] & 0xFFFFFFu);
    b[j] = static_cast<int32_t>(w[2 * j + 1] & 0xFFFFFFu);
  }
  const Float8 u1 = __builtin_convertvector(a, Float8) * 0x1p-24f;
  // 1 - u2 in (0, 1], exact; its log by exponent and mantissa m in [sqrt(1/2), sqrt(2)).
  const Float8 x = 1.0f - __builtin_convertvector(b, Float8) * 0x1p-24f;
  const Int8 bits = (Int8)x;
  Int8 e = ((bits >> 23) & 0xFF) - 127;
  Int8 mbits = (bits & 0x7FFFFF) | 0x3F800000;
  Float8 m = (Float8)mbits;
  const Int8 big = m > 1.41421356f;
  m = big ? m * 0.5f : m;
  e = big ? e + 1 : e;
  const Float8 f = m - 1.0f, ef = __builtin_convertvector(e, Float8);
  const Float8 f2 = f * f;
  Float8 y = 7.0376836292e-2f * f - 1.1514610310e-1f;
  y = y * f + 1.1676998740e-1f;
  y = y * f - 1.2420140846e-1f;
  y = y * f + 1.4249322787e-1f;
  y = y * f - 1.6668057665e-1f;
  y = y * f + 2.0000714765e-1f;
  y = y * f - 2.4999993993e-1f;
  y = y * f + 3.3333331174e-1f;
  y = y * f * f2;
  y = y + -2.12194440e-4f * ef;
  y = y + -0.5f * f2;
  Float8 log_x = f + y;
  log_x = log_x + 0.693359375f * ef;
  Float8 r2 = -2.0f * log_x;
  r2 = r2 > 0.0f ? r2 : 0.0f;
  Float8 r;
  for (int j = 0; j < 8; ++j) r[j] = std::sqrt(r2[j]);
  // 2 pi u1 = q pi / 2 + t pi / 2 with q = round(4 u1), t in [-1/2, 1/2].
  const Int8 q = __builtin_convertvector(u1 * 4.0f + 0.5f, Int8);  // floor: the sum is > 0
  const Float8 t = (u1 * 4.0f - __builtin_convertvector(q, Float8)) * 1.57079632679489661923f;
  const Float8 t2 = t * t;
  const Float8 sin_t = ((-1.9515295891e-4f * t2 + 8.3321608736e-3f) * t2 - 1.6666654611e-1f) *
                       t2 * t + t;
  const Float8 cos_t = ((2.443315711809948e-5f * t2 - 1.388731625493765e-3f) * t2 +
                        4.166664568298827e-2f) * t2 * t2 - 0.5f * t2 + 1.0f;
  const Int8 odd = (q & 1) != 0;
  Float8 sin_v = odd ? cos_t : sin_t, cos_v = odd ? sin_t : cos_t;
  const UInt8 sin_sign = (UInt8)q << 30 & 0x80000000u;
  const UInt8 q1 = (UInt8)q + 1u;
  const UInt8 cos_sign = q1 << 30 & 0x80000000u;
  UInt8 sin_bits = (UInt8)sin_v ^ sin_sign;
  UInt8 cos_bits = (UInt8)cos_v ^ cos_sign;
  sin_v = r * (Float8)sin_bits;
  cos_v = r * (Float8)cos_bits;
  for (int j = 0; j < 8; ++j) {
    z[2 * j] = cos_v[j];
    z[2 * j + 1] = sin_v[j];
  }
}

// Box-Muller: values 2k and 2k + 1 come from pair k. float16/bfloat16/float32: 8 pairs at a
// time (Note [Vectorized Box-Muller]); float64: one pair of 53-bit uniforms (4 words) at a
// time with libm.
template <class T>
void normal_fill(const Tensor& self, int64_t count, double mean, double stdev,
                 const PhiloxStream& s) {
  fill_logical<T>(self, count, [&](T* out, int64_t b, int64_t e) {
    if constexpr (std::is_same_v<T, double>) {
      s.for_each<4>(b / 2, (e + 1) / 2, [&](int64_t k, const uint32_t* w) {
        const double u1 = unit_uniform<53>(w), u2 = unit_uniform<53>(w + 2);
        const double r = std::sqrt(-2.0 * std::log1p(-u2));  // 1 - u2 > 0: finite
        const double theta = 2.0 * std::numbers::pi * u1;
        if (2 * k >= b) out[2 * k] = r * std::cos(theta) * stdev + mean;
        if (2 * k + 1 < e) out[2 * k + 1] = r * std::sin(theta) * stdev + mean;
      });
    } else {
      const float m = static_cast<float>(mean), sd = static_cast<float>(stdev);
      // Group g holds values [16 g, 16 g + 16): 8 pairs, 16 words.
      s.for_each<16>(b / 16, (e + 15) / 16, [&](int64_t g, const uint32_t* w) {
        float z[16];
        box_muller_8(w, z);
        const int64_t base = 16 * g;
        const int64_t lo = std::max<int64_t>(b - base, 0), hi = std::min<int64_t>(e - base, 16);
        for (int64_t j = lo; j < hi; ++j) out[base + j] = Floating<T>::from(z[j] * sd + m);
      });
    }
  });
}

// Writes from + (a number in [0, range)); range 0 means all 2^64 values. Ranges up to 2^32
// take one word per element, larger ones two (PyTorch's random() / random64() split).
template <class T>
void random_fill(const Tensor& self, RandomRange r, const std::optional<Generator>& gen) {
  const int64_t n = self.numel();
  const bool wide = r.range == 0 || r.range > (uint64_t{1} << 32);
  const PhiloxStream s = philox_reserve(gen, static_cast<uint64_t>(n) * (wide ? 2 : 1), "random_");
  if (n == 0) return;
  const uint64_t from = static_cast<uint64_t>(r.from);
  auto value = [&](uint64_t v) {
    return from_int64<T>(static_cast<int64_t>(from + (r.range == 0 ? v : v % r.range)));
  };
  fill_logical<T>(self, n, [&](T* out, int64_t b, int64_t e) {
    if (wide) {
      s.for_each<2>(b, e, [&](int64_t i, const uint32_t* w) { out[i] = value(word64(w)); });
    } else {
      s.for_each<1>(b, e, [&](int64_t i, const uint32_t* w) { out[i] = value(w[0]); });
    }
  });
}

Tensor& random_impl(Tensor& self, RandomRange r, const std::optional<Generator>& gen) {
  visit_real(self.dtype(),
             [&](auto tag) { random_fill<typename decltype(tag)::type>(self, r, gen); });
  return self;
}

}  // namespace

Tensor& uniform_cpu(Tensor& self, double from, double to, std::optional<Generator> generator) {
  check_uniform_args(self, from, to);
  const ScalarType t = real_component(self.dtype());
  const int64_t count = self.numel() * (is_complex(self.dtype()) ? 2 : 1);
  const uint64_t words = static_cast<uint64_t>(count) * (t == ScalarType::Double ? 2 : 1);
  const PhiloxStream s = philox_reserve(generator, words, "uniform_");
  if (count == 0) return self;
  visit_floating(t, [&](auto tag) {
    uniform_fill<typename decltype(tag)::type>(self, count, from, to, s);
  });
  return self;
}

Tensor& normal_cpu(Tensor& self, double mean, double std, std::optional<Generator> generator) {
  check_normal_args(self, std);
  const ScalarType t = real_component(self.dtype());
  const bool complex = is_complex(self.dtype());
  const int64_t count = self.numel() * (complex ? 2 : 1);
  const uint64_t pairs = static_cast<uint64_t>(count + 1) / 2;
  const uint64_t words = pairs * (t == ScalarType::Double ? 4 : 2);
  const PhiloxStream s = philox_reserve(generator, words, "normal_");
  if (count == 0) return self;
  // PyTorch's complex normal: each part has variance std^2 / 2, mean `mean`.
  const double stdev = complex ? std / std::numbers::sqrt2 : std;
  visit_floating(t, [&](auto tag) {
    normal_fill<typename decltype(tag)::type>(self, count, mean, stdev, s);
  });
  return self;
}

Tensor& random_from_cpu(Tensor& self, int64_t from, std::optional<int64_t> to,
                        std::optional<Generator> generator) {
  return random_impl(self, random_from_to_range(self, from, to), generator);
}

Tensor& random_to_cpu(Tensor& self, int64_t to, std::optional<Generator> generator) {
  return random_impl(self, random_from_to_range(self, 0, to), generator);
}

Tensor& random_cpu(Tensor& self, std::optional<Generator> generator) {
  return random_impl(self, random_default_range(self), generator);
}

// Writes 1 where element i's 53-bit uniform (two words) is below prob(i), else 0.
template <class Prob>
void fill_bernoulli(Tensor& self, int64_t n, const PhiloxStream& s, Prob prob) {
  visit_real(self.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T one = from_int64<T>(1), zero = from_int64<T>(0);
    fill_logical<T>(self, n, [&](T* out, int64_t b, int64_t e) {
      s.for_each<2>(b, e, [&](int64_t i, const uint32_t* w) {
        out[i] = unit_uniform<53>(w) < prob(i) ? one : zero;
      });
    });
  });
}

Tensor& bernoulli_float_cpu(Tensor& self, double p, std::optional<Generator> generator) {
  check_bernoulli_args(self, p);
  const int64_t n = self.numel();
  // Two words per element: a 53-bit uniform, so small p keep their precision.
  const PhiloxStream s = philox_reserve(generator, static_cast<uint64_t>(n) * 2, "bernoulli_");
  if (n == 0) return self;
  fill_bernoulli(self, n, s, [p](int64_t) { return p; });
  return self;
}

Tensor& bernoulli_tensor_cpu(Tensor& self, const Tensor& p, std::optional<Generator> generator) {
  const std::vector<int64_t> p_strides = check_bernoulli_tensor_args(self, p);
  // Read every probability first: checks before writing, and self may alias p.
  const std::vector<double> probs = read_floating(p, self.sizes(), p_strides);
  for (size_t i = 0; i < probs.size(); ++i) {
    EMBER_CHECK_VALUE(probs[i] >= 0.0 && probs[i] <= 1.0,
                      "bernoulli_(): expected every probability in 'p' to be in [0, 1], but got ",
                      probs[i], " (element ", i, " of p broadcast to ", self.sizes(), ")");
  }
  const int64_t n = self.numel();
  const PhiloxStream s = philox_reserve(generator, static_cast<uint64_t>(n) * 2, "bernoulli_");
  if (n == 0) return self;
  fill_bernoulli(self, n, s, [&probs](int64_t i) { return probs[static_cast<size_t>(i)]; });
  return self;
}

EMBER_CPU_NAMESPACE_END
}  // namespace native
}  // namespace ember
