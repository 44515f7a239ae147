"""torch.autograd.variable: the legacy Variable, which since PyTorch 0.4 is a Tensor.
`Variable(t, requires_grad=True)` returns a leaf sharing t's data; `isinstance(x, Variable)`
holds for every tensor."""
from __future__ import annotations

import ember

__all__ = ["Variable"]


class _VariableMeta(type):
    def __instancecheck__(cls, other):
        return isinstance(other, ember.Tensor)

    def __subclasscheck__(cls, other):
        return isinstance(other, type) and issubclass(other, ember.Tensor)


class Variable(metaclass=_VariableMeta):
    """Variable(data, requires_grad=False, volatile=False): a tensor sharing data's memory."""

    def __new__(cls, data=None, requires_grad: bool = False, volatile: bool = False):
        if data is None:
            data = ember.empty(0)
        if not isinstance(data, ember.Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
        if volatile:
            import warnings
            warnings.warn("volatile was removed and now has no effect. Use `with ember.no_grad():` "
                          "instead.", UserWarning, stacklevel=2)
        out = data.detach()
        if requires_grad:
            out.requires_grad_(True)
        return out
