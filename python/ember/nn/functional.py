"""ember.nn.functional: the operators the YAML marks `python_module: nn`, plus thin wrappers
with PyTorch's Python-level signatures (`F.relu(input, inplace=False)`) over them."""
import ember as _ember
from ember import _C as _C

for _name in dir(_C._nn):
    if not _name.startswith("__"):
        globals()[_name] = getattr(_C._nn, _name)
del _name

_nn = _C._nn

from ember.nn._functional_sampling import affine_grid, ctc_loss, grid_sample  # noqa: E402,F401
from ember.nn._functional_attention import multi_head_attention_forward, scaled_dot_product_attention  # noqa: E402,F401


def relu(input, inplace=False):
    """max(x, 0) of each element (in place when inplace)."""
    return _ember.relu_(input) if inplace else _ember.relu(input)


relu_ = _ember.relu_


def relu6(input, inplace=False):
    """min(max(x, 0), 6) of each element (in place when inplace)."""
    return _nn.relu6_(input) if inplace else _nn.relu6(input)


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    """Each element clamped to [min_val, max_val] (in place when inplace)."""
    return _nn.hardtanh_(input, min_val, max_val) if inplace else _nn.hardtanh(input, min_val, max_val)


def elu(input, alpha=1.0, inplace=False):
    """x for x > 0, else alpha * (exp(x) - 1), of each element (in place when inplace)."""
    return _nn.elu_(input, alpha) if inplace else _nn.elu(input, alpha)


def selu(input, inplace=False):
    """elu with SELU's fixed alpha and scale (in place when inplace)."""
    return _ember.selu_(input) if inplace else _ember.selu(input)


def celu(input, alpha=1.0, inplace=False):
    """max(0, x) + min(0, alpha * (exp(x / alpha) - 1)) of each element (in place when inplace)."""
    return _ember.celu_(input, alpha) if inplace else _ember.celu(input, alpha)


def leaky_relu(input, negative_slope=0.01, inplace=False):
    """x for x > 0, else negative_slope * x, of each element (in place when inplace)."""
    if inplace:
        return _nn.leaky_relu_(input, negative_slope)
    return _nn.leaky_relu(input, negative_slope)


def silu(input, inplace=False):
    """x * sigmoid(x) of each element (in place when inplace)."""
    return _nn.silu_(input) if inplace else _nn.silu(input)


def mish(input, inplace=False):
    """x * tanh(softplus(x)) of each element (in place when inplace)."""
    return _nn.mish_(input) if inplace else _nn.mish(input)


def hardswish(input, inplace=False):
    """x * min(max(x + 3, 0), 6) / 6 of each element (in place when inplace)."""
    return _nn.hardswish_(input) if inplace else _nn.hardswish(input)


def hardsigmoid(input, inplace=False):
    """min(max(x + 3, 0), 6) / 6 of each element (in place when inplace)."""
    return _nn.hardsigmoid_(input) if inplace else _nn.hardsigmoid(input)


def sigmoid(input):
    """1 / (1 + exp(-x)) of each element."""
    return input.sigmoid()


def tanh(input):
    """tanh of each element."""
    return input.tanh()


def _check_floating(name, input):
    """The dtype check of the activations PyTorch defines only for real floating types."""
    if not input.is_floating_point():
        dtype = str(input.dtype).rsplit(".", 1)[-1]
        raise _ember.errors.TypeError(f"{name}(): not implemented for '{dtype}'")


def logsigmoid(input):
    """log(1 / (1 + exp(-x))) of each element, computed without overflow."""
    _check_floating("logsigmoid", input)
    # min(x, 0) - log1p(exp(-|x|)); minimum's half gradient at x == 0 gives sigmoid(0) there.
    return input.minimum(input.new_zeros(())) - (-input.abs()).exp().log1p()


def softsign(input):
    """x / (1 + |x|) of each element."""
    return input / (input.abs() + 1)


def tanhshrink(input):
    """x - tanh(x) of each element."""
    return input - input.tanh()


def hardshrink(input, lambd=0.5):
    """x where |x| > lambd, else 0, of each element."""
    _check_floating("hardshrink", input)
    return input.masked_fill(input.abs() <= lambd, 0)


_FLOAT_MAX = {"float32": 3.4028234663852886e38, "float64": 1.7976931348623157e308, "float16": 65504.0,
              "bfloat16": 3.3895313892515355e38}


def softshrink(input, lambd=0.5):
    """x - lambd where x > lambd, x + lambd where x < -lambd, else 0, of each element."""
    _check_floating("softshrink", input)
    dtype = str(input.dtype).rsplit(".", 1)[-1]
    high = _FLOAT_MAX.get(dtype, float("inf"))
    if not 0 <= lambd <= high:
        raise RuntimeError(f"lambda must be in range [0, {high:g}] for input dtype {dtype}, but found {lambd:g}")
    return input - input.clamp(-lambd, lambd)


def threshold(input, threshold, value, inplace=False):
    """x where x > threshold, else value, of each element (in place when inplace)."""
    if input.is_complex() or input.dtype == _ember.bool:
        dtype = str(input.dtype).rsplit(".", 1)[-1]
        raise _ember.errors.TypeError(f"threshold(): not implemented for '{dtype}'")
    if not input.is_floating_point():
        threshold = int(threshold)  # PyTorch compares in the input's integer type
    mask = input <= threshold
    return input.masked_fill_(mask, value) if inplace else input.masked_fill(mask, value)


_threshold = threshold


def threshold_(input, threshold, value):
    """threshold, in place."""
    return _threshold(input, threshold, value, inplace=True)


def glu(input, dim=-1):
    """a * sigmoid(b), with a and b the two halves of input along dim."""
    ndim = input.dim()
    if ndim == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    if not -ndim <= dim < ndim:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-ndim}, {ndim - 1}], but got {dim})")
    dim %= ndim
    size = input.size(dim)
    if size % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {dim} is size {size}")
    _check_floating("glu", input)
    half = size // 2
    return input.narrow(dim, 0, half) * input.narrow(dim, half, half).sigmoid()


def prelu(input, weight):
    """x where x > 0, else weight * x, with one weight for all or one per channel (dim 1)."""
    if not isinstance(weight, _ember.Tensor):
        raise TypeError(f"prelu(): argument 'weight' (position 2) must be Tensor, not {type(weight).__name__}")
    if input.dtype != weight.dtype:
        raise RuntimeError(f"prelu: Type promoting not supported. Got {str(input.dtype).rsplit('.', 1)[-1]} "
                           f"and {str(weight.dtype).rsplit('.', 1)[-1]}")
    ndim = input.dim()
    if weight.numel() != 1:
        if ndim == 0:
            raise RuntimeError("Not allow zero-dim input tensor.")
        channels = input.size(1) if ndim > 1 else 1
        if channels != weight.numel():
            raise RuntimeError(f"Mismatch of parameter numbers and input channel size. Found parameter numbers = "
                               f"{weight.numel()} and channel size = {channels}.")
    if weight.dim() > 1:
        raise RuntimeError(f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = {weight.dim()}")
    _check_floating("prelu", input)
    if ndim != weight.dim():
        shape = [1] * ndim
        if ndim > 1:
            shape[1] = weight.numel()
        weight = weight.reshape(shape)
    return _ember.where(input > 0, input, weight * input)


# ---- softmax ---------------------------------------------------------------------------

def _softmax_dim(ndim):
    """PyTorch's implicit softmax dim (deprecated there): 0 for 0-, 1- and 3-d inputs, else 1."""
    import warnings
    warnings.warn("Implicit dimension choice for softmax has been deprecated. Change the call to "
                  "include dim=X as an argument.", stacklevel=3)
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    """exp(x) / sum(exp(x)) along dim (computed in dtype when given)."""
    if dim is None:
        dim = _softmax_dim(input.dim())
    return _ember.softmax(input, dim, dtype=dtype)


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    """softmax(-x) along dim."""
    if dim is None:
        dim = _softmax_dim(input.dim())
    return _ember.softmax(-input if dtype is None else -input.to(dtype), dim)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    """log(softmax(x)) along dim, computed without overflow."""
    if dim is None:
        dim = _softmax_dim(input.dim())
    return _ember.log_softmax(input, dim, dtype=dtype)


# ---- losses ------------------------------------------------------------------------------

_REDUCTIONS = {"none": 0, "mean": 1, "sum": 2}


def _reduction(reduction, size_average=None, reduce=None):
    """PyTorch's reduction enum from the string (or the deprecated size_average/reduce pair)."""
    if size_average is not None or reduce is not None:
        size_average = True if size_average is None else size_average
        reduce = True if reduce is None else reduce
        reduction = "none" if not reduce else ("mean" if size_average else "sum")
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return _REDUCTIONS[reduction]


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
             reduction="mean"):
    """The negative log-likelihood of log-probabilities input [N, C, ...] at classes target."""
    return _nn.nll_loss(input, target, weight, _reduction(reduction, size_average, reduce), ignore_index)


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
                  reduction="mean", label_smoothing=0.0):
    """Cross entropy of logits input against class indices or class probabilities target."""
    return _nn.cross_entropy_loss(input, target, weight, _reduction(reduction, size_average, reduce),
                                  ignore_index, label_smoothing)


def _check_target_size(name, input, target):
    if tuple(target.shape) != tuple(input.shape):
        import warnings
        warnings.warn(f"Using a target size ({target.shape}) that is different to the input size "
                      f"({input.shape}). This will likely lead to incorrect results due to "
                      "broadcasting. Please ensure they have the same size.", stacklevel=3)


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """Mean squared error (or sum, or elementwise)."""
    _check_target_size("mse_loss", input, target)
    if weight is not None:
        return _weighted(_nn.mse_loss(input, target, 0), input, weight, _reduction(reduction, size_average, reduce))
    return _nn.mse_loss(input, target, _reduction(reduction, size_average, reduce))


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """Mean absolute error (or sum, or elementwise)."""
    _check_target_size("l1_loss", input, target)
    if weight is not None:
        return _weighted(_nn.l1_loss(input, target, 0), input, weight, _reduction(reduction, size_average, reduce))
    return _nn.l1_loss(input, target, _reduction(reduction, size_average, reduce))


def _weighted(loss, input, weight, reduction, by_weight=True):
    """PyTorch's weighted form: each element's loss times weight (input's shape); the mean
    divides the weighted sum by the sum of the weights (by_weight; huber_loss: by the count)."""
    if tuple(weight.shape) != tuple(input.shape):
        raise ValueError("Weights and input must have the same size.")
    loss = loss * weight
    if reduction == 0:
        return loss
    if reduction == 2:
        return loss.sum()
    return loss.sum() / weight.sum() if by_weight else loss.mean()


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    """Quadratic below beta, linear above."""
    _check_target_size("smooth_l1_loss", input, target)
    return _nn.smooth_l1_loss(input, target, _reduction(reduction, size_average, reduce), beta)


def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    """Quadratic below delta, delta-scaled linear above."""
    _check_target_size("huber_loss", input, target)
    if weight is not None:
        return _weighted(_nn.huber_loss(input, target, 0, delta), input, weight, _reduction(reduction), False)
    return _nn.huber_loss(input, target, _reduction(reduction), delta)


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    """Binary cross entropy of probabilities input against target."""
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(f"Using a target size ({target.shape}) that is different to the input size "
                         f"({input.shape}) is deprecated. Please ensure they have the same size.")
    return _nn.binary_cross_entropy(input, target, weight, _reduction(reduction, size_average, reduce))


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None,
                                     reduction="mean", pos_weight=None):
    """Binary cross entropy of logits input against target, computed stably."""
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(f"Target size ({target.shape}) must be the same as input size ({input.shape})")
    return _ember.binary_cross_entropy_with_logits(input, target, weight, pos_weight,
                                                    _reduction(reduction, size_average, reduce))


def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    """Pointwise KL divergence of target from log-probabilities input ('batchmean' divides the
    sum by the batch size)."""
    if reduction == "batchmean":
        loss = _ember.kl_div(input, target, 2, log_target=log_target)
        return loss / input.shape[0] if input.dim() != 0 else loss
    return _ember.kl_div(input, target, _reduction(reduction, size_average, reduce), log_target=log_target)


def margin_ranking_loss(input1, input2, target, margin=0.0, size_average=None, reduce=None,
                        reduction="mean"):
    """max(0, -target * (input1 - input2) + margin)."""
    if input1.dim() != input2.dim() or input1.dim() != target.dim():
        raise RuntimeError(f"margin_ranking_loss : All input tensors should have same dimension but got "
                           f"sizes: input1: {input1.shape}, input2: {input2.shape}, target: {target.shape} ")
    return _ember.margin_ranking_loss(input1, input2, target, margin,
                                      _reduction(reduction, size_average, reduce))


def cosine_embedding_loss(input1, input2, target, margin=0.0, size_average=None, reduce=None,
                          reduction="mean"):
    """1 - cos(input1, input2) for target 1, max(0, cos - margin) for target -1."""
    return _ember.cosine_embedding_loss(input1, input2, target, margin,
                                        _reduction(reduction, size_average, reduce))


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-06, swap=False,
                        size_average=None, reduce=None, reduction="mean"):
    """max(d(a, p) - d(a, n) + margin, 0) with p-norm distances."""
    return _ember.triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap,
                                      _reduction(reduction, size_average, reduce))


def linear(input, weight, bias=None):
    """input @ weight.T + bias."""
    return _nn.linear(input, weight, bias)


def bilinear(input1, input2, weight, bias=None):
    """x1^T A x2 + b over the last dims: out[..., o] = sum_ij x1[..., i] A[o, i, j] x2[..., j] + b[o]."""
    tensors = [("input1", input1), ("input2", input2), ("weight", weight)]
    if bias is not None:
        tensors.append(("bias", bias))
    if any(t.dtype != input1.dtype for _, t in tensors):
        got = ", ".join(f"{n}: {str(t.dtype).rsplit('.', 1)[-1]}" for n, t in tensors)
        raise RuntimeError(f"All tensors must have the same dtype, got {got}")
    if input1.dim() != input2.dim():
        raise RuntimeError(f"bilinear(): input dimensions do not match: got {input1.dim()} and {input2.dim()}")
    for i in range(input1.dim() - 1):
        if input1.size(i) != input2.size(i):
            raise RuntimeError(f"bilinear(): input batch dimensions do not match at dim {i}: got "
                               f"{input1.size(i)} and {input2.size(i)}")
    if input1.size(-1) != weight.size(1):
        raise RuntimeError(f"bilinear(): input1 size does not match weight size: got {input1.size(-1)} but "
                           f"expected {weight.size(1)}")
    if input2.size(-1) != weight.size(2):
        raise RuntimeError(f"bilinear(): input2 size does not match weight size: got {input2.size(-1)} but "
                           f"expected {weight.size(2)}")
    if bias is not None and bias.size(0) != weight.size(0):
        raise RuntimeError(f"bilinear(): bias size does not match weight size: got {bias.size(0)} but "
                           f"expected {weight.size(0)}")
    if weight.dim() != 3:
        raise RuntimeError(f"bilinear(): expected a 3-D weight, but got a {weight.dim()}-D one")
    out = _ember.einsum("...i,oij,...j->...o", input1, weight, input2)
    return out if bias is None else out + bias


# ---- embeddings ----------------------------------------------------------------------------

def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False,
              sparse=False):
    """The rows of weight at the indices input; max_norm renormalises the rows used, in place."""
    if padding_idx is not None:
        if padding_idx > 0:
            if padding_idx >= weight.size(0):
                raise AssertionError("Padding_idx must be within num_embeddings")
        elif padding_idx < 0:
            if padding_idx < -weight.size(0):
                raise AssertionError("Padding_idx must be within num_embeddings")
            padding_idx = weight.size(0) + padding_idx
    else:
        padding_idx = -1
    if max_norm is not None:
        _embedding_renorm_(weight, input, max_norm, norm_type)
    return _ember.embedding(weight, input, padding_idx, scale_grad_by_freq, sparse)


def _embedding_renorm_(weight, input, max_norm, norm_type):
    """Scales the rows of weight that input uses down to norm max_norm (no gradient)."""
    with _ember.no_grad():
        rows = _ember.unique(input.reshape(-1))
        norms = _ember.linalg.vector_norm(weight.index_select(0, rows), norm_type, dim=1)
        scale = _ember.where(norms > max_norm, max_norm / (norms + 1e-7), _ember.ones_like(norms))
        weight.index_copy_(0, rows, weight.index_select(0, rows) * scale.unsqueeze(1))
    return weight


def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2, scale_grad_by_freq=False,
                  mode="mean", sparse=False, per_sample_weights=None, include_last_offset=False,
                  padding_idx=None):
    """Sums, means or maxima of bags of embeddings: input [B, L] (one bag per row) or 1-d
    with offsets (bag i is input[offsets[i]:offsets[i+1]]); empty bags give zeros."""
    if mode not in ("sum", "mean", "max"):
        raise ValueError(f"mode has to be one of sum, mean or max, but got {mode}")
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError(f"embedding_bag: per_sample_weights was not None. per_sample_weights is "
                                  f"only supported for mode='sum' (got mode='{mode}'). Please open a "
                                  "feature request on GitHub.")
    if input.dim() == 2:
        if offsets is not None:
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated is a mini-batch "
                             "of fixed length sequences.")
        bags, length = input.shape
        offsets = _ember.arange(0, bags * length, length) if length else _ember.zeros(bags, dtype=_ember.int64)
        input = input.reshape(-1)
        if per_sample_weights is not None:
            per_sample_weights = per_sample_weights.reshape(-1)
        include_last_offset = False
    elif input.dim() == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.dim() != 1:
            raise ValueError("offsets has to be a 1D Tensor")
    else:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension {input.dim()}")
    if padding_idx is not None and padding_idx < 0:
        padding_idx = weight.size(0) + padding_idx
    if max_norm is not None:
        _embedding_renorm_(weight, input, max_norm, norm_type)
    n = input.numel()
    ends = offsets.to(_ember.int64)
    bags = ends.numel() - 1 if include_last_offset else ends.numel()
    # The bag of each index: the number of offsets at or before its position, minus one.
    bag_of = _ember.bucketize(_ember.arange(n), ends[:bags], right=True) - 1
    keep = bag_of >= 0
    if padding_idx is not None:
        keep = keep & (input != padding_idx)
    sel = keep.nonzero().reshape(-1)
    rows = _ember.embedding(weight, input.index_select(0, sel), -1, scale_grad_by_freq, False)
    bag_sel = bag_of.index_select(0, sel)
    dim = weight.shape[1]
    if per_sample_weights is not None:
        rows = rows * per_sample_weights.index_select(0, sel).unsqueeze(1)
    if mode == "max":
        out = _ember.zeros((bags, dim), dtype=weight.dtype)
        return out.scatter_reduce(0, bag_sel.unsqueeze(1).expand(-1, dim), rows, "amax", include_self=False)
    out = _ember.zeros((bags, dim), dtype=weight.dtype).index_add(0, bag_sel, rows)
    if mode == "mean":
        counts = _ember.bincount(bag_sel, minlength=bags).to(weight.dtype).clamp_min(1)
        out = out / counts.unsqueeze(1)
    return out


def one_hot(tensor, num_classes=-1):
    """int64 one-hot vectors of the class indices (num_classes -1: the largest index + 1)."""
    return _nn.one_hot(tensor, num_classes)


# ---- dropout -------------------------------------------------------------------------------

def _check_p(p):
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def dropout(input, p=0.5, training=True, inplace=False):
    """Zeroes elements with probability p and scales the rest by 1 / (1 - p) when training."""
    _check_p(p)
    return _ember.dropout_(input, p, training) if inplace else _ember.dropout(input, p, training)


def alpha_dropout(input, p=0.5, training=False, inplace=False):
    """Dropout that keeps SELU's self-normalising mean and variance."""
    _check_p(p)
    return _ember.alpha_dropout_(input, p, training) if inplace else _ember.alpha_dropout(input, p, training)


def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):
    """Alpha dropout of whole channels."""
    _check_p(p)
    return _ember.feature_alpha_dropout(input, p, training)


def _feature_dropout(name, batched, input, p, training, inplace):
    _check_p(p)
    if input.dim() not in (batched - 1, batched):
        raise RuntimeError(f"{name}: Expected {batched - 1}D or {batched}D input, but received a "
                           f"{input.dim()}D input.")
    unbatched = input.dim() == batched - 1
    x = input.unsqueeze(0) if unbatched else input
    out = _ember.feature_dropout_(x, p, training) if inplace else _ember.feature_dropout(x, p, training)
    return out.squeeze(0) if unbatched else out


def dropout1d(input, p=0.5, training=True, inplace=False):
    """Dropout of whole channels of [N, C, L] (or [C, L]) inputs."""
    return _feature_dropout("dropout1d", 3, input, p, training, inplace)


def dropout2d(input, p=0.5, training=True, inplace=False):
    """Dropout of whole channels of [N, C, H, W] (or [C, H, W]) inputs."""
    return _feature_dropout("dropout2d", 4, input, p, training, inplace)


def dropout3d(input, p=0.5, training=True, inplace=False):
    """Dropout of whole channels of [N, C, D, H, W] (or [C, D, H, W]) inputs."""
    return _feature_dropout("dropout3d", 5, input, p, training, inplace)


# ---- rearrangements and distances ---------------------------------------------------------

pixel_shuffle = _ember.pixel_shuffle
pixel_unshuffle = _ember.pixel_unshuffle


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """cos of the angle between x1 and x2 along dim."""
    return _ember.cosine_similarity(x1, x2, dim, eps)


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    """p-norm of x1 - x2 + eps along the last dimension."""
    return _ember.pairwise_distance(x1, x2, p, eps, keepdim)


def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    """input over its p-norm along dim, the norm clamped below at eps (written into out when given)."""
    denom = input.norm(p, dim, keepdim=True).clamp_min(eps).expand_as(input)
    return input / denom if out is None else _ember.div(input, denom, out=out)


# ---- padding, resampling, im2col ------------------------------------------------------------

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


def _tuple(x, n):
    return tuple(x) if isinstance(x, (list, tuple)) else (x,) * n


_INTERP_DIMS = {"linear": 1, "bilinear": 2, "bicubic": 2, "trilinear": 3}


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None, antialias=False):
    """Resamples the spatial dimensions of [N, C, *spatial] to size (or scale_factor times
    them): nearest, nearest-exact, (bi/tri)linear and bicubic, one dimension at a time."""
    import math
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


def adaptive_avg_pool_nd(input, out_sizes):
    """Average over PyTorch's adaptive windows [floor(i*n/o), ceil((i+1)*n/o)) per spatial dim."""
    import math
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
    xp = globals()["pad"](x, (p[1], p[1], p[0], p[0])) if any(p) else x
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


# ---- pooling -------------------------------------------------------------------------------

def _ntuple(x, n):
    if isinstance(x, (list, tuple)):
        return tuple(x) if len(x) != 1 else tuple(x) * n
    return (x,) * n


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
    import math
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


# ---- convolution ----

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


# ---- normalization ----

def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1,
               eps=1e-5):
    """Batch normalization over every dim but 1 (running statistics updated in training)."""
    if training:
        size = 1
        for i, s in enumerate(input.shape):
            if i != 1:
                size *= s
        if size == 1:
            raise ValueError(f"Expected more than 1 value per channel when training, got input size "
                             f"{list(input.shape)}")
    return _ember.batch_norm(input, weight, bias, running_mean, running_var, training,
                             0.0 if momentum is None else momentum, eps, False)


def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None, use_input_stats=True,
                  momentum=0.1, eps=1e-5):
    """Each sample's channels normalized over their spatial dims."""
    if use_input_stats:
        spatial = 1
        for s in input.shape[2:]:
            spatial *= s
        if spatial == 1:
            raise ValueError(f"Expected more than 1 spatial element when training, got input size "
                             f"{list(input.shape)}")
    return _ember.instance_norm(input, weight, bias, running_mean, running_var, use_input_stats, momentum,
                                eps, False)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    """Normalization over the trailing normalized_shape dims."""
    if isinstance(normalized_shape, int):
        normalized_shape = (normalized_shape,)
    return _ember.layer_norm(input, tuple(normalized_shape), weight, bias, eps)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    """Normalization over groups of channels of each sample."""
    if input.dim() < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received {input.dim()}")
    return _ember.group_norm(input, num_groups, weight, bias, eps)


def rms_norm(input, normalized_shape, weight=None, eps=None):
    """input over its root mean square across the trailing normalized_shape dims, times weight."""
    if isinstance(normalized_shape, int):
        normalized_shape = (normalized_shape,)
    return _ember.rms_norm(input, tuple(normalized_shape), weight, eps)


def local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0):
    """Each element over a power of the sum of squares of its `size` neighbouring channels."""
    dim = input.dim()
    if dim < 3:
        raise ValueError(f"Expected 3D or higher dimensionality input (got {dim} dimensions)")
    if input.numel() == 0:
        return input
    div = (input * input).unsqueeze(1)
    if dim == 3:
        div = pad(div, (0, 0, size // 2, (size - 1) // 2))
        div = avg_pool2d(div, (size, 1), stride=1).squeeze(1)
    else:
        sizes = input.shape
        div = div.view(sizes[0], 1, sizes[1], sizes[2], -1)
        div = pad(div, (0, 0, 0, 0, size // 2, (size - 1) // 2))
        div = avg_pool3d(div, (size, 1, 1), stride=1).squeeze(1)
        div = div.view(sizes)
    div = (div * alpha + k) ** beta
    return input / div
