// Reductions built on a first reduction: var/std (and with the mean), norms and logsumexp.
// var/std are two-pass (the mean, then the squared deviations from it), which is as
// accurate as Welford and keeps both passes vectorised. The loops are in cpu/reduce.cpp.
#include <cmath>
#include <limits>

#include "aten/native/RangeFactories.h"
#include "aten/native/Reduce.h"
#include "c10/util/Exception.h"
#include "ember/generated/ops/linalg_vector_norm_native.h"
#include "ember/generated/ops/logsumexp_native.h"
#include "ember/generated/ops/norm_native.h"

namespace ember::native {
namespace {

bool is_inexact(ScalarType t) { return is_floating_point(t) || is_complex(t); }

bool is_half_like(ScalarType t) { return t == ScalarType::Half || t == ScalarType::BFloat16; }

int64_t reduced_numel(const Tensor& self, uint64_t mask) {
  int64_t n = 1;
  for (int64_t d = 0; d < self.dim(); ++d) {
    if ((mask >> d) & 1) n *= self.sizes()[d];
  }
  return n;
}

// The result written into out (resized; RuntimeError when its dtype cannot hold it).
// (var.out and std.out refuse a complex out for a real result; their correction_out forms
// take it, as in PyTorch.)
Tensor into_out(const Tensor& result, const Tensor* out, bool complex_ok = false) {
  if (!out) return result;
  EMBER_CHECK_NOT_IMPLEMENTED(complex_ok || is_complex(result.dtype()) || !is_complex(out->dtype()),
                              "a real result into a complex out= is not implemented");
  EMBER_CHECK(can_cast(result.dtype(), out->dtype()), "result type ", result.dtype(),
              " can't be cast to the desired output type ", out->dtype());
  resize_out(*out, result.sizes());
  copy_into_out(*out, result);
  return *out;
}

// var (root false) or std of self, and its mean (keepdim's shape).
std::pair<Tensor, Tensor> var_impl(const Tensor& self, std::optional<IntArrayRef> dim,
                                   double correction, bool keepdim, bool root) {
  EMBER_CHECK(is_inexact(self.dtype()), "std and var only support floating point and complex "
              "dtypes");
  const uint64_t mask = dim_mask(self, dim);
  const int64_t n = reduced_numel(self, mask);
  // 16-bit floats compute in float32 (both passes), rounded once at the end.
  const Tensor x = is_half_like(self.dtype()) ? self.to(ScalarType::Float) : self;
  const double inv_n = n == 0 ? std::numeric_limits<double>::quiet_NaN() : 1.0 / static_cast<double>(n);
  const Tensor mean = reduce_one(ReduceKind::Sum, x, mask, true, x.dtype(), nullptr, inv_n);
  ReduceArgs args;
  args.kind = ReduceKind::SquaredDeviation;
  args.center = &mean;
  const double dof = std::max(0.0, static_cast<double>(n) - correction);
  args.scale = dof == 0 ? std::numeric_limits<double>::infinity() : 1.0 / dof;
  args.root = root;
  const ScalarType real = real_of(x.dtype());
  Tensor var = run_reduction(args, x, mask, keepdim, {real, real}, {nullptr, nullptr}, 1)[0];
  Tensor mean_shaped = mean.view(reduced_sizes(self, mask, keepdim));
  if (x.dtype() != self.dtype()) {
    var = var.to(real_of(self.dtype()));
    mean_shaped = mean_shaped.to(self.dtype());
  }
  return {var, mean_shaped};
}

double correction_of(const std::optional<Scalar>& correction) {
  return correction ? correction->to_double() : 1.0;
}

}  // namespace

#define EMBER_VAR_STD(op, root)                                                                 \
  Tensor op##_cpu(const Tensor& self, bool unbiased) {                                         \
    return var_impl(self, std::nullopt, unbiased ? 1 : 0, false, root).first;                  \
  }                                                                                              \
  Tensor op##_dim_cpu(const Tensor& self, std::optional<IntArrayRef> dim, bool unbiased,       \
                      bool keepdim) {                                                            \
    return var_impl(self, dim, unbiased ? 1 : 0, keepdim, root).first;                         \
  }                                                                                              \
  Tensor op##_correction_cpu(const Tensor& self, std::optional<IntArrayRef> dim,               \
                             const std::optional<Scalar>& correction, bool keepdim) {           \
    return var_impl(self, dim, correction_of(correction), keepdim, root).first;                \
  }                                                                                              \
  Tensor& op##_out_cpu(const Tensor& self, std::optional<IntArrayRef> dim, bool unbiased,      \
                       bool keepdim, Tensor& out) {                                              \
    into_out(var_impl(self, dim, unbiased ? 1 : 0, keepdim, root).first, &out);                \
    return out;                                                                                  \
  }                                                                                              \
  Tensor& op##_correction_out_cpu(const Tensor& self, std::optional<IntArrayRef> dim,          \
                                  const std::optional<Scalar>& correction, bool keepdim,        \
                                  Tensor& out) {                                                 \
    into_out(var_impl(self, dim, correction_of(correction), keepdim, root).first, &out, true); \
    return out;                                                                                  \
  }                                                                                              \
  std::tuple<Tensor, Tensor> op##_mean_cpu(const Tensor& self, bool unbiased) {                \
    auto [v, m] = var_impl(self, std::nullopt, unbiased ? 1 : 0, false, root);                 \
    return {v, m};                                                                               \
  }                                                                                              \
  std::tuple<Tensor, Tensor> op##_mean_dim_cpu(const Tensor& self,                             \
                                               std::optional<IntArrayRef> dim, bool unbiased,   \
                                               bool keepdim) {                                   \
    auto [v, m] = var_impl(self, dim, unbiased ? 1 : 0, keepdim, root);                        \
    return {v, m};                                                                               \
  }                                                                                              \
  std::tuple<Tensor, Tensor> op##_mean_correction_cpu(                                          \
      const Tensor& self, std::optional<IntArrayRef> dim,                                       \
      const std::optional<Scalar>& correction, bool keepdim) {                                  \
    auto [v, m] = var_impl(self, dim, correction_of(correction), keepdim, root);               \
    return {v, m};                                                                               \
  }
EMBER_VAR_STD(var, false)
EMBER_VAR_STD(std, true)
#undef EMBER_VAR_STD

// ---- norms --------------------------------------------------------------------------------

namespace {

Tensor vector_norm_impl(const char* op, const Tensor& self, double p,
                        std::optional<IntArrayRef> dim, bool keepdim,
                        std::optional<ScalarType> dtype, const Tensor* out) {
  EMBER_CHECK(is_inexact(self.dtype()), op, ": Expected a floating point or complex tensor as "
              "input. Got ", self.dtype());
  if (dtype) {
    EMBER_CHECK(is_inexact(*dtype), op, ": dtype should be floating point or complex, but got ",
                *dtype);
    EMBER_CHECK(is_complex(*dtype) == is_complex(self.dtype()), op, ": dtype should be ",
                is_complex(self.dtype()) ? "complex" : "real", " for ",
                is_complex(self.dtype()) ? "complex" : "real", " inputs, but got ", *dtype);
    EMBER_CHECK(promote_types(self.dtype(), *dtype) == *dtype, op, ": the dtype of the input (",
                self.dtype(), ") should be convertible without narrowing to the specified dtype (",
                *dtype, ")");
  }
  const uint64_t mask = dim_mask(self, dim);
  if (self.numel() == 0 && (p < 0 || std::isinf(p))) {
    EMBER_CHECK(self.dim() > 0 && mask != dim_mask(self, std::nullopt), op, " cannot compute the ",
                p, " norm on an empty tensor because the operation does not have an identity");
    for (int64_t d = 0; d < self.dim(); ++d) {
      EMBER_CHECK(!(((mask >> d) & 1) && self.sizes()[d] == 0), op, " cannot compute the ", p,
                  " norm on the dimension ", d, "because this dimension is empty and the "
                  "operation does not have an identity");
    }
  }
  const Tensor x = dtype ? self.to(*dtype) : self;
  const ScalarType real = real_of(x.dtype());
  if (out) check_out_dtype(*out, real);
  ReduceArgs args;
  args.kind = ReduceKind::NormP;
  args.p = p;
  return run_reduction(args, x, mask, keepdim, {real, real}, {out, nullptr}, 1)[0];
}

}  // namespace

Tensor linalg_vector_norm_dense(const Tensor& self, const Scalar& ord, std::optional<IntArrayRef> dim,
                              bool keepdim, std::optional<ScalarType> dtype) {
  return vector_norm_impl("linalg.vector_norm", self, ord.to_double(), dim, keepdim, dtype, nullptr);
}

Tensor& linalg_vector_norm_out_dense(const Tensor& self, const Scalar& ord,
                                   std::optional<IntArrayRef> dim, bool keepdim,
                                   std::optional<ScalarType> dtype, Tensor& out) {
  vector_norm_impl("linalg.vector_norm", self, ord.to_double(), dim, keepdim, dtype, &out);
  return out;
}

Tensor norm_Scalar_cpu(const Tensor& self, const Scalar& p) {
  return vector_norm_impl("linalg.vector_norm", self, p.to_double(), std::nullopt, false,
                          std::nullopt, nullptr);
}

Tensor norm_ScalarOpt_dim_cpu(const Tensor& self, const std::optional<Scalar>& p, IntArrayRef dim,
                              bool keepdim) {
  return vector_norm_impl("linalg.vector_norm", self, p ? p->to_double() : 2.0, dim, keepdim,
                          std::nullopt, nullptr);
}

Tensor& norm_out_dense(const Tensor& self, const std::optional<Scalar>& p, IntArrayRef dim,
                     bool keepdim, Tensor& out) {
  vector_norm_impl("linalg.vector_norm", self, p ? p->to_double() : 2.0, dim, keepdim,
                   std::nullopt, &out);
  return out;
}

// ---- logsumexp ----------------------------------------------------------------------------

namespace {

Tensor logsumexp_impl(const Tensor& self, IntArrayRef dim, bool keepdim, const Tensor* out) {
  EMBER_CHECK_NOT_IMPLEMENTED(!is_complex(self.dtype()), "logsumexp(): complex inputs are not "
                              "supported yet");
  if (out) {
    EMBER_CHECK(is_floating_point(out->dtype()), "logsumexp(): Expected floating point type for "
                "result tensor, but got: ", out->dtype());
  }
  // Integers compute in the default float dtype; 16-bit floats keep their dtype (the
  // kernel accumulates in float32) with the maxima in float32.
  ScalarType compute = self.dtype();
  if (is_integral(compute, /*include_bool=*/true)) compute = get_default_dtype();
  const Tensor x = self.to(compute);
  const uint64_t mask = dim_mask(self, dim);
  Tensor maxes = reduce_one(ReduceKind::Max, x, mask, true, compute, nullptr, 1.0);
  if (is_half_like(compute)) maxes = maxes.to(ScalarType::Float);
  ReduceArgs args;
  args.kind = ReduceKind::ExpShifted;
  args.center = &maxes;
  return run_reduction(args, x, mask, keepdim, {compute, compute}, {out, nullptr}, 1)[0];
}

}  // namespace

Tensor logsumexp_dense(const Tensor& self, IntArrayRef dim, bool keepdim) {
  return logsumexp_impl(self, dim, keepdim, nullptr);
}

Tensor& logsumexp_out_dense(const Tensor& self, IntArrayRef dim, bool keepdim, Tensor& out) {
  logsumexp_impl(self, dim, keepdim, &out);
  return out;
}

}  // namespace ember::native
