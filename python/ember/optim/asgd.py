"""ASGD: stochastic gradient descent that also keeps an average of the iterates."""
from __future__ import annotations

import ember
from ember.optim.optimizer import (
    _FLAG_SETSTATE_DEFAULTS, Optimizer, _check_lr, _get_value, _scalar_state, _to_scalar,
    _use_grad_for_differentiable, _view_as_real,
)

__all__ = ["ASGD"]


class ASGD(Optimizer):
    """Averaged SGD, following torch.optim.ASGD's single-tensor algorithm.

    State per parameter: 'step', the step size 'eta', the averaging weight 'mu' (scalar
    tensors) and the averaged parameter 'ax'.
    """

    def __init__(self, params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0,
                 foreach=None, maximize=False, differentiable=False, capturable=False):
        _check_lr(lr)
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = dict(lr=lr, lambd=lambd, alpha=alpha, t0=t0, weight_decay=weight_decay,
                        foreach=foreach, maximize=maximize, differentiable=differentiable,
                        capturable=capturable)
        super().__init__(params, defaults)

    _group_setstate_defaults = _FLAG_SETSTATE_DEFAULTS

    def _init_param_state(self, p, group, state):
        state["step"] = _scalar_state(0.0)
        state["eta"] = _scalar_state(_get_value(_to_scalar(group["lr"])))
        state["mu"] = _scalar_state(1.0)
        state["ax"] = ember.zeros_like(p)

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """Performs one ASGD step and returns the closure's loss, if given."""
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            lr = _get_value(_to_scalar(group["lr"]))
            lambd, alpha, t0 = group["lambd"], group["alpha"], group["t0"]
            weight_decay = group["weight_decay"]
            for p, grad, state in self._grads_and_states(group, "ASGD"):
                eta, mu, ax = state["eta"], state["mu"], state["ax"]
                state["step"].add_(1)
                param, grad, ax = _view_as_real(p, grad, ax)
                if weight_decay != 0:
                    grad = grad.add(param, alpha=weight_decay)
                eta_value = eta.item()
                param.mul_(1 - lambd * eta_value)
                param.add_(grad, alpha=-eta_value)
                if mu.item() != 1:
                    ax.add_(param.sub(ax).mul_(mu))
                else:
                    ax.copy_(param)
                step = state["step"].item()
                # Through a default-dtype tensor, as PyTorch's as_tensor: the new values are
                # rounded to it even when the state was loaded as float64.
                eta.copy_(ember.tensor(lr / ((1 + lambd * lr * step) ** alpha)))
                mu.copy_(ember.tensor(1 / max(1, step - t0)))
        return loss
