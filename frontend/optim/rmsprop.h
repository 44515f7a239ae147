#pragma once
/// optim::RMSprop (torch.optim.RMSprop's single-tensor update).

#include <vector>

#include "frontend/optim/optimizer.h"

namespace ember::optim {

/// RMSprop(params, RMSpropOptions(1e-2).alpha(0.99).eps(1e-8).weight_decay(0).momentum(0)
/// .centered(false)).
struct EMBER_API RMSpropOptions : public OptimizerCloneableOptions<RMSpropOptions> {
  /*implicit*/ RMSpropOptions(double lr = 1e-2) : lr_(lr) {}
  /// The learning rate.
  EMBER_ARG(double, lr);
  /// The smoothing constant of the squared-gradient average.
  EMBER_ARG(double, alpha) = 0.99;
  /// Added to the denominator for stability.
  EMBER_ARG(double, eps) = 1e-8;
  /// The L2 penalty (AdamW: the decoupled decay rate).
  EMBER_ARG(double, weight_decay) = 0;
  /// The momentum factor.
  EMBER_ARG(double, momentum) = 0;
  /// Whether to normalise by the gradient's estimated variance.
  EMBER_ARG(bool, centered) = false;

 public:
  double get_lr() const override { return lr(); }
  void set_lr(double lr) override { this->lr(lr); }
};

/// RMSprop's state for a parameter.
struct EMBER_API RMSpropParamState : public OptimizerCloneableParamState<RMSpropParamState> {
  /// The number of steps taken.
  EMBER_ARG(int64_t, step) = 0;
  /// The running average of squared gradients.
  EMBER_ARG(Tensor, square_avg);
  /// The momentum buffer.
  EMBER_ARG(Tensor, momentum_buffer) = {};
  /// The running average of gradients (centered).
  EMBER_ARG(Tensor, grad_avg) = {};
};

/// sq = alpha * sq + (1 - alpha) * g^2; avg = sqrt(sq - mean(g)^2 if centered) + eps;
/// p -= lr * g / avg (through a momentum buffer when momentum > 0).
class EMBER_API RMSprop : public Optimizer {
 public:
  explicit RMSprop(const std::vector<OptimizerParamGroup>& param_groups,
                   RMSpropOptions defaults = {});
  explicit RMSprop(std::vector<Tensor> params, RMSpropOptions defaults = {})
      : RMSprop(std::vector<OptimizerParamGroup>{OptimizerParamGroup(std::move(params))},
                defaults) {}
  Tensor step(LossClosure closure = nullptr) override;
};

}  // namespace ember::optim
