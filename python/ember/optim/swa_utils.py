"""Stochastic weight averaging and EMA: AveragedModel, SWALR and update_bn."""
from __future__ import annotations

import itertools
import math
import warnings
from copy import deepcopy

import ember
from ember._tensor import Tensor
from ember.nn.modules.batchnorm import _BatchNorm
from ember.nn.modules.module import Module
from ember.optim.lr_scheduler.scheduler import LRScheduler, _format_param

__all__ = ["AveragedModel", "update_bn", "SWALR", "get_ema_multi_avg_fn",
           "get_swa_multi_avg_fn", "get_ema_avg_fn", "get_swa_avg_fn"]


def _is_float_or_complex(t: Tensor) -> bool:
    return t.is_floating_point() or t.is_complex()


def _check_decay(decay) -> None:
    if decay < 0.0 or decay > 1.0:
        raise ValueError(f"Invalid decay value {decay} provided. Please provide a value in [0,1] "
                         "range.")


def get_ema_multi_avg_fn(decay=0.999):
    """An in-place `multi_avg_fn` for exponential moving averages with weight `decay`."""
    _check_decay(decay)

    def ema_update(ema_param_list, current_param_list, _):
        with ember.no_grad():
            if _is_float_or_complex(ema_param_list[0]):
                for p_ema, p_model in zip(ema_param_list, current_param_list):
                    p_ema.lerp_(p_model, 1 - decay)
            else:
                for p_ema, p_model in zip(ema_param_list, current_param_list):
                    p_ema.copy_(p_ema * decay + p_model * (1 - decay))

    return ema_update


def get_swa_multi_avg_fn():
    """An in-place `multi_avg_fn` for the running (equal-weight) average of SWA."""

    def swa_update(averaged_param_list, current_param_list, num_averaged):
        with ember.no_grad():
            n = num_averaged.item() if isinstance(num_averaged, Tensor) else num_averaged
            if _is_float_or_complex(averaged_param_list[0]):
                for p_avg, p_model in zip(averaged_param_list, current_param_list):
                    p_avg.lerp_(p_model, 1 / (n + 1))
            else:
                for p_avg, p_model in zip(averaged_param_list, current_param_list):
                    diff = p_model - p_avg
                    if isinstance(num_averaged, Tensor):
                        p_avg.addcdiv_(diff, num_averaged + 1)
                    else:
                        p_avg.add_(diff, alpha=1.0 / (n + 1))

    return swa_update


def get_ema_avg_fn(decay=0.999):
    """An `avg_fn` returning the exponential moving average with weight `decay`."""
    _check_decay(decay)

    def ema_update(ema_param, current_param, num_averaged):
        with ember.no_grad():
            return decay * ema_param + (1 - decay) * current_param

    return ema_update


def get_swa_avg_fn():
    """An `avg_fn` returning the running (equal-weight) average of SWA."""

    def swa_update(averaged_param, current_param, num_averaged):
        with ember.no_grad():
            return averaged_param + (current_param - averaged_param) / (num_averaged + 1)

    return swa_update


def _group_by_device_and_dtype(averaged, current) -> dict:
    groups: dict = {}
    for a, c in zip(averaged, current):
        lists = groups.setdefault((a.device, a.dtype), ([], []))
        lists[0].append(a)
        lists[1].append(c)
    return groups


class AveragedModel(Module):
    """A copy of `model` whose parameters (and, with `use_buffers`, buffers) are averaged
    over `update_parameters` calls: SWA by default, or `avg_fn` / `multi_avg_fn` (such as
    `get_ema_multi_avg_fn()`)."""

    def __init__(self, model, device=None, avg_fn=None, multi_avg_fn=None, use_buffers=False):
        super().__init__()
        if avg_fn is not None and multi_avg_fn is not None:
            raise AssertionError("Only one of avg_fn and multi_avg_fn should be provided")
        self.module = deepcopy(model)
        if device is not None:
            self.module = self.module.to(device)
        self.register_buffer("n_averaged", ember.tensor(0, dtype=ember.long, device=device))
        self.avg_fn = avg_fn
        self.multi_avg_fn = multi_avg_fn
        self.use_buffers = use_buffers

    def forward(self, *args, **kwargs):
        """Runs the averaged copy of the model."""
        return self.module(*args, **kwargs)

    def update_parameters(self, model) -> None:
        """Folds `model`'s current parameters into the average (the first call copies them)."""
        if self.use_buffers:
            self_params = itertools.chain(self.module.parameters(), self.module.buffers())
            model_params = itertools.chain(model.parameters(), model.buffers())
        else:
            self_params, model_params = self.parameters(), model.parameters()
        averaged, current = [], []
        copy_param = bool(self.n_averaged == 0)
        for p_averaged, p_model in zip(self_params, model_params):
            p_model_ = p_model.detach().to(p_averaged.device)
            averaged.append(p_averaged.detach())
            current.append(p_model_)
            if copy_param:
                with ember.no_grad():
                    p_averaged.detach().copy_(p_model_)
        if self.n_averaged > 0:
            with ember.no_grad():
                self._average(averaged, current)
        if not self.use_buffers:
            # Buffers are not averaged; they follow the model.
            with ember.no_grad():
                for b_swa, b_model in zip(self.module.buffers(), model.buffers()):
                    b_swa.detach().copy_(b_model.detach().to(b_swa.device))
        with ember.no_grad():
            self.n_averaged += 1

    def _average(self, averaged, current) -> None:
        if self.multi_avg_fn is not None or self.avg_fn is None:
            groups = _group_by_device_and_dtype(averaged, current)
            for (device, _), (self_group, model_group) in groups.items():
                n_averaged = self.n_averaged.to(device)
                if self.multi_avg_fn is not None:
                    self.multi_avg_fn(self_group, model_group, n_averaged)
                else:
                    avg_fn = get_swa_avg_fn()
                    for p_averaged, p_model in zip(self_group, model_group):
                        p_averaged.copy_(avg_fn(p_averaged, p_model, n_averaged))
        else:
            for p_averaged, p_model in zip(averaged, current):
                n_averaged = self.n_averaged.to(p_averaged.device)
                p_averaged.detach().copy_(self.avg_fn(p_averaged.detach(), p_model, n_averaged))


def update_bn(loader, model, device=None) -> None:
    """Recomputes every BatchNorm's running statistics with one pass over `loader`.

    Each batch (or its first element, for a list or tuple) is fed to `model` in training
    mode with momentum None (a cumulative average); the mode and momenta are restored.
    """
    with ember.no_grad():
        momenta = {}
        for module in model.modules():
            if isinstance(module, _BatchNorm):
                module.reset_running_stats()
                momenta[module] = module.momentum
        if not momenta:
            return
        was_training = model.training
        model.train()
        for module in momenta:
            module.momentum = None
        for input in loader:
            if isinstance(input, (list, tuple)):
                input = input[0]
            if device is not None:
                input = input.to(device)
            model(input)
        for module, momentum in momenta.items():
            module.momentum = momentum
        model.train(was_training)


class SWALR(LRScheduler):
    """Anneals each group's lr to its `swa_lr` over `anneal_epochs` (cos or linear), then
    holds it there."""

    def __init__(self, optimizer, swa_lr, anneal_epochs=10, anneal_strategy="cos",
                 last_epoch=-1):
        swa_lrs = _format_param("swa_lr", optimizer, swa_lr)
        for lr, group in zip(swa_lrs, optimizer.param_groups):
            group["swa_lr"] = lr
        if anneal_strategy not in ["cos", "linear"]:
            raise ValueError("anneal_strategy must be one of 'cos' or 'linear', instead got "
                             f"{anneal_strategy}")
        self._set_anneal_func(anneal_strategy)
        if not isinstance(anneal_epochs, int) or anneal_epochs < 0:
            raise ValueError(f"anneal_epochs must be equal or greater than 0, got {anneal_epochs}")
        self.anneal_epochs = anneal_epochs
        super().__init__(optimizer, last_epoch)

    @staticmethod
    def _linear_anneal(t):
        return t

    @staticmethod
    def _cosine_anneal(t):
        return (1 - math.cos(math.pi * t)) / 2

    @staticmethod
    def _get_initial_lr(lr, swa_lr, alpha):
        if alpha == 1:
            return swa_lr
        return (lr - alpha * swa_lr) / (1 - alpha)

    def get_lr(self):
        """The lrs at this step of the annealing, recovered from the current ones."""
        if not self._get_lr_called_within_step:
            warnings.warn("To get the last learning rate computed by the scheduler, please use "
                          "`get_last_lr()`.", UserWarning, stacklevel=2)
        step = self._step_count - 1
        if self.anneal_epochs == 0:
            step = max(1, step)
        prev_t = max(0, min(1, (step - 1) / max(1, self.anneal_epochs)))
        prev_alpha = self.anneal_func(prev_t)
        prev_lrs = [self._get_initial_lr(group["lr"], group["swa_lr"], prev_alpha)
                    for group in self.optimizer.param_groups]
        t = max(0, min(1, step / max(1, self.anneal_epochs)))
        alpha = self.anneal_func(t)
        return [group["swa_lr"] * alpha + lr * (1 - alpha)
                for group, lr in zip(self.optimizer.param_groups, prev_lrs)]

    def _set_anneal_func(self, anneal_strategy):
        self._anneal_strategy = anneal_strategy
        self.anneal_func = self._cosine_anneal if anneal_strategy == "cos" else self._linear_anneal

    def state_dict(self) -> dict:
        """Every attribute except the optimizer and the anneal function."""
        return {key: value for key, value in self.__dict__.items()
                if key not in ("optimizer", "anneal_func")}

    def load_state_dict(self, state_dict: dict) -> None:
        """Restores the attributes and the anneal function they name."""
        self.__dict__.update(state_dict)
        self._set_anneal_func(self._anneal_strategy)
