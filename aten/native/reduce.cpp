// Reductions: the plan (Note [Reduction plan]), dimension and dtype rules, the meta helpers
// of the reduction functors (Note [Reduction functors]), and the kernels the YAML names for
// sum, nansum, mean, nanmean, prod, max/min, amax/amin, argmax/argmin, aminmax, all/any and
// count_nonzero. var/std, norms and logsumexp are in reduce_stats.cpp.
// The loops are in cpu/reduce.cpp (CUDA's in cuda/reduce.cu: these kernels serve both).
#include <algorithm>
#include <atomic>
#include <cstring>
#include <limits>

#include "aten/native/RangeFactories.h"
#include "aten/native/Reduce.h"
#include "c10/util/Exception.h"
// The kernels' declarations: exported, libember_cuda registers them for CUDA too.
#include "ember/generated/ops/all_native.h"
#include "ember/generated/ops/amax_native.h"
#include "ember/generated/ops/amin_native.h"
#include "ember/generated/ops/aminmax_native.h"
#include "ember/generated/ops/any_native.h"
#include "ember/generated/ops/argmax_native.h"
#include "ember/generated/ops/argmin_native.h"
#include "ember/generated/ops/max_native.h"
#include "ember/generated/ops/mean_native.h"
#include "ember/generated/ops/min_native.h"
#include "ember/generated/ops/nanmean_native.h"
#include "ember/generated/ops/nansum_native.h"
#include "ember/generated/ops/prod_native.h"
#include "ember/generated/ops/sum_native.h"
#include "ember/generated/ops/count_nonzero_native.h"
#include "ember/generated/ops/div.h"
#include "ember/generated/ops/empty.h"

namespace ember::native {

// ---- the plan -------------------------------------------------------------------------------

namespace {

// Sorts dims fastest first by input stride and merges neighbours that step as one.
int order_and_merge(ReduceDim* dims, int n) {
  std::stable_sort(dims, dims + n, [](const ReduceDim& a, const ReduceDim& b) {
    return a.in_stride < b.in_stride;
  });
  int m = 0;
  for (int i = 0; i < n; ++i) {
    if (m > 0) {
      ReduceDim& last = dims[m - 1];
      if (dims[i].in_stride == last.in_stride * last.size &&
          dims[i].out_stride == last.out_stride * last.size) {
        last.size *= dims[i].size;
        continue;
      }
    }
    dims[m++] = dims[i];
  }
  return m;
}

}  // namespace

ReducePlan make_reduce_plan(const Tensor& self, uint64_t mask) {
  const int64_t ndim = self.dim();
  EMBER_CHECK(ndim <= kMaxReduceDims, "reductions support at most ", kMaxReduceDims,
              " dimensions, but got a ", ndim, "-D input");
  ReducePlan plan;
  int64_t out_stride = 1;
  for (int64_t d = ndim - 1; d >= 0; --d) {
    const int64_t size = self.sizes()[d];
    const bool reduced = (mask >> d) & 1;
    if (reduced) {
      plan.numel_reduced *= size;
    } else {
      plan.numel_out *= size;
    }
    if (size == 1) continue;  // adds nothing to the walk
    if (reduced) {
      plan.reduced[plan.n_reduced++] = {size, self.strides()[d], 0};
    } else {
      plan.kept[plan.n_kept++] = {size, self.strides()[d], out_stride};
      out_stride *= size;
    }
  }
  plan.n_reduced = order_and_merge(plan.reduced.data(), plan.n_reduced);
  plan.n_kept = order_and_merge(plan.kept.data(), plan.n_kept);
  plan.inner = plan.n_kept == 0 ||
               (plan.n_reduced > 0 && plan.reduced[0].in_stride < plan.kept[0].in_stride);
  return plan;
}

// ---- dimensions, shapes and outputs -------------------------------------------------------

int64_t wrap_dim(int64_t dim, int64_t ndim) {
  const int64_t n = std::max<int64_t>(ndim, 1);  // a 0-d tensor takes dim 0 and -1
  EMBER_CHECK_INDEX(dim >= -n && dim < n, "Dimension out of range (expected to be in range of [",
                    -n, ", ", n - 1, "], but got ", dim, ")");
  return dim < 0 ? dim + n : dim;
}

uint64_t dim_mask(const Tensor& self, std::optional<IntArrayRef> dims) {
  const int64_t ndim = self.dim();
  if (!dims.has_value() || dims->empty()) return ndim >= 64 ? ~uint64_t(0) : (uint64_t(1) << ndim) - 1;
  uint64_t mask = 0;
  for (int64_t d : *dims) {
    const int64_t w = wrap_dim(d, ndim);
    EMBER_CHECK(!((mask >> w) & 1), "dim ", w, " appears multiple times in the list of dims");
    mask |= uint64_t(1) << w;
  }
  if (ndim == 0) mask = 0;  // a 0-d tensor's only "dimension" is no dimension
  return mask;
}

DimVector reduced_sizes(const Tensor& self, uint64_t mask, bool keepdim) {
  DimVector sizes;
  for (int64_t d = 0; d < self.dim(); ++d) {
    if (!((mask >> d) & 1)) sizes.push_back(self.sizes()[d]);
    else if (keepdim) sizes.push_back(1);
  }
  return sizes;
}

void check_nonempty_dims(const Tensor& self, uint64_t mask, const char* op, bool index_error) {
  for (int64_t d = 0; d < self.dim(); ++d) {
    if (((mask >> d) & 1) && self.sizes()[d] == 0) {
      if (index_error) {
        EMBER_THROW(IndexError, op, "(): Expected reduction dim ", d, " to have non-zero size.");
      }
      EMBER_THROW(Error, op, "(): Expected reduction dim ", d, " to have non-zero size.");
    }
  }
}

void check_out_dtype(const Tensor& out, ScalarType expected) {
  EMBER_CHECK(out.dtype() == expected, "Expected out tensor to have dtype ", expected,
              ", but got ", out.dtype(), " instead");
}

namespace {

ScalarType sum_result_type(const Tensor& self, std::optional<ScalarType> dtype) {
  if (dtype) return *dtype;
  return is_integral(self.dtype(), /*include_bool=*/true) ? ScalarType::Long : self.dtype();
}

// The output a kernel writes: out itself when it is contiguous and of the result's dtype,
// else a new contiguous tensor (copied into out afterwards).
Tensor target_for(const Tensor* out, IntArrayRef sizes, ScalarType dtype, Device device) {
  if (out && out->dtype() == dtype && out->is_contiguous()) return *out;
  return ember::empty(sizes, TensorOptions().dtype(dtype).device(device));
}

}  // namespace

void copy_into_out(const Tensor& out, const Tensor& result) {
  for (int64_t d = 0; d < out.dim(); ++d) {
    EMBER_CHECK(out.sizes()[d] < 2 || out.strides()[d] != 0,
                "unsupported operation: more than one element of the written-to tensor refers "
                "to a single memory location. Please clone() the tensor before performing the "
                "operation.");
  }
  out.copy_(result);
}

namespace {
std::atomic<ReduceKernelFn> cuda_reduce_kernel{nullptr};
}  // namespace

void set_cuda_reduce_kernel(ReduceKernelFn kernel) { cuda_reduce_kernel.store(kernel); }

std::array<Tensor, 2> run_reduction(ReduceArgs args, const Tensor& self, uint64_t mask,
                                    bool keepdim, std::array<ScalarType, 2> dtypes,
                                    std::array<const Tensor*, 2> outs, int n_outs) {
  const DimVector sizes = reduced_sizes(self, mask, keepdim);
  std::array<Tensor, 2> results;
  for (int i = 0; i < n_outs; ++i) {
    if (outs[i]) resize_out(*outs[i], sizes);
    results[i] = target_for(outs[i], sizes, dtypes[i], self.device());
    args.outs[i] = &results[i];
  }
  args.self = &self;
  if (self.device().type() == DeviceType::CUDA) {
    const ReduceKernelFn cuda = cuda_reduce_kernel.load();
    EMBER_CHECK(cuda, "the CUDA reductions are not loaded (libember_cuda.so is not open)");
    cuda(args, make_reduce_plan(self, mask));
  } else {
    static const auto kernel = EMBER_CPU_KERNEL(reduce_kernel_cpu);
    kernel(args, make_reduce_plan(self, mask));
  }
  for (int i = 0; i < n_outs; ++i) {
    if (outs[i] && !results[i].is_same(*outs[i])) {
      copy_into_out(*outs[i], results[i]);
      results[i] = *outs[i];
    }
  }
  return results;
}

Tensor reduce_one(ReduceKind kind, const Tensor& self, uint64_t mask, bool keepdim,
                  ScalarType dtype, const Tensor* out, double scale) {
  ReduceArgs args;
  args.kind = kind;
  args.scale = scale;
  return run_reduction(args, self, mask, keepdim, {dtype, dtype}, {out, nullptr}, 1)[0];
}

ScalarType real_of(ScalarType t) {
  if (t == ScalarType::ComplexFloat) return ScalarType::Float;
  if (t == ScalarType::ComplexDouble) return ScalarType::Double;
  return t;
}

// ---- the functor path's dtype rules and meta helpers (Note [Reduction functors]) -------------

ScalarType reduce_result_type(ReduceDtypes r, const char* op, ScalarType t) {
  switch (r) {
    case ReduceDtypes::Same: return t;
    case ReduceDtypes::ToReal:
      EMBER_CHECK(is_floating_point(t) || is_complex(t), op, "(): input dtype should be either "
                  "floating point or complex. Got ", t, " instead.");
      return real_of(t);
  }
  EMBER_INTERNAL_ASSERT(false, op, "(): unknown reduction dtype rule");
  return t;
}

TensorMeta reduce_op_meta(ReduceDtypes r, const char* op, const Tensor& self, IntArrayRef dim,
                          bool keepdim) {
  TensorMeta meta;
  meta.dtype = reduce_result_type(r, op, self.dtype());
  meta.sizes = reduced_sizes(self, dim_mask(self, dim), keepdim);
  meta.exact_out_dtype = true;
  return meta;
}

TensorMeta reduce_same_meta(const char* op, const Tensor& self, IntArrayRef dim, bool keepdim) {
  return reduce_op_meta(ReduceDtypes::Same, op, self, dim, keepdim);
}

TensorMeta reduce_to_real_meta(const char* op, const Tensor& self, IntArrayRef dim, bool keepdim) {
  return reduce_op_meta(ReduceDtypes::ToReal, op, self, dim, keepdim);
}

// ---- sum, nansum, mean, nanmean, prod -------------------------------------------------------

namespace {

// sum, nansum and prod: the computation dtype is dtype=, else out's, else the input's
// (integers and bool as int64).
Tensor sum_like(ReduceKind kind, const Tensor& self, std::optional<IntArrayRef> dim,
                bool keepdim, std::optional<ScalarType> dtype, const Tensor* out) {
  if (kind == ReduceKind::NanSum) {
    EMBER_CHECK(!is_complex(self.dtype()), "nansum on CPU does not support complex inputs");
  }
  if (out && dtype) check_out_dtype(*out, *dtype);
  const ScalarType compute = out ? out->dtype() : sum_result_type(self, dtype);
  if (kind == ReduceKind::NanSum) {
    // NaN needs a floating computation for floating inputs.
    EMBER_CHECK_NOT_IMPLEMENTED(!is_complex(compute) && (dtype || is_floating_point(compute) ||
                                                         !is_floating_point(self.dtype())),
                                "nansum(): not implemented for ", compute);
  }
  const uint64_t mask = dim_mask(self, dim);
  return reduce_one(kind, self.to(compute), mask, keepdim, compute, out, 1.0);
}

ScalarType mean_type(const char* op, const Tensor& self, std::optional<ScalarType> dtype,
                     const Tensor* out) {
  if (dtype) {
    EMBER_CHECK(is_floating_point(*dtype) || is_complex(*dtype), op,
                "(): could not infer output dtype. Optional dtype must be either a floating "
                "point or complex dtype. Got: ", *dtype);
    if (out) check_out_dtype(*out, *dtype);
    return *dtype;
  }
  EMBER_CHECK(is_floating_point(self.dtype()) || is_complex(self.dtype()), op,
              "(): could not infer output dtype. Input dtype must be either a floating point or "
              "complex dtype. Got: ", self.dtype());
  if (!out) return self.dtype();
  EMBER_CHECK(is_floating_point(out->dtype()) || is_complex(out->dtype()), "result type ",
              self.dtype(), " can't be cast to the desired output type ", out->dtype());
  return out->dtype();
}

Tensor mean_impl(const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim,
                 std::optional<ScalarType> dtype, const Tensor* out) {
  const ScalarType compute = mean_type("mean", self, dtype, out);
  const uint64_t mask = dim_mask(self, dim);
  int64_t n = 1;
  for (int64_t d = 0; d < self.dim(); ++d) {
    if ((mask >> d) & 1) n *= self.sizes()[d];
  }
  const double scale = n == 0 ? std::numeric_limits<double>::infinity() : 1.0 / static_cast<double>(n);
  return reduce_one(ReduceKind::Sum, self.to(compute), mask, keepdim, compute, out, scale);
}

Tensor nanmean_impl(const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim,
                    std::optional<ScalarType> dtype, const Tensor* out) {
  EMBER_CHECK(is_floating_point(self.dtype()) || is_complex(self.dtype()),
              "nanmean(): expected input to have floating point or complex dtype but got ",
              self.dtype());
  EMBER_CHECK(!is_complex(self.dtype()), "nansum on CPU does not support complex inputs");
  if (out && dtype) check_out_dtype(*out, *dtype);
  const ScalarType compute = dtype ? *dtype : out ? out->dtype() : self.dtype();
  EMBER_CHECK_NOT_IMPLEMENTED(is_floating_point(compute), "nanmean(): not implemented for ",
                              compute);
  const uint64_t mask = dim_mask(self, dim);
  const Tensor input = self.to(compute);
  const Tensor sum = reduce_one(ReduceKind::NanSum, input, mask, keepdim, compute, nullptr, 1.0);
  const Tensor count = reduce_one(ReduceKind::NotNanCount, input, mask, keepdim, compute, nullptr, 1.0);
  if (!out) return ember::div(sum, count);
  return ember::div_out(*out, sum, count);
}

}  // namespace

Tensor sum_dense(const Tensor& self, std::optional<ScalarType> dtype) {
  return sum_like(ReduceKind::Sum, self, std::nullopt, false, dtype, nullptr);
}

Tensor sum_dim_dense(const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim,
                   std::optional<ScalarType> dtype) {
  return sum_like(ReduceKind::Sum, self, dim, keepdim, dtype, nullptr);
}

Tensor& sum_out_dense(const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim,
                    std::optional<ScalarType> dtype, Tensor& out) {
  sum_like(ReduceKind::Sum, self, dim, keepdim, dtype, &out);
  return out;
}

Tensor nansum_dense(const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim,
                  std::optional<ScalarType> dtype) {
  return sum_like(ReduceKind::NanSum, self, dim, keepdim, dtype, nullptr);
}

Tensor& nansum_out_dense(const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim,
                       std::optional<ScalarType> dtype, Tensor& out) {
  sum_like(ReduceKind::NanSum, self, dim, keepdim, dtype, &out);
  return out;
}

Tensor mean_dense(const Tensor& self, std::optional<ScalarType> dtype) {
  return mean_impl(self, std::nullopt, false, dtype, nullptr);
}

Tensor mean_dim_dense(const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim,
                    std::optional<ScalarType> dtype) {
  return mean_impl(self, dim, keepdim, dtype, nullptr);
}

Tensor& mean_out_dense(const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim,
                     std::optional<ScalarType> dtype, Tensor& out) {
  mean_impl(self, dim, keepdim, dtype, &out);
  return out;
}

Tensor nanmean_dense(const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim,
                   std::optional<ScalarType> dtype) {
  return nanmean_impl(self, dim, keepdim, dtype, nullptr);
}

Tensor& nanmean_out_dense(const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim,
                        std::optional<ScalarType> dtype, Tensor& out) {
  nanmean_impl(self, dim, keepdim, dtype, &out);
  return out;
}

Tensor prod_dense(const Tensor& self, std::optional<ScalarType> dtype) {
  return sum_like(ReduceKind::Prod, self, std::nullopt, false, dtype, nullptr);
}

Tensor prod_dim_dense(const Tensor& self, int64_t dim, bool keepdim, std::optional<ScalarType> dtype) {
  const int64_t dims[] = {dim};
  return sum_like(ReduceKind::Prod, self, IntArrayRef(dims), keepdim, dtype, nullptr);
}

Tensor& prod_out_dense(const Tensor& self, int64_t dim, bool keepdim, std::optional<ScalarType> dtype,
                     Tensor& out) {
  const int64_t dims[] = {dim};
  sum_like(ReduceKind::Prod, self, IntArrayRef(dims), keepdim, dtype, &out);
  return out;
}

// ---- max, min, amax, amin, argmax, argmin, aminmax --------------------------------------------

namespace {

void check_ordered(const Tensor& self, const char* op) {
  EMBER_CHECK(!is_complex(self.dtype()), op, "(): does not support complex input");
}

void check_numel_for_full(const Tensor& self, const char* op, bool index_error) {
  if (self.numel() != 0) return;
  if (index_error) {
    EMBER_THROW(IndexError, op, "(): Expected reduction dim to be specified for input.numel() == 0.");
  }
  EMBER_THROW(Error, op, "(): Expected reduction dim to be specified for input.numel() == 0. "
              "Specify the reduction dim with the 'dim' argument.");
}

Tensor full_extreme(ReduceKind kind, const char* op, const Tensor& self, const Tensor* out) {
  check_ordered(self, op);
  check_numel_for_full(self, op, false);
  if (out) {
    EMBER_CHECK(can_cast(self.dtype(), out->dtype()), "result type ", self.dtype(),
                " can't be cast to the desired output type ", out->dtype());
  }
  return reduce_one(kind, self, dim_mask(self, std::nullopt), false, self.dtype(), out, 1.0);
}

std::tuple<Tensor, Tensor> extreme_dim(ReduceKind kind, const char* op, const Tensor& self,
                                       int64_t dim, bool keepdim) {
  check_ordered(self, op);
  const int64_t dims[] = {dim};
  const uint64_t mask = dim_mask(self, IntArrayRef(dims));
  check_nonempty_dims(self, mask, op, true);
  ReduceArgs args;
  args.kind = kind;
  auto r = run_reduction(args, self, mask, keepdim, {self.dtype(), ScalarType::Long},
                         {nullptr, nullptr}, 2);
  return {r[0], r[1]};
}

Tensor amax_impl(ReduceKind kind, const char* op, const Tensor& self, IntArrayRef dim, bool keepdim,
                 const Tensor* out) {
  check_ordered(self, op);
  const uint64_t mask = dim_mask(self, dim);
  if (self.numel() == 0 && dim.empty()) check_numel_for_full(self, op, false);
  check_nonempty_dims(self, mask, op, true);
  if (out) {
    EMBER_CHECK(out->dtype() == self.dtype(), "Expected the dtype for input and out to match, but "
                "got ", self.dtype(), " for input's dtype and ", out->dtype(), " for out's dtype.");
  }
  return reduce_one(kind, self, mask, keepdim, self.dtype(), out, 1.0);
}

Tensor argmax_impl(ReduceKind kind, const char* op, const Tensor& self, std::optional<int64_t> dim,
                   bool keepdim, const Tensor* out) {
  check_ordered(self, op);
  EMBER_CHECK(self.dtype() != ScalarType::Bool, op, "(): does not support bool input");
  if (!dim) {
    check_numel_for_full(self, op, true);
    if (out) check_out_dtype(*out, ScalarType::Long);
    // The index counts elements in row-major order: reduce the flattened input.
    const int64_t flat[] = {-1};
    const Tensor result = reduce_one(kind, self.contiguous().view(IntArrayRef(flat)), 1, false,
                                     ScalarType::Long, nullptr, 1.0);
    const DimVector sizes = keepdim ? DimVector(static_cast<size_t>(self.dim()), 1) : DimVector();
    const Tensor shaped = result.view(sizes);
    if (!out) return shaped;
    resize_out(*out, sizes);
    out->copy_(shaped);
    return *out;
  }
  const int64_t dims[] = {*dim};
  const uint64_t mask = dim_mask(self, IntArrayRef(dims));
  check_nonempty_dims(self, mask, op, true);
  if (out) check_out_dtype(*out, ScalarType::Long);
  return reduce_one(kind, self, mask, keepdim, ScalarType::Long, out, 1.0);
}

}  // namespace

Tensor max_dense(const Tensor& self) { return full_extreme(ReduceKind::Max, "max", self, nullptr); }

Tensor& max_unary_out_dense(const Tensor& self, Tensor& out) {
  full_extreme(ReduceKind::Max, "max", self, &out);
  return out;
}

std::tuple<Tensor, Tensor> max_dim_dense(const Tensor& self, int64_t dim, bool keepdim) {
  return extreme_dim(ReduceKind::MaxWithIndex, "max", self, dim, keepdim);
}

Tensor min_dense(const Tensor& self) { return full_extreme(ReduceKind::Min, "min", self, nullptr); }

Tensor& min_unary_out_dense(const Tensor& self, Tensor& out) {
  full_extreme(ReduceKind::Min, "min", self, &out);
  return out;
}

std::tuple<Tensor, Tensor> min_dim_dense(const Tensor& self, int64_t dim, bool keepdim) {
  return extreme_dim(ReduceKind::MinWithIndex, "min", self, dim, keepdim);
}

Tensor amax_dense(const Tensor& self, IntArrayRef dim, bool keepdim) {
  return amax_impl(ReduceKind::Max, "amax", self, dim, keepdim, nullptr);
}

Tensor& amax_out_dense(const Tensor& self, IntArrayRef dim, bool keepdim, Tensor& out) {
  amax_impl(ReduceKind::Max, "amax", self, dim, keepdim, &out);
  return out;
}

Tensor amin_dense(const Tensor& self, IntArrayRef dim, bool keepdim) {
  return amax_impl(ReduceKind::Min, "amin", self, dim, keepdim, nullptr);
}

Tensor& amin_out_dense(const Tensor& self, IntArrayRef dim, bool keepdim, Tensor& out) {
  amax_impl(ReduceKind::Min, "amin", self, dim, keepdim, &out);
  return out;
}

Tensor argmax_dense(const Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  return argmax_impl(ReduceKind::ArgMax, "argmax", self, dim, keepdim, nullptr);
}

Tensor& argmax_out_dense(const Tensor& self, std::optional<int64_t> dim, bool keepdim, Tensor& out) {
  argmax_impl(ReduceKind::ArgMax, "argmax", self, dim, keepdim, &out);
  return out;
}

Tensor argmin_dense(const Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  return argmax_impl(ReduceKind::ArgMin, "argmin", self, dim, keepdim, nullptr);
}

Tensor& argmin_out_dense(const Tensor& self, std::optional<int64_t> dim, bool keepdim, Tensor& out) {
  argmax_impl(ReduceKind::ArgMin, "argmin", self, dim, keepdim, &out);
  return out;
}

std::tuple<Tensor, Tensor> aminmax_dense(const Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  check_ordered(self, "aminmax");
  uint64_t mask;
  if (dim) {
    const int64_t dims[] = {*dim};
    mask = dim_mask(self, IntArrayRef(dims));
    for (int64_t d = 0; d < self.dim(); ++d) {
      EMBER_CHECK_INDEX(!(((mask >> d) & 1) && self.sizes()[d] == 0), "aminmax(): Expected "
                        "reduction dim ", d, " to have non-zero size.");
    }
  } else {
    EMBER_CHECK(self.numel() != 0, "aminmax(): cannot compute aminmax over an empty dimension as "
                "the operation has no identity.");
    mask = dim_mask(self, std::nullopt);
  }
  ReduceArgs args;
  args.kind = ReduceKind::MinMax;
  auto r = run_reduction(args, self, mask, keepdim, {self.dtype(), self.dtype()}, {nullptr, nullptr}, 2);
  return {r[0], r[1]};
}

// ---- all, any, count_nonzero -------------------------------------------------------------------

namespace {

Tensor all_impl(ReduceKind kind, const char* op, const Tensor& self, std::optional<IntArrayRef> dim,
                bool keepdim, const Tensor* out) {
  // As PyTorch: uint8 inputs give uint8 results, everything else bool.
  ScalarType dtype = self.dtype() == ScalarType::Byte ? ScalarType::Byte : ScalarType::Bool;
  if (out) {
    EMBER_CHECK(out->dtype() == ScalarType::Bool || out->dtype() == ScalarType::Byte, op,
                " only supports bool tensor for result, got: ", out->dtype());
    dtype = out->dtype();
  }
  // all.dims/any.dims over an empty list reduce nothing (unlike sum's []).
  const uint64_t mask = dim && dim->empty() ? 0 : dim_mask(self, dim);
  // A uint8 result tests the input converted to uint8 (0.25 is false), as PyTorch's does.
  const Tensor input = dtype == ScalarType::Byte ? self.to(ScalarType::Byte) : self;
  return reduce_one(kind, input, mask, keepdim, dtype, out, 1.0);
}

IntArrayRef one_dim(const int64_t& dim) { return IntArrayRef(&dim, 1); }

}  // namespace

Tensor all_dense(const Tensor& self) { return all_impl(ReduceKind::All, "all", self, std::nullopt, false, nullptr); }
Tensor all_dim_dense(const Tensor& self, int64_t dim, bool keepdim) {
  return all_impl(ReduceKind::All, "all", self, one_dim(dim), keepdim, nullptr);
}
Tensor all_dims_dense(const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim) {
  return all_impl(ReduceKind::All, "all", self, dim, keepdim, nullptr);
}
Tensor& all_out_dense(const Tensor& self, int64_t dim, bool keepdim, Tensor& out) {
  all_impl(ReduceKind::All, "all", self, one_dim(dim), keepdim, &out);
  return out;
}
Tensor& all_dims_out_dense(const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim, Tensor& out) {
  all_impl(ReduceKind::All, "all", self, dim, keepdim, &out);
  return out;
}
Tensor& all_all_out_dense(const Tensor& self, Tensor& out) {
  all_impl(ReduceKind::All, "all", self, std::nullopt, false, &out);
  return out;
}

Tensor any_dense(const Tensor& self) { return all_impl(ReduceKind::Any, "any", self, std::nullopt, false, nullptr); }
Tensor any_dim_dense(const Tensor& self, int64_t dim, bool keepdim) {
  return all_impl(ReduceKind::Any, "any", self, one_dim(dim), keepdim, nullptr);
}
Tensor any_dims_dense(const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim) {
  return all_impl(ReduceKind::Any, "any", self, dim, keepdim, nullptr);
}
Tensor& any_out_dense(const Tensor& self, int64_t dim, bool keepdim, Tensor& out) {
  all_impl(ReduceKind::Any, "any", self, one_dim(dim), keepdim, &out);
  return out;
}
Tensor& any_dims_out_dense(const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim, Tensor& out) {
  all_impl(ReduceKind::Any, "any", self, dim, keepdim, &out);
  return out;
}
Tensor& any_all_out_dense(const Tensor& self, Tensor& out) {
  all_impl(ReduceKind::Any, "any", self, std::nullopt, false, &out);
  return out;
}

Tensor count_nonzero_dim_IntList_cpu(const Tensor& self, IntArrayRef dim) {
  return reduce_one(ReduceKind::CountNonzero, self, dim_mask(self, dim), false, ScalarType::Long,
                    nullptr, 1.0);
}

Tensor count_nonzero_dense(const Tensor& self, std::optional<int64_t> dim) {
  if (!dim) return count_nonzero_dim_IntList_cpu(self, IntArrayRef());
  return count_nonzero_dim_IntList_cpu(self, one_dim(*dim));
}

}  // namespace ember::native
