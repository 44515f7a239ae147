"""torch's statistics methods as compositions of Ember's ops: cov, corrcoef, quantile,
nanquantile, histogram, renorm and fill_diagonal_. Each computes what torch's does (the same
formulas, so the same numbers up to rounding); gradients come from the ops they call."""
from __future__ import annotations

import builtins
import math
import warnings

import ember

Tensor = ember.Tensor


def _observations(name, input):
    if input.dim() > 2:
        raise RuntimeError(f"{name}(): expected 'input' to have two or fewer dimensions, but got "
                           f"{input.dim()}")
    x = input if input.dim() == 2 else input.reshape(1, -1)
    if not (x.dtype.is_floating_point or x.dtype.is_complex):
        x = x.to(ember.get_default_dtype())
    return x


def _weights(name, weights, n, what, integral):
    if weights is None:
        return None
    if weights.dim() > 1:
        raise RuntimeError(f"{name}(): expected '{what}' to have one or fewer dimensions, but got "
                           f"{weights.dim()}")
    if weights.numel() != n:
        raise RuntimeError(f"{name}(): expected '{what}' to have the same number of elements as "
                           f"there are observations ({n}), but got {weights.numel()}")
    is_int = not (weights.dtype.is_floating_point or weights.dtype.is_complex or
                  weights.dtype == ember.bool)
    if integral and not is_int:
        raise RuntimeError(f"{name}(): expected 'fweights' to have an integral dtype, but got "
                           f"{weights.dtype}")
    if not integral and not weights.dtype.is_floating_point:
        raise RuntimeError(f"{name}(): expected 'aweights' to have a floating point dtype, but got "
                           f"{weights.dtype}")
    if weights.numel() and builtins.bool((weights < 0).any()):
        raise RuntimeError(f"{name}(): expected '{what}' to be non-negative")
    return weights.reshape(-1)


def cov(input, *, correction=1, fweights=None, aweights=None):
    """The covariance matrix of input's rows (variables) over its columns (observations),
    with optional frequency and analytic weights; 1-D input gives a 0-d variance."""
    x = _observations("cov", input)
    n = x.size(1)
    fw = _weights("cov", fweights, n, "fweights", True)
    aw = _weights("cov", aweights, n, "aweights", False)
    w = fw if aw is None else (aw if fw is None else fw * aw)
    if w is None:
        w_sum = float(n)
        avg = x.mean(1) if n else x.sum(1) / 0.0
    else:
        w = w.to(x.real.dtype if x.dtype.is_complex else x.dtype)
        w_sum = w.sum()
        avg = (x * w).sum(1) / w_sum
    if w is None:
        norm = w_sum - correction
    elif correction == 0:
        norm = w_sum
    elif aw is None:
        norm = w_sum - correction
    else:
        norm = w_sum - correction * (w * aw.to(w.dtype)).sum() / w_sum
    real = x.real.dtype if x.dtype.is_complex else x.dtype
    norm = ember.as_tensor(norm, dtype=real) if not isinstance(norm, Tensor) else norm.to(real)
    if builtins.bool(norm <= 0):
        warnings.warn("cov(): degrees of freedom is <= 0. Correction should be strictly less "
                      "than the number of observations.")
        norm = ember.zeros_like(norm)
    xm = x - avg.unsqueeze(1)
    xw = xm if w is None else xm * w
    c = ember.matmul(xw, xm.t().conj()) / norm
    return c.squeeze() if input.dim() < 2 or x.size(0) == 1 else c


def corrcoef(input):
    """The Pearson correlation coefficients of input's rows (cov normalised by the standard
    deviations, clipped to [-1, 1])."""
    c = cov(input)
    if c.dim() == 0:
        return c / c
    d = ember.diagonal(c)
    std = ember.sqrt(d.real if d.dtype.is_complex else d)
    c = c / std.unsqueeze(1)
    c = c / std.unsqueeze(0)
    if c.dtype.is_complex:
        parts = ember.stack([c.real.clamp(-1, 1), c.imag.clamp(-1, 1)], -1)
        return ember.view_as_complex(parts.contiguous())
    return c.clamp(-1, 1)


_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def _quantile(name, input, q, dim, keepdim, interpolation, ignore_nan):
    if input.dtype not in (ember.float32, ember.float64):
        raise RuntimeError(f"{name}(): expected 'input' to be a float or double tensor, but got "
                           f"{input.dtype}")
    if input.numel() == 0:
        raise RuntimeError(f"{name}(): expected a non-empty 'input' tensor")
    if interpolation not in _INTERPOLATIONS:
        raise RuntimeError(f"{name}(): expected 'interpolation' to be one of {_INTERPOLATIONS}, but "
                           f"got {interpolation!r}")
    scalar_q = not isinstance(q, Tensor)
    if scalar_q:
        if not 0 <= q <= 1:
            raise RuntimeError(f"{name}(): expected 'q' in the range [0, 1], but got {q}")
        qs = ember.tensor([float(q)], dtype=input.dtype)
    else:
        if q.dim() > 1:
            raise RuntimeError(f"{name}(): expected 'q' to be a scalar or a 1-D tensor, but got a "
                               f"{q.dim()}-D tensor")
        if q.dtype != input.dtype:
            raise RuntimeError(f"{name}(): expected 'q' to have the dtype of 'input' ({input.dtype}), "
                               f"but got {q.dtype}")
        if q.numel() and not builtins.bool(((q >= 0) & (q <= 1)).all()):
            raise RuntimeError(f"{name}(): expected 'q' values in the range [0, 1]")
        scalar_q = q.dim() == 0
        qs = q.detach().reshape(-1)
    if dim is None:
        x, d = input.reshape(-1), 0
    else:
        x = input.reshape(1) if input.dim() == 0 else input
        if not -x.dim() <= dim < x.dim():
            raise IndexError(f"{name}(): dimension {dim} out of range for a {input.dim()}-d tensor")
        d = dim % x.dim()
    ordered = x.sort(dim=d).values.movedim(d, -1)  # nan sorts last
    n = ordered.size(-1)
    nan = ember.isnan(ordered)
    if ignore_nan:
        valid = (~nan).sum(-1, keepdim=True)  # (..., 1)
    else:
        valid = ember.full(tuple(ordered.shape[:-1]) + (1,), n, dtype=ember.int64)
    rank = qs * (valid - 1).to(input.dtype)  # (..., Q)
    if interpolation == "lower":
        rank = ember.floor(rank)
    elif interpolation == "higher":
        rank = ember.ceil(rank)
    elif interpolation == "nearest":
        rank = ember.round(rank)
    lo = ember.floor(rank).clamp(min=0).long()
    hi = ember.ceil(rank).clamp(min=0).long()
    below = ordered.gather(-1, lo)
    above = ordered.gather(-1, hi)
    if interpolation in ("linear", "midpoint"):
        weight = (rank - lo.to(rank.dtype)) if interpolation == "linear" \
            else ember.full_like(rank, 0.5)
        out = ember.lerp(below, above, weight)
    else:
        out = below
    empty = (valid == 0) if ignore_nan else nan.any(-1, keepdim=True)
    out = ember.where(empty, ember.full_like(out, math.nan), out)
    out = out.movedim(-1, 0)  # (Q, ...)
    if keepdim:
        out = out.reshape((qs.numel(),) + (1,) * input.dim()) if dim is None else (
            out.unsqueeze(d + 1) if input.dim() else out)
    return out.squeeze(0) if scalar_q else out


def quantile(input, q, dim=None, keepdim=False, *, interpolation="linear"):
    """The q-th quantiles of input (over all elements, or along dim); nan if a slice has nan.
    A 1-D q puts its values in a new first dimension."""
    return _quantile("quantile", input, q, dim, keepdim, interpolation, False)


def nanquantile(input, q, dim=None, keepdim=False, *, interpolation="linear"):
    """quantile ignoring nan (nan only where a slice is all nan)."""
    return _quantile("nanquantile", input, q, dim, keepdim, interpolation, True)


def histogram(input, bins, *, range=None, weight=None, density=False):  # noqa: A002 - torch's name
    """(hist, bin_edges): counts (or summed weights) of input in `bins` equal bins over range
    (input's min and max by default), or in the bins a 1-D increasing tensor of edges gives;
    the last bin includes its right edge, values outside are dropped. density normalises
    hist to integrate to 1."""
    if not input.dtype.is_floating_point:
        raise RuntimeError(f"histogram(): expected a floating-point 'input', but got {input.dtype}")
    if weight is not None and tuple(weight.shape) != tuple(input.shape):
        raise RuntimeError(f"histogram(): expected 'weight' to have the shape of 'input' "
                           f"{list(input.shape)}, but got {list(weight.shape)}")
    x = input.detach().reshape(-1)
    if isinstance(bins, Tensor):
        if bins.dim() != 1 or bins.numel() < 1:
            raise RuntimeError("histogram(): expected 'bins' to be a 1-D tensor of at least one edge")
        if bins.dtype != input.dtype:
            raise RuntimeError(f"histogram(): expected 'bins' to have the dtype of 'input' "
                               f"({input.dtype}), but got {bins.dtype}")
        if bins.numel() > 1 and not builtins.bool((bins[1:] >= bins[:-1]).all()):
            raise RuntimeError("histogram(): expected 'bins' to be increasing")
        edges = bins.detach().contiguous()
    else:
        if not isinstance(bins, int) or isinstance(bins, builtins.bool) or bins <= 0:
            raise RuntimeError(f"histogram(): expected 'bins' to be a positive int, but got {bins!r}")
        if range is not None:
            lo, hi = float(range[0]), float(range[1])
        elif x.numel():
            lo, hi = x.min().item(), x.max().item()
        else:
            lo, hi = 0.0, 1.0
        if lo > hi:
            raise RuntimeError(f"histogram(): expected the range's min ({lo}) to be no larger than "
                               f"its max ({hi})")
        if not (math.isfinite(lo) and math.isfinite(hi)):
            raise RuntimeError(f"histogram(): expected a finite range, but got [{lo}, {hi}]")
        if lo == hi:
            lo, hi = lo - 0.5, hi + 0.5
        edges = ember.linspace(lo, hi, bins + 1, dtype=input.dtype)
    nbins = edges.numel() - 1
    w = ember.ones_like(x) if weight is None else weight.detach().reshape(-1).to(input.dtype)
    hist = ember.zeros(builtins.max(nbins, 0), dtype=input.dtype)
    if nbins > 0 and x.numel():
        index = ember.bucketize(x, edges, right=True) - 1
        index = ember.where(x == edges[-1], ember.full_like(index, nbins - 1), index)
        inside = (x >= edges[0]) & (x <= edges[-1])
        hist.index_add_(0, index[inside], w[inside])
    if density and nbins > 0:
        widths = edges[1:] - edges[:-1]
        hist = hist / (hist.sum() * widths)
    return ember.return_types.histogram((hist, edges))


def renorm(input, p, dim, maxnorm):
    """input with each slice along dim whose p-norm exceeds maxnorm scaled to norm maxnorm."""
    if not p > 0:
        raise RuntimeError(f"renorm(): expected a positive norm order 'p', but got {p}")
    if maxnorm < 0:
        raise RuntimeError(f"renorm(): expected a non-negative 'maxnorm', but got {maxnorm}")
    if input.dim() <= 1:
        raise RuntimeError(f"renorm(): expected 'input' to have at least 2 dimensions, but got "
                           f"{input.dim()}")
    if input.dtype.is_complex or not input.dtype.is_floating_point:
        raise RuntimeError(f"renorm(): expected a real floating-point 'input', but got {input.dtype}")
    d = dim % input.dim()
    others = tuple(i for i in builtins.range(input.dim()) if i != d)
    norm = ember.linalg.vector_norm(input, p, others, keepdim=True)
    factor = ember.where(norm > maxnorm, maxnorm / (norm + 1e-7), ember.ones_like(norm))
    return input * factor


def renorm_(self, p, dim, maxnorm):
    """In-place renorm."""
    return self.copy_(renorm(self, p, dim, maxnorm))


def fill_diagonal_(self, fill_value, wrap=False):
    """Writes fill_value on the main diagonal (all dimensions equal when more than 2); with
    wrap, a tall matrix restarts its diagonal every (columns + 1) rows."""
    if self.dim() < 2:
        raise RuntimeError(f"fill_diagonal_(): expected a tensor of at least 2 dimensions, but got "
                           f"{self.dim()}")
    if self.dim() > 2 and len(set(self.shape)) != 1:
        raise RuntimeError(f"fill_diagonal_(): expected all dimensions of equal length, but got "
                           f"{list(self.shape)}")
    numel = self.numel()
    if self.dim() == 2:
        rows, cols = self.shape
        step = cols + 1
        limit = numel if wrap else builtins.min(rows, cols) * cols
    else:
        n = self.size(0)
        step = sum(n ** k for k in builtins.range(self.dim()))
        limit = numel
    mask = ember.zeros(numel, dtype=ember.bool)
    if numel:
        mask[ember.arange(0, limit, step)] = True
    return self.masked_fill_(mask.view(self.shape), fill_value)


FUNCTIONS = {f.__name__: f for f in (cov, corrcoef, quantile, nanquantile, histogram, renorm)}


def install():
    for name, fn in FUNCTIONS.items():
        if not hasattr(Tensor, name):
            setattr(Tensor, name, fn)
        if not hasattr(ember, name):
            setattr(ember, name, fn)
    for name, fn in (("renorm_", renorm_), ("fill_diagonal_", fill_diagonal_)):
        if not hasattr(Tensor, name):
            setattr(Tensor, name, fn)
