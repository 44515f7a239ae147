"""NAdam: Adam with Nesterov momentum and a decaying momentum schedule."""
from __future__ import annotations

import ember
from ember.optim.optimizer import (
    Optimizer, _check_adam_like, _get_value, _scalar_state, _to_scalar,
    _use_grad_for_differentiable, _view_as_real,
)

__all__ = ["NAdam"]


class NAdam(Optimizer):
    """NAdam, following torch.optim.NAdam's single-tensor algorithm.

    With `decoupled_weight_decay` the decay shrinks the parameters directly (NAdamW).
    """

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 momentum_decay=4e-3, decoupled_weight_decay=False, *, foreach=None,
                 maximize=False, capturable=False, differentiable=False):
        _check_adam_like(lr, eps, betas, weight_decay)
        if not 0.0 <= momentum_decay:
            raise ValueError(f"Invalid momentum_decay value: {momentum_decay}")
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                        momentum_decay=momentum_decay,
                        decoupled_weight_decay=decoupled_weight_decay, maximize=maximize,
                        foreach=foreach, capturable=capturable, differentiable=differentiable)
        super().__init__(params, defaults)

    _group_setstate_defaults = (("maximize", False), ("foreach", None), ("capturable", False),
                                ("differentiable", False), ("decoupled_weight_decay", False))

    def _init_param_state(self, p, group, state):
        state["step"] = _scalar_state(0.0)
        # The running product of the momentum schedule is a scalar-dtype tensor, so it
        # rounds as PyTorch's does.
        state["mu_product"] = _scalar_state(1.0)
        state["exp_avg"] = ember.zeros_like(p)
        state["exp_avg_sq"] = ember.zeros_like(p)

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """Performs one NAdam step and returns the closure's loss, if given."""
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            beta1, beta2 = group["betas"]
            lr, eps = _get_value(_to_scalar(group["lr"])), group["eps"]
            weight_decay, momentum_decay = group["weight_decay"], group["momentum_decay"]
            for p, grad, state in self._grads_and_states(group, "NAdam"):
                exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
                mu_product = state["mu_product"]
                p_real, grad, exp_avg, exp_avg_sq = _view_as_real(p, grad, exp_avg, exp_avg_sq)
                state["step"].add_(1)
                step = state["step"].item()
                bias_correction2 = 1 - beta2 ** step
                if weight_decay != 0:
                    if group["decoupled_weight_decay"]:
                        p_real.mul_(1 - lr * weight_decay)
                    else:
                        grad = grad.add(p_real, alpha=weight_decay)
                mu = beta1 * (1.0 - 0.5 * (0.96 ** (step * momentum_decay)))
                mu_next = beta1 * (1.0 - 0.5 * (0.96 ** ((step + 1) * momentum_decay)))
                mu_product.mul_(mu)
                exp_avg.lerp_(grad, 1 - beta1)
                exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
                denom = exp_avg_sq.div(bias_correction2).sqrt().add_(eps)
                mu_product_value = mu_product.item()
                mu_product_next = mu_product_value * mu_next
                p_real.addcdiv_(grad, denom, value=-lr * (1.0 - mu) / (1.0 - mu_product_value))
                p_real.addcdiv_(exp_avg, denom, value=(-lr * mu_next) / (1.0 - mu_product_next))
        return loss
