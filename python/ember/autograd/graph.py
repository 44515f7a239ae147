"""torch.autograd.graph: the autograd graph's nodes, hooks on saved tensors, and hooks over
several tensors' gradients."""
from __future__ import annotations

import abc
import contextlib
import threading
from typing import NamedTuple

import ember
from ember import _C

__all__ = ["Node", "GradientEdge", "get_gradient_edge", "increment_version", "saved_tensors_hooks",
           "save_on_cpu", "disable_saved_tensors_hooks", "register_multi_grad_hook",
           "allow_mutation_on_saved_tensors", "set_warn_on_accumulate_grad_stream_mismatch"]


class Node(abc.ABC):
    """The type of every grad_fn (isinstance(t.grad_fn, Node) holds)."""

    @abc.abstractmethod
    def name(self) -> str: ...

    @property
    @abc.abstractmethod
    def next_functions(self): ...

    @abc.abstractmethod
    def register_hook(self, fn): ...

    @abc.abstractmethod
    def register_prehook(self, fn): ...

    @classmethod
    def __subclasshook__(cls, subclass):
        if cls is Node and issubclass(subclass, _C._Node):
            return True
        return NotImplemented


class GradientEdge(NamedTuple):
    """Where a tensor's gradient enters the graph: (node, output number)."""
    node: object
    output_nr: int


def get_gradient_edge(tensor) -> GradientEdge:
    """The gradient edge of a tensor: its grad_fn, or the AccumulateGrad node of a leaf."""
    if not tensor.requires_grad:
        raise RuntimeError("get_gradient_edge(): it is not possible to get the gradient edge for "
                           "a Tensor that does not require gradients")
    if tensor.grad_fn is not None:
        return GradientEdge(tensor.grad_fn, tensor.output_nr)
    node = tensor.view_as(tensor).grad_fn.next_functions[0][0]
    return GradientEdge(node, 0)


def increment_version(tensor) -> None:
    """Bumps the version counter of tensor(s), as an in-place write would."""
    for t in (tensor if isinstance(tensor, (list, tuple)) else (tensor,)):
        _C._bump_version(t)


class saved_tensors_hooks:
    """Tensors saved for backward inside the block are stored as pack_hook(tensor) and got
    back with unpack_hook(packed) when backward needs them."""

    def __init__(self, pack_hook, unpack_hook):
        if not callable(pack_hook) or not callable(unpack_hook):
            raise TypeError("saved_tensors_hooks(): expected pack_hook and unpack_hook to be "
                            "callables")
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self):
        _C._push_saved_tensors_hooks(self.pack_hook, self.unpack_hook)
        return self

    def __exit__(self, *exc):
        _C._pop_saved_tensors_hooks()
        return False


class save_on_cpu(saved_tensors_hooks):
    """Saved tensors are moved to the CPU and back to their device when backward needs them
    (on a CPU-only build they are copied, so later in-place writes do not reach them)."""

    def __init__(self, pin_memory: bool = False, device_type: str = "cuda"):
        def pack(t):
            return (t.device, t.detach().to("cpu", copy=True))

        def unpack(packed):
            device, t = packed
            return t.to(device)

        super().__init__(pack, unpack)


@contextlib.contextmanager
def disable_saved_tensors_hooks(error_message: str):
    """Inside the block, entering saved_tensors_hooks raises error_message."""
    prev = _C._set_saved_tensors_hooks_disabled(error_message)
    try:
        yield
    finally:
        _C._set_saved_tensors_hooks_disabled(prev)


class _MultiHandle:
    def __init__(self, handles):
        self.handles = handles

    def remove(self):
        for h in self.handles:
            h.remove()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


def register_multi_grad_hook(tensors, fn, *, mode: str = "all"):
    """mode "all": fn(grads) once per backward pass, after the gradients of all tensors that
    get one are computed (None for the others); mode "any": fn(grad) on the first of them."""
    if mode not in ("all", "any"):
        raise ValueError(f"register_multi_grad_hook(): expects mode to be one of ('all', 'any'), "
                         f"but got {mode}")
    tensors = tuple(tensors)
    for t in tensors:
        if not isinstance(t, ember.Tensor) or not t.requires_grad:
            raise RuntimeError("register_multi_grad_hook(): every tensor must be a Tensor that "
                               "requires grad")
    lock = threading.Lock()
    if mode == "any":
        fired = {"pass": None}

        def any_hook(grad):
            key = _pass_id[0]
            with lock:
                if fired["pass"] == key:
                    return None
                fired["pass"] = key
            fn(grad)
            return None

        return _MultiHandle([t.register_hook(any_hook) for t in tensors])

    state = {"grads": [None] * len(tensors), "seen": 0}
    # The hook fires when the last of the tensors that receive a gradient in this pass got
    # it: the engine runs a pass to completion, so the final callback runs at the end of
    # the pass via the root's node hook on each tensor's gradient edge.
    handles = []

    def make(i):
        def hook(grad):
            with lock:
                state["grads"][i] = grad
                state["seen"] += 1
            return None
        return hook

    for i, t in enumerate(tensors):
        handles.append(t.register_hook(make(i)))

    def flush():
        with lock:
            grads, state["grads"], state["seen"] = state["grads"], [None] * len(tensors), 0
        if any(g is not None for g in grads):
            fn(tuple(grads))

    _pending.append(flush)
    handles.append(_Pending(flush))
    return _MultiHandle(handles)


_pending: list = []
_pass_id = [0]   # counts backward passes run through ember.autograd.backward/grad


def _begin_pass() -> None:
    _pass_id[0] += 1


class _Pending:
    def __init__(self, flush):
        self.flush = flush

    def remove(self):
        if self.flush in _pending:
            _pending.remove(self.flush)


def _run_pending() -> None:
    """Runs the "all" multi-grad hooks at the end of a backward pass (ember.autograd calls it)."""
    for flush in list(_pending):
        flush()


@contextlib.contextmanager
def allow_mutation_on_saved_tensors():
    """In-place writes to tensors saved for backward are allowed in the block: a saved
    tensor is cloned when it is saved, so the write does not reach the graph."""
    with saved_tensors_hooks(lambda t: t.clone(), lambda t: t):
        yield


def set_warn_on_accumulate_grad_stream_mismatch(enabled: bool) -> None:
    """A CUDA-stream warning switch; no streams on this build, so nothing to warn about."""
    return None
