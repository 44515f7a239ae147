#pragma once
/// Options of the losses (modules and F:: functions): reduction is kMean, kSum or kNone.

#include <cstdint>

#include "c10/core/Tensor.h"
#include "frontend/nn/arg.h"
#include "frontend/nn/enum.h"

namespace ember::nn {

/// MSELoss(MSELossOptions().reduction(kSum)).
struct MSELossOptions {
  using reduction_t = LossReduction;
  /*implicit*/ MSELossOptions(reduction_t reduction = enumtype::kMean{}) : reduction_(reduction) {}
  /// kMean, kSum or kNone (the per-element losses).
  EMBER_ARG(reduction_t, reduction);
};
using L1LossOptions = MSELossOptions;

/// SmoothL1Loss(SmoothL1LossOptions().beta(1.0)).
struct SmoothL1LossOptions {
  using reduction_t = LossReduction;
  /// kMean, kSum or kNone (the per-element losses).
  EMBER_ARG(reduction_t, reduction) = enumtype::kMean{};
  /// The sharpness (softplus) or the quadratic-to-linear switch point (smooth L1).
  EMBER_ARG(double, beta) = 1.0;
};

/// NLLLoss(NLLLossOptions().weight(w).ignore_index(-100).reduction(kMean)).
struct NLLLossOptions {
  using reduction_t = LossReduction;
  /// A per-class weight.
  EMBER_ARG(Tensor, weight) = Tensor();
  /// A target value that adds nothing to the loss.
  EMBER_ARG(int64_t, ignore_index) = -100;
  /// kMean, kSum or kNone (the per-element losses).
  EMBER_ARG(reduction_t, reduction) = enumtype::kMean{};
};

/// CrossEntropyLoss(CrossEntropyLossOptions().label_smoothing(0.1)).
struct CrossEntropyLossOptions {
  using reduction_t = LossReduction;
  /// An optional per-element or per-class weight.
  EMBER_ARG(Tensor, weight) = Tensor();
  /// A target value that adds nothing to the loss.
  EMBER_ARG(int64_t, ignore_index) = -100;
  /// kMean, kSum or kNone (the per-element losses).
  EMBER_ARG(reduction_t, reduction) = enumtype::kMean{};
  /// How much of the target mass is spread evenly over the classes.
  EMBER_ARG(double, label_smoothing) = 0.0;
};

/// BCELoss(BCELossOptions().weight(w)).
struct BCELossOptions {
  using reduction_t = LossReduction;
  /// An optional per-element or per-class weight.
  EMBER_ARG(Tensor, weight) = Tensor();
  /// kMean, kSum or kNone (the per-element losses).
  EMBER_ARG(reduction_t, reduction) = enumtype::kMean{};
};

/// BCEWithLogitsLoss(BCEWithLogitsLossOptions().pos_weight(p)).
struct BCEWithLogitsLossOptions {
  using reduction_t = LossReduction;
  /// An optional per-element or per-class weight.
  EMBER_ARG(Tensor, weight) = Tensor();
  /// kMean, kSum or kNone (the per-element losses).
  EMBER_ARG(reduction_t, reduction) = enumtype::kMean{};
  /// A weight of the positive examples, per class.
  EMBER_ARG(Tensor, pos_weight) = Tensor();
};

namespace functional {
using MSELossFuncOptions = MSELossOptions;
using L1LossFuncOptions = L1LossOptions;
using SmoothL1LossFuncOptions = SmoothL1LossOptions;
using NLLLossFuncOptions = NLLLossOptions;
using CrossEntropyFuncOptions = CrossEntropyLossOptions;
using BinaryCrossEntropyFuncOptions = BCELossOptions;
using BinaryCrossEntropyWithLogitsFuncOptions = BCEWithLogitsLossOptions;
}  // namespace functional

}  // namespace ember::nn
