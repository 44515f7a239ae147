#pragma once
/// optim::RMSprop (torch.optim.RMSprop's single-tensor update).

#include <vector>

#include "frontend/optim/optimizer.h"

namespace ember::optim {

/// RMSprop(params, RMSpropOptions(1e-2).alpha(0.99).eps(1e-8).weight_decay(0).momentum(0)
/// .centered(false)).
struct EMBER_API RMSpropOptions : public OptimizerCloneableOptions<RMSpropOptions> {
  /*implicit*/ RMSpropOptions(double lr = 1e-2) : lr_(lr) {}
  EMBER_ARG(double, lr);
  EMBER_ARG(double, alpha) = 0.99;
  EMBER_ARG(double, eps) = 1e-8;
  EMBER_ARG(double, weight_decay) = 0;
  EMBER_ARG(double, momentum) = 0;
  EMBER_ARG(bool, centered) = false;

 public:
  double get_lr() const override { return lr(); }
  void set_lr(double lr) override { this->lr(lr); }
};

/// RMSprop's state for a parameter.
struct EMBER_API RMSpropParamState : public OptimizerCloneableParamState<RMSpropParamState> {
  EMBER_ARG(int64_t, step) = 0;
  EMBER_ARG(Tensor, square_avg);
  EMBER_ARG(Tensor, momentum_buffer) = {};
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
