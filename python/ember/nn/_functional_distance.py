"""Distances for ember.nn.functional: cosine_similarity and pairwise_distance."""
import ember as _ember

__all__ = ["cosine_similarity", "pairwise_distance"]


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """cos of the angle between x1 and x2 along dim."""
    return _ember.cosine_similarity(x1, x2, dim, eps)


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    """p-norm of x1 - x2 + eps along the last dimension."""
    return _ember.pairwise_distance(x1, x2, p, eps, keepdim)


__all__ += ["pdist"]


def pdist(input, p=2):
    """The p-norm distances between the rows of input [N, M], the upper triangle of cdist, flattened."""
    if input.dim() != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.dim()}D")
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    n = input.shape[0]
    idx = _ember.triu_indices(n, n, 1)
    diff = input.index_select(0, idx[0]) - input.index_select(0, idx[1])
    return _ember.linalg.vector_norm(diff, p, dim=1) if n > 1 else input.new_zeros((0,))
