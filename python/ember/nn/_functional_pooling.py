"""Pooling for ember.nn.functional: max and average pooling over sliding windows, and their
adaptive forms over PyTorch's adaptive windows."""
import math

import ember as _ember
from ember._C import _nn
from ember.nn._functional_common import _ntuple

__all__ = [
    "max_pool2d", "max_pool3d", "max_pool1d", "max_pool1d_with_indices", "max_pool2d_with_indices",
    "max_pool3d_with_indices", "avg_pool2d", "avg_pool3d", "avg_pool1d", "adaptive_avg_pool1d",
    "adaptive_avg_pool2d", "adaptive_avg_pool3d", "adaptive_max_pool1d", "adaptive_max_pool2d",
    "adaptive_avg_pool_nd",
]


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """Maxima of the sliding windows over the last two dimensions (and their indices)."""
    out, idx = _nn.max_pool2d_with_indices(input, kernel_size, [] if stride is None else stride, padding,
                                           dilation, ceil_mode)
    return (out, idx) if return_indices else out


def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """Maxima of the sliding windows over the last three dimensions (and their indices)."""
    out, idx = _nn.max_pool3d_with_indices(input, kernel_size, [] if stride is None else stride, padding,
                                           dilation, ceil_mode)
    return (out, idx) if return_indices else out


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """Maxima of the sliding windows over the last dimension (a 2-d pool of height 1)."""
    if input.dim() not in (2, 3):
        raise RuntimeError(f"max_pool1d() Expected 2D or 3D input tensor, but got {list(input.shape)}")
    (k,), (p,), (d,) = _ntuple(kernel_size, 1), _ntuple(padding, 1), _ntuple(dilation, 1)
    s = k if stride is None or (isinstance(stride, (list, tuple)) and not stride) else _ntuple(stride, 1)[0]
    out, idx = _nn.max_pool2d_with_indices(input.unsqueeze(-2), (1, k), (1, s), (0, p), (1, d), ceil_mode)
    out, idx = out.squeeze(-2), idx.squeeze(-2)
    return (out, idx) if return_indices else out


max_pool1d_with_indices = lambda *a, **k: max_pool1d(*a, **{**k, "return_indices": True})  # noqa: E731
max_pool2d_with_indices = lambda *a, **k: max_pool2d(*a, **{**k, "return_indices": True})  # noqa: E731
max_pool3d_with_indices = lambda *a, **k: max_pool3d(*a, **{**k, "return_indices": True})  # noqa: E731


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    """Means of the sliding windows over the last two dimensions."""
    return _nn.avg_pool2d(input, kernel_size, [] if stride is None else stride, padding, ceil_mode,
                          count_include_pad, divisor_override)


def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    """Means of the sliding windows over the last three dimensions."""
    return _nn.avg_pool3d(input, kernel_size, [] if stride is None else stride, padding, ceil_mode,
                          count_include_pad, divisor_override)


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
    """Means of the sliding windows over the last dimension (a 2-d pool of height 1)."""
    if input.dim() not in (2, 3):
        raise RuntimeError(f"avg_pool1d() Expected 2D or 3D input tensor, but got {list(input.shape)}")
    (k,), (p,) = _ntuple(kernel_size, 1), _ntuple(padding, 1)
    s = k if stride is None or (isinstance(stride, (list, tuple)) and not stride) else _ntuple(stride, 1)[0]
    return _nn.avg_pool2d(input.unsqueeze(-2), (1, k), (1, s), (0, p), ceil_mode, count_include_pad,
                          None).squeeze(-2)


def _adaptive_sizes(input, output_size, n):
    sizes = _ntuple(output_size, n)
    return [input.shape[input.dim() - n + i] if s is None else s for i, s in enumerate(sizes)]


def _adaptive_check(name, input, n):
    if input.dim() not in (n + 1, n + 2):
        raise RuntimeError(f"{name}(): Expected {n + 1}D or {n + 2}D tensor, but got {list(input.shape)}")


def adaptive_avg_pool1d(input, output_size):
    """Means over PyTorch's adaptive windows of the last dimension."""
    _adaptive_check("adaptive_avg_pool1d", input, 1)
    return adaptive_avg_pool_nd(input.unsqueeze(0) if input.dim() == 2 else input,
                                _adaptive_sizes(input, output_size, 1)).reshape(
        *input.shape[:-1], _adaptive_sizes(input, output_size, 1)[0])


def adaptive_avg_pool2d(input, output_size):
    """Means over PyTorch's adaptive windows of the last two dimensions."""
    _adaptive_check("adaptive_avg_pool2d", input, 2)
    x = input.unsqueeze(0) if input.dim() == 3 else input
    out = adaptive_avg_pool_nd(x, _adaptive_sizes(input, output_size, 2))
    return out.squeeze(0) if input.dim() == 3 else out


def adaptive_avg_pool3d(input, output_size):
    """Means over PyTorch's adaptive windows of the last three dimensions."""
    _adaptive_check("adaptive_avg_pool3d", input, 3)
    x = input.unsqueeze(0) if input.dim() == 4 else input
    out = adaptive_avg_pool_nd(x, _adaptive_sizes(input, output_size, 3))
    return out.squeeze(0) if input.dim() == 4 else out


def _adaptive_max(input, sizes, return_indices):
    """Maxima over adaptive windows of the last len(sizes) dims (1 or 2), with plane offsets."""
    n = len(sizes)
    in_sizes = list(input.shape[-n:])
    lead = list(input.shape[:-n])
    values, indices = [], []
    ranges = [[((o * i) // s, math.ceil((o + 1) * i / s)) for o in range(s)] for i, s in zip(in_sizes, sizes)]
    cells = [(a,) for a in ranges[0]] if n == 1 else [(a, b) for a in ranges[0] for b in ranges[1]]
    for cell in cells:
        win = input
        for j, (lo, hi) in enumerate(cell):
            win = win.narrow(input.dim() - n + j, lo, hi - lo)
        width = cell[-1][1] - cell[-1][0]
        v, a = win.reshape(*lead, -1).max(-1)
        values.append(v)
        if n == 1:
            indices.append(a + cell[0][0])
        else:
            indices.append((cell[0][0] + a // width) * in_sizes[1] + cell[1][0] + a % width)
    out = _ember.stack(values, -1).reshape(*lead, *sizes)
    idx = _ember.stack(indices, -1).reshape(*lead, *sizes)
    return (out, idx) if return_indices else out


def adaptive_max_pool1d(input, output_size, return_indices=False):
    """Maxima over PyTorch's adaptive windows of the last dimension."""
    _adaptive_check("adaptive_max_pool1d", input, 1)
    return _adaptive_max(input, _adaptive_sizes(input, output_size, 1), return_indices)


def adaptive_max_pool2d(input, output_size, return_indices=False):
    """Maxima over PyTorch's adaptive windows of the last two dimensions."""
    _adaptive_check("adaptive_max_pool2d", input, 2)
    return _adaptive_max(input, _adaptive_sizes(input, output_size, 2), return_indices)


def adaptive_avg_pool_nd(input, out_sizes):
    """Average over PyTorch's adaptive windows [floor(i*n/o), ceil((i+1)*n/o)) per spatial dim."""
    out = input
    for i, o in enumerate(out_sizes):
        dim = 2 + i
        n = out.shape[dim]
        rows = []
        for k in range(o):
            start, end = (k * n) // o, math.ceil((k + 1) * n / o)
            rows.append(out.narrow(dim, start, end - start).mean(dim, keepdim=True))
        out = _ember.cat(rows, dim)
    return out


__all__ += ["lp_pool1d", "lp_pool2d", "lp_pool3d"]


def _lp_pool(name, pool, input, norm_type, kernel_size, stride, ceil_mode, n):
    kernel = _ntuple(kernel_size, n)
    if len(kernel) != n:
        raise ValueError(f"{name}: kernel_size must be an int or a {n}-tuple, got {kernel_size}")
    if stride is not None:
        out = pool(input.pow(norm_type), kernel, stride, 0, ceil_mode)
    else:
        out = pool(input.pow(norm_type), kernel, padding=0, ceil_mode=ceil_mode)
    size = 1
    for k in kernel:
        size *= k
    return (out.sign() * out.abs().relu()).mul(size).pow(1.0 / norm_type)


def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """(sum over each window of x^p)^(1/p), over the last dimension."""
    return _lp_pool("lp_pool1d", avg_pool1d, input, norm_type, kernel_size, stride, ceil_mode, 1)


def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """(sum over each window of x^p)^(1/p), over the last two dimensions."""
    return _lp_pool("lp_pool2d", avg_pool2d, input, norm_type, kernel_size, stride, ceil_mode, 2)


def lp_pool3d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """(sum over each window of x^p)^(1/p), over the last three dimensions."""
    return _lp_pool("lp_pool3d", avg_pool3d, input, norm_type, kernel_size, stride, ceil_mode, 3)
