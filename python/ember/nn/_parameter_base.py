"""Parameter and Buffer (ember.nn.parameter re-exports them with the lazy modules' placeholders,
which are built on Parameter: Note [Import cycles])."""
import ember
from ember._tensor import Tensor, _tensor_from_payload, _tensor_payload


class Parameter(Tensor):
    """A leaf Tensor that, assigned as a Module attribute, joins the module's parameters()."""

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            data = ember.empty(0)
        return Tensor._make_subclass(cls, data, requires_grad)

    def __init__(self, data=None, requires_grad=True):
        pass

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        with ember.no_grad():
            result = type(self)(self.clone(), self.requires_grad)
        if self.grad is not None:
            result.grad = self.grad.__deepcopy__(memo)
        memo[id(self)] = result
        return result

    def __repr__(self):
        return "Parameter containing:\n" + Tensor.__repr__(self)

    __str__ = __repr__

    def __reduce_ex__(self, proto):
        return (_rebuild_parameter, (_tensor_payload(self), self.requires_grad))


def _rebuild_parameter(payload, requires_grad):
    return Parameter(_tensor_from_payload(payload), requires_grad)


class Buffer(Tensor):
    """Marks a tensor, assigned as a Module attribute, as a buffer (persistent unless told)."""

    def __new__(cls, data=None, *, persistent=True):
        if data is None:
            data = ember.empty(0)
        t = data.detach()
        t._buffer_persistent = persistent
        return t


# Their public home (pickles and reprs name ember.nn.parameter, as before the split).
for _obj in (Parameter, Buffer, _rebuild_parameter):
    _obj.__module__ = "ember.nn.parameter"
del _obj
