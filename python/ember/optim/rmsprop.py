"""RMSprop, optionally centered and with momentum."""
from __future__ import annotations

import ember
from ember.optim.optimizer import (
    _FLAG_SETSTATE_DEFAULTS, Optimizer, _check_lr, _get_value, _scalar_state, _to_scalar,
    _use_grad_for_differentiable, _view_as_real,
)

__all__ = ["RMSprop"]


class RMSprop(Optimizer):
    """RMSprop, following torch.optim.RMSprop's single-tensor algorithm."""

    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0,
                 centered=False, capturable=False, foreach=None, maximize=False,
                 differentiable=False):
        _check_lr(lr)
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= momentum:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= alpha:
            raise ValueError(f"Invalid alpha value: {alpha}")
        defaults = dict(lr=lr, momentum=momentum, alpha=alpha, eps=eps, centered=centered,
                        weight_decay=weight_decay, capturable=capturable, foreach=foreach,
                        maximize=maximize, differentiable=differentiable)
        super().__init__(params, defaults)

    _group_setstate_defaults = _FLAG_SETSTATE_DEFAULTS + (("momentum", 0), ("centered", False))

    def _init_param_state(self, p, group, state):
        state["step"] = _scalar_state(0.0)
        state["square_avg"] = ember.zeros_like(p)
        if group["momentum"] > 0:
            state["momentum_buffer"] = ember.zeros_like(p)
        if group["centered"]:
            state["grad_avg"] = ember.zeros_like(p)

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """Performs one RMSprop step and returns the closure's loss, if given."""
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            lr, alpha, eps = _get_value(_to_scalar(group["lr"])), group["alpha"], group["eps"]
            weight_decay, momentum = group["weight_decay"], group["momentum"]
            centered = group["centered"]
            for p, grad, state in self._grads_and_states(group, "RMSprop"):
                square_avg = state["square_avg"]
                state["step"].add_(1)
                if weight_decay != 0:
                    grad = grad.add(p, alpha=weight_decay)
                param, grad, square_avg = _view_as_real(p, grad, square_avg)
                square_avg.mul_(alpha).addcmul_(grad, grad, value=1 - alpha)
                if centered:
                    (grad_avg,) = _view_as_real(state["grad_avg"])
                    grad_avg.lerp_(grad, 1 - alpha)
                    avg = square_avg.addcmul(grad_avg, grad_avg, value=-1).sqrt_()
                else:
                    avg = square_avg.sqrt()
                avg = avg.add_(eps)
                if momentum > 0:
                    (buf,) = _view_as_real(state["momentum_buffer"])
                    buf.mul_(momentum).addcdiv_(grad, avg)
                    param.add_(buf, alpha=-lr)
                else:
                    param.addcdiv_(grad, avg, value=-lr)
        return loss
