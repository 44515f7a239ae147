"""ember.autograd: reverse-mode automatic differentiation (PyTorch's torch.autograd API)."""
from __future__ import annotations

from ember import _C
from ember.autograd.anomaly_mode import detect_anomaly, is_anomaly_enabled, set_detect_anomaly
from ember.autograd.function import Function, FunctionCtx
from ember.autograd.grad_mode import (enable_grad, inference_mode, is_grad_enabled,
                                      is_inference_mode_enabled, no_grad, set_grad_enabled)
from ember.autograd.gradcheck import GradcheckError, gradcheck, gradgradcheck

__all__ = ["backward", "grad", "Function", "FunctionCtx", "no_grad", "enable_grad",
           "set_grad_enabled", "inference_mode", "is_grad_enabled", "is_inference_mode_enabled",
           "gradcheck", "gradgradcheck", "GradcheckError", "detect_anomaly", "set_detect_anomaly",
           "is_anomaly_enabled"]


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
    _C._run_backward(tensors, grads, keep, create_graph, ins, True, True)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph: bool = False,
         only_inputs: bool = True, allow_unused=None, is_grads_batched: bool = False,
         materialize_grads: bool = False) -> tuple:
    """The gradients of outputs with respect to inputs (a tuple; None for an unused input
    when allow_unused, zeros when materialize_grads)."""
    outs = _tensors(outputs, "grad(): outputs")
    ins = _tensors(inputs, "grad(): inputs")
    if not ins:
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
    result = _C._run_backward(outs, grads, keep, create_graph, ins, allow_unused, False)
    if materialize_grads:
        import ember
        result = [ember.zeros_like(x) if g is None else g for g, x in zip(result, ins)]
    return tuple(result)
