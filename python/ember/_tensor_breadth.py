"""torch.Tensor methods (and the matching ember functions) built from Ember's existing ops:
the in-place view ops (t_, squeeze_, as_strided_, ...), the *_scatter embeddings, the random
fills over ember's generator (exponential_, cauchy_, ...), complex accessors (real, imag,
angle), in-place forms of composites (gcd_, ldexp_, ...), index_reduce, nextafter, frexp,
hash_tensor, hardshrink and prelu. The legacy helpers (new, resize, apply_, ...) are in
_tensor_legacy.py, statistics (cov, quantile, histogram, ...) in _tensor_stats.py, storages
and memory sharing in _storage.py.
Gradients come from the ops each one calls."""
from __future__ import annotations

import builtins
import math

import numpy as np

import ember
from ember import _tensor_aliases

Tensor = ember.Tensor


def _take_geometry(self, name, make_view):
    """self becomes make_view(self): outside the autograd graph it takes the view's geometry
    over its own storage (the same TensorImpl, as torch); in the graph (a non-leaf) it swaps
    in the view itself, so the recorded history matches the new geometry."""
    if self.requires_grad and ember.is_grad_enabled():
        if self.is_leaf:
            raise RuntimeError(f"{name}(): a leaf Variable that requires grad is being used in an "
                               f"in-place operation.")
        return self._swap_tensor_(make_view(self))
    view = make_view(self)
    return self._restride_(tuple(view.shape), tuple(view.stride()), view.storage_offset())


def _inplace_view(name, make_view):
    def f(self, *args, **kwargs):
        return _take_geometry(self, name, lambda t: make_view(t, *args, **kwargs))
    f.__name__ = name
    f.__doc__ = f"In-place {name[:-1]}: this tensor takes the geometry of self.{name[:-1]}(...)."
    return f


def _squeeze_view(self, dim=None):
    return self.squeeze() if dim is None else self.squeeze(dim)


def _t_view(self):
    """self.t(), refused for more than 2 dimensions."""
    if self.dim() > 2:
        raise RuntimeError(f"t_(): expected a tensor of at most 2 dimensions, but got {self.dim()}")
    return self.t()


def as_strided_(self, size, stride, storage_offset=None):
    """This tensor takes the geometry (size, stride, storage_offset) over its own storage."""
    offset = self.storage_offset() if storage_offset is None else storage_offset
    if self.requires_grad and ember.is_grad_enabled():
        return _take_geometry(self, "as_strided_",
                              lambda t: t.as_strided(tuple(size), tuple(stride), offset))
    return self._restride_(tuple(size), tuple(stride), offset)


# ---- embeddings: input with src written over one of its views ------------------------------

def _embed(name, input, src, positions):
    """input with src written at `positions` (the flat indices of a view of input's elements)."""
    if not isinstance(src, Tensor):
        raise TypeError(f"{name}(): expected 'src' to be a Tensor, but got {type(src).__name__}")
    if tuple(src.shape) != tuple(positions.shape):
        raise RuntimeError(f"{name}(): expected 'src' to have the shape of the embedded view, "
                           f"{list(positions.shape)}, but got {list(src.shape)}")
    src = src.to(input.dtype)  # copied into input's dtype, as torch's copy_ does
    flat = input.reshape(-1).scatter(0, positions.reshape(-1), src.reshape(-1))
    return flat.view(input.shape)


def _positions(input):
    return ember.arange(input.numel()).view(input.shape)


def select_scatter(input, src, dim, index):
    """input with src embedded at input.select(dim, index)."""
    return _embed("select_scatter", input, src, _positions(input).select(dim, index))


def slice_scatter(input, src, dim=0, start=None, end=None, step=1):
    """input with src embedded at input[start:end:step] along dim."""
    if input.dim() == 0:
        raise IndexError("slice_scatter(): expected 'input' to have at least one dimension")
    d = dim % input.dim()
    n = input.size(d)
    s, e, st = builtins.slice(start, end, step).indices(n) if step > 0 else (0, 0, 0)
    if step <= 0:
        raise RuntimeError(f"slice_scatter(): expected a positive 'step', but got {step}")
    index = ember.arange(s, e, st) if e > s else ember.zeros(0, dtype=ember.int64)
    return _embed("slice_scatter", input, src, _positions(input).index_select(d, index))


def diagonal_scatter(input, src, offset=0, dim1=0, dim2=1):
    """input with src embedded at input.diagonal(offset, dim1, dim2)."""
    return _embed("diagonal_scatter", input, src, _positions(input).diagonal(offset, dim1, dim2))


def _dense_strides_like(input):
    """The strides torch's clone gives input: dense, in the order of input's strides (outer
    dimensions first among equals)."""
    order = sorted(range(input.dim()), key=lambda i: (-input.stride(i), i))
    strides, step = [0] * input.dim(), 1
    for i in reversed(order):
        strides[i] = step
        step *= builtins.max(input.size(i), 1)
    return tuple(strides)


def as_strided_scatter(input, src, size, stride, storage_offset=None):
    """input with src embedded at the as_strided(size, stride, storage_offset) view of a
    clone of input (the geometry read over the clone's storage, which keeps input's stride
    order, as torch's)."""
    offset = 0 if storage_offset is None else storage_offset
    # A tensor laid out as input's clone, holding each element's row-major index: its
    # as_strided view names the elements the geometry reaches.
    logical = ember.empty_strided(tuple(input.shape), _dense_strides_like(input), dtype=ember.int64)
    logical.copy_(_positions(input))
    return _embed("as_strided_scatter", input, src,
                  logical.as_strided(tuple(size), tuple(stride), offset))


# ---- random fills over ember's generator ------------------------------------------------------

def _uniform_like(self, name, generator):
    if not (self.dtype.is_floating_point or name == "geometric_"):
        raise RuntimeError(f"{name}(): expected a floating-point tensor, but got {self.dtype}")
    # Samples in float64, cast on the final copy_, so low-precision dtypes see no tails of 1.
    return ember.empty(tuple(self.shape), dtype=ember.float64).uniform_(generator=generator)


def exponential_(self, lambd=1.0, *, generator=None):
    """Fills self with Exponential(lambd) samples (inverse CDF of a uniform)."""
    if not lambd > 0:
        raise RuntimeError(f"exponential_(): expected 'lambd' > 0, but got {lambd}")
    u = _uniform_like(self, "exponential_", generator)
    return self.copy_(-ember.log1p(-u) / lambd)


def cauchy_(self, median=0.0, sigma=1.0, *, generator=None):
    """Fills self with Cauchy(median, sigma) samples."""
    if not sigma > 0:
        raise RuntimeError(f"cauchy_(): expected 'sigma' > 0, but got {sigma}")
    u = _uniform_like(self, "cauchy_", generator)
    return self.copy_(median + sigma * ember.tan(math.pi * (u - 0.5)))


def log_normal_(self, mean=1.0, std=2.0, *, generator=None):
    """Fills self with exp(N(mean, std)) samples."""
    if not std > 0:
        raise RuntimeError(f"log_normal_(): expected 'std' > 0, but got {std}")
    if not self.dtype.is_floating_point:
        raise RuntimeError(f"log_normal_(): expected a floating-point tensor, but got {self.dtype}")
    z = ember.empty(tuple(self.shape), dtype=ember.float64).normal_(mean, std, generator=generator)
    return self.copy_(ember.exp(z))


def geometric_(self, p, *, generator=None):
    """Fills self with Geometric(p) samples: the number of trials up to the first success."""
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_(): expected 'p' in (0, 1), but got {p}")
    if self.dtype == ember.bool or self.dtype.is_complex:
        raise RuntimeError(f"geometric_(): expected a real, non-bool tensor, but got {self.dtype}")
    u = _uniform_like(self, "geometric_", generator)
    k = ember.ceil(ember.log1p(-u) / math.log1p(-p)).clamp(min=1)
    return self.copy_(k)


# ---- complex accessors -----------------------------------------------------------------------

def _real(self):
    return ember.view_as_real(self).select(-1, 0) if self.dtype.is_complex else self


def _imag(self):
    if not self.dtype.is_complex:
        raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")
    return ember.view_as_real(self).select(-1, 1)


def _set_real(self, value):
    _real(self).copy_(value if isinstance(value, Tensor) else ember.tensor(value))


def _set_imag(self, value):
    _imag(self).copy_(value if isinstance(value, Tensor) else ember.tensor(value))


def real(input):
    """The real part: a view of a complex tensor, input itself otherwise."""
    return _real(input)


def imag(input):
    """The imaginary part of a complex tensor, as a view; refused for real dtypes."""
    return _imag(input)


def angle(input):
    """The argument of each element: atan2(imag, real) for complex, 0 or pi for real (nan
    stays nan); integers give the default float dtype."""
    if input.dtype.is_complex:
        pair = ember.view_as_real(input)
        return ember.atan2(pair.select(-1, 1), pair.select(-1, 0))
    x = input if input.dtype.is_floating_point else input.to(ember.get_default_dtype())
    step = ember.where(x < 0, ember.full_like(x, math.pi), ember.zeros_like(x))
    return ember.where(ember.isnan(x), x, step)


def is_conj(input):
    """False: Ember's conj() materialises, so no tensor carries a lazy conjugate bit."""
    return False


def is_neg(input):
    """False: Ember has no lazy negation bit."""
    return False


def resolve_conj(input):
    """input itself (no tensor carries a lazy conjugate bit)."""
    return input


def resolve_neg(input):
    """input itself (no tensor carries a lazy negation bit)."""
    return input


def _chalf(self, memory_format=None):
    """Refused: Ember has no complex32 dtype."""
    raise TypeError("chalf(): Ember has no complex32 (ComplexHalf) dtype; use cfloat()")


# ---- in-place forms of composites ------------------------------------------------------------

def _check_inplace_result(name, self, result):
    if tuple(result.shape) != tuple(self.shape):
        raise RuntimeError(f"{name}(): output with shape {list(self.shape)} doesn't match the "
                           f"broadcast shape {list(result.shape)}")
    widening = ((result.dtype.is_complex and not self.dtype.is_complex)
                or (result.dtype.is_floating_point and not (self.dtype.is_floating_point
                                                            or self.dtype.is_complex))
                or (result.dtype != ember.bool and self.dtype == ember.bool))
    if widening:
        raise RuntimeError(f"{name}(): result type {result.dtype} can't be cast to the desired "
                           f"output type {self.dtype}")
    return self.copy_(result)


def _inplace(name, function):
    def f(self, *args, **kwargs):
        return _check_inplace_result(name, self, function(self, *args, **kwargs))
    f.__name__ = name
    f.__doc__ = f"In-place {name[:-1]} (the result must keep self's shape and dtype kind)."
    return f


def float_power_(self, exponent):
    """self = self ** exponent, for a float64 (or complex128) self."""
    want = ember.complex128 if (self.dtype.is_complex or isinstance(exponent, complex) or (
        isinstance(exponent, Tensor) and exponent.dtype.is_complex)) else ember.float64
    if self.dtype != want:
        raise RuntimeError(f"float_power_(): the base given has dtype {self.dtype} but the "
                           f"operation's result requires dtype {want}")
    return _check_inplace_result("float_power_", self, _tensor_aliases.float_power(self, exponent))


# ---- index_reduce ----------------------------------------------------------------------------

_INDEX_REDUCTIONS = ("prod", "mean", "amax", "amin")


def index_reduce(input, dim, index, source, reduce, *, include_self=True):
    """input with source's slices along dim reduced (prod, mean, amax, amin) into the slices
    index names; include_self=False leaves input's own values out of the reduced slices."""
    if reduce not in _INDEX_REDUCTIONS:
        raise RuntimeError(f"index_reduce(): expected 'reduce' to be one of {_INDEX_REDUCTIONS}, "
                           f"but got {reduce!r}")
    if index.dtype != ember.int64 or index.dim() > 1:
        raise RuntimeError(f"index_reduce(): expected 'index' to be a 1-D int64 tensor, but got a "
                           f"{index.dim()}-D {index.dtype} tensor")
    if source.dtype != input.dtype:
        raise RuntimeError(f"index_reduce(): expected 'source' to have the dtype of 'input' "
                           f"({input.dtype}), but got {source.dtype}")
    if input.dim() == 0:
        input_view, source_view, d = input.view(1), source.reshape(1), 0
    else:
        input_view, source_view, d = input, source, dim % input.dim()
    if source_view.dim() != input_view.dim() or source_view.size(d) != index.numel() or any(
            source_view.size(i) != input_view.size(i) for i in range(input_view.dim()) if i != d):
        raise RuntimeError(f"index_reduce(): expected 'source' of shape {list(input.shape)} except "
                           f"{index.numel()} along dimension {dim}, but got {list(source.shape)}")
    if index.numel() and builtins.bool(((index < 0) | (index >= input_view.size(d))).any()):
        raise IndexError(f"index_reduce(): index out of range for dimension {dim} of size "
                         f"{input_view.size(d)}")
    shape = [1] * source_view.dim()
    shape[d] = -1
    expanded = index.reshape(shape).expand(tuple(source_view.shape))
    out = input_view.scatter_reduce(d, expanded, source_view, reduce, include_self=include_self)
    return out.view(input.shape)


def index_reduce_(self, dim, index, source, reduce, *, include_self=True):
    """In-place index_reduce."""
    return self.copy_(index_reduce(self, dim, index, source, reduce, include_self=include_self))


# ---- bitwise float helpers (numpy over the shared memory; not differentiable) ---------------

def _from_numpy(array):
    """An ember tensor owning a C-contiguous copy of array (0-d stays 0-d)."""
    return ember.from_numpy(np.array(array, copy=True, order="C"))


_NUMPY_FLOATS = {ember.float16: np.float16, ember.float32: np.float32, ember.float64: np.float64}


def _result_dtype(a, b):
    return (ember.empty(0, dtype=a.dtype) + ember.empty(0, dtype=b.dtype)).dtype


def nextafter(input, other):
    """The next representable value after input towards other, elementwise."""
    if not isinstance(other, Tensor):
        raise TypeError(f"nextafter(): expected 'other' to be a Tensor, but got {type(other).__name__}")
    dt = _result_dtype(input, other)
    if dt not in _NUMPY_FLOATS:
        raise RuntimeError(f"nextafter(): expected float16, float32 or float64 tensors, but got {dt}")
    a, b = input.detach().to(dt), other.detach().to(dt)
    shape = tuple((ember.zeros_like(a) + ember.zeros_like(b)).shape)  # checks they broadcast
    return _from_numpy(np.nextafter(a.expand(shape).numpy(), b.expand(shape).numpy()))


def nextafter_(self, other):
    """In-place nextafter."""
    return _check_inplace_result("nextafter_", self, nextafter(self, other).to(
        self.dtype if self.dtype in _NUMPY_FLOATS else _result_dtype(self, other)))


class _Frexp(ember.autograd.Function):
    @staticmethod
    def forward(ctx, input):
        mantissa, exponent = np.frexp(input.detach().numpy())
        exponent = _from_numpy(exponent.astype(np.int32))
        ctx.save_for_backward(exponent)
        ctx.mark_non_differentiable(exponent)
        return _from_numpy(mantissa).to(input.dtype), exponent

    @staticmethod
    def backward(ctx, grad_mantissa, grad_exponent):
        (exponent,) = ctx.saved_tensors
        return grad_mantissa * ember.exp2(-exponent.to(grad_mantissa.dtype))


def frexp(input):
    """(mantissa, exponent) with input = mantissa * 2 ** exponent, 0.5 <= |mantissa| < 1
    (0, inf and nan keep their value with exponent 0); exponent is int32."""
    if not input.dtype.is_floating_point:
        raise RuntimeError(f"frexp(): expected a floating-point tensor, but got {input.dtype}")
    x = input.to(ember.float32) if input.dtype == ember.bfloat16 else input
    mantissa, exponent = _Frexp.apply(x)
    return ember.return_types.frexp((mantissa.to(input.dtype), exponent))


def hash_tensor(input, dim=None, *, keepdim=False, mode=0):
    """The xor of the elements' 64-bit patterns (floats upcast to float64, integers to
    int64), over dim (all dimensions by default). Ember has no uint64: the result is int64
    with the bits torch's uint64 result has."""
    if mode != 0:
        raise RuntimeError(f"hash_tensor(): expected mode 0 (xor reduction), but got {mode}")
    if input.dtype.is_complex:
        raise RuntimeError("hash_tensor(): complex tensors are not supported")
    if input.numel() == 0:
        if dim is None or dim == () or dim == []:
            raise RuntimeError("hash_tensor(): expected a reduction 'dim' for an empty input")
        raise IndexError("hash_tensor(): expected the reduced dimensions to have non-zero size")
    wide = ember.float64 if input.dtype.is_floating_point else ember.int64
    bits = input.detach().to(wide).contiguous().numpy().view(np.uint64)
    axis = None if dim is None or dim == () or dim == [] else (
        tuple(d % builtins.max(input.dim(), 1) for d in dim) if isinstance(dim, (tuple, list))
        else dim % builtins.max(input.dim(), 1))
    out = np.bitwise_xor.reduce(bits.reshape(bits.shape or (1,)) if input.dim() == 0 else bits,
                                axis=axis, keepdims=keepdim)
    out = np.asarray(out, dtype=np.uint64).view(np.int64)
    if input.dim() == 0 and keepdim:
        out = out.reshape(())
    return _from_numpy(out)


def unsafe_split_with_sizes(input, split_sizes, dim=0):
    """split_with_sizes (torch's variant without the view check)."""
    return input.split_with_sizes(split_sizes, dim)


def hardshrink(input, lambd=0.5):
    """input where |input| > lambd, else 0 (nn.functional.hardshrink)."""
    return ember.nn.functional.hardshrink(input, lambd)


def prelu(input, weight):
    """max(0, input) + weight * min(0, input), weight per channel (nn.functional.prelu)."""
    return ember.nn.functional.prelu(input, weight)


def dequantize(input):
    """The float32 values of a tensor (a tensor that is not quantized converts, as torch's
    dequantize does). torch's list form takes quantized tensors only, which Ember lacks."""
    if isinstance(input, (list, tuple)):
        raise NotImplementedError("dequantize(): the list form takes quantized tensors; Ember "
                                  "has no quantized layout (dequantize each tensor instead)")
    return input.to(ember.float32)


FUNCTIONS = {f.__name__: f for f in (
    select_scatter, slice_scatter, diagonal_scatter, as_strided_scatter, real, imag, angle,
    is_conj, is_neg, resolve_conj, resolve_neg, index_reduce, nextafter, frexp, hash_tensor,
    unsafe_split_with_sizes, hardshrink, prelu, dequantize)}
# real and imag are properties of Tensor (installed below), functions of ember.
FUNCTION_ONLY = ("real", "imag")


def install():
    methods = {name: fn for name, fn in FUNCTIONS.items() if name not in FUNCTION_ONLY}
    methods.update({
        "t_": _inplace_view("t_", _t_view),
        "transpose_": _inplace_view("transpose_", lambda self, d0, d1: self.transpose(d0, d1)),
        "swapaxes_": _inplace_view("swapaxes_", lambda self, d0, d1: self.transpose(d0, d1)),
        "swapdims_": _inplace_view("swapdims_", lambda self, d0, d1: self.transpose(d0, d1)),
        "squeeze_": _inplace_view("squeeze_", _squeeze_view),
        "unsqueeze_": _inplace_view("unsqueeze_", lambda self, dim: self.unsqueeze(dim)),
        "as_strided_": as_strided_,
        "exponential_": exponential_, "cauchy_": cauchy_, "log_normal_": log_normal_,
        "geometric_": geometric_, "chalf": _chalf,
        "gcd_": _inplace("gcd_", _tensor_aliases.gcd), "lcm_": _inplace("lcm_", _tensor_aliases.lcm),
        "heaviside_": _inplace("heaviside_", _tensor_aliases.heaviside),
        "ldexp_": _inplace("ldexp_", _tensor_aliases.ldexp), "float_power_": float_power_,
        "index_reduce_": index_reduce_, "nextafter_": nextafter_,
    })
    for name, fn in methods.items():
        if not hasattr(Tensor, name):
            setattr(Tensor, name, fn)
    properties = {"real": property(_real, _set_real, doc="The real part (a view for complex)."),
                  "imag": property(_imag, _set_imag, doc="The imaginary part (complex only).")}
    for name, prop in properties.items():
        if not hasattr(Tensor, name):
            setattr(Tensor, name, prop)
    for name, fn in FUNCTIONS.items():
        if not hasattr(ember, name):
            setattr(ember, name, fn)
    for name in ("gcd_", "lcm_", "ldexp_", "as_strided_", "chalf"):
        if not hasattr(ember, name):
            setattr(ember, name, getattr(Tensor, name))
    # frexp returns ember.return_types.frexp: mark it wrapped as return_types' other ops are.
    ember.return_types.install({"Tensor": Tensor, "ember": ember})
