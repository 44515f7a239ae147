"""Finding the storages that the tensors being saved view, for both checkpoint formats.

Ember exposes no storage object, so the memory a tensor views is found from its data
pointer, strides and storage offset: tensors that overlap, or that share a base address
(data_ptr() - storage_offset() * element_size()), view one storage, and are written as one
blob covering the span of memory they touch (not necessarily the whole allocation).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import ember
from ember import _C

# Element sizes of the dtypes both formats write, by name.
ITEMSIZE = {"float32": 4, "float64": 8, "float16": 2, "bfloat16": 2, "int8": 1, "int16": 2,
            "int32": 4, "int64": 8, "uint8": 1, "bool": 1, "complex64": 8, "complex128": 16}


def dtype_name(dtype) -> str:
    return str(dtype).rsplit(".", 1)[-1]


def span(shape, strides) -> tuple[int, int]:
    """(lo, hi): the element offsets, relative to storage_offset, that a view touches."""
    lo = hi = 0
    for size, stride in zip(shape, strides):
        if stride < 0:
            lo += (size - 1) * stride
        else:
            hi += (size - 1) * stride
    return lo, hi + 1


@dataclass
class Blob:
    """One storage to write: nbytes of memory at address, holding elements of dtype that
    were on device; members maps each tensor's key to its element offset in the blob."""
    dtype: str
    device: str
    address: int = 0
    nbytes: int = 0
    members: dict = field(default_factory=dict)


class ViewSet:
    """Collects tensors (by a key of the caller's choosing), then groups them into blobs."""

    def __init__(self):
        self.keep: list = []       # the tensors (and CPU copies) whose memory is read
        self.views: list = []      # (key, detached tensor, dtype name, device, lo, hi byte)
        self.empty: dict = {}      # key -> (dtype name, device) of tensors with no elements

    def add(self, key, t) -> None:
        name = dtype_name(t.dtype)
        if name not in ITEMSIZE:
            raise TypeError(f"save(): cannot save a tensor of dtype {t.dtype}")
        if t.layout != _C.strided:
            raise TypeError(f"save(): cannot save a tensor of layout {t.layout}; expected a "
                            "strided (dense) tensor")
        device = str(t.device)
        if t.device.type == "meta":
            raise TypeError("save(): cannot save a tensor on the meta device: it has no values")
        t = t.detach()
        self.keep.append(t)
        if t.numel() == 0:
            self.empty[key] = (name, device)
            return
        size = t.element_size()
        lo, hi = span(t.shape, t.stride())
        ptr = t.data_ptr()   # on a device, a device address: unique there, so still a key
        self.views.append((key, t, name, device, ptr + lo * size, ptr + hi * size))

    def blobs(self) -> list[Blob]:
        """The storages, in order of their lowest address per (dtype, device); tensors with
        no elements share one empty blob per (dtype, device)."""
        out: list[Blob] = []
        groups: dict[tuple, list] = {}
        for view in self.views:
            groups.setdefault((view[2], view[3]), []).append(view)
        for (name, device), views in groups.items():
            views.sort(key=lambda v: v[4])
            members: list = []
            start = end = 0
            bases: set[int] = set()
            for view in views:
                key, t, _, _, lo, hi = view
                size = t.element_size()
                base = t.data_ptr() - t.storage_offset() * size
                # Live tensors whose spans overlap (or that share a base) share memory.
                if members and (lo < end or base in bases) and (lo - start) % size == 0:
                    members.append(view)
                    end = max(end, hi)
                    bases.add(base)
                    continue
                if members:
                    out.append(self._blob(name, device, members, start, end))
                members, start, end, bases = [view], lo, hi, {base}
            out.append(self._blob(name, device, members, start, end))
        empties: dict[tuple, Blob] = {}
        for key, where in self.empty.items():
            if where not in empties:
                empties[where] = Blob(*where)
                out.append(empties[where])
            empties[where].members[key] = 0
        return out

    def _blob(self, name: str, device: str, views, start: int, end: int) -> Blob:
        first = views[0][1]
        size = first.element_size()
        blob = Blob(name, device, start, end - start)
        for key, t, *_ in views:
            blob.members[key] = (t.data_ptr() - start) // size
        if first.device.type != "cpu":
            # One copy of the span, so that views of one device storage stay one blob.
            offset = first.storage_offset() + (start - first.data_ptr()) // size
            copy = ember.as_strided(first, [blob.nbytes // size], [1], offset).cpu()
            self.keep.append(copy)
            blob.address = copy.data_ptr()
        return blob
