"""Distances for ember.nn.functional: cosine_similarity and pairwise_distance."""
import ember as _ember

__all__ = ["cosine_similarity", "pairwise_distance"]


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """cos of the angle between x1 and x2 along dim."""
    return _ember.cosine_similarity(x1, x2, dim, eps)


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    """p-norm of x1 - x2 + eps along the last dimension."""
    return _ember.pairwise_distance(x1, x2, p, eps, keepdim)
