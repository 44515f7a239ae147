"""Functions PyTorch writes in Python over its operators (torch.functional): their
signatures differ from the schemas' (a list or a size for split, any number of tensors for
atleast_*)."""
from __future__ import annotations

from ember import _C

__all__ = ["atleast_1d", "atleast_2d", "atleast_3d", "split"]


def split(tensor, split_size_or_sections, dim=0):
    """Views of consecutive chunks of tensor along dim: of split_size_or_sections each (an
    int; the last may be smaller), or of the sizes it lists."""
    if isinstance(split_size_or_sections, (list, tuple)):
        return _C._functions.split_with_sizes(tensor, split_size_or_sections, dim)
    return _C._functions.split(tensor, split_size_or_sections, dim)


def _atleast(op, tensors):
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        return tuple(op(t) for t in tensors[0])
    if len(tensors) == 1:
        return op(tensors[0])
    return tuple(op(t) for t in tensors)


def atleast_1d(*tensors):
    """Each tensor viewed with at least 1 dimension (one tensor in, one out; else a tuple)."""
    return _atleast(_C._functions.atleast_1d, tensors)


def atleast_2d(*tensors):
    """Each tensor viewed with at least 2 dimensions (a 1-d tensor becomes 1 x N)."""
    return _atleast(_C._functions.atleast_2d, tensors)


def atleast_3d(*tensors):
    """Each tensor viewed with at least 3 dimensions (N becomes 1 x N x 1, M x N becomes M x N x 1)."""
    return _atleast(_C._functions.atleast_3d, tensors)


def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):  # noqa: A002
    """The distinct elements of input (or its distinct slices along dim), sorted; with
    return_inverse the index of each element's value, with return_counts each value's count."""
    if dim is None:
        values, inverse, counts = _C._functions._unique2(input, sorted, return_inverse, return_counts)
    else:
        values, inverse, counts = _C._functions.unique_dim(input, dim, sorted, return_inverse, return_counts)
    return _unique_result(values, inverse, counts, return_inverse, return_counts)


def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):  # noqa: A002
    """input without consecutive repeats (of elements, or of slices along dim)."""
    values, inverse, counts = _C._functions.unique_consecutive(input, return_inverse, return_counts, dim)
    return _unique_result(values, inverse, counts, return_inverse, return_counts)


def _unique_result(values, inverse, counts, return_inverse, return_counts):
    if return_inverse and return_counts:
        return values, inverse, counts
    if return_inverse:
        return values, inverse
    if return_counts:
        return values, counts
    return values


def meshgrid(*tensors, indexing=None):
    """Grids from 1-d tensors ('ij' indexing by default, as PyTorch's; 'xy' swaps the first two)."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    return tuple(_C._functions.meshgrid(list(tensors), indexing=indexing or "ij"))


__all__ += ["unique", "unique_consecutive", "meshgrid"]


def cartesian_prod(*tensors):
    """The cartesian product of 1-d tensors, one combination per row."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    return _C._functions.cartesian_prod(list(tensors))


__all__ += ["cartesian_prod"]


def nonzero(input, *, out=None, as_tuple=False):  # noqa: A002
    """The coordinates of input's non-zero elements: an N x dim tensor, or (as_tuple) one 1-d
    tensor per dim (a 0-d input counts as 1-d)."""
    if as_tuple:
        if out is not None:
            raise TypeError("nonzero(): out= is not supported with as_tuple=True")
        coords = _C._functions.nonzero(input if input.dim() > 0 else input.reshape(1))
        return tuple(coords.unbind(1))
    if out is not None:
        return _C._functions.nonzero(input, out=out)
    return _C._functions.nonzero(input)


__all__ += ["nonzero"]


def einsum(equation, *operands, path=None):
    """Einstein summation: einsum("ij,jk->ik", a, b); the operands may also be one list."""
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    return _C._functions.einsum(equation, list(operands), path=path)


def tensordot(a, b, dims=2, out=None):
    """The contraction of a and b over dims: the last `dims` of a with the first `dims` of b
    (an int), or the paired lists ([dims of a], [dims of b])."""
    if isinstance(dims, int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        if dims > min(a.dim(), b.dim()):
            raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got dims={dims}")
        dims_a, dims_b = list(range(a.dim() - dims, a.dim())), list(range(dims))
    elif hasattr(dims, "tolist"):  # a tensor of dims
        dims = dims.tolist()
        dims_a, dims_b = ([dims[0]], [dims[1]]) if isinstance(dims[0], int) else (dims[0], dims[1])
    else:
        dims_a, dims_b = dims
    result = _C._functions.tensordot(a, b, dims_a, dims_b)
    if out is not None:
        if tuple(out.shape) != tuple(result.shape):
            raise RuntimeError(f"tensordot(): expected 'out' of shape {tuple(result.shape)}, "
                               f"but got {tuple(out.shape)}")
        return out.copy_(result)
    return result


__all__ += ["einsum", "tensordot"]
