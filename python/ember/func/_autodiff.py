"""grad, grad_and_value, vjp, jvp, jacrev, jacfwd and hessian (torch.func's API) over ember's
reverse-mode autograd.

Each transform gives the inputs it differentiates fresh identities (a leaf when the input does
not require grad, a view of it when it does, so an enclosing transform or ordinary autograd still
sees through), runs the function with grad enabled and calls ember.autograd.grad. The graph of
the result is kept (create_graph) when the call is nested inside another transform or an input
already required grad: that is what makes grad(grad(f)), jacfwd(jacrev(f)) and gradients of
the results work. Otherwise results, values and aux come back detached; unlike torch.func, a
tensor that the function only closes over is then not tracked through them.

jvp is the double-vjp trick: with u a dummy cotangent, g(u) = J^T u is linear in u, and the
vjp of g with cotangent t is J t. jacfwd builds J column by column that way, jacrev row by row
from one-hot cotangents; both are exact, neither is vectorised (one backward pass per row or
column). Only real floating-point inputs are supported."""
from __future__ import annotations

import functools
import threading

import ember
from ember import _C
from ember.autograd import grad as _autograd_grad
from ember.autograd.grad_mode import enable_grad
from ember.func._pytree import tree_flatten, tree_map, tree_unflatten

__all__ = ["grad", "grad_and_value", "vjp", "jvp", "jacrev", "jacfwd", "hessian"]

_state = threading.local()  # .depth: how many differentiating transforms are running their function now


def _depth() -> int:
    return getattr(_state, "depth", 0)


def _is_tensor(x) -> bool:
    return isinstance(x, _C.TensorBase)


def _call_nested(fn, *args, **kwargs):
    """fn(*args, **kwargs) with grad enabled, counted as one level of nesting."""
    _state.depth = _depth() + 1
    try:
        with enable_grad():
            return fn(*args, **kwargs)
    finally:
        _state.depth -= 1


def _wrap(x, api: str):
    """x with a fresh autograd identity to differentiate with respect to."""
    if not _is_tensor(x):
        raise TypeError(f"{api}: expected the inputs to differentiate with respect to to be Tensors, but got "
                        f"{type(x).__name__}")
    if not (x.is_floating_point() or x.is_complex()):
        raise TypeError(f"{api}: expected the inputs to differentiate with respect to to have a floating-point "
                        f"dtype, but got {x.dtype}")
    if x.requires_grad:
        return x.view_as(x)
    return x.detach().requires_grad_(True)


def _wrap_tree(tree, api: str):
    """(wrapped tree, its flat leaves, whether any input already required grad)."""
    leaves, spec = tree_flatten(tree)
    tracked = any(_is_tensor(x) and x.requires_grad for x in leaves)
    wrapped = [_wrap(x, api) for x in leaves]
    return tree_unflatten(wrapped, spec), wrapped, tracked


def _keep_graph(tracked: bool) -> bool:
    return tracked or _depth() > 0


def _detach_tree(tree, keep: bool):
    return tree if keep else tree_map(lambda x: x.detach() if _is_tensor(x) else x, tree)


def _vjp_flat(outs, cotangents, inputs, keep: bool):
    """sum_k <cotangents[k], d outs[k] / d inputs> for each input; zeros where unused. The graph is
    retained: rows and columns reuse it, and it may share nodes with the caller's own graph."""
    pairs = [(o, c) for o, c in zip(outs, cotangents) if o.requires_grad]
    if not pairs:
        return [ember.zeros_like(x) for x in inputs]
    grads = _autograd_grad([o for o, _ in pairs], inputs, grad_outputs=[c for _, c in pairs], retain_graph=True,
                           create_graph=keep, allow_unused=True)
    return [ember.zeros_like(x) if g is None else g for g, x in zip(grads, inputs)]


def _split_aux(result, has_aux: bool, api: str):
    if not has_aux:
        return result, None
    if not (isinstance(result, tuple) and len(result) == 2):
        raise RuntimeError(f"{api}: expected f to return a tuple (output, aux) since has_aux=True, but got "
                           f"{type(result).__name__}")
    return result


def _check_argnums(argnums, nargs: int, api: str):
    """argnums as a tuple of non-negative positions, checked against nargs."""
    many = isinstance(argnums, tuple)
    nums = argnums if many else (argnums,)
    if not nums or not all(isinstance(a, int) and not isinstance(a, bool) for a in nums):
        raise TypeError(f"{api}: expected argnums to be an int or a non-empty tuple of ints, but got {argnums!r}")
    out = []
    for a in nums:
        if not -nargs <= a < nargs:
            raise RuntimeError(f"{api}: expected argnums in [{-nargs}, {nargs}) for {nargs} positional inputs, "
                               f"but got argnum={a}")
        out.append(a % nargs)
    if len(set(out)) != len(out):
        raise RuntimeError(f"{api}: expected argnums to be unique, but got {argnums!r}")
    return tuple(out), many


def _wrap_argnums(args, argnums, api: str):
    """(args with the differentiated ones wrapped, the tree of wrapped ones, its leaves, tracked)."""
    nums, many = _check_argnums(argnums, len(args), api)
    selected = tuple(args[i] for i in nums)
    wrapped, leaves, tracked = _wrap_tree(selected if many else selected[0], api)
    new_args = list(args)
    for i, w in zip(nums, wrapped if many else (wrapped,)):
        new_args[i] = w
    return tuple(new_args), wrapped, leaves, tracked


def grad_and_value(func, argnums=0, has_aux: bool = False):
    """A function returning (gradient of func's scalar output w.r.t. the positional inputs at argnums,
    output), or ((gradient, (output, aux)) when has_aux; the gradient has the structure of those inputs."""
    api = "grad_and_value(f)(*args)"

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        new_args, wrapped, leaves, tracked = _wrap_argnums(args, argnums, api)
        keep = _keep_graph(tracked)
        out, aux = _split_aux(_call_nested(func, *new_args, **kwargs), has_aux, api)
        if not _is_tensor(out):
            raise RuntimeError(f"{api}: expected f(*args) to return a scalar Tensor, but got {type(out).__name__}")
        if out.dim() != 0:
            raise RuntimeError(f"{api}: expected f(*args) to return a scalar Tensor, but got a tensor with "
                               f"{out.dim()} dims; maybe you wanted vjp or jacrev instead")
        with enable_grad():
            grads = _vjp_flat([out], [ember.ones_like(out)], leaves, keep)
        _, spec = tree_flatten(wrapped)
        g = tree_unflatten(grads, spec)
        value = _detach_tree(out, keep)
        return (g, (value, _detach_tree(aux, keep))) if has_aux else (g, value)
    return wrapper


def grad(func, argnums=0, has_aux: bool = False):
    """A function returning the gradient of func's scalar output w.r.t. the positional inputs at
    argnums (int or tuple), plus aux when has_aux (func then returns (output, aux))."""
    gv = grad_and_value(func, argnums, has_aux)

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        g, value = gv(*args, **kwargs)
        return (g, value[1]) if has_aux else g
    return wrapper


def vjp(func, *primals, has_aux: bool = False):
    """(func(*primals), vjp_fn) or (output, vjp_fn, aux): vjp_fn(cotangents), with cotangents shaped
    like the output, returns a tuple with one gradient per primal (each shaped like it); it may be
    called more than once."""
    api = "vjp(f, *primals)"
    wrapped, leaves, tracked = _wrap_tree(primals, api)
    keep = _keep_graph(tracked)
    out, aux = _split_aux(_call_nested(func, *wrapped), has_aux, api)
    out_leaves, out_spec = tree_flatten(out)
    for o in out_leaves:
        if not _is_tensor(o):
            raise RuntimeError(f"{api}: expected f(*primals) to return only Tensors, but got {type(o).__name__}")
    _, in_spec = tree_flatten(wrapped)

    def vjp_fn(cotangents):
        c_leaves, c_spec = tree_flatten(cotangents)
        if c_spec != out_spec:
            raise RuntimeError(f"vjp_fn(cotangents): expected cotangents with the structure of the output {out_spec!r}, "
                               f"but got {c_spec!r}")
        for o, c in zip(out_leaves, c_leaves):
            if not _is_tensor(c) or tuple(c.shape) != tuple(o.shape):
                shape = tuple(c.shape) if _is_tensor(c) else type(c).__name__
                raise RuntimeError(f"vjp_fn(cotangents): expected each cotangent to have its output's shape "
                                   f"{tuple(o.shape)}, but got {shape}")
        cg = keep or _depth() > 0 or any(c.requires_grad for c in c_leaves)
        with enable_grad():
            grads = _vjp_flat(out_leaves, c_leaves, leaves, cg)
        return tuple(tree_unflatten(grads, in_spec))

    value = _detach_tree(out, keep)
    return (value, vjp_fn, _detach_tree(aux, keep)) if has_aux else (value, vjp_fn)


def jvp(func, primals, tangents, *, strict: bool = False, has_aux: bool = False):
    """(func(*primals), J @ tangents) (plus aux when has_aux): the forward-mode derivative along
    tangents, computed as a vjp of a vjp."""
    api = "jvp(f, primals, tangents)"
    if not isinstance(primals, tuple) or not isinstance(tangents, tuple):
        raise RuntimeError(f"{api}: expected primals and tangents to be tuples (f is called as f(*primals)), but got "
                           f"{type(primals).__name__} and {type(tangents).__name__}")
    wrapped, leaves, tracked = _wrap_tree(primals, api)
    t_leaves, t_spec = tree_flatten(tangents)
    if t_spec != tree_flatten(primals)[1]:
        raise RuntimeError(f"{api}: expected tangents to have the structure of primals, but got {t_spec!r}")
    for x, t in zip(leaves, t_leaves):
        if not _is_tensor(t) or tuple(t.shape) != tuple(x.shape):
            shape = tuple(t.shape) if _is_tensor(t) else type(t).__name__
            raise RuntimeError(f"{api}: expected each tangent to have its primal's shape {tuple(x.shape)}, but got "
                               f"{shape}")
    keep = _keep_graph(tracked or any(t.requires_grad for t in t_leaves))
    out, aux = _split_aux(_call_nested(func, *wrapped), has_aux, api)
    out_leaves, out_spec = tree_flatten(out)
    with enable_grad():
        us = [ember.zeros_like(o).requires_grad_(True) for o in out_leaves]
        g = _vjp_flat(out_leaves, us, leaves, True)
        jv = _vjp_flat(g, t_leaves, us, keep)
    res = (_detach_tree(out, keep), tree_unflatten(jv, out_spec))
    return res + (_detach_tree(aux, keep),) if has_aux else res


def _unit(x, k):
    """The one-hot tensor shaped like x with a 1 at flat position k."""
    e = ember.zeros(x.numel(), dtype=x.dtype)
    e[k] = 1
    return e.reshape(x.shape)


def _jacobian_tree(func, argnums, has_aux: bool, api: str, forward: bool):
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        new_args, wrapped, leaves, tracked = _wrap_argnums(args, argnums, api)
        keep = _keep_graph(tracked)
        out, aux = _split_aux(_call_nested(func, *new_args, **kwargs), has_aux, api)
        out_leaves, out_spec = tree_flatten(out)
        for o in out_leaves:
            if not _is_tensor(o):
                raise RuntimeError(f"{api}: expected f to return only Tensors, but got {type(o).__name__}")
        _, in_spec = tree_flatten(wrapped)
        # blocks[i][j]: d out_leaves[i] / d leaves[j], shaped out.shape + in.shape.
        with enable_grad():
            blocks = (_columns if forward else _rows)(out_leaves, leaves, keep)
        jac = tree_unflatten([tree_unflatten(row, in_spec) for row in blocks], out_spec)
        return (jac, _detach_tree(aux, keep)) if has_aux else jac
    return wrapper


def _rows(outs, ins, keep):
    blocks = []
    for o in outs:
        rows = [[] for _ in ins]
        for k in range(o.numel()):
            for j, g in enumerate(_vjp_flat([o], [_unit(o, k)], ins, keep)):
                rows[j].append(g)
        blocks.append([ember.stack(r).reshape(tuple(o.shape) + tuple(x.shape)) if r else
                       ember.zeros(tuple(o.shape) + tuple(x.shape), dtype=x.dtype) for r, x in zip(rows, ins)])
    return blocks


def _columns(outs, ins, keep):
    us = [ember.zeros_like(o).requires_grad_(True) for o in outs]
    g = _vjp_flat(outs, us, ins, True)  # J^T u for each input, linear in u
    cols = [[[] for _ in ins] for _ in outs]
    for j, x in enumerate(ins):
        for k in range(x.numel()):
            for i, c in enumerate(_vjp_flat([g[j]], [_unit(x, k)], us, keep)):
                cols[i][j].append(c)
    return [[ember.stack(cols[i][j], dim=-1).reshape(tuple(o.shape) + tuple(x.shape)) if cols[i][j] else
             ember.zeros(tuple(o.shape) + tuple(x.shape), dtype=x.dtype) for j, x in enumerate(ins)]
            for i, o in enumerate(outs)]


def jacrev(func, argnums=0, *, has_aux: bool = False, chunk_size=None, _preallocate_and_copy: bool = False):
    """A function returning the Jacobian of func w.r.t. the inputs at argnums by reverse mode (one
    vjp per output element): for each output, shaped output.shape + input.shape. chunk_size is
    accepted and has no effect."""
    return _jacobian_tree(func, argnums, has_aux, "jacrev(f)(*args)", forward=False)


def jacfwd(func, argnums=0, has_aux: bool = False, *, randomness: str = "error"):
    """A function returning the Jacobian of func w.r.t. the inputs at argnums column by column (one
    jvp per input element, each a vjp of a vjp); same layout as jacrev."""
    if randomness not in ("error", "different", "same"):
        raise RuntimeError(f"jacfwd(): expected randomness to be 'error', 'different' or 'same', but got "
                           f"{randomness!r}")
    return _jacobian_tree(func, argnums, has_aux, "jacfwd(f)(*args)", forward=True)


def hessian(func, argnums=0):
    """A function returning the Hessian of func w.r.t. the inputs at argnums: jacfwd(jacrev(func))."""
    return jacfwd(jacrev(func, argnums), argnums)
