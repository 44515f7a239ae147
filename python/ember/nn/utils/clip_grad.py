"""Gradient clipping by total norm or by value, in place on each parameter's .grad."""
from __future__ import annotations

import warnings

import ember
from ember._tensor import Tensor


def _grads(parameters):
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    return [p.grad for p in parameters if p.grad is not None]


def clip_grad_norm_(parameters, max_norm: float, norm_type: float = 2.0,
                    error_if_nonfinite: bool = False, foreach=None) -> Tensor:
    """Scales the gradients so that their joint `norm_type` norm is at most `max_norm`.

    The norm is taken over all gradients as if concatenated into one vector; returns that
    total norm (before clipping) as a tensor.
    """
    grads = _grads(parameters)
    max_norm = float(max_norm)
    norm_type = float(norm_type)
    if len(grads) == 0:
        return ember.tensor(0.0)
    with ember.no_grad():
        norms = [ember.linalg.vector_norm(g, norm_type) for g in grads]
        dtype = norms[0].dtype
        total_norm = ember.linalg.vector_norm(
            ember.stack([n.to(dtype) for n in norms]), norm_type)
        if error_if_nonfinite and not bool(ember.isfinite(total_norm).item()):
            raise RuntimeError(
                f"The total norm of order {norm_type} for gradients from `parameters` is "
                "non-finite, so it cannot be clipped. To disable this error and scale the "
                "gradients by the non-finite norm anyway, set `error_if_nonfinite=False`")
        clip_coef = ember.clamp(max_norm / (total_norm + 1e-6), max=1.0)
        for g in grads:
            g.mul_(clip_coef.to(g.dtype))
    return total_norm


def clip_grad_norm(parameters, max_norm: float, norm_type: float = 2.0,
                   error_if_nonfinite: bool = False, foreach=None) -> Tensor:
    """Deprecated alias of clip_grad_norm_."""
    warnings.warn("`ember.nn.utils.clip_grad_norm` is now deprecated in favor of "
                  "`ember.nn.utils.clip_grad_norm_`.", FutureWarning, stacklevel=2)
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


def clip_grad_value_(parameters, clip_value: float, foreach=None) -> None:
    """Clamps every gradient element into [-clip_value, clip_value], in place."""
    clip_value = float(clip_value)
    with ember.no_grad():
        for g in _grads(parameters):
            g.clamp_(min=-clip_value, max=clip_value)
