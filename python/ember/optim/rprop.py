"""Rprop: per-coordinate step sizes that grow while the gradient keeps its sign."""
from __future__ import annotations

import ember
from ember.optim.optimizer import (
    _FLAG_SETSTATE_DEFAULTS, Optimizer, _check_lr, _get_value, _scalar_state, _to_scalar,
    _use_grad_for_differentiable, _view_as_real,
)

__all__ = ["Rprop"]


class Rprop(Optimizer):
    """Resilient backpropagation, following torch.optim.Rprop's single-tensor algorithm."""

    def __init__(self, params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *,
                 capturable=False, foreach=None, maximize=False, differentiable=False):
        _check_lr(lr)
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        defaults = dict(lr=lr, etas=etas, step_sizes=step_sizes, foreach=foreach,
                        maximize=maximize, differentiable=differentiable,
                        capturable=capturable)
        super().__init__(params, defaults)

    _group_setstate_defaults = _FLAG_SETSTATE_DEFAULTS

    def _init_param_state(self, p, group, state):
        state["step"] = _scalar_state(0.0)
        state["prev"] = ember.zeros_like(p)
        lr = float(_get_value(_to_scalar(group["lr"])))
        # A complex step size has lr in both parts: two independent reals.
        state["step_size"] = ember.full_like(p.grad, complex(lr, lr) if p.is_complex() else lr)

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """Performs one Rprop step and returns the closure's loss, if given."""
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            etaminus, etaplus = group["etas"]
            step_size_min, step_size_max = group["step_sizes"]
            for p, grad, state in self._grads_and_states(group, "Rprop"):
                prev, step_size = state["prev"], state["step_size"]
                state["step"].add_(1)
                param, grad, prev, step_size = _view_as_real(p, grad, prev, step_size)
                sign = grad.mul(prev).sign()
                grew, shrank = sign.gt(0), sign.lt(0)
                factor = ember.where(grew, ember.full_like(sign, float(etaplus)),
                                     ember.where(shrank, ember.full_like(sign, float(etaminus)),
                                                 ember.ones_like(sign)))
                step_size.mul_(factor).clamp_(step_size_min, step_size_max)
                # Where the gradient changed sign the step is skipped and 'prev' forgets it.
                grad = grad.masked_fill(shrank, 0)
                param.addcmul_(grad.sign(), step_size, value=-1)
                prev.copy_(grad)
        return loss
