"""ember.compile (torch.compile's entry point) and ember.compiler, its counters.

    model = ember.compile(model)          # traces on the first call of each input signature

Each call computes a guard signature: every tensor argument's dtype, shape, device and
requires_grad, the values of the other arguments, the grad mode, and the dtypes and devices
of a module's parameters and buffers. A signature seen before runs its optimised graph (a
GraphModule); a new one traces the function once (that run's results are returned) and keeps
the graph in a per-function LRU cache of `cache_size_limit` entries. When a trace meets a
conversion that reads a traced value (bool(t), t.item(), ...), the graph breaks there (counted
with its reason) unless fullgraph=True, which raises. A break is taken at module granularity:
a module's forward that breaks runs eagerly for that signature, but each of its submodules
(through ModuleList/ModuleDict containers) is compiled on its own, recursively, so the parts
before and after the data read stay compiled; a plain function that breaks runs eagerly.
The trace that met the break ran part of the function: the inputs, the module's buffers
and the random generator are restored from a snapshot before the eager run, so in-place
updates (BatchNorm's running statistics, x.add_()) and dropout happen once.
Shapes are always specialised: `dynamic` is accepted and each new shape is a new graph.
"""
from __future__ import annotations

import collections
import functools
import warnings

from ember import _C
from ember.nn.modules.module import Module

__all__ = ["counters", "reset", "cache_size_limit", "OptimizedModule", "compile",
           "is_compiling"]

#: The counters: graphs (traces that made a graph), recompiles (traces of a function after its
#: first), cache_hits, graph_breaks, break_reasons (reason -> count), evictions.
counters: dict = {}
#: How many graphs one compiled function keeps (least recently used dropped first); recompiling
#: more often than this warns once per function.
cache_size_limit = 8

_EAGER = object()
_BREAK = "reads the value of a traced tensor"


def reset() -> None:
    """Zeroes the counters (torch._dynamo.reset also drops caches: each compiled function's
    cache goes with it)."""
    counters.clear()
    counters.update(graphs=0, recompiles=0, cache_hits=0, graph_breaks=0, evictions=0,
                    break_reasons=collections.Counter())


reset()


def is_compiling() -> bool:
    """Whether a compile's trace runs on this thread (torch.compiler.is_compiling)."""
    return _C._jit_is_tracing()


def _key_of(obj, out: list, leaves: list):
    import ember
    if isinstance(obj, ember.Tensor):
        leaves.append(obj)
        out.append((obj.dtype, tuple(obj.shape), obj.device.type, obj.requires_grad))
    elif isinstance(obj, (tuple, list)):
        out.append((type(obj), len(obj)))
        for o in obj:
            _key_of(o, out, leaves)
    elif isinstance(obj, dict):
        out.append((dict, tuple(obj.keys())))
        for v in obj.values():
            _key_of(v, out, leaves)
    else:
        try:
            hash(obj)
            out.append((type(obj), obj))
        except TypeError:
            out.append((type(obj), id(obj)))


def _rebuild(obj, it):
    import ember
    if isinstance(obj, ember.Tensor):
        return next(it)
    if isinstance(obj, (tuple, list)):
        return type(obj)(_rebuild(o, it) for o in obj)
    if isinstance(obj, dict):
        return {k: _rebuild(v, it) for k, v in obj.items()}
    return obj


def _segments(module):
    """The submodules a broken forward calls, each compiled on its own: the direct children,
    looking through containers that have no forward of their own (ModuleList, ModuleDict)."""
    for child in module.children():
        if type(child).forward is Module.forward:
            yield from _segments(child)
        else:
            yield child


class _Segmented:
    """A module whose forward broke: run eagerly with each segment's forward routed through a
    compiled function of its own (installed on the instance for the call, removed after)."""

    def __init__(self, module, fullgraph):
        self.module = module
        self.fullgraph = fullgraph
        self.compiled: dict = {}

    def __call__(self, fn, args, kwargs):
        installed = []
        for child in _segments(self.module):
            if "forward" in child.__dict__:
                continue  # a segment already routed (shared, or a forward the user set)
            cf = self.compiled.get(id(child))
            if cf is None:
                cf = self.compiled[id(child)] = _CompiledFunction(
                    type(child).forward.__get__(child), child, self.fullgraph)
            child.__dict__["forward"] = cf
            installed.append(child)
        try:
            return fn(*args, **kwargs)
        finally:
            for child in installed:
                child.__dict__.pop("forward", None)


def _snapshot_state(leaves, module):
    """What a trace that breaks may have changed: the inputs' and the module's buffers' values
    and the random generator's state."""
    import ember
    tensors = list(leaves)
    if module is not None:
        tensors += [b for b in module.buffers() if b is not None]
    with ember.no_grad():
        saved = [(t, t.detach().clone()) for t in tensors]
    return saved, ember.get_rng_state()


def _restore_state(state):
    import ember
    saved, rng = state
    with ember.no_grad():
        for t, value in saved:
            # (every one: a kernel's in-place update of an argument, batch_norm's running
            # statistics, need not bump the version)
            t.detach().copy_(value)
    ember.set_rng_state(rng)


class _CompiledFunction:
    def __init__(self, fn, module, fullgraph: bool):
        self.fn = fn
        self.module = module
        self.fullgraph = fullgraph
        self.cache: collections.OrderedDict = collections.OrderedDict()
        self.traces = 0
        self.warned = False

    def signature(self, args, kwargs):
        from ember.autograd.grad_mode import is_grad_enabled
        key: list = [is_grad_enabled()]
        leaves: list = []
        _key_of(args, key, leaves)
        _key_of(kwargs, key, leaves)
        if self.module is not None:
            key.append(tuple((t.dtype, t.device.type, t.requires_grad)
                             for t in self.module.parameters()))
            key.append(tuple((t.dtype, t.device.type) for t in self.module.buffers()))
        return tuple(key), leaves

    def __call__(self, *args, **kwargs):
        key, leaves = self.signature(args, kwargs)
        entry = self.cache.get(key)
        if entry is not None:
            self.cache.move_to_end(key)
            if entry is _EAGER:
                return self.fn(*args, **kwargs)
            if isinstance(entry, _Segmented):
                counters["cache_hits"] += 1
                return entry(self.fn, args, kwargs)
            counters["cache_hits"] += 1
            return entry(*leaves)
        return self.compile(key, args, kwargs, leaves)

    def compile(self, key, args, kwargs, leaves):
        from ember import jit

        def inner(*tensors):
            it = iter(tensors)
            return self.fn(*_rebuild(args, it), **_rebuild(kwargs, it))

        self.traces += 1
        if self.traces > 1:
            counters["recompiles"] += 1
        if self.traces > cache_size_limit and not self.warned:
            self.warned = True
            warnings.warn(f"ember.compile: {getattr(self.fn, '__qualname__', self.fn)} was "
                          f"traced {self.traces} times (cache_size_limit={cache_size_limit}); "
                          f"each new input dtype, shape or device makes a new graph. See "
                          f"ember.compiler.counters", stacklevel=3)
        state = None if self.fullgraph else _snapshot_state(leaves, self.module)
        try:
            result, gm = jit._trace_and_run(inner, leaves, self.module)
        except RuntimeError as e:
            if _BREAK not in str(e) or self.fullgraph:
                raise
            _restore_state(state)
            counters["graph_breaks"] += 1
            reason = str(e).split(";")[0]
            counters["break_reasons"][reason] += 1
            segments = self.module is not None and any(True for _ in _segments(self.module))
            entry = _Segmented(self.module, self.fullgraph) if segments else _EAGER
            self.store(key, entry)
            return entry(self.fn, args, kwargs) if segments else self.fn(*args, **kwargs)
        counters["graphs"] += 1
        self.store(key, gm)
        return result

    def store(self, key, entry):
        self.cache[key] = entry
        while len(self.cache) > cache_size_limit:
            self.cache.popitem(last=False)
            counters["evictions"] += 1


class OptimizedModule(Module):
    """torch.compile(module)'s result: an nn.Module that holds the original as `_orig_mod`
    and calls its forward through the compiled function."""

    def __init__(self, mod: Module, compiled: _CompiledFunction):
        super().__init__()
        self._orig_mod = mod
        self.__dict__["_compiled"] = compiled

    def forward(self, *args, **kwargs):
        return self._compiled(*args, **kwargs)


def compile(model=None, *, fullgraph: bool = False, dynamic=None, backend="inductor",
            mode=None, options=None, disable: bool = False):
    """torch.compile(model, fullgraph=False, dynamic=None, backend=..., mode=..., options=...,
    disable=False): a function or module that traces on the first call of each input
    signature and then runs the optimised graph (module docstring). backend, mode and options
    are accepted for PyTorch's programs; Ember has one backend."""
    if model is None:
        return functools.partial(compile, fullgraph=fullgraph, dynamic=dynamic, backend=backend,
                                 mode=mode, options=options, disable=disable)
    if not callable(model):
        raise TypeError(f"compile(): expected a function or an nn.Module, but got "
                        f"{type(model).__name__}")
    if disable:
        return model
    if isinstance(model, Module):
        compiled = _CompiledFunction(model.forward, model, fullgraph)
        return OptimizedModule(model, compiled)
    compiled = _CompiledFunction(model, None, fullgraph)
    wrapper = functools.wraps(model)(lambda *a, **k: compiled(*a, **k))
    wrapper._compiled = compiled
    return wrapper
