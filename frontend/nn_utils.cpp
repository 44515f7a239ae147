// nn::utils: gradient clipping (torch.nn.utils.clip_grad_norm_'s formula) and
// parameter <-> vector conversion.

#include "frontend/nn/utils.h"

#include <cmath>
#include <limits>

#include "aten/autograd/GradMode.h"
#include "c10/util/Exception.h"
#include "aten/TensorOperators.h"
#include "ember/generated/ops/cat.h"
#include "ember/generated/ops/clamp.h"
#include "ember/generated/ops/linalg_vector_norm.h"
#include "ember/generated/ops/stack.h"

namespace ember::nn::utils {

double clip_grad_norm_(const std::vector<Tensor>& parameters, double max_norm, double norm_type,
                       bool error_if_nonfinite) {
  autograd::NoGradGuard no_grad;
  std::vector<Tensor> grads;
  for (const Tensor& p : parameters) {
    if (p.defined() && p.grad().defined()) grads.push_back(p.grad());
  }
  if (grads.empty()) return 0.0;
  std::vector<Tensor> norms;
  for (const Tensor& g : grads) norms.push_back(::ember::linalg_vector_norm(g, norm_type));
  const Tensor total =
      norms.size() == 1 ? norms[0] : ::ember::linalg_vector_norm(::ember::stack(norms), norm_type);
  const double total_norm = total.item<double>();
  EMBER_CHECK(!error_if_nonfinite || std::isfinite(total_norm), "clip_grad_norm_(): the total ",
              "norm of order ", norm_type, " of the gradients is non-finite, so it cannot be ",
              "clipped; pass error_if_nonfinite=false to clip anyway");
  const Tensor coef = ::ember::clamp(max_norm / (total + 1e-6), std::nullopt, Scalar(1.0));
  for (const Tensor& g : grads) g.mul_(coef);
  return total_norm;
}

double clip_grad_norm_(const Tensor& parameter, double max_norm, double norm_type,
                       bool error_if_nonfinite) {
  return clip_grad_norm_(std::vector<Tensor>{parameter}, max_norm, norm_type, error_if_nonfinite);
}

void clip_grad_value_(const std::vector<Tensor>& parameters, double clip_value) {
  autograd::NoGradGuard no_grad;
  for (const Tensor& p : parameters) {
    if (p.defined() && p.grad().defined()) p.grad().clamp_(-clip_value, clip_value);
  }
}

Tensor parameters_to_vector(const std::vector<Tensor>& parameters) {
  std::vector<Tensor> flat;
  for (const Tensor& p : parameters) flat.push_back(p.reshape({-1}));
  return ::ember::cat(flat);
}

void vector_to_parameters(const Tensor& vec, const std::vector<Tensor>& parameters) {
  EMBER_CHECK_VALUE(vec.dim() == 1, "vector_to_parameters(): expected a 1-D vec, but got ",
                    vec.dim(), "-D");
  int64_t total = 0;
  for (const Tensor& p : parameters) total += p.numel();
  EMBER_CHECK_VALUE(total == vec.numel(), "vector_to_parameters(): vec has ", vec.numel(),
                    " elements, but the parameters have ", total);
  autograd::NoGradGuard no_grad;
  int64_t offset = 0;
  for (const Tensor& p : parameters) {
    p.copy_(vec.narrow(0, offset, p.numel()).view_as(p));
    offset += p.numel();
  }
}

}  // namespace ember::nn::utils
