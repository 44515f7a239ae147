"""Activation layers over ember.nn.functional."""
from __future__ import annotations

import ember
from ember.nn import functional as F
from ember.nn import init
from ember.nn.modules.module import Module
from ember.nn.parameter import Parameter

__all__ = ["ReLU", "ReLU6", "GELU", "SiLU", "Tanh", "Sigmoid", "LeakyReLU", "ELU", "SELU", "CELU",
           "Softmax", "LogSoftmax", "Softmin", "Mish", "Hardswish", "Hardsigmoid", "Hardtanh", "Softplus",
           "LogSigmoid", "Softsign", "Tanhshrink", "Hardshrink", "Softshrink", "Threshold", "GLU", "PReLU"]


class _InplaceActivation(Module):
    def __init__(self, inplace: bool = False):
        super().__init__()
        self.inplace = inplace

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class ReLU(_InplaceActivation):
    """max(0, x)."""

    def forward(self, input):
        return F.relu(input, inplace=self.inplace)


class ReLU6(_InplaceActivation):
    """min(max(0, x), 6)."""

    def forward(self, input):
        return F.relu6(input, inplace=self.inplace)


class SiLU(_InplaceActivation):
    """x * sigmoid(x)."""

    def forward(self, input):
        return F.silu(input, inplace=self.inplace)


class Mish(_InplaceActivation):
    """x * tanh(softplus(x))."""

    def forward(self, input):
        return F.mish(input, inplace=self.inplace)


class Hardswish(_InplaceActivation):
    """x * relu6(x + 3) / 6."""

    def forward(self, input):
        return F.hardswish(input, inplace=self.inplace)


class Hardsigmoid(_InplaceActivation):
    """relu6(x + 3) / 6."""

    def forward(self, input):
        return F.hardsigmoid(input, inplace=self.inplace)


class SELU(_InplaceActivation):
    """Scaled ELU."""

    def forward(self, input):
        return F.selu(input, inplace=self.inplace)


class GELU(Module):
    """x * Phi(x), or its tanh approximation when approximate='tanh'."""

    def __init__(self, approximate: str = "none"):
        super().__init__()
        self.approximate = approximate

    def forward(self, input):
        return F.gelu(input, approximate=self.approximate)

    def extra_repr(self) -> str:
        return f"approximate={self.approximate!r}"


class Tanh(Module):
    """tanh(x)."""

    def forward(self, input):
        return input.tanh()


class Sigmoid(Module):
    """1 / (1 + exp(-x))."""

    def forward(self, input):
        return input.sigmoid()


class LeakyReLU(Module):
    """max(0, x) + negative_slope * min(0, x)."""

    def __init__(self, negative_slope: float = 1e-2, inplace: bool = False):
        super().__init__()
        self.negative_slope = negative_slope
        self.inplace = inplace

    def forward(self, input):
        return F.leaky_relu(input, self.negative_slope, self.inplace)

    def extra_repr(self) -> str:
        return f"negative_slope={self.negative_slope}" + (", inplace=True" if self.inplace else "")


class ELU(Module):
    """x for x > 0, alpha * (exp(x) - 1) otherwise."""

    def __init__(self, alpha: float = 1.0, inplace: bool = False):
        super().__init__()
        self.alpha = alpha
        self.inplace = inplace

    def forward(self, input):
        return F.elu(input, self.alpha, self.inplace)

    def extra_repr(self) -> str:
        return f"alpha={self.alpha}" + (", inplace=True" if self.inplace else "")


class CELU(ELU):
    """max(0, x) + min(0, alpha * (exp(x / alpha) - 1))."""

    def forward(self, input):
        return F.celu(input, self.alpha, self.inplace)


class Hardtanh(Module):
    """x clamped to [min_val, max_val]."""

    def __init__(self, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False):
        super().__init__()
        self.min_val = min_val
        self.max_val = max_val
        self.inplace = inplace

    def forward(self, input):
        return F.hardtanh(input, self.min_val, self.max_val, self.inplace)

    def extra_repr(self) -> str:
        return f"min_val={self.min_val}, max_val={self.max_val}" + (", inplace=True" if self.inplace else "")


class Softplus(Module):
    """log(1 + exp(beta * x)) / beta, linear above threshold."""

    def __init__(self, beta: float = 1.0, threshold: float = 20.0):
        super().__init__()
        self.beta = beta
        self.threshold = threshold

    def forward(self, input):
        return F.softplus(input, self.beta, self.threshold)

    def extra_repr(self) -> str:
        return f"beta={self.beta}, threshold={self.threshold}"


class _SoftmaxBase(Module):
    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class Softmax(_SoftmaxBase):
    """exp(x) / sum(exp(x)) along dim."""

    def forward(self, input):
        return F.softmax(input, self.dim, _stacklevel=5)


class Softmin(_SoftmaxBase):
    """softmax(-x) along dim."""

    def forward(self, input):
        return F.softmin(input, self.dim, _stacklevel=5)


class LogSoftmax(_SoftmaxBase):
    """log(softmax(x)) along dim."""

    def forward(self, input):
        return F.log_softmax(input, self.dim, _stacklevel=5)


class LogSigmoid(Module):
    """log(1 / (1 + exp(-x)))."""

    def forward(self, input):
        return F.logsigmoid(input)


class Softsign(Module):
    """x / (1 + |x|)."""

    def forward(self, input):
        return F.softsign(input)


class Tanhshrink(Module):
    """x - tanh(x)."""

    def forward(self, input):
        return F.tanhshrink(input)


class Hardshrink(Module):
    """x where |x| > lambd, else 0."""

    def __init__(self, lambd: float = 0.5):
        super().__init__()
        self.lambd = lambd

    def forward(self, input):
        return F.hardshrink(input, self.lambd)

    def extra_repr(self) -> str:
        return f"{self.lambd}"


class Softshrink(Module):
    """x - lambd where x > lambd, x + lambd where x < -lambd, else 0."""

    def __init__(self, lambd: float = 0.5):
        super().__init__()
        self.lambd = lambd

    def forward(self, input):
        return F.softshrink(input, self.lambd)

    def extra_repr(self) -> str:
        return str(self.lambd)


class Threshold(Module):
    """x where x > threshold, else value."""

    def __init__(self, threshold: float, value: float, inplace: bool = False):
        super().__init__()
        self.threshold = threshold
        self.value = value
        self.inplace = inplace

    def forward(self, input):
        return F.threshold(input, self.threshold, self.value, self.inplace)

    def extra_repr(self) -> str:
        return f"threshold={self.threshold}, value={self.value}" + (", inplace=True" if self.inplace else "")


class GLU(Module):
    """a * sigmoid(b), with a and b the two halves of the input along dim."""

    def __init__(self, dim: int = -1):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return F.glu(input, self.dim)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class PReLU(Module):
    """max(0, x) + weight * min(0, x), with one learnt weight for all channels or one per channel."""

    def __init__(self, num_parameters: int = 1, init: float = 0.25, device=None, dtype=None):
        super().__init__()
        self.num_parameters = num_parameters
        self.init = init
        self.weight = Parameter(ember.empty(num_parameters, dtype=dtype))
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Every weight = init."""
        init.constant_(self.weight, self.init)

    def forward(self, input):
        return F.prelu(input, self.weight)

    def extra_repr(self) -> str:
        return f"num_parameters={self.num_parameters}"
