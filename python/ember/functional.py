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
