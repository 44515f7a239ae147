"""Adagrad: per-coordinate learning rates from the running sum of squared gradients."""
from __future__ import annotations

import ember
from ember.optim.optimizer import Optimizer


class Adagrad(Optimizer):
    """Adagrad, following torch.optim.Adagrad's single-tensor algorithm."""

    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0,
                 initial_accumulator_value=0, eps=1e-10, foreach=None, *, maximize=False,
                 differentiable=False, fused=None):
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= lr_decay:
            raise ValueError(f"Invalid lr_decay value: {lr_decay}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= initial_accumulator_value:
            raise ValueError(f"Invalid initial_accumulator_value value: "
                             f"{initial_accumulator_value}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        defaults = dict(lr=lr, lr_decay=lr_decay, eps=eps, weight_decay=weight_decay,
                        initial_accumulator_value=initial_accumulator_value, foreach=foreach,
                        maximize=maximize, differentiable=differentiable, fused=fused)
        super().__init__(params, defaults)
        # Unlike the other optimizers, Adagrad creates its state eagerly (as PyTorch does).
        for group in self.param_groups:
            for p in group["params"]:
                state = self.state[p]
                state["step"] = ember.tensor(0.0, dtype=ember.float32)
                state["sum"] = ember.full_like(p, float(group["initial_accumulator_value"]))

    def step(self, closure=None):
        """Performs one Adagrad step and returns the closure's loss, if given."""
        loss = self._closure_loss(closure)
        with ember.no_grad():
            for group in self.param_groups:
                lr, lr_decay, eps = group["lr"], group["lr_decay"], group["eps"]
                weight_decay = group["weight_decay"]
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    state = self.state[p]
                    state["step"].add_(1)
                    step = state["step"].item()
                    grad = -p.grad if group["maximize"] else p.grad
                    if weight_decay != 0:
                        grad = grad.add(p, alpha=weight_decay)
                    clr = lr / (1 + (step - 1) * lr_decay)
                    state["sum"].addcmul_(grad, grad, value=1)
                    std = state["sum"].sqrt().add_(eps)
                    p.addcdiv_(grad, std, value=-clr)
        return loss
