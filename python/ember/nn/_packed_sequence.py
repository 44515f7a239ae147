"""PackedSequence, the packed batch of variable-length sequences, and invert_permutation.

They live below both ember.nn.modules (the recurrent layers take and return them) and
ember.nn.utils.rnn (which packs and pads, and is their public home).
"""
from __future__ import annotations

from collections import namedtuple

import ember

__all__ = ["PackedSequence", "invert_permutation"]


class PackedSequence(namedtuple("PackedSequence_", ["data", "batch_sizes", "sorted_indices", "unsorted_indices"])):
    """(data, batch_sizes, sorted_indices, unsorted_indices): a packed batch of sequences;
    sorted_indices[i] is the batch index of the i-th longest sequence."""

    __slots__ = ()

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        if unsorted_indices is None:
            unsorted_indices = invert_permutation(sorted_indices)
        if batch_sizes is None:
            if not (isinstance(data, (list, tuple)) and len(data) == 2):
                raise TypeError("PackedSequence(): expected data to be a (data, batch_sizes) pair when batch_sizes "
                                "is not given")
            data, batch_sizes = data
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def to(self, *args, **kwargs):
        """The same packing with data converted by Tensor.to (indices keep their dtype)."""
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        return type(self)(data, self.batch_sizes, self.sorted_indices, self.unsorted_indices)

    def cpu(self):
        return self.to("cpu")

    def pin_memory(self):
        return self

    def double(self):
        return self.to(dtype=ember.float64)

    def float(self):
        return self.to(dtype=ember.float32)

    def half(self):
        return self.to(dtype=ember.float16)

    def long(self):
        return self.to(dtype=ember.int64)

    def int(self):
        return self.to(dtype=ember.int32)

    def short(self):
        return self.to(dtype=ember.int16)

    def char(self):
        return self.to(dtype=ember.int8)

    def byte(self):
        return self.to(dtype=ember.uint8)

    @property
    def is_cuda(self) -> bool:
        return self.data.device.type == "cuda"

    def is_pinned(self) -> bool:
        return False


def invert_permutation(permutation):
    """The inverse permutation (None for None)."""
    if permutation is None:
        return None
    out = ember.empty_like(permutation)
    return out.scatter_(0, permutation, ember.arange(permutation.numel(), dtype=permutation.dtype))
