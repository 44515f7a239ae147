"""Convolutions for ember.nn.functional: conv1d-3d, conv_transpose1d-3d, and unfold and fold
(im2col and col2im)."""
import ember as _ember
from ember.nn._functional_common import _ntuple, _tuple
from ember.nn._functional_vision import pad

__all__ = [
    "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d", "unfold",
    "fold",
]


def _conv_input(name, input, n):
    """input batched (N, C, *n spatial) and whether it was unbatched."""
    if input.dim() == n + 1:
        return input.unsqueeze(0), True
    if input.dim() != n + 2:
        raise RuntimeError(f"Expected {n + 1}D (unbatched) or {n + 2}D (batched) input to {name}, but got "
                           f"input of size: {list(input.shape)}")
    return input, False


def _conv(name, n, input, weight, bias, stride, padding, dilation, groups):
    x, unbatched = _conv_input(name, input, n)
    stride, dilation = _ntuple(stride, n), _ntuple(dilation, n)
    if isinstance(padding, str):
        if padding == "valid":
            padding = (0,) * n
        elif padding == "same":
            if any(s != 1 for s in stride):
                raise RuntimeError(f"{name}: padding='same' is not supported for strided convolutions")
            k = weight.shape[2:]
            total = [d * (kk - 1) for d, kk in zip(dilation, k)]
            padding = tuple(t // 2 for t in total)
            extra = [t % 2 for t in total]
            if any(extra):
                # The odd pixel of padding goes after the input, as in PyTorch.
                pads = []
                for e in reversed(extra):
                    pads += [0, e]
                x = pad(x, pads)
        else:
            raise ValueError(f"Invalid padding string '{padding}', should be one of ('valid', 'same')")
    out = _ember.convolution(x, weight, bias, stride, _ntuple(padding, n), dilation, False, (0,) * n, groups)
    return out.squeeze(0) if unbatched else out


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """1-d convolution of input (N, C, L) or (C, L) with weight (O, C/groups, k)."""
    return _conv("conv1d", 1, input, weight, bias, stride, padding, dilation, groups)


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """2-d convolution of input (N, C, H, W) or (C, H, W) with weight (O, C/groups, kh, kw)."""
    return _conv("conv2d", 2, input, weight, bias, stride, padding, dilation, groups)


def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """3-d convolution of input (N, C, D, H, W) or (C, D, H, W)."""
    return _conv("conv3d", 3, input, weight, bias, stride, padding, dilation, groups)


def _conv_transpose(name, n, input, weight, bias, stride, padding, output_padding, groups, dilation):
    x, unbatched = _conv_input(name, input, n)
    out = _ember.convolution(x, weight, bias, _ntuple(stride, n), _ntuple(padding, n), _ntuple(dilation, n),
                             True, _ntuple(output_padding, n), groups)
    return out.squeeze(0) if unbatched else out


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    """1-d transposed convolution with weight (C, O/groups, k)."""
    return _conv_transpose("conv_transpose1d", 1, input, weight, bias, stride, padding, output_padding, groups,
                           dilation)


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    """2-d transposed convolution with weight (C, O/groups, kh, kw)."""
    return _conv_transpose("conv_transpose2d", 2, input, weight, bias, stride, padding, output_padding, groups,
                           dilation)


def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    """3-d transposed convolution with weight (C, O/groups, kd, kh, kw)."""
    return _conv_transpose("conv_transpose3d", 3, input, weight, bias, stride, padding, output_padding, groups,
                           dilation)


def _im2col_positions(out_hw, kernel, dilation, stride, padded_w):
    """Flat positions in the padded [Hp * Wp] plane of each (kernel offset, output pixel)."""
    (oh, ow), (kh, kw), (dh, dw), (sh, sw) = out_hw, kernel, dilation, stride
    ki = _ember.arange(kh).reshape(kh, 1, 1, 1)
    kj = _ember.arange(kw).reshape(1, kw, 1, 1)
    y = _ember.arange(oh).reshape(1, 1, oh, 1)
    x = _ember.arange(ow).reshape(1, 1, 1, ow)
    return ((y * sh + ki * dh) * padded_w + (x * sw + kj * dw)).reshape(-1)


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """im2col: the sliding [C, kh, kw] blocks of [N, C, H, W] as columns [N, C*kh*kw, L]."""
    if input.dim() not in (3, 4):
        raise NotImplementedError(f"Input Error: Only 3D or 4D input Tensors are supported (got {input.dim()}D)")
    unbatched = input.dim() == 3
    x = input.unsqueeze(0) if unbatched else input
    k, d, p, s = (_tuple(v, 2) for v in (kernel_size, dilation, padding, stride))
    n, c, h, w = x.shape
    oh = (h + 2 * p[0] - d[0] * (k[0] - 1) - 1) // s[0] + 1
    ow = (w + 2 * p[1] - d[1] * (k[1] - 1) - 1) // s[1] + 1
    if oh <= 0 or ow <= 0:
        raise RuntimeError(f"Given input with spatial size ({h}, {w}), kernel_size={k}, dilation={d}, "
                           f"padding={p}, calculated shape of the array of sliding blocks as ({oh}, {ow}), "
                           "but its components must be at least one.")
    xp = pad(x, (p[1], p[1], p[0], p[0])) if any(p) else x
    pos = _im2col_positions((oh, ow), k, d, s, w + 2 * p[1])
    cols = xp.reshape(n, c, -1).index_select(2, pos).reshape(n, c * k[0] * k[1], oh * ow)
    return cols.squeeze(0) if unbatched else cols


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """col2im: sums columns [N, C*kh*kw, L] back into [N, C, H, W] (unfold's adjoint)."""
    if input.dim() not in (2, 3):
        raise NotImplementedError(f"Input Error: Only unbatched (2D) or batched (3D) input Tensors are "
                                  f"supported (got {input.dim()}D)")
    unbatched = input.dim() == 2
    cols = input.unsqueeze(0) if unbatched else input
    (h, w), k, d, p, s = (_tuple(v, 2) for v in (output_size, kernel_size, dilation, padding, stride))
    n, ckk, length = cols.shape
    if ckk % (k[0] * k[1]) != 0:
        raise RuntimeError(f"Expected size of input's dimension 1 to be divisible by the product of "
                           f"kernel_size, but got input.size(1)={ckk} and kernel_size={k}")
    oh = (h + 2 * p[0] - d[0] * (k[0] - 1) - 1) // s[0] + 1
    ow = (w + 2 * p[1] - d[1] * (k[1] - 1) - 1) // s[1] + 1
    if oh * ow != length:
        raise RuntimeError(f"Given output_size={(h, w)}, kernel_size={k}, dilation={d}, padding={p}, "
                           f"stride={s}, expected size of input's dimension 2 to match the calculated "
                           f"number of sliding blocks {oh} * {ow} = {oh * ow}, but got input.size(2)={length}.")
    c = ckk // (k[0] * k[1])
    hp, wp = h + 2 * p[0], w + 2 * p[1]
    pos = _im2col_positions((oh, ow), k, d, s, wp)
    plane = _ember.zeros((n, c, hp * wp), dtype=cols.dtype).index_add(2, pos, cols.reshape(n, c, -1))
    out = plane.reshape(n, c, hp, wp)[:, :, p[0]:p[0] + h, p[1]:p[1] + w]
    return out.squeeze(0) if unbatched else out
