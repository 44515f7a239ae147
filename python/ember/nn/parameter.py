"""ember.nn.Parameter: a Tensor that a Module registers as one of its parameters, and Buffer;
the lazy modules' placeholders UninitializedParameter/UninitializedBuffer."""
from ember.nn._parameter_base import Buffer, Parameter, _rebuild_parameter  # noqa: F401
from ember.nn._uninitialized import (  # noqa: F401
    UninitializedBuffer, UninitializedParameter, UninitializedTensorMixin, is_lazy,
)

__all__ = ["Parameter", "Buffer", "is_lazy", "UninitializedParameter", "UninitializedBuffer",
           "UninitializedTensorMixin"]
