"""Stochastic gradient descent with momentum, dampening, Nesterov and weight decay."""
from __future__ import annotations

from ember.optim.optimizer import (
    Optimizer, _check_fused, _get_value, _to_scalar,
    _use_grad_for_differentiable, required,
)

__all__ = ["SGD"]


class SGD(Optimizer):
    """SGD, following torch.optim.SGD's single-tensor algorithm."""

    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0,
                 nesterov=False, *, maximize=False, foreach=None, differentiable=False,
                 fused=None):
        if lr is not required:
            if hasattr(lr, "numel") and lr.numel() != 1:
                raise ValueError("Tensor lr must be 1-element")
            if lr < 0.0:
                raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = dict(lr=lr, momentum=momentum, dampening=dampening,
                        weight_decay=weight_decay, nesterov=nesterov, maximize=maximize,
                        foreach=foreach, differentiable=differentiable, fused=fused)
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, defaults)
        if fused:
            self._need_device_dtype_check_for_fused = True
            _check_fused(fused, foreach, differentiable)

    _group_setstate_defaults = (("nesterov", False), ("maximize", False), ("foreach", None),
                                ("differentiable", False), ("fused", False))

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """Performs one SGD step and returns the closure's loss, if given."""
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            lr = _get_value(_to_scalar(group["lr"]))
            momentum, dampening = group["momentum"], group["dampening"]
            weight_decay = _get_value(group["weight_decay"])
            for p in group["params"]:
                if p.grad is None:
                    continue
                self._check_fused_param_once(group, p)
                grad = -p.grad if group["maximize"] else p.grad
                if weight_decay != 0:
                    grad = grad.add(p, alpha=weight_decay)
                if momentum != 0:
                    state = self.state[p]
                    buf = state.get("momentum_buffer")
                    if buf is None:
                        buf = grad.detach().clone()
                        state["momentum_buffer"] = buf
                    else:
                        buf.mul_(momentum).add_(grad, alpha=1 - dampening)
                    grad = grad.add(buf, alpha=momentum) if group["nesterov"] else buf
                p.add_(grad, alpha=-lr)
        return loss
