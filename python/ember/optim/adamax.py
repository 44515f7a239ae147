"""Adamax: Adam with the infinity norm of past gradients in place of their second moment."""
from __future__ import annotations

import ember
from ember.optim.optimizer import (
    _FLAG_SETSTATE_DEFAULTS, Optimizer, _check_adam_like, _get_value, _scalar_state, _to_scalar,
    _use_grad_for_differentiable, _view_as_real,
)

__all__ = ["Adamax"]


class Adamax(Optimizer):
    """Adamax, following torch.optim.Adamax's single-tensor algorithm."""

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 foreach=None, *, maximize=False, differentiable=False, capturable=False):
        _check_adam_like(lr, eps, betas, weight_decay)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                        foreach=foreach, maximize=maximize, differentiable=differentiable,
                        capturable=capturable)
        super().__init__(params, defaults)

    _group_setstate_defaults = _FLAG_SETSTATE_DEFAULTS

    def _init_param_state(self, p, group, state):
        state["step"] = _scalar_state(0.0)
        state["exp_avg"] = ember.zeros_like(p)
        state["exp_inf"] = ember.zeros_like(p)

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """Performs one Adamax step and returns the closure's loss, if given."""
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            beta1, beta2 = group["betas"]
            lr, eps = _get_value(_to_scalar(group["lr"])), group["eps"]
            weight_decay = group["weight_decay"]
            for p, grad, state in self._grads_and_states(group, "Adamax"):
                exp_avg, exp_inf = state["exp_avg"], state["exp_inf"]
                state["step"].add_(1)
                if weight_decay != 0:
                    grad = grad.add(p, alpha=weight_decay)
                param, grad, exp_avg, exp_inf = _view_as_real(p, grad, exp_avg, exp_inf)
                exp_avg.lerp_(grad, 1 - beta1)
                ember.maximum(exp_inf.mul_(beta2), grad.abs().add_(eps), out=exp_inf)
                clr = lr / (1 - beta1 ** state["step"].item())
                param.addcdiv_(exp_avg, exp_inf, value=-clr)
        return loss
