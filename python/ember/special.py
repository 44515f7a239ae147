"""ember.special, as torch.special: the operators the YAML marks `python_module: special`
(without "special_"), torch's aliases of Ember's own operators, and the functions that are
exact compositions of them (ndtr, ndtri, sinc, xlogy, xlog1py, entr), whose
gradients come from their parts."""
import math as _math

import ember as _ember
from ember import _C as _C

for _name in dir(_C._special):
    if not _name.startswith("__"):
        globals()[_name] = getattr(_C._special, _name)
del _name

digamma = psi = _ember.digamma
erf = _ember.erf
erfc = _ember.erfc
erfinv = _ember.erfinv
exp2 = _ember.exp2
expit = _ember.sigmoid
expm1 = _ember.expm1
gammainc = _ember.igamma
gammaincc = _ember.igammac
gammaln = _ember.lgamma
i0 = _ember.i0
log1p = _ember.log1p
logit = _ember.logit
logsumexp = _ember.logsumexp
polygamma = _ember.polygamma
round = _ember.round  # noqa: A001 (torch.special.round)


def softmax(input, dim, *, dtype=None):
    """softmax along dim, computed in dtype when given."""
    return _ember.softmax(input, dim, dtype=dtype)


def log_softmax(input, dim, *, dtype=None):
    """log_softmax along dim, computed in dtype when given."""
    return _ember.log_softmax(input, dim, dtype=dtype)


def _floating(name, x):
    if not isinstance(x, _ember.Tensor):
        raise TypeError(f"special.{name}(): argument 'input' must be Tensor, not {type(x).__name__}")
    if x.dtype.is_complex:
        raise NotImplementedError(f"special.{name}(): not implemented for complex tensors (got {x.dtype})")
    return x if x.dtype.is_floating_point else x.to(_ember.get_default_dtype())


def ndtr(input):
    """The standard normal CDF: (1 + erf(x / sqrt(2))) / 2, as 0.5 * erfc(-x / sqrt(2))."""
    x = _floating("ndtr", input)
    return 0.5 * _ember.erfc(x * (-1 / _math.sqrt(2)))


def ndtri(input):
    """The inverse of ndtr: sqrt(2) * erfinv(2p - 1); -inf at 0, inf at 1, nan outside [0, 1]."""
    p = _floating("ndtri", input)
    return _math.sqrt(2) * _ember.erfinv(2 * p - 1)


def sinc(input):
    """sin(pi x) / (pi x), and 1 at x = 0 (with a zero gradient there)."""
    x = _floating("sinc", input)
    zero = x == 0
    safe = _ember.where(zero, _ember.ones_like(x), x) * _math.pi
    return _ember.where(zero, _ember.ones_like(x), _ember.sin(safe) / safe)


def _operands(name, x, y):
    if not isinstance(x, _ember.Tensor) and not isinstance(y, _ember.Tensor):
        raise TypeError(f"special.{name}(): expected 'self' or 'other' to be a Tensor, got "
                        f"{type(x).__name__} and {type(y).__name__}")
    tensors = [v for v in (x, y) if isinstance(v, _ember.Tensor)]
    # The promoted dtype of the tensors (two 0-d tensors promote as the operands would).
    dtype = tensors[0].dtype
    if len(tensors) == 2:
        dtype = (_ember.zeros((), dtype=x.dtype) + _ember.zeros((), dtype=y.dtype)).dtype
    if not dtype.is_floating_point:
        dtype = _ember.get_default_dtype()
    # A number takes the tensors' dtype (it does not promote them), as in PyTorch.
    x = x if isinstance(x, _ember.Tensor) else _ember.tensor(float(x), dtype=dtype)
    y = y if isinstance(y, _ember.Tensor) else _ember.tensor(float(y), dtype=dtype)
    return x.to(dtype), y.to(dtype)


def _x_log_of(name, log, x, y):
    x, y = _operands(name, x, y)
    # x == 0 gives 0 unless y is NaN: where log(y) is not finite there, a stand-in 1 takes
    # y's place (x * log(y) is that 0 elsewhere); the gradient of x stays log(y), as torch's.
    with _ember.no_grad():
        bad = (x == 0) & ~_ember.isnan(y) & ~_ember.isfinite(log(y))
    safe = _ember.where(bad, _ember.ones_like(y), y)
    return x * log(safe)


def xlogy(input, other):
    """x * log(y), and 0 where x == 0 (unless y is NaN), broadcast."""
    return _x_log_of("xlogy", _ember.log, input, other)


def xlog1py(input, other):
    """x * log1p(y), and 0 where x == 0 (unless y is NaN), broadcast."""
    return _x_log_of("xlog1py", _ember.log1p, input, other)


def entr(input):
    """-x log x elementwise: 0 at x = 0, -inf for x < 0."""
    x = _floating("entr", input)
    pos = x > 0
    safe = _ember.where(pos, x, _ember.ones_like(x))
    rest = _ember.where(x == 0, _ember.zeros_like(x), _ember.full_like(x, -_math.inf))
    rest = _ember.where(_ember.isnan(x), x, rest)
    return _ember.where(pos, -safe * _ember.log(safe), rest)


def multigammaln(input, p):
    """The log of the multivariate gamma function of dimension p (mvlgamma)."""
    if not isinstance(input, _ember.Tensor):
        raise TypeError(f"special.multigammaln(): argument 'input' must be Tensor, not {type(input).__name__}")
    return _ember.mvlgamma(input, p)
