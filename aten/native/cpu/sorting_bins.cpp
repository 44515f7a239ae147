// Binning on the CPU: searchsorted and bucketize (each value's position among sorted
// boundaries), histc and bincount (counts per bin).
// CPU copies: baseline only (binary searches and scattered counts, not vector loops).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "aten/native/CpuCapability.h"
#include "aten/native/Dispatch.h"
#include "aten/native/Parallel.h"
#include "aten/native/sorting.h"
#include "c10/util/Exception.h"
#include "ember/generated/ops/bucketize_native.h"
#include "ember/generated/ops/empty.h"
#include "ember/generated/ops/scalar_tensor.h"
#include "ember/generated/ops/zeros.h"

namespace ember::native {
EMBER_CPU_NAMESPACE_BEGIN

// ---- searchsorted, bucketize ----------------------------------------------------------------

namespace {

Tensor searchsorted_impl(const Tensor& sorted_sequence, const Tensor& values, bool out_int32, bool right,
                         std::optional<std::string_view> side, const std::optional<Tensor>& sorter,
                         const char* op) {
  right = check_searchsorted_args(op, sorted_sequence, values, right, side, sorter);
  const int64_t nd = sorted_sequence.dim();
  Tensor seq = sorted_sequence;
  if (sorter) seq = sorted_sequence.gather(-1, *sorter);
  const int64_t m = seq.sizes().back();
  const Tensor b = seq.to(ScalarType::Double).contiguous();
  const Tensor v = values.to(ScalarType::Double).contiguous();
  Tensor out = ember::empty(values.sizes(), TensorOptions().dtype(out_int32 ? ScalarType::Int : ScalarType::Long));
  const double* bp = static_cast<const double*>(b.data_ptr());
  const double* vp = static_cast<const double*>(v.data_ptr());
  const int64_t n = values.numel();
  const int64_t per_row = nd > 1 ? (values.dim() > 0 ? values.sizes().back() : 1) : n;
  dispatch_all_types(out.scalar_type(), op, [&](auto tag) {
    using I = typename decltype(tag)::type;
    if constexpr (std::is_same_v<I, int64_t> || std::is_same_v<I, int32_t>) {
      I* op_ = static_cast<I*>(out.data_ptr());
      parallel_for(0, n, 4096, [&](int64_t lo, int64_t hi) {
        for (int64_t i = lo; i < hi; ++i) {
          const double* row = bp + (nd > 1 ? (i / std::max<int64_t>(per_row, 1)) * m : 0);
          const double x = vp[i];
          const double* pos = right ? std::upper_bound(row, row + m, x, [](double a, double c) { return a < c || (std::isnan(c) && !std::isnan(a)); })
                                    : std::lower_bound(row, row + m, x, [](double c, double a) { return c < a || (std::isnan(a) && !std::isnan(c)); });
          op_[i] = static_cast<I>(pos - row);
        }
      });
    }
  });
  return out;
}

Tensor scalar_as_tensor(const Scalar& s) {
  return ember::scalar_tensor(s, TensorOptions().dtype(s.is_floating_point() ? ScalarType::Double : ScalarType::Long));
}

}  // namespace

Tensor searchsorted_cpu(const Tensor& sorted_sequence, const Tensor& self, bool out_int32, bool right,
                        std::optional<std::string_view> side, const std::optional<Tensor>& sorter) {
  return searchsorted_impl(sorted_sequence, self, out_int32, right, side, sorter, "searchsorted");
}

Tensor searchsorted_cpu(const Tensor& sorted_sequence, const Scalar& self, bool out_int32, bool right,
                        std::optional<std::string_view> side, const std::optional<Tensor>& sorter) {
  EMBER_CHECK(sorted_sequence.dim() == 1, "searchsorted(): input value can be a scalar only when "
              "boundaries tensor dimension is 1, but we got boundaries tensor dim(", sorted_sequence.dim(),
              ") and input value's dim(0) numel(1)");
  return searchsorted_impl(sorted_sequence, scalar_as_tensor(self), out_int32, right, side, sorter, "searchsorted");
}

Tensor bucketize_cpu(const Tensor& self, const Tensor& boundaries, bool out_int32, bool right) {
  EMBER_CHECK(boundaries.dim() == 1, "bucketize(): boundaries tensor must be 1 dimension, but got dim(",
              boundaries.dim(), ")");
  return searchsorted_impl(boundaries, self, out_int32, right, std::nullopt, std::nullopt, "bucketize");
}

Tensor bucketize_cpu(const Scalar& self, const Tensor& boundaries, bool out_int32, bool right) {
  return bucketize_cpu(scalar_as_tensor(self), boundaries, out_int32, right);
}

// ---- histc, bincount ------------------------------------------------------------------------

Tensor histc_cpu(const Tensor& self, int64_t bins, const Scalar& min, const Scalar& max) {
  EMBER_CHECK_NOT_IMPLEMENTED(is_floating_point(self.scalar_type()), "histc(): not implemented for '",
                              self.scalar_type(), "'");
  EMBER_CHECK(bins > 0, "histc(): bins must be > 0, but got ", bins);
  Tensor out = ember::zeros({bins}, TensorOptions().dtype(self.scalar_type()));
  dispatch_all_types(self.scalar_type(), "histc", [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_floating_point_v<T> || std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>) {
      using A = std::conditional_t<std::is_same_v<T, double>, double, float>;
      const Tensor flat = self.reshape({-1}).contiguous();
      const T* p = static_cast<const T*>(flat.data_ptr());
      const int64_t n = flat.numel();
      A lo = static_cast<A>(min.to_double()), hi = static_cast<A>(max.to_double());
      if (lo == hi && n > 0) {
        lo = hi = static_cast<A>(p[0]);
        for (int64_t i = 0; i < n; ++i) {
          const A x = static_cast<A>(p[i]);
          if (!(x >= lo)) lo = std::isnan(x) ? lo : x;
          if (!(x <= hi)) hi = std::isnan(x) ? hi : x;
        }
      }
      if (lo == hi) {
        lo -= 1;
        hi += 1;
      }
      EMBER_CHECK(std::isfinite(lo) && std::isfinite(hi), "histc(): range of [", lo, ", ", hi,
                  "] is not finite");
      EMBER_CHECK(lo < hi, "histc(): max must be larger than min");
      // PyTorch's binning for histc: the linear position in self's precision (no search among
      // edges); the last bin includes its right edge.
      T* o = static_cast<T*>(out.data_ptr());
      for (int64_t i = 0; i < n; ++i) {
        const A x = static_cast<A>(p[i]);
        if (!(x >= lo && x <= hi)) continue;
        int64_t pos = static_cast<int64_t>((x - lo) * static_cast<A>(bins) / (hi - lo));
        if (pos == bins) pos -= 1;
        o[pos] = static_cast<T>(static_cast<A>(o[pos]) + 1);
      }
    }
  });
  return out;
}

Tensor bincount_cpu(const Tensor& self, const std::optional<Tensor>& weights, int64_t minlength) {
  EMBER_CHECK_NOT_IMPLEMENTED(is_integral(self.scalar_type(), false), "bincount(): not implemented for '",
                              self.scalar_type(), "'");
  EMBER_CHECK(self.dim() == 1 && is_integral(self.scalar_type(), false), "bincount(): only supports 1-d "
              "non-negative integral inputs, but got a ", self.dim(), "-d ", self.scalar_type(), " tensor");
  EMBER_CHECK(minlength >= 0, "bincount(): minlength should be >= 0, but got ", minlength);
  if (weights && self.numel() > 0) {
    EMBER_CHECK(weights->dim() == 1 && weights->sizes()[0] == self.sizes()[0], "bincount(): weights "
                "should be 1-d and have the same length as input");
  }
  if (self.numel() == 0) return ember::zeros({minlength}, TensorOptions().dtype(ScalarType::Long));
  const Tensor v = self.to(ScalarType::Long).contiguous();
  const int64_t* p = static_cast<const int64_t*>(v.data_ptr());
  const int64_t n = v.numel();
  int64_t top = -1;
  for (int64_t i = 0; i < n; ++i) {
    EMBER_CHECK(p[i] >= 0, "bincount(): only supports 1-d non-negative integral inputs, but found ", p[i]);
    top = std::max(top, p[i]);
  }
  const int64_t bins = std::max(top + 1, minlength);
  if (!weights) {
    Tensor out = ember::zeros({bins}, TensorOptions().dtype(ScalarType::Long));
    int64_t* o = static_cast<int64_t*>(out.data_ptr());
    for (int64_t i = 0; i < n; ++i) ++o[p[i]];
    return out;
  }
  const ScalarType out_type = weights->scalar_type() == ScalarType::Float ? ScalarType::Float : ScalarType::Double;
  const Tensor w = weights->to(ScalarType::Double).contiguous();
  const double* wp = static_cast<const double*>(w.data_ptr());
  std::vector<double> acc(static_cast<size_t>(bins), 0.0);
  for (int64_t i = 0; i < n; ++i) acc[p[i]] += wp[i];
  Tensor out = ember::empty({bins}, TensorOptions().dtype(ScalarType::Double));
  if (bins > 0) std::memcpy(out.data_ptr(), acc.data(), acc.size() * sizeof(double));
  return out.to(out_type);
}

EMBER_CPU_NAMESPACE_END
}  // namespace ember::native
