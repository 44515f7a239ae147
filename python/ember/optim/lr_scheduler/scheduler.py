"""LRScheduler, the base of every learning-rate scheduler, and the helpers they share."""
from __future__ import annotations

import types
import warnings
from functools import wraps
from weakref import ref

from ember._tensor import Tensor
from ember.optim.optimizer import Optimizer, _to_scalar

__all__ = ["LRScheduler", "EPOCH_DEPRECATION_WARNING"]

EPOCH_DEPRECATION_WARNING = (
    "The epoch parameter in `scheduler.step()` was not necessary and is being deprecated "
    "where possible. Please use `scheduler.step()` to step the scheduler. During the "
    "deprecation, if epoch is different from None, the closed form is used instead of the new "
    "chainable form, where available. Please open an issue if you are unable to replicate "
    "your use case: https://github.com/pytorch/pytorch/issues/new/choose.")


def _check_optimizer(optimizer) -> None:
    if not isinstance(optimizer, Optimizer):
        raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")


def _format_param(name: str, optimizer: Optimizer, param) -> list:
    """Expands `param` to one entry per parameter group (a list must already have one)."""
    if isinstance(param, (list, tuple)):
        if len(param) != len(optimizer.param_groups):
            raise ValueError(f"{name} must have the same length as optimizer.param_groups. "
                             f"{name} has {len(param)} values, param_groups has "
                             f"{len(optimizer.param_groups)}.")
    else:
        param = [param] * len(optimizer.param_groups)
    return [p.clone() if isinstance(p, Tensor) else p for p in param]


def _param_groups_val_list(optimizer: Optimizer, key: str) -> list:
    """Each group's `key`, with tensors copied so the list never aliases the groups."""
    return [g[key].clone() if isinstance(g[key], Tensor) else g[key]
            for g in optimizer.param_groups]


def _update_param_group_val(param_group: dict, key: str, val) -> None:
    """Sets a hyperparameter, in place when the group holds it as a tensor."""
    if isinstance(param_group[key], Tensor):
        param_group[key].fill_(_get_number(_to_scalar(val)))
    else:
        param_group[key] = val


def _get_number(x):
    return x.item() if isinstance(x, Tensor) else x


def _lambdas_state(lr_lambdas) -> list:
    """The state of callable-object lambdas (plain functions and lambdas are not saved)."""
    return [None if isinstance(fn, types.FunctionType) else fn.__dict__.copy()
            for fn in lr_lambdas]


class _enable_get_lr_call:
    """Marks `get_lr` calls made from `step` (others warn, as in PyTorch)."""

    def __init__(self, scheduler):
        self.scheduler = scheduler

    def __enter__(self):
        self.scheduler._get_lr_called_within_step = True
        return self

    def __exit__(self, *exc):
        self.scheduler._get_lr_called_within_step = False


class _initial_mode:
    """Marks the step the constructor takes, which must leave the current lr unchanged."""

    def __init__(self, scheduler):
        self.scheduler = scheduler

    def __enter__(self):
        self.scheduler._is_initial = True

    def __exit__(self, *exc):
        self.scheduler._is_initial = False


def _warn_get_lr_called_within_step(scheduler) -> None:
    if not scheduler._get_lr_called_within_step:
        warnings.warn("To get the last learning rate computed by the scheduler, please use "
                      "`get_last_lr()`.", UserWarning, stacklevel=3)


def _patch_track_step_called(scheduler, opt: Optimizer) -> None:
    # Wraps the optimizer's step so that a scheduler stepped before it can warn (PyTorch's
    # check that `optimizer.step()` comes first).
    if hasattr(opt.step, "_wrapped_by_lr_sched"):
        return
    opt_ref = ref(opt)
    func = opt.step.__func__

    @wraps(func)
    def wrapper(*args, **kwargs):
        o = opt_ref()
        o._opt_called = True
        return func.__get__(o, o.__class__)(*args, **kwargs)

    wrapper._wrapped_by_lr_sched = True
    opt.step = wrapper


class LRScheduler:
    """Base class of schedulers: sets each group's 'lr' from `get_lr` on every `step`.

    `get_lr` is the chainable form (it scales the group's current lr, so schedulers
    compose); `_get_closed_form_lr`, where a scheduler has one, serves `step(epoch)`.
    """

    _get_lr_called_within_step: bool = False
    _is_initial: bool = False

    def __init__(self, optimizer: Optimizer, last_epoch: int = -1):
        _check_optimizer(optimizer)
        self.optimizer = optimizer
        if last_epoch == -1:
            for group in optimizer.param_groups:
                initial_lr = group["lr"]
                if isinstance(initial_lr, Tensor):
                    initial_lr = initial_lr.clone()
                group.setdefault("initial_lr", initial_lr)
        else:
            for i, group in enumerate(optimizer.param_groups):
                if "initial_lr" not in group:
                    raise KeyError(
                        f"param 'initial_lr' is not specified in param_groups[{i}] when "
                        "resuming scheduler with last_epoch >= 0.\nThis typically happens "
                        "when:\n1. You're trying to resume training from a checkpoint but "
                        "haven't properly loaded the optimizer state\n2. You're using "
                        "last_epoch >= 0 for a fresh training run (not recommended)")
        self.base_lrs = _param_groups_val_list(optimizer, "initial_lr")
        self.last_epoch = last_epoch
        _patch_track_step_called(self, optimizer)
        self._initial_step()

    def _initial_step(self) -> None:
        self._step_count = 0
        with _initial_mode(self):
            self.step()

    def state_dict(self) -> dict:
        """Returns every attribute except the optimizer."""
        return {key: value for key, value in self.__dict__.items() if key != "optimizer"}

    def load_state_dict(self, state_dict: dict) -> None:
        """Restores the attributes saved by `state_dict`."""
        self.__dict__.update(state_dict)

    def get_last_lr(self) -> list:
        """Returns the learning rates the last `step` set, one per group."""
        return self._last_lr

    def get_lr(self) -> list:
        """Computes the learning rates for `last_epoch` (the step just taken)."""
        raise NotImplementedError

    def step(self, epoch=None) -> None:
        """Advances the schedule by one epoch (or jumps to `epoch`, deprecated)."""
        if self._step_count == 1:
            if not hasattr(self.optimizer.step, "_wrapped_by_lr_sched"):
                warnings.warn("Seems like `optimizer.step()` has been overridden after learning "
                              "rate scheduler initialization. Please, make sure to call "
                              "`optimizer.step()` before `lr_scheduler.step()`.", UserWarning,
                              stacklevel=2)
            elif not getattr(self.optimizer, "_opt_called", False):
                warnings.warn("Detected call of `lr_scheduler.step()` before "
                              "`optimizer.step()`. In PyTorch 1.1.0 and later, you should call "
                              "them in the opposite order: `optimizer.step()` before "
                              "`lr_scheduler.step()`.  Failure to do this will result in "
                              "PyTorch skipping the first value of the learning rate schedule.",
                              UserWarning, stacklevel=2)
        self._step_count += 1
        if epoch is not None:
            warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning, stacklevel=2)
        self._update_lr(epoch)

    def _update_lr(self, epoch=None) -> None:
        with _enable_get_lr_call(self):
            if epoch is None:
                self.last_epoch += 1
                values = self.get_lr()
            else:
                self.last_epoch = epoch
                if hasattr(self, "_get_closed_form_lr"):
                    values = self._get_closed_form_lr()
                else:
                    values = self.get_lr()
        for group, lr in zip(self.optimizer.param_groups, values):
            _update_param_group_val(group, "lr", lr)
        self._last_lr = _param_groups_val_list(self.optimizer, "lr")
