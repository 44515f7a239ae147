// CPU kernels that sample indices: multinomial and randperm (Note [Philox stream layout]
// in PhiloxGenerator.h gives each sample its own words).
// CPU copies: baseline only (sequential sampling walks, not vector loops).
#include <algorithm>
#include <cmath>
#include <numeric>

#include "aten/PhiloxGenerator.h"
#include "aten/native/CpuCapability.h"
#include "aten/native/cpu/random_loops.h"
#include "aten/native/random.h"
#include "ember/generated/ops/empty.h"

namespace ember {
namespace native {
EMBER_CPU_NAMESPACE_BEGIN

using namespace random_detail;

// With replacement, sample q (row q / num_samples) uses words [2q, 2q + 2): a 53-bit
// uniform u, and the first category whose cumulative weight exceeds u * row sum.
// Without replacement, category j of row r uses words [2(r * C + j), ...): the exponential
// race (Gumbel top-k, as PyTorch's CPU kernel): key_j = p_j / E_j with E_j ~ Exp(1); the
// num_samples largest keys, largest first, are a draw without replacement in draw order.
// Zero-probability categories come last, in index order (PyTorch also returns them when
// fewer than num_samples categories have positive probability).
Tensor multinomial_cpu(const Tensor& self, int64_t num_samples, bool replacement,
                       std::optional<Generator> generator) {
  const std::vector<int64_t> sizes = multinomial_result_sizes(self, num_samples, replacement);
  const int64_t rows = self.dim() == 1 ? 1 : self.sizes()[0];
  const int64_t cats = self.sizes().back();
  std::vector<double> weights = read_floating(self, self.sizes(), self.strides());
  for (int64_t r = 0; r < rows; ++r) {
    double sum = 0;
    for (int64_t j = 0; j < cats; ++j) {
      const double v = weights[static_cast<size_t>(r * cats + j)];
      EMBER_CHECK_VALUE(std::isfinite(v) && v >= 0.0,
                        "multinomial(): expected 'self' to hold finite, non-negative "
                        "probabilities, but got ", v, " (row ", r, ", category ", j, ")");
      sum += v;
    }
    EMBER_CHECK_VALUE(sum > 0.0, "multinomial(): expected every row of 'self' to have a positive "
                      "sum, but row ", r, " sums to 0");
  }
  Tensor result = ember::empty(sizes, ScalarType::Long, std::nullopt, self.device(), std::nullopt,
                               std::nullopt);
  const uint64_t draws = static_cast<uint64_t>(rows) * (replacement ? num_samples : cats);
  const PhiloxStream s = philox_reserve(generator, draws * 2, "multinomial");
  if (rows == 0) return result;
  int64_t* out = result.data_ptr_as<int64_t>();

  if (replacement) {
    // Cumulative weights per row, in place.
    for (int64_t r = 0; r < rows; ++r) {
      double* w = weights.data() + r * cats;
      std::partial_sum(w, w + cats, w);
    }
    run_chunks(rows * num_samples, [&](int64_t b, int64_t e) {
      s.for_each<2>(b, e, [&](int64_t q, const uint32_t* w) {
        const double* cdf = weights.data() + (q / num_samples) * cats;
        const double x = unit_uniform<53>(w) * cdf[cats - 1];
        int64_t j = std::upper_bound(cdf, cdf + cats, x) - cdf;
        if (j == cats) {
          // x rounded up to the row sum: take the last category with positive weight.
          j = cats - 1;
          while (j > 0 && cdf[j] == cdf[j - 1]) --j;
        }
        out[q] = j;
      });
    });
    return result;
  }
  run_chunks(rows, [&](int64_t rb, int64_t re) {
    std::vector<double> keys(static_cast<size_t>(cats));
    std::vector<int64_t> order(static_cast<size_t>(cats));
    for (int64_t r = rb; r < re; ++r) {
      const double* p = weights.data() + r * cats;
      s.for_each<2>(r * cats, (r + 1) * cats, [&](int64_t i, const uint32_t* w) {
        const int64_t j = i - r * cats;
        const double exp1 = -std::log1p(-unit_uniform<53>(w));  // Exp(1); 0 gives key inf
        keys[static_cast<size_t>(j)] = p[j] > 0.0 ? p[j] / exp1 : -1.0;
      });
      std::iota(order.begin(), order.end(), int64_t{0});
      std::partial_sort(order.begin(), order.begin() + num_samples, order.end(),
                        [&](int64_t a, int64_t b) {
                          const double ka = keys[static_cast<size_t>(a)];
                          const double kb = keys[static_cast<size_t>(b)];
                          return ka > kb || (ka == kb && a < b);
                        });
      std::copy(order.begin(), order.begin() + num_samples, out + r * num_samples);
    }
  });
  return result;
}

// Fisher-Yates: step i (i = 0 .. n - 2) swaps position i with i + (word64 % (n - i)), step
// i using words [2i, 2i + 2). Sequential by nature; the words still come by index.
Tensor randperm_cpu(int64_t n, std::optional<Generator> generator, std::optional<ScalarType> dtype,
                    std::optional<Layout> layout, std::optional<Device> device,
                    std::optional<bool> pin_memory) {
  const ScalarType t = check_randperm_args(n, dtype);
  Tensor result = ember::empty({n}, t, layout, device, pin_memory, std::nullopt);
  const uint64_t steps = n > 1 ? static_cast<uint64_t>(n - 1) : 0;
  const PhiloxStream s = philox_reserve(generator, steps * 2, "randperm");
  std::vector<int64_t> perm(static_cast<size_t>(n));
  std::iota(perm.begin(), perm.end(), int64_t{0});
  s.for_each<2>(0, static_cast<int64_t>(steps), [&](int64_t i, const uint32_t* w) {
    const int64_t j = i + static_cast<int64_t>(word64(w) % static_cast<uint64_t>(n - i));
    std::swap(perm[static_cast<size_t>(i)], perm[static_cast<size_t>(j)]);
  });
  visit_real(t, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* out = static_cast<T*>(result.data_ptr());
    for (int64_t i = 0; i < n; ++i) out[i] = from_int64<T>(perm[static_cast<size_t>(i)]);
  });
  return result;
}

EMBER_CPU_NAMESPACE_END
}  // namespace native
}  // namespace ember
