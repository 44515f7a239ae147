"""torch's alias names of Ember's operators (absolute for abs, divide for div, ...) and the
small methods that are compositions of existing ones (ravel, hsplit, inner, diff, gcd, the
in-place comparisons, ...), installed on ember.Tensor and, as functions, on ember where
torch has them. Each computes what torch's does; gradients come from the ops they call."""
from __future__ import annotations

import builtins
import math

import ember

Tensor = ember.Tensor

# alias: the op it names (a Tensor method and, where torch has one, a function of ember).
ALIASES = {
    "absolute": "abs", "arccos": "acos", "arccosh": "acosh", "arcsin": "asin", "arcsinh": "asinh",
    "arctan": "atan", "arctanh": "atanh", "divide": "div", "multiply": "mul", "subtract": "sub",
    "true_divide": "div", "greater": "gt", "greater_equal": "ge", "less": "lt", "less_equal": "le",
    "not_equal": "ne", "negative": "neg", "fix": "trunc", "unsafe_chunk": "chunk",
    "unsafe_split": "split",
}
# aliases that have an in-place form (name_ for base_).
INPLACE_ALIASES = ("absolute", "arccos", "arccosh", "arcsin", "arcsinh", "arctan", "arctanh",
                   "divide", "multiply", "subtract", "true_divide", "negative", "fix")
COMPARISONS = {"eq": "eq", "ne": "ne", "lt": "lt", "le": "le", "gt": "gt", "ge": "ge",
               "greater": "gt", "greater_equal": "ge", "less": "lt", "less_equal": "le",
               "not_equal": "ne"}


def _method(name, base):
    def f(self, *args, **kwargs):
        return getattr(self, base)(*args, **kwargs)
    f.__name__ = name
    f.__doc__ = f"Alias of Tensor.{base} (as torch.Tensor.{name})."
    return f


def _function(name, base):
    fn = getattr(ember, base)

    def f(*args, **kwargs):
        return fn(*args, **kwargs)
    f.__name__ = name
    f.__doc__ = f"Alias of ember.{base} (as torch.{name})."
    return f


def _inplace_comparison(name, base):
    def f(self, other):
        # The comparison's result in self's dtype, written into self (as torch's eq_ etc.).
        return self.copy_(getattr(self, base)(other))
    f.__name__ = name + "_"
    f.__doc__ = f"self = (self {base} other), in self's dtype (as torch.Tensor.{name}_)."
    return f


def positive(input):
    """input itself (unary plus); refused for bool, as torch."""
    if input.dtype == ember.bool:
        raise RuntimeError("positive(): the `+` operator, on a bool tensor is not supported")
    return input


def ravel(input):
    """The elements as one dimension (a view when it can be one)."""
    return input.reshape(-1)


def is_signed(input):
    return input.dtype not in (ember.bool, ember.uint8)


def is_nonzero(input):
    """Whether the single element of input is not zero."""
    n = input.numel()
    if n != 1:
        raise RuntimeError("is_nonzero(): Boolean value of Tensor with "
                           + ("no values" if n == 0 else "more than one value") + " is ambiguous")
    return builtins.bool(input.item() != 0)


def is_same_size(input, other):
    return tuple(input.shape) == tuple(other.shape)


def get_device(input):
    """-1 for a CPU tensor (torch's convention), else the device index."""
    return -1 if input.device.type == "cpu" else input.device.index


def _split_along(name, dim, min_dim):
    def f(input, indices_or_sections):
        if input.dim() < min_dim:
            raise RuntimeError(f"{name}(): expected 'input' to have {min_dim} or more dimensions, "
                               f"but got a tensor of {input.dim()} dimensions")
        d = 0 if (name == "hsplit" and input.dim() == 1) else dim
        if isinstance(indices_or_sections, int) and input.size(d) % indices_or_sections:
            raise RuntimeError(f"{name}(): expected the size of dimension {d} ({input.size(d)}) to be "
                               f"divisible by 'sections' ({indices_or_sections})")
        return ember.tensor_split(input, indices_or_sections, d)
    f.__name__ = name
    f.__doc__ = f"tensor_split along dimension {dim} (as torch.{name}); sections must divide it."
    return f


hsplit = _split_along("hsplit", 1, 1)
vsplit = _split_along("vsplit", 0, 2)
dsplit = _split_along("dsplit", 2, 3)


def diagflat(input, offset=0):
    """A matrix with input's elements, flattened, on diagonal `offset`."""
    return ember.diag(input.reshape(-1), offset)


def inner(input, other):
    """The sum over the last dimensions of the products (a product when one is 0-d)."""
    if input.dim() == 0 or other.dim() == 0:
        return input * other
    if input.size(-1) != other.size(-1):
        raise RuntimeError(f"inner(): expected the last dimensions to match, but got {tuple(input.shape)} "
                           f"and {tuple(other.shape)}")
    return ember.tensordot(input, other, dims=([input.dim() - 1], [other.dim() - 1]))


def logaddexp2(input, other):
    """log2(2**input + 2**other) without overflow: the larger plus log2(1 + 2**-|difference|);
    equal infinities give themselves."""
    big = ember.maximum(input, other)
    out = big + ember.log1p(ember.exp2(-(input - other).abs())) / math.log(2)
    return ember.where(ember.isinf(big) & (input == other), big, out)


def isposinf(input):
    return ember.isinf(input) & (input > 0)


def isneginf(input):
    return ember.isinf(input) & (input < 0)


def isreal(input):
    if input.dtype.is_complex:
        return input.imag == 0
    return ember.ones_like(input, dtype=ember.bool)


def diff(input, n=1, dim=-1, prepend=None, append=None):
    """The n-th forward difference along dim (!= for bool), after concatenating prepend and
    append along dim."""
    if input.dim() == 0:
        raise RuntimeError("diff(): expected at least a 1-dimensional 'input', but got a 0-d tensor")
    if not isinstance(n, int) or n < 0:
        raise RuntimeError(f"diff(): expected 'n' to be a non-negative int, but got {n!r}")
    parts = [t for t in (prepend, input, append) if t is not None]
    x = ember.cat(parts, dim) if len(parts) > 1 else input
    d = dim % x.dim()
    for _ in range(n):
        m = x.size(d)
        if m == 0:
            break
        hi, lo = x.narrow(d, 1, m - 1), x.narrow(d, 0, m - 1)
        x = hi != lo if x.dtype == ember.bool else hi - lo
    return x


def float_power(input, exponent):
    """input ** exponent in double precision (complex128 if either is complex)."""
    cplx = (isinstance(input, Tensor) and input.dtype.is_complex) or \
        (isinstance(exponent, Tensor) and exponent.dtype.is_complex) or \
        isinstance(input, complex) or isinstance(exponent, complex)
    dt = ember.complex128 if cplx else ember.float64
    a = input.to(dt) if isinstance(input, Tensor) else input
    b = exponent.to(dt) if isinstance(exponent, Tensor) else exponent
    if not isinstance(a, Tensor):
        return ember.pow(a, b)
    return a.pow(b)


def heaviside(input, values):
    """0 where input < 0, values where input == 0, 1 where input > 0."""
    if input.dtype != values.dtype:
        raise RuntimeError(f"heaviside(): expected 'input' and 'values' to have the same dtype, but got "
                           f"{input.dtype} and {values.dtype}")
    if input.dtype.is_complex:
        raise RuntimeError("heaviside(): not implemented for complex tensors")
    step = (input > 0).to(input.dtype)
    return ember.where(input == 0, values, step)


def _integral(name, *ts):
    for t in ts:
        if t.dtype.is_floating_point or t.dtype.is_complex or t.dtype == ember.bool:
            raise RuntimeError(f"{name}(): expected integer tensors, but got {t.dtype}")


def gcd(input, other):
    """The greatest common divisor, elementwise (non-negative; gcd(0, 0) = 0)."""
    _integral("gcd", input, other)
    # Both broadcast to the result's shape and dtype (adding zeros of the other's).
    a = input.abs() + ember.zeros_like(other)
    b = other.abs() + ember.zeros_like(input)
    while builtins.bool((b != 0).any()):
        nz = b != 0
        r = ember.where(nz, a % ember.where(nz, b, ember.ones_like(b)), ember.zeros_like(a))
        a, b = ember.where(nz, b, a), r
    return a


def lcm(input, other):
    """The least common multiple, elementwise (0 when either is 0)."""
    g = gcd(input, other)
    safe = ember.where(g == 0, ember.ones_like(g), g)
    return ember.where(g == 0, ember.zeros_like(g), (input.abs() // safe) * other.abs())


def ldexp(input, other):
    """input * 2 ** other."""
    return input * ember.pow(2.0, other.to(ember.get_default_dtype()) if not other.dtype.is_floating_point
                             else other)


def dist(input, other, p=2):
    """The p-norm of input - other."""
    return ember.linalg.vector_norm(input - other, p)


def narrow_copy(input, dim, start, length):
    return input.narrow(dim, start, length).clone()


def sum_to_size(self, *size):
    """self summed down to `size`, to which it must broadcast (leading dims dropped, dims of
    size 1 kept)."""
    if len(size) == 1 and isinstance(size[0], (tuple, list, ember.Size)):
        size = tuple(size[0])
    lead = self.dim() - len(size)
    if lead < 0 or any(s != 1 and s != self.size(lead + i) for i, s in enumerate(size)):
        raise RuntimeError(f"sum_to_size(): size {list(size)} is not expandable to size {list(self.shape)}")
    out = self.sum(tuple(range(lead))) if lead else self
    dims = tuple(i for i, s in enumerate(size) if s == 1 and out.size(i) != 1)
    return out.sum(dims, keepdim=True) if dims else out


def _new_empty_strided(self, size, stride, *, dtype=None, device=None, requires_grad=False):
    return ember.empty_strided(size, stride, dtype=dtype or self.dtype, device=device or self.device,
                               requires_grad=requires_grad)


def _real_transpose(name, last_two):
    def f(self):
        if self.dtype.is_complex:
            raise NotImplementedError(f"Tensor.{name}: not implemented for complex tensors yet")
        if not last_two and self.dim() > 2:
            raise RuntimeError(f"Tensor.{name}: expected a tensor of at most 2 dimensions, but got "
                               f"{self.dim()}")
        if last_two and self.dim() < 2:
            raise RuntimeError(f"Tensor.{name}: expected a tensor of at least 2 dimensions, but got "
                               f"{self.dim()}")
        return self.transpose(-2, -1) if self.dim() >= 2 else self
    return f


FUNCTIONS = {f.__name__: f for f in (positive, ravel, is_signed, is_nonzero, is_same_size, hsplit,
                                     vsplit, dsplit, diagflat, inner, logaddexp2, isposinf, isneginf,
                                     isreal, diff, float_power, heaviside, gcd, lcm, ldexp, dist,
                                     narrow_copy)}


def install():
    for name, base in ALIASES.items():
        if not hasattr(Tensor, name):
            setattr(Tensor, name, _method(name, base))
        if not hasattr(ember, name) and hasattr(ember, base):
            setattr(ember, name, _function(name, base))
    for name in INPLACE_ALIASES:
        if not hasattr(Tensor, name + "_"):
            setattr(Tensor, name + "_", _method(name + "_", ALIASES[name] + "_"))
    for name, base in COMPARISONS.items():
        if not hasattr(Tensor, name + "_"):
            setattr(Tensor, name + "_", _inplace_comparison(name, base))
    for name, fn in FUNCTIONS.items():
        if not hasattr(Tensor, name):
            setattr(Tensor, name, fn)
        if not hasattr(ember, name) and name not in ("is_signed", "get_device"):
            setattr(ember, name, fn)
    extra = {"get_device": get_device, "sum_to_size": sum_to_size,
             "new_empty_strided": _new_empty_strided, "adjoint": _real_transpose("adjoint()", True),
             "allclose": lambda self, other, rtol=1e-5, atol=1e-8, equal_nan=False:
                 ember.allclose(self, other, rtol=rtol, atol=atol, equal_nan=equal_nan),
             "equal": lambda self, other: ember.equal(self, other),
             "cdouble": lambda self: self.to(ember.complex128),
             "cfloat": lambda self: self.to(ember.complex64),
             "xlogy": lambda self, other: ember.special.xlogy(self, other),
             "xlogy_": lambda self, other: self.copy_(ember.special.xlogy(self, other)),
             "sinc": lambda self: ember.special.sinc(self),
             "sinc_": lambda self: self.copy_(ember.special.sinc(self))}
    for name, fn in extra.items():
        if not hasattr(Tensor, name):
            setattr(Tensor, name, fn)
    for name, last_two in (("H", False), ("mH", True)):
        if not hasattr(Tensor, name):
            setattr(Tensor, name, property(_real_transpose(name, last_two)))
    for name in ("xlogy", "sinc"):
        if not hasattr(ember, name):
            setattr(ember, name, getattr(ember.special, name))
    if not hasattr(ember, "adjoint"):
        ember.adjoint = Tensor.adjoint
