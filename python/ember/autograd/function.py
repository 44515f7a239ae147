"""Custom differentiable functions: subclass Function with static forward(ctx, *args) and
backward(ctx, *grad_outputs), then call MyFn.apply(*args)."""
from __future__ import annotations

from ember import _C

__all__ = ["Function", "FunctionCtx"]


class FunctionCtx:
    """What forward hands to backward: save_for_backward / saved_tensors, needs_input_grad,
    mark_non_differentiable, and any attributes forward sets on it."""

    def __init__(self) -> None:
        self.to_save: tuple = ()
        self.non_differentiable: tuple = ()
        self.needs_input_grad: tuple = ()
        self._saved = None

    def save_for_backward(self, *tensors) -> None:
        for t in tensors:
            if t is not None and not isinstance(t, _C.TensorBase):
                raise TypeError(f"save_for_backward(): expected Tensors or None, but got "
                                f"{type(t).__name__}")
        self.to_save = tensors

    @property
    def saved_tensors(self) -> tuple:
        if self._saved is None:
            raise RuntimeError("saved_tensors: the tensors given to save_for_backward are only "
                               "available in backward")
        return self._saved

    def mark_non_differentiable(self, *tensors) -> None:
        self.non_differentiable = tensors

    def mark_dirty(self, *tensors) -> None:
        raise NotImplementedError("mark_dirty(): in-place custom functions are not supported yet")

    def set_materialize_grads(self, value: bool) -> None:
        if not value:
            raise NotImplementedError("set_materialize_grads(False) is not supported yet")


class Function:
    """Base class of custom autograd functions (PyTorch's torch.autograd.Function)."""

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError("You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError("You must implement the backward function for custom autograd.Function.")

    @classmethod
    def apply(cls, *args):
        ctx = FunctionCtx()
        ctx.needs_input_grad = tuple(isinstance(a, _C.TensorBase) and a.requires_grad for a in args)
        prev = _C.is_grad_enabled()
        _C._set_grad_enabled(False)
        try:
            out = cls.forward(ctx, *args)
        finally:
            _C._set_grad_enabled(prev)
        if not (prev and any(ctx.needs_input_grad)):
            return out
        outputs = out if isinstance(out, tuple) else (out,)

        def backward(saved, *grads):
            ctx._saved = saved
            try:
                return cls.backward(ctx, *grads)
            finally:
                ctx._saved = None

        _C._record_function(backward, cls.__name__ + "Backward", args,
                            [o if isinstance(o, _C.TensorBase) else None for o in outputs],
                            list(ctx.to_save), list(ctx.non_differentiable))
        ctx.to_save = ()
        return out
