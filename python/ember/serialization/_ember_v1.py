"""Ember's own checkpoint format (version 1), which carries data only, never code.

ember.save wrote it before it wrote PyTorch's zip format; ember.load still reads it.

File layout (all integers little-endian)::

    offset  size  field
    0       8     magic b"\\x89EMBCKP\\n"
    8       4     u32 format version (1)
    12      4     u32 flags (0)
    16      8     u64 header length H in bytes
    24      4     u32 CRC32 of the header bytes
    28      4     u32 CRC32 of bytes 0..27 (this prefix)
    32      H     header: UTF-8 JSON (below)
    D       ...   data section, D = 32 + H rounded up to a multiple of 64: the storage
                  blobs, each starting at D + its 'offset' (a multiple of 64), zero padding
                  between them and after the last
    N - 16  16    trailer: b"EMBEREND" then u64 N, the length of the whole file

The header is a JSON object::

    {"format": "ember", "version": 1, "byteorder": "little",
     "storages": [{"dtype": "float32", "offset": 0, "nbytes": 48, "crc32": 1234}, ...],
     "tensors": [{"storage": 0, "dtype": "float32", "shape": [3, 4], "strides": [4, 1],
                  "storage_offset": 0, "device": "cpu", "requires_grad": false,
                  "parameter": false}, ...],
     "root": <node>}

'storage' is an index into 'storages', or null for a tensor with no elements.
'storage_offset' and 'strides' count elements of the blob, which holds the raw bytes of the
span of memory the tensors on it touch (not necessarily a whole allocation). A node is
null, true/false, a JSON integer, a finite JSON float (non-finite: {"float": "nan"|"inf"|
"-inf"}), a JSON string, or one of the tagged objects {"bytes": base64}, {"complex": [re,
im]}, {"list": [node...]}, {"tuple": [node...]}, {"dict": [[key node, value node]...]},
{"odict": [...]} (OrderedDict), {"size": [int...]} (ember.Size), {"dtype": name},
{"device": str}, {"tensor": index into 'tensors'}. Dict keys are nodes, so the int keys of an
optimizer's state survive.

Semantics:

* Tensors that view one block of memory (a tensor and its transpose or slice; a Parameter
  and its .data) are written as one blob and load as views of one tensor, so writing
  through one loaded view shows in the others. Storages are found by base address
  (data_ptr() - storage_offset() * element_size()) and by overlap of the spans touched.
  The same tensor object reached twice loads as one object.
* requires_grad of leaf tensors and nn.Parameter round-trip (a Parameter loads as a
  Parameter); .grad and autograd history are not saved. State dicts hold plain tensors.
* save() writes atomically (see _files.write_atomically).
* load_buffer() checks the magic, the prefix, header and blob CRC32s, the zero padding,
  the trailer length and every tensor's bounds; any failure raises CheckpointError, a
  RuntimeError, naming what is wrong. The format has no code in it, so weights_only has
  no effect on it.
* ember.load(mmap=True) maps the file copy-on-write (numpy.memmap mode 'c'): tensors share
  the file's pages until written, and writes never reach the file. bfloat16 blobs, which
  numpy cannot hold, are copied. Without mmap the file is read into one buffer that the
  loaded tensors share (freed when the last of them is).
"""
from __future__ import annotations

import base64
import ctypes
import json
import math
import struct
import zlib
from collections import OrderedDict

import numpy as np

import ember
from ember import _C
from ember._tensor import Tensor

from . import _files
from ._files import CheckpointError, check as _check, memory as _memory
from ._views import ViewSet, dtype_name as _dtype_name, span as _span

MAGIC = b"\x89EMBCKP\n"
TRAILER_MAGIC = b"EMBEREND"
VERSION = 1
ALIGN = 64
_PREFIX = struct.Struct("<8sIIQII")   # magic, version, flags, header length, header crc, prefix crc
_TRAILER = struct.Struct("<8sQ")      # trailer magic, file length

# name -> (ember dtype, numpy dtype or None when numpy has no such type)
_DTYPES = {
    "float32": (_C.float32, np.dtype("<f4")), "float64": (_C.float64, np.dtype("<f8")),
    "float16": (_C.float16, np.dtype("<f2")), "bfloat16": (_C.bfloat16, None),
    "int8": (_C.int8, np.dtype("i1")), "int16": (_C.int16, np.dtype("<i2")),
    "int32": (_C.int32, np.dtype("<i4")), "int64": (_C.int64, np.dtype("<i8")),
    "uint8": (_C.uint8, np.dtype("u1")), "bool": (_C.bool, np.dtype("?")),
    "complex64": (_C.complex64, np.dtype("<c8")), "complex128": (_C.complex128, np.dtype("<c16")),
}
_ITEMSIZE = {"bfloat16": 2, **{k: v[1].itemsize for k, v in _DTYPES.items() if v[1] is not None}}


def _align(n: int) -> int:
    return (n + ALIGN - 1) // ALIGN * ALIGN


# ---------------------------------------------------------------------------------------
# save


class _Writer:
    """Turns an object tree into the header and the list of storage blobs to write."""

    def __init__(self):
        self.tensors: list[dict] = []
        self.tensor_index: dict[int, int] = {}
        self.viewset = ViewSet()
        self.active: set[int] = set()

    def encode(self, obj):
        if obj is None or isinstance(obj, (bool, str)):
            return obj
        if isinstance(obj, int):
            return int(obj)
        if isinstance(obj, float):
            if math.isfinite(obj):
                return float(obj)
            return {"float": "nan" if math.isnan(obj) else ("inf" if obj > 0 else "-inf")}
        if isinstance(obj, _C.TensorBase):
            return {"tensor": self.tensor(obj)}
        if isinstance(obj, (bytes, bytearray)):
            return {"bytes": base64.b64encode(bytes(obj)).decode("ascii")}
        if isinstance(obj, complex):
            return {"complex": [self.encode(obj.real), self.encode(obj.imag)]}
        if isinstance(obj, _C.dtype):
            return {"dtype": _dtype_name(obj)}
        if isinstance(obj, _C.device):
            return {"device": str(obj)}
        if isinstance(obj, _C.Size):
            return {"size": [int(s) for s in obj]}
        if isinstance(obj, (list, tuple, dict)):
            if id(obj) in self.active:
                raise ValueError("save(): expected an object without reference cycles, but "
                                 f"a {type(obj).__name__} contains itself")
            self.active.add(id(obj))
            try:
                if isinstance(obj, dict):
                    items = [[self.encode(k), self.encode(v)] for k, v in obj.items()]
                    return {"odict" if isinstance(obj, OrderedDict) else "dict": items}
                tag = "tuple" if isinstance(obj, tuple) else "list"
                return {tag: [self.encode(v) for v in obj]}
            finally:
                self.active.discard(id(obj))
        raise TypeError(f"save(): cannot save an object of type {type(obj).__name__}; expected "
                        "tensors, dicts, lists, tuples, str, int, float, bool, bytes or None")

    def tensor(self, t: Tensor) -> int:
        if id(t) in self.tensor_index:
            return self.tensor_index[id(t)]
        index = len(self.tensors)
        self.tensor_index[id(t)] = index
        self.viewset.add(index, t)
        self.tensors.append({
            "storage": None, "dtype": _dtype_name(t.dtype), "shape": [int(s) for s in t.shape],
            "strides": [int(s) for s in t.stride()], "storage_offset": 0,
            "device": str(t.device), "requires_grad": bool(t.requires_grad and t.is_leaf),
            "parameter": isinstance(t, ember.nn.Parameter)})
        return index

    def plan(self, obj) -> tuple[bytes, list[tuple[memoryview, int]], int]:
        """(prefix + header + padding, [(blob, offset in data section)], data length)."""
        root = self.encode(obj)
        storages, views, offset = [], [], 0
        for blob in self.viewset.blobs():
            if not blob.nbytes:   # tensors without elements have no storage in this format
                continue
            for index, element_offset in blob.members.items():
                self.tensors[index]["storage"] = len(storages)
                self.tensors[index]["storage_offset"] = element_offset
            mem = _memory(blob.address, blob.nbytes)
            storages.append({"dtype": blob.dtype, "offset": offset, "nbytes": blob.nbytes,
                             "crc32": zlib.crc32(mem)})
            views.append((mem, offset))
            offset = _align(offset + blob.nbytes)
        header = json.dumps({"format": "ember", "version": VERSION, "byteorder": "little",
                             "storages": storages, "tensors": self.tensors, "root": root},
                            separators=(",", ":"), allow_nan=False).encode("utf-8")
        head = struct.pack("<8sIIQI", MAGIC, VERSION, 0, len(header), zlib.crc32(header))
        head += struct.pack("<I", zlib.crc32(head)) + header
        head += bytes(_align(len(head)) - len(head))
        return head, views, offset


def _write_file(f, head: bytes, views, data_len: int) -> None:
    write = _files.write_all
    write(f, head)
    written = 0
    for mem, offset in views:
        write(f, bytes(offset - written))
        write(f, mem)
        written = offset + len(mem)
    write(f, bytes(data_len - written))
    write(f, _TRAILER.pack(TRAILER_MAGIC, len(head) + data_len + _TRAILER.size))


def save(obj, f) -> None:
    """Saves a tensor or a tree of containers of tensors and plain values to a path or
    binary file in this format (which ember.save no longer writes by default)."""
    writer = _Writer()
    head, views, data_len = writer.plan(obj)   # fails before the target is touched
    _files.write_atomically(f, lambda out: _write_file(out, head, views, data_len))


# ---------------------------------------------------------------------------------------
# load


def _parse(buf: np.ndarray) -> tuple[dict, int]:
    """Validates the framing and checksums; returns the header and the data section start."""
    size = len(buf)
    head = bytes(buf[:_PREFIX.size])
    _check(size >= _PREFIX.size + _TRAILER.size,
           f"the checkpoint is truncated: it has only {size} bytes")
    magic, version, flags, header_len, header_crc, prefix_crc = _PREFIX.unpack(head)
    _check(zlib.crc32(head[:28]) == prefix_crc, "the checkpoint is corrupted: checksum "
           "mismatch in its 32-byte prefix")
    _check(version <= VERSION, f"the checkpoint has format version {version}, but this Ember "
           f"reads versions up to {VERSION}; upgrade Ember")
    tmagic, length = _TRAILER.unpack(bytes(buf[size - _TRAILER.size:]))
    if tmagic != TRAILER_MAGIC:
        raise CheckpointError("load(): the checkpoint is truncated or has trailing bytes: its "
                              f"end marker is missing ({size} bytes read)")
    _check(length == size, f"the checkpoint is truncated or has trailing bytes: its trailer "
           f"says {length} bytes, but the file has {size}")
    data_start = _align(_PREFIX.size + header_len)
    _check(data_start <= size - _TRAILER.size,
           f"the checkpoint is corrupted: its header length {header_len} exceeds the file")
    header = bytes(buf[_PREFIX.size:_PREFIX.size + header_len])
    _check(zlib.crc32(header) == header_crc, "the checkpoint is corrupted: checksum mismatch "
           "in its header")
    _check(not buf[_PREFIX.size + header_len:data_start].any(),
           "the checkpoint is corrupted: nonzero padding after the header")
    try:
        meta = json.loads(header.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as e:
        raise CheckpointError(f"load(): the checkpoint header is not valid JSON: {e}") from None
    _check(isinstance(meta, dict) and meta.get("format") == "ember"
           and isinstance(meta.get("storages"), list) and isinstance(meta.get("tensors"), list)
           and "root" in meta, "the checkpoint header is malformed")
    _check(meta.get("byteorder") == "little", "the checkpoint has an unsupported byte order")
    return meta, data_start


def _is_int(x, lo: int = 0) -> bool:
    return isinstance(x, int) and not isinstance(x, bool) and x >= lo


def _load_storages(buf: np.ndarray, meta: dict, data_start: int) -> list[Tensor]:
    data_end = len(buf) - _TRAILER.size
    bases, cursor = [], data_start
    for i, s in enumerate(meta["storages"]):
        _check(isinstance(s, dict) and s.get("dtype") in _DTYPES and _is_int(s.get("offset"))
               and _is_int(s.get("nbytes")) and _is_int(s.get("crc32")),
               f"the checkpoint header has a malformed storage record {i}")
        name, start = s["dtype"], data_start + s["offset"]
        end = start + s["nbytes"]
        _check(start % ALIGN == 0 and s["nbytes"] % _ITEMSIZE[name] == 0 and cursor <= start
               and end <= data_end, f"the checkpoint has storage {i} out of bounds or "
               "misplaced; the file is corrupted or truncated")
        _check(not buf[cursor:start].any(), f"the checkpoint is corrupted: nonzero padding "
               f"before storage {i}")
        blob = buf[start:end]
        _check(zlib.crc32(blob) == s["crc32"], f"the checkpoint is corrupted: checksum "
               f"mismatch in storage {i} ({name}, {s['nbytes']} bytes)")
        ember_dtype, np_dtype = _DTYPES[name]
        if np_dtype is None:   # numpy has no bfloat16: copy the raw bytes into a new tensor
            base = ember.empty(s["nbytes"] // 2, dtype=ember_dtype)
            if s["nbytes"]:
                ctypes.memmove(base.data_ptr(), blob.ctypes.data, s["nbytes"])
        else:
            base = _C.from_numpy(blob.view(np_dtype))
        bases.append(base)
        cursor = end
    _check(not buf[cursor:data_end].any(), "the checkpoint is corrupted: nonzero padding "
           "after the last storage")
    return bases


def _device_for(saved: str, map_location):
    if map_location is None:
        return saved
    if isinstance(map_location, dict):
        return str(map_location.get(saved, saved))
    return str(map_location)


def _load_tensor(i: int, rec, bases: list[Tensor], map_location) -> Tensor:
    _check(isinstance(rec, dict) and rec.get("dtype") in _DTYPES
           and isinstance(rec.get("shape"), list) and isinstance(rec.get("strides"), list)
           and len(rec["shape"]) == len(rec["strides"])
           and all(_is_int(x) for x in rec["shape"]) and all(_is_int(x) for x in rec["strides"])
           and _is_int(rec.get("storage_offset")),
           f"the checkpoint header has a malformed tensor record {i}")
    shape, strides = rec["shape"], rec["strides"]
    dtype = _DTYPES[rec["dtype"]][0]
    storage = rec.get("storage")
    if storage is None:
        _check(0 in shape, f"the checkpoint's tensor {i} has elements but no storage")
        t = ember.empty_strided(shape, strides, dtype=dtype)
    else:
        _check(_is_int(storage) and storage < len(bases),
               f"the checkpoint's tensor {i} names a missing storage {storage}")
        base = bases[storage]
        _check(base.dtype == dtype, f"the checkpoint's tensor {i} has dtype {rec['dtype']} "
               f"but its storage has {base.dtype}")
        lo, hi = _span(shape, strides)
        offset = rec["storage_offset"]
        _check(0 not in shape and offset + hi <= base.numel(),
               f"the checkpoint's tensor {i} reaches past the end of storage {storage}")
        t = ember.as_strided(base, shape, strides, offset)
    if callable(map_location) and not isinstance(map_location, (str, dict, _C.device)):
        moved = map_location(t, rec.get("device", "cpu"))
        t = t if moved is None else moved
    else:
        device = _device_for(str(rec.get("device", "cpu")), map_location)
        if _C.device(device).type != "cpu":
            t = t.to(device)
    if rec.get("parameter"):
        return ember.nn.Parameter(t, bool(rec.get("requires_grad")))
    if rec.get("requires_grad"):
        t.requires_grad_(True)
    return t


def _decode(node, tensors: list[Tensor], depth: int = 0):
    _check(depth < 1000, "the checkpoint nests containers too deeply")
    if node is None or isinstance(node, (bool, int, float, str)):
        return node
    _check(isinstance(node, dict) and len(node) == 1, "the checkpoint header has a malformed "
           f"node {str(node)[:80]}")
    (tag, value), = node.items()
    if tag == "tensor":
        _check(_is_int(value) and value < len(tensors), f"the checkpoint names a missing "
               f"tensor {value}")
        return tensors[value]
    if tag in ("list", "tuple") and isinstance(value, list):
        items = [_decode(v, tensors, depth + 1) for v in value]
        return tuple(items) if tag == "tuple" else items
    if tag in ("dict", "odict") and isinstance(value, list):
        out = OrderedDict() if tag == "odict" else {}
        for pair in value:
            _check(isinstance(pair, list) and len(pair) == 2, "the checkpoint header has a "
                   "malformed dict entry")
            key = _decode(pair[0], tensors, depth + 1)
            try:
                out[key] = _decode(pair[1], tensors, depth + 1)
            except TypeError:
                raise CheckpointError("load(): the checkpoint has an unhashable dict key") from None
        return out
    if tag == "float" and value in ("nan", "inf", "-inf"):
        return float(value)
    if tag == "bytes" and isinstance(value, str):
        try:
            return base64.b64decode(value.encode("ascii"), validate=True)
        except ValueError:
            raise CheckpointError("load(): the checkpoint has malformed bytes") from None
    if tag == "complex" and isinstance(value, list) and len(value) == 2:
        re, im = (_decode(v, tensors, depth + 1) for v in value)
        return complex(re, im)
    if tag == "size" and isinstance(value, list) and all(_is_int(v) for v in value):
        return _C.Size(value)
    if tag == "dtype" and value in _DTYPES:
        return _DTYPES[value][0]
    if tag == "device" and isinstance(value, str):
        return _C.device(value)
    raise CheckpointError(f"load(): the checkpoint header has an unknown node {str(node)[:80]}")


def load_buffer(buf: np.ndarray, map_location=None):
    """Loads a file in this format, read or mapped into buf (see the module docstring).

    map_location: None (the saved devices), a device or its name, a dict from saved to
    new device names, or a callable (tensor, saved device name) -> tensor or None.
    """
    meta, data_start = _parse(buf)
    bases = _load_storages(buf, meta, data_start)
    tensors = [_load_tensor(i, rec, bases, map_location) for i, rec in enumerate(meta["tensors"])]
    return _decode(meta["root"], tensors)
