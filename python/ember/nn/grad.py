"""ember.nn.grad: gradients of convolutions with respect to their input and their weight, as
ember.autograd computes them for conv1d/2d/3d (the functions are linear in each argument)."""
import ember
from ember.nn import functional as F

__all__ = ["conv1d_input", "conv1d_weight", "conv2d_input", "conv2d_weight", "conv3d_input", "conv3d_weight"]


def _grad_input(n, input_size, weight, grad_output, stride, padding, dilation, groups):
    input_size = list(input_size)
    if len(input_size) != n + 2:
        raise ValueError(f"conv{n}d_input: input_size must have {n + 2} elements (N, C, *spatial), "
                         f"got {input_size}")
    conv = getattr(F, f"conv{n}d")
    with ember.enable_grad():
        x = ember.zeros(input_size, dtype=grad_output.dtype, requires_grad=True)
        out = conv(x, weight.detach(), None, stride, padding, dilation, groups)
        if tuple(out.shape) != tuple(grad_output.shape):
            raise RuntimeError(f"conv{n}d_input: grad_output has shape {list(grad_output.shape)}, but the "
                               f"convolution of input_size {input_size} gives {list(out.shape)}")
        (g,) = ember.autograd.grad(out, x, grad_output)
    return g


def _grad_weight(n, input, weight_size, grad_output, stride, padding, dilation, groups):
    weight_size = list(weight_size)
    if len(weight_size) != n + 2:
        raise ValueError(f"conv{n}d_weight: weight_size must have {n + 2} elements, got {weight_size}")
    conv = getattr(F, f"conv{n}d")
    with ember.enable_grad():
        w = ember.zeros(weight_size, dtype=grad_output.dtype, requires_grad=True)
        out = conv(input.detach(), w, None, stride, padding, dilation, groups)
        if tuple(out.shape) != tuple(grad_output.shape):
            raise RuntimeError(f"conv{n}d_weight: grad_output has shape {list(grad_output.shape)}, but the "
                               f"convolution with weight_size {weight_size} gives {list(out.shape)}")
        (g,) = ember.autograd.grad(out, w, grad_output)
    return g


def conv1d_input(input_size, weight, grad_output, stride=1, padding=0, dilation=1, groups=1):
    """Gradient of conv1d with respect to an input of shape input_size."""
    return _grad_input(1, input_size, weight, grad_output, stride, padding, dilation, groups)


def conv1d_weight(input, weight_size, grad_output, stride=1, padding=0, dilation=1, groups=1):
    """Gradient of conv1d with respect to a weight of shape weight_size."""
    return _grad_weight(1, input, weight_size, grad_output, stride, padding, dilation, groups)


def conv2d_input(input_size, weight, grad_output, stride=1, padding=0, dilation=1, groups=1):
    """Gradient of conv2d with respect to an input of shape input_size."""
    return _grad_input(2, input_size, weight, grad_output, stride, padding, dilation, groups)


def conv2d_weight(input, weight_size, grad_output, stride=1, padding=0, dilation=1, groups=1):
    """Gradient of conv2d with respect to a weight of shape weight_size."""
    return _grad_weight(2, input, weight_size, grad_output, stride, padding, dilation, groups)


def conv3d_input(input_size, weight, grad_output, stride=1, padding=0, dilation=1, groups=1):
    """Gradient of conv3d with respect to an input of shape input_size."""
    return _grad_input(3, input_size, weight, grad_output, stride, padding, dilation, groups)


def conv3d_weight(input, weight_size, grad_output, stride=1, padding=0, dilation=1, groups=1):
    """Gradient of conv3d with respect to a weight of shape weight_size."""
    return _grad_weight(3, input, weight_size, grad_output, stride, padding, dilation, groups)
