"""The Optimizer base class: parameter groups, per-parameter state, state_dict and hooks."""
from __future__ import annotations

import functools
import warnings
from collections import OrderedDict, defaultdict
from collections.abc import Iterable
from copy import deepcopy
from itertools import chain

import ember
from ember._tensor import RemovableHandle, Tensor

__all__ = ["Optimizer", "register_optimizer_step_pre_hook",
           "register_optimizer_step_post_hook"]


class _RequiredParameter:
    """Marks a hyperparameter that has no default and must be given per group."""

    def __repr__(self):
        return "<required parameter>"


required = _RequiredParameter()

_global_step_pre_hooks: OrderedDict = OrderedDict()
_global_step_post_hooks: OrderedDict = OrderedDict()
_next_hook_id = [0]


def _add_hook(table: OrderedDict, hook, prepend: bool = False) -> RemovableHandle:
    key = _next_hook_id[0]
    _next_hook_id[0] += 1
    table[key] = hook
    if prepend:
        table.move_to_end(key, last=False)
    return RemovableHandle(lambda: table.pop(key, None))


def register_optimizer_step_pre_hook(hook) -> RemovableHandle:
    """Registers `hook(optimizer, args, kwargs)`, run before every optimizer's `step`."""
    return _add_hook(_global_step_pre_hooks, hook)


def register_optimizer_step_post_hook(hook) -> RemovableHandle:
    """Registers `hook(optimizer, args, kwargs)`, run after every optimizer's `step`."""
    return _add_hook(_global_step_post_hooks, hook)


# --- helpers the optimizers share --------------------------------------------------------


def _scalar_dtype(is_fused=None):
    """The dtype of scalar state such as 'step': float64 under a float64 default, else float32."""
    if is_fused:
        return ember.float32
    return ember.float64 if ember.get_default_dtype() == ember.float64 else ember.float32


def _scalar_state(value: float, is_fused=None) -> Tensor:
    """A 0-d tensor holding scalar state ('step', 'mu_product', ...) as PyTorch keeps it."""
    return ember.tensor(float(value), dtype=_scalar_dtype(is_fused))


def _get_value(x):
    """The Python number inside a 0-d tensor (or `x` itself)."""
    return x.item() if isinstance(x, Tensor) else x


def _to_scalar(x):
    """A 1-element hyperparameter tensor as a 0-d tensor; other values unchanged."""
    if isinstance(x, Tensor) and x.dim() != 0:
        return x.squeeze()
    return x


def _check_lr(lr) -> None:
    """Raises ValueError for a negative or multi-element learning rate."""
    if isinstance(lr, Tensor) and lr.numel() != 1:
        raise ValueError("Tensor lr must be 1-element")
    if not 0.0 <= lr:
        raise ValueError(f"Invalid learning rate: {lr}")


def _check_betas(betas) -> None:
    """Raises ValueError unless both betas lie in [0, 1)."""
    if not 0.0 <= betas[0] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
    if not 0.0 <= betas[1] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")


def _check_adam_like(lr, eps, betas, weight_decay) -> None:
    """The Adam family's checks, in PyTorch's order: lr, eps, betas, weight_decay (ValueError)."""
    _check_lr(lr)
    if not 0.0 <= eps:
        raise ValueError(f"Invalid epsilon value: {eps}")
    _check_betas(betas)
    if not 0.0 <= weight_decay:
        raise ValueError(f"Invalid weight_decay value: {weight_decay}")


def _check_fused(fused, foreach, differentiable) -> None:
    """PyTorch's checks of `fused` against `foreach` and `differentiable` (RuntimeError)."""
    if fused:
        if differentiable:
            raise RuntimeError("`fused` does not support `differentiable`")
        if foreach:
            raise RuntimeError("`fused` and `foreach` cannot be `True` together.")


def _check_fused_param(p: Tensor) -> None:
    """`fused=True` needs floating-point parameters (checked on the first step, as PyTorch)."""
    if not p.is_floating_point():
        raise RuntimeError("`fused=True` requires all the params to be floating point Tensors "
                           f"of supported devices: ['cpu'] but {p.dtype} and {p.device.type}")


# The option flags most optimizers fill into old pickles' groups (`_group_setstate_defaults`).
_FLAG_SETSTATE_DEFAULTS = (("foreach", None), ("maximize", False), ("differentiable", False),
                           ("capturable", False))


def _dense_grad(p: Tensor, name: str) -> Tensor:
    """`p.grad`, refusing a sparse one as PyTorch's dense optimizers do."""
    grad = p.grad
    if getattr(grad, "is_sparse", False):
        raise RuntimeError(f"{name} does not support sparse gradients")
    return grad


def _view_as_real(*tensors):
    """Complex tensors as real views (a complex number is two independent reals to every
    optimizer, as in PyTorch); real ones unchanged. Writes go through to the originals."""
    return [ember.view_as_real(t) if t.is_complex() else t for t in tensors]


def _use_grad_for_differentiable(step):
    """Runs `step` with autograd on only when the optimizer was built `differentiable`."""

    @functools.wraps(step)
    def wrapper(self, *args, **kwargs):
        with ember.set_grad_enabled(bool(self.defaults.get("differentiable", False))):
            return step(self, *args, **kwargs)

    return wrapper


def _with_step_hooks(step):
    """Wraps a subclass's `step` so that the global and per-optimizer step hooks run."""

    @functools.wraps(step)
    def wrapper(self, *args, **kwargs):
        for pre_hook in chain(_global_step_pre_hooks.values(),
                              self._optimizer_step_pre_hooks.values()):
            result = pre_hook(self, args, kwargs)
            if result is not None:
                if isinstance(result, tuple) and len(result) == 2:
                    args, kwargs = result
                else:
                    raise RuntimeError(f"{step} must return None or a tuple of "
                                       f"(new_args, new_kwargs), but got {result}.")
        out = step(self, *args, **kwargs)
        for post_hook in chain(self._optimizer_step_post_hooks.values(),
                               _global_step_post_hooks.values()):
            post_hook(self, args, kwargs)
        return out

    wrapper.hooked = True
    return wrapper


class Optimizer:
    """Base class of all optimizers: holds `param_groups` and per-parameter `state`.

    Subclasses implement `step`; the state_dict format is PyTorch's (parameters are
    named by their index in the order the groups list them).
    """

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        step = cls.__dict__.get("step")
        if step is not None and not getattr(step, "hooked", False):
            cls.step = _with_step_hooks(step)

    def __init__(self, params, defaults: dict):
        self.defaults = defaults
        self._init_hooks()
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of "
                            f"Tensors or dicts, but got {type(params).__module__}."
                            f"{type(params).__name__}")
        self.state: defaultdict = defaultdict(dict)
        self.param_groups: list[dict] = []
        param_groups = list(params)
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for group in param_groups:
            self.add_param_group(group)

    def _init_hooks(self):
        for name in ("_optimizer_step_pre_hooks", "_optimizer_step_post_hooks",
                     "_optimizer_state_dict_pre_hooks", "_optimizer_state_dict_post_hooks",
                     "_optimizer_load_state_dict_pre_hooks",
                     "_optimizer_load_state_dict_post_hooks"):
            if name not in self.__dict__:
                setattr(self, name, OrderedDict())

    def __getstate__(self):
        return {"defaults": self.defaults, "state": self.state,
                "param_groups": self.param_groups}

    # (key, value) pairs that `__setstate__` fills into each param group lacking them, in
    # this order: the options a subclass gained after old pickles were written.
    _group_setstate_defaults: tuple = ()

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._init_hooks()
        self.defaults.setdefault("differentiable", False)
        for group in self.param_groups:
            for key, value in self._group_setstate_defaults:
                group.setdefault(key, value)

    def __repr__(self):
        lines = [self.__class__.__name__ + " ("]
        for i, group in enumerate(self.param_groups):
            lines.append(f"Parameter Group {i}")
            for key in sorted(group):
                if key != "params":
                    lines.append(f"    {key}: {group[key]}")
        lines.append(")")
        return "\n".join(lines)

    def add_param_group(self, param_group: dict) -> None:
        """Adds a group of parameters, filling the hyperparameters it omits from defaults."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            params = [params]
        elif isinstance(params, set):
            raise TypeError("optimizer parameters need to be organized in ordered collections, "
                            "but the ordering of tensors in sets will change between runs. "
                            "Please use a list instead.")
        else:
            params = list(params)
        # named_parameters() yields (name, tensor) pairs; the names go to 'param_names'.
        names = [p[0] for p in params if isinstance(p, tuple)]
        param_group["params"] = [p[1] if isinstance(p, tuple) else p for p in params]
        if names:
            if len(names) != len(params):
                raise ValueError("all optimizer params should be with/without names. Some param "
                                 "names are missing")
            param_group["param_names"] = names
        for param in param_group["params"]:
            if not isinstance(param, Tensor):
                raise TypeError("optimizer can only optimize Tensors, but one of the params is "
                                + type(param).__module__ + "." + type(param).__name__)
            if not self.defaults.get("differentiable", None) and not (
                    param.is_leaf or getattr(param, "retains_grad", False)):
                raise ValueError("can't optimize a non-leaf Tensor")
        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError(f"parameter group didn't specify a value of required "
                                 f"optimization parameter {name}")
            param_group.setdefault(name, default)
        ids = [id(p) for p in param_group["params"]]
        if len(ids) != len(set(ids)):
            warnings.warn("optimizer contains a parameter group with duplicate parameters; "
                          "in future, this will cause an error; see "
                          "github.com/pytorch/pytorch/issues/40967 for more information",
                          stacklevel=3)
        seen: set[int] = set()
        for group in self.param_groups:
            seen.update(id(p) for p in group["params"])
            if ("param_names" in param_group) != ("param_names" in group):
                which = "with names" if "param_names" in param_group else "without names"
                raise ValueError("all optimizer param groups should be with/without names. "
                                 f"cannot add param group {which} to the optimizer")
        if not seen.isdisjoint(ids):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Resets the gradients of all parameters: to None, or to zeros in place."""
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                if set_to_none:
                    p.grad = None
                else:
                    grad = p.grad
                    if grad.grad_fn is not None:
                        grad = grad.detach()
                        p.grad = grad
                    else:
                        grad.requires_grad_(False)
                    with ember.no_grad():
                        grad.zero_()

    def step(self, closure=None):
        """Performs one optimization step; `closure` re-evaluates the model and returns the loss."""
        raise NotImplementedError

    def _check_fused_param_once(self, group: dict, p: Tensor) -> None:
        """`_check_fused_param` on the first parameter a fused group steps (once per optimizer)."""
        if group["fused"] and getattr(self, "_need_device_dtype_check_for_fused", True):
            _check_fused_param(p)
            self._need_device_dtype_check_for_fused = False

    def _init_param_state(self, p: Tensor, group: dict, state: dict) -> None:
        """Fills the empty `state` of `p` on its first step (for `_grads_and_states`)."""
        raise NotImplementedError

    def _grads_and_states(self, group: dict, name: str):
        """Yields (p, grad, state) for each parameter of `group` that has a gradient.

        The single-tensor preamble the optimizers share: `grad` is `p.grad` refused when
        sparse (`name` says who refuses) and negated under `maximize`; `state` is the
        parameter's, filled by `_init_param_state` when empty.
        """
        for p in group["params"]:
            if p.grad is None:
                continue
            grad = _dense_grad(p, name)
            state = self.state[p]
            if len(state) == 0:
                self._init_param_state(p, group, state)
            yield p, (-grad if group["maximize"] else grad), state

    def _closure_loss(self, closure):
        if closure is None:
            return None
        with ember.enable_grad():
            return closure()

    def _accelerator_graph_capture_health_check(self) -> None:
        """Graph capture does not exist on Ember's CPU backend, so there is nothing to check."""

    # --- hooks -----------------------------------------------------------------------------

    def register_step_pre_hook(self, hook) -> RemovableHandle:
        """Registers `hook(optimizer, args, kwargs) -> None or (args, kwargs)` before `step`."""
        return _add_hook(self._optimizer_step_pre_hooks, hook)

    def register_step_post_hook(self, hook) -> RemovableHandle:
        """Registers `hook(optimizer, args, kwargs)`, run after `step`."""
        return _add_hook(self._optimizer_step_post_hooks, hook)

    def register_state_dict_pre_hook(self, hook, prepend: bool = False) -> RemovableHandle:
        """Registers `hook(optimizer)`, run before `state_dict` builds its result."""
        return _add_hook(self._optimizer_state_dict_pre_hooks, hook, prepend)

    def register_state_dict_post_hook(self, hook, prepend: bool = False) -> RemovableHandle:
        """Registers `hook(optimizer, state_dict) -> None or state_dict` after `state_dict`."""
        return _add_hook(self._optimizer_state_dict_post_hooks, hook, prepend)

    def register_load_state_dict_pre_hook(self, hook, prepend: bool = False) -> RemovableHandle:
        """Registers `hook(optimizer, state_dict) -> None or state_dict` before loading."""
        return _add_hook(self._optimizer_load_state_dict_pre_hooks, hook, prepend)

    def register_load_state_dict_post_hook(self, hook, prepend: bool = False) -> RemovableHandle:
        """Registers `hook(optimizer)`, run after `load_state_dict`."""
        return _add_hook(self._optimizer_load_state_dict_post_hooks, hook, prepend)

    # --- state_dict ------------------------------------------------------------------------

    def state_dict(self) -> dict:
        """Returns {'state': {index: state}, 'param_groups': [...]} with params as indices."""
        for pre_hook in self._optimizer_state_dict_pre_hooks.values():
            pre_hook(self)
        index_of: dict[int, int] = {}
        start = 0
        packed_groups = []
        for group in self.param_groups:
            packed = {k: v for k, v in group.items() if k != "params"}
            # Built before it is merged, as PyTorch does: a parameter listed twice in one
            # group gets the later index.
            index_of.update({id(p): i for i, p in enumerate(group["params"], start)
                             if id(p) not in index_of})
            packed["params"] = [index_of[id(p)] for p in group["params"]]
            start += len(packed["params"])
            packed_groups.append(packed)
        packed_state = {(index_of[id(k)] if isinstance(k, Tensor) else k): v
                        for k, v in self.state.items()}
        state_dict = {"state": packed_state, "param_groups": packed_groups}
        for post_hook in self._optimizer_state_dict_post_hooks.values():
            result = post_hook(self, state_dict)
            if result is not None:
                state_dict = result
        return state_dict

    @staticmethod
    def _cast_state_value(param, value, group, key):
        # Float state follows the parameter's dtype; 'step' keeps its own unless the group is
        # fused or capturable (then float32), as in PyTorch.
        if key == "step":
            if group.get("fused", False) or group.get("capturable", False):
                return value.to(ember.float32)
            return value
        if param.is_floating_point():
            return value.to(param.dtype)
        return value

    def load_state_dict(self, state_dict: dict) -> None:
        """Loads a state_dict produced by `state_dict` (a deep copy: nothing is aliased)."""
        state_dict = state_dict.copy()
        for pre_hook in self._optimizer_load_state_dict_pre_hooks.values():
            result = pre_hook(self, state_dict)
            if result is not None:
                state_dict = result
        groups = self.param_groups
        saved_groups = deepcopy(state_dict["param_groups"])
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved_groups)):
            raise ValueError("loaded state dict contains a parameter group that doesn't match "
                             "the size of optimizer's group")
        id_map = dict(zip(chain.from_iterable(g["params"] for g in saved_groups),
                          chain.from_iterable(g["params"] for g in groups)))
        group_of = {i: g for g in state_dict["param_groups"] for i in g["params"]}

        def cast(param, value, group, key=None):
            if isinstance(value, Tensor):
                return self._cast_state_value(param, value.clone(), group, key)
            if isinstance(value, dict):
                return {k: cast(param, v, group, k) for k, v in value.items()}
            if isinstance(value, Iterable) and not isinstance(value, (str, bytes)):
                return type(value)(cast(param, v, group) for v in value)
            return deepcopy(value)

        state: defaultdict = defaultdict(dict)
        for k, v in state_dict["state"].items():
            if k in id_map:
                state[id_map[k]] = cast(id_map[k], v, group_of.get(k, {}))
            else:
                state[k] = v
        new_groups = []
        for group, saved in zip(groups, saved_groups):
            saved["params"] = group["params"]
            if "param_names" in group and "param_names" not in saved:
                saved["param_names"] = group["param_names"]
            new_groups.append(saved)
        self.__setstate__({"state": state, "param_groups": new_groups})
        for post_hook in self._optimizer_load_state_dict_post_hooks.values():
            post_hook(self)
