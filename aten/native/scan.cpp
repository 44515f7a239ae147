// The scan family's front ends: cumsum, cumprod, cummax, cummin and logcumsumexp, with
// their in-place and out= forms. Each checks its arguments, settles the result dtype by
// PyTorch's rules, gives the kernel (cpu/scan.cpp) contiguous operands and copies into an
// out= tensor the kernel could not write directly.
#include "aten/native/scan.h"

#include <optional>
#include <tuple>

#include "aten/native/DimUtils.h"
#include "aten/native/RangeFactories.h"
#include "aten/native/Reduce.h"
#include "c10/util/Exception.h"
#include "ember/generated/ops/empty.h"

namespace ember::native {
namespace {

// cumsum's and cumprod's result dtype: dtype=, else out's, else self's (integers and bool
// as int64).
ScalarType accumulate_type(const Tensor& self, std::optional<ScalarType> dtype, const Tensor* out) {
  if (dtype) {
    if (out) check_out_dtype(*out, *dtype);
    return *dtype;
  }
  if (out) return out->scalar_type();
  return is_integral(self.scalar_type(), /*include_bool=*/true) ? ScalarType::Long : self.scalar_type();
}

// The tensor the kernel writes: out itself when it is contiguous and of the result's
// dtype (after resizing), else a new contiguous tensor.
Tensor target_for(const char* name, const Tensor* out, const Tensor& self, ScalarType dtype) {
  if (out) {
    resize_out(*out, self.sizes());
    check_no_internal_overlap(name, out->sizes(), out->strides());
    if (out->scalar_type() == dtype && out->is_contiguous()) return *out;
  }
  return ember::empty(self.sizes(), self.options().dtype(dtype));
}

void finish(const Tensor* out, const Tensor& result) {
  if (out && !result.is_same(*out)) out->copy_(result);
}

// cumsum and cumprod, into out when given.
Tensor sum_like(ScanOp op, const char* name, const Tensor& self, int64_t dim,
                std::optional<ScalarType> dtype, const Tensor* out) {
  const int64_t d = wrap_dim(name, "dim", dim, self.dim());
  const ScalarType dt = accumulate_type(self, dtype, out);
  // As PyTorch, a 0-d or empty input is copied (or left) without its dtype's loop.
  EMBER_CHECK_NOT_IMPLEMENTED(dt != ScalarType::Bool || self.dim() == 0 || self.numel() == 0, name,
                              "(): not implemented for a bool result (pass dtype=ember.int64, or an "
                              "int64 out)");
  const Tensor x = self.to(dt).contiguous();
  Tensor result = target_for(name, out, self, dt);
  if (result.numel() > 0) {
    static const auto kernel = EMBER_CPU_KERNEL(scan_kernel_cpu);
    kernel(op, x, result, Tensor(), d);
  }
  finish(out, result);
  return out ? *out : result;
}

// In-place cumsum_ and cumprod_: the result keeps self's dtype.
Tensor& sum_like_(ScanOp op, const char* name, Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  EMBER_CHECK(!dtype || *dtype == self.scalar_type(), "Bad in-place call: input tensor dtype ",
              self.scalar_type(), " and output tensor dtype ", *dtype, " should match");
  check_no_internal_overlap(name, self.sizes(), self.strides());
  sum_like(op, name, self, dim, self.scalar_type(), &self);
  return self;
}

void check_out_exact(const char* name, const Tensor& out, ScalarType expected) {
  EMBER_CHECK(out.scalar_type() == expected, name, "(): expected scalar_type ", expected,
              " but found ", out.scalar_type());
}

// cummax and cummin, into values and indices when given.
std::tuple<Tensor, Tensor> minmax_like(ScanOp op, const char* name, const Tensor& self, int64_t dim,
                                       const Tensor* values, const Tensor* indices) {
  // out='s dtypes first, as PyTorch checks them.
  if (values) {
    check_out_exact(name, *values, self.scalar_type());
    check_out_exact(name, *indices, ScalarType::Long);
  }
  const int64_t d = wrap_dim(name, "dim", dim, self.dim());
  EMBER_CHECK_NOT_IMPLEMENTED(!is_complex(self.scalar_type()), name, "(): not implemented for complex "
                              "tensors (", self.scalar_type(), ")");
  const Tensor x = self.contiguous();
  Tensor v = target_for(name, values, self, self.scalar_type());
  Tensor i = target_for(name, indices, self, ScalarType::Long);
  if (v.numel() > 0) {
    static const auto kernel = EMBER_CPU_KERNEL(scan_kernel_cpu);
    kernel(op, x, v, i, d);
  }
  finish(values, v);
  finish(indices, i);
  if (values) return {*values, *indices};
  return {v, i};
}

Tensor logcumsumexp_impl(const Tensor& self, int64_t dim, const Tensor* out) {
  const int64_t d = wrap_dim("logcumsumexp", "dim", dim, self.dim());
  const ScalarType dt = self.scalar_type();
  EMBER_CHECK_NOT_IMPLEMENTED(is_floating_point(dt) || is_complex(dt), "logcumsumexp(): expected "
                              "'self' of a floating or complex dtype, but got ", dt);
  if (out) check_out_exact("logcumsumexp", *out, dt);
  const Tensor x = self.contiguous();
  Tensor result = target_for("logcumsumexp", out, self, dt);
  if (result.numel() > 0) {
    static const auto kernel = EMBER_CPU_KERNEL(scan_kernel_cpu);
    kernel(ScanOp::LogSumExp, x, result, Tensor(), d);
  }
  finish(out, result);
  return out ? *out : result;
}

}  // namespace

Tensor cumsum_cpu(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  return sum_like(ScanOp::Sum, "cumsum", self, dim, dtype, nullptr);
}

Tensor& cumsum__cpu(Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  return sum_like_(ScanOp::Sum, "cumsum_", self, dim, dtype);
}

Tensor& cumsum_out_cpu(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype, Tensor& out) {
  sum_like(ScanOp::Sum, "cumsum", self, dim, dtype, &out);
  return out;
}

Tensor cumprod_cpu(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  return sum_like(ScanOp::Prod, "cumprod", self, dim, dtype, nullptr);
}

Tensor& cumprod__cpu(Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  return sum_like_(ScanOp::Prod, "cumprod_", self, dim, dtype);
}

Tensor& cumprod_out_cpu(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype, Tensor& out) {
  sum_like(ScanOp::Prod, "cumprod", self, dim, dtype, &out);
  return out;
}

std::tuple<Tensor, Tensor> cummax_cpu(const Tensor& self, int64_t dim) {
  return minmax_like(ScanOp::Max, "cummax", self, dim, nullptr, nullptr);
}

std::tuple<Tensor, Tensor> cummax_out_cpu(const Tensor& self, int64_t dim, Tensor& values, Tensor& indices) {
  return minmax_like(ScanOp::Max, "cummax", self, dim, &values, &indices);
}

std::tuple<Tensor, Tensor> cummin_cpu(const Tensor& self, int64_t dim) {
  return minmax_like(ScanOp::Min, "cummin", self, dim, nullptr, nullptr);
}

std::tuple<Tensor, Tensor> cummin_out_cpu(const Tensor& self, int64_t dim, Tensor& values, Tensor& indices) {
  return minmax_like(ScanOp::Min, "cummin", self, dim, &values, &indices);
}

Tensor logcumsumexp_cpu(const Tensor& self, int64_t dim) { return logcumsumexp_impl(self, dim, nullptr); }

Tensor& logcumsumexp_out_cpu(const Tensor& self, int64_t dim, Tensor& out) {
  logcumsumexp_impl(self, dim, &out);
  return out;
}

}  // namespace ember::native
