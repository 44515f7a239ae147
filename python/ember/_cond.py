"""ember.cond(pred, true_fn, false_fn, operands): a data-dependent branch a trace can hold
(torch.cond's signature).

Eagerly it calls the branch pred chooses. In a trace, where reading pred's value would bake
the branch into the graph (Note [Data-reading conversions] in aten/tracing/Tracer.h), it
records both branches and selects their results elementwise with where(pred, t, f), so the
graph computes what eager code computes for any pred (predication, as XLA lowers a small
conditional). Both branches must return the same structure of tensors with equal dtypes and
shapes (broadcast against pred), and must not mutate their operands (both run in a trace).
"""
from __future__ import annotations

from ember import _C


def _leaves(obj, what: str) -> tuple[list, object]:
    from ember.jit import _flatten
    leaves: list = []
    spec = _flatten(obj, what, leaves)
    return leaves, spec


def cond(pred, true_fn, false_fn, operands=()):
    """Returns true_fn(*operands) if pred else false_fn(*operands); pred is a bool or a tensor
    with one element (a 0-d boolean tensor, as torch.cond takes)."""
    import ember
    if not callable(true_fn) or not callable(false_fn):
        raise TypeError("cond(): expected 'true_fn' and 'false_fn' to be callables")
    if not isinstance(operands, (tuple, list)):
        raise TypeError(f"cond(): expected 'operands' to be a tuple of tensors, but got "
                        f"{type(operands).__name__}")
    if isinstance(pred, bool):
        return true_fn(*operands) if pred else false_fn(*operands)
    if not isinstance(pred, ember.Tensor):
        raise TypeError(f"cond(): expected 'pred' to be a bool or a tensor, but got "
                        f"{type(pred).__name__}")
    if pred.numel() != 1:
        raise ValueError(f"cond(): expected 'pred' to have one element, but it has shape "
                         f"{list(pred.shape)}")
    if not _C._jit_is_tracing():
        return true_fn(*operands) if bool(pred) else false_fn(*operands)
    t_leaves, t_spec = _leaves(true_fn(*operands), "cond()'s true_fn result")
    f_leaves, f_spec = _leaves(false_fn(*operands), "cond()'s false_fn result")
    if t_spec != f_spec or len(t_leaves) != len(f_leaves):
        raise TypeError("cond(): true_fn and false_fn must return the same structure of tensors")
    p = pred.reshape(()).bool()
    out = []
    for i, (a, b) in enumerate(zip(t_leaves, f_leaves)):
        if a.dtype != b.dtype or a.shape != b.shape:
            raise TypeError(f"cond(): output {i} of the branches differs: true_fn gives "
                            f"{a.dtype}{list(a.shape)}, false_fn {b.dtype}{list(b.shape)}; "
                            f"a traced cond needs equal dtypes and shapes")
        out.append(ember.where(p, a, b))
    from ember.jit import _unflatten
    return _unflatten(t_spec, out)
