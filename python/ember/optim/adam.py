"""Adam and AdamW (Adam with decoupled weight decay), with optional AMSGrad."""
from __future__ import annotations

import ember
from ember._tensor import Tensor
from ember.optim.optimizer import (
    Optimizer, _check_adam_like, _check_fused, _check_fused_param,
    _get_value, _scalar_state, _to_scalar, _use_grad_for_differentiable, _view_as_real,
)

__all__ = ["Adam", "AdamW"]


def _check_adam_args(lr, betas, eps, weight_decay, foreach, capturable):
    if isinstance(lr, Tensor) and foreach and not capturable:
        raise ValueError("lr as a Tensor is not supported for capturable=False and foreach=True")
    _check_adam_like(lr, eps, betas, weight_decay)
    if not ((isinstance(betas[0], float) and isinstance(betas[1], float))
            or (isinstance(betas[0], Tensor) and isinstance(betas[1], Tensor))):
        raise ValueError("betas must be either both floats or both Tensors")
    for i, beta in enumerate(betas):
        if isinstance(beta, Tensor):
            if not capturable and foreach:
                raise ValueError(f"betas[{i}] as a Tensor is not supported for capturable=False "
                                 "and foreach=True")
            if beta.numel() != 1:
                raise ValueError(f"Tensor betas[{i}] must be 1-element")


class Adam(Optimizer):
    """Adam, following torch.optim.Adam's single-tensor algorithm."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 amsgrad=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False, fused=None, decoupled_weight_decay=False):
        _check_adam_args(lr, betas, eps, weight_decay, foreach, capturable)
        betas = tuple(map(_to_scalar, betas))
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                        amsgrad=amsgrad, maximize=maximize, foreach=foreach,
                        capturable=capturable, differentiable=differentiable, fused=fused,
                        decoupled_weight_decay=decoupled_weight_decay)
        super().__init__(params, defaults)
        if fused:
            _check_fused(fused, foreach, differentiable)

    _group_setstate_defaults = (("amsgrad", False), ("maximize", False), ("foreach", None),
                                ("capturable", False), ("differentiable", False),
                                ("decoupled_weight_decay", False), ("fused", None))

    def _init_param_state(self, p, group, state):
        if group["fused"]:
            _check_fused_param(p)
        state["step"] = _scalar_state(0.0, group["fused"])
        state["exp_avg"] = ember.zeros_like(p)
        state["exp_avg_sq"] = ember.zeros_like(p)
        if group["amsgrad"]:
            state["max_exp_avg_sq"] = ember.zeros_like(p)

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """Performs one Adam step and returns the closure's loss, if given."""
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            beta1, beta2 = (_get_value(b) for b in group["betas"])
            lr, eps = _get_value(_to_scalar(group["lr"])), group["eps"]
            weight_decay, amsgrad = group["weight_decay"], group["amsgrad"]
            for p, grad, state in self._grads_and_states(group, "Adam"):
                exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
                state["step"].add_(1)
                if weight_decay != 0:
                    if group["decoupled_weight_decay"]:
                        p.mul_(1 - lr * weight_decay)
                    else:
                        grad = grad.add(p, alpha=weight_decay)
                param, grad, exp_avg, exp_avg_sq = _view_as_real(p, grad, exp_avg, exp_avg_sq)
                exp_avg.lerp_(grad, 1 - beta1)
                exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
                step = state["step"].item()
                step_size = lr / (1 - beta1 ** step)
                bias_correction2_sqrt = (1 - beta2 ** step) ** 0.5
                if amsgrad:
                    (max_sq,) = _view_as_real(state["max_exp_avg_sq"])
                    ember.maximum(max_sq, exp_avg_sq, out=max_sq)
                    denom = (max_sq.sqrt() / bias_correction2_sqrt).add_(eps)
                else:
                    denom = (exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(eps)
                param.addcdiv_(exp_avg, denom, value=-step_size)
        return loss


class AdamW(Adam):
    """AdamW: Adam whose weight decay shrinks the parameters directly (decoupled)."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2,
                 amsgrad=False, *, maximize=False, foreach=None, capturable=False,
                 differentiable=False, fused=None):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach,
                         maximize=maximize, capturable=capturable,
                         differentiable=differentiable, fused=fused,
                         decoupled_weight_decay=True)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group["decoupled_weight_decay"] = True
