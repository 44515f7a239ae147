"""Normalization for ember.nn.functional: batch, instance, layer, group, RMS and local
response norms, and normalize (division by the p-norm)."""
import ember as _ember
from ember.nn._functional_pooling import avg_pool2d, avg_pool3d
from ember.nn._functional_vision import pad

__all__ = ["batch_norm", "instance_norm", "layer_norm", "group_norm", "rms_norm", "local_response_norm", "normalize"]


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


def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    """input over its p-norm along dim, the norm clamped below at eps (written into out when given)."""
    denom = input.norm(p, dim, keepdim=True).clamp_min(eps).expand_as(input)
    return input / denom if out is None else _ember.div(input, denom, out=out)
