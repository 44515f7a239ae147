"""UninitializedParameter and UninitializedBuffer: placeholders of lazy modules, turned into a
Parameter / plain Tensor of a given shape by materialize()."""
import ember
from ember._tensor import Tensor
from ember.nn._parameter_base import Parameter

__all__ = ["UninitializedTensorMixin", "UninitializedParameter", "UninitializedBuffer", "is_lazy"]

_MSG = ("Can't access the shape of an uninitialized parameter or buffer. This error usually happens in "
        "`load_state_dict` when trying to load an uninitialized parameter into an initialized one. Call "
        "`forward` to initialize the parameters before accessing their attributes.")


class UninitializedTensorMixin:
    """The shared behaviour: no shape until materialize(shape, device, dtype) gives it one."""

    cls_to_become = None

    def materialize(self, shape, device=None, dtype=None):
        """Allocates an empty tensor of shape (and dtype) in place and becomes cls_to_become."""
        if dtype is None:
            dtype = self._lazy_dtype
        if isinstance(shape, int):
            shape = (shape,)
        self.data = ember.empty(tuple(shape), dtype=dtype)
        self.__class__ = self.cls_to_become

    @property
    def shape(self):
        raise RuntimeError(_MSG)

    def size(self, *args):
        raise RuntimeError(_MSG)

    def dim(self):
        raise RuntimeError(_MSG)

    def numel(self):
        raise RuntimeError(_MSG)

    def share_memory_(self):
        raise RuntimeError("Can't share memory on an uninitialized parameter or buffer. Call `forward` to "
                           "initialize the parameters before calling `module.share_memory()`.")

    def __repr__(self):
        return f"<{self.__class__.__name__}>"

    __str__ = __repr__

    def __reduce_ex__(self, proto):
        return (self.__class__, (self.requires_grad,))


def _uninit_base(cls, requires_grad, dtype):
    t = Tensor._make_subclass(cls, ember.empty(0, dtype=dtype), requires_grad)
    t._lazy_dtype = dtype
    return t


class UninitializedParameter(UninitializedTensorMixin, Parameter):
    """A Parameter without a shape yet; materialize() turns it into an ember.nn.Parameter."""

    cls_to_become = Parameter

    def __new__(cls, requires_grad=True, device=None, dtype=None):
        return _uninit_base(cls, requires_grad, dtype)

    def __init__(self, requires_grad=True, device=None, dtype=None):
        pass

    def __deepcopy__(self, memo):
        if id(self) not in memo:
            memo[id(self)] = type(self)(self.requires_grad, dtype=self._lazy_dtype)
        return memo[id(self)]


class UninitializedBuffer(UninitializedTensorMixin, Tensor):
    """A buffer without a shape yet; materialize() turns it into a plain Tensor."""

    cls_to_become = Tensor

    def __new__(cls, requires_grad=False, device=None, dtype=None, persistent=True):
        t = _uninit_base(cls, requires_grad, dtype)
        t._buffer_persistent = persistent
        return t

    def __init__(self, requires_grad=False, device=None, dtype=None, persistent=True):
        pass

    def __deepcopy__(self, memo):
        if id(self) not in memo:
            memo[id(self)] = type(self)(self.requires_grad, dtype=self._lazy_dtype)
        return memo[id(self)]


def is_lazy(param):
    """Whether param is an uninitialized (lazy) parameter or buffer."""
    return isinstance(param, UninitializedTensorMixin)
