"""Adadelta: step sizes from running averages of squared gradients and squared updates."""
from __future__ import annotations

import ember
from ember.optim.optimizer import (
    _FLAG_SETSTATE_DEFAULTS, Optimizer, _check_lr, _get_value, _scalar_state, _to_scalar,
    _use_grad_for_differentiable, _view_as_real,
)

__all__ = ["Adadelta"]


class Adadelta(Optimizer):
    """Adadelta, following torch.optim.Adadelta's single-tensor algorithm."""

    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, foreach=None, *,
                 capturable=False, maximize=False, differentiable=False):
        _check_lr(lr)
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = dict(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay,
                        maximize=maximize, capturable=capturable, foreach=foreach,
                        differentiable=differentiable)
        super().__init__(params, defaults)

    _group_setstate_defaults = _FLAG_SETSTATE_DEFAULTS

    def _init_param_state(self, p, group, state):
        state["step"] = _scalar_state(0.0)
        state["square_avg"] = ember.zeros_like(p)
        state["acc_delta"] = ember.zeros_like(p)

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """Performs one Adadelta step and returns the closure's loss, if given."""
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            lr, rho, eps = _get_value(_to_scalar(group["lr"])), group["rho"], group["eps"]
            weight_decay = group["weight_decay"]
            for p, grad, state in self._grads_and_states(group, "Adadelta"):
                square_avg, acc_delta = state["square_avg"], state["acc_delta"]
                state["step"].add_(1)
                if weight_decay != 0:
                    grad = grad.add(p, alpha=weight_decay)
                param, grad, square_avg, acc_delta = _view_as_real(p, grad, square_avg, acc_delta)
                square_avg.mul_(rho).addcmul_(grad, grad, value=1 - rho)
                std = square_avg.add(eps).sqrt_()
                delta = acc_delta.add(eps).sqrt_()
                delta.div_(std).mul_(grad)
                acc_delta.mul_(rho).addcmul_(delta, delta, value=1 - rho)
                param.add_(delta, alpha=-lr)
        return loss
