"""ember.nn.functional: the operators the YAML marks `python_module: nn`, plus thin wrappers
with PyTorch's Python-level signatures (`F.relu(input, inplace=False)`) over them."""
import ember as _ember
from ember import _C as _C

for _name in dir(_C._nn):
    if not _name.startswith("__"):
        globals()[_name] = getattr(_C._nn, _name)
del _name

_nn = _C._nn


def relu(input, inplace=False):
    """max(x, 0) of each element (in place when inplace)."""
    return _ember.relu_(input) if inplace else _ember.relu(input)


relu_ = _ember.relu_


def relu6(input, inplace=False):
    """min(max(x, 0), 6) of each element (in place when inplace)."""
    return _nn.relu6_(input) if inplace else _nn.relu6(input)


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    """Each element clamped to [min_val, max_val] (in place when inplace)."""
    return _nn.hardtanh_(input, min_val, max_val) if inplace else _nn.hardtanh(input, min_val, max_val)


def elu(input, alpha=1.0, inplace=False):
    """x for x > 0, else alpha * (exp(x) - 1), of each element (in place when inplace)."""
    return _nn.elu_(input, alpha) if inplace else _nn.elu(input, alpha)


def selu(input, inplace=False):
    """elu with SELU's fixed alpha and scale (in place when inplace)."""
    return _ember.selu_(input) if inplace else _ember.selu(input)


def celu(input, alpha=1.0, inplace=False):
    """max(0, x) + min(0, alpha * (exp(x / alpha) - 1)) of each element (in place when inplace)."""
    return _ember.celu_(input, alpha) if inplace else _ember.celu(input, alpha)


def leaky_relu(input, negative_slope=0.01, inplace=False):
    """x for x > 0, else negative_slope * x, of each element (in place when inplace)."""
    if inplace:
        return _nn.leaky_relu_(input, negative_slope)
    return _nn.leaky_relu(input, negative_slope)


def silu(input, inplace=False):
    """x * sigmoid(x) of each element (in place when inplace)."""
    return _nn.silu_(input) if inplace else _nn.silu(input)


def mish(input, inplace=False):
    """x * tanh(softplus(x)) of each element (in place when inplace)."""
    return _nn.mish_(input) if inplace else _nn.mish(input)


def hardswish(input, inplace=False):
    """x * min(max(x + 3, 0), 6) / 6 of each element (in place when inplace)."""
    return _nn.hardswish_(input) if inplace else _nn.hardswish(input)


def hardsigmoid(input, inplace=False):
    """min(max(x + 3, 0), 6) / 6 of each element (in place when inplace)."""
    return _nn.hardsigmoid_(input) if inplace else _nn.hardsigmoid(input)


def sigmoid(input):
    """1 / (1 + exp(-x)) of each element."""
    return input.sigmoid()


def tanh(input):
    """tanh of each element."""
    return input.tanh()
