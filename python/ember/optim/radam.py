"""RAdam: Adam whose adaptive step is rectified while the second-moment estimate is young."""
from __future__ import annotations

import ember
from ember.optim.optimizer import (
    Optimizer, _check_adam_like, _get_value, _scalar_state, _to_scalar,
    _use_grad_for_differentiable, _view_as_real,
)

__all__ = ["RAdam"]


class RAdam(Optimizer):
    """RAdam, following torch.optim.RAdam's single-tensor algorithm.

    With `decoupled_weight_decay` the decay shrinks the parameters directly (RAdamW).
    """

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 decoupled_weight_decay=False, *, foreach=None, maximize=False,
                 capturable=False, differentiable=False):
        _check_adam_like(lr, eps, betas, weight_decay)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                        maximize=maximize, foreach=foreach, capturable=capturable,
                        decoupled_weight_decay=decoupled_weight_decay,
                        differentiable=differentiable)
        super().__init__(params, defaults)

    _group_setstate_defaults = (("foreach", None), ("maximize", False),
                                ("differentiable", False), ("decoupled_weight_decay", False),
                                ("capturable", False))

    def _init_param_state(self, p, group, state):
        state["step"] = _scalar_state(0.0)
        state["exp_avg"] = ember.zeros_like(p)
        state["exp_avg_sq"] = ember.zeros_like(p)

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """Performs one RAdam step and returns the closure's loss, if given."""
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            beta1, beta2 = group["betas"]
            lr, eps = _get_value(_to_scalar(group["lr"])), group["eps"]
            weight_decay = group["weight_decay"]
            for p, grad, state in self._grads_and_states(group, "RAdam"):
                exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
                p_real, grad, exp_avg, exp_avg_sq = _view_as_real(p, grad, exp_avg, exp_avg_sq)
                state["step"].add_(1)
                step = state["step"].item()
                if weight_decay != 0:
                    if group["decoupled_weight_decay"]:
                        p_real.mul_(1 - lr * weight_decay)
                    else:
                        grad = grad.add(p_real, alpha=weight_decay)
                exp_avg.lerp_(grad, 1 - beta1)
                exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
                bias_correction1 = 1 - beta1 ** step
                bias_correction2 = 1 - beta2 ** step
                bias_corrected_exp_avg = exp_avg / bias_correction1
                # The maximum and the current length of the approximated simple moving average.
                rho_inf = 2 / (1 - beta2) - 1
                rho_t = rho_inf - 2 * step * (beta2 ** step) / bias_correction2
                if rho_t > 5.0:
                    rect = ((rho_t - 4) * (rho_t - 2) * rho_inf
                            / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5
                    adaptive_lr = (bias_correction2 ** 0.5) / exp_avg_sq.sqrt().add_(eps)
                    p_real.add_(bias_corrected_exp_avg * lr * adaptive_lr * rect, alpha=-1.0)
                else:
                    p_real.add_(bias_corrected_exp_avg * lr, alpha=-1.0)
        return loss
