#pragma once
/// Learning-rate schedulers: libtorch's LRScheduler and StepLR (its step counting: the
/// first decay comes at the (step_size + 1)-th step() call).

#include <vector>

#include "c10/macros/Export.h"
#include "frontend/optim/optimizer.h"

namespace ember::optim {

/// The base of the schedulers: step() sets every group's lr to get_lrs().
class EMBER_API LRScheduler {
 public:
  explicit LRScheduler(Optimizer& optimizer) : optimizer_(optimizer) {}
  virtual ~LRScheduler() = default;
  /// Sets the learning rates for the next step, then counts the step.
  void step();

 protected:
  /// The learning rates of the groups for the next step.
  virtual std::vector<double> get_lrs() = 0;
  /// The groups' learning rates now.
  std::vector<double> get_current_lrs() const;

  unsigned step_count_ = 0;

 private:
  void set_optimizer_lrs(const std::vector<double>& learning_rates);

  Optimizer& optimizer_;
};

/// Multiplies every learning rate by gamma each step_size steps.
class EMBER_API StepLR : public LRScheduler {
 public:
  StepLR(Optimizer& optimizer, unsigned step_size, double gamma = 0.1);

 private:
  std::vector<double> get_lrs() override;

  unsigned step_size_;
  double gamma_;
};

}  // namespace ember::optim
