// Losses: the composites built from ops (nll_loss, cross_entropy_loss, mse, l1, smooth_l1,
// huber, binary cross entropy with and without logits, kl_div, margin ranking, triplet
// margin, cosine embedding), whose gradients come from the ops they call, and the checks the
// nll_loss kernels share (loss.h). The nll_loss loops are in cpu/loss.cpp. `reduction` is a
// Reduction (c10/core/Reduction.h): 0 none, 1 mean, 2 sum, as PyTorch's.
#include "aten/native/loss.h"

#include <cmath>
#include <limits>
#include <string>

#include "aten/TensorOperators.h"
#include "c10/util/DimVector.h"
#include "c10/util/Exception.h"
#include "ember/generated/ops/clamp_min.h"
#include "ember/generated/ops/l1_loss.h"
#include "ember/generated/ops/linalg_vector_norm.h"
#include "ember/generated/ops/log_softmax.h"
#include "ember/generated/ops/minimum.h"
#include "ember/generated/ops/nll_loss.h"
#include "ember/generated/ops/nll_loss_forward.h"
#include "ember/generated/ops/ones_like.h"
#include "ember/generated/ops/where.h"
#include "ember/generated/ops/zeros_like.h"

namespace ember::native {

void check_reduction(const char* op, int64_t reduction) {
  EMBER_CHECK_VALUE(reduction >= Reduction::None && reduction <= Reduction::Sum, op, "(): 'reduction' must be 0 (none), "
                    "1 (mean) or 2 (sum), but got ", reduction);
}

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

void check_nll_loss_backward(const Tensor& grad_output, const Tensor& self, const Tensor& target,
                             const Tensor& total_weight, int64_t reduction) {
  EMBER_CHECK(reduction == Reduction::None ? grad_output.sizes() == target.sizes() : grad_output.numel() == 1,
              "nll_loss_backward(): expected 'grad_output' of shape ",
              reduction == Reduction::None ? target.sizes() : IntArrayRef(), ", but got ",
              grad_output.sizes());
  EMBER_CHECK(grad_output.scalar_type() == self.scalar_type() && total_weight.scalar_type() == self.scalar_type(),
              "nll_loss_backward(): expected 'grad_output' and 'total_weight' of self's dtype ",
              self.scalar_type(), ", but got ", grad_output.scalar_type(), " and ", total_weight.scalar_type());
}

namespace {

Tensor reduce(const Tensor& loss, int64_t reduction) {
  if (reduction == Reduction::Mean) return loss.mean();
  if (reduction == Reduction::Sum) return loss.sum();
  return loss;
}

}  // namespace

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
