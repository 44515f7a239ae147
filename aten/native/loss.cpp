// Losses: the nll_loss kernels (forward and backward) and the composites built from ops
// (cross_entropy_loss, mse, l1, smooth_l1, huber, binary cross entropy with and without
// logits, kl_div, margin ranking, triplet margin, cosine embedding), whose gradients come
// from the ops they call. `reduction` is a Reduction (c10/core/Reduction.h): 0 none, 1 mean,
// 2 sum, as PyTorch's.
#include <cmath>
#include <limits>
#include <string>

#include "aten/TensorOperators.h"
#include "aten/native/Dispatch.h"
#include "c10/core/Reduction.h"
#include "c10/util/Exception.h"
#include "ember/generated/Functions.h"
#include "ember/generated/NativeFunctions.h"

namespace ember::native {
namespace {

void check_reduction(const char* op, int64_t reduction) {
  EMBER_CHECK_VALUE(reduction >= Reduction::None && reduction <= Reduction::Sum, op,
                    "(): 'reduction' must be 0 (none), "
                    "1 (mean) or 2 (sum), but got ", reduction);
}

Tensor reduce(const Tensor& loss, int64_t reduction) {
  if (reduction == Reduction::Mean) return loss.mean();
  if (reduction == Reduction::Sum) return loss.sum();
  return loss;
}

// The (N, C, S) walk of an nll_loss input [C], [N, C] or [N, C, d1, ...], its target
// checked against it: [], [N] or [N, d1, ...] of int64 or uint8.
struct NllShape {
  int64_t n = 1, c = 1, s = 1;
};

NllShape nll_shape(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight) {
  EMBER_CHECK(self.dim() >= 1, "nll_loss(): expected 'self' of 1 or more dimensions, but got 0");
  EMBER_CHECK(target.scalar_type() == ScalarType::Long || target.scalar_type() == ScalarType::Byte,
              "nll_loss(): expected target dtype to be Long or Byte, but got ", target.scalar_type());
  NllShape sh;
  if (self.dim() == 1) {
    EMBER_CHECK(target.dim() <= 1 && target.numel() == 1, "nll_loss(): a 1-d 'self' of shape ",
                self.sizes(), " takes a 0-d target, but got ", target.sizes());
    sh.c = self.sizes()[0];
  } else {
    sh.n = self.sizes()[0];
    sh.c = self.sizes()[1];
    EMBER_CHECK_VALUE(target.dim() == self.dim() - 1 && target.sizes()[0] == sh.n,
                      "Expected input batch_size (", sh.n, ") to match target batch_size (",
                      target.dim() > 0 ? target.sizes()[0] : 0, ").");
    for (int64_t d = 2; d < self.dim(); ++d) {
      EMBER_CHECK(target.sizes()[d - 1] == self.sizes()[d], "nll_loss(): expected target of shape ",
                  "[N, d1, ...] matching self ", self.sizes(), ", but got ",
                  target.sizes());
      sh.s *= self.sizes()[d];
    }
  }
  if (weight && weight->defined()) {
    EMBER_CHECK(weight->dim() == 1 && weight->numel() == sh.c, "weight tensor should be defined either "
                "for all ", sh.c, " classes or no classes but got weight tensor of shape: ",
                weight->sizes());
    EMBER_CHECK(weight->scalar_type() == self.scalar_type(), "nll_loss(): expected 'weight' of dtype ",
                self.scalar_type(), " (self's), but got ", weight->scalar_type());
  }
  return sh;
}

// The targets as int64, each checked to be a class or ignore_index.
Tensor nll_targets(const Tensor& target, int64_t classes, int64_t ignore_index) {
  Tensor t = target.to(ScalarType::Long).contiguous();
  const int64_t* p = static_cast<const int64_t*>(t.data_ptr());
  for (int64_t i = 0; i < t.numel(); ++i) {
    EMBER_CHECK_INDEX(p[i] == ignore_index || (p[i] >= 0 && p[i] < classes), "Target ", p[i],
                      " is out of bounds.");
  }
  return t;
}

template <class F>
void dispatch_loss_type(ScalarType dt, const char* op, F&& f) {
  EMBER_CHECK_NOT_IMPLEMENTED(dt == ScalarType::Float || dt == ScalarType::Double, op,
                              "(): not implemented for dtype ", dt);
  if (dt == ScalarType::Float) f(TypeTag<float>{});
  else f(TypeTag<double>{});
}

}  // namespace

std::tuple<Tensor, Tensor> nll_loss_forward_cpu(const Tensor& self, const Tensor& target,
                                                const std::optional<Tensor>& weight, int64_t reduction,
                                                int64_t ignore_index) {
  check_reduction("nll_loss", reduction);
  const NllShape sh = nll_shape(self, target, weight);
  const Tensor t = nll_targets(target, sh.c, ignore_index);
  const Tensor x = self.contiguous();
  const bool has_w = weight && weight->defined();
  const Tensor w = has_w ? weight->contiguous() : Tensor();
  Tensor out = reduction == Reduction::None ? ember::empty(target.sizes(), self.options())
                                  : ember::empty({}, self.options());
  Tensor total = ember::empty({}, self.options());
  dispatch_loss_type(self.scalar_type(), "nll_loss", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* px = static_cast<const T*>(x.data_ptr());
    const T* pw = has_w ? static_cast<const T*>(w.data_ptr()) : nullptr;
    const int64_t* pt = static_cast<const int64_t*>(t.data_ptr());
    T* po = static_cast<T*>(out.data_ptr());
    double sum = 0, wsum = 0;
    for (int64_t n = 0; n < sh.n; ++n) {
      for (int64_t s = 0; s < sh.s; ++s) {
        const int64_t i = n * sh.s + s, cls = pt[i];
        if (cls == ignore_index) {
          if (reduction == Reduction::None) po[i] = T(0);
          continue;
        }
        const T wi = pw ? pw[cls] : T(1);
        const T li = -wi * px[(n * sh.c + cls) * sh.s + s];
        if (reduction == Reduction::None) po[i] = li;
        sum += static_cast<double>(li);
        wsum += static_cast<double>(wi);
      }
    }
    // PyTorch reports a total weight of 0 when a batch is not reduced (a 1-d input's
    // single term keeps its weight).
    const bool unreduced_batch = reduction == Reduction::None && self.dim() > 1;
    *static_cast<T*>(total.data_ptr()) = static_cast<T>(unreduced_batch ? 0.0 : wsum);
    if (reduction == Reduction::Sum) *po = static_cast<T>(sum);
    if (reduction == Reduction::Mean) *po = static_cast<T>(sum / wsum);  // 0/0: NaN, as PyTorch
  });
  return {out, total};
}

Tensor nll_loss_backward_cpu(const Tensor& grad_output, const Tensor& self, const Tensor& target,
                             const std::optional<Tensor>& weight, int64_t reduction, int64_t ignore_index,
                             const Tensor& total_weight) {
  check_reduction("nll_loss_backward", reduction);
  const NllShape sh = nll_shape(self, target, weight);
  const Tensor t = nll_targets(target, sh.c, ignore_index);
  EMBER_CHECK(reduction == Reduction::None ? grad_output.sizes() == target.sizes()
                                           : grad_output.numel() == 1,
              "nll_loss_backward(): expected 'grad_output' of shape ",
              reduction == Reduction::None ? target.sizes() : IntArrayRef(), ", but got ",
              grad_output.sizes());
  EMBER_CHECK(grad_output.scalar_type() == self.scalar_type() && total_weight.scalar_type() == self.scalar_type(),
              "nll_loss_backward(): expected 'grad_output' and 'total_weight' of self's dtype ",
              self.scalar_type(), ", but got ", grad_output.scalar_type(), " and ", total_weight.scalar_type());
  const bool has_w = weight && weight->defined();
  const Tensor w = has_w ? weight->contiguous() : Tensor();
  const Tensor g = grad_output.contiguous();
  Tensor gi = ember::zeros(self.sizes(), self.options());
  dispatch_loss_type(self.scalar_type(), "nll_loss_backward", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* pw = has_w ? static_cast<const T*>(w.data_ptr()) : nullptr;
    const int64_t* pt = static_cast<const int64_t*>(t.data_ptr());
    const T* pg = static_cast<const T*>(g.data_ptr());
    T* pi = static_cast<T*>(gi.data_ptr());
    T scale = reduction == Reduction::None ? T(1) : pg[0];
    if (reduction == Reduction::Mean) scale /= total_weight.to(self.scalar_type()).item().to<T>();
    for (int64_t n = 0; n < sh.n; ++n) {
      for (int64_t s = 0; s < sh.s; ++s) {
        const int64_t i = n * sh.s + s, cls = pt[i];
        if (cls == ignore_index) continue;
        const T wi = pw ? pw[cls] : T(1);
        pi[(n * sh.c + cls) * sh.s + s] = -wi * (reduction == Reduction::None ? pg[i] : scale);
      }
    }
  });
  return gi;
}

Tensor nll_loss(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight,
                int64_t reduction, int64_t ignore_index) {
  return std::get<0>(ember::nll_loss_forward(self, target, weight, reduction, ignore_index));
}

Tensor cross_entropy_loss(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight,
                          int64_t reduction, int64_t ignore_index, double label_smoothing) {
  check_reduction("cross_entropy", reduction);
  EMBER_CHECK(label_smoothing >= 0.0 && label_smoothing <= 1.0, "cross_entropy(): label_smoothing must "
              "be between 0.0 and 1.0. Got: ", label_smoothing);
  EMBER_CHECK(self.dim() >= 1, "cross_entropy(): expected 'self' of 1 or more dimensions, but got 0");
  const int64_t class_dim = self.dim() == 1 ? 0 : 1;
  const int64_t classes = self.sizes()[class_dim];
  const Tensor logp = ember::log_softmax(self, class_dim);
  const bool has_w = weight && weight->defined();
  // weight shaped to broadcast along the class dimension.
  Tensor wb;
  if (has_w) {
    EMBER_CHECK(weight->dim() == 1 && weight->numel() == classes, "weight tensor should be defined "
                "either for all ", classes, " classes or no classes but got weight tensor of shape: ",
                weight->sizes());
    DimVector shape(self.dim(), 1);
    shape[class_dim] = classes;
    wb = weight->view(shape);
  }
  if (is_floating_point(target.scalar_type())) {
    // Class probabilities.
    EMBER_CHECK(target.sizes() == self.sizes(), "cross_entropy(): expected a probability target of "
                "self's shape ", self.sizes(), ", but got ", target.sizes());
    Tensor tgt = label_smoothing > 0 ? target * (1 - label_smoothing) + label_smoothing / classes : target;
    Tensor prod = logp * tgt;
    if (has_w) prod = prod * wb;
    if (reduction == Reduction::None) return -prod.sum(IntArrayRef(class_dim));
    if (reduction == Reduction::Sum) return -prod.sum();
    return -prod.sum() / (static_cast<double>(self.numel()) / static_cast<double>(std::max<int64_t>(classes, 1)));
  }
  const Tensor nll = ember::nll_loss(logp, target, weight, reduction, ignore_index);
  if (label_smoothing == 0.0) return nll;
  const Tensor ignore = target.eq(ignore_index);
  Tensor smooth = -(has_w ? logp * wb : logp).sum(IntArrayRef(class_dim));
  smooth = smooth.masked_fill(ignore, 0.0);
  Tensor ret;
  if (reduction == Reduction::None) {
    ret = smooth;
  } else if (reduction == Reduction::Sum) {
    ret = smooth.sum();
  } else if (has_w) {
    const Tensor kept = target.masked_select(ignore.logical_not()).flatten();
    ret = smooth.sum() / weight->gather(0, kept).sum();
  } else {
    ret = smooth.sum() / ignore.logical_not().sum();
  }
  return nll * (1 - label_smoothing) + ret * (label_smoothing / static_cast<double>(classes));
}

namespace {
void check_same_shape(const char* op, const Tensor& self, const Tensor& target) {
  EMBER_CHECK_VALUE(self.sizes() == target.sizes(), op, "(): using a target size ",
                    target.sizes(), " that is different to the input size ",
                    self.sizes(), " is not supported; please ensure they have the same size.");
}
}  // namespace

Tensor mse_loss(const Tensor& self, const Tensor& target, int64_t reduction) {
  check_reduction("mse_loss", reduction);
  const Tensor d = self - target;
  return reduce(d * d, reduction);
}

Tensor l1_loss(const Tensor& self, const Tensor& target, int64_t reduction) {
  check_reduction("l1_loss", reduction);
  return reduce((self - target).abs(), reduction);
}

Tensor smooth_l1_loss(const Tensor& self, const Tensor& target, int64_t reduction, double beta) {
  check_reduction("smooth_l1_loss", reduction);
  EMBER_CHECK(beta >= 0, "smooth_l1_loss does not support negative values for beta.");
  if (beta == 0.0) return ember::l1_loss(self, target, reduction);
  const Tensor z = (self - target).abs();
  return reduce(ember::where(z.lt(beta), z * z * (0.5 / beta), z - 0.5 * beta), reduction);
}

Tensor huber_loss(const Tensor& self, const Tensor& target, int64_t reduction, double delta) {
  check_reduction("huber_loss", reduction);
  EMBER_CHECK(delta > 0, "huber_loss does not support non-positive values for delta.");
  // PyTorch's huber_loss computes in self's dtype.
  const Tensor z = (self - target.to(self.scalar_type())).abs();
  return reduce(ember::where(z.lt(delta), z * z * 0.5, (z - 0.5 * delta) * delta), reduction);
}

Tensor binary_cross_entropy(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight,
                            int64_t reduction) {
  check_reduction("binary_cross_entropy", reduction);
  check_same_shape("binary_cross_entropy", self, target);
  EMBER_CHECK(target.scalar_type() == self.scalar_type(), "binary_cross_entropy(): expected 'target' of "
              "self's dtype ", self.scalar_type(), ", but got ", target.scalar_type());
  // NaN fails too: its min/max is NaN.
  EMBER_CHECK(self.numel() == 0 || (self.min().item().to_double() >= 0 && self.max().item().to_double() <= 1),
              "all elements of input should be between 0 and 1");
  // PyTorch clamps each log at -100 so that 0 * log(0) stays finite.
  const Tensor log_p = ember::clamp_min(self.log(), -100);
  const Tensor log_q = ember::clamp_min((1 - self).log(), -100);
  Tensor loss = -(target * log_p + (1 - target) * log_q);
  // The weight scales in self's dtype (PyTorch's kernel computes in it).
  if (weight && weight->defined()) loss = loss * weight->to(self.scalar_type());
  return reduce(loss, reduction);
}

Tensor binary_cross_entropy_with_logits(const Tensor& self, const Tensor& target,
                                        const std::optional<Tensor>& weight,
                                        const std::optional<Tensor>& pos_weight, int64_t reduction) {
  check_reduction("binary_cross_entropy_with_logits", reduction);
  check_same_shape("binary_cross_entropy_with_logits", self, target);
  // (1 - t) x + (1 + (pw - 1) t) log(1 + exp(-x)), log(1 + exp(-x)) = softplus(-x) computed stably.
  const Tensor log_sig_neg = ember::clamp_min(-self, 0) + (-self.abs()).exp().log1p();
  Tensor loss;
  if (pos_weight && pos_weight->defined()) {
    const Tensor lw = (*pos_weight - 1) * target + 1;
    loss = (1 - target) * self + lw * log_sig_neg;
  } else {
    loss = (1 - target) * self + log_sig_neg;
  }
  if (weight && weight->defined()) loss = loss * *weight;
  // PyTorch's result takes target's dtype (its kernel writes into (1 - target) in place).
  return reduce(loss.to(target.scalar_type()), reduction);
}

Tensor kl_div(const Tensor& self, const Tensor& target, int64_t reduction, bool log_target) {
  check_reduction("kl_div", reduction);
  const Tensor loss = log_target ? target.exp() * (target - self)
                                 : target * ember::where(target.eq(0), ember::ones_like(target), target).log() - target * self;
  return reduce(loss, reduction);
}

Tensor margin_ranking_loss(const Tensor& input1, const Tensor& input2, const Tensor& target, double margin,
                           int64_t reduction) {
  check_reduction("margin_ranking_loss", reduction);
  return reduce(ember::clamp_min(-target * (input1 - input2) + margin, 0), reduction);
}

Tensor cosine_embedding_loss(const Tensor& input1, const Tensor& input2, const Tensor& target, double margin,
                             int64_t reduction) {
  check_reduction("cosine_embedding_loss", reduction);
  const int64_t td = target.dim();
  EMBER_CHECK(td <= 1, "cosine_embedding_loss(): 0D or 1D target tensor expected, multi-target not supported");
  if (td == 1) {
    EMBER_CHECK(input1.dim() == 2 && input2.dim() == 2, "cosine_embedding_loss(): 2D inputs expected "
                "for a 1D target, but got inputs of ", input1.dim(), "D and ", input2.dim(), "D");
  } else {
    EMBER_CHECK(input1.dim() == 1 && input2.dim() == 1, "cosine_embedding_loss(): 1D inputs expected "
                "for a 0D target, but got inputs of ", input1.dim(), "D and ", input2.dim(), "D");
  }
  const int64_t d = input1.dim() - 1;
  constexpr double kEps = 1e-12;
  const Tensor prod = (input1 * input2).sum(IntArrayRef(d));
  const Tensor mag1 = (input1 * input1).sum(IntArrayRef(d)) + kEps;
  const Tensor mag2 = (input2 * input2).sum(IntArrayRef(d)) + kEps;
  const Tensor cos = prod / (mag1 * mag2).sqrt();
  const Tensor zeros = ember::zeros_like(cos);
  const Tensor pos = 1 - cos;
  const Tensor neg = ember::clamp_min(cos - margin, 0);
  const Tensor out_pos = ember::where(target.eq(1), pos, zeros);
  const Tensor out_neg = ember::where(target.eq(-1), neg, zeros);
  return reduce(out_pos + out_neg, reduction);
}

Tensor triplet_margin_loss(const Tensor& anchor, const Tensor& positive, const Tensor& negative, double margin,
                           double p, double eps, bool swap, int64_t reduction) {
  check_reduction("triplet_margin_loss", reduction);
  const int64_t ad = anchor.dim(), pd = positive.dim(), nd = negative.dim();
  EMBER_CHECK(ad == pd && pd == nd, "The anchor, positive, and negative tensors are expected to have the "
              "same number of dimensions, but got: anchor ", ad, "D, positive ", pd, "D, and negative ",
              nd, "D inputs");
  const int64_t d = ad - 1;
  auto dist = [&](const Tensor& a, const Tensor& b) {
    return ember::linalg_vector_norm(a - b + eps, p, IntArrayRef(d), false, std::nullopt);
  };
  Tensor dpos = dist(anchor, positive), dneg = dist(anchor, negative);
  if (swap) dneg = ember::minimum(dneg, dist(positive, negative));
  return reduce(ember::clamp_min(dpos - dneg + margin, 0), reduction);
}

}  // namespace ember::native
