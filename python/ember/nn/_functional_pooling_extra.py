"""More pooling for ember.nn.functional, composed from Ember ops: adaptive max pooling in 3-d and
with indices, fractional max pooling (PyTorch's pseudo-random intervals, then a gather and a max),
max unpooling (a scatter of the pooled values into a zero plane), plus conv_tbc, grouped_mm and
linear_cross_entropy."""
import math
import warnings

import ember as _ember
from ember.nn import _functional_conv, _functional_loss
from ember.nn._functional_common import _ntuple

__all__ = [
    "adaptive_max_pool1d_with_indices", "adaptive_max_pool2d_with_indices", "adaptive_max_pool3d",
    "adaptive_max_pool3d_with_indices", "fractional_max_pool2d", "fractional_max_pool2d_with_indices",
    "fractional_max_pool3d", "fractional_max_pool3d_with_indices", "max_unpool1d", "max_unpool2d",
    "max_unpool3d", "conv_tbc", "grouped_mm", "linear_cross_entropy",
]


# ---- adaptive max pooling -------------------------------------------------------------------


def _adaptive_output(name, input, output_size, n):
    if input.dim() not in (n + 1, n + 2):
        raise RuntimeError(f"{name}(): Expected {n + 1}D or {n + 2}D tensor, but got {list(input.shape)}")
    sizes = _ntuple(output_size, n)
    if len(sizes) != n:
        raise RuntimeError(f"{name}(): output_size must be {n} ints, got {output_size}")
    sizes = [input.shape[input.dim() - n + i] if s is None else int(s) for i, s in enumerate(sizes)]
    for d in range(input.dim() - n, input.dim()):
        if input.shape[d] == 0 and d >= input.dim() - n:
            raise RuntimeError(f"{name}(): Expected input to have non-zero size for non-batch dimensions, "
                               f"but input has sizes {list(input.shape)} with dimension {d} being empty")
    if any(s < 0 for s in sizes):
        raise RuntimeError(f"{name}(): output_size must be non-negative, got {sizes}")
    return sizes


def _adaptive_max_nd(input, sizes):
    """Maxima over PyTorch's adaptive windows [floor(o*i/s), ceil((o+1)*i/s)) of the last n dims, with
    the flat in-plane index of each maximum (the first one, in row-major window order)."""
    n = len(sizes)
    in_sizes = list(input.shape[-n:])
    lead = list(input.shape[:-n])
    if any(s == 0 for s in sizes) or any(s == 0 for s in lead):
        shape = [*lead, *sizes]
        return input.new_empty(shape), _ember.empty(shape, dtype=_ember.int64)
    ranges = [[((o * i) // s, -((-(o + 1) * i) // s)) for o in range(s)] for i, s in zip(in_sizes, sizes)]
    cells = [[]]
    for r in ranges:
        cells = [c + [w] for c in cells for w in r]
    values, indices = [], []
    for cell in cells:
        win = input
        for j, (lo, hi) in enumerate(cell):
            win = win.narrow(input.dim() - n + j, lo, hi - lo)
        v, a = win.reshape(*lead, -1).max(-1)
        # unravel the window position, then ravel it in the whole plane
        flat = None
        rem = a
        widths = [hi - lo for lo, hi in cell]
        coords = []
        for w in reversed(widths):
            coords.append(rem % w)
            rem = rem // w
        coords.reverse()
        for j, (c, (lo, _)) in enumerate(zip(coords, cell)):
            flat = (c + lo) if flat is None else flat * in_sizes[j] + c + lo
        values.append(v)
        indices.append(flat)
    return _ember.stack(values, -1).reshape(*lead, *sizes), _ember.stack(indices, -1).reshape(*lead, *sizes)


def adaptive_max_pool1d_with_indices(input, output_size, return_indices=False):
    """Maxima over PyTorch's adaptive windows of the last dimension, and their indices."""
    return _adaptive_max_nd(input, _adaptive_output("adaptive_max_pool1d", input, output_size, 1))


def adaptive_max_pool2d_with_indices(input, output_size, return_indices=False):
    """Maxima over PyTorch's adaptive windows of the last two dimensions, and their flat indices."""
    return _adaptive_max_nd(input, _adaptive_output("adaptive_max_pool2d", input, output_size, 2))


def adaptive_max_pool3d_with_indices(input, output_size, return_indices=False):
    """Maxima over PyTorch's adaptive windows of the last three dimensions, and their flat indices."""
    return _adaptive_max_nd(input, _adaptive_output("adaptive_max_pool3d", input, output_size, 3))


def adaptive_max_pool3d(input, output_size, return_indices=False):
    """Maxima over PyTorch's adaptive windows of the last three dimensions (and their indices)."""
    out, idx = adaptive_max_pool3d_with_indices(input, output_size)
    return (out, idx) if return_indices else out


# ---- fractional max pooling -----------------------------------------------------------------


def _fractional_starts(samples, in_size, out_size, pool):
    """Window starts of every plane, (N, C, out_size): PyTorch's int((i + u) * a) - int(u * a) for
    i < out_size - 1 with a = (in_size - pool) / (out_size - 1) in the samples' dtype, and the last
    window pinned at in_size - pool."""
    lead = list(samples.shape)
    last = _ember.full([*lead, 1], in_size - pool, dtype=_ember.int64)
    if out_size == 1:
        return last
    alpha = (_ember.tensor(float(in_size - pool), dtype=samples.dtype)
             / _ember.tensor(float(out_size - 1), dtype=samples.dtype))
    i = _ember.arange(out_size - 1, dtype=samples.dtype)
    u = samples.unsqueeze(-1)
    starts = ((i + u) * alpha).to(_ember.int64) - (u * alpha).to(_ember.int64)
    return _ember.cat([starts, last], -1)


def _fractional_max_nd(name, n, input, kernel_size, output_size, output_ratio, _random_samples):
    if input.dim() not in (n + 1, n + 2):
        raise RuntimeError(f"{name}(): Expected {n + 1}D or {n + 2}D tensor, but got {list(input.shape)}")
    if output_size is None and output_ratio is None:
        raise ValueError(f"{name} requires specifying either an output_size or an output_ratio")
    kernel = _ntuple(kernel_size, n)
    in_sizes = list(input.shape[-n:])
    if output_size is None:
        ratio = _ntuple(output_ratio, n)
        output_size = [int(s * r) for s, r in zip(in_sizes, ratio)]
    out_sizes = list(_ntuple(output_size, n))
    for d, (i, o, k) in enumerate(zip(in_sizes, out_sizes, kernel)):
        if o + k - 1 > i:
            raise RuntimeError(f"{name}(): pool size {k} too large relative to input size {i} "
                               f"for output size {o} in dimension {d}")
    batched = input.dim() == n + 2
    x = input if batched else input.unsqueeze(0)
    N, C = x.shape[0], x.shape[1]
    if _random_samples is None:
        _random_samples = _ember.rand(N, C, n, dtype=input.dtype)
    if list(_random_samples.shape) != [N, C, n]:
        raise RuntimeError(f"{name}(): Expected _random_samples of shape {[N, C, n]}, "
                           f"got {list(_random_samples.shape)}")
    # PyTorch pairs sample 0 with the width in 2-d and with the depth in 3-d.
    order = [1, 0] if n == 2 else [0, 1, 2]
    samples = _random_samples.detach().to(input.dtype)
    if N * C == 0 or any(o == 0 for o in out_sizes):
        shape = [N, C, *out_sizes]
        out, idx = x.new_empty(shape), _ember.empty(shape, dtype=_ember.int64)
    else:
        # per plane and output cell, the flat in-plane positions of its window
        strides = [math.prod(in_sizes[j + 1:]) for j in range(n)]
        offsets = [0]
        for j in range(n):
            offsets = [o + t * strides[j] for o in offsets for t in range(kernel[j])]
        base = _ember.zeros([N, C] + [1] * n, dtype=_ember.int64)
        for j in range(n):
            st = _fractional_starts(samples[:, :, order[j]], in_sizes[j], out_sizes[j], kernel[j]) * strides[j]
            base = base + st.reshape([N, C] + [out_sizes[j] if d == j else 1 for d in range(n)])
        index = (base.reshape(N, C, -1, 1) + _ember.tensor(offsets, dtype=_ember.int64)).reshape(N, C, -1)
        kprod = math.prod(kernel)
        window = x.reshape(N, C, -1).gather(2, index).reshape(N, C, -1, kprod)
        out, arg = window.max(-1)
        idx = index.reshape(N, C, -1, kprod).gather(3, arg.unsqueeze(-1)).squeeze(-1)
        out, idx = out.reshape(N, C, *out_sizes), idx.reshape(N, C, *out_sizes)
    if not batched:
        out, idx = out.squeeze(0), idx.squeeze(0)
    return out, idx


def fractional_max_pool2d_with_indices(input, kernel_size, output_size=None, output_ratio=None,
                                       return_indices=False, _random_samples=None):
    """Fractional max pooling over the last two dimensions, and the flat in-plane indices."""
    return _fractional_max_nd("fractional_max_pool2d", 2, input, kernel_size, output_size, output_ratio,
                              _random_samples)


def fractional_max_pool2d(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                          _random_samples=None):
    """Fractional max pooling (Graham, 2014) over the last two dimensions."""
    out, idx = fractional_max_pool2d_with_indices(input, kernel_size, output_size, output_ratio,
                                                  _random_samples=_random_samples)
    return (out, idx) if return_indices else out


def fractional_max_pool3d_with_indices(input, kernel_size, output_size=None, output_ratio=None,
                                       return_indices=False, _random_samples=None):
    """Fractional max pooling over the last three dimensions, and the flat in-plane indices."""
    return _fractional_max_nd("fractional_max_pool3d", 3, input, kernel_size, output_size, output_ratio,
                              _random_samples)


def fractional_max_pool3d(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                          _random_samples=None):
    """Fractional max pooling (Graham, 2014) over the last three dimensions."""
    out, idx = fractional_max_pool3d_with_indices(input, kernel_size, output_size, output_ratio,
                                                  _random_samples=_random_samples)
    return (out, idx) if return_indices else out


# ---- max unpooling --------------------------------------------------------------------------


def _unpool_output_size(input, kernel, stride, padding, output_size, n):
    default = [(input.shape[input.dim() - n + d] - 1) * stride[d] + kernel[d] - 2 * padding[d]
               for d in range(n)]
    if output_size is None:
        return default
    output_size = list(output_size)
    if len(output_size) == n + 2:
        output_size = output_size[2:]
    elif len(output_size) == n + 1 and input.dim() == n + 1:
        output_size = output_size[1:]
    if len(output_size) != n:
        raise ValueError(f"output_size should be a sequence containing {n} or {n + 2} elements, "
                         f"but it has a length of '{len(output_size)}'")
    for d in range(n):
        lo, hi = default[d] - stride[d], default[d] + stride[d]
        if not lo < output_size[d] < hi:
            raise ValueError(f'invalid output_size "{output_size}" (dim {d} must be between {lo} and {hi})')
    return output_size


def _max_unpool(name, n, input, indices, kernel_size, stride, padding, output_size):
    kernel = _ntuple(kernel_size, n)
    stride = kernel if stride is None or (isinstance(stride, (list, tuple)) and not stride) else _ntuple(stride, n)
    padding = _ntuple(padding, n)
    if input.dim() not in (n + 1, n + 2):
        raise RuntimeError(f"{name}(): Expected {n + 1}D or {n + 2}D tensor, but got {list(input.shape)}")
    if indices.dtype != _ember.int64:
        raise RuntimeError(f"{name}(): Expected indices to have dtype int64, but got {indices.dtype}")
    if list(indices.shape) != list(input.shape):
        raise RuntimeError(f"{name}(): Expected shape of indices to be same as that of the input tensor "
                           f"({list(input.shape)}) but got indices tensor with shape: {list(indices.shape)}")
    out_sizes = _unpool_output_size(input, kernel, stride, padding, output_size, n)
    plane = math.prod(out_sizes)
    lead = list(input.shape[:-n])
    flat_idx = indices.reshape(*lead, -1)
    if flat_idx.numel() > 0:
        lo, hi = int(flat_idx.min()), int(flat_idx.max())
        if lo < 0 or hi >= plane:
            bad = lo if lo < 0 else hi
            raise RuntimeError(f"{name}(): Found an invalid max index: {bad} (output volumes are of size "
                               + "x".join(str(s) for s in out_sizes) + ")")
    out = input.new_zeros([*lead, plane])
    out = out.scatter(len(lead), flat_idx, input.reshape(*lead, -1))
    return out.reshape(*lead, *out_sizes)


def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """Partial inverse of max_pool1d: each value goes back to its index, the rest are zeros."""
    return _max_unpool("max_unpool1d", 1, input, indices, kernel_size, stride, padding, output_size)


def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """Partial inverse of max_pool2d: each value goes back to its flat index, the rest are zeros."""
    return _max_unpool("max_unpool2d", 2, input, indices, kernel_size, stride, padding, output_size)


def max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """Partial inverse of max_pool3d: each value goes back to its flat index, the rest are zeros."""
    return _max_unpool("max_unpool3d", 3, input, indices, kernel_size, stride, padding, output_size)


# ---- conv_tbc, grouped_mm, linear_cross_entropy ---------------------------------------------


def conv_tbc(input, weight, bias, pad=0):
    """1-d convolution of time-batch-channel input (T, B, C_in) with weight (K, C_in, C_out)."""
    if input.dim() != 3:
        raise RuntimeError(f"conv_tbc: Input must have 3 dims: time, batch, in_channel, got {input.dim()}")
    if weight.dim() != 3:
        raise RuntimeError(f"conv_tbc: Weight tensor must have 3 dims: kernel_width, in_channels, "
                           f"out_channels, got {weight.dim()}")
    if bias.dim() != 1:
        raise RuntimeError(f"conv_tbc: Bias must be 1-D, got {bias.dim()}")
    if input.shape[2] != weight.shape[1]:
        raise RuntimeError(f"conv_tbc: Input dim 2 (input channels, {input.shape[2]}) is not == dim 1 in the "
                           f"weight tensor ({weight.shape[1]})")
    if weight.shape[2] != bias.shape[0]:
        raise RuntimeError(f"conv_tbc: Bias size ({bias.shape[0]}) must equal the weight's out_channels "
                           f"({weight.shape[2]})")
    out = _functional_conv.conv1d(input.permute(1, 2, 0), weight.permute(2, 1, 0), bias, padding=pad)
    return out.permute(2, 0, 1)


def grouped_mm(mat_a, mat_b, *, offs=None, bias=None, out_dtype=None):
    """Grouped matrix products: 2-d x 3-d splits mat_a's rows at offs, 3-d x 2-d splits mat_b's
    columns, 2-d x 2-d splits the shared dimension (one product per group), 3-d x 3-d is bmm."""
    for name, m in (("mat_a", mat_a), ("mat_b", mat_b)):
        if m.dtype not in (_ember.float32, _ember.bfloat16, _ember.float16):
            raise RuntimeError(f"Expected {name} to be Float32, BFloat16 or Float16 matrix, got {m.dtype}")
        if m.dim() not in (2, 3):
            raise RuntimeError(f"{name} has to be 2 or 3d, got {m.dim()}d")
    if mat_a.dtype != mat_b.dtype:
        raise RuntimeError(f"Expected mat_a and mat_b to have the same dtype, got {mat_a.dtype} and {mat_b.dtype}")
    if bias is not None:
        raise RuntimeError("Bias not supported yet")
    if out_dtype is not None and out_dtype != mat_a.dtype:
        raise RuntimeError(f"grouped_mm: out_dtype must be the inputs' dtype {mat_a.dtype}, got {out_dtype}")
    a_is_2d, b_is_2d = mat_a.dim() == 2, mat_b.dim() == 2
    if (a_is_2d or b_is_2d) != (offs is not None):
        raise RuntimeError("Have to provide offsets if there is a 2d matrix, and no offsets for 3d x 3d")
    if offs is not None:
        if offs.dtype != _ember.int32:
            raise RuntimeError("Offsets have to be int32")
        if offs.dim() != 1:
            raise RuntimeError(f"Offsets have to be 1D, got {offs.dim()}d")
    if mat_a.shape[-1] != mat_b.shape[-2]:
        raise RuntimeError(f"contraction dimension of mat_a and mat_b must match, got {mat_a.shape[-1]} "
                           f"and {mat_b.shape[-2]}")
    if not a_is_2d and not b_is_2d:
        if mat_a.shape[0] != mat_b.shape[0]:
            raise RuntimeError("batch dimension has to match")
        return _ember.bmm(mat_a, mat_b)
    ends = [int(e) for e in offs.tolist()]
    groups = len(ends)
    if not a_is_2d and mat_a.shape[0] != groups or not b_is_2d and mat_b.shape[0] != groups:
        raise RuntimeError(f"matrix batch sizes have to match the number of offsets ({groups})")
    limit = mat_a.shape[0] if a_is_2d and not b_is_2d else (mat_b.shape[1] if not a_is_2d else mat_a.shape[1])
    starts = [0] + ends[:-1]
    if any(e < s for s, e in zip(starts, ends)) or (ends and ends[-1] > limit):
        raise RuntimeError(f"grouped_mm: offsets must be non-decreasing and at most {limit}, got {ends}")
    if a_is_2d and b_is_2d:
        parts = [mat_a[:, s:e] @ mat_b[s:e] for s, e in zip(starts, ends)]
        return _ember.stack(parts) if parts else mat_a.new_empty((0, mat_a.shape[0], mat_b.shape[1]))
    if a_is_2d:
        parts = [mat_a[s:e] @ mat_b[g] for g, (s, e) in enumerate(zip(starts, ends))]
        tail = mat_a.shape[0] - (ends[-1] if ends else 0)
        parts.append(mat_a.new_zeros((tail, mat_b.shape[2])))
        return _ember.cat(parts, 0)
    parts = [mat_a[g] @ mat_b[:, s:e] for g, (s, e) in enumerate(zip(starts, ends))]
    tail = mat_b.shape[1] - (ends[-1] if ends else 0)
    parts.append(mat_a.new_zeros((mat_a.shape[1], tail)))
    return _ember.cat(parts, 1)


def linear_cross_entropy(input, linear_weight, target, *, linear_bias=None, weight=None, reduction="mean",
                         ignore_index=None, label_smoothing=0.0, options=None):
    """cross_entropy(linear(input, linear_weight, linear_bias), target); with options, the batch is
    processed in chunks of options.batch_chunk_size rows (the same values, smaller logits)."""
    if linear_weight.dim() < 2:
        raise RuntimeError(f"linear_cross_entropy: expected linear_weight to have at least 2 dims, "
                           f"got {linear_weight.dim()}")
    if linear_weight.dim() > 2 and input.dim() != 2:
        raise RuntimeError("linear_cross_entropy: multi-dimensional linear_weight requires batched input "
                           f"(N, in_features), got input of shape {list(input.shape)}")
    if input.shape[-1] != linear_weight.shape[-1]:
        raise RuntimeError(f"linear_cross_entropy: input's last dimension ({input.shape[-1]}) must equal "
                           f"linear_weight's last dimension ({linear_weight.shape[-1]})")
    if ignore_index is None:
        ignore_index = -100
    extra = list(linear_weight.shape[1:-1])
    C = linear_weight.shape[0]

    def logits_of(x):
        w2 = linear_weight.reshape(-1, linear_weight.shape[-1])
        b2 = None if linear_bias is None else linear_bias.reshape(-1)
        logits = _ember.nn.functional.linear(x, w2, b2)
        if extra:
            logits = logits.reshape(x.shape[0], C, *extra)
        return logits

    def loss_of(x, t, red):
        return _functional_loss.cross_entropy(logits_of(x), t, weight=weight, ignore_index=ignore_index,
                                              reduction=red, label_smoothing=label_smoothing)

    chunk = getattr(options, "batch_chunk_size", None) if options is not None else None
    if options is not None and extra and linear_bias is not None:
        warnings.warn("linear_cross_entropy: K-dimensional linear_bias is not supported by the chunked path; "
                      "falling back to the reference implementation", stacklevel=2)
        chunk = None
    if chunk is None or input.dim() != 2 or input.shape[0] <= chunk:
        return loss_of(input, target, reduction)
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    pieces, totals = [], []
    for s in range(0, input.shape[0], chunk):
        x, t = input[s:s + chunk], target[s:s + chunk]
        pieces.append(loss_of(x, t, "none" if reduction == "none" else "sum"))
    if reduction == "none":
        return _ember.cat(pieces, 0)
    total = pieces[0]
    for p in pieces[1:]:
        total = total + p
    if reduction == "sum":
        return total
    # the mean's divisor: the target count (class indices: weighted, ignored ones excluded)
    if target.dtype.is_floating_point:
        return total / (target.numel() // C)
    valid = target != ignore_index
    if weight is None:
        return total / valid.sum()
    w = weight[target.clamp(0, C - 1)] * valid
    del totals
    return total / w.sum()
