"""Reading the pickle of a torch.save checkpoint: an allow-list of globals, as PyTorch's
weights_only=True loader has, and Ember's equivalents of the torch names it allows.

Every global a pickle names goes through find_class (GLOBAL, STACK_GLOBAL, INST and the
extension registry all do), so with weights_only=True nothing can be called or built but
the entries of _ALLOWED and what add_safe_globals() added. Torch's names map to Ember
objects in both modes, so torch need not be installed.
"""
from __future__ import annotations

import _compat_pickle
import pickle
import pickletools
from collections import Counter, OrderedDict

import numpy as np

import ember
from ember import _C

from ._files import CheckpointError, check
from ._pickler import STORAGE_TYPES

# ---------------------------------------------------------------------------------------
# user-allowed globals

_safe_globals: list = []


def _name_of(entry) -> tuple[str, object]:
    if isinstance(entry, tuple):
        if len(entry) != 2 or not isinstance(entry[1], str):
            raise TypeError("add_safe_globals(): expected a global or a (global, "
                            f"'module.name') pair, but got {entry!r}")
        return entry[1], entry[0]
    module, name = getattr(entry, "__module__", None), getattr(entry, "__qualname__", None)
    if not isinstance(module, str) or not isinstance(name, str):
        raise TypeError(f"add_safe_globals(): expected a class or function, which has a "
                        f"__module__ and a __qualname__, but got {entry!r}; pass (object, "
                        "'module.name') to name it")
    return f"{module}.{name}", entry


def add_safe_globals(safe_globals) -> None:
    """Allows ember.load(weights_only=True) to use these globals: classes or functions, or
    (object, 'module.name') pairs for objects that a file names otherwise."""
    for entry in safe_globals:
        _name_of(entry)   # validates
        if entry not in _safe_globals:
            _safe_globals.append(entry)


def get_safe_globals() -> list:
    """The globals that add_safe_globals() allowed, in the order they were added."""
    return list(_safe_globals)


def clear_safe_globals() -> None:
    """Forgets every global that add_safe_globals() allowed."""
    _safe_globals.clear()


class safe_globals:
    """A context manager that allows globals (as add_safe_globals) for its block only."""

    def __init__(self, safe_globals):
        self.safe_globals = list(safe_globals)
        self._added: list = []

    def __enter__(self):
        self._added = [g for g in self.safe_globals if g not in _safe_globals]
        add_safe_globals(self._added)
        return self

    def __exit__(self, *exc):
        for g in self._added:
            if g in _safe_globals:
                _safe_globals.remove(g)
        return False


def _user_allowed() -> dict:
    return dict(_name_of(entry) for entry in _safe_globals)


# ---------------------------------------------------------------------------------------
# storages

_DTYPES = {name: getattr(_C, name) for name in STORAGE_TYPES}
_NUMPY = {"float32": "<f4", "float64": "<f8", "float16": "<f2", "bfloat16": "<i2",
          "int8": "i1", "int16": "<i2", "int32": "<i4", "int64": "<i8", "uint8": "u1",
          "bool": "?", "complex64": "<c8", "complex128": "<c16"}


class StorageType:
    """What the pickle's torch.FloatStorage (and so on) or torch.storage.UntypedStorage
    stands for: the dtype of the storage, None when untyped (bytes)."""

    def __init__(self, torch_name: str, dtype: str | None):
        self.torch_name, self.dtype = torch_name, dtype

    def __repr__(self):
        return f"<storage type {self.torch_name}>"

    def __call__(self, *args, **kwargs):
        raise pickle.UnpicklingError(f"load(): the checkpoint calls {self.torch_name}(), which "
                                     "ember cannot load: expected storages as persistent ids")


class Storage:
    """One storage of a checkpoint: raw bytes, the dtype they were saved as and the
    location (device) they were saved from. typed() gives one base tensor per dtype, so that
    the tensors rebuilt on it are views of one tensor."""

    def __init__(self, blob: np.ndarray, dtype: str | None, location: str, restore,
                 byteswap: bool = False):
        self.blob, self.dtype, self.location = blob, dtype, location
        self.restore, self.byteswap = restore, byteswap
        self.bases: dict[str, object] = {}

    @property
    def nbytes(self) -> int:
        return len(self.blob)

    def typed(self, dtype: str):
        base = self.bases.get(dtype)
        if base is None:
            base = self.restore(tensor_over(self.blob, dtype, self.byteswap), self.location)
            self.bases[dtype] = base
        return base


def tensor_over(blob: np.ndarray, dtype: str, byteswap: bool):
    """A 1-D tensor of dtype over the bytes of blob, sharing them when it can."""
    np_dtype = np.dtype(_NUMPY[dtype])
    n = len(blob) // np_dtype.itemsize
    blob = blob[:n * np_dtype.itemsize]
    if byteswap or blob.ctypes.data % np_dtype.itemsize or not blob.flags.writeable:
        array = blob.view(np_dtype.newbyteorder(">") if byteswap else np_dtype).astype(np_dtype)
    else:
        array = blob.view(np_dtype)
    if dtype == "bfloat16":
        return _bfloat16_over(array)
    return _C.from_numpy(array)


def _bfloat16_over(array: np.ndarray):
    """A bfloat16 tensor over the int16 array's memory.

    Note [bfloat16 through DLPack]: numpy has no bfloat16, and Ember has no Python-visible
    way to reinterpret a tensor's bytes as another dtype. The int16 array's DLPack capsule
    differs from a bfloat16 one only in its dtype code (DLTensor.dtype.code, at byte 20 of
    the unversioned DLManagedTensor, whose layout the DLPack ABI fixes): kDLInt (0) becomes
    kDLBfloat (4) before ember.from_dlpack consumes the capsule, and numpy's deleter keeps
    the array alive for as long as the tensor lives.
    """
    import ctypes
    if array.size == 0:
        return ember.empty(0, dtype=_C.bfloat16)
    capsule = array.__dlpack__()
    get = ctypes.pythonapi.PyCapsule_GetPointer
    get.restype, get.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
    dtype = (ctypes.c_uint8 * 4).from_address(get(capsule, b"dltensor") + 20)
    if bytes(dtype) != b"\x00\x10\x01\x00":   # not (kDLInt, 16 bits, 1 lane): copy instead
        out = ember.empty(array.size, dtype=_C.bfloat16)
        ctypes.memmove(out.data_ptr(), array.ctypes.data, array.nbytes)
        return out
    dtype[0] = 4
    return _C.from_dlpack(capsule)


def restorer(map_location):
    """restore(base tensor, saved location) -> tensor, per torch.load's map_location."""
    def default(t, location):
        return t if _C.device(location).type == "cpu" else t.to(location)

    if map_location is None:
        return default
    if isinstance(map_location, dict):
        return lambda t, location: default(t, str(map_location.get(location, location)))
    if isinstance(map_location, (str, bytes, _C.device)) or type(map_location).__name__ == "device":
        target = map_location.decode() if isinstance(map_location, bytes) else str(map_location)
        return lambda t, location: default(t, target)
    if callable(map_location):
        def call(t, location):
            out = map_location(t, location)
            return default(t, location) if out is None else out
        return call
    raise TypeError("load(): expected map_location to be None, a device, a device name, a dict "
                    f"or a callable, but got {type(map_location).__name__}")


# ---------------------------------------------------------------------------------------
# rebuild functions (what torch._utils' names map to)


def _storage_view(storage, dtype: str | None, offset, size, stride, fn: str):
    check(isinstance(storage, Storage), f"the checkpoint calls {fn} with a "
          f"{type(storage).__name__} where a storage belongs")
    check(dtype is not None, f"the checkpoint calls {fn} on an untyped storage without a "
          "dtype")
    check(isinstance(size, tuple) and isinstance(stride, tuple) and len(size) == len(stride)
          and all(_is_int(x) for x in size + stride) and _is_int(offset),
          f"the checkpoint calls {fn} with a malformed size {size!r}, stride {stride!r} or "
          f"offset {offset!r}")
    size, stride = [int(x) for x in size], [int(x) for x in stride]
    base = storage.typed(dtype)
    if 0 in size:
        return ember.empty_strided(size, stride, dtype=_DTYPES[dtype], device=base.device)
    hi = offset + sum((n - 1) * s for n, s in zip(size, stride))
    check(hi < base.numel(), f"the checkpoint has a tensor of size {tuple(size)} and stride "
          f"{tuple(stride)} at offset {offset} that reaches past the end of its storage "
          f"({base.numel()} elements of {dtype})")
    return ember.as_strided(base, size, stride, offset)


def _is_int(x) -> bool:
    return isinstance(x, int) and not isinstance(x, bool) and x >= 0


def _finish(t, requires_grad, metadata, fn: str):
    check(isinstance(requires_grad, bool), f"the checkpoint calls {fn} with requires_grad "
          f"{requires_grad!r}, expected True or False")
    if metadata:
        check(isinstance(metadata, dict) and set(metadata) <= {"conj", "neg"},
              f"the checkpoint calls {fn} with tensor metadata {metadata!r}, of which ember "
              "reads only 'conj' and 'neg'")
        # torch's lazy conjugate and negative bits; ember materializes them (a copy).
        if metadata.get("conj") and t.is_complex():
            parts = ember.view_as_real(t).clone()
            parts[..., 1].neg_()
            t = ember.view_as_complex(parts)
        if metadata.get("neg"):
            t = -t
    if requires_grad:
        t.requires_grad_(True)
    return t


def _rebuild_tensor(storage, storage_offset, size, stride):
    return _rebuild_tensor_v2(storage, storage_offset, size, stride, False, None)


def _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad, backward_hooks,
                       metadata=None):
    fn = "torch._utils._rebuild_tensor_v2"
    dtype = storage.dtype if isinstance(storage, Storage) else None
    t = _storage_view(storage, dtype, storage_offset, size, stride, fn)
    return _finish(t, requires_grad, metadata, fn)


def _rebuild_tensor_v3(storage, storage_offset, size, stride, requires_grad, backward_hooks,
                       dtype, metadata=None):
    fn = "torch._utils._rebuild_tensor_v3"
    check(isinstance(dtype, _C.dtype), f"the checkpoint calls {fn} with dtype {dtype!r}")
    name = str(dtype).rsplit(".", 1)[-1]
    t = _storage_view(storage, name, storage_offset, size, stride, fn)
    return _finish(t, requires_grad, metadata, fn)


def _rebuild_parameter(data, requires_grad, backward_hooks):
    check(isinstance(data, _C.TensorBase) and isinstance(requires_grad, bool),
          "the checkpoint calls torch._utils._rebuild_parameter with "
          f"({type(data).__name__}, {requires_grad!r}), expected (tensor, bool)")
    return ember.nn.Parameter(data, requires_grad)


def _set_state(obj, state):
    """Sets the Python attributes a tensor was saved with (its __dict__, or (dict, slots))."""
    if state is None:
        return obj
    if isinstance(state, tuple) and len(state) == 2:
        parts = [s for s in state if s]
    else:
        parts = [state]
    for part in parts:
        check(isinstance(part, dict) and all(isinstance(k, str) for k in part),
              f"the checkpoint has tensor state {type(part).__name__}, expected a dict")
        for k, v in part.items():
            setattr(obj, k, v)
    return obj


def _rebuild_parameter_with_state(data, requires_grad, backward_hooks, state):
    return _set_state(_rebuild_parameter(data, requires_grad, backward_hooks), state)


def _rebuild_from_type_v2(func, new_type, args, state):
    check(func in _REBUILDERS and isinstance(args, tuple), "the checkpoint calls "
          f"torch._tensor._rebuild_from_type_v2 with {func!r}, expected a rebuild function")
    t = func(*args)
    if isinstance(new_type, type) and issubclass(new_type, _C.TensorBase) \
            and not isinstance(t, new_type):
        t = _C.TensorBase._make_subclass(new_type, t, t.requires_grad)
    return _set_state(t, state)


def _rebuild_meta_tensor_no_storage(dtype, size, stride, requires_grad=False):
    t = ember.empty_strided(list(size), list(stride), dtype=dtype, device="meta")
    return t.requires_grad_(True) if requires_grad else t


def _rebuild_device_tensor_from_cpu_tensor(data, dtype, device, requires_grad):
    t = data.to(dtype=dtype, device=device)
    return t.requires_grad_(True) if requires_grad else t


def _device(*args):
    check(1 <= len(args) <= 2 and isinstance(args[0], str), f"the checkpoint builds a device "
          f"from {args!r}")
    return _C.device(*args)


def _encode(text, encoding="utf-8"):
    """_codecs.encode as protocol-2 pickles use it for bytes (latin-1 text only)."""
    check(isinstance(text, str) and encoding in ("latin1", "latin-1"),
          f"the checkpoint calls _codecs.encode with {type(text).__name__} and "
          f"{encoding!r}, expected a str and 'latin1'")
    return text.encode("latin1")


def _get_layout(name):
    """torch.serialization._get_layout: a layout from its name ("torch.sparse_coo")."""
    short = str(name).split(".")[-1]
    check(short in ("strided", "sparse_coo", "sparse_csr", "sparse_csc"),
           f"the checkpoint names layout {name!r}, which ember.load does not know")
    return getattr(ember, short)


def _rebuild_sparse_tensor(layout, data):
    """torch._utils._rebuild_sparse_tensor: a sparse tensor from its members, every index
    checked against the size (Note [Sparse invariants]: a damaged file cannot make one that
    reads out of bounds)."""
    if layout == ember.sparse_coo:
        check(isinstance(data, tuple) and len(data) in (3, 4), "a sparse COO tensor's data is malformed")
        indices, values, size = data[:3]
        coalesced = data[3] if len(data) == 4 else None
        return ember.sparse_coo_tensor(indices, values, size, is_coalesced=coalesced)
    check(layout in (ember.sparse_csr, ember.sparse_csc) and isinstance(data, tuple) and len(data) == 4,
           f"rebuilding a sparse tensor of layout {layout} is not supported")
    compressed, plain, values, size = data
    return ember.sparse_compressed_tensor(compressed, plain, values, size, layout=layout)


_REBUILDERS = {_rebuild_tensor, _rebuild_tensor_v2, _rebuild_tensor_v3, _rebuild_parameter,
               _rebuild_parameter_with_state, _rebuild_meta_tensor_no_storage,
               _rebuild_device_tensor_from_cpu_tensor, _rebuild_sparse_tensor}

# "module.name" as the file names it -> the object ember.load uses for it.
_ALLOWED: dict[str, object] = {
    "collections.OrderedDict": OrderedDict, "collections.Counter": Counter,
    "builtins.set": set, "builtins.frozenset": frozenset, "builtins.bytearray": bytearray,
    "builtins.complex": complex, "builtins.bytes": bytes, "_codecs.encode": _encode,
    "torch.Size": _C.Size, "torch.device": _device,
    "torch.Tensor": ember.Tensor, "torch._tensor.Tensor": ember.Tensor,
    "torch.nn.parameter.Parameter": ember.nn.Parameter,
    "torch._tensor._rebuild_from_type_v2": _rebuild_from_type_v2,
    **{f"torch._utils.{f.__name__}": f for f in _REBUILDERS},
    **{f"torch.{name}": _DTYPES[name] for name in STORAGE_TYPES},
    **{f"torch.{cls}": StorageType(f"torch.{cls}", name) for name, cls in STORAGE_TYPES.items()},
    **{f"torch.cuda.{cls}": StorageType(f"torch.cuda.{cls}", name)
       for name, cls in STORAGE_TYPES.items()},
    "torch.storage.UntypedStorage": StorageType("torch.storage.UntypedStorage", None),
    "torch.serialization._get_layout": _get_layout,
    "torch.UntypedStorage": StorageType("torch.UntypedStorage", None),
}
_UNSUPPORTED = {
    "torch._utils._rebuild_qtensor": "it rebuilds a quantized tensor",
    "torch._utils._rebuild_nested_tensor": "it rebuilds a nested tensor",
    "torch._utils._rebuild_wrapper_subclass": "it rebuilds a wrapper tensor subclass",
    "torch._utils._rebuild_device_tensor_from_numpy": "it rebuilds a tensor through numpy",
    **{f"torch.{t}": "a dtype ember does not have" for t in (
        "uint16", "uint32", "uint64", "complex32", "float8_e4m3fn", "float8_e5m2",
        "float8_e4m3fnuz", "float8_e5m2fnuz", "float8_e8m0fnu", "float4_e2m1fn_x2", "qint8",
        "quint8", "qint32", "quint4x2", "quint2x4", "bits8", "bits16", "bits1x8", "bits2x4",
        "bits4x2", "ComplexHalfStorage", "QInt8Storage", "QUInt8Storage", "QInt32Storage",
        "QUInt4x2Storage", "QUInt2x4Storage")},
}


class Refused(pickle.UnpicklingError):
    """weights_only=True met a global it does not allow (a pickle.UnpicklingError, as torch's)."""


def refused(full_name: str) -> Refused:
    return Refused(
        f"load(): Weights only load failed: the checkpoint names the global {full_name}, which "
        "weights_only=True does not allow (it would run code or build an object the file "
        f"chooses). If you trust this file, allow it with ember.serialization."
        f"add_safe_globals([{full_name.rsplit('.', 1)[-1]}]) or the ember.serialization."
        "safe_globals([...]) context manager, or load with weights_only=False.")


def _py3_name(module: str, name: str) -> tuple[str, str]:
    """Python 2 names, which protocol-2 pickles use (__builtin__.set), as pickle maps them."""
    if (module, name) in _compat_pickle.NAME_MAPPING:
        return _compat_pickle.NAME_MAPPING[(module, name)]
    return _compat_pickle.IMPORT_MAPPING.get(module, module), name


def unsafe_globals(reader) -> list[str]:
    """The globals a pickle names that weights_only=True would refuse, read from its opcodes
    without running it (STACK_GLOBAL's operands are followed through the memo)."""
    allowed = {**_ALLOWED, **_UNSUPPORTED, **_user_allowed()}
    found: list[str] = []
    strings: list = []   # the last values pushed, when they are strings
    memo: dict = {}
    for op, arg, _ in pickletools.genops(reader):
        if op.name == "GLOBAL":
            names = [tuple(arg.split(" ", 1))]
        elif op.name == "STACK_GLOBAL" and len(strings) >= 2 and None not in strings[-2:]:
            names = [(strings[-2], strings[-1])]
        else:
            names = []
        for module, name in names:
            full = ".".join(_py3_name(module, name))
            if full not in allowed and full not in found:
                found.append(full)
        if op.name in ("BINPUT", "LONG_BINPUT", "PUT", "MEMOIZE") and strings:
            memo[len(memo) if op.name == "MEMOIZE" else arg] = strings[-1]
        elif op.name in ("BINGET", "LONG_BINGET", "GET"):
            strings.append(memo.get(arg))
        elif "UNICODE" in op.name or "STRING" in op.name:
            strings.append(arg)
        elif op.name not in ("FRAME",):
            strings.append(None)
        del strings[:-2]
    return found


class Unpickler(pickle.Unpickler):
    """pickle.Unpickler whose globals are torch's names mapped to Ember's and, with
    weights_only, nothing else but what add_safe_globals() allowed."""

    def __init__(self, file, persistent_load, weights_only: bool, **kwargs):
        super().__init__(file, **kwargs)
        self._persistent_load = persistent_load
        self.weights_only = weights_only
        self.user_allowed = _user_allowed()

    def persistent_load(self, pid):
        return self._persistent_load(pid)

    def find_class(self, module: str, name: str):
        module, name = _py3_name(module, name)
        full = f"{module}.{name}"
        if full in self.user_allowed:
            return self.user_allowed[full]
        if full in _ALLOWED:
            return _ALLOWED[full]
        if full in _UNSUPPORTED:
            raise CheckpointError(f"load(): the checkpoint names {full} "
                                  f"({_UNSUPPORTED[full]}), which ember cannot load")
        if self.weights_only:
            raise refused(full)
        return super().find_class(module, name)
