"""ember.jit: capture a function or module as a graph at the dispatcher, optimise it and run it.

    g = ember.jit.trace(model, (x,))      # a GraphModule: an nn.Module sharing model's parameters
    print(g.graph)                        # one line per node, with the Python source line
    y = g(x)                              # runs the optimised graph; gradients flow as in eager code

A trace runs the function once on the example inputs with the dispatcher's Tracer key on
(aten/tracing/Tracer.h), recording every operator call by schema. A module's parameters and
buffers become named graph inputs (read from the module at each call, so training and
load_state_dict act on the graph too); with freeze=True they become constants instead.
Reading a traced value in Python (bool(t), int(t), float(t), t.item(), t.tolist(), t.numpy(),
__index__) is an error naming the conversion and the line: a trace records ops, never the
values that chose them. Branch on data with ember.cond(pred, true_fn, false_fn, operands).
"""
from __future__ import annotations

import inspect

from ember import _C
from ember.nn.modules.module import Module

__all__ = ["trace", "GraphModule", "Graph", "save", "load", "is_tracing"]

Graph = _C.Graph


def is_tracing() -> bool:
    """Whether a trace runs on this thread (torch.jit.is_tracing)."""
    return _C._jit_is_tracing()


# ---- nested structures of tensors ------------------------------------------------------------

def _flatten(obj, what: str, leaves: list):
    """Appends obj's tensors to leaves; returns the structure with each tensor replaced by None."""
    from ember import Tensor
    if isinstance(obj, Tensor):
        leaves.append(obj)
        return None
    if isinstance(obj, (tuple, list)):
        spec = [_flatten(o, what, leaves) for o in obj]
        return (type(obj), spec)
    if isinstance(obj, dict):
        return (dict, [(k, _flatten(v, what, leaves)) for k, v in obj.items()])
    raise TypeError(f"jit.trace(): {what} holds a {type(obj).__name__}; a graph holds tensors "
                    f"only (tensors, and tuples, lists and dicts of them). Compute non-tensor "
                    f"values outside the traced function")


def _unflatten(spec, leaves):
    return _build(spec, iter(leaves))


def _build(spec, it):
    # (module-level, not a closure: a recursive closure is a reference cycle that would keep
    # the results alive until the garbage collector runs)
    if spec is None:
        return next(it)
    kind, items = spec
    if kind is dict:
        return {k: _build(v, it) for k, v in items}
    built = [_build(v, it) for v in items]
    return tuple(built) if kind is tuple else (built if kind is list else kind(built))


def _globals_of(fn):
    target = fn.forward if isinstance(fn, Module) else fn
    target = getattr(target, "__func__", target)
    return getattr(target, "__globals__", None)


def _snapshot(g):
    return None if g is None else {k: id(v) for k, v in g.items() if not k.startswith("__")}


# ---- trace -----------------------------------------------------------------------------------

def _input_names(fn, n: int) -> list[str]:
    target = fn.forward if isinstance(fn, Module) else fn
    try:
        params = [p for p in inspect.signature(target).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        params = []
    names = [p.name for p in params[:n]]
    return names + [f"input{i}" for i in range(len(names), n)]


def _record(fn, example_inputs, freeze: bool, module=None):
    """Traces fn on example_inputs, binding module's (by default fn's, when it is a module)
    parameters and buffers to named inputs: (graph, bound names, input spec, output spec,
    the traced run's result)."""
    from ember import Tensor
    if isinstance(example_inputs, Tensor):
        example_inputs = (example_inputs,)
    if not isinstance(example_inputs, (tuple, list)):
        raise TypeError(f"jit.trace(): expected 'example_inputs' to be a tensor or a tuple of "
                        f"them, but got {type(example_inputs).__name__}")
    args = tuple(example_inputs)
    leaves: list = []
    in_spec = _flatten(args, "example_inputs", leaves)
    names = []
    top = _input_names(fn, len(args))
    # One name per leaf: the parameter's name, indexed when it holds several tensors.
    for i, a in enumerate(args):
        sub: list = []
        _flatten(a, "example_inputs", sub)
        names += [top[i]] if len(sub) == 1 and isinstance(a, Tensor) else \
            [f"{top[i]}.{j}" for j in range(len(sub))]
    named = list(zip(names, leaves))
    bound: list[str] = []
    if module is None and isinstance(fn, Module):
        module = fn
    if module is not None and not freeze:
        seen = {id(t) for t in leaves}
        for name, t in list(module.named_parameters()) + list(module.named_buffers()):
            if t is None or id(t) in seen:
                continue
            seen.add(id(t))
            named.append((name, t))
            bound.append(name)
    before = _snapshot(_globals_of(fn))
    _C._jit_begin_trace(named)
    try:
        out = fn(*args)
        out_leaves: list = []
        out_spec = _flatten(out, "the traced function's result", out_leaves)
    except BaseException:
        _C._jit_abort_trace()
        raise
    graph = _C._jit_end_trace(out_leaves)
    after = _snapshot(_globals_of(fn))
    if before is not None and before != after:
        changed = sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))
        raise RuntimeError(f"jit.trace(): the traced function changed the Python global(s) "
                           f"{', '.join(changed)}; a graph cannot replay Python side effects. "
                           f"Return the value instead")
    return graph, bound, in_spec, out_spec, out


class GraphModule(Module):
    """A traced graph as an nn.Module: calling it runs the graph (through the dispatcher, so
    autograd records the run). For a traced module it holds the module's submodules,
    parameters and buffers themselves (the same objects, the same state_dict keys)."""

    def __init__(self, graph, bound=(), in_spec=None, out_spec=None, source=None, params_from=None):
        super().__init__()
        # Where the bound parameters and buffers are read at each call: this module (which
        # holds a traced module's own), or the module a compiled function belongs to.
        self.__dict__["_params_from"] = params_from
        self.graph = graph
        self._bound = list(bound)
        self._in_spec = in_spec
        self._out_spec = out_spec
        if isinstance(source, Module):
            for name, child in source.named_children():
                self.add_module(name, child)
            for name, p in source._parameters.items():
                self.register_parameter(name, p)
            for name, b in source._buffers.items():
                self.register_buffer(name, b, persistent=name not in source._non_persistent_buffers_set)
        names = graph.input_names
        bound_set = set(self._bound)
        self._free = [i for i, n in enumerate(names) if n not in bound_set]
        self._slots = {n: i for i, n in enumerate(names)}

    def _bound_tensors(self) -> dict:
        if not self._bound:
            return {}
        src = self._params_from if self._params_from is not None else self
        have = dict(src.named_parameters())
        have.update(src.named_buffers())
        missing = [n for n in self._bound if n not in have]
        if missing:
            raise RuntimeError(f"GraphModule: the graph reads {', '.join(missing)}, which this "
                               f"module no longer has")
        return {n: have[n] for n in self._bound}

    def forward(self, *args):
        leaves: list = []
        _flatten(args, "the inputs", leaves)
        if len(leaves) != len(self._free):
            raise TypeError(f"GraphModule: expected {len(self._free)} input tensor(s), as traced, "
                            f"but got {len(leaves)}")
        inputs = [None] * (len(self._free) + len(self._bound))
        for slot, t in zip(self._free, leaves):
            inputs[slot] = t
        for name, t in self._bound_tensors().items():
            inputs[self._slots[name]] = t
        out = self.graph.run(inputs)
        if self._out_spec is None:  # a loaded graph: one tensor, or a tuple of them
            return out[0] if len(out) == 1 else tuple(out)
        return _unflatten(self._out_spec, out)

    def extra_repr(self) -> str:
        return f"inputs={self.graph.input_names}"


def _trace_and_run(fn, tensors, module):
    """For ember.compile: traces fn(*tensors) binding module's parameters and buffers;
    returns the run's result and a GraphModule taking the same tensors."""
    graph, bound, in_spec, out_spec, out = _record(fn, tuple(tensors), False, module)
    graph.optimize()
    return out, GraphModule(graph, bound, in_spec, out_spec, params_from=module)


def trace(fn, example_inputs, *, optimize: bool = True, freeze: bool = False,
          check_trace: bool = False, **kwargs) -> GraphModule:
    """torch.jit.trace(fn_or_module, example_inputs): runs fn once on example_inputs, recording
    each operator call into a graph; returns a GraphModule that runs it. optimize=True applies
    the passes (no-ops, constant folding, common subexpressions, pruning, elementwise fusion);
    freeze=True makes a module's parameters and buffers constants instead of inputs.
    check_trace=True reruns both on the example inputs and compares."""
    if kwargs.get("example_kwarg_inputs"):
        raise TypeError("jit.trace(): example_kwarg_inputs is not supported; pass the inputs "
                        "positionally")
    if not callable(fn):
        raise TypeError(f"jit.trace(): expected a function or an nn.Module, but got "
                        f"{type(fn).__name__}")
    graph, bound, in_spec, out_spec, _ = _record(fn, example_inputs, freeze)
    if optimize:
        graph.optimize()
    gm = GraphModule(graph, bound, in_spec, out_spec, source=fn if isinstance(fn, Module) else None)
    if check_trace:
        from ember import Tensor
        args = (example_inputs,) if isinstance(example_inputs, Tensor) else tuple(example_inputs)
        want: list = []
        got: list = []
        _flatten(fn(*args), "result", want)
        _flatten(gm(*args), "result", got)
        for i, (a, b) in enumerate(zip(want, got)):
            if not a.detach().allclose(b.detach(), rtol=1e-5, atol=1e-6, equal_nan=True):
                raise RuntimeError(f"jit.trace(): check_trace: output {i} of the graph differs "
                                   f"from the function's")
    return gm




# ---- save / load -----------------------------------------------------------------------------

def save(m, f) -> None:
    """torch.jit.save(m, f): writes a GraphModule (its graph and the parameters and buffers it
    reads) to a path or a binary file object as data only: a flat description of the graph
    and the tensors in Ember's checkpoint format (aten/tracing/Serialize.h). Loading runs no
    code; ember::jit::load runs it from C++ without Python."""
    import os
    if isinstance(m, Graph):
        graph, bound = m, []
    elif isinstance(m, GraphModule):
        graph, bound = m.graph, [(n, t.detach()) for n, t in m._bound_tensors().items()]
    else:
        raise TypeError(f"jit.save(): expected a GraphModule (from ember.jit.trace) or a Graph, "
                        f"but got {type(m).__name__}")
    if hasattr(f, "write"):
        import tempfile
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "graph.ember")
            _C._jit_save(graph, bound, path)
            with open(path, "rb") as src:
                f.write(src.read())
        return
    _C._jit_save(graph, bound, os.fspath(f))


def load(f, map_location=None) -> GraphModule:
    """torch.jit.load(f): reads a file ember.jit.save wrote; returns a GraphModule whose
    parameters (tensors saved with requires_grad) and buffers sit under their saved dotted
    names, so state_dict() and load_state_dict() work as on the traced module. It takes the
    graph's other inputs positionally and returns a tensor, or a tuple for several outputs.
    A truncated or corrupted file, an unknown op or a changed schema raises at load."""
    import os
    from ember.nn.parameter import Parameter
    if map_location is not None and str(map_location) != "cpu":
        raise ValueError(f"jit.load(): map_location={map_location!r}: this build loads to the CPU only")
    if hasattr(f, "read"):
        import tempfile
        data = f.read()
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "graph.ember")
            with open(path, "wb") as dst:
                dst.write(data)
            graph, bound = _C._jit_load(path)
    else:
        graph, bound = _C._jit_load(os.fspath(f))
    gm = GraphModule(graph, [n for n, _ in bound])
    for name, t in bound:
        owner = gm
        *path, leaf = name.split(".")
        for part in path:
            child = owner._modules.get(part)
            if child is None:
                child = Module()
                owner.add_module(part, child)
            owner = child
        if t.requires_grad:
            owner.register_parameter(leaf, Parameter(t.detach(), requires_grad=True))
        else:
            owner.register_buffer(leaf, t)
    return gm
