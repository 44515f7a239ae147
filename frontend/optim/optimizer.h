#pragma once
/// optim::Optimizer: libtorch's base of the optimizers: parameter groups, each with its own
/// options (a clone of the defaults unless given), and per-parameter state.

#include <functional>
#include <memory>
#include <unordered_map>
#include <vector>

#include "c10/core/Tensor.h"
#include "c10/macros/Export.h"
#include "frontend/nn/arg.h"

namespace ember::optim {

/// The state an optimizer keeps for one parameter (momentum buffers, moments, step).
class EMBER_API OptimizerParamState {
 public:
  OptimizerParamState() = default;
  OptimizerParamState(const OptimizerParamState&) = default;
  OptimizerParamState& operator=(const OptimizerParamState&) = default;
  virtual ~OptimizerParamState() = default;
  /// A copy of the state.
  virtual std::unique_ptr<OptimizerParamState> clone() const;
};

/// A state type whose clone() copies the Derived object.
template <class Derived>
class OptimizerCloneableParamState : public OptimizerParamState {
 public:
  std::unique_ptr<OptimizerParamState> clone() const override {
    return std::make_unique<Derived>(static_cast<const Derived&>(*this));
  }
};

/// The options of a parameter group (lr, ...).
class EMBER_API OptimizerOptions {
 public:
  OptimizerOptions() = default;
  OptimizerOptions(const OptimizerOptions&) = default;
  OptimizerOptions& operator=(const OptimizerOptions&) = default;
  virtual ~OptimizerOptions() = default;
  /// A copy of the options.
  virtual std::unique_ptr<OptimizerOptions> clone() const;
  /// The learning rate (what a scheduler reads and writes).
  virtual double get_lr() const;
  virtual void set_lr(double lr);
};

/// An options type whose clone() copies the Derived object.
template <class Derived>
class OptimizerCloneableOptions : public OptimizerOptions {
 public:
  std::unique_ptr<OptimizerOptions> clone() const override {
    return std::make_unique<Derived>(static_cast<const Derived&>(*this));
  }
};

/// Parameters optimised with the same options.
class EMBER_API OptimizerParamGroup {
 public:
  OptimizerParamGroup(const OptimizerParamGroup& other);
  OptimizerParamGroup& operator=(const OptimizerParamGroup& other);
  OptimizerParamGroup(OptimizerParamGroup&&) noexcept = default;
  OptimizerParamGroup& operator=(OptimizerParamGroup&&) noexcept = default;
  /// A group that takes the optimizer's defaults.
  OptimizerParamGroup(std::vector<Tensor> params) : params_(std::move(params)) {}  // NOLINT
  /// A group with its own options.
  OptimizerParamGroup(std::vector<Tensor> params, std::unique_ptr<OptimizerOptions> options)
      : params_(std::move(params)), options_(std::move(options)) {}

  /// Whether the group has options (the optimizer gives every group some).
  bool has_options() const { return options_ != nullptr; }
  /// The group's options; cast to the optimizer's type (`static_cast<SGDOptions&>`).
  OptimizerOptions& options();
  const OptimizerOptions& options() const;
  void set_options(std::unique_ptr<OptimizerOptions> options) { options_ = std::move(options); }
  /// The group's parameters.
  std::vector<Tensor>& params() { return params_; }
  const std::vector<Tensor>& params() const { return params_; }

 private:
  std::vector<Tensor> params_;
  std::unique_ptr<OptimizerOptions> options_;
};

/// The base of the optimizers: step() updates the parameters from their .grad().
class EMBER_API Optimizer {
 public:
  /// A closure that re-evaluates the model and returns the loss.
  using LossClosure = std::function<Tensor()>;

  Optimizer(const Optimizer&) = delete;
  Optimizer& operator=(const Optimizer&) = delete;
  Optimizer(Optimizer&&) = default;
  Optimizer& operator=(Optimizer&&) = default;
  /// An optimizer over param_groups with defaults for groups without options.
  Optimizer(const std::vector<OptimizerParamGroup>& param_groups,
            std::unique_ptr<OptimizerOptions> defaults);
  /// An optimizer over one group of parameters.
  Optimizer(std::vector<Tensor> parameters, std::unique_ptr<OptimizerOptions> defaults);
  virtual ~Optimizer() = default;

  /// Adds a group (options cloned from the defaults when it has none); a parameter may be
  /// in only one group.
  void add_param_group(const OptimizerParamGroup& param_group);
  /// Performs one update; returns the closure's loss (undefined without a closure).
  virtual Tensor step(LossClosure closure = nullptr) = 0;
  /// Adds parameters to the first group.
  void add_parameters(const std::vector<Tensor>& parameters);
  /// Clears (set_to_none) or zeroes the gradients of every parameter.
  void zero_grad(bool set_to_none = true);
  /// The first group's parameters.
  const std::vector<Tensor>& parameters() const noexcept;
  std::vector<Tensor>& parameters() noexcept;
  /// The number of parameters over all groups.
  size_t size() const noexcept;
  /// The options of groups added without their own.
  OptimizerOptions& defaults() noexcept { return *defaults_; }
  const OptimizerOptions& defaults() const noexcept { return *defaults_; }
  /// The parameter groups.
  std::vector<OptimizerParamGroup>& param_groups() noexcept { return param_groups_; }
  const std::vector<OptimizerParamGroup>& param_groups() const noexcept { return param_groups_; }
  /// Per-parameter state, keyed by the parameter's TensorImpl.
  std::unordered_map<void*, std::unique_ptr<OptimizerParamState>>& state() noexcept { return state_; }
  const std::unordered_map<void*, std::unique_ptr<OptimizerParamState>>& state() const noexcept {
    return state_;
  }

 protected:
  /// Runs closure (if any) with grad mode on and returns its loss.
  static Tensor run_closure(const LossClosure& closure);

  std::vector<OptimizerParamGroup> param_groups_;
  std::unordered_map<void*, std::unique_ptr<OptimizerParamState>> state_;
  std::unique_ptr<OptimizerOptions> defaults_;
};

}  // namespace ember::optim
