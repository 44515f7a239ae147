"""functional_call (run a module with some of its parameters and buffers replaced for one call)
and stack_module_state (the stacked state of an ensemble, for vmap over functional_call)."""
from __future__ import annotations

import ember

__all__ = ["functional_call", "stack_module_state"]

_MISSING = object()


def _merge(dicts):
    if isinstance(dicts, dict):
        return dict(dicts)
    if not isinstance(dicts, (tuple, list)) or not all(isinstance(d, dict) for d in dicts):
        raise TypeError(f"functional_call(): expected parameter_and_buffer_dicts to be a dict or a tuple of dicts, "
                        f"but got {type(dicts).__name__}")
    merged = {}
    for d in dicts:
        dup = [k for k in d if k in merged]
        if dup:
            raise ValueError(f"functional_call(): {dup} appeared in multiple dictionaries; behavior of functional "
                             f"call is ambiguous")
        merged.update(d)
    return merged


def _tie(module, values):
    """values extended to every name of a tied tensor one of whose names it holds."""
    groups = {}
    for name, t in list(module.named_parameters(remove_duplicate=False)) + \
            list(module.named_buffers(remove_duplicate=False)):
        groups.setdefault(id(t), []).append(name)
    out = dict(values)
    for names in groups.values():
        given = [n for n in names if n in values]
        if len(names) < 2 or not given:
            continue
        if len({id(values[n]) for n in given}) > 1:
            raise ValueError(f"functional_call got multiple values for keys {given}, which are tied. Consider using "
                             f"tie_weights=False")
        for n in names:
            out[n] = values[given[0]]
    return out


def _swap(module, name, value):
    """Puts value at the dotted name (a parameter, buffer or plain attribute); returns how to undo it."""
    path, _, attr = name.rpartition(".")
    owner = module.get_submodule(path)
    for table in (owner._parameters, owner._buffers):
        if attr in table:
            old = table[attr]
            table[attr] = value
            return lambda: table.__setitem__(attr, old)
    old = owner.__dict__.get(attr, _MISSING)
    owner.__dict__[attr] = value
    return lambda: owner.__dict__.pop(attr) if old is _MISSING else owner.__dict__.__setitem__(attr, old)


def functional_call(module, parameter_and_buffer_dicts, args=None, kwargs=None, *, tie_weights: bool = True,
                    strict: bool = False):
    """module(*args, **kwargs) with the parameters and buffers named in parameter_and_buffer_dicts
    (a dict, or a tuple of dicts with distinct keys, from dotted names to tensors) in place of the
    module's own; the originals are restored afterwards, also when the call raises. With tie_weights
    a value given for one name of a tied tensor replaces it under all its names; strict requires
    the names to be exactly the module's parameters and buffers."""
    values = _merge(parameter_and_buffer_dicts)
    if tie_weights:
        values = _tie(module, values)
    if strict:
        own = [n for n, _ in module.named_parameters(remove_duplicate=False)] + \
            [n for n, _ in module.named_buffers(remove_duplicate=False)]
        unexpected = [k for k in values if k not in own]
        missing = [k for k in own if k not in values]
        if unexpected or missing:
            lines = []
            if unexpected:
                lines.append("Unexpected key(s): " + ", ".join(repr(k) for k in unexpected) + ".")
            if missing:
                lines.append("Missing key(s): " + ", ".join(repr(k) for k in missing) + ".")
            raise RuntimeError(f"Error(s) in reparametrizing for {type(module).__name__}:\n\t" + "\n\t".join(lines))
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    kwargs = {} if kwargs is None else kwargs
    undo = []
    try:
        for name, value in values.items():
            undo.append(_swap(module, name, value))
        return module(*args, **kwargs)
    finally:
        for restore in reversed(undo):
            restore()


def _stacked_leaf(tensors, name: str):
    grads = {t.requires_grad for t in tensors}
    if len(grads) > 1:
        raise RuntimeError(f"stack_module_state(): expected {name} to have the same requires_grad in every model")
    out = ember.stack([t.detach() for t in tensors])
    return out.requires_grad_(True) if grads == {True} else out


def stack_module_state(models):
    """(params, buffers): for each name, the models' tensors stacked along a new first dimension
    (new leaves, requiring grad where the originals do), ready for vmap over functional_call of
    one of the models. The models must be of one class and all in train or all in eval mode."""
    models = list(models)
    if not models:
        raise RuntimeError("stack_module_state(): expected at least one model, but got 0")
    if len({m.training for m in models}) > 1:
        raise RuntimeError("stack_module_state(): expected all models to be in the same training/eval mode")
    if len({type(m) for m in models}) > 1:
        raise RuntimeError("stack_module_state(): expected all models to be of the same class, but got "
                           f"{sorted({type(m).__name__ for m in models})}")
    out = []
    for getter in (lambda m: dict(m.named_parameters()), lambda m: dict(m.named_buffers())):
        tables = [getter(m) for m in models]
        out.append({k: _stacked_leaf([t[k] for t in tables], k) for k in tables[0]})
    return tuple(out)
