"""Losses for ember.nn.functional, with PyTorch's Python signatures: `reduction` as a string,
and the deprecated size_average/reduce pair where PyTorch still takes it."""
import math
import warnings

import ember as _ember
from ember._C import _nn, _reductions
from ember.nn._functional_activation import logsigmoid as _logsigmoid

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


__all__ += [
    "soft_margin_loss", "hinge_embedding_loss", "poisson_nll_loss", "gaussian_nll_loss",
    "multilabel_soft_margin_loss", "multi_margin_loss", "multilabel_margin_loss",
    "triplet_margin_with_distance_loss",
]


def _reduce(loss, reduction):
    """loss reduced by the enum int: 0 none, 1 mean, 2 sum."""
    if reduction == 0:
        return loss
    return loss.mean() if reduction == 1 else loss.sum()


def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """log(1 + exp(-target * input)) of each element."""
    _check_target_size("soft_margin_loss", input, target)
    red = _reduction(reduction, size_average, reduce)
    return _reduce(_ember.log1p(_ember.exp(-target * input)), red)


def hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None, reduction="mean"):
    """input where target is 1, max(0, margin - input) where target is -1."""
    red = _reduction(reduction, size_average, reduce)
    zero = _ember.zeros_like(input)
    margin_part = _ember.where(target != 1, (margin - input).clamp_min(0), zero)
    self_part = _ember.where(target != -1, input, zero)
    return _reduce(margin_part + self_part, red)


def poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-8, reduce=None,
                     reduction="mean"):
    """exp(input) - target * input (log_input), else input - target * log(input + eps); full adds
    Stirling's approximation of log(target!) where target > 1."""
    red = _reduction(reduction, size_average, reduce)
    if log_input:
        loss = _ember.exp(input) - target * input
    else:
        loss = input - target * _ember.log(input + eps)
    if full:
        safe = _ember.where(target > 1, target, _ember.ones_like(target))
        stirling = safe * _ember.log(safe) - safe + 0.5 * _ember.log(2 * math.pi * safe)
        loss = loss + _ember.where(target > 1, stirling, _ember.zeros_like(stirling))
    return _reduce(loss, red)


def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):
    """0.5 * (log(max(var, eps)) + (input - target)^2 / max(var, eps)) (+ 0.5 log(2 pi) when full);
    var may be input's shape, one dimension short, broadcastable in one dimension, or a float."""
    if isinstance(var, (int, float)):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = var * _ember.ones_like(input)
    elif bool((var < 0).any()):
        raise ValueError("var has negative entry/entries")
    if tuple(var.shape) != tuple(input.shape):
        if tuple(input.shape)[:-1] == tuple(var.shape):
            var = var.unsqueeze(-1)
        elif input.dim() == var.dim() and sum(v for i, v in zip(input.shape, var.shape) if i != v) == 1:
            pass
        else:
            raise ValueError("var is of incorrect size")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    # The clamp is not differentiated through (PyTorch clamps a copy under no_grad): the gradient
    # of var passes where var < eps as if unclamped.
    with _ember.no_grad():
        floor = var.clamp_min(eps) - var
    var = var + floor
    loss = 0.5 * (_ember.log(var) + (input - target) ** 2 / var)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _reduce(loss, _REDUCTIONS[reduction])


def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    """The class-averaged binary cross entropy of logits input against 0/1 targets."""
    red = _reduction(reduction, size_average, reduce)
    loss = -(target * _logsigmoid(input) + (1 - target) * _logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    class_dim = input.dim() - 1
    loss = loss.sum(dim=class_dim) / input.shape[class_dim]
    return _reduce(loss, red)


def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, size_average=None, reduce=None,
                      reduction="mean"):
    """sum over i != y of max(0, margin - x[y] + x[i])^p / C (times weight[y]), per sample."""
    if p not in (1, 2):
        raise ValueError("only p == 1 and p == 2 supported")
    red = _reduction(reduction, size_average, reduce)
    if input.dim() > 2 or (input.dim() == 2 and input.shape[1] == 0):
        raise RuntimeError(f"multi_margin_loss: Expected non-empty vector or matrix with optional 0-dim batch "
                           f"size, but got: {list(input.shape)}")
    x = input.reshape(1, -1) if input.dim() < 2 else input
    y = target.reshape(-1)
    if y.dim() != 1 or y.shape[0] != x.shape[0]:
        raise RuntimeError(f"multi_margin_loss: inconsistent target size, expected {x.shape[0]} but got "
                           f"{list(target.shape)}")
    n, c = x.shape
    if n and (bool((y < 0).any()) or bool((y >= c).any())):
        raise IndexError("multi_margin_loss: target out of range")
    picked = x.gather(1, y.unsqueeze(1))
    z = (margin - picked + x).clamp_min(0)
    if p == 2:
        z = z * z
    if weight is not None:
        z = z * weight.index_select(0, y).unsqueeze(1)
    not_target = _ember.arange(c).unsqueeze(0) != y.unsqueeze(1)
    loss = _ember.where(not_target, z, _ember.zeros_like(z)).sum(dim=1) / c
    if input.dim() < 2 and red == 0:
        loss = loss.reshape(target.shape)
    return _reduce(loss, red)


def multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """sum over target classes j (up to the first -1) and non-target classes i of
    max(0, 1 - (x[j] - x[i])) / C, per sample."""
    red = _reduction(reduction, size_average, reduce)
    if input.dim() > 2 or tuple(target.shape) != tuple(input.shape):
        raise RuntimeError(f"multilabel_margin_loss: inconsistent target size: {list(target.shape)} for input "
                           f"of size: {list(input.shape)}")
    x = input.reshape(1, -1) if input.dim() < 2 else input
    t = target.reshape(x.shape)
    n, c = x.shape
    if n * c and (bool((t < -1).any()) or bool((t >= c).any())):
        raise RuntimeError("multilabel_margin_loss: target out of range")
    valid = (t != -1).long().cumprod(dim=1)
    hits = (t.unsqueeze(2) == _ember.arange(c).reshape(1, 1, c)).long() * valid.unsqueeze(2)
    count = hits.sum(dim=1).to(x.dtype)  # times each class is listed as a target
    is_target = count > 0
    pair = (1 - x.unsqueeze(2) + x.unsqueeze(1)).clamp_min(0)  # [n, j, i]
    mask = count.unsqueeze(2) * (~is_target).to(x.dtype).unsqueeze(1)
    loss = (pair * mask).sum(dim=(1, 2)) / c if c else x.sum(dim=1)
    if input.dim() < 2:
        loss = loss.reshape(())
    return _reduce(loss, red)


def triplet_margin_with_distance_loss(anchor, positive, negative, *, distance_function=None, margin=1.0,
                                      swap=False, reduction="mean"):
    """max(d(a, p) - d(a, n) + margin, 0) with any distance_function (pairwise_distance by default)."""
    if margin <= 0:
        raise ValueError(f"triplet_margin_with_distance_loss: expected margin to be greater than 0, got "
                         f"{margin} instead")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    a, p, n = anchor.dim(), positive.dim(), negative.dim()
    if not (a == p == n):
        raise RuntimeError(f"The anchor, positive, and negative tensors are expected to have the same number "
                           f"of dimensions, but got: anchor {a}D, positive {p}D, and negative {n}D inputs")
    dist = distance_function if distance_function is not None else _ember.pairwise_distance
    d_pos = dist(anchor, positive)
    d_neg = dist(anchor, negative)
    if swap:
        d_neg = _ember.minimum(d_neg, dist(positive, negative))
    loss = (margin + d_pos - d_neg).clamp_min(0)
    return _reduce(loss, _REDUCTIONS[reduction])
