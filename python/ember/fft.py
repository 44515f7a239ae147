"""ember.fft, as torch.fft: the discrete Fourier transforms, built on the three primitives
_fft_c2c, _fft_r2c and _fft_c2r (aten/native/cpu/fft.cpp, Ember's own FFT: mixed radix with
Bluestein for large prime factors), so gradients come from their formulas. `n`/`s` pad
with zeros or trim the input first; `norm` is "backward" (the default: the inverse
scales by 1/n), "ortho" (1/sqrt(n) both ways) or "forward" (the forward scales by 1/n)."""
import ember as _ember

__all__ = ["fft", "ifft", "fft2", "ifft2", "fftn", "ifftn", "rfft", "irfft", "rfft2", "irfft2",
           "rfftn", "irfftn", "hfft", "ihfft", "hfft2", "ihfft2", "hfftn", "ihfftn", "fftfreq",
           "rfftfreq", "fftshift", "ifftshift"]

_NONE, _BY_ROOT_N, _BY_N = 0, 1, 2


def _norm_mode(op, norm, forward):
    if norm is None or norm == "backward":
        return _NONE if forward else _BY_N
    if norm == "forward":
        return _BY_N if forward else _NONE
    if norm == "ortho":
        return _BY_ROOT_N
    raise ValueError(f"{op}(): Invalid normalization mode: {norm!r} (expected \"forward\", "
                     "\"backward\" or \"ortho\")")


def _swap(norm):
    """The norm of the transform that runs the other way round (hfft is an irfft, ...)."""
    return {None: "forward", "backward": "forward", "forward": "backward"}.get(norm, norm)


def _check_tensor(op, x):
    if not isinstance(x, _ember.Tensor):
        raise TypeError(f"{op}(): argument 'input' must be Tensor, not {type(x).__name__}")


def _float_input(op, x, *, real_only=False):
    """x in a float or complex dtype the transforms compute in (integers and bool in the
    default float dtype); real_only refuses complex input, as torch's rfft does."""
    _check_tensor(op, x)
    if x.is_complex():
        if real_only:
            raise RuntimeError(f"{op}(): expects a real input tensor, but got {x.dtype}")
        return x
    if x.dtype in (_ember.float16, _ember.bfloat16):
        raise RuntimeError(f"{op}(): Unsupported dtype {x.dtype} (Ember's FFT computes in float32 "
                           "and float64)")
    if not x.is_floating_point():
        x = x.to(_ember.get_default_dtype())
    return x


def _complex_input(op, x):
    x = _float_input(op, x)
    if not x.is_complex():
        x = x.to(_ember.complex128 if x.dtype == _ember.float64 else _ember.complex64)
    return x


def _resize(op, x, dims, sizes):
    """x zero-padded or trimmed at the end of each dim to its size (-1 keeps the size)."""
    for d, n in zip(dims, sizes):
        if n == -1:
            continue
        if n < 1:
            raise RuntimeError(f"{op}(): Invalid number of data points ({n}) specified")
        have = x.shape[d]
        if n < have:
            x = x.narrow(d, 0, n)
        elif n > have:
            shape = list(x.shape)
            shape[d] = n - have
            x = _ember.cat([x, _ember.zeros(shape, dtype=x.dtype)], d)
    return x


def _wrap(op, d, ndim):
    if not -max(ndim, 1) <= d < max(ndim, 1):
        raise IndexError(f"{op}(): Dimension out of range (expected to be in range of "
                         f"[{-max(ndim, 1)}, {max(ndim, 1) - 1}], but got {d})")
    return d % max(ndim, 1)


def _dims_and_sizes(op, x, s, dim, default_last=None):
    """torch's rule: dim defaults to the last len(s) dims (or every dim, or the last
    default_last dims), s to the sizes along dim."""
    if isinstance(dim, int):
        dim = [dim]
    if s is not None:
        s = list(s)
        if dim is None:
            if len(s) > x.dim():
                raise RuntimeError(f"{op}(): Got shape with {len(s)} values but input tensor only "
                                   f"has {x.dim()} dimensions.")
            dim = list(range(x.dim() - len(s), x.dim()))
        elif len(s) != len(dim):
            raise RuntimeError(f"{op}(): When given, dim and shape arguments must have the same "
                               f"length (got {len(dim)} and {len(s)})")
    if dim is None:
        dim = list(range(x.dim())) if default_last is None else \
            list(range(max(x.dim() - default_last, 0), x.dim()))
    dims = [_wrap(op, d, x.dim()) for d in dim]
    if len(set(dims)) != len(dims):
        raise RuntimeError(f"{op}(): FFT dims must be unique")
    if x.dim() == 0 and dims:
        raise IndexError(f"{op}(): Dimension specified as {dim[0]} but tensor has no dimensions")
    sizes = s if s is not None else [x.shape[d] for d in dims]
    return dims, sizes


def _out(result, out):
    if out is None:
        return result
    if out.dtype != result.dtype:
        raise RuntimeError(f"fft: expected 'out' of dtype {result.dtype}, but got {out.dtype}")
    out.resize_(result.shape) if tuple(out.shape) != tuple(result.shape) else None
    out.copy_(result)
    return out


def _c2c(op, x, s, dim, norm, forward, default_last=None, out=None):
    x = _complex_input(op, x)
    dims, sizes = _dims_and_sizes(op, x, s, dim, default_last)
    x = _resize(op, x, dims, sizes)
    if not dims:
        return _out(x.clone(), out)
    return _out(_ember._fft_c2c(x, dims, _norm_mode(op, norm, forward), forward), out)


def _r2c(op, x, s, dim, norm, forward, default_last=None, out=None):
    x = _float_input(op, x, real_only=True)
    dims, sizes = _dims_and_sizes(op, x, s, dim, default_last)
    if not dims:
        raise RuntimeError(f"{op}(): must transform at least one axis")
    x = _resize(op, x, dims, sizes)
    y = _ember._fft_r2c(x, dims, _norm_mode(op, norm, forward), True)
    return _out(y if forward else _ember.conj(y), out)


def _c2r(op, x, s, dim, norm, forward, default_last=None, out=None):
    x = _complex_input(op, x)
    dims, sizes = _dims_and_sizes(op, x, s, dim, default_last)
    if not dims:
        raise RuntimeError(f"{op}(): must transform at least one axis")
    last = sizes[-1] if s is not None and sizes[-1] != -1 else 2 * (x.shape[dims[-1]] - 1)
    if last < 1:
        raise RuntimeError(f"{op}(): Invalid number of data points ({last}) specified")
    sizes = list(sizes[:-1]) + [last // 2 + 1]
    x = _resize(op, x, dims, sizes)
    if forward:  # hfft: the inverse real transform of the conjugate
        x = _ember.conj(x)
    return _out(_ember._fft_c2r(x, dims, _norm_mode(op, norm, forward), last), out)


def fft(input, n=None, dim=-1, norm=None, *, out=None):
    """The 1-D discrete Fourier transform of input along dim."""
    return _c2c("fft_fft", input, None if n is None else [n], [dim], norm, True, out=out)


def ifft(input, n=None, dim=-1, norm=None, *, out=None):
    """The 1-D inverse discrete Fourier transform of input along dim."""
    return _c2c("fft_ifft", input, None if n is None else [n], [dim], norm, False, out=out)


def fft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """The 2-D discrete Fourier transform (over the last two dims by default)."""
    return _c2c("fft_fft2", input, s, dim, norm, True, out=out)


def ifft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """The 2-D inverse discrete Fourier transform."""
    return _c2c("fft_ifft2", input, s, dim, norm, False, out=out)


def fftn(input, s=None, dim=None, norm=None, *, out=None):
    """The N-D discrete Fourier transform (over every dim, or the last len(s), by default)."""
    return _c2c("fft_fftn", input, s, dim, norm, True, out=out)


def ifftn(input, s=None, dim=None, norm=None, *, out=None):
    """The N-D inverse discrete Fourier transform."""
    return _c2c("fft_ifftn", input, s, dim, norm, False, out=out)


def rfft(input, n=None, dim=-1, norm=None, *, out=None):
    """The 1-D transform of a real input: the n // 2 + 1 non-negative frequencies."""
    return _r2c("fft_rfft", input, None if n is None else [n], [dim], norm, True, out=out)


def irfft(input, n=None, dim=-1, norm=None, *, out=None):
    """The inverse of rfft: a real signal of length n (default 2 * (m - 1))."""
    return _c2r("fft_irfft", input, None if n is None else [n], [dim], norm, False, out=out)


def rfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """The 2-D transform of a real input, the last dim halved."""
    return _r2c("fft_rfft2", input, s, dim, norm, True, out=out)


def irfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """The inverse of rfft2."""
    return _c2r("fft_irfft2", input, s, dim, norm, False, out=out)


def rfftn(input, s=None, dim=None, norm=None, *, out=None):
    """The N-D transform of a real input, the last transformed dim halved."""
    return _r2c("fft_rfftn", input, s, dim, norm, True, out=out)


def irfftn(input, s=None, dim=None, norm=None, *, out=None):
    """The inverse of rfftn."""
    return _c2r("fft_irfftn", input, s, dim, norm, False, out=out)


def hfft(input, n=None, dim=-1, norm=None, *, out=None):
    """The transform of a Hermitian-symmetric signal given by its first half: real output."""
    return _c2r("fft_hfft", input, None if n is None else [n], [dim], norm, True, out=out)


def ihfft(input, n=None, dim=-1, norm=None, *, out=None):
    """The inverse of hfft: the n // 2 + 1 first bins of the inverse transform of a real input."""
    return _r2c("fft_ihfft", input, None if n is None else [n], [dim], norm, False, out=out)


def hfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """The 2-D hfft."""
    return hfftn(input, s, dim, norm, out=out)


def ihfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """The 2-D ihfft."""
    return ihfftn(input, s, dim, norm, out=out)


def hfftn(input, s=None, dim=None, norm=None, *, out=None):
    """The N-D hfft: the inverse real transform of the conjugate, with the forward's scaling."""
    return _c2r("fft_hfftn", input, s, dim, norm, True, out=out)


def ihfftn(input, s=None, dim=None, norm=None, *, out=None):
    """The N-D ihfft: the conjugate of rfftn with the inverse's scaling."""
    return _r2c("fft_ihfftn", input, s, dim, norm, False, out=out)


def _freq_factory(op, values, n, d, dtype, device, requires_grad, layout):
    if not isinstance(n, int) or isinstance(n, bool):
        raise TypeError(f"{op}(): argument 'n' must be int, not {type(n).__name__}")
    if n < 0:
        raise RuntimeError(f"{op}(): n must be non-negative, but got {n}")
    dtype = dtype or _ember.get_default_dtype()
    if not (dtype.is_floating_point or dtype.is_complex):
        raise RuntimeError(f"{op}(): expected a floating or complex dtype, but got {dtype}")
    result = _ember.tensor(values, dtype=_ember.float64).div(d * n).to(dtype)  # n = 0: 0 / 0, as torch
    if device is not None:
        result = result.to(device)
    return result.requires_grad_(requires_grad) if requires_grad else result


def fftfreq(n, d=1.0, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """The sample frequencies of a length-n transform: [0, 1, ..., -(n // 2), ..., -1] / (d n)."""
    values = list(range((n - 1) // 2 + 1)) + list(range(-(n // 2), 0)) if isinstance(n, int) else []
    return _out(_freq_factory("fft_fftfreq", values, n, d, dtype, device, requires_grad, layout), out)


def rfftfreq(n, d=1.0, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """The sample frequencies of rfft's output: [0, 1, ..., n // 2] / (d n)."""
    values = list(range(n // 2 + 1)) if isinstance(n, int) else []
    return _out(_freq_factory("fft_rfftfreq", values, n, d, dtype, device, requires_grad, layout), out)


def _shift(op, input, dim, sign):
    _check_tensor(op, input)
    if dim is None:
        dim = list(range(input.dim()))
    elif isinstance(dim, int):
        dim = [dim]
    dims = [_wrap(op, d, input.dim()) for d in dim]
    if not dims:
        return input.clone()
    shifts = [(input.shape[d] // 2) if sign > 0 else -(input.shape[d] // 2) for d in dims]
    return _ember.roll(input, shifts, dims)


def fftshift(input, dim=None):
    """The zero frequency moved to the centre: a roll by n // 2 along each dim (all by default)."""
    return _shift("fft_fftshift", input, dim, +1)


def ifftshift(input, dim=None):
    """The inverse of fftshift: a roll by -(n // 2)."""
    return _shift("fft_ifftshift", input, dim, -1)
