"""torch.autograd.forward_ad: dual tensors. make_dual(primal, tangent) inside a dual_level
marks primal with a tangent; unpack_dual(y) gives y's primal and its tangent J t.

Ember computes tangents on demand, from the reverse-mode graph: make_dual returns a tensor
that autograd tracks, and unpack_dual(y) evaluates J t as the vjp of a vjp (J^T u is linear
in a dummy cotangent u, and its vjp with t is J t): two backward passes per unpack, exact,
for every differentiable op. So dual tensors need grad mode on while they are computed with
(ops under no_grad do not carry tangents), and only floating-point duals are supported."""
from __future__ import annotations

from typing import NamedTuple

import ember
from ember.autograd.grad_mode import enable_grad

__all__ = ["UnpackedDualTensor", "dual_level", "enter_dual_level", "exit_dual_level", "make_dual",
           "unpack_dual"]

_levels: list[dict] = []  # per open level: {id(dual): (dual, tangent)}


def enter_dual_level() -> int:
    """Opens a new forward-AD level and returns its index (torch allows one at a time)."""
    if _levels:
        raise RuntimeError("enter_dual_level(): nested forward mode AD is not supported; exit the "
                           "current level first")
    _levels.append({})
    return len(_levels) - 1


def exit_dual_level(*, level: int | None = None) -> None:
    """Closes a level: its duals lose their tangents."""
    if level is None:
        level = len(_levels) - 1
    if level < 0 or level != len(_levels) - 1:
        raise RuntimeError(f"exit_dual_level(): trying to exit level {level}, but the current "
                           f"level is {len(_levels) - 1}")
    _levels.pop()


def _current(level, fn: str) -> dict:
    if level is None:
        level = len(_levels) - 1
    if level < 0 or level >= len(_levels):
        raise RuntimeError(f"{fn}(): must be called inside a dual_level context (no forward AD "
                           f"level is open)")
    return _levels[level]


def make_dual(tensor, tangent, *, level: int | None = None):
    """A dual tensor: tensor's values, carrying tangent at this level."""
    duals = _current(level, "make_dual")
    for name, t in (("tensor", tensor), ("tangent", tangent)):
        if not isinstance(t, ember.Tensor):
            raise TypeError(f"make_dual(): expected {name} to be a Tensor, but got {type(t).__name__}")
    if not tensor.is_floating_point():
        raise ValueError(f"make_dual(): expected primal to be floating point (complex duals are "
                         f"not supported in Ember yet), but got {tensor.dtype}")
    if not tangent.is_floating_point():
        raise ValueError(f"make_dual(): expected tangent to be floating point, but got "
                         f"{tangent.dtype}")
    if tuple(tensor.shape) != tuple(tangent.shape):
        raise RuntimeError(f"make_dual(): trying to set a forward gradient that has a different size "
                           f"than that of the original Tensor: {tuple(tangent.shape)} vs "
                           f"{tuple(tensor.shape)}")
    if tensor.requires_grad:
        dual = tensor.view_as(tensor)
    else:
        dual = tensor.detach().requires_grad_(True)
    duals[id(dual)] = (dual, tangent)
    return dual


class UnpackedDualTensor(NamedTuple):
    """unpack_dual's result: the primal and the tangent (None when there is none)."""
    primal: object
    tangent: object


def unpack_dual(tensor, *, level: int | None = None) -> UnpackedDualTensor:
    """(primal, tangent) of a tensor computed from dual tensors at this level."""
    if not isinstance(tensor, ember.Tensor):
        raise TypeError(f"unpack_dual(): expected a Tensor, but got {type(tensor).__name__}")
    if level is None and not _levels:
        return UnpackedDualTensor(tensor, None)
    duals = _current(level, "unpack_dual")
    hit = duals.get(id(tensor))
    if hit is not None and hit[0] is tensor:
        return UnpackedDualTensor(tensor, hit[1])
    if not duals or not tensor.requires_grad or not tensor.is_floating_point():
        return UnpackedDualTensor(tensor, None)
    inputs = [d for d, _ in duals.values()]
    tangents = [t for _, t in duals.values()]
    with enable_grad():
        u = ember.zeros_like(tensor).requires_grad_(True)
        gs = ember.autograd.grad(tensor, inputs, u, create_graph=True, allow_unused=True)
        used = [(g, t) for g, t in zip(gs, tangents) if g is not None]
        if not used:
            return UnpackedDualTensor(tensor, None)
        s = sum((g * t).sum() for g, t in used)
        if not s.requires_grad:  # J^T u does not depend on u: the output is constant
            return UnpackedDualTensor(tensor, ember.zeros_like(tensor))
        (jt,) = ember.autograd.grad(s, [u], allow_unused=True)
    return UnpackedDualTensor(tensor, ember.zeros_like(tensor) if jt is None else jt)


class dual_level:
    """A context in which dual tensors carry tangents: `with dual_level(): ...`."""

    def __enter__(self):
        return enter_dual_level()

    def __exit__(self, *exc):
        exit_dual_level()
        return False
