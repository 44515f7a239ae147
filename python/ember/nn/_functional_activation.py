"""Activations for ember.nn.functional: relu and its relatives, the shrinks, glu, prelu and the
softmax family, with PyTorch's Python signatures (`relu(input, inplace=False)`)."""
import warnings

import ember as _ember
from ember._C import _nn

__all__ = [
    "relu", "relu_", "relu6", "hardtanh", "elu", "selu", "celu", "leaky_relu", "silu", "mish", "hardswish",
    "hardsigmoid", "sigmoid", "tanh", "logsigmoid", "softsign", "tanhshrink", "hardshrink", "softshrink",
    "threshold", "threshold_", "glu", "prelu", "softmax", "softmin", "log_softmax",
]


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


def _check_floating(name, input):
    """The dtype check of the activations PyTorch defines only for real floating types."""
    if not input.is_floating_point():
        dtype = str(input.dtype).rsplit(".", 1)[-1]
        raise _ember.errors.TypeError(f"{name}(): not implemented for '{dtype}'")


def logsigmoid(input):
    """log(1 / (1 + exp(-x))) of each element, computed without overflow."""
    _check_floating("logsigmoid", input)
    # min(x, 0) - log1p(exp(-|x|)); minimum's half gradient at x == 0 gives sigmoid(0) there.
    return input.minimum(input.new_zeros(())) - (-input.abs()).exp().log1p()


def softsign(input):
    """x / (1 + |x|) of each element."""
    return input / (input.abs() + 1)


def tanhshrink(input):
    """x - tanh(x) of each element."""
    return input - input.tanh()


def hardshrink(input, lambd=0.5):
    """x where |x| > lambd, else 0, of each element."""
    _check_floating("hardshrink", input)
    return input.masked_fill(input.abs() <= lambd, 0)


_FLOAT_MAX = {"float32": 3.4028234663852886e38, "float64": 1.7976931348623157e308, "float16": 65504.0,
              "bfloat16": 3.3895313892515355e38}


def softshrink(input, lambd=0.5):
    """x - lambd where x > lambd, x + lambd where x < -lambd, else 0, of each element."""
    _check_floating("softshrink", input)
    dtype = str(input.dtype).rsplit(".", 1)[-1]
    high = _FLOAT_MAX.get(dtype, float("inf"))
    if not 0 <= lambd <= high:
        raise RuntimeError(f"lambda must be in range [0, {high:g}] for input dtype {dtype}, but found {lambd:g}")
    return input - input.clamp(-lambd, lambd)


def threshold(input, threshold, value, inplace=False):
    """x where x > threshold, else value, of each element (in place when inplace)."""
    if input.is_complex() or input.dtype == _ember.bool:
        dtype = str(input.dtype).rsplit(".", 1)[-1]
        raise _ember.errors.TypeError(f"threshold(): not implemented for '{dtype}'")
    if not input.is_floating_point():
        threshold = int(threshold)  # PyTorch compares in the input's integer type
    mask = input <= threshold
    return input.masked_fill_(mask, value) if inplace else input.masked_fill(mask, value)


_threshold = threshold


def threshold_(input, threshold, value):
    """threshold, in place."""
    return _threshold(input, threshold, value, inplace=True)


def glu(input, dim=-1):
    """a * sigmoid(b), with a and b the two halves of input along dim."""
    ndim = input.dim()
    if ndim == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    if not -ndim <= dim < ndim:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-ndim}, {ndim - 1}], but got {dim})")
    dim %= ndim
    size = input.size(dim)
    if size % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {dim} is size {size}")
    _check_floating("glu", input)
    half = size // 2
    return input.narrow(dim, 0, half) * input.narrow(dim, half, half).sigmoid()


def prelu(input, weight):
    """x where x > 0, else weight * x, with one weight for all or one per channel (dim 1)."""
    if not isinstance(weight, _ember.Tensor):
        raise TypeError(f"prelu(): argument 'weight' (position 2) must be Tensor, not {type(weight).__name__}")
    if input.dtype != weight.dtype:
        raise RuntimeError(f"prelu: Type promoting not supported. Got {str(input.dtype).rsplit('.', 1)[-1]} "
                           f"and {str(weight.dtype).rsplit('.', 1)[-1]}")
    ndim = input.dim()
    if weight.numel() != 1:
        if ndim == 0:
            raise RuntimeError("Not allow zero-dim input tensor.")
        channels = input.size(1) if ndim > 1 else 1
        if channels != weight.numel():
            raise RuntimeError(f"Mismatch of parameter numbers and input channel size. Found parameter numbers = "
                               f"{weight.numel()} and channel size = {channels}.")
    if weight.dim() > 1:
        raise RuntimeError(f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = {weight.dim()}")
    _check_floating("prelu", input)
    if ndim != weight.dim():
        shape = [1] * ndim
        if ndim > 1:
            shape[1] = weight.numel()
        weight = weight.reshape(shape)
    return _ember.where(input > 0, input, weight * input)


# ---- softmax ---------------------------------------------------------------------------

def _softmax_dim(ndim):
    """PyTorch's implicit softmax dim (deprecated there): 0 for 0-, 1- and 3-d inputs, else 1."""
    warnings.warn("Implicit dimension choice for softmax has been deprecated. Change the call to "
                  "include dim=X as an argument.", stacklevel=3)
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    """exp(x) / sum(exp(x)) along dim (computed in dtype when given)."""
    if dim is None:
        dim = _softmax_dim(input.dim())
    return _ember.softmax(input, dim, dtype=dtype)


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    """softmax(-x) along dim."""
    if dim is None:
        dim = _softmax_dim(input.dim())
    return _ember.softmax(-input if dtype is None else -input.to(dtype), dim)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    """log(softmax(x)) along dim, computed without overflow."""
    if dim is None:
        dim = _softmax_dim(input.dim())
    return _ember.log_softmax(input, dim, dtype=dtype)


__all__ += ["celu_", "selu_", "rrelu", "rrelu_", "gumbel_softmax"]


def celu_(input, alpha=1.0):
    """celu in place."""
    return _ember.celu_(input, alpha)


def selu_(input):
    """selu in place."""
    return _ember.selu_(input)


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False):
    """x for x >= 0, else a * x: a drawn uniformly from [lower, upper] per element when training,
    (lower + upper) / 2 otherwise (in place when inplace)."""
    if training:
        slope = _ember.empty_like(input).uniform_(lower, upper)
    else:
        slope = (lower + upper) / 2
    if inplace:
        neg = input < 0
        return input.copy_(_ember.where(neg, input * slope, input))
    return _ember.where(input >= 0, input, input * slope)


def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False):
    """rrelu in place."""
    return rrelu(input, lower, upper, training, inplace=True)


def gumbel_softmax(logits, tau=1.0, hard=False, eps=1e-10, dim=-1):
    """softmax((logits + g) / tau) with Gumbel(0, 1) noise g; hard: the one-hot of its argmax in the
    forward, the soft sample's gradient in the backward (straight through)."""
    uniform = _ember.rand_like(logits)
    exponential = (-_ember.log(uniform.clamp_min(eps))).clamp_min(eps)  # Exp(1) draws
    gumbels = -_ember.log(exponential)
    soft = ((logits + gumbels) / tau).softmax(dim)
    if not hard:
        return soft
    index = soft.argmax(dim, keepdim=True)
    one_hot = _ember.zeros_like(soft).scatter_(dim, index, 1.0)
    return one_hot - soft.detach() + soft
