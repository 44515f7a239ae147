#pragma once
/// optim::SGD: stochastic gradient descent with momentum, dampening, weight decay and
/// Nesterov momentum (torch.optim.SGD's update).

#include <vector>

#include "frontend/optim/optimizer.h"

namespace ember::optim {

/// SGD(params, SGDOptions(0.1).momentum(0.9).dampening(0).weight_decay(0).nesterov(false)).
struct EMBER_API SGDOptions : public OptimizerCloneableOptions<SGDOptions> {
  /*implicit*/ SGDOptions(double lr) : lr_(lr) {}
  /// The learning rate.
  EMBER_ARG(double, lr);
  /// The momentum factor.
  EMBER_ARG(double, momentum) = 0;
  /// Scales down the new gradient in the momentum buffer.
  EMBER_ARG(double, dampening) = 0;
  /// The L2 penalty (AdamW: the decoupled decay rate).
  EMBER_ARG(double, weight_decay) = 0;
  /// Whether to use Nesterov momentum.
  EMBER_ARG(bool, nesterov) = false;

 public:
  double get_lr() const override { return lr(); }
  void set_lr(double lr) override { this->lr(lr); }
};

/// SGD's state for a parameter: the momentum buffer.
struct EMBER_API SGDParamState : public OptimizerCloneableParamState<SGDParamState> {
  /// The momentum buffer.
  EMBER_ARG(Tensor, momentum_buffer);
};

/// g = grad + weight_decay * p; with momentum, buf = momentum * buf + (1 - dampening) * g
/// (buf = g at the first step) and g = buf (or g + momentum * buf with Nesterov);
/// p -= lr * g.
class EMBER_API SGD : public Optimizer {
 public:
  explicit SGD(const std::vector<OptimizerParamGroup>& param_groups, SGDOptions defaults);
  explicit SGD(std::vector<Tensor> params, SGDOptions defaults)
      : SGD(std::vector<OptimizerParamGroup>{OptimizerParamGroup(std::move(params))}, defaults) {}
  Tensor step(LossClosure closure = nullptr) override;
};

}  // namespace ember::optim
