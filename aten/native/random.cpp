// Random ops: argument checks (shared with the CPU kernels in cpu/random.cpp and
// cpu/random_sampling.cpp), Meta kernels (checks only, no data), and the composite
// factories (an empty tensor filled by an in-place op).
#include "aten/native/random.h"

#include <cmath>
#include <cstdint>
#include <limits>

#include "c10/util/Exception.h"
#include "ember/generated/ops/empty.h"
#include "ember/generated/ops/empty_like.h"
#include "ember/generated/ops/rand_like_native.h"
#include "ember/generated/ops/rand_native.h"
#include "ember/generated/ops/randint_like_native.h"
#include "ember/generated/ops/randint_native.h"
#include "ember/generated/ops/randn_like_native.h"
#include "ember/generated/ops/randn_native.h"
#include "ember/generated/ops/randperm.h"
#include "ember/generated/ops/to_native.h"

namespace ember {
namespace native {
namespace {

// The largest finite value of a floating dtype.
double floating_max(ScalarType t) {
  switch (t) {
    case ScalarType::Half: return 65504.0;
    case ScalarType::BFloat16: return 3.3895313892515355e38;
    case ScalarType::Float: return std::numeric_limits<float>::max();
    default: return std::numeric_limits<double>::max();
  }
}

// The integers a dtype holds exactly: [lo, hi].
struct IntBounds {
  int64_t lo, hi;
};
IntBounds int_bounds(ScalarType t) {
  switch (t) {
    case ScalarType::Bool: return {0, 1};
    case ScalarType::Byte: return {0, 255};
    case ScalarType::Char: return {-128, 127};
    case ScalarType::Short: return {-32768, 32767};
    case ScalarType::Int: return {INT32_MIN, INT32_MAX};
    case ScalarType::Long: return {INT64_MIN, INT64_MAX};
    default: {
      const int64_t m = int64_t{1} << floating_digits(t);
      return {-m, m};
    }
  }
}

void check_real_dtype(const Tensor& self, const char* op) {
  EMBER_CHECK_TYPE(!is_complex(self.dtype()) && self.dtype() != ScalarType::Undefined, op,
                   "(): expected 'self' to have a real dtype (integral, floating-point or bool), "
                   "but got ", self.dtype());
}

void check_floating_or_complex(ScalarType t, const char* op, const char* what) {
  EMBER_CHECK_TYPE(is_floating_point(t) || is_complex(t), op, "(): expected ", what,
                   " to have a floating-point or complex dtype, but got ", t);
}

}  // namespace

int floating_digits(ScalarType t) {
  switch (t) {
    case ScalarType::Half: return 11;
    case ScalarType::BFloat16: return 8;
    case ScalarType::Float: return 24;
    case ScalarType::Double: return 53;
    default: return 0;
  }
}

void check_no_internal_overlap(const Tensor& self, const char* op) {
  if (self.numel() == 0) return;  // writes nothing
  for (int64_t d = 0; d < self.dim(); ++d) {
    EMBER_CHECK_VALUE(self.strides()[d] != 0 || self.sizes()[d] <= 1, op,
                      "(): expected 'self' to have no elements sharing memory, but dimension ", d,
                      " has stride 0 (an expanded tensor); clone() it first");
  }
}

void check_uniform_args(const Tensor& self, double from, double to) {
  check_floating_or_complex(self.dtype(), "uniform_", "'self'");
  EMBER_CHECK_VALUE(from <= to, "uniform_(): expected 'from' <= 'to', but got from=", from,
                    " > to=", to);
  const ScalarType t = is_complex(self.dtype()) ? (self.dtype() == ScalarType::ComplexFloat
                                                       ? ScalarType::Float
                                                       : ScalarType::Double)
                                                : self.dtype();
  const double max = floating_max(t);
  EMBER_CHECK_VALUE(from >= -max && to <= max, "uniform_(): expected 'from' and 'to' to be "
                    "finite and within the range of ", t, " (+-", max, "), but got from=", from,
                    ", to=", to);
  EMBER_CHECK_VALUE(to - from <= max, "uniform_(): expected 'to' - 'from' to be at most ", max,
                    " (the largest ", t, "), but got from=", from, ", to=", to);
  check_no_internal_overlap(self, "uniform_");
}

void check_normal_args(const Tensor& self, double stdev) {
  check_floating_or_complex(self.dtype(), "normal_", "'self'");
  EMBER_CHECK_VALUE(stdev >= 0.0, "normal_(): expected 'std' to be >= 0, but got ", stdev);
  check_no_internal_overlap(self, "normal_");
}

RandomRange random_from_to_range(const Tensor& self, int64_t from, std::optional<int64_t> to) {
  check_real_dtype(self, "random_");
  check_no_internal_overlap(self, "random_");
  const IntBounds b = int_bounds(self.dtype());
  EMBER_CHECK_VALUE(!to || from < *to,
                    "random_(): expected 'from' to be less than 'to', but got from=", from,
                    " >= to=", *to);
  EMBER_CHECK_VALUE(from >= b.lo && from <= b.hi, "random_(): expected 'from' to be within [", b.lo,
                    ", ", b.hi, "] (the integers ", self.dtype(), " holds), but got ", from);
  if (!to) {
    // [from, hi]; 2^64 values (range 0) when from is int64's minimum on int64.
    return {from, static_cast<uint64_t>(b.hi) - static_cast<uint64_t>(from) + 1};
  }
  EMBER_CHECK_VALUE(*to - 1 <= b.hi, "random_(): expected 'to' - 1 to be within [", b.lo, ", ",
                    b.hi, "] (the integers ", self.dtype(), " holds), but got to=", *to);
  return {from, static_cast<uint64_t>(*to) - static_cast<uint64_t>(from)};
}

RandomRange random_default_range(const Tensor& self) {
  check_real_dtype(self, "random_");
  check_no_internal_overlap(self, "random_");
  // PyTorch's random_(): [0, max] for integral dtypes, [0, 2^digits] for floating ones.
  return {0, static_cast<uint64_t>(int_bounds(self.dtype()).hi) + 1};
}

void check_bernoulli_args(const Tensor& self, double p) {
  check_real_dtype(self, "bernoulli_");
  EMBER_CHECK_VALUE(p >= 0.0 && p <= 1.0, "bernoulli_(): expected 'p' to be in [0, 1], but got ",
                    p);
  check_no_internal_overlap(self, "bernoulli_");
}

std::vector<int64_t> check_bernoulli_tensor_args(const Tensor& self, const Tensor& p) {
  check_real_dtype(self, "bernoulli_");
  EMBER_CHECK_TYPE(is_floating_point(p.dtype()),
                   "bernoulli_(): expected 'p' to have a floating-point dtype, but got ",
                   p.dtype());
  EMBER_CHECK_VALUE(p.device() == self.device(), "bernoulli_(): expected 'p' on ", self.device(),
                    " (self's device), but got it on ", p.device());
  const int64_t dim = self.dim();
  const int64_t shift = dim - p.dim();
  bool ok = shift >= 0;
  std::vector<int64_t> strides(static_cast<size_t>(dim), 0);
  for (int64_t d = 0; ok && d < p.dim(); ++d) {
    const int64_t ps = p.sizes()[d], ss = self.sizes()[d + shift];
    ok = ps == ss || ps == 1;
    if (ok && ps == ss && ps != 1) strides[d + shift] = p.strides()[d];
  }
  EMBER_CHECK_VALUE(ok, "bernoulli_(): expected 'p' (sizes ", p.sizes(),
                    ") to broadcast to 'self' (sizes ", self.sizes(), ")");
  check_no_internal_overlap(self, "bernoulli_");
  return strides;
}

std::vector<int64_t> multinomial_result_sizes(const Tensor& self, int64_t num_samples,
                                              bool replacement) {
  EMBER_CHECK_TYPE(is_floating_point(self.dtype()),
                   "multinomial(): expected 'self' to have a floating-point dtype, but got ",
                   self.dtype());
  EMBER_CHECK_VALUE(self.dim() == 1 || self.dim() == 2,
                    "multinomial(): expected 'self' to be 1-D or 2-D, but got ", self.dim(), "-D");
  EMBER_CHECK_VALUE(num_samples > 0,
                    "multinomial(): expected 'num_samples' to be positive, but got ", num_samples);
  const int64_t categories = self.sizes().back();
  EMBER_CHECK_VALUE(replacement || num_samples <= categories,
                    "multinomial(): expected 'num_samples' to be at most the number of "
                    "categories (", categories, ") when sampling without replacement, but got ",
                    num_samples);
  EMBER_CHECK_VALUE(categories <= (int64_t{1} << 24),
                    "multinomial(): expected at most 2^24 categories, but got ", categories);
  if (self.dim() == 1) return {num_samples};
  return {self.sizes()[0], num_samples};
}

ScalarType check_randperm_args(int64_t n, std::optional<ScalarType> dtype) {
  EMBER_CHECK_VALUE(n >= 0, "randperm(): expected 'n' to be non-negative, but got ", n);
  const ScalarType t = dtype.value_or(ScalarType::Long);
  EMBER_CHECK_TYPE(is_floating_point(t) || is_integral(t, /*include_bool=*/false),
                   "randperm(): expected an integral or floating-point dtype, but got ", t);
  const int64_t hi = int_bounds(t).hi;
  EMBER_CHECK_VALUE(n == 0 || n - 1 <= hi, "randperm(): expected 'n' to be at most ",
                    static_cast<uint64_t>(hi) + 1,
                    " for ", t, " (larger values are not exact), but got ", n);
  return t;
}

// ---- Meta kernels: the checks of the CPU kernels, no data -------------------------------

Tensor& uniform_meta(Tensor& self, double from, double to, std::optional<Generator> generator) {
  check_uniform_args(self, from, to);
  return self;
}

Tensor& normal_meta(Tensor& self, double mean, double std, std::optional<Generator> generator) {
  check_normal_args(self, std);
  return self;
}

Tensor& random_from_meta(Tensor& self, int64_t from, std::optional<int64_t> to,
                         std::optional<Generator> generator) {
  random_from_to_range(self, from, to);
  return self;
}

Tensor& random_to_meta(Tensor& self, int64_t to, std::optional<Generator> generator) {
  random_from_to_range(self, 0, to);
  return self;
}

Tensor& random_meta(Tensor& self, std::optional<Generator> generator) {
  random_default_range(self);
  return self;
}

Tensor& bernoulli_float_meta(Tensor& self, double p, std::optional<Generator> generator) {
  check_bernoulli_args(self, p);
  return self;
}

Tensor& bernoulli_tensor_meta(Tensor& self, const Tensor& p, std::optional<Generator> generator) {
  check_bernoulli_tensor_args(self, p);
  return self;
}

Tensor multinomial_meta(const Tensor& self, int64_t num_samples, bool replacement,
                        std::optional<Generator> generator) {
  const std::vector<int64_t> sizes = multinomial_result_sizes(self, num_samples, replacement);
  return ember::empty(sizes, ScalarType::Long, std::nullopt, self.device(), std::nullopt,
                      std::nullopt);
}

Tensor randperm_meta(int64_t n, std::optional<Generator> generator, std::optional<ScalarType> dtype,
                     std::optional<Layout> layout, std::optional<Device> device,
                     std::optional<bool> pin_memory) {
  const ScalarType t = check_randperm_args(n, dtype);
  return ember::empty({n}, t, layout, device, pin_memory, std::nullopt);
}

// ---- Composites: an empty tensor and an in-place op --------------------------------------

Tensor rand(IntArrayRef size, std::optional<Generator> generator, std::optional<ScalarType> dtype,
            std::optional<Layout> layout, std::optional<Device> device,
            std::optional<bool> pin_memory) {
  if (dtype) check_floating_or_complex(*dtype, "rand", "'dtype'");
  Tensor t = ember::empty(size, dtype, layout, device, pin_memory, std::nullopt);
  t.uniform_(0.0, 1.0, generator);
  return t;
}

Tensor rand(IntArrayRef size, std::optional<ScalarType> dtype, std::optional<Layout> layout,
            std::optional<Device> device, std::optional<bool> pin_memory) {
  return native::rand(size, std::nullopt, dtype, layout, device, pin_memory);
}

Tensor randn(IntArrayRef size, std::optional<Generator> generator, std::optional<ScalarType> dtype,
             std::optional<Layout> layout, std::optional<Device> device,
             std::optional<bool> pin_memory) {
  if (dtype) check_floating_or_complex(*dtype, "randn", "'dtype'");
  Tensor t = ember::empty(size, dtype, layout, device, pin_memory, std::nullopt);
  t.normal_(0.0, 1.0, generator);
  return t;
}

Tensor randn(IntArrayRef size, std::optional<ScalarType> dtype, std::optional<Layout> layout,
             std::optional<Device> device, std::optional<bool> pin_memory) {
  return native::randn(size, std::nullopt, dtype, layout, device, pin_memory);
}

// randint's dtype defaults to int64 (the schema's `dtype=long`); a C++ caller passing no
// dtype (TensorOptions without one) gets int64 too.
Tensor randint(int64_t low, int64_t high, IntArrayRef size, std::optional<Generator> generator,
               std::optional<ScalarType> dtype, std::optional<Layout> layout,
               std::optional<Device> device, std::optional<bool> pin_memory) {
  EMBER_CHECK_VALUE(low < high, "randint(): expected 'low' to be less than 'high', but got low=",
                    low, " >= high=", high);
  Tensor t = ember::empty(size, dtype.value_or(ScalarType::Long), layout, device, pin_memory,
                          std::nullopt);
  t.random_(low, high, generator);
  return t;
}

Tensor randint(int64_t low, int64_t high, IntArrayRef size, std::optional<ScalarType> dtype,
               std::optional<Layout> layout, std::optional<Device> device,
               std::optional<bool> pin_memory) {
  return native::randint(low, high, size, std::nullopt, dtype, layout, device, pin_memory);
}

Tensor randint(int64_t high, IntArrayRef size, std::optional<Generator> generator,
               std::optional<ScalarType> dtype, std::optional<Layout> layout,
               std::optional<Device> device, std::optional<bool> pin_memory) {
  return native::randint(0, high, size, generator, dtype, layout, device, pin_memory);
}

Tensor randint(int64_t high, IntArrayRef size, std::optional<ScalarType> dtype,
               std::optional<Layout> layout, std::optional<Device> device,
               std::optional<bool> pin_memory) {
  return native::randint(0, high, size, std::nullopt, dtype, layout, device, pin_memory);
}

Tensor randperm(int64_t n, std::optional<ScalarType> dtype, std::optional<Layout> layout,
                std::optional<Device> device, std::optional<bool> pin_memory) {
  return ember::randperm(n, std::optional<Generator>(), dtype, layout, device, pin_memory);
}

Tensor rand_like(const Tensor& self, std::optional<Generator> generator,
                 std::optional<ScalarType> dtype, std::optional<Layout> layout,
                 std::optional<Device> device, std::optional<bool> pin_memory,
                 std::optional<MemoryFormat> memory_format) {
  check_floating_or_complex(dtype.value_or(self.dtype()), "rand_like", "the result");
  Tensor t = ember::empty_like(self, dtype, layout, device, pin_memory, memory_format);
  t.uniform_(0.0, 1.0, generator);
  return t;
}

Tensor rand_like(const Tensor& self, std::optional<ScalarType> dtype, std::optional<Layout> layout,
                 std::optional<Device> device, std::optional<bool> pin_memory,
                 std::optional<MemoryFormat> memory_format) {
  return native::rand_like(self, std::nullopt, dtype, layout, device, pin_memory, memory_format);
}

Tensor randn_like(const Tensor& self, std::optional<Generator> generator,
                  std::optional<ScalarType> dtype, std::optional<Layout> layout,
                  std::optional<Device> device, std::optional<bool> pin_memory,
                  std::optional<MemoryFormat> memory_format) {
  check_floating_or_complex(dtype.value_or(self.dtype()), "randn_like", "the result");
  Tensor t = ember::empty_like(self, dtype, layout, device, pin_memory, memory_format);
  t.normal_(0.0, 1.0, generator);
  return t;
}

Tensor randn_like(const Tensor& self, std::optional<ScalarType> dtype, std::optional<Layout> layout,
                  std::optional<Device> device, std::optional<bool> pin_memory,
                  std::optional<MemoryFormat> memory_format) {
  return native::randn_like(self, std::nullopt, dtype, layout, device, pin_memory, memory_format);
}

Tensor randint_like(const Tensor& self, int64_t low, int64_t high,
                    std::optional<Generator> generator, std::optional<ScalarType> dtype,
                    std::optional<Layout> layout, std::optional<Device> device,
                    std::optional<bool> pin_memory, std::optional<MemoryFormat> memory_format) {
  EMBER_CHECK_VALUE(low < high,
                    "randint_like(): expected 'low' to be less than 'high', but got low=", low,
                    " >= high=", high);
  Tensor t = ember::empty_like(self, dtype, layout, device, pin_memory, memory_format);
  t.random_(low, high, generator);
  return t;
}

Tensor randint_like(const Tensor& self, int64_t low, int64_t high, std::optional<ScalarType> dtype,
                    std::optional<Layout> layout, std::optional<Device> device,
                    std::optional<bool> pin_memory, std::optional<MemoryFormat> memory_format) {
  return native::randint_like(self, low, high, std::nullopt, dtype, layout, device, pin_memory,
                      memory_format);
}

Tensor randint_like(const Tensor& self, int64_t high, std::optional<Generator> generator,
                    std::optional<ScalarType> dtype, std::optional<Layout> layout,
                    std::optional<Device> device, std::optional<bool> pin_memory,
                    std::optional<MemoryFormat> memory_format) {
  return native::randint_like(self, 0, high, generator, dtype, layout, device, pin_memory,
                              memory_format);
}

Tensor randint_like(const Tensor& self, int64_t high, std::optional<ScalarType> dtype,
                    std::optional<Layout> layout, std::optional<Device> device,
                    std::optional<bool> pin_memory, std::optional<MemoryFormat> memory_format) {
  return native::randint_like(self, 0, high, std::nullopt, dtype, layout, device, pin_memory,
                      memory_format);
}

Tensor bernoulli(const Tensor& self, std::optional<Generator> generator) {
  EMBER_CHECK_TYPE(is_floating_point(self.dtype()),
                   "bernoulli(): expected 'self' (the probabilities) to have a floating-point "
                   "dtype, but got ", self.dtype());
  // Contiguous whatever self's strides, as PyTorch's.
  Tensor t = ember::empty_like(self, std::nullopt, std::nullopt, std::nullopt, std::nullopt,
                               MemoryFormat::Contiguous);
  t.bernoulli_(self, generator);
  return t;
}

Tensor bernoulli(const Tensor& self, double p, std::optional<Generator> generator) {
  Tensor t = ember::empty_like(self, std::nullopt, std::nullopt, std::nullopt, std::nullopt,
                               MemoryFormat::Contiguous);
  t.bernoulli_(p, generator);
  return t;
}

}  // namespace native
}  // namespace ember
