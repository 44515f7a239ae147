// Neural-network operators built from other ops: embedding (and its backward), one_hot, the
// dropouts, pixel_shuffle/unshuffle, cosine_similarity, pairwise_distance and cdist.
#include <cmath>
#include <vector>

#include "aten/TensorOperators.h"
#include "aten/native/DimUtils.h"
#include "c10/util/Exception.h"
#include "ember/generated/ops/bincount.h"
#include "ember/generated/ops/clamp_min.h"
#include "ember/generated/ops/empty.h"
#include "ember/generated/ops/empty_like.h"
#include "ember/generated/ops/linalg_vector_norm.h"
#include "ember/generated/ops/split.h"
#include "ember/generated/ops/split_native.h"
#include "ember/generated/ops/zeros.h"

namespace ember::native {
namespace {

void check_indices(const char* op, const Tensor& indices) {
  EMBER_CHECK(indices.scalar_type() == ScalarType::Long || indices.scalar_type() == ScalarType::Int,
              op, "(): expected 'indices' of dtype int64 or int32, but got ", indices.scalar_type());
}

}  // namespace

// ---- embedding ------------------------------------------------------------------------------

Tensor embedding(const Tensor& weight, const Tensor& indices, int64_t padding_idx, bool scale_grad_by_freq,
                 bool sparse) {
  // padding_idx and scale_grad_by_freq shape the gradient only; sparse=True still gives a
  // dense gradient (Ember has no sparse gradients yet).
  (void)padding_idx, (void)scale_grad_by_freq, (void)sparse;
  EMBER_CHECK(weight.dim() == 2, "embedding(): expected 'weight' to be 2-d, but got ", weight.dim(), "-d");
  check_indices("embedding", indices);
  DimVector sizes(indices.sizes());
  sizes.push_back(weight.sizes()[1]);
  return weight.index_select(0, indices.reshape({-1})).view(sizes);
}

Tensor embedding_dense_backward(const Tensor& grad_output, const Tensor& indices, int64_t num_weights,
                                int64_t padding_idx, bool scale_grad_by_freq) {
  check_indices("embedding_dense_backward", indices);
  const int64_t d = grad_output.dim() > 0 ? grad_output.sizes()[grad_output.dim() - 1] : 1;
  const Tensor idx = indices.reshape({-1}).to(ScalarType::Long);
  Tensor g = grad_output.reshape({-1, d});
  if (padding_idx >= 0) g = g.masked_fill(idx.eq(padding_idx).unsqueeze(1), 0);
  if (scale_grad_by_freq) {
    const Tensor counts = ember::bincount(idx, std::nullopt, num_weights).to(g.scalar_type());
    g = g / counts.index_select(0, idx).unsqueeze(1);
  }
  return ember::zeros({num_weights, d}, grad_output.options()).index_add(0, idx, g);
}

Tensor one_hot(const Tensor& self, int64_t num_classes) {
  EMBER_CHECK(self.scalar_type() == ScalarType::Long, "one_hot is only applicable to index tensor of "
              "type LongTensor.");
  if (num_classes == -1) {
    EMBER_CHECK(self.numel() > 0, "Can not infer total number of classes from empty tensor.");
    num_classes = self.max().item().to<int64_t>() + 1;
  }
  EMBER_CHECK(num_classes >= 0, "one_hot(): expected 'num_classes' to be -1 or non-negative, but got ",
              num_classes);
  if (self.numel() > 0) {
    EMBER_CHECK(self.min().item().to<int64_t>() >= 0, "Class values must be non-negative.");
    EMBER_CHECK(self.max().item().to<int64_t>() < num_classes, "Class values must be smaller than num_classes.");
  }
  DimVector sizes(self.sizes());
  sizes.push_back(num_classes);
  Tensor out = ember::zeros(sizes, self.options());
  if (self.numel() == 0) return out;
  return out.scatter_(-1, self.unsqueeze(-1), 1);
}

// ---- dropout --------------------------------------------------------------------------------

namespace {

void check_p(const char* op, double p) {
  EMBER_CHECK(p >= 0 && p <= 1, op, "(): dropout probability has to be between 0 and 1, but got ", p);
}

// The noise of a (feature) dropout: kept with probability 1 - p, one draw per element or
// (feature) per [N, C] channel.
Tensor dropout_noise(const Tensor& input, double p, bool feature) {
  if (!feature) return ember::empty_like(input).bernoulli_(1 - p);
  EMBER_CHECK(input.dim() >= 2, "Feature dropout requires at least 2 dimensions in the input");
  DimVector sizes(input.dim(), 1);
  sizes[0] = input.sizes()[0];
  sizes[1] = input.sizes()[1];
  return ember::empty(sizes, input.options()).bernoulli_(1 - p);
}

// PyTorch's _dropout_impl: plain (x * noise / (1 - p)) or alpha (keeps SELU's mean and
// variance: x * a * noise + a * alpha' * (1 - noise) ... with alpha' = -SELU's saturation).
Tensor dropout_impl(const char* op, const Tensor& input, double p, bool train, bool feature, bool alpha) {
  check_p(op, p);
  if (p == 0 || !train || input.numel() == 0) return input;
  if (p == 1) return input * ember::zeros({}, input.options());
  Tensor noise = dropout_noise(input, p, feature);
  if (alpha) {
    constexpr double kAlpha = 1.7580993408473766;
    const double a = 1.0 / std::sqrt((kAlpha * kAlpha * p + 1) * (1 - p));
    const Tensor b = (noise - 1) * (kAlpha * a) + kAlpha * a * p;
    return input * (noise * a) + b;
  }
  return input * (noise / (1 - p));
}

Tensor& dropout_impl_(const char* op, Tensor& self, double p, bool train, bool feature, bool alpha) {
  check_p(op, p);
  if (p == 0 || !train || self.numel() == 0) return self;
  if (p == 1) {
    self.mul_(0);
    return self;
  }
  Tensor noise = dropout_noise(self, p, feature);
  if (alpha) {
    constexpr double kAlpha = 1.7580993408473766;
    const double a = 1.0 / std::sqrt((kAlpha * kAlpha * p + 1) * (1 - p));
    const Tensor b = (noise - 1) * (kAlpha * a) + kAlpha * a * p;
    self.mul_(noise * a).add_(b);
    return self;
  }
  self.mul_(noise / (1 - p));
  return self;
}

}  // namespace

Tensor dropout(const Tensor& input, double p, bool train) {
  return dropout_impl("dropout", input, p, train, false, false);
}
Tensor& dropout_(Tensor& self, double p, bool train) {
  return dropout_impl_("dropout_", self, p, train, false, false);
}
Tensor feature_dropout(const Tensor& input, double p, bool train) {
  return dropout_impl("feature_dropout", input, p, train, true, false);
}
Tensor& feature_dropout_(Tensor& self, double p, bool train) {
  return dropout_impl_("feature_dropout_", self, p, train, true, false);
}
Tensor alpha_dropout(const Tensor& input, double p, bool train) {
  return dropout_impl("alpha_dropout", input, p, train, false, true);
}
Tensor& alpha_dropout_(Tensor& self, double p, bool train) {
  return dropout_impl_("alpha_dropout_", self, p, train, false, true);
}
Tensor feature_alpha_dropout(const Tensor& input, double p, bool train) {
  return dropout_impl("feature_alpha_dropout", input, p, train, true, true);
}

// ---- pixel shuffle ----------------------------------------------------------------------------

Tensor pixel_shuffle(const Tensor& self, int64_t upscale_factor) {
  EMBER_CHECK(self.dim() >= 3, "pixel_shuffle expects input to have at least 3 dimensions, but got input "
              "with ", self.dim(), " dimension(s)");
  EMBER_CHECK(upscale_factor > 0, "pixel_shuffle expects a positive upscale_factor, but got ", upscale_factor);
  if (upscale_factor == 1) return self.clone();  // a new tensor, as PyTorch's kernel gives
  const int64_t r = upscale_factor, nd = self.dim();
  const int64_t c = self.sizes()[nd - 3], h = self.sizes()[nd - 2], w = self.sizes()[nd - 1];
  EMBER_CHECK(c % (r * r) == 0, "pixel_shuffle expects its input's 'channel' dimension to be divisible by "
              "the square of upscale_factor, but input.size(-3)=", c, " is not divisible by ", r * r);
  DimVector batch(IntArrayRef(self.sizes().data(), static_cast<size_t>(nd - 3)));
  DimVector split(batch), out(batch);
  for (int64_t s : {c / (r * r), r, r, h, w}) split.push_back(s);
  for (int64_t s : {c / (r * r), h * r, w * r}) out.push_back(s);
  const int64_t b = static_cast<int64_t>(batch.size());
  DimVector perm;
  for (int64_t i = 0; i < b; ++i) perm.push_back(i);
  for (int64_t i : {0, 3, 1, 4, 2}) perm.push_back(b + i);
  return self.reshape(split).permute(perm).reshape(out);
}

Tensor pixel_unshuffle(const Tensor& self, int64_t downscale_factor) {
  EMBER_CHECK(self.dim() >= 3, "pixel_unshuffle expects input to have at least 3 dimensions, but got input "
              "with ", self.dim(), " dimension(s)");
  EMBER_CHECK(downscale_factor > 0, "pixel_unshuffle expects a positive downscale_factor, but got ",
              downscale_factor);
  if (downscale_factor == 1) return self.clone();
  const int64_t r = downscale_factor, nd = self.dim();
  const int64_t c = self.sizes()[nd - 3], h = self.sizes()[nd - 2], w = self.sizes()[nd - 1];
  EMBER_CHECK(h % r == 0 && w % r == 0, "pixel_unshuffle expects height and width to be divisible by "
              "downscale_factor, but got ", h, "x", w, " and ", r);
  DimVector batch(IntArrayRef(self.sizes().data(), static_cast<size_t>(nd - 3)));
  DimVector split(batch), out(batch);
  for (int64_t s : {c, h / r, r, w / r, r}) split.push_back(s);
  for (int64_t s : {c * r * r, h / r, w / r}) out.push_back(s);
  const int64_t b = static_cast<int64_t>(batch.size());
  DimVector perm;
  for (int64_t i = 0; i < b; ++i) perm.push_back(i);
  for (int64_t i : {0, 2, 4, 1, 3}) perm.push_back(b + i);
  return self.reshape(split).permute(perm).reshape(out);
}

// ---- distances ------------------------------------------------------------------------------

Tensor cosine_similarity(const Tensor& x1, const Tensor& x2, int64_t dim, double eps) {
  // PyTorch's form: each input divided by its norm clamped below at eps, then the dot product.
  const int64_t nd = std::max(x1.dim(), x2.dim());
  const int64_t d = wrap_dim("cosine_similarity", "dim", dim, nd);
  auto lift = [&](const Tensor& x) {  // leading size-1 dims up to nd
    std::vector<int64_t> s(static_cast<size_t>(nd - x.dim()), 1);
    s.insert(s.end(), x.sizes().begin(), x.sizes().end());
    return x.reshape(s);
  };
  const Tensor a = lift(x1), b = lift(x2);
  const Tensor n1 = ember::clamp_min(ember::linalg_vector_norm(a, 2, IntArrayRef(d), true, std::nullopt), eps);
  const Tensor n2 = ember::clamp_min(ember::linalg_vector_norm(b, 2, IntArrayRef(d), true, std::nullopt), eps);
  return ((a / n1) * (b / n2)).sum(IntArrayRef(d));
}

Tensor pairwise_distance(const Tensor& x1, const Tensor& x2, double p, double eps, bool keepdim) {
  const int64_t nd = std::max(x1.dim(), x2.dim());
  const int64_t d = nd == 0 ? 0 : nd - 1;
  const Tensor diff = x1 - x2 + eps;
  if (nd == 0) return ember::linalg_vector_norm(diff, p, std::nullopt, false, std::nullopt);
  return ember::linalg_vector_norm(diff, p, IntArrayRef(d), keepdim, std::nullopt);
}

Tensor cdist(const Tensor& x1, const Tensor& x2, double p, std::optional<int64_t> compute_mode) {
  (void)compute_mode;  // one method: the direct differences (exact for every p)
  EMBER_CHECK(x1.dim() >= 2 && x2.dim() >= 2, "cdist only supports at least 2D tensors, X1 got: ",
              x1.dim(), "D, X2 got: ", x2.dim(), "D");
  EMBER_CHECK(x1.sizes()[x1.dim() - 1] == x2.sizes()[x2.dim() - 1], "X1 and X2 must have the same number "
              "of columns. X1: ", x1.sizes()[x1.dim() - 1], " X2: ", x2.sizes()[x2.dim() - 1]);
  EMBER_CHECK(p >= 0, "cdist only supports non-negative p values");
  EMBER_CHECK(x1.scalar_type() == x2.scalar_type(), "cdist(): expected 'x1' and 'x2' of one dtype, but got ",
              x1.scalar_type(), " and ", x2.scalar_type());
  const Tensor diff = x1.unsqueeze(-2) - x2.unsqueeze(-3);  // [..., P, R, M]
  return ember::linalg_vector_norm(diff, p, IntArrayRef(int64_t{-1}), false, std::nullopt);
}

}  // namespace ember::native
