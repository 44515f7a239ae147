"""Adafactor (Shazeer & Stern, 2018) as torch.optim.Adafactor runs it: the second moment of a
matrix gradient is kept factored as row and column means over the last two dimensions."""
from __future__ import annotations

import ember
from ember.distributions.utils import finfo
from ember.optim.optimizer import (
    Optimizer, _get_value, _scalar_state, _to_scalar, _use_grad_for_differentiable,
)

__all__ = ["Adafactor"]


class Adafactor(Optimizer):
    """Adafactor: relative step sizes min(lr, 1/sqrt(t)) scaled by the parameter's RMS, update
    clipping at d, decay 1 - t^beta2_decay of the (factored) second moment."""

    def __init__(self, params, lr=1e-2, beta2_decay=-0.8, eps=(None, 1e-3), d=1.0, weight_decay=0.0, *,
                 foreach=None, maximize=False):
        if isinstance(lr, ember.Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 >= beta2_decay:
            raise ValueError(f"beta2_decay should be <= 0 but is: {beta2_decay}")
        if eps[0] is not None and not 0.0 <= eps[0]:
            raise ValueError(f"epsilon1 should be >= 0 but is: {eps[0]}")
        if not 0.0 <= eps[1]:
            raise ValueError(f"epsilon2 should be >= 0 but is: {eps[1]}")
        if not 1.0 <= d:
            raise ValueError(f"Clipping threshold d should be >= 1 but is: {d}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight_decay should be >= 0 but is: {weight_decay}")
        defaults = dict(lr=lr, beta2_decay=beta2_decay, eps=eps, d=d, weight_decay=weight_decay,
                        foreach=foreach, maximize=maximize)
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("foreach", None)
            group.setdefault("maximize", False)
            for p in group["params"]:
                p_state = self.state.get(p, {})
                if len(p_state) != 0 and not isinstance(p_state["step"], ember.Tensor):
                    p_state["step"] = _scalar_state(float(p_state["step"]))

    def _init_param_state(self, p, group, state):
        state["step"] = _scalar_state(0.0)
        if p.grad.dim() > 1:
            row_shape = list(p.grad.shape)
            row_shape[-1] = 1
            col_shape = list(p.grad.shape)
            col_shape[-2] = 1
            state["row_var"] = p.grad.new_zeros(row_shape)
            state["col_var"] = p.grad.new_zeros(col_shape)
        else:
            state["variance"] = ember.zeros_like(p.grad)

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """Performs one Adafactor step and returns the closure's loss, if given."""
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            lr = _get_value(_to_scalar(group["lr"]))
            eps1, eps2 = group["eps"]
            d, beta2_decay, weight_decay = group["d"], group["beta2_decay"], group["weight_decay"]
            for p in group["params"]:
                if p.grad is not None and p.is_complex():
                    raise RuntimeError("Adafactor does not support complex parameters")
                if p.grad is not None and p.grad.is_sparse:
                    raise RuntimeError("Adafactor does not support sparse gradients")
            for p, grad, state in self._grads_and_states(group, "Adafactor"):
                e1 = float(finfo(p.dtype).eps) if eps1 is None else eps1
                state["step"].add_(1)
                t = state["step"].item()
                one_minus_beta2 = t ** beta2_decay
                rho = min(lr, 1 / (t ** 0.5))
                alpha = max(eps2, p.norm(2).item() / (p.numel() ** 0.5)) * rho
                if weight_decay != 0:
                    p.mul_(1 - lr * weight_decay)
                if grad.dim() > 1:
                    row_var, col_var = state["row_var"], state["col_var"]
                    row_var.lerp_((grad * grad).mean(-1, keepdim=True), one_minus_beta2)
                    col_var.lerp_((grad * grad).mean(-2, keepdim=True), one_minus_beta2)
                    var_estimate = (row_var @ col_var) / row_var.mean(-2, keepdim=True).clamp(min=e1)
                else:
                    variance = state["variance"]
                    variance.lerp_(grad * grad, one_minus_beta2)
                    var_estimate = variance.clone()
                update = var_estimate.clamp(min=e1 * e1).rsqrt() * grad
                denom = max(1.0, update.norm(2).item() / ((update.numel() ** 0.5) * d))
                p.add_(update, alpha=-alpha / denom)
        return loss
