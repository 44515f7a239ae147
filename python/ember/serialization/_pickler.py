"""The pickle that ember.save writes: what torch.save writes, naming torch's globals.

Tensors pickle as torch._utils._rebuild_tensor_v2(storage, storage_offset, size, stride,
requires_grad, OrderedDict()), Parameters as torch._utils._rebuild_parameter(tensor,
requires_grad, OrderedDict()), a storage as the persistent id ('storage', torch.FloatStorage
(per dtype), key, location, numel), ember.Size/device/dtype as torch.Size/device/float32 and
bytes as _codecs.encode(str, 'latin1'): all globals torch.load(weights_only=True) accepts.
Anything else pickles as pickle would pickle it (a Module by its class, as torch.save does).

Note [Naming torch without importing it]: pickle writes a global as GLOBAL module name, and
the C pickler checks by importing the module that the name finds the object. Ember must
not need torch to save, so the pure-Python pickler (pickle._Pickler, whose dispatch table a
subclass can extend) writes _Global objects as the bare GLOBAL opcode.
"""
from __future__ import annotations

import codecs
import io
import pickle
from collections import OrderedDict

from ember import _C

from ._views import ITEMSIZE, ViewSet, dtype_name

STORAGE_TYPES = {   # dtype name -> the legacy typed storage class torch names in a file
    "float32": "FloatStorage", "float64": "DoubleStorage", "float16": "HalfStorage",
    "bfloat16": "BFloat16Storage", "int8": "CharStorage", "int16": "ShortStorage",
    "int32": "IntStorage", "int64": "LongStorage", "uint8": "ByteStorage",
    "bool": "BoolStorage", "complex64": "ComplexFloatStorage",
    "complex128": "ComplexDoubleStorage",
}


class _Global:
    """A global that the pickle names without importing it (Note [Naming torch without
    importing it])."""
    __slots__ = ("module", "name")

    def __init__(self, module: str, name: str):
        self.module, self.name = module, name

    def __call__(self, *args, **kwargs):   # pickle's save_reduce asks for a callable
        raise TypeError(f"{self.module}.{self.name} is only a name for the pickle")


_REBUILD_TENSOR = _Global("torch._utils", "_rebuild_tensor_v2")
_REBUILD_PARAMETER = _Global("torch._utils", "_rebuild_parameter")
_REBUILD_SPARSE = _Global("torch._utils", "_rebuild_sparse_tensor")
_GET_LAYOUT = _Global("torch.serialization", "_get_layout")


class _Layout:
    """A sparse layout, pickled as torch pickles one: _get_layout("torch.sparse_coo")."""
    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name
_SIZE = _Global("torch", "Size")
_DEVICE = _Global("torch", "device")
_STORAGE = {name: _Global("torch", cls) for name, cls in STORAGE_TYPES.items()}
_DTYPE = {name: _Global("torch", name) for name in STORAGE_TYPES}


class _StorageRef:
    """Stands for blob number index in the pickle; pickles as a persistent id."""
    __slots__ = ("index",)

    def __init__(self, index: int):
        self.index = index


class _TensorData:
    """A Parameter's data: pickles as a plain tensor without requires_grad."""
    __slots__ = ("tensor",)

    def __init__(self, tensor):
        self.tensor = tensor


class _Discard:
    def write(self, data) -> int:
        return len(data)


class _Pickler(pickle._Pickler):
    dispatch = dict(pickle._Pickler.dispatch)

    def __init__(self, file, plan: "Plan", protocol: int):
        super().__init__(file, protocol=protocol)
        self.plan = plan

    def _save_global(self, obj) -> None:
        self.write(pickle.GLOBAL + f"{obj.module}\n{obj.name}\n".encode("utf-8"))
        self.memoize(obj)

    def _save_dtype(self, obj) -> None:
        name = dtype_name(obj)
        if name not in _DTYPE:
            raise pickle.PicklingError(f"save(): cannot save the dtype {obj}")
        self.save(_DTYPE[name])

    dispatch[_Global] = _save_global
    dispatch[_C.dtype] = _save_dtype

    def persistent_id(self, obj):
        if type(obj) is _StorageRef:
            return self.plan.persistent_id(obj.index)
        return None

    def reducer_override(self, obj):
        if isinstance(obj, _C.TensorBase) and obj.layout in (_C.sparse_coo, _C.sparse_csr, _C.sparse_csc):
            # As torch's Tensor.__reduce_ex__: the layout and the members (strided tensors),
            # the same member objects in both passes (the plan places tensors by id).
            cached = self.plan.sparse.get(id(obj))
            if cached is not None:
                return cached[1]
            layout = str(obj.layout).split(".")[-1]
            if layout == "sparse_coo":
                data = (obj._indices(), obj._values(), obj.shape, bool(obj.is_coalesced()))
            elif layout in ("sparse_csr", "sparse_csc"):
                csr = layout == "sparse_csr"
                data = (obj.crow_indices() if csr else obj.ccol_indices(),
                        obj.col_indices() if csr else obj.row_indices(), obj.values(), obj.shape)
            reduced = (_REBUILD_SPARSE, (_Layout(layout), tuple(d.detach() if isinstance(d, _C.TensorBase) else d
                                                                for d in data)))
            self.plan.sparse[id(obj)] = (obj, reduced)
            return reduced
        if type(obj) is _Layout:
            return (_GET_LAYOUT, (f"torch.{obj.name}",))
        if isinstance(obj, _C.TensorBase):
            import ember.nn
            if isinstance(obj, ember.nn.Parameter):
                return (_REBUILD_PARAMETER, (_TensorData(obj), bool(obj.requires_grad),
                                             OrderedDict()))
            return self.plan.rebuild(obj, bool(obj.requires_grad))
        if type(obj) is _TensorData:
            return self.plan.rebuild(obj.tensor, False)
        if isinstance(obj, _C.Size):
            return (_SIZE, (tuple(int(s) for s in obj),))
        if isinstance(obj, _C.device):
            return (_DEVICE, (str(obj),))
        if type(obj) is bytes and self.proto < 3:
            # pickle writes b"" as builtins.bytes(), which torch's weights_only refuses.
            return (codecs.encode, (obj.decode("latin1"), "latin1"))
        return NotImplemented


class Plan:
    """Where each tensor being saved lives: found by a first pickling pass, then used by the
    second, which writes the pickle."""

    def __init__(self, legacy: bool = False):
        self.viewset = ViewSet()
        self.placement: dict[int, tuple[int, int]] | None = None   # id -> (blob, offset)
        self.blobs: list = []
        self.keys: dict[int, str] = {}   # blob index -> key, in order of first use
        self.legacy = legacy
        self.sparse: dict[int, tuple] = {}   # id -> (sparse tensor, its reduction), both passes

    def rebuild(self, t, requires_grad: bool):
        if self.placement is None:   # the first pass: collect
            self.viewset.add(id(t), t)
            return (_REBUILD_TENSOR, ())
        blob, offset = self.placement[id(t)]
        return (_REBUILD_TENSOR, (_StorageRef(blob), offset, tuple(int(s) for s in t.shape),
                                  tuple(int(s) for s in t.stride()), requires_grad,
                                  OrderedDict()))

    def persistent_id(self, index: int):
        if self.placement is None:
            return ("storage",)
        blob = self.blobs[index]
        key = self.keys.setdefault(index, str(len(self.keys)))
        pid = ("storage", _STORAGE[blob.dtype], key, blob.device,
               blob.nbytes // ITEMSIZE[blob.dtype])
        return pid + (None,) if self.legacy else pid

    def place(self) -> None:
        self.blobs = self.viewset.blobs()
        self.placement = {key: (i, offset) for i, blob in enumerate(self.blobs)
                          for key, offset in blob.members.items()}


def dumps(obj, protocol: int = 2, legacy: bool = False) -> tuple[bytes, Plan]:
    """The pickle of obj, and the plan that says which blobs it names under which keys
    (plan.keys, in order of first use)."""
    plan = Plan(legacy)
    _Pickler(_Discard(), plan, protocol).dump(obj)
    plan.place()
    out = io.BytesIO()
    _Pickler(out, plan, protocol).dump(obj)
    return out.getvalue(), plan
