"""Learning-rate schedulers with torch.optim.lr_scheduler's API and formulas.

The base class is in `scheduler`; the schedulers are grouped by family: `multiplicative`
(per-epoch factors), `annealing` (cosine), `cyclic` (CyclicLR, OneCycleLR), `composite`
(SequentialLR, ChainedScheduler) and `plateau` (ReduceLROnPlateau).
"""
from ember.optim.lr_scheduler.scheduler import EPOCH_DEPRECATION_WARNING, LRScheduler  # noqa: F401
from ember.optim.lr_scheduler.multiplicative import (
    ConstantLR, ExponentialLR, LambdaLR, LinearLR, MultiStepLR, MultiplicativeLR,
    PolynomialLR, StepLR,
)
from ember.optim.lr_scheduler.annealing import CosineAnnealingLR, CosineAnnealingWarmRestarts
from ember.optim.lr_scheduler.cyclic import CyclicLR, OneCycleLR
from ember.optim.lr_scheduler.plateau import ReduceLROnPlateau
from ember.optim.lr_scheduler.composite import ChainedScheduler, SequentialLR

__all__ = [
    "LambdaLR", "MultiplicativeLR", "StepLR", "MultiStepLR", "ConstantLR", "LinearLR",
    "ExponentialLR", "SequentialLR", "CosineAnnealingLR", "ChainedScheduler",
    "ReduceLROnPlateau", "CyclicLR", "CosineAnnealingWarmRestarts", "OneCycleLR",
    "PolynomialLR", "LRScheduler",
]


class _LRScheduler(LRScheduler):
    """PyTorch's name for LRScheduler before 2.0."""
