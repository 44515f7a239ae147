"""Spatial sampling and CTC for ember.nn.functional: grid_sample, affine_grid and ctc_loss,
with PyTorch's Python signatures over the grid_sampler_2d and ctc_loss operators.

align_corners=None means False, as in PyTorch, without PyTorch's reminder warning that the
default changed in its version 1.3.
"""
import warnings

import ember as _ember

__all__ = ["grid_sample", "affine_grid", "ctc_loss"]

_MODES = {"bilinear": 0, "nearest": 1, "bicubic": 2}
_PADDINGS = {"zeros": 0, "border": 1, "reflection": 2}
_REDUCTIONS = {"none": 0, "mean": 1, "sum": 2}


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    """input (N, C, H, W) sampled at grid (N, H_out, W_out, 2) of (x, y) in [-1, 1] (-1 the
    left/top edge: the outer edge of the first pixel, or its centre when align_corners)."""
    if mode not in _MODES:
        raise ValueError("nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or "
                         f"'bicubic', but got: '{mode}'")
    if padding_mode not in _PADDINGS:
        raise ValueError("nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', "
                         f"or 'reflection', but got: '{padding_mode}'")
    if input.dim() == 5:
        raise NotImplementedError("nn.functional.grid_sample(): 5-D (volumetric) input is not supported "
                                  "yet; only 4-D input (N, C, H, W)")
    align = False if align_corners is None else bool(align_corners)
    return _ember.grid_sampler_2d(input, grid, _MODES[mode], _PADDINGS[padding_mode], align)


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


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean",
             zero_infinity=False):
    """The connectionist temporal classification loss of log_probs (T, N, C) (or (T, C)) against
    targets, padded (N, S) or concatenated (sum(target_lengths),); "mean" divides each loss by
    its target length (at least 1) before averaging over the batch."""
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return _ember.ctc_loss(log_probs, targets, input_lengths, target_lengths, blank,
                           _REDUCTIONS[reduction], zero_infinity)
