// CPU kernels of the in-place random ops: uniform_, normal_, random_, bernoulli_. Each
// checks its arguments (aten/native/random.h), reserves its Philox words and fills self in
// logical order (Note [Philox stream layout] in PhiloxGenerator.h).
#include <algorithm>
#include <atomic>
#include <cmath>
#include <numbers>
#include <thread>

#include "aten/native/cpu/PhiloxGenerator.h"
#include "aten/native/cpu/random_loops.h"
#include "aten/native/random.h"
#include "ember/generated/NativeFunctions.h"

namespace ember {
namespace native {

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
    std::memcpy(out + offset * static_cast<int64_t>(item), in + i * static_cast<int64_t>(item), item);
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

// The largest T strictly below `to`, so rounding x * (to - from) + from to T cannot reach
// `to` (PyTorch's formula alone can, e.g. float uniform_(1, 2) rounding 2 - 2^-24 up).
template <class T>
double largest_below(double to) {
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

// Writes `count` values x * (to - from) + from, x uniform in [0, 1) with T's digits.
template <class T>
void uniform_fill(const Tensor& self, int64_t count, double from, double to, const PhiloxStream& s) {
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

// Box-Muller: values 2k and 2k + 1 come from pair k (two uniforms; W words for the pair).
template <class T>
void normal_fill(const Tensor& self, int64_t count, double mean, double stdev, const PhiloxStream& s) {
  using Acc = std::conditional_t<std::is_same_v<T, double>, double, float>;
  constexpr int kDigits = std::is_same_v<T, double> ? 53 : 24;
  constexpr int W = kDigits > 32 ? 4 : 2;
  constexpr Acc kTwoPi = static_cast<Acc>(2.0 * std::numbers::pi);
  const Acc m = static_cast<Acc>(mean), sd = static_cast<Acc>(stdev);
  fill_logical<T>(self, count, [&](T* out, int64_t b, int64_t e) {
    s.for_each<W>(b / 2, (e + 1) / 2, [&](int64_t k, const uint32_t* w) {
      const Acc u1 = static_cast<Acc>(unit_uniform<kDigits>(w));
      const Acc u2 = static_cast<Acc>(unit_uniform<kDigits>(w + W / 2));
      const Acc r = std::sqrt(Acc(-2) * std::log1p(-u2));  // 1 - u2 > 0: finite
      const Acc theta = kTwoPi * u1;
      if (2 * k >= b) out[2 * k] = Floating<T>::from(r * std::cos(theta) * sd + m);
      if (2 * k + 1 < e) out[2 * k + 1] = Floating<T>::from(r * std::sin(theta) * sd + m);
    });
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
  visit_real(self.dtype(), [&](auto tag) { random_fill<typename decltype(tag)::type>(self, r, gen); });
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
  const PhiloxStream s = philox_reserve(generator, pairs * (t == ScalarType::Double ? 4 : 2), "normal_");
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

Tensor& bernoulli_float_cpu(Tensor& self, double p, std::optional<Generator> generator) {
  check_bernoulli_args(self, p);
  const int64_t n = self.numel();
  // Two words per element: a 53-bit uniform, so small p keep their precision.
  const PhiloxStream s = philox_reserve(generator, static_cast<uint64_t>(n) * 2, "bernoulli_");
  if (n == 0) return self;
  visit_real(self.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T one = from_int64<T>(1), zero = from_int64<T>(0);
    fill_logical<T>(self, n, [&](T* out, int64_t b, int64_t e) {
      s.for_each<2>(b, e, [&](int64_t i, const uint32_t* w) {
        out[i] = unit_uniform<53>(w) < p ? one : zero;
      });
    });
  });
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
  visit_real(self.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T one = from_int64<T>(1), zero = from_int64<T>(0);
    fill_logical<T>(self, n, [&](T* out, int64_t b, int64_t e) {
      s.for_each<2>(b, e, [&](int64_t i, const uint32_t* w) {
        out[i] = unit_uniform<53>(w) < probs[static_cast<size_t>(i)] ? one : zero;
      });
    });
  });
  return self;
}

}  // namespace native
}  // namespace ember
