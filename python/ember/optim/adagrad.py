"""Adagrad: per-coordinate learning rates from the running sum of squared gradients."""
from __future__ import annotations

import ember
from ember.optim.optimizer import (
    Optimizer, _check_fused, _check_lr, _dense_grad, _get_value,
    _scalar_state, _to_scalar, _use_grad_for_differentiable, _view_as_real,
)

__all__ = ["Adagrad"]


class Adagrad(Optimizer):
    """Adagrad, following torch.optim.Adagrad's single-tensor algorithm."""

    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0,
                 initial_accumulator_value=0, eps=1e-10, foreach=None, *, maximize=False,
                 differentiable=False, fused=None):
        _check_lr(lr)
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
        if fused:
            _check_fused(fused, foreach, differentiable)
            self._need_device_dtype_check_for_fused = True
        # Unlike the other optimizers, Adagrad creates its state eagerly (as PyTorch does).
        for group in self.param_groups:
            for p in group["params"]:
                self._new_state(p, group, initial_accumulator_value)

    def _new_state(self, p, group, initial_value):
        state = self.state[p]
        state["step"] = _scalar_state(0.0, group["fused"])
        value = complex(initial_value, initial_value) if p.is_complex() else float(initial_value)
        state["sum"] = ember.full_like(p, value)
        return state

    _group_setstate_defaults = (("foreach", None), ("maximize", False),
                                ("differentiable", False), ("fused", None))

    def share_memory(self) -> None:
        """Moves each 'sum' accumulator to shared memory (a no-op where tensors cannot be)."""
        for group in self.param_groups:
            for p in group["params"]:
                share = getattr(self.state[p]["sum"], "share_memory_", None)
                if share is not None:
                    share()

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """Performs one Adagrad step and returns the closure's loss, if given."""
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            lr = _get_value(_to_scalar(group["lr"]))
            lr_decay, eps = group["lr_decay"], group["eps"]
            weight_decay = group["weight_decay"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                self._check_fused_param_once(group, p)
                grad = _dense_grad(p, "Adagrad")
                state = self.state[p]
                if len(state) == 0:
                    # A group added later starts from the constructor's accumulator value,
                    # which is what PyTorch reads (self.defaults), whatever the group says.
                    state = self._new_state(p, group, self.defaults["initial_accumulator_value"])
                state["step"].add_(1)
                step = state["step"].item()
                grad = -grad if group["maximize"] else grad
                if weight_decay != 0:
                    grad = grad.add(p, alpha=weight_decay)
                clr = lr / (1 + (step - 1) * lr_decay)
                param, grad, state_sum = _view_as_real(p, grad, state["sum"])
                state_sum.addcmul_(grad, grad, value=1)
                std = state_sum.sqrt().add_(eps)
                param.addcdiv_(grad, std, value=-clr)
        return loss
