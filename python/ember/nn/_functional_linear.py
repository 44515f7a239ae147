"""Linear maps for ember.nn.functional: linear and bilinear."""
import ember as _ember
from ember._C import _nn

__all__ = ["linear", "bilinear"]


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
