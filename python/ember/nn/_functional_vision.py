"""Vision functions for ember.nn.functional, PyTorch's family of that name: pixel_shuffle,
pad, interpolate, and grid_sample and affine_grid over the grid_sampler_2d operator.

align_corners=None means False, as in PyTorch, without PyTorch's reminder warning that the
default changed in its version 1.3.
"""
import math
import warnings

import ember as _ember
from ember.nn._functional_common import _tuple
from ember.nn._functional_pooling import adaptive_avg_pool_nd

__all__ = ["pixel_shuffle", "pixel_unshuffle", "pad", "interpolate", "upsample", "grid_sample", "affine_grid"]


pixel_shuffle = _ember.pixel_shuffle
pixel_unshuffle = _ember.pixel_unshuffle


def _pad_index(n, before, after, mode):
    """Source positions along one dimension of size n for output positions -before..n+after."""
    j = _ember.arange(-before, n + after)
    if mode == "reflect":
        j = j.abs()
        return _ember.where(j >= n, 2 * (n - 1) - j, j)
    if mode == "replicate":
        return j.clamp(0, n - 1)
    return _ember.remainder(j, n)  # circular


def pad(input, pad, mode="constant", value=None):
    """Pads the last len(pad) // 2 dimensions: pad = (left of the last, right of the last,
    left of the one before, ...); negative amounts crop. Modes: constant (value, default 0),
    reflect, replicate, circular."""
    pad = list(pad)
    if len(pad) % 2 != 0:
        raise ValueError("Padding length must be divisible by 2")
    k = len(pad) // 2
    if k > input.dim():
        raise ValueError("Padding length should be less than or equal to two times the input dimension "
                         f"but got padding length {len(pad)} and input of dimension {input.dim()}")
    if mode == "constant":
        out = input
        for i in range(k):
            dim = input.dim() - 1 - i
            before, after = pad[2 * i], pad[2 * i + 1]
            if before < 0:
                out = out.narrow(dim, -before, out.shape[dim] + before)
                before = 0
            if after < 0:
                out = out.narrow(dim, 0, out.shape[dim] + after)
                after = 0
            if before or after:
                parts = []
                for amount in (before, None, after):
                    if amount is None:
                        parts.append(out)
                    elif amount:
                        shape = list(out.shape)
                        shape[dim] = amount
                        parts.append(_ember.full(shape, 0 if value is None else value, dtype=out.dtype))
                out = _ember.cat(parts, dim)
        return out
    if value is not None and value != 0:
        raise ValueError(f'Padding mode "{mode}" doesn\'t take in value argument.')
    if mode not in ("reflect", "replicate", "circular"):
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    if not 1 <= k <= 3 or input.dim() not in (k + 1, k + 2):
        raise NotImplementedError(f"Only 2D, 3D, 4D, 5D padding with non-constant padding are supported "
                                  f"for now (got a {input.dim()}-d input and {len(pad)} padding values)")
    out = input
    for i in range(k):
        dim = input.dim() - 1 - i
        before, after = pad[2 * i], pad[2 * i + 1]
        n = out.shape[dim]
        if mode == "reflect" and (before >= n or after >= n):
            raise RuntimeError(f"Argument #4: Padding size should be less than the corresponding input "
                               f"dimension, but got: padding ({before}, {after}) at dimension {dim} of "
                               f"input {list(input.shape)}")
        if mode == "circular" and (before > n or after > n):
            raise RuntimeError("Padding value causes wrapping around more than once.")
        if mode == "replicate" and n == 0 and (before > 0 or after > 0):
            raise RuntimeError(f"padding size cannot be applied to an empty dimension {dim}")
        out = out.index_select(dim, _pad_index(n, before, after, mode))
    return out


_INTERP_DIMS = {"linear": 1, "bilinear": 2, "bicubic": 2, "trilinear": 3}


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None, antialias=False):
    """Resamples the spatial dimensions of [N, C, *spatial] to size (or scale_factor times
    them): nearest, nearest-exact, (bi/tri)linear and bicubic, one dimension at a time."""
    if antialias:
        raise NotImplementedError("interpolate(): antialias=True is not supported yet")
    if mode in ("nearest", "nearest-exact", "area"):
        if align_corners is not None:
            raise ValueError("align_corners option can only be set with the interpolating modes: "
                             "linear | bilinear | bicubic | trilinear")
    elif mode in _INTERP_DIMS:
        align_corners = bool(align_corners)
        if input.dim() - 2 != _INTERP_DIMS[mode]:
            raise NotImplementedError(f"Got {input.dim()}D input, but {mode} mode needs "
                                      f"{_INTERP_DIMS[mode] + 2}D input")
    else:
        raise NotImplementedError(f"Input Error: Only 3D, 4D and 5D input Tensors supported (got "
                                  f"{input.dim()}D) for the modes: nearest | linear | bilinear | bicubic "
                                  f"| trilinear | area | nearest-exact (got {mode})")
    nsp = input.dim() - 2
    if nsp < 1:
        raise ValueError(f"interpolate(): expected an input of 3 or more dimensions, but got {input.dim()}")
    if (size is None) == (scale_factor is None):
        raise ValueError("only one of size or scale_factor should be defined")
    in_sizes = list(input.shape[2:])
    if size is not None:
        out_sizes = list(_tuple(size, nsp))
        if len(out_sizes) != nsp:
            raise ValueError(f"Input and output must have the same number of spatial dimensions, but got "
                             f"input with spatial dimensions of {in_sizes} and output size of {out_sizes}.")
        scales = [None] * nsp
    else:
        factors = list(_tuple(scale_factor, nsp))
        out_sizes = [int(math.floor(float(n) * f)) for n, f in zip(in_sizes, factors)]
        scales = [None if recompute_scale_factor else 1.0 / f for f in factors]
    if mode == "area":
        return adaptive_avg_pool_nd(input, out_sizes)
    out = input
    for i in range(nsp):
        dim = 2 + i
        n_in, n_out = in_sizes[i], out_sizes[i]
        scale = scales[i] if scales[i] is not None else (n_in / n_out if n_out else 0.0)
        j = _ember.arange(n_out, dtype=_ember.float64)
        if mode in ("nearest", "nearest-exact"):
            src = (j + 0.5) * scale if mode == "nearest-exact" else j * scale
            idx = src.floor().to(_ember.int64).clamp(max=n_in - 1)
            out = out.index_select(dim, idx)
            continue
        if align_corners:
            src = j * ((n_in - 1) / (n_out - 1)) if n_out > 1 else j * 0.0
        else:
            src = (j + 0.5) * scale - 0.5
            if mode != "bicubic":
                src = src.clamp(min=0.0)
        shape = [1] * out.dim()
        shape[dim] = n_out
        if mode == "bicubic":
            i0 = src.floor()
            t = (src - i0).to(input.dtype)
            i0 = i0.to(_ember.int64)
            a = -0.75
            weights = [((a * (t + 1) - 5 * a) * (t + 1) + 8 * a) * (t + 1) - 4 * a,
                       ((a + 2) * t - (a + 3)) * t * t + 1,
                       ((a + 2) * (1 - t) - (a + 3)) * (1 - t) * (1 - t) + 1,
                       ((a * (2 - t) - 5 * a) * (2 - t) + 8 * a) * (2 - t) - 4 * a]
            acc = None
            for k, w in enumerate(weights):
                term = out.index_select(dim, (i0 + (k - 1)).clamp(0, n_in - 1)) * w.reshape(shape)
                acc = term if acc is None else acc + term
            out = acc
            continue
        i0 = src.floor().to(_ember.int64).clamp(max=n_in - 1)
        i1 = (i0 + 1).clamp(max=n_in - 1)
        l1 = (src - i0.to(_ember.float64)).to(input.dtype).reshape(shape)
        out = out.index_select(dim, i0) * (1 - l1) + out.index_select(dim, i1) * l1
    return out


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    """interpolate (PyTorch's deprecated name)."""
    return interpolate(input, size, scale_factor, mode, align_corners)


_GRID_SAMPLE_MODES = {"bilinear": 0, "nearest": 1, "bicubic": 2}
_GRID_SAMPLE_PADDINGS = {"zeros": 0, "border": 1, "reflection": 2}


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    """input (N, C, H, W) sampled at grid (N, H_out, W_out, 2) of (x, y) in [-1, 1] (-1 the
    left/top edge: the outer edge of the first pixel, or its centre when align_corners)."""
    if mode not in _GRID_SAMPLE_MODES:
        raise ValueError("nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or "
                         f"'bicubic', but got: '{mode}'")
    if padding_mode not in _GRID_SAMPLE_PADDINGS:
        raise ValueError("nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', "
                         f"or 'reflection', but got: '{padding_mode}'")
    if input.dim() == 5:
        raise NotImplementedError("nn.functional.grid_sample(): 5-D (volumetric) input is not supported "
                                  "yet; only 4-D input (N, C, H, W)")
    align = False if align_corners is None else bool(align_corners)
    return _ember.grid_sampler_2d(input, grid, _GRID_SAMPLE_MODES[mode], _GRID_SAMPLE_PADDINGS[padding_mode],
                                  align)


def _linspace_from_neg_one(theta, steps, align_corners):
    """Pixel centres of `steps` pixels in normalized coordinates (PyTorch's affine_grid)."""
    if steps <= 1:
        return _ember.zeros((), dtype=theta.dtype, device=theta.device)
    r = _ember.linspace(-1, 1, steps, dtype=theta.dtype, device=theta.device)
    return r if align_corners else r * (steps - 1) / steps


def affine_grid(theta, size, align_corners=None):
    """The sampling grid (N, H, W, 2) (or (N, D, H, W, 3)) of the affine maps theta (N, 2, 3)
    (or (N, 3, 4)) for an output of `size` (N, C, H, W) (or (N, C, D, H, W))."""
    align = False if align_corners is None else bool(align_corners)
    if not theta.is_floating_point():
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    size = tuple(int(s) for s in size)
    if len(size) == 4:
        if theta.dim() != 3 or theta.shape[-2] != 2 or theta.shape[-1] != 3:
            raise ValueError(f"Expected a batch of 2D affine matrices of shape Nx2x3 for size {size}. "
                             f"Got {tuple(theta.shape)}.")
        spatial = size[-2:]
    elif len(size) == 5:
        if theta.dim() != 3 or theta.shape[-2] != 3 or theta.shape[-1] != 4:
            raise ValueError(f"Expected a batch of 3D affine matrices of shape Nx3x4 for size {size}. "
                             f"Got {tuple(theta.shape)}.")
        spatial = size[-3:]
    else:
        raise NotImplementedError("affine_grid only supports 4D and 5D sizes, for 2D and 3D affine "
                                  f"transforms, respectively. Got size {size}.")
    if align and min(spatial) == 1:
        warnings.warn("Since version 1.3.0, affine_grid behavior has changed for unit-size grids when "
                      "align_corners=True. This is not an intended use case of affine_grid. See the "
                      "documentation of affine_grid for details.", stacklevel=2)
    elif min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    n = size[0]
    # The base grid holds (x, y[, z], 1) per output pixel; each row maps through theta^T.
    axes = [_linspace_from_neg_one(theta, s, align) for s in reversed(spatial)]  # x, y[, z]
    shape = (n,) + spatial
    coords = []
    for i, a in enumerate(axes):
        coords.append(a.reshape((-1,) + (1,) * i if a.dim() else ()).expand(*shape))
    coords.append(_ember.ones(shape, dtype=theta.dtype, device=theta.device))
    base = _ember.stack(coords, -1)
    points = 1
    for s in spatial:
        points *= s
    grid = base.reshape(n, points, len(coords)).bmm(theta.transpose(1, 2))
    return grid.reshape(shape + (len(spatial),))


__all__ += ["channel_shuffle", "native_channel_shuffle", "upsample_nearest", "upsample_bilinear"]


def channel_shuffle(input, groups):
    """The channels (dim 1) of [N, C, *] regrouped: split into groups, then interleaved."""
    if input.dim() < 3:
        raise RuntimeError(f"channel_shuffle expects input to have at least 3 dimensions, but got input with "
                           f"sizes {list(input.shape)}")
    if groups <= 0:
        raise RuntimeError(f"Number of groups to divide channels in must be positive. Value of groups:{groups}")
    c = input.shape[1]
    if c % groups != 0:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {c} channels and {groups} "
                           "groups.")
    shape = tuple(input.shape)
    out = input.reshape(shape[0], groups, c // groups, *shape[2:]).transpose(1, 2)
    return out.reshape(shape)


native_channel_shuffle = channel_shuffle


def upsample_nearest(input, size=None, scale_factor=None):
    """interpolate(mode="nearest"), deprecated in PyTorch."""
    warnings.warn("nn.functional.upsample_nearest is deprecated. Use nn.functional.interpolate instead.",
                  stacklevel=2)
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    """interpolate(mode="bilinear", align_corners=True), deprecated in PyTorch."""
    warnings.warn("nn.functional.upsample_bilinear is deprecated. Use nn.functional.interpolate instead.",
                  stacklevel=2)
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)
