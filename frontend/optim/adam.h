#pragma once
/// optim::Adam and optim::AdamW (torch.optim.Adam / AdamW's single-tensor updates).

#include <tuple>
#include <vector>

#include "frontend/optim/optimizer.h"

namespace ember::optim {

/// Adam(params, AdamOptions(1e-3).betas(std::make_tuple(0.9, 0.999)).eps(1e-8)
/// .weight_decay(0).amsgrad(false)).
struct EMBER_API AdamOptions : public OptimizerCloneableOptions<AdamOptions> {
  /*implicit*/ AdamOptions(double lr = 1e-3) : lr_(lr) {}
  using betas_t = std::tuple<double, double>;
  /// The learning rate.
  EMBER_ARG(double, lr);
  /// The decay rates of the first and second moment estimates.
  EMBER_ARG(betas_t, betas) = std::make_tuple(0.9, 0.999);
  /// Added to the denominator for stability.
  EMBER_ARG(double, eps) = 1e-8;
  /// The L2 penalty (AdamW: the decoupled decay rate).
  EMBER_ARG(double, weight_decay) = 0;
  /// Whether to divide by the running maximum of the second moment (AMSGrad).
  EMBER_ARG(bool, amsgrad) = false;

 public:
  double get_lr() const override { return lr(); }
  void set_lr(double lr) override { this->lr(lr); }
};

/// Adam's state for a parameter: the step count and the moment estimates.
struct EMBER_API AdamParamState : public OptimizerCloneableParamState<AdamParamState> {
  /// The number of steps taken.
  EMBER_ARG(int64_t, step) = 0;
  /// The first moment estimate.
  EMBER_ARG(Tensor, exp_avg);
  /// The second moment estimate.
  EMBER_ARG(Tensor, exp_avg_sq);
  /// The running maximum of exp_avg_sq (amsgrad).
  EMBER_ARG(Tensor, max_exp_avg_sq) = {};
};

/// Adam: weight decay added to the gradient (L2).
class EMBER_API Adam : public Optimizer {
 public:
  explicit Adam(const std::vector<OptimizerParamGroup>& param_groups, AdamOptions defaults = {});
  explicit Adam(std::vector<Tensor> params, AdamOptions defaults = {})
      : Adam(std::vector<OptimizerParamGroup>{OptimizerParamGroup(std::move(params))}, defaults) {}
  Tensor step(LossClosure closure = nullptr) override;
};

/// AdamW's options: Adam's, with weight_decay 1e-2 by default.
struct EMBER_API AdamWOptions : public OptimizerCloneableOptions<AdamWOptions> {
  /*implicit*/ AdamWOptions(double lr = 1e-3) : lr_(lr) {}
  using betas_t = std::tuple<double, double>;
  /// The learning rate.
  EMBER_ARG(double, lr);
  /// The decay rates of the first and second moment estimates.
  EMBER_ARG(betas_t, betas) = std::make_tuple(0.9, 0.999);
  /// Added to the denominator for stability.
  EMBER_ARG(double, eps) = 1e-8;
  /// The L2 penalty (AdamW: the decoupled decay rate).
  EMBER_ARG(double, weight_decay) = 1e-2;
  /// Whether to divide by the running maximum of the second moment (AMSGrad).
  EMBER_ARG(bool, amsgrad) = false;

 public:
  double get_lr() const override { return lr(); }
  void set_lr(double lr) override { this->lr(lr); }
};

/// AdamW's state for a parameter (as Adam's).
struct EMBER_API AdamWParamState : public OptimizerCloneableParamState<AdamWParamState> {
  /// The number of steps taken.
  EMBER_ARG(int64_t, step) = 0;
  /// The first moment estimate.
  EMBER_ARG(Tensor, exp_avg);
  /// The second moment estimate.
  EMBER_ARG(Tensor, exp_avg_sq);
  /// The running maximum of exp_avg_sq (amsgrad).
  EMBER_ARG(Tensor, max_exp_avg_sq) = {};
};

/// AdamW: decoupled weight decay, p *= 1 - lr * weight_decay before the Adam update.
class EMBER_API AdamW : public Optimizer {
 public:
  explicit AdamW(const std::vector<OptimizerParamGroup>& param_groups, AdamWOptions defaults = {});
  explicit AdamW(std::vector<Tensor> params, AdamWOptions defaults = {})
      : AdamW(std::vector<OptimizerParamGroup>{OptimizerParamGroup(std::move(params))}, defaults) {}
  Tensor step(LossClosure closure = nullptr) override;
};

}  // namespace ember::optim
