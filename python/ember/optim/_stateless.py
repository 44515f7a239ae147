"""swap_in_optimizer_params_and_state: run an optimizer, for the length of a with-block, on other
parameter tensors and an optimizer.state_dict()-shaped state, then restore the live ones."""
import contextlib
from collections import defaultdict

from ember._tensor import Tensor

__all__ = ["swap_in_optimizer_params_and_state"]


def _fail(msg):
    raise RuntimeError(msg)


def _checked_groups(optimizer, swapin_parameters, swapin_optim_state):
    """Validates the swap-in state against the live optimizer; returns (state, [(group, saved, params)])."""
    if not optimizer.state:
        _fail("swap_in_optimizer_params_and_state requires initialized optimizer state.")
    if not isinstance(swapin_optim_state, dict):
        _fail("swap_in_optimizer_params_and_state requires a DCP-style optimizer state_dict.")
    state = swapin_optim_state.get("state")
    if not isinstance(state, dict):
        _fail("swap_in_optimizer_params_and_state requires swapin_optim_state['state'] to be a dict mapping "
              f"packed parameter ids to per-param state dicts, got {type(state).__name__}.")
    if any(isinstance(k, Tensor) for k in state):
        _fail("swap_in_optimizer_params_and_state requires optimizer.state_dict()-style state keyed by packed "
              "parameter ids.")
    if any(isinstance(k, int) and not isinstance(v, dict) for k, v in state.items()):
        _fail("swap_in_optimizer_params_and_state requires per-parameter optimizer state entries to be "
              "dictionaries.")
    groups = swapin_optim_state.get("param_groups")
    if not isinstance(groups, list):
        _fail("swap_in_optimizer_params_and_state requires swapin_optim_state['param_groups'] to be a list of "
              f"param-group dicts, got {type(groups).__name__}.")
    if len(groups) != len(optimizer.param_groups):
        _fail("swapin_optim_state has a different number of parameter groups than the live optimizer.")
    tensors = list(swapin_parameters.values())
    used, seen, plan = 0, set(), []
    for idx, (live, saved) in enumerate(zip(optimizer.param_groups, groups)):
        if not isinstance(saved, dict):
            _fail("swap_in_optimizer_params_and_state requires each optimizer param group to be a dictionary.")
        ids = saved.get("params")
        if not isinstance(ids, list) or not all(isinstance(i, int) for i in ids):
            _fail("swap_in_optimizer_params_and_state requires optimizer.state_dict()-style "
                  "param_groups[*]['params'] entries keyed by packed parameter ids.")
        if len(ids) != len(live["params"]):
            _fail(f"swapin_optim_state param group {idx} has a different number of params than the live "
                  "optimizer param group.")
        only_saved = [k for k in saved if k not in live]
        only_live = [k for k in live if k not in saved]
        if only_saved or only_live:
            _fail("swap_in_optimizer_params_and_state requires optimizer.state_dict()-style param group keys to "
                  f"exactly match the live optimizer group keys for group {idx}. Keys only in swap-in: "
                  f"{only_saved}. Keys only in live: {only_live}.")
        if used + len(ids) > len(tensors):
            _fail("swap_in_optimizer_params_and_state requires the explicit parameter state to match "
                  "optimizer.param_groups ordering.")
        plan.append((live, saved, tensors[used:used + len(ids)]))
        used += len(ids)
        seen.update(ids)
    extra = [k for k in state if k not in seen]
    if extra:
        _fail("swap_in_optimizer_params_and_state requires swapin_optim_state['state'] to be keyed only by "
              f"packed parameter ids from param_groups[*]['params']; got extra keys {extra!r}.")
    return state, plan


@contextlib.contextmanager
def swap_in_optimizer_params_and_state(optimizer, swapin_parameters, swapin_optim_state):
    """Within the block, optimizer's param_groups hold swapin_parameters (in the optimizer's parameter
    order) and the hyperparameters of swapin_optim_state['param_groups'], and its state is
    swapin_optim_state['state'] keyed by those tensors (per-parameter dicts shallow-copied, so
    in-place tensor updates reach the caller's state and nothing else does); on exit the live
    groups and state come back."""
    state, plan = _checked_groups(optimizer, swapin_parameters, swapin_optim_state)
    live_state = optimizer.state
    snapshots = [dict(g) for g in optimizer.param_groups]
    try:
        swapped = defaultdict(dict)
        for live, saved, params in plan:
            live["params"] = params
            live.update({k: v for k, v in saved.items() if k != "params"})
            for tensor, pid in zip(params, saved["params"]):
                swapped[tensor] = dict(state.get(pid, {}))
        optimizer.state = swapped
        yield
    finally:
        for group, snapshot in zip(optimizer.param_groups, snapshots):
            group.clear()
            group.update(snapshot)
        optimizer.state = live_state
