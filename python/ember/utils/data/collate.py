"""Collation: turning a list of samples into a batch of ember tensors."""
from __future__ import annotations

import collections.abc

import numpy as np

import ember
from ember._tensor import Tensor

_COLLATE_ERROR = ("default_collate: batch must contain tensors, numpy arrays, numbers, "
                  "dicts or lists; found {}")


def _is_namedtuple(obj):
    return isinstance(obj, tuple) and hasattr(obj, "_fields")


def default_collate(batch):
    """Stacks a list of samples into a batch, recursing into tuples, lists and dicts.

    Tensors and numpy arrays are stacked along a new first dimension; Python floats become
    a float64 tensor, ints an int64 tensor, bools a bool tensor; strings stay a list; a
    tuple of fields becomes a list of batched fields (a namedtuple keeps its type).
    """
    elem = batch[0]
    if isinstance(elem, Tensor):
        return ember.stack(list(batch), 0)
    if isinstance(elem, np.ndarray):
        if elem.dtype.kind in "OSUV":
            raise TypeError(_COLLATE_ERROR.format(elem.dtype))
        return ember.stack([ember.as_tensor(b) for b in batch], 0)
    if isinstance(elem, np.generic):
        if elem.dtype.kind in "OSUV":
            raise TypeError(_COLLATE_ERROR.format(elem.dtype))
        return ember.as_tensor(np.array(batch))
    if isinstance(elem, bool):
        return ember.tensor(batch, dtype=ember.bool)
    if isinstance(elem, float):
        return ember.tensor(batch, dtype=ember.float64)
    if isinstance(elem, int):
        return ember.tensor(batch, dtype=ember.int64)
    if isinstance(elem, (str, bytes)):
        return batch
    if isinstance(elem, collections.abc.Mapping):
        collated = {key: default_collate([d[key] for d in batch]) for key in elem}
        try:
            return type(elem)(collated)
        except TypeError:
            return collated
    if _is_namedtuple(elem):
        return type(elem)(*(default_collate(list(s)) for s in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        it = iter(batch)
        elem_size = len(next(it))
        if not all(len(e) == elem_size for e in it):
            raise RuntimeError("each element in list of batch should be of equal size")
        transposed = list(zip(*batch))
        if isinstance(elem, tuple):
            return [default_collate(list(samples)) for samples in transposed]
        try:
            return type(elem)([default_collate(list(samples)) for samples in transposed])
        except TypeError:
            return [default_collate(list(samples)) for samples in transposed]
    raise TypeError(_COLLATE_ERROR.format(type(elem)))


def default_convert(data):
    """Converts numpy arrays in one sample to ember tensors (used when batch_size is None)."""
    if isinstance(data, Tensor):
        return data
    if isinstance(data, np.ndarray):
        if data.dtype.kind in "OSUV":
            return data
        return ember.as_tensor(data)
    if isinstance(data, np.generic):
        return ember.as_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        converted = {key: default_convert(data[key]) for key in data}
        try:
            return type(data)(converted)
        except TypeError:
            return converted
    if _is_namedtuple(data):
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        try:
            return type(data)([default_convert(d) for d in data])
        except TypeError:
            return [default_convert(d) for d in data]
    return data
