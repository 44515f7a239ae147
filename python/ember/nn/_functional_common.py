"""Argument helpers that several families of ember.nn.functional share."""

__all__ = []


def _ntuple(x, n):
    """x as an n-tuple: an int repeated n times, a one-element sequence repeated, a longer one as is."""
    if isinstance(x, (list, tuple)):
        return tuple(x) if len(x) != 1 else tuple(x) * n
    return (x,) * n


def _tuple(x, n):
    """x as a tuple: an int repeated n times, a sequence as is (of whatever length)."""
    return tuple(x) if isinstance(x, (list, tuple)) else (x,) * n
