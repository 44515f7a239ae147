#pragma once
/// Loss modules: MSELoss, L1Loss, SmoothL1Loss, NLLLoss, CrossEntropyLoss, BCELoss,
/// BCEWithLogitsLoss; forward(input, target).

#include <ostream>

#include "c10/core/Tensor.h"
#include "c10/macros/Export.h"
#include "frontend/nn/module.h"
#include "frontend/nn/options/loss.h"
#include "frontend/nn/pimpl.h"

namespace ember::nn {

#define EMBER_LOSS_MODULE(Name)                                              \
  class EMBER_API Name##Impl : public Cloneable<Name##Impl> {                \
   public:                                                                   \
    explicit Name##Impl(Name##Options options = {});                         \
    void reset() override;                                                   \
    void pretty_print(std::ostream& stream) const override;                  \
    Tensor forward(const Tensor& input, const Tensor& target);               \
    Name##Options options;                                                   \
  };                                                                         \
  EMBER_MODULE(Name)

/// The mean (or sum) of squared differences.
EMBER_LOSS_MODULE(MSELoss);
/// The mean (or sum) of absolute differences.
EMBER_LOSS_MODULE(L1Loss);
/// Quadratic below beta, linear above.
EMBER_LOSS_MODULE(SmoothL1Loss);
/// The negative log likelihood of class targets; input holds log-probabilities.
EMBER_LOSS_MODULE(NLLLoss);
/// log_softmax then nll_loss (or against class probabilities).
EMBER_LOSS_MODULE(CrossEntropyLoss);
/// The binary cross entropy of probabilities.
EMBER_LOSS_MODULE(BCELoss);
/// The binary cross entropy of logits, computed stably.
EMBER_LOSS_MODULE(BCEWithLogitsLoss);

#undef EMBER_LOSS_MODULE

}  // namespace ember::nn
