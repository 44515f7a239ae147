// The discrete Fourier transforms on the CPU: _fft_c2c, _fft_r2c and _fft_c2r, the three
// primitives torch.fft's functions are built on (python/ember/fft.py). Ember's own FFT
// (Note [FFT plan]); no library is linked for it.
// CPU copies: baseline only (one loop nest per radix over std::complex; the wide copies would need
// the capability dispatch of Note [CPU capabilities], left for when the FFT is vectorised).
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "aten/native/DimUtils.h"
#include "aten/native/Parallel.h"
#include "c10/util/Exception.h"
#include "ember/generated/ops/_fft_c2c_native.h"
#include "ember/generated/ops/_fft_c2r_native.h"
#include "ember/generated/ops/_fft_r2c_native.h"
#include "ember/generated/ops/cat.h"
#include "ember/generated/ops/empty.h"
#include "ember/generated/ops/movedim.h"
#include "ember/generated/ops/view_as_real.h"
#include "ember/generated/ops/zeros.h"

namespace ember::native {
namespace {

// Note [FFT plan]: a length n factors into radices 4, 2, 3, 5 and the other primes; a
// recursive decimation-in-time Cooley-Tukey pass per factor, with the twiddles of the full
// length computed once in double (w^j = exp(-2 pi i j / n), from integer j, so no error
// accumulates) and read at stride n / m for a sub-length m. A length with a prime factor
// above kMaxRadix goes through Bluestein's chirp-z: a circular convolution of a
// power-of-two length >= 2n - 1, itself a plan of radices 4 and 2. The inverse transform is
// the forward one of the conjugate, conjugated. Plans are cached per (n, element type).
constexpr int64_t kMaxRadix = 31;

// a * b without std::complex's NaN/inf recovery (a library call per product at -O3).
template <class T>
inline std::complex<T> cmul(std::complex<T> a, std::complex<T> b) {
  return {a.real() * b.real() - a.imag() * b.imag(), a.real() * b.imag() + a.imag() * b.real()};
}

template <class T>
struct Plan {
  using C = std::complex<T>;
  int64_t n = 0;
  std::vector<int64_t> radices;  // outermost first
  std::vector<C> twiddle;        // exp(-2 pi i j / n), j < n
  // Bluestein: the chirp exp(-pi i j^2 / n) and the transform of its conjugate, padded to m.
  std::shared_ptr<const Plan> inner;
  std::vector<C> chirp, chirp_hat;

  // out[k] = sum_j in[j * stride] w^(jk), for a sub-length len = n / (product of radices
  // before depth): the twiddles are read at stride tw_stride.
  void pass(const C* in, int64_t stride, C* out, int64_t len, size_t depth, int64_t tw_stride) const {
    if (len == 1) {
      out[0] = in[0];
      return;
    }
    const int64_t p = radices[depth], m = len / p;
    if (m == 1) {
      for (int64_t q = 0; q < p; ++q) out[q] = in[q * stride];  // the leaves, without a call each
    } else {
      for (int64_t q = 0; q < p; ++q) pass(in + q * stride, stride * p, out + q * m, m, depth + 1, tw_stride * p);
    }
    const C* w = twiddle.data();
    if (p == 2) {
      for (int64_t k = 0; k < m; ++k) {
        const C a = out[k], b = cmul(out[k + m], w[k * tw_stride]);
        out[k] = a + b;
        out[k + m] = a - b;
      }
      return;
    }
    if (p == 4) {
      for (int64_t k = 0; k < m; ++k) {
        const C a0 = out[k], a1 = cmul(out[k + m], w[k * tw_stride]),
                a2 = cmul(out[k + 2 * m], w[2 * k * tw_stride]), a3 = cmul(out[k + 3 * m], w[3 * k * tw_stride]);
        const C s02 = a0 + a2, d02 = a0 - a2, s13 = a1 + a3, d13 = a1 - a3;
        const C d13_rot(d13.imag(), -d13.real());  // -i * d13
        out[k] = s02 + s13;
        out[k + m] = d02 + d13_rot;
        out[k + 2 * m] = s02 - s13;
        out[k + 3 * m] = d02 - d13_rot;
      }
      return;
    }
    C t[kMaxRadix];
    const int64_t root = m * tw_stride;  // w_p = w^(n / p)
    for (int64_t k = 0; k < m; ++k) {
      for (int64_t r = 0; r < p; ++r) t[r] = cmul(out[k + r * m], w[r * k * tw_stride]);
      for (int64_t s = 0; s < p; ++s) {
        C acc = t[0];
        for (int64_t r = 1; r < p; ++r) acc += cmul(t[r], w[((r * s) % p) * root]);
        out[k + s * m] = acc;
      }
    }
  }

  // The forward transform of x (n values) into y; scratch holds m values for Bluestein.
  void forward(const C* x, C* y, std::vector<C>& scratch) const {
    if (!inner) {
      pass(x, 1, y, n, 0, 1);
      return;
    }
    const int64_t m = inner->n;
    scratch.assign(static_cast<size_t>(2 * m), C(0));
    C* a = scratch.data();
    C* a_hat = a + m;
    for (int64_t j = 0; j < n; ++j) a[j] = cmul(x[j], chirp[j]);
    inner->pass(a, 1, a_hat, m, 0, 1);
    for (int64_t j = 0; j < m; ++j) a_hat[j] = std::conj(cmul(a_hat[j], chirp_hat[j]));
    inner->pass(a_hat, 1, a, m, 0, 1);  // the inverse transform, as conj(F(conj(.)))
    const T scale = T(1) / static_cast<T>(m);
    for (int64_t k = 0; k < n; ++k) y[k] = cmul(std::conj(a[k]) * scale, chirp[k]);
  }
};

template <class T>
std::shared_ptr<const Plan<T>> make_plan(int64_t n);

template <class T>
std::shared_ptr<const Plan<T>> plan_for(int64_t n) {
  static std::mutex mu;
  static std::unordered_map<int64_t, std::shared_ptr<const Plan<T>>> cache;
  {
    std::lock_guard<std::mutex> lock(mu);
    auto it = cache.find(n);
    if (it != cache.end()) return it->second;
  }
  auto plan = make_plan<T>(n);
  std::lock_guard<std::mutex> lock(mu);
  if (cache.size() > 256) cache.clear();
  return cache.emplace(n, std::move(plan)).first->second;
}

template <class T>
std::shared_ptr<const Plan<T>> make_plan(int64_t n) {
  using C = std::complex<T>;
  auto plan = std::make_shared<Plan<T>>();
  plan->n = n;
  int64_t rest = n;
  bool bluestein = false;
  while (rest % 4 == 0) { plan->radices.push_back(4); rest /= 4; }
  while (rest % 2 == 0) { plan->radices.push_back(2); rest /= 2; }
  for (int64_t p = 3; rest > 1 && p * p <= rest; p += 2) {
    while (rest % p == 0) {
      if (p > kMaxRadix) bluestein = true;
      plan->radices.push_back(p);
      rest /= p;
    }
  }
  if (rest > 1) {
    if (rest > kMaxRadix) bluestein = true;
    plan->radices.push_back(rest);
  }
  const double pi = std::acos(-1.0);
  if (!bluestein) {
    plan->twiddle.resize(static_cast<size_t>(n));
    for (int64_t j = 0; j < n; ++j) {
      const double a = -2.0 * pi * static_cast<double>(j) / static_cast<double>(n);
      plan->twiddle[j] = C(static_cast<T>(std::cos(a)), static_cast<T>(std::sin(a)));
    }
    return plan;
  }
  plan->radices.clear();
  int64_t m = 1;
  while (m < 2 * n - 1) m *= 2;
  plan->inner = plan_for<T>(m);
  plan->chirp.resize(static_cast<size_t>(n));
  for (int64_t j = 0; j < n; ++j) {
    // j^2 mod 2n in integers: the angle pi j^2 / n stays exact for large j.
    const int64_t j2 = static_cast<int64_t>((static_cast<unsigned __int128>(j) * j) % (2 * n));
    const double a = -pi * static_cast<double>(j2) / static_cast<double>(n);
    plan->chirp[j] = C(static_cast<T>(std::cos(a)), static_cast<T>(std::sin(a)));
  }
  std::vector<C> b(static_cast<size_t>(m), C(0));
  b[0] = std::conj(plan->chirp[0]);
  for (int64_t j = 1; j < n; ++j) b[j] = b[m - j] = std::conj(plan->chirp[j]);
  plan->chirp_hat.resize(static_cast<size_t>(m));
  plan->inner->pass(b.data(), 1, plan->chirp_hat.data(), m, 0, 1);
  return plan;
}

// Transforms every row of a contiguous complex [rows, n] tensor in place.
template <class T>
void transform_rows(const Tensor& t, int64_t n, bool forward) {
  using C = std::complex<T>;
  if (t.numel() == 0 || n <= 1) return;
  const auto plan = plan_for<T>(n);
  C* data = static_cast<C*>(t.data_ptr());
  const int64_t rows = t.numel() / n;
  parallel_for(0, rows, std::max<int64_t>(1, 4096 / n), [&](int64_t r0, int64_t r1) {
    std::vector<C> in(static_cast<size_t>(n)), scratch;
    for (int64_t r = r0; r < r1; ++r) {
      C* row = data + r * n;
      if (forward) {
        std::copy(row, row + n, in.begin());
      } else {
        for (int64_t j = 0; j < n; ++j) in[j] = std::conj(row[j]);
      }
      plan->forward(in.data(), row, scratch);
      if (!forward) {
        for (int64_t j = 0; j < n; ++j) row[j] = std::conj(row[j]);
      }
    }
  });
}

// The one-sided transform of every row of a contiguous real [rows, n] tensor (n even) into
// out [rows, n / 2 + 1]: the packed complex transform of length n / 2 (z_j = x_2j + i x_2j+1)
// split into the even and odd samples' spectra, E_k + w^k O_k.
template <class T>
void real_rows(const Tensor& x, const Tensor& out, int64_t n) {
  using C = std::complex<T>;
  const int64_t h = n / 2, rows = x.numel() / n;
  if (rows == 0) return;
  const auto plan = plan_for<T>(h);
  std::vector<C> w(static_cast<size_t>(h + 1));
  const double pi = std::acos(-1.0);
  for (int64_t k = 0; k <= h; ++k) {
    const double a = -2.0 * pi * static_cast<double>(k) / static_cast<double>(n);
    w[k] = C(static_cast<T>(std::cos(a)), static_cast<T>(std::sin(a)));
  }
  const T* src = static_cast<const T*>(x.data_ptr());
  C* dst = static_cast<C*>(out.data_ptr());
  parallel_for(0, rows, std::max<int64_t>(1, 4096 / n), [&](int64_t r0, int64_t r1) {
    std::vector<C> z(static_cast<size_t>(h)), zf(static_cast<size_t>(h)), scratch;
    for (int64_t r = r0; r < r1; ++r) {
      const T* row = src + r * n;
      for (int64_t j = 0; j < h; ++j) z[j] = C(row[2 * j], row[2 * j + 1]);
      plan->forward(z.data(), zf.data(), scratch);
      C* o = dst + r * (h + 1);
      for (int64_t k = 0; k <= h; ++k) {
        const C zk = zf[k % h], zc = std::conj(zf[(h - k) % h]);
        const C even = (zk + zc) * T(0.5);
        const C diff = (zk - zc) * T(0.5);
        const C odd(diff.imag(), -diff.real());  // -i * diff
        o[k] = even + cmul(w[k], odd);
      }
    }
  });
}

// PyTorch's fft_norm_mode: 0 none, 1 by 1/sqrt(n), 2 by 1/n, n the signal's size.
void scale(Tensor& t, int64_t normalization, double signal_numel) {
  if (normalization == 0 || signal_numel == 0) return;
  t.mul_(normalization == 1 ? 1.0 / std::sqrt(signal_numel) : 1.0 / signal_numel);
}

std::vector<int64_t> check_dims(const char* op, const Tensor& self, IntArrayRef dim, int64_t normalization) {
  EMBER_CHECK(normalization >= 0 && normalization <= 2, op, "(): expected 'normalization' 0, 1 or 2, "
              "but got ", normalization);
  EMBER_CHECK(!dim.empty(), op, "(): expected at least one dim to transform");
  EMBER_CHECK(self.dim() > 0, op, "(): expected a tensor of at least one dimension");
  const DimVector dims = wrap_dims(op, "dim", dim, self.dim());
  return std::vector<int64_t>(dims.begin(), dims.end());
}

// PyTorch's order of the transformed dims: by self's strides, largest first (ties in the
// order given), the last one kept last for the real transforms (it is the halved one).
std::vector<int64_t> sorted_dims(const Tensor& self, std::vector<int64_t> dims, bool keep_last) {
  auto end = keep_last ? dims.end() - 1 : dims.end();
  std::stable_sort(dims.begin(), end, [&](int64_t a, int64_t b) { return self.strides()[a] > self.strides()[b]; });
  return dims;
}

// c2c along one dim of a complex tensor, in a new contiguous buffer moved back into place.
Tensor c2c_along(const Tensor& x, int64_t dim, bool forward) {
  const int64_t last = x.dim() - 1;
  Tensor rows = ember::movedim(x, dim, last).contiguous();
  if (rows.data_ptr() == x.data_ptr()) rows = rows.clone();
  const int64_t n = rows.sizes()[last];
  if (rows.scalar_type() == ScalarType::ComplexFloat) transform_rows<float>(rows, n, forward);
  else transform_rows<double>(rows, n, forward);
  return ember::movedim(rows, last, dim);
}

double signal_numel(const Tensor& t, const std::vector<int64_t>& dims) {
  double n = 1;
  for (int64_t d : dims) n *= static_cast<double>(t.sizes()[d]);
  return n;
}

// PyTorch's result layout: contiguous in the order of the batch dims sorted by self's
// strides (largest first, ties in dim order) and then the transformed dims as listed.
Tensor in_torch_layout(const Tensor& result, const Tensor& self, const std::vector<int64_t>& dims) {
  const int64_t ndim = self.dim();
  std::vector<int64_t> order;
  for (int64_t d = 0; d < ndim; ++d) {
    if (std::find(dims.begin(), dims.end(), d) == dims.end()) order.push_back(d);
  }
  std::stable_sort(order.begin(), order.end(),
                   [&](int64_t a, int64_t b) { return self.strides()[a] > self.strides()[b]; });
  order.insert(order.end(), dims.begin(), dims.end());
  std::vector<int64_t> inverse(static_cast<size_t>(ndim));
  for (int64_t i = 0; i < ndim; ++i) inverse[order[i]] = i;
  const Tensor permuted = result.permute(order);
  Tensor laid = permuted.is_contiguous() && permuted.data_ptr() != self.data_ptr() ? permuted
                                                                                    : permuted.contiguous();
  if (laid.data_ptr() == self.data_ptr()) laid = laid.clone();
  return laid.permute(inverse);
}

ScalarType complex_of(ScalarType t) {
  return t == ScalarType::Double ? ScalarType::ComplexDouble : ScalarType::ComplexFloat;
}

}  // namespace

Tensor fft_c2c_cpu(const Tensor& self, IntArrayRef dim, int64_t normalization, bool forward) {
  EMBER_CHECK(is_complex(self.scalar_type()), "_fft_c2c(): expected a complex64 or complex128 'self', "
              "but got ", self.scalar_type());
  const std::vector<int64_t> dims = sorted_dims(self, check_dims("_fft_c2c", self, dim, normalization), false);
  Tensor out = self;
  for (auto it = dims.rbegin(); it != dims.rend(); ++it) out = c2c_along(out, *it, forward);
  out = in_torch_layout(out, self, dims);
  scale(out, normalization, signal_numel(self, dims));
  return out;
}

Tensor fft_r2c_cpu(const Tensor& self, IntArrayRef dim, int64_t normalization, bool onesided) {
  const ScalarType st = self.scalar_type();
  EMBER_CHECK(st == ScalarType::Float || st == ScalarType::Double, "_fft_r2c(): expected a float32 or "
              "float64 'self', but got ", st);
  const std::vector<int64_t> dims = sorted_dims(self, check_dims("_fft_r2c", self, dim, normalization), true);
  const int64_t d = dims.back(), n = self.sizes()[d];
  Tensor out;
  if (n % 2 == 0 && n >= 2) {
    const int64_t last = self.dim() - 1;
    const Tensor rows = ember::movedim(self, d, last).contiguous();
    std::vector<int64_t> sizes(rows.sizes().begin(), rows.sizes().end());
    sizes[last] = n / 2 + 1;
    Tensor half = ember::empty(sizes, rows.options().dtype(complex_of(st)));
    if (st == ScalarType::Float) real_rows<float>(rows, half, n);
    else real_rows<double>(rows, half, n);
    if (!onesided && n > 2) {  // the other half by symmetry: X[n - k] = conj(X[k])
      half = ember::cat({half, half.narrow(last, 1, n / 2 - 1).flip({last}).conj_physical()}, last);
    }
    out = ember::movedim(half, last, d);
  } else {
    out = c2c_along(self.to(complex_of(st)), d, /*forward=*/true);
    if (onesided) out = out.narrow(d, 0, n / 2 + 1);
  }
  for (size_t i = dims.size() - 1; i-- > 0;) out = c2c_along(out, dims[i], true);
  out = in_torch_layout(out, self, dims);
  scale(out, normalization, signal_numel(self, dims));
  return out;
}

Tensor fft_c2r_cpu(const Tensor& self, IntArrayRef dim, int64_t normalization, int64_t last_dim_size) {
  EMBER_CHECK(is_complex(self.scalar_type()), "_fft_c2r(): expected a complex64 or complex128 'self', "
              "but got ", self.scalar_type());
  const std::vector<int64_t> dims = sorted_dims(self, check_dims("_fft_c2r", self, dim, normalization), true);
  const int64_t d = dims.back(), half = last_dim_size / 2 + 1;
  EMBER_CHECK(last_dim_size >= 1, "_fft_c2r(): expected 'last_dim_size' >= 1, but got ", last_dim_size);
  EMBER_CHECK(self.sizes()[d] == half, "_fft_c2r(): expected ", half, " elements (last_dim_size // 2 + 1) "
              "along dim ", d, " for last_dim_size ", last_dim_size, ", but got ", self.sizes()[d]);
  Tensor x = self;
  for (size_t i = 0; i + 1 < dims.size(); ++i) x = c2c_along(x, dims[i], /*forward=*/false);
  // The Hermitian extension along d: X[n - k] = conj(X[k]) for the bins above half.
  const int64_t mirrored = last_dim_size - half;
  if (mirrored > 0) {
    x = ember::cat({x, x.narrow(d, 1, mirrored).flip({d}).conj_physical()}, d);
  }
  Tensor full = c2c_along(x, d, /*forward=*/false);
  Tensor out = in_torch_layout(ember::view_as_real(full.contiguous()).select(-1, 0), self, dims);
  std::vector<int64_t> sizes(self.sizes().begin(), self.sizes().end());
  sizes[d] = last_dim_size;
  double n = 1;
  for (int64_t k : dims) n *= static_cast<double>(sizes[k]);
  scale(out, normalization, n);
  return out;
}

}  // namespace ember::native
