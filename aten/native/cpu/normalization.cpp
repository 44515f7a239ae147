// Normalization kernels on the CPU: batch, layer and group normalization and their backward
// ops (the composites batch_norm, instance_norm, layer_norm, group_norm and rms_norm are
// in aten/native/normalization.cpp).
//
// Note [Normalization walk]: each kernel normalizes groups of elements ("rows"): a channel
// across the batch and spatial dims (batch norm), the trailing normalized_shape (layer
// norm), or C/G channels of one sample (group norm). A row's mean and variance come from
// two passes in double (the mean, then the squared deviations from it), so a large mean
// does not cancel the variance. Rows split across threads; the per-channel weight
// gradients of layer norm, which sum across rows, are reductions over ember ops. A
// channels_last input is walked as (N * spatial, C) with one spatial element, so it needs
// no copy and its output stays channels_last.
#include <algorithm>
#include <cmath>
#include <string>

#include "aten/TensorOperators.h"
#include "aten/native/CpuCapability.h"
#include "aten/native/Dispatch.h"
#include "aten/native/MemoryFormats.h"
#include "aten/native/Parallel.h"
#include "c10/util/Exception.h"
#include "ember/generated/ops/empty.h"
#include "ember/generated/ops/empty_like.h"

namespace ember::native {
EMBER_CPU_NAMESPACE_BEGIN
namespace {

template <class F>
void dispatch_norm(ScalarType t, const char* op, F&& f) {
  EMBER_CHECK_NOT_IMPLEMENTED(t == ScalarType::Float || t == ScalarType::Double, op, "(): not implemented "
                              "for dtype ", t, " (float32 and float64 are)");
  if (t == ScalarType::Float) f(TypeTag<float>{});
  else f(TypeTag<double>{});
}

void check_param(const char* op, const char* arg, const std::optional<Tensor>& t, int64_t n, ScalarType dt) {
  if (!t || !t->defined()) return;
  EMBER_CHECK(t->numel() == n, op, "(): expected ", arg, " to have ", n, " elements, but got ", arg,
              " of shape ", t->sizes());
  EMBER_CHECK(t->scalar_type() == dt, op, "(): expected ", arg, " of dtype ", dt, ", but got ", t->scalar_type());
}

// A parameter as a contiguous tensor, or undefined.
Tensor contig(const std::optional<Tensor>& t) { return t && t->defined() ? t->contiguous() : Tensor(); }

template <class T>
const T* ptr_or_null(const Tensor& t) { return t.defined() ? static_cast<T*>(t.data_ptr()) : nullptr; }

// Whether the batch-norm walk treats input as (N * spatial, C) (channels_last, see the Note).
bool channels_last_walk(const Tensor& input) {
  if (input.dim() != 4 && input.dim() != 5) return false;
  if (input.is_contiguous()) return false;
  return is_contiguous_in(input.sizes(), input.strides(),
                          input.dim() == 4 ? MemoryFormat::ChannelsLast : MemoryFormat::ChannelsLast3d);
}

// input (N, C, *) as a contiguous (outer, C, inner) walk, and a function mapping a result
// of that walk's shape back to input's shape and layout.
struct ChannelWalk {
  Tensor x;  // (outer, C, inner), contiguous
  int64_t outer = 1, C = 1, inner = 1;
  bool cl = false;
  DimVector cl_shape;  // (N, *spatial, C) for channels_last
  Tensor back(const Tensor& y) const {
    if (!cl) return y;
    DimVector perm{0, static_cast<int64_t>(cl_shape.size()) - 1};
    for (int64_t i = 1; i + 1 < static_cast<int64_t>(cl_shape.size()); ++i) perm.push_back(i);
    return y.view(IntArrayRef(cl_shape)).permute(IntArrayRef(perm));
  }
};

ChannelWalk channel_walk(const Tensor& input) {
  ChannelWalk w;
  w.C = input.sizes()[1];
  if (channels_last_walk(input)) {
    w.cl = true;
    DimVector perm{0};
    for (int64_t i = 2; i < input.dim(); ++i) perm.push_back(i);
    perm.push_back(1);
    Tensor t = input.permute(IntArrayRef(perm));  // contiguous (N, *spatial, C)
    w.cl_shape = DimVector(t.sizes());
    w.outer = w.C == 0 ? 0 : t.numel() / w.C;
    w.x = t.reshape({w.outer, w.C, 1});
    return w;
  }
  w.x = input.contiguous();
  w.outer = input.sizes()[0];
  w.inner = 1;
  for (int64_t i = 2; i < input.dim(); ++i) w.inner *= input.sizes()[i];
  return w;
}

}  // namespace

std::tuple<Tensor, Tensor, Tensor> native_batch_norm_cpu(const Tensor& input, const std::optional<Tensor>& weight,
                                                         const std::optional<Tensor>& bias,
                                                         const std::optional<Tensor>& running_mean,
                                                         const std::optional<Tensor>& running_var, bool training,
                                                         double momentum, double eps) {
  const char* op = "native_batch_norm";
  EMBER_CHECK(input.dim() >= 2, op, "(): expected input with at least 2 dims (N, C, ...), but got input of "
              "shape ", input.sizes());
  const ScalarType dt = input.scalar_type();
  const int64_t C = input.sizes()[1];
  check_param(op, "weight", weight, C, dt);
  check_param(op, "bias", bias, C, dt);
  check_param(op, "running_mean", running_mean, C, dt);
  check_param(op, "running_var", running_var, C, dt);
  const bool has_running = running_mean && running_mean->defined() && running_var && running_var->defined();
  EMBER_CHECK(training || has_running, op, "(): running_mean and running_var must be given when training=False");
  const int64_t count = C == 0 ? 0 : input.numel() / C;
  EMBER_CHECK(!training || count > 1 || input.numel() == 0, op, "(): expected more than 1 value per channel "
              "when training, got input of shape ", input.sizes());
  const ChannelWalk w = channel_walk(input);
  Tensor y = ember::empty_like(w.x);
  Tensor save_mean = ember::empty({training ? C : 0}, input.options());
  Tensor save_invstd = ember::empty({training ? C : 0}, input.options());
  const Tensor wt = contig(weight), bs = contig(bias);
  const Tensor rm = has_running ? running_mean->contiguous() : Tensor();
  const Tensor rv = has_running ? running_var->contiguous() : Tensor();
  dispatch_norm(dt, op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* x = static_cast<T*>(w.x.data_ptr());
    T* out = static_cast<T*>(y.data_ptr());
    const T* wp = ptr_or_null<T>(wt);
    const T* bp = ptr_or_null<T>(bs);
    T* rmp = has_running ? static_cast<T*>(rm.data_ptr()) : nullptr;
    T* rvp = has_running ? static_cast<T*>(rv.data_ptr()) : nullptr;
    T* smp = training ? static_cast<T*>(save_mean.data_ptr()) : nullptr;
    T* sip = training ? static_cast<T*>(save_invstd.data_ptr()) : nullptr;
    const int64_t outer = w.outer, inner = w.inner, cstride = C * inner;
    parallel_for(0, C, std::max<int64_t>(1, 32768 / std::max<int64_t>(count, 1)), [&](int64_t c0, int64_t c1) {
      for (int64_t c = c0; c < c1; ++c) {
        double mean, invstd;
        if (training) {
          double sum = 0;
          for (int64_t o = 0; o < outer; ++o) {
            const T* p = x + o * cstride + c * inner;
            for (int64_t i = 0; i < inner; ++i) sum += p[i];
          }
          mean = count ? sum / count : 0.0;
          double sq = 0;
          for (int64_t o = 0; o < outer; ++o) {
            const T* p = x + o * cstride + c * inner;
            for (int64_t i = 0; i < inner; ++i) {
              const double dv = p[i] - mean;
              sq += dv * dv;
            }
          }
          const double var = count ? sq / count : 0.0;
          invstd = 1.0 / std::sqrt(var + eps);
          smp[c] = static_cast<T>(mean);
          sip[c] = static_cast<T>(invstd);
          if (has_running) {
            const double unbiased = count > 1 ? sq / (count - 1) : var;
            rmp[c] = static_cast<T>((1 - momentum) * rmp[c] + momentum * mean);
            rvp[c] = static_cast<T>((1 - momentum) * rvp[c] + momentum * unbiased);
          }
        } else {
          mean = rmp[c];
          invstd = 1.0 / std::sqrt(static_cast<double>(rvp[c]) + eps);
        }
        // (x - mean) * scale + bias: subtracting first keeps a large mean from cancelling.
        const T a = static_cast<T>(invstd * (wp ? static_cast<double>(wp[c]) : 1.0));
        const T b = bp ? bp[c] : T(0), m = static_cast<T>(mean);
        for (int64_t o = 0; o < outer; ++o) {
          const T* p = x + o * cstride + c * inner;
          T* q = out + o * cstride + c * inner;
          for (int64_t i = 0; i < inner; ++i) q[i] = (p[i] - m) * a + b;
        }
      }
    });
  });
  // The running statistics are updated in place when they were not contiguous (copied).
  if (training && has_running) {
    if (!running_mean->is_contiguous()) running_mean->copy_(rm);
    if (!running_var->is_contiguous()) running_var->copy_(rv);
  }
  return {w.cl ? w.back(y) : y.view(input.sizes()), save_mean, save_invstd};
}

std::tuple<Tensor, Tensor, Tensor> native_batch_norm_backward_cpu(
    const Tensor& grad_out, const Tensor& input, const std::optional<Tensor>& weight,
    const std::optional<Tensor>& running_mean, const std::optional<Tensor>& running_var,
    const std::optional<Tensor>& save_mean, const std::optional<Tensor>& save_invstd, bool train, double eps,
    std::array<bool, 3> output_mask) {
  const char* op = "native_batch_norm_backward";
  EMBER_CHECK(input.dim() >= 2, op, "(): expected input with at least 2 dims, but got shape ", input.sizes());
  EMBER_CHECK(grad_out.sizes() == input.sizes(), op, "(): expected grad_out of shape ", input.sizes(),
              ", but got ", grad_out.sizes());
  const ScalarType dt = input.scalar_type();
  EMBER_CHECK(grad_out.scalar_type() == dt, op, "(): expected grad_out of dtype ", dt, ", but got ",
              grad_out.scalar_type());
  const int64_t C = input.sizes()[1];
  check_param(op, "weight", weight, C, dt);
  check_param(op, "running_mean", running_mean, C, dt);
  check_param(op, "running_var", running_var, C, dt);
  if (train) {  // (in eval the forward's save_mean and save_invstd are empty)
    check_param(op, "save_mean", save_mean, C, dt);
    check_param(op, "save_invstd", save_invstd, C, dt);
  }
  const std::optional<Tensor>& mean_src = train ? save_mean : running_mean;
  const std::optional<Tensor>& var_src = train ? save_invstd : running_var;
  EMBER_CHECK(mean_src && mean_src->defined() && var_src && var_src->defined(), op, "(): expected ",
              train ? "save_mean and save_invstd" : "running_mean and running_var", " to be given");
  check_param(op, train ? "save_mean" : "running_mean", mean_src, C, dt);
  check_param(op, train ? "save_invstd" : "running_var", var_src, C, dt);
  const int64_t count = C == 0 ? 0 : input.numel() / C;
  const ChannelWalk w = channel_walk(input);
  const Tensor g = w.cl ? channel_walk(grad_out.contiguous(input.dim() == 4 ? MemoryFormat::ChannelsLast
                                                                            : MemoryFormat::ChannelsLast3d)).x
                       : grad_out.contiguous();
  Tensor gi = output_mask[0] ? ember::empty_like(w.x) : Tensor();
  Tensor gweight = output_mask[1] ? ember::empty({C}, input.options()) : Tensor();
  Tensor gbias = output_mask[2] ? ember::empty({C}, input.options()) : Tensor();
  const Tensor wt = contig(weight), ms = mean_src->contiguous(), vs = var_src->contiguous();
  dispatch_norm(dt, op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* x = static_cast<T*>(w.x.data_ptr());
    const T* dy = static_cast<T*>(g.data_ptr());
    T* dx = output_mask[0] ? static_cast<T*>(gi.data_ptr()) : nullptr;
    T* dwp = output_mask[1] ? static_cast<T*>(gweight.data_ptr()) : nullptr;
    T* dbp = output_mask[2] ? static_cast<T*>(gbias.data_ptr()) : nullptr;
    const T* wp = ptr_or_null<T>(wt);
    const T* mp = static_cast<T*>(ms.data_ptr());
    const T* vp = static_cast<T*>(vs.data_ptr());
    const int64_t outer = w.outer, inner = w.inner, cstride = C * inner;
    parallel_for(0, C, std::max<int64_t>(1, 32768 / std::max<int64_t>(count, 1)), [&](int64_t c0, int64_t c1) {
      for (int64_t c = c0; c < c1; ++c) {
        const double mean = mp[c];
        const double invstd = train ? static_cast<double>(vp[c]) : 1.0 / std::sqrt(static_cast<double>(vp[c]) + eps);
        double sum_dy = 0, sum_dy_xc = 0;
        for (int64_t o = 0; o < outer; ++o) {
          const T* p = x + o * cstride + c * inner;
          const T* d = dy + o * cstride + c * inner;
          for (int64_t i = 0; i < inner; ++i) {
            sum_dy += d[i];
            sum_dy_xc += d[i] * (p[i] - mean);
          }
        }
        if (dwp) dwp[c] = static_cast<T>(sum_dy_xc * invstd);
        if (dbp) dbp[c] = static_cast<T>(sum_dy);
        if (!dx) continue;
        const double wc = wp ? static_cast<double>(wp[c]) : 1.0;
        if (train) {
          // dx = w * invstd * (dy - mean(dy) - xhat * mean(dy * xhat)).
          const double dmean = count ? sum_dy / count : 0.0;
          const double k = count ? sum_dy_xc * invstd * invstd / count : 0.0;
          for (int64_t o = 0; o < outer; ++o) {
            const T* p = x + o * cstride + c * inner;
            const T* d = dy + o * cstride + c * inner;
            T* q = dx + o * cstride + c * inner;
            for (int64_t i = 0; i < inner; ++i) {
              q[i] = static_cast<T>((d[i] - dmean - (p[i] - mean) * k) * invstd * wc);
            }
          }
        } else {
          const T a = static_cast<T>(invstd * wc);
          for (int64_t o = 0; o < outer; ++o) {
            const T* d = dy + o * cstride + c * inner;
            T* q = dx + o * cstride + c * inner;
            for (int64_t i = 0; i < inner; ++i) q[i] = d[i] * a;
          }
        }
      }
    });
  });
  if (gi.defined()) gi = w.cl ? w.back(gi) : gi.view(input.sizes());
  return {gi, gweight, gbias};
}

namespace {

// Layer norm's rows: input as (M, N) with N = prod(normalized_shape).
void layer_norm_checks(const char* op, const Tensor& input, IntArrayRef normalized_shape,
                       const std::optional<Tensor>& weight, const std::optional<Tensor>& bias) {
  const int64_t nd = static_cast<int64_t>(normalized_shape.size());
  EMBER_CHECK(nd >= 1, op, "(): expected normalized_shape to be at least 1-dimensional, i.e., containing at "
              "least one element, but got normalized_shape = ", normalized_shape);
  bool ok = input.dim() >= nd;
  for (int64_t i = 0; ok && i < nd; ++i) ok = input.sizes()[input.dim() - nd + i] == normalized_shape[i];
  EMBER_CHECK(ok, op, "(): given normalized_shape=", normalized_shape, ", expected input with shape [*, ",
              normalized_shape, "], but got input of size ", input.sizes());
  for (const auto& [arg, t] : {std::pair{"weight", &weight}, std::pair{"bias", &bias}}) {
    if (*t && (*t)->defined()) {
      EMBER_CHECK((*t)->sizes() == normalized_shape, op, "(): expected ", arg, " of shape ", normalized_shape,
                  ", but got ", (*t)->sizes());
      EMBER_CHECK((*t)->scalar_type() == input.scalar_type(), op, "(): expected ", arg, " of dtype ",
                  input.scalar_type(), ", but got ", (*t)->scalar_type());
    }
  }
}

// The shape of layer norm's mean and rstd: input's leading dims, then ones.
DimVector stat_shape(const Tensor& input, int64_t nd) {
  DimVector s(input.sizes());
  for (int64_t i = 0; i < nd; ++i) s[s.size() - 1 - i] = 1;
  return s;
}

}  // namespace

std::tuple<Tensor, Tensor, Tensor> native_layer_norm_cpu(const Tensor& input, IntArrayRef normalized_shape,
                                                         const std::optional<Tensor>& weight,
                                                         const std::optional<Tensor>& bias, double eps) {
  const char* op = "native_layer_norm";
  layer_norm_checks(op, input, normalized_shape, weight, bias);
  const int64_t nd = static_cast<int64_t>(normalized_shape.size());
  int64_t N = 1;
  for (int64_t v : normalized_shape) N *= v;
  const int64_t M = N == 0 ? 1 : input.numel() / N;
  const Tensor x = input.contiguous();
  Tensor y = ember::empty(input.sizes(), input.options());
  Tensor mean = ember::empty(IntArrayRef(stat_shape(input, nd)), input.options());
  Tensor rstd = ember::empty(IntArrayRef(stat_shape(input, nd)), input.options());
  const Tensor wt = contig(weight), bs = contig(bias);
  dispatch_norm(input.scalar_type(), op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* xp = static_cast<T*>(x.data_ptr());
    T* yp = static_cast<T*>(y.data_ptr());
    T* mp = static_cast<T*>(mean.data_ptr());
    T* rp = static_cast<T*>(rstd.data_ptr());
    const T* wp = ptr_or_null<T>(wt);
    const T* bp = ptr_or_null<T>(bs);
    parallel_for(0, input.numel() == 0 && N != 0 ? 0 : M, std::max<int64_t>(1, 32768 / std::max<int64_t>(N, 1)),
                 [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        const T* p = xp + r * N;
        T* q = yp + r * N;
        double sum = 0;
        for (int64_t i = 0; i < N; ++i) sum += p[i];
        const double mu = N ? sum / N : 0.0;
        double sq = 0;
        for (int64_t i = 0; i < N; ++i) {
          const double dv = p[i] - mu;
          sq += dv * dv;
        }
        const double rs = 1.0 / std::sqrt((N ? sq / N : 0.0) + eps);
        mp[r] = static_cast<T>(mu);
        rp[r] = static_cast<T>(rs);
        const T m = static_cast<T>(mu), s = static_cast<T>(rs);
        if (wp && bp) {
          for (int64_t i = 0; i < N; ++i) q[i] = (p[i] - m) * s * wp[i] + bp[i];
        } else if (wp) {
          for (int64_t i = 0; i < N; ++i) q[i] = (p[i] - m) * s * wp[i];
        } else if (bp) {
          for (int64_t i = 0; i < N; ++i) q[i] = (p[i] - m) * s + bp[i];
        } else {
          for (int64_t i = 0; i < N; ++i) q[i] = (p[i] - m) * s;
        }
      }
    });
  });
  return {y, mean, rstd};
}

std::tuple<Tensor, Tensor, Tensor> native_layer_norm_backward_cpu(
    const Tensor& grad_out, const Tensor& input, IntArrayRef normalized_shape, const Tensor& mean,
    const Tensor& rstd, const std::optional<Tensor>& weight, const std::optional<Tensor>& bias,
    std::array<bool, 3> output_mask) {
  const char* op = "native_layer_norm_backward";
  layer_norm_checks(op, input, normalized_shape, weight, bias);
  EMBER_CHECK(grad_out.sizes() == input.sizes(), op, "(): expected grad_out of shape ", input.sizes(),
              ", but got ", grad_out.sizes());
  int64_t N = 1;
  for (int64_t v : normalized_shape) N *= v;
  const int64_t M = N == 0 ? 1 : input.numel() / N;
  EMBER_CHECK(mean.numel() == M && rstd.numel() == M, op, "(): expected mean and rstd with ", M,
              " elements, but got ", mean.sizes(), " and ", rstd.sizes());
  const ScalarType dt = input.scalar_type();
  for (const Tensor* t : {&grad_out, &mean, &rstd}) {
    EMBER_CHECK(t->scalar_type() == dt, op, "(): expected grad_out, mean and rstd of dtype ", dt, ", but got ",
                t->scalar_type());
  }
  const Tensor x = input.contiguous(), dy = grad_out.contiguous();
  const Tensor mc = mean.contiguous(), rc = rstd.contiguous(), wt = contig(weight);
  Tensor gi = output_mask[0] ? ember::empty(input.sizes(), input.options()) : Tensor();
  if (gi.defined() && gi.numel() > 0) {
    dispatch_norm(dt, op, [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T* xp = static_cast<T*>(x.data_ptr());
      const T* gp = static_cast<T*>(dy.data_ptr());
      const T* mp = static_cast<T*>(mc.data_ptr());
      const T* rp = static_cast<T*>(rc.data_ptr());
      const T* wp = ptr_or_null<T>(wt);
      T* dx = static_cast<T*>(gi.data_ptr());
      parallel_for(0, M, std::max<int64_t>(1, 16384 / std::max<int64_t>(N, 1)), [&](int64_t r0, int64_t r1) {
        for (int64_t r = r0; r < r1; ++r) {
          const T* p = xp + r * N;
          const T* d = gp + r * N;
          T* q = dx + r * N;
          const double mu = mp[r], rs = rp[r];
          // g = dy * w; dx = rs * (g - mean(g) - xhat * mean(g * xhat)).
          double sg = 0, sgx = 0;
          for (int64_t i = 0; i < N; ++i) {
            const double gv = wp ? static_cast<double>(d[i]) * wp[i] : static_cast<double>(d[i]);
            sg += gv;
            sgx += gv * (p[i] - mu) * rs;
          }
          const double a = sg / N, b = sgx / N;
          for (int64_t i = 0; i < N; ++i) {
            const double gv = wp ? static_cast<double>(d[i]) * wp[i] : static_cast<double>(d[i]);
            q[i] = static_cast<T>(rs * (gv - a - (p[i] - mu) * rs * b));
          }
        }
      });
    });
  }
  Tensor gweight, gbias;
  if (output_mask[1] || output_mask[2]) {
    const Tensor d2 = dy.view({M, N});
    if (output_mask[1]) {
      const Tensor xhat = (x.view({M, N}) - mc.view({M, 1})) * rc.view({M, 1});
      gweight = (d2 * xhat).sum(IntArrayRef{0}).view(normalized_shape);
    }
    if (output_mask[2]) gbias = d2.sum(IntArrayRef{0}).view(normalized_shape);
  }
  return {gi, gweight, gbias};
}

namespace {

void group_norm_checks(const char* op, const Tensor& input, const std::optional<Tensor>& weight,
                       const std::optional<Tensor>& bias, int64_t N, int64_t C, int64_t HxW, int64_t group) {
  EMBER_CHECK(input.dim() >= 2 && input.sizes()[0] == N && input.sizes()[1] == C && input.numel() == N * C * HxW,
              op, "(): expected input of shape (N=", N, ", C=", C, ", *) with HxW=", HxW,
              " elements per channel, but got input of shape ", input.sizes());
  EMBER_CHECK(group > 0 && C % group == 0, op, "(): expected the number of channels (", C,
              ") to be divisible by num_groups (", group, ")");
  check_param(op, "weight", weight, C, input.scalar_type());
  check_param(op, "bias", bias, C, input.scalar_type());
}

}  // namespace

std::tuple<Tensor, Tensor, Tensor> native_group_norm_cpu(const Tensor& input, const std::optional<Tensor>& weight,
                                                         const std::optional<Tensor>& bias, int64_t N, int64_t C,
                                                         int64_t HxW, int64_t group, double eps) {
  const char* op = "native_group_norm";
  group_norm_checks(op, input, weight, bias, N, C, HxW, group);
  const Tensor x = input.contiguous();
  Tensor y = ember::empty(input.sizes(), input.options());
  Tensor mean = ember::empty({N, group}, input.options());
  Tensor rstd = ember::empty({N, group}, input.options());
  const Tensor wt = contig(weight), bs = contig(bias);
  const int64_t cg = C / group, row = cg * HxW;
  dispatch_norm(input.scalar_type(), op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* xp = static_cast<T*>(x.data_ptr());
    T* yp = static_cast<T*>(y.data_ptr());
    T* mp = static_cast<T*>(mean.data_ptr());
    T* rp = static_cast<T*>(rstd.data_ptr());
    const T* wp = ptr_or_null<T>(wt);
    const T* bp = ptr_or_null<T>(bs);
    parallel_for(0, N * group, std::max<int64_t>(1, 32768 / std::max<int64_t>(row, 1)), [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        const T* p = xp + r * row;
        T* q = yp + r * row;
        double sum = 0;
        for (int64_t i = 0; i < row; ++i) sum += p[i];
        const double mu = row ? sum / row : 0.0;
        double sq = 0;
        for (int64_t i = 0; i < row; ++i) {
          const double dv = p[i] - mu;
          sq += dv * dv;
        }
        const double rs = 1.0 / std::sqrt((row ? sq / row : 0.0) + eps);
        mp[r] = static_cast<T>(mu);
        rp[r] = static_cast<T>(rs);
        const int64_t c0 = (r % group) * cg;
        for (int64_t j = 0; j < cg; ++j) {
          const double sc = rs * (wp ? static_cast<double>(wp[c0 + j]) : 1.0);
          const T a = static_cast<T>(sc);
          const T b = static_cast<T>((bp ? static_cast<double>(bp[c0 + j]) : 0.0) - mu * sc);
          const T* pj = p + j * HxW;
          T* qj = q + j * HxW;
          for (int64_t i = 0; i < HxW; ++i) qj[i] = pj[i] * a + b;
        }
      }
    });
  });
  return {y, mean, rstd};
}

std::tuple<Tensor, Tensor, Tensor> native_group_norm_backward_cpu(
    const Tensor& grad_out, const Tensor& input, const Tensor& mean, const Tensor& rstd,
    const std::optional<Tensor>& weight, int64_t N, int64_t C, int64_t HxW, int64_t group,
    std::array<bool, 3> output_mask) {
  const char* op = "native_group_norm_backward";
  group_norm_checks(op, input, weight, std::nullopt, N, C, HxW, group);
  EMBER_CHECK(grad_out.sizes() == input.sizes(), op, "(): expected grad_out of shape ", input.sizes(),
              ", but got ", grad_out.sizes());
  EMBER_CHECK(mean.numel() == N * group && rstd.numel() == N * group, op, "(): expected mean and rstd with ",
              N * group, " elements, but got ", mean.sizes(), " and ", rstd.sizes());
  const ScalarType dt = input.scalar_type();
  for (const Tensor* t : {&grad_out, &mean, &rstd}) {
    EMBER_CHECK(t->scalar_type() == dt, op, "(): expected grad_out, mean and rstd of dtype ", dt, ", but got ",
                t->scalar_type());
  }
  const Tensor x = input.contiguous(), dy = grad_out.contiguous();
  const Tensor mc = mean.contiguous(), rc = rstd.contiguous(), wt = contig(weight);
  const int64_t cg = C / group, row = cg * HxW;
  Tensor gi = output_mask[0] ? ember::empty(input.sizes(), input.options()) : Tensor();
  // Per (n, c): sum(dy) and sum(dy * x), the pieces of every gradient.
  Tensor ds = ember::empty({N, C}, input.options().dtype(ScalarType::Double));
  Tensor db = ember::empty({N, C}, input.options().dtype(ScalarType::Double));
  dispatch_norm(dt, op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* xp = static_cast<T*>(x.data_ptr());
    const T* gp = static_cast<T*>(dy.data_ptr());
    const T* mp = static_cast<T*>(mc.data_ptr());
    const T* rp = static_cast<T*>(rc.data_ptr());
    const T* wp = ptr_or_null<T>(wt);
    double* dsp = static_cast<double*>(ds.data_ptr());
    double* dbp = static_cast<double*>(db.data_ptr());
    T* dx = gi.defined() ? static_cast<T*>(gi.data_ptr()) : nullptr;
    parallel_for(0, N * group, std::max<int64_t>(1, 16384 / std::max<int64_t>(row, 1)), [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        const int64_t n = r / group, c0 = (r % group) * cg;
        const double mu = mp[r], rs = rp[r];
        // Per channel: sum(dy * x) and sum(dy).
        double sgw = 0, sgwx = 0;  // sums over the group of g = dy * w and g * x
        for (int64_t j = 0; j < cg; ++j) {
          const T* p = xp + r * row + j * HxW;
          const T* d = gp + r * row + j * HxW;
          double s1 = 0, s2 = 0;
          for (int64_t i = 0; i < HxW; ++i) {
            s1 += d[i] * static_cast<double>(p[i]);
            s2 += d[i];
          }
          dsp[n * C + c0 + j] = s1;
          dbp[n * C + c0 + j] = s2;
          const double wv = wp ? static_cast<double>(wp[c0 + j]) : 1.0;
          sgw += s2 * wv;
          sgwx += s1 * wv;
        }
        if (!dx) continue;
        // xhat = (x - mu) * rs; dx = rs * (g - mean(g) - xhat * mean(g * xhat)).
        const double a = row ? sgw / row : 0.0;
        const double b = row ? (sgwx - mu * sgw) * rs / row : 0.0;
        for (int64_t j = 0; j < cg; ++j) {
          const double wv = wp ? static_cast<double>(wp[c0 + j]) : 1.0;
          const T* p = xp + r * row + j * HxW;
          const T* d = gp + r * row + j * HxW;
          T* q = dx + r * row + j * HxW;
          for (int64_t i = 0; i < HxW; ++i) {
            q[i] = static_cast<T>(rs * (d[i] * wv - a - (p[i] - mu) * rs * b));
          }
        }
      }
    });
  });
  Tensor gweight, gbias;
  if (output_mask[1]) {
    // sum over n of rs[n, g] * (sum(dy * x) - mu[n, g] * sum(dy)) per channel.
    const Tensor m = mc.to(ScalarType::Double).view({N, group, 1});
    const Tensor r = rc.to(ScalarType::Double).view({N, group, 1});
    gweight = ((ds.view({N, group, cg}) - m * db.view({N, group, cg})) * r).sum(IntArrayRef{0}).view({C}).to(dt);
  }
  if (output_mask[2]) gbias = db.sum(IntArrayRef{0}).to(dt);
  return {gi, gweight, gbias};
}

EMBER_CPU_NAMESPACE_END
}  // namespace ember::native
