"""ember.autograd: reverse-mode automatic differentiation (PyTorch's torch.autograd API)."""
from __future__ import annotations

from ember import _C
from ember.autograd.anomaly_mode import detect_anomaly, is_anomaly_enabled, set_detect_anomaly
from ember.autograd.function import Function, FunctionCtx
from ember.autograd.grad_mode import (enable_grad, inference_mode, is_grad_enabled,
                                      is_inference_mode_enabled, no_grad, set_grad_enabled)
from ember.autograd.gradcheck import GradcheckError, gradcheck, gradgradcheck
from ember.autograd import forward_ad, functional, graph, profiler, variable  # noqa: E402
from ember.autograd import profiler as profiler_legacy  # noqa: F401  (torch's alias module)
from ember.autograd import profiler_util  # noqa: F401
from ember.autograd.profiler import (DeviceType, ProfilerActivity, ProfilerConfig,  # noqa: F401
                                     ProfilerState, kineto_available)
from ember.autograd.variable import Variable

SavedTensor = _C.SavedTensor

__all__ = ["backward", "grad", "Function", "FunctionCtx", "no_grad", "enable_grad",
           "set_grad_enabled", "inference_mode", "is_grad_enabled", "is_inference_mode_enabled",
           "gradcheck", "gradgradcheck", "GradcheckError", "detect_anomaly", "set_detect_anomaly",
           "is_anomaly_enabled", "Variable", "SavedTensor", "enforce_grad_layout_policy",
           "set_multithreading_enabled", "is_multithreading_enabled", "is_view_replay_enabled",
           "forward_ad", "functional", "graph", "profiler", "variable"]


def _tensors(x, what: str) -> list:
    if isinstance(x, _C.TensorBase):
        return [x]
    if x is None:
        return []
    out = list(x)
    for t in out:
        if t is not None and not isinstance(t, _C.TensorBase):
            raise TypeError(f"{what}: expected Tensors, but got {type(t).__name__}")
    return out


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph: bool = False,
             grad_variables=None, inputs=None) -> None:
    """Accumulates the gradients of tensors (seeded with grad_tensors, ones for one-element
    tensors) into the .grad of the leaves of their graph (of `inputs` only, if given)."""
    tensors = _tensors(tensors, "backward(): tensors")
    grads = _tensors(grad_tensors if grad_tensors is not None else grad_variables,
                     "backward(): grad_tensors") or [None] * len(tensors)
    if len(grads) != len(tensors):
        raise RuntimeError(f"backward(): got {len(grads)} gradients for {len(tensors)} tensors")
    ins = _tensors(inputs, "backward(): inputs")
    if inputs is not None and not ins:
        raise RuntimeError("backward(): 'inputs' argument to backward() cannot be empty.")
    keep = create_graph if retain_graph is None else retain_graph
    graph._begin_pass()
    try:
        _C._run_backward(tensors, grads, keep, create_graph, ins, True, True)
    finally:
        graph._run_pending()


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph: bool = False,
         only_inputs: bool = True, allow_unused=None, is_grads_batched: bool = False,
         materialize_grads: bool = False) -> tuple:
    """The gradients of outputs with respect to inputs (a tuple; None for an unused input
    when allow_unused, zeros when materialize_grads)."""
    outs = _tensors(outputs, "grad(): outputs")
    if isinstance(inputs, graph.GradientEdge):
        inputs = (inputs,)
    edge_at = []   # (position, (node, output_nr)) of inputs given as GradientEdges
    if not isinstance(inputs, _C.TensorBase) and inputs is not None:
        inputs = list(inputs)
        edge_at = [(i, (x.node, int(x.output_nr))) for i, x in enumerate(inputs)
                   if isinstance(x, graph.GradientEdge)]
        inputs = [x for x in inputs if not isinstance(x, graph.GradientEdge)]
    ins = _tensors(inputs, "grad(): inputs")
    if edge_at and any(n is None for _, (n, _) in edge_at):
        raise RuntimeError("grad(): a GradientEdge input has no node")
    if not ins and not edge_at:
        raise RuntimeError("grad(): expected at least one input to differentiate with respect to")
    grads = _tensors(grad_outputs, "grad(): grad_outputs") or [None] * len(outs)
    if len(grads) != len(outs):
        raise RuntimeError(f"grad requires one gradient per output: got {len(grads)} for "
                           f"{len(outs)} outputs")
    if is_grads_batched:
        raise NotImplementedError("grad(): is_grads_batched=True is not supported yet")
    if allow_unused is None:
        allow_unused = materialize_grads
    keep = create_graph if retain_graph is None else retain_graph
    graph._begin_pass()
    try:
        result = _C._run_backward(outs, grads, keep, create_graph, ins, allow_unused, False,
                                  [e for _, e in edge_at])
    finally:
        graph._run_pending()
    if edge_at:   # back into the caller's order: tensors' gradients come first from the engine
        by_tensor, by_edge = result[:len(ins)], result[len(ins):]
        at = {pos: g for (pos, _), g in zip(edge_at, by_edge)}
        it = iter(by_tensor)
        result = [at[i] if i in at else next(it) for i in range(len(ins) + len(edge_at))]
        ins = [None] * len(result)
    if materialize_grads:
        import ember
        if edge_at and any(g is None for g in result):
            raise RuntimeError("grad(): materialize_grads=True needs tensor inputs, not "
                               "GradientEdges")
        result = [ember.zeros_like(x) if g is None else g for g, x in zip(result, ins)]
    return tuple(result)


class _FlagContext:
    """A switch usable as a call (sets it for good) and as a context manager (restores it)."""

    def __init__(self, getter, setter, mode: bool) -> None:
        self._getter, self._setter = getter, setter
        self._prev = getter()
        self._mode = bool(mode)
        setter(self._mode)

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self._setter(self._prev)

    def clone(self):
        return type(self)(self._getter, self._setter, self._mode)


class enforce_grad_layout_policy(_FlagContext):
    """When on, an accumulated .grad always takes its leaf's layout (the leaf's strides when
    it is dense and non-overlapping, else contiguous), even where the engine could steal the
    incoming gradient with another layout."""

    def __init__(self, mode: bool = True) -> None:
        super().__init__(_C._is_grad_layout_enforced, _C._set_grad_layout_enforced, mode)


_multithreading = [True]


class set_multithreading_enabled(_FlagContext):
    """Accepted for torch's API: Ember's engine runs each backward pass on the calling
    thread, so the flag only changes what is_multithreading_enabled() reports."""

    def __init__(self, mode: bool) -> None:
        super().__init__(lambda: _multithreading[0],
                         lambda m: _multithreading.__setitem__(0, m), mode)


def is_multithreading_enabled() -> bool:
    return _multithreading[0]


def is_view_replay_enabled() -> bool:
    """Ember always rebuilds views of views by their view functions (torch's view replay)."""
    return True
