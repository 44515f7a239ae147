"""Tensor storages as Python objects (Tensor.untyped_storage(), Tensor.storage()), the
methods that move a tensor between storages (set_, is_set_to) and shared memory
(share_memory_, is_shared).

A storage object keeps a detached alias of the tensor it came from, so the memory lives as
long as the object; it reads and writes that memory in place (through numpy views of its
address), so writes show in every tensor over the storage. share_memory_ moves a tensor's
elements into an anonymous shared mapping (MAP_SHARED), which processes forked afterwards
share, as torch's does for CPU tensors."""
from __future__ import annotations

import ctypes
import mmap
import weakref

import numpy as np

import ember

Tensor = ember.Tensor

# data address of a shared mapping -> weak reference to the numpy array over it (alive as
# long as some tensor's storage uses the mapping).
_SHARED: dict[int, weakref.ref] = {}


def _bytes_of(tensor) -> np.ndarray:
    """A writable uint8 numpy array over all of tensor's storage (shares its memory)."""
    address, nbytes, _, _ = tensor._storage_info()
    if nbytes == 0:
        return np.zeros(0, dtype=np.uint8)
    buffer = (ctypes.c_uint8 * nbytes).from_address(address)
    return np.ctypeslib.as_array(buffer)


def _elements_of(tensor):
    """A 1-D tensor over every element of tensor's storage (offset 0)."""
    base = tensor.detach()
    count = base._storage_info()[1] // base.element_size()
    return base.as_strided((count,), (1,), 0)


def _check_index(index, length, what):
    if not isinstance(index, int) or isinstance(index, bool):
        raise TypeError(f"{what}: expected an int index, but got {type(index).__name__}")
    if not -length <= index < length:
        raise IndexError(f"{what}: index {index} out of range for a storage of size {length}")
    return index % length


class _StorageBase:
    def __init__(self, tensor):
        self._tensor = tensor.detach()

    def data_ptr(self) -> int:
        """The address of the storage's first byte."""
        return self._tensor._storage_info()[0]

    def nbytes(self) -> int:
        return self._tensor._storage_info()[1]

    @property
    def device(self):
        return self._tensor.device

    def is_shared(self) -> bool:
        return is_shared(self._tensor)

    def share_memory_(self):
        share_memory_(self._tensor)
        return self

    def resizable(self) -> bool:
        return self._tensor._storage_info()[3]

    def __len__(self) -> int:
        return self.size()

    def __iter__(self):
        return iter(self.tolist())

    def __eq__(self, other):
        return NotImplemented

    __hash__ = object.__hash__


class UntypedStorage(_StorageBase):
    """The bytes under a tensor: size() and len() count bytes, items are ints 0..255."""

    def size(self) -> int:
        return self.nbytes()

    def element_size(self) -> int:
        return 1

    def untyped(self):
        return self

    def tolist(self) -> list:
        return _bytes_of(self._tensor).tolist()

    def __getitem__(self, index):
        i = _check_index(index, self.size(), "UntypedStorage[]")
        return int(_bytes_of(self._tensor)[i])

    def __setitem__(self, index, value):
        i = _check_index(index, self.size(), "UntypedStorage[]=")
        _bytes_of(self._tensor)[i] = value

    def __repr__(self) -> str:
        return f"[ember.storage.UntypedStorage(device={self.device}) of size {self.size()}]"


class TypedStorage(_StorageBase):
    """The elements under a tensor, in its dtype (torch's legacy Tensor.storage())."""

    @property
    def dtype(self):
        return self._tensor.dtype

    def size(self) -> int:
        return self.nbytes() // self._tensor.element_size()

    def element_size(self) -> int:
        return self._tensor.element_size()

    def untyped(self):
        return UntypedStorage(self._tensor)

    def tolist(self) -> list:
        return _elements_of(self._tensor).tolist()

    def __getitem__(self, index):
        i = _check_index(index, self.size(), "TypedStorage[]")
        return _elements_of(self._tensor)[i].item()

    def __setitem__(self, index, value):
        i = _check_index(index, self.size(), "TypedStorage[]=")
        _elements_of(self._tensor)[i] = value

    def __repr__(self) -> str:
        return (f"[ember.storage.TypedStorage(dtype={self.dtype}, device={self.device}) of size "
                f"{self.size()}]")


def untyped_storage(self):
    """The storage of self's bytes (shares memory with self)."""
    return UntypedStorage(self)


def storage(self):
    """The storage of self's elements, typed by self's dtype (shares memory with self)."""
    return TypedStorage(self)


def _storage_id(tensor):
    return tensor._storage_info()[2]


def is_set_to(self, tensor) -> bool:
    """Whether self and tensor use the same storage with the same offset, sizes and strides."""
    return (_storage_id(self) == _storage_id(tensor) and self.storage_offset() == tensor.storage_offset()
            and tuple(self.shape) == tuple(tensor.shape) and self.stride() == tensor.stride())


def _contiguous_strides(size):
    strides, step = [], 1
    for s in reversed(size):
        strides.append(step)
        step *= max(s, 1)
    return tuple(reversed(strides))


def set_(self, source=None, storage_offset=0, size=None, stride=None):
    """Makes self use source's storage: set_() an empty one, set_(tensor) tensor's storage and
    geometry, set_(storage, storage_offset=0, size=None, stride=None) a storage with that
    geometry (all of it as 1-D by default)."""
    if self.requires_grad and ember.is_grad_enabled():
        raise RuntimeError("set_(): expected a tensor that does not require grad (a leaf Variable "
                           "that requires grad is being used in an in-place operation)")
    if source is None:
        self.data = ember.empty(0, dtype=self.dtype, device=self.device)
        return self
    base = source if isinstance(source, Tensor) else getattr(source, "_tensor", None)
    if not isinstance(source, (Tensor, _StorageBase)):
        raise TypeError(f"set_(): expected a Tensor or a storage, but got {type(source).__name__}")
    if base.dtype != self.dtype:
        raise RuntimeError(f"set_(): expected a source of dtype {self.dtype}, but got {base.dtype}")
    if base.device != self.device:
        raise RuntimeError(f"set_(): expected a source on {self.device}, but got one on {base.device}")
    self.data = base.detach()
    if isinstance(source, Tensor) and size is None:
        return self
    if size is None:
        size = (base._storage_info()[1] // base.element_size(),)
        storage_offset = 0
    size = tuple(size)
    stride = _contiguous_strides(size) if stride is None else tuple(stride)
    if len(stride) == len(size) and all(n > 0 for n in size) and storage_offset >= 0:
        # As torch's, a resizable storage grows to hold the geometry (shared with its tensors).
        needed = storage_offset + 1 + sum((n - 1) * st for n, st in zip(size, stride) if st > 0)
        address, nbytes, _, resizable = self._storage_info()
        if resizable and needed * self.element_size() > nbytes:
            self._resize_((needed,))
    return self._restride_(size, stride, storage_offset)


_NUMPY_DTYPES = {ember.float16: np.float16, ember.float32: np.float32, ember.float64: np.float64,
                 ember.int8: np.int8, ember.int16: np.int16, ember.int32: np.int32,
                 ember.int64: np.int64, ember.uint8: np.uint8, ember.bool: np.bool_,
                 ember.complex64: np.complex64, ember.complex128: np.complex128}


def is_shared(self) -> bool:
    """Whether self's storage lives in shared memory (after share_memory_)."""
    ref = _SHARED.get(self._storage_info()[0])
    return ref is not None and ref() is not None


def share_memory_(self):
    """Moves self's storage into shared memory (a no-op if it is there already); processes
    forked afterwards see each other's writes. The storage can no longer be resized."""
    if is_shared(self):
        return self
    if not self.is_cpu:
        raise RuntimeError(f"share_memory_(): expected a CPU tensor, but got one on {self.device}")
    if self.dtype not in _NUMPY_DTYPES:
        raise NotImplementedError(f"share_memory_(): not supported for {self.dtype} tensors")
    count = self._storage_info()[1] // self.element_size()
    mapping = mmap.mmap(-1, max(count * self.element_size(), 1))
    array = np.frombuffer(mapping, dtype=_NUMPY_DTYPES[self.dtype], count=count)
    shared = ember.from_numpy(array)
    with ember.no_grad():
        shared.copy_(_elements_of(self))
    geometry = (tuple(self.shape), tuple(self.stride()), self.storage_offset())
    self.data = shared
    self._restride_(*geometry)
    _SHARED[self._storage_info()[0]] = weakref.ref(array)
    for address in [a for a, r in _SHARED.items() if r() is None]:
        del _SHARED[address]
    return self


def install():
    methods = {"untyped_storage": untyped_storage, "storage": storage, "is_set_to": is_set_to,
               "set_": set_, "is_shared": is_shared, "share_memory_": share_memory_}
    for name, fn in methods.items():
        if not hasattr(Tensor, name):
            setattr(Tensor, name, fn)
