"""Helpers shared by the distributions: broadcasting of parameters, probs/logits
conversion, lazily computed attributes and dtype limits."""
from __future__ import annotations

import math
import numbers

import numpy as np

import ember
from ember.autograd.function import Function

__all__ = ["broadcast_all", "clamp_probs", "lazy_property", "logits_to_probs", "probs_to_logits"]

euler_constant = 0.57721566490153286060

_NP_DTYPES = {"float16": np.float16, "float32": np.float32, "float64": np.float64, "bfloat16": np.float32}


def finfo(dtype):
    """numpy's finfo for an ember floating dtype (eps, tiny, min, max)."""
    return np.finfo(_NP_DTYPES[str(dtype).rsplit(".", 1)[-1]])


def broadcast_shapes(*shapes):
    """The broadcast of the given shapes, as an ember.Size."""
    return ember.Size(np.broadcast_shapes(*[tuple(s) for s in shapes]))


def broadcast_all(*values):
    """Broadcasts tensors and numbers to one shape; numbers become tensors of the first
    tensor's dtype (the default dtype when there is none)."""
    if not all(isinstance(v, (ember.Tensor, numbers.Number)) for v in values):
        raise ValueError("Input arguments must all be instances of Number, torch.Tensor or objects implementing "
                         "__torch_function__.")
    dtype = next((v.dtype for v in values if isinstance(v, ember.Tensor)), ember.get_default_dtype())
    tensors = [v if isinstance(v, ember.Tensor) else ember.tensor(float(v), dtype=dtype) for v in values]
    shape = broadcast_shapes(*[t.shape for t in tensors])
    return tuple(t if tuple(t.shape) == tuple(shape) else t.expand(shape) for t in tensors)


def sum_rightmost(value, dim: int):
    """Sums out the `dim` rightmost dims of value."""
    if dim == 0:
        return value
    return value.reshape(tuple(value.shape[: value.dim() - dim]) + (-1,)).sum(-1)


def logits_to_probs(logits, is_binary: bool = False):
    """sigmoid(logits) when binary, else softmax over the last dim."""
    if is_binary:
        return ember.sigmoid(logits)
    return ember.softmax(logits, -1)


def clamp_probs(probs):
    """Clamps probabilities into [eps, 1 - eps]."""
    eps = float(finfo(probs.dtype).eps)
    return probs.clamp(min=eps, max=1 - eps)


def probs_to_logits(probs, is_binary: bool = False):
    """log-odds when binary, else log-probabilities."""
    ps = clamp_probs(probs)
    if is_binary:
        return ember.log(ps) - ember.log1p(-ps)
    return ember.log(ps)


def xlogy(x, y):
    """x * log(y), 0 where x == 0 (ember has no xlogy op)."""
    if not isinstance(x, ember.Tensor):
        x = ember.tensor(float(x), dtype=y.dtype)
    if not isinstance(y, ember.Tensor):
        y = ember.tensor(float(y), dtype=x.dtype)
    safe_y = ember.where(x == 0, ember.ones_like(y), y)
    return ember.where(x == 0, ember.zeros_like(x * safe_y), x * ember.log(safe_y))


def standard_normal(shape, dtype):
    return ember.randn(tuple(shape), dtype=dtype)


class lazy_property:
    """A non-data descriptor computing an attribute on first access and caching it on the
    instance (with grad enabled, like PyTorch's)."""

    def __init__(self, wrapped):
        self.wrapped = wrapped
        self.__doc__ = wrapped.__doc__
        self.__name__ = wrapped.__name__

    def __get__(self, instance, obj_type=None):
        if instance is None:
            return self
        with ember.enable_grad():
            value = self.wrapped(instance)
        setattr(instance, self.wrapped.__name__, value)
        return value


def _trigamma(x):
    """polygamma(1, x): the recurrence up to x >= 6, then the asymptotic series; the
    reflection formula below 0.5 (ember has no polygamma op)."""
    with ember.no_grad():
        reflect = x < 0.5
        z = ember.where(reflect, 1 - x, x)
        acc = ember.zeros_like(z)
        for _ in range(6):
            small = z < 6
            acc = acc + ember.where(small, 1 / (z * z), ember.zeros_like(z))
            z = ember.where(small, z + 1, z)
        iz = 1 / z
        iz2 = iz * iz
        series = iz + iz2 / 2 + iz * iz2 * (1 / 6 - iz2 * (1 / 30 - iz2 * (1 / 42 - iz2 / 30)))
        value = acc + series
        s = ember.sin(math.pi * x)
        return ember.where(reflect, math.pi ** 2 / (s * s) - value, value)


class _Digamma(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return ember.digamma(x)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * _trigamma(x)


def digamma(x):
    """ember.digamma with a gradient (ember's digamma op has no derivative)."""
    return _Digamma.apply(x)


class _Lgamma(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return ember.lgamma(x)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * digamma(x)


def lgamma(x):
    """ember.lgamma whose gradient (digamma) is itself differentiable, for the second
    derivatives the exponential-family entropy and KL take."""
    return _Lgamma.apply(x)
