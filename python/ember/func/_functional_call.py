"""functional_call: run a module with some of its parameters and buffers replaced for one call."""
from __future__ import annotations

__all__ = ["functional_call"]

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
