"""Losses for ember.nn.functional, with PyTorch's Python signatures: `reduction` as a string,
and the deprecated size_average/reduce pair where PyTorch still takes it."""
import warnings

import ember as _ember
from ember._C import _nn, _reductions

__all__ = [
    "nll_loss", "cross_entropy", "mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss",
    "binary_cross_entropy", "binary_cross_entropy_with_logits", "kl_div", "margin_ranking_loss",
    "cosine_embedding_loss", "triplet_margin_loss", "ctc_loss",
]


# {"none": 0, "mean": 1, "sum": 2}: the ints of c10/core/Reduction.h, which the loss ops take.
_REDUCTIONS = _reductions


def _reduction(reduction, size_average=None, reduce=None):
    """PyTorch's reduction enum from the string (or the deprecated size_average/reduce pair)."""
    if size_average is not None or reduce is not None:
        size_average = True if size_average is None else size_average
        reduce = True if reduce is None else reduce
        reduction = "none" if not reduce else ("mean" if size_average else "sum")
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return _REDUCTIONS[reduction]


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
             reduction="mean"):
    """The negative log-likelihood of log-probabilities input [N, C, ...] at classes target."""
    return _nn.nll_loss(input, target, weight, _reduction(reduction, size_average, reduce), ignore_index)


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
                  reduction="mean", label_smoothing=0.0):
    """Cross entropy of logits input against class indices or class probabilities target."""
    return _nn.cross_entropy_loss(input, target, weight, _reduction(reduction, size_average, reduce),
                                  ignore_index, label_smoothing)


def _check_target_size(name, input, target):
    if tuple(target.shape) != tuple(input.shape):
        warnings.warn(f"Using a target size ({target.shape}) that is different to the input size "
                      f"({input.shape}). This will likely lead to incorrect results due to "
                      "broadcasting. Please ensure they have the same size.", stacklevel=3)


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """Mean squared error (or sum, or elementwise)."""
    _check_target_size("mse_loss", input, target)
    if weight is not None:
        return _weighted(_nn.mse_loss(input, target, 0), input, weight, _reduction(reduction, size_average, reduce))
    return _nn.mse_loss(input, target, _reduction(reduction, size_average, reduce))


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """Mean absolute error (or sum, or elementwise)."""
    _check_target_size("l1_loss", input, target)
    if weight is not None:
        return _weighted(_nn.l1_loss(input, target, 0), input, weight, _reduction(reduction, size_average, reduce))
    return _nn.l1_loss(input, target, _reduction(reduction, size_average, reduce))


def _weighted(loss, input, weight, reduction, by_weight=True):
    """PyTorch's weighted form: each element's loss times weight (input's shape); the mean
    divides the weighted sum by the sum of the weights (by_weight; huber_loss: by the count)."""
    if tuple(weight.shape) != tuple(input.shape):
        raise ValueError("Weights and input must have the same size.")
    loss = loss * weight
    if reduction == 0:
        return loss
    if reduction == 2:
        return loss.sum()
    return loss.sum() / weight.sum() if by_weight else loss.mean()


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    """Quadratic below beta, linear above."""
    _check_target_size("smooth_l1_loss", input, target)
    return _nn.smooth_l1_loss(input, target, _reduction(reduction, size_average, reduce), beta)


def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    """Quadratic below delta, delta-scaled linear above."""
    _check_target_size("huber_loss", input, target)
    if weight is not None:
        return _weighted(_nn.huber_loss(input, target, 0, delta), input, weight, _reduction(reduction), False)
    return _nn.huber_loss(input, target, _reduction(reduction), delta)


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    """Binary cross entropy of probabilities input against target."""
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(f"Using a target size ({target.shape}) that is different to the input size "
                         f"({input.shape}) is deprecated. Please ensure they have the same size.")
    return _nn.binary_cross_entropy(input, target, weight, _reduction(reduction, size_average, reduce))


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None,
                                     reduction="mean", pos_weight=None):
    """Binary cross entropy of logits input against target, computed stably."""
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(f"Target size ({target.shape}) must be the same as input size ({input.shape})")
    return _ember.binary_cross_entropy_with_logits(input, target, weight, pos_weight,
                                                    _reduction(reduction, size_average, reduce))


def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    """Pointwise KL divergence of target from log-probabilities input ('batchmean' divides the
    sum by the batch size)."""
    if reduction == "batchmean":
        loss = _ember.kl_div(input, target, 2, log_target=log_target)
        return loss / input.shape[0] if input.dim() != 0 else loss
    return _ember.kl_div(input, target, _reduction(reduction, size_average, reduce), log_target=log_target)


def margin_ranking_loss(input1, input2, target, margin=0.0, size_average=None, reduce=None,
                        reduction="mean"):
    """max(0, -target * (input1 - input2) + margin)."""
    if input1.dim() != input2.dim() or input1.dim() != target.dim():
        raise RuntimeError(f"margin_ranking_loss : All input tensors should have same dimension but got "
                           f"sizes: input1: {input1.shape}, input2: {input2.shape}, target: {target.shape} ")
    return _ember.margin_ranking_loss(input1, input2, target, margin,
                                      _reduction(reduction, size_average, reduce))


def cosine_embedding_loss(input1, input2, target, margin=0.0, size_average=None, reduce=None,
                          reduction="mean"):
    """1 - cos(input1, input2) for target 1, max(0, cos - margin) for target -1."""
    return _ember.cosine_embedding_loss(input1, input2, target, margin,
                                        _reduction(reduction, size_average, reduce))


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-06, swap=False,
                        size_average=None, reduce=None, reduction="mean"):
    """max(d(a, p) - d(a, n) + margin, 0) with p-norm distances."""
    return _ember.triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap,
                                      _reduction(reduction, size_average, reduce))


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean",
             zero_infinity=False):
    """The connectionist temporal classification loss of log_probs (T, N, C) (or (T, C)) against
    targets, padded (N, S) or concatenated (sum(target_lengths),); "mean" divides each loss by
    its target length (at least 1) before averaging over the batch."""
    return _ember.ctc_loss(log_probs, targets, input_lengths, target_lengths, blank, _reduction(reduction),
                           zero_infinity)
