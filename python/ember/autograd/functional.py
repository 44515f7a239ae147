"""torch.autograd.functional: vjp, jvp, jacobian, hessian, vhp, hvp of a function of tensors,
computed with reverse-mode passes (jvp and hvp as the vjp of a vjp). Results are detached
unless create_graph=True; an input the outputs do not depend on gets zeros (an error when
strict=True)."""
from __future__ import annotations

import ember
from ember.autograd.grad_mode import enable_grad

__all__ = ["vjp", "jvp", "jacobian", "hessian", "vhp", "hvp"]


def _as_tuple(x, arg: str, fn: str):
    is_tuple = isinstance(x, tuple)
    items = x if is_tuple else (x,)
    for i, t in enumerate(items):
        if not isinstance(t, ember.Tensor):
            where = f"{arg}[{i}]" if is_tuple else arg
            raise TypeError(f"{fn}(): the {where} given should be a Tensor (or a tuple of Tensors), "
                            f"but got {type(t).__name__}")
    return is_tuple, tuple(items)


def _prepare(inputs, create_graph: bool):
    """Inputs that require grad: with create_graph, still connected to the caller's graph."""
    out = []
    for x in inputs:
        if create_graph and x.requires_grad:
            out.append(x.view_as(x))
        else:
            out.append(x.detach().requires_grad_(True))
    return tuple(out)


def _finish(xs, create_graph: bool):
    return tuple(x if create_graph or x is None else x.detach() for x in xs)


def _grads(outputs, inputs, grad_outputs, create_graph: bool, strict: bool, fn: str, what: str):
    """Gradients of outputs w.r.t. inputs, zeros for unused inputs (strict: an error)."""
    pairs = [(o, g) for o, g in zip(outputs, grad_outputs) if o.requires_grad]
    if pairs:
        got = ember.autograd.grad([o for o, _ in pairs], inputs, [g for _, g in pairs],
                                  create_graph=create_graph, retain_graph=True, allow_unused=True)
    else:
        got = (None,) * len(inputs)
    result = []
    for i, (g, x) in enumerate(zip(got, inputs)):
        if g is None:
            if strict:
                raise RuntimeError(f"{fn}(): the output of the user-provided function is independent "
                                   f"of input {i}. This is not allowed in strict mode{what}.")
            g = ember.zeros_like(x)
        result.append(g)
    return tuple(result)


def _check_outputs(outputs, fn: str):
    is_tuple, outs = _as_tuple(outputs, "outputs of the user-provided function", fn)
    return is_tuple, outs


def _match(v, like, fn: str, arg: str):
    if v is None:
        for t in like:
            if t.numel() != 1:
                raise RuntimeError(f"{fn}(): the vector {arg} can only be None if the "
                                   f"user-provided function returns a single Tensor with a "
                                   f"single element")
        return tuple(ember.ones_like(t) for t in like)
    _, vs = _as_tuple(v, arg, fn)
    if len(vs) != len(like):
        raise RuntimeError(f"{fn}(): {arg} has {len(vs)} Tensors, but expected {len(like)}")
    for i, (a, b) in enumerate(zip(vs, like)):
        if tuple(a.shape) != tuple(b.shape):
            raise RuntimeError(f"{fn}(): entry {i} of {arg} has shape {tuple(a.shape)}, but "
                               f"expected {tuple(b.shape)}")
    return vs


def vjp(func, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """(func(inputs), v^T J): the vector-Jacobian product, shaped like the inputs."""
    with enable_grad():
        in_tuple, ins = _as_tuple(inputs, "inputs", "vjp")
        ins = _prepare(ins, create_graph)
        out_tuple, outs = _check_outputs(func(*ins), "vjp")
        vs = _match(v, outs, "vjp", "v")
        res = _grads(outs, ins, vs, create_graph, strict, "vjp", "")
    outs, res = _finish(outs, create_graph), _finish(res, create_graph)
    return (outs if out_tuple else outs[0]), (res if in_tuple else res[0])


def jvp(func, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """(func(inputs), J v): the Jacobian-vector product, shaped like the outputs (the vjp of a
    vjp: J^T u is linear in u, and its vjp with v is J v)."""
    with enable_grad():
        in_tuple, ins = _as_tuple(inputs, "inputs", "jvp")
        ins = _prepare(ins, create_graph)
        vs = _match(v, ins, "jvp", "v")
        out_tuple, outs = _check_outputs(func(*ins), "jvp")
        us = tuple(ember.zeros_like(o).requires_grad_(True) for o in outs)
        g = _grads(outs, ins, us, True, strict, "jvp", "")
        res = _grads(g, us, vs, create_graph, strict, "jvp",
                     " (the Jacobian-vector product is independent of an output)")
    outs, res = _finish(outs, create_graph), _finish(res, create_graph)
    return (outs if out_tuple else outs[0]), (res if out_tuple else res[0])


def _unit(x, k):
    e = ember.zeros(x.numel(), dtype=x.dtype)
    e[k] = 1
    return e.reshape(x.shape)


def jacobian(func, inputs, create_graph: bool = False, strict: bool = False, vectorize: bool = False,
             strategy: str = "reverse-mode"):
    """The Jacobian of func at inputs: out.shape + in.shape per (output, input) pair, nested as
    torch does (a tuple per output of a tuple per input, when those are tuples)."""
    if strategy not in ("reverse-mode", "forward-mode"):
        raise ValueError(f'jacobian(): expected strategy to be either "forward-mode" or '
                         f'"reverse-mode", but got "{strategy}"')
    if strategy == "forward-mode" and not vectorize:
        raise NotImplementedError("jacobian(): computing the Jacobian in forward mode is only "
                                  "implemented with vectorize=True, as in torch")
    with enable_grad():
        in_tuple, ins = _as_tuple(inputs, "inputs", "jacobian")
        ins = _prepare(ins, create_graph)
        out_tuple, outs = _check_outputs(func(*ins), "jacobian")
        blocks = []  # [output][input]
        for oi, o in enumerate(outs):
            rows = [[] for _ in ins]
            flat = o.reshape(-1)
            for k in range(flat.numel()):
                if o.requires_grad:
                    got = ember.autograd.grad(flat[k], ins, retain_graph=True,
                                              create_graph=create_graph, allow_unused=True)
                else:
                    got = (None,) * len(ins)
                for ii, (g, x) in enumerate(zip(got, ins)):
                    if g is None:
                        if strict:
                            raise RuntimeError(f"jacobian(): output {oi} of the user-provided "
                                               f"function is independent of input {ii}. This is "
                                               f"not allowed in strict mode.")
                        g = ember.zeros_like(x)
                    rows[ii].append(g)
            per_input = []
            for ii, x in enumerate(ins):
                if rows[ii]:
                    j = ember.stack(rows[ii]).reshape(tuple(o.shape) + tuple(x.shape))
                else:
                    j = ember.zeros(tuple(o.shape) + tuple(x.shape), dtype=x.dtype)
                per_input.append(j if create_graph else j.detach())
            blocks.append(tuple(per_input))
    if not out_tuple and not in_tuple:
        return blocks[0][0]
    if not out_tuple:
        return blocks[0]
    if not in_tuple:
        return tuple(b[0] for b in blocks)
    return tuple(blocks)


def _scalar_output(func, fn: str):
    def wrapped(*args):
        out = func(*args)
        if isinstance(out, tuple) or not isinstance(out, ember.Tensor):
            raise RuntimeError(f"{fn}(): the function given to {fn} should return a single Tensor")
        if out.numel() != 1:
            raise RuntimeError(f"{fn}(): the Tensor returned by the function given to {fn} should "
                               f"contain a single element")
        return out.squeeze()
    return wrapped


def hessian(func, inputs, create_graph: bool = False, strict: bool = False, vectorize: bool = False,
            outer_jacobian_strategy: str = "reverse-mode"):
    """The Hessian of a scalar function: in_i.shape + in_j.shape per pair of inputs."""
    scalar = _scalar_output(func, "hessian")
    in_tuple, ins = _as_tuple(inputs, "inputs", "hessian")

    def gradient(*xs):
        with enable_grad():
            out = scalar(*xs)
            return _grads((out,), xs, (ember.ones_like(out),), True, strict, "hessian", "")

    res = jacobian(gradient, ins, create_graph=create_graph, strict=strict, vectorize=vectorize,
                   strategy=outer_jacobian_strategy)
    return res if in_tuple else res[0][0]


def vhp(func, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """(func(inputs), v^T H) for a scalar function."""
    scalar = _scalar_output(func, "vhp")
    with enable_grad():
        in_tuple, ins = _as_tuple(inputs, "inputs", "vhp")
        ins = _prepare(ins, create_graph)
        vs = _match(v, ins, "vhp", "v")
        out = scalar(*ins)
        g = _grads((out,), ins, (ember.ones_like(out),), True, strict, "vhp", "")
        res = _grads(g, ins, vs, create_graph, strict, "vhp", "")
    out, res = _finish((out,), create_graph)[0], _finish(res, create_graph)
    return out, (res if in_tuple else res[0])


def hvp(func, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """(func(inputs), H v) for a scalar function (the vjp of a vjp of the gradient)."""
    scalar = _scalar_output(func, "hvp")
    with enable_grad():
        in_tuple, ins = _as_tuple(inputs, "inputs", "hvp")
        ins = _prepare(ins, create_graph)
        vs = _match(v, ins, "hvp", "v")
        out = scalar(*ins)
        g = _grads((out,), ins, (ember.ones_like(out),), True, strict, "hvp", "")
        us = tuple(ember.zeros_like(x).requires_grad_(True) for x in ins)
        gu = _grads(g, ins, us, True, strict, "hvp", "")
        res = _grads(gu, us, vs, create_graph, strict, "hvp", "")
    out, res = _finish((out,), create_graph)[0], _finish(res, create_graph)
    return out, (res if in_tuple else res[0])
