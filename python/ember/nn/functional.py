"""ember.nn.functional: the operators the YAML marks `python_module: nn`, plus thin wrappers
with PyTorch's Python-level signatures (`F.relu(input, inplace=False)`) over them.

The wrappers live in one private module per family (ember.nn._functional_<family>), each
importing only ember and the families below it, never this module; this one gathers them.
"""
import types as _types

from ember import _C as _C

# The generated operators first: a wrapper of the same name replaces its operator.
for _name in dir(_C._nn):
    if not _name.startswith("__"):
        globals()[_name] = getattr(_C._nn, _name)
del _name

_nn = _C._nn

from ember.nn import (  # noqa: E402
    _functional_activation, _functional_attention, _functional_conv, _functional_distance, _functional_dropout,
    _functional_linear, _functional_loss, _functional_normalization, _functional_pooling, _functional_sparse,
    _functional_vision, _functional_pooling_extra,
)
from ember.nn._functional_activation import *  # noqa: E402,F401,F403
from ember.nn._functional_attention import *  # noqa: E402,F401,F403
from ember.nn._functional_conv import *  # noqa: E402,F401,F403
from ember.nn._functional_distance import *  # noqa: E402,F401,F403
from ember.nn._functional_dropout import *  # noqa: E402,F401,F403
from ember.nn._functional_linear import *  # noqa: E402,F401,F403
from ember.nn._functional_loss import *  # noqa: E402,F401,F403
from ember.nn._functional_normalization import *  # noqa: E402,F401,F403
from ember.nn._functional_pooling import *  # noqa: E402,F401,F403
from ember.nn._functional_pooling_extra import *  # noqa: E402,F401,F403
from ember.nn._functional_sparse import *  # noqa: E402,F401,F403
from ember.nn._functional_vision import *  # noqa: E402,F401,F403

_FAMILIES = (_functional_activation, _functional_attention, _functional_conv, _functional_distance,
             _functional_dropout, _functional_linear, _functional_loss, _functional_normalization,
             _functional_pooling, _functional_sparse, _functional_vision, _functional_pooling_extra)

__all__ = sorted({name for name in dir(_C._nn) if not name.startswith("_")}
                 | {name for family in _FAMILIES for name in family.__all__})

# The wrappers name this module, as PyTorch's do: help(), repr and pickle show
# ember.nn.functional.relu, not the family module it is written in.
for _family in _FAMILIES:
    for _name in _family.__all__:
        _wrapper = getattr(_family, _name)
        if isinstance(_wrapper, _types.FunctionType) and _wrapper.__qualname__ == _name:
            _wrapper.__module__ = __name__
del _family, _name, _wrapper
