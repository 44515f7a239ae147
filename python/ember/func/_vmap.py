"""vmap (torch.func.vmap's API) by looping over the batch dimension and stacking the results."""
from __future__ import annotations

import functools

import ember
from ember import _C
from ember.func._pytree import broadcast_prefix, tree_flatten, tree_unflatten

__all__ = ["vmap"]


def _name(func) -> str:
    return getattr(func, "__name__", type(func).__name__)


def vmap(func, in_dims=0, out_dims=0, randomness: str = "error", *, chunk_size=None):
    """A function that maps func over a dimension of its inputs: in_dims (an int, None, or per
    positional argument an int/None/pytree of them) says which dimension of each input is the batch
    (None: passed whole to every call), out_dims where the batch goes in each output (None: the
    output of the first call, for outputs that do not depend on the batch). Keyword arguments are
    passed whole.

    This implementation calls func once per batch element, on slices x.select(in_dim, b), and
    stacks the results: the values, gradients and nesting (vmap of vmap, vmap of grad) are exactly
    those of the loop, but there is no vectorisation. Consequences: a batch of size 0 is an error
    (func is never called, so the output shapes are unknown); randomness='different' is what the
    loop gives; 'same' restores the default generator's state before each call, so every batch
    element draws the same numbers; 'error' (the default) does not detect random ops. chunk_size is accepted
    and has no effect."""
    if randomness not in ("error", "different", "same"):
        raise ValueError(f"vmap(): expected randomness to be 'error', 'different' or 'same', but got {randomness!r}")
    if not (in_dims is None or isinstance(in_dims, (int, tuple))):
        raise ValueError(f"vmap(): expected in_dims to be an int, None or a tuple, but got {type(in_dims).__name__}")
    if not (out_dims is None or isinstance(out_dims, (int, tuple, list, dict))):
        raise ValueError(f"vmap(): expected out_dims to be an int, None or a pytree of them, but got "
                         f"{type(out_dims).__name__}")
    name = _name(func)

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        api = f"vmap({name}, in_dims={in_dims!r}, ...)(<inputs>)"
        leaves, spec = tree_flatten(args)
        if isinstance(in_dims, tuple) and len(in_dims) != len(args):
            raise ValueError(f"{api}: expected in_dims to have one entry per positional input ({len(args)}), but got "
                             f"{len(in_dims)}")
        dims = broadcast_prefix(in_dims, spec, api)
        size = None
        norm = []
        for x, d in zip(leaves, dims):
            if d is None:
                norm.append(None)
                continue
            if not isinstance(x, _C.TensorBase):
                raise ValueError(f"{api}: expected a Tensor for in_dim={d}, but got {type(x).__name__}; use None as "
                                 f"the in_dim of inputs that are not mapped")
            if x.dim() == 0 or not -x.dim() <= d < x.dim():
                raise ValueError(f"{api}: expected in_dim to satisfy {-x.dim()} <= in_dim < {x.dim()} for an input "
                                 f"of dimensionality {x.dim()}, but got in_dim={d}")
            d %= x.dim()
            if size is not None and x.size(d) != size:
                raise ValueError(f"{api}: expected all mapped inputs to have the same size in the mapped dimension, "
                                 f"but got {size} and {x.size(d)}")
            size = x.size(d)
            norm.append(d)
        if size is None:
            raise ValueError(f"{api}: expected at least one Tensor input to be mapped, but every in_dim is None")
        if size == 0:
            raise ValueError(f"{api}: expected a non-empty batch, but the mapped dimension has size 0 (this vmap loops "
                             f"over the batch, so it cannot infer output shapes without a call)")
        results = []
        out_spec = None
        state = ember.get_rng_state() if randomness == "same" else None
        for b in range(size):
            if state is not None:
                ember.set_rng_state(state)
            sliced = [x if d is None else x.select(d, b) for x, d in zip(leaves, norm)]
            out = func(*tree_unflatten(sliced, spec), **kwargs)
            o_leaves, o_spec = tree_flatten(out)
            if out_spec is None:
                out_spec = o_spec
            elif o_spec != out_spec:
                raise ValueError(f"vmap({name}, ...): expected every call of {name} to return the same structure, "
                                 f"but got {out_spec!r} and {o_spec!r}")
            results.append(o_leaves)
        api = f"vmap({name}, ..., out_dims={out_dims!r})(<inputs>)"
        odims = broadcast_prefix(out_dims, out_spec, api)
        outs = []
        for k, d in enumerate(odims):
            first = results[0][k]
            if d is None:
                outs.append(first)
                continue
            if not isinstance(first, _C.TensorBase):
                raise ValueError(f"{api}: expected {name} to return only Tensors for the outputs with an out_dim, "
                                 f"but got {type(first).__name__}; set that output's out_dim to None")
            nd = first.dim() + 1
            if not -nd <= d < nd:
                raise IndexError(f"{api}: expected out_dim to satisfy {-nd} <= out_dim < {nd} for an output of "
                                 f"dimensionality {first.dim()}, but got out_dim={d}")
            outs.append(ember.stack([r[k] for r in results], dim=d))
        return tree_unflatten(outs, out_spec)
    return wrapper
