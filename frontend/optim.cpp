// The optimizers (frontend/optim/): the updates of torch.optim's single-tensor paths, as
// python/ember/optim/ implements them, so C++ and Python give the same bits.

#include <cmath>
#include <unordered_set>

#include "aten/autograd/GradMode.h"
#include "aten/autograd/Variable.h"
#include "c10/util/Exception.h"
#include "ember/generated/ops/clone.h"
#include "ember/generated/ops/maximum.h"
#include "ember/generated/ops/zeros_like.h"
#include "frontend/optim/adam.h"
#include "frontend/optim/optimizer.h"
#include "frontend/optim/rmsprop.h"
#include "frontend/optim/schedulers.h"
#include "frontend/optim/sgd.h"

namespace ember::optim {

// ---- Optimizer ---------------------------------------------------------------------------

std::unique_ptr<OptimizerParamState> OptimizerParamState::clone() const {
  EMBER_THROW(NotImplementedError, "OptimizerParamState::clone(): subclasses must override it ",
              "(derive from OptimizerCloneableParamState<Derived>)");
}

std::unique_ptr<OptimizerOptions> OptimizerOptions::clone() const {
  EMBER_THROW(NotImplementedError, "OptimizerOptions::clone(): subclasses must override it ",
              "(derive from OptimizerCloneableOptions<Derived>)");
}

double OptimizerOptions::get_lr() const {
  EMBER_THROW(NotImplementedError, "OptimizerOptions::get_lr(): these options have no lr");
}

void OptimizerOptions::set_lr(double) {
  EMBER_THROW(NotImplementedError, "OptimizerOptions::set_lr(): these options have no lr");
}

OptimizerParamGroup::OptimizerParamGroup(const OptimizerParamGroup& other)
    : params_(other.params_), options_(other.has_options() ? other.options_->clone() : nullptr) {}

OptimizerParamGroup& OptimizerParamGroup::operator=(const OptimizerParamGroup& other) {
  if (this != &other) {
    params_ = other.params_;
    options_ = other.has_options() ? other.options_->clone() : nullptr;
  }
  return *this;
}

OptimizerOptions& OptimizerParamGroup::options() {
  EMBER_CHECK(has_options(), "OptimizerParamGroup::options(): the group has no options");
  return *options_;
}

const OptimizerOptions& OptimizerParamGroup::options() const {
  EMBER_CHECK(has_options(), "OptimizerParamGroup::options(): the group has no options");
  return *options_;
}

Optimizer::Optimizer(const std::vector<OptimizerParamGroup>& param_groups,
                     std::unique_ptr<OptimizerOptions> defaults)
    : defaults_(std::move(defaults)) {
  for (const auto& group : param_groups) add_param_group(group);
}

Optimizer::Optimizer(std::vector<Tensor> parameters, std::unique_ptr<OptimizerOptions> defaults)
    : Optimizer(std::vector<OptimizerParamGroup>{OptimizerParamGroup(std::move(parameters))},
                std::move(defaults)) {}

void Optimizer::add_param_group(const OptimizerParamGroup& param_group) {
  std::unordered_set<const void*> seen;
  for (const auto& group : param_groups_) {
    for (const Tensor& p : group.params()) seen.insert(p.impl());
  }
  for (const Tensor& p : param_group.params()) {
    EMBER_CHECK_VALUE(p.defined(), "optimizer: expected defined parameters");
    EMBER_CHECK_VALUE(p.is_leaf(), "optimizer: can't optimize a non-leaf Tensor");
    EMBER_CHECK_VALUE(seen.insert(p.impl()).second,
                      "optimizer: some parameters appear in more than one parameter group");
  }
  OptimizerParamGroup group(param_group.params());
  group.set_options(param_group.has_options() ? param_group.options().clone() : defaults_->clone());
  param_groups_.push_back(std::move(group));
}

void Optimizer::add_parameters(const std::vector<Tensor>& parameters) {
  EMBER_CHECK(!param_groups_.empty(), "add_parameters(): the optimizer has no parameter group");
  auto& params = param_groups_[0].params();
  for (const Tensor& p : parameters) {
    EMBER_CHECK_VALUE(p.is_leaf(), "optimizer: can't optimize a non-leaf Tensor");
    params.push_back(p);
  }
}

void Optimizer::zero_grad(bool set_to_none) {
  for (auto& group : param_groups_) {
    for (const Tensor& p : group.params()) {
      const Tensor grad = p.grad();
      if (!grad.defined()) continue;
      if (set_to_none) {
        autograd::set_grad(p, Tensor());
      } else {
        autograd::NoGradGuard no_grad;
        grad.detach().zero_();
      }
    }
  }
}

const std::vector<Tensor>& Optimizer::parameters() const noexcept {
  return param_groups_.at(0).params();
}

std::vector<Tensor>& Optimizer::parameters() noexcept { return param_groups_.at(0).params(); }

size_t Optimizer::size() const noexcept {
  size_t n = 0;
  for (const auto& group : param_groups_) n += group.params().size();
  return n;
}

Tensor Optimizer::run_closure(const LossClosure& closure) {
  if (!closure) return Tensor();
  autograd::AutoGradMode enable(true);
  return closure();
}

namespace {

template <class State>
State& param_state(std::unordered_map<void*, std::unique_ptr<OptimizerParamState>>& states,
                   const Tensor& p, bool& fresh) {
  auto& slot = states[p.impl()];
  fresh = slot == nullptr;
  if (fresh) slot = std::make_unique<State>();
  return static_cast<State&>(*slot);
}

void check_non_negative(const char* optimizer, const char* what, double v) {
  EMBER_CHECK_VALUE(v >= 0, optimizer, ": invalid ", what, ": ", v, " (expected >= 0)");
}

void check_beta(const char* optimizer, int index, double beta) {
  EMBER_CHECK_VALUE(beta >= 0 && beta < 1, optimizer, ": invalid beta parameter at index ", index,
                    ": ", beta, " (expected 0 <= beta < 1)");
}

}  // namespace

// ---- SGD ---------------------------------------------------------------------------------

SGD::SGD(const std::vector<OptimizerParamGroup>& param_groups, SGDOptions defaults)
    : Optimizer(param_groups, std::make_unique<SGDOptions>(defaults)) {
  check_non_negative("SGD", "learning rate", defaults.lr());
  check_non_negative("SGD", "momentum value", defaults.momentum());
  check_non_negative("SGD", "weight_decay value", defaults.weight_decay());
  EMBER_CHECK_VALUE(!defaults.nesterov() || (defaults.momentum() > 0 && defaults.dampening() == 0),
                    "SGD: Nesterov momentum requires a momentum and zero dampening");
}

Tensor SGD::step(LossClosure closure) {
  Tensor loss = run_closure(closure);
  autograd::NoGradGuard no_grad;
  for (auto& group : param_groups_) {
    const auto& o = static_cast<const SGDOptions&>(group.options());
    for (const Tensor& p : group.params()) {
      Tensor grad = p.grad();
      if (!grad.defined()) continue;
      if (o.weight_decay() != 0) grad = grad.add(p, o.weight_decay());
      if (o.momentum() != 0) {
        bool fresh = false;
        auto& state = param_state<SGDParamState>(state_, p, fresh);
        Tensor& buf = state.momentum_buffer();
        if (fresh || !buf.defined()) {
          buf = ::ember::clone(grad).detach();
        } else {
          buf.mul_(o.momentum()).add_(grad, 1 - o.dampening());
        }
        grad = o.nesterov() ? grad.add(buf, o.momentum()) : buf;
      }
      p.add_(grad, -o.lr());
    }
  }
  return loss;
}

// ---- Adam and AdamW ----------------------------------------------------------------------

namespace {

struct AdamStep {
  double lr, beta1, beta2, eps, weight_decay;
  bool amsgrad, decoupled;
};

// One parameter's Adam update (torch.optim.adam._single_tensor_adam).
template <class State>
void adam_update(const Tensor& p, State& state, bool fresh, const AdamStep& s) {
  Tensor grad = p.grad();
  if (fresh) {
    state.exp_avg(::ember::zeros_like(p));
    state.exp_avg_sq(::ember::zeros_like(p));
    if (s.amsgrad) state.max_exp_avg_sq(::ember::zeros_like(p));
  }
  state.step(state.step() + 1);
  if (s.weight_decay != 0) {
    if (s.decoupled) {
      p.mul_(1 - s.lr * s.weight_decay);
    } else {
      grad = grad.add(p, s.weight_decay);
    }
  }
  const Tensor& exp_avg = state.exp_avg();
  const Tensor& exp_avg_sq = state.exp_avg_sq();
  exp_avg.lerp_(grad, 1 - s.beta1);
  exp_avg_sq.mul_(s.beta2).addcmul_(grad, grad, 1 - s.beta2);
  const double step = static_cast<double>(state.step());
  const double step_size = s.lr / (1 - std::pow(s.beta1, step));
  const double bias_correction2_sqrt = std::sqrt(1 - std::pow(s.beta2, step));
  Tensor denom;
  if (s.amsgrad) {
    const Tensor& max_sq = state.max_exp_avg_sq();
    ::ember::maximum_out(max_sq, max_sq, exp_avg_sq);
    denom = (max_sq.sqrt().div(bias_correction2_sqrt)).add_(s.eps);
  } else {
    denom = (exp_avg_sq.sqrt().div(bias_correction2_sqrt)).add_(s.eps);
  }
  p.addcdiv_(exp_avg, denom, -step_size);
}

template <class Options>
void check_adam_options(const char* name, const Options& o) {
  check_non_negative(name, "learning rate", o.lr());
  check_non_negative(name, "epsilon value", o.eps());
  check_beta(name, 0, std::get<0>(o.betas()));
  check_beta(name, 1, std::get<1>(o.betas()));
  check_non_negative(name, "weight_decay value", o.weight_decay());
}

}  // namespace

Adam::Adam(const std::vector<OptimizerParamGroup>& param_groups, AdamOptions defaults)
    : Optimizer(param_groups, std::make_unique<AdamOptions>(defaults)) {
  check_adam_options("Adam", defaults);
}

Tensor Adam::step(LossClosure closure) {
  Tensor loss = run_closure(closure);
  autograd::NoGradGuard no_grad;
  for (auto& group : param_groups_) {
    const auto& o = static_cast<const AdamOptions&>(group.options());
    const AdamStep s{o.lr(), std::get<0>(o.betas()), std::get<1>(o.betas()), o.eps(),
                     o.weight_decay(), o.amsgrad(), false};
    for (const Tensor& p : group.params()) {
      if (!p.grad().defined()) continue;
      bool fresh = false;
      auto& state = param_state<AdamParamState>(state_, p, fresh);
      adam_update(p, state, fresh, s);
    }
  }
  return loss;
}

AdamW::AdamW(const std::vector<OptimizerParamGroup>& param_groups, AdamWOptions defaults)
    : Optimizer(param_groups, std::make_unique<AdamWOptions>(defaults)) {
  check_adam_options("AdamW", defaults);
}

Tensor AdamW::step(LossClosure closure) {
  Tensor loss = run_closure(closure);
  autograd::NoGradGuard no_grad;
  for (auto& group : param_groups_) {
    const auto& o = static_cast<const AdamWOptions&>(group.options());
    const AdamStep s{o.lr(), std::get<0>(o.betas()), std::get<1>(o.betas()), o.eps(),
                     o.weight_decay(), o.amsgrad(), true};
    for (const Tensor& p : group.params()) {
      if (!p.grad().defined()) continue;
      bool fresh = false;
      auto& state = param_state<AdamWParamState>(state_, p, fresh);
      adam_update(p, state, fresh, s);
    }
  }
  return loss;
}

// ---- RMSprop -----------------------------------------------------------------------------

RMSprop::RMSprop(const std::vector<OptimizerParamGroup>& param_groups, RMSpropOptions defaults)
    : Optimizer(param_groups, std::make_unique<RMSpropOptions>(defaults)) {
  check_non_negative("RMSprop", "learning rate", defaults.lr());
  check_non_negative("RMSprop", "epsilon value", defaults.eps());
  check_non_negative("RMSprop", "momentum value", defaults.momentum());
  check_non_negative("RMSprop", "weight_decay value", defaults.weight_decay());
  check_non_negative("RMSprop", "alpha value", defaults.alpha());
}

Tensor RMSprop::step(LossClosure closure) {
  Tensor loss = run_closure(closure);
  autograd::NoGradGuard no_grad;
  for (auto& group : param_groups_) {
    const auto& o = static_cast<const RMSpropOptions&>(group.options());
    for (const Tensor& p : group.params()) {
      Tensor grad = p.grad();
      if (!grad.defined()) continue;
      bool fresh = false;
      auto& state = param_state<RMSpropParamState>(state_, p, fresh);
      if (fresh) {
        state.square_avg(::ember::zeros_like(p));
        if (o.momentum() > 0) state.momentum_buffer(::ember::zeros_like(p));
        if (o.centered()) state.grad_avg(::ember::zeros_like(p));
      }
      state.step(state.step() + 1);
      if (o.weight_decay() != 0) grad = grad.add(p, o.weight_decay());
      const Tensor& square_avg = state.square_avg();
      square_avg.mul_(o.alpha()).addcmul_(grad, grad, 1 - o.alpha());
      Tensor avg;
      if (o.centered()) {
        const Tensor& grad_avg = state.grad_avg();
        grad_avg.lerp_(grad, 1 - o.alpha());
        avg = square_avg.addcmul(grad_avg, grad_avg, -1).sqrt_();
      } else {
        avg = square_avg.sqrt();
      }
      avg = avg.add_(o.eps());
      if (o.momentum() > 0) {
        const Tensor& buf = state.momentum_buffer();
        buf.mul_(o.momentum()).addcdiv_(grad, avg);
        p.add_(buf, -o.lr());
      } else {
        p.addcdiv_(grad, avg, -o.lr());
      }
    }
  }
  return loss;
}

}  // namespace ember::optim

// ---- Schedulers --------------------------------------------------------------------------

namespace ember::optim {

void LRScheduler::step() {
  set_optimizer_lrs(get_lrs());
  ++step_count_;
}

std::vector<double> LRScheduler::get_current_lrs() const {
  std::vector<double> lrs;
  for (const auto& group : optimizer_.param_groups()) lrs.push_back(group.options().get_lr());
  return lrs;
}

void LRScheduler::set_optimizer_lrs(const std::vector<double>& learning_rates) {
  auto& groups = optimizer_.param_groups();
  EMBER_CHECK(learning_rates.size() == groups.size(), "LRScheduler: got ", learning_rates.size(),
              " learning rates for ", groups.size(), " parameter groups");
  for (size_t i = 0; i < groups.size(); ++i) groups[i].options().set_lr(learning_rates[i]);
}

StepLR::StepLR(Optimizer& optimizer, unsigned step_size, double gamma)
    : LRScheduler(optimizer), step_size_(step_size), gamma_(gamma) {
  EMBER_CHECK_VALUE(step_size > 0, "StepLR: expected a positive step_size");
}

std::vector<double> StepLR::get_lrs() {
  std::vector<double> lrs = get_current_lrs();
  if (step_count_ != 0 && step_count_ % step_size_ == 0) {
    for (double& lr : lrs) lr *= gamma_;
  }
  return lrs;
}

}  // namespace ember::optim
