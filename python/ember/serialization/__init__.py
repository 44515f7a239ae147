"""ember.save / ember.load: checkpoints interchangeable with torch.save / torch.load.

Formats:

* ember.save writes PyTorch's zip format (torch.save's since 1.6), which
  torch.load(path, weights_only=True) reads: an uncompressed zip archive of
  archive/data.pkl (a protocol-2 pickle; _pickler says what it names), archive/byteorder,
  archive/data/<key> (one record per storage, 64-byte aligned) and archive/version, plus
  Ember's integrity record and comment (_zip), which torch ignores.
  _use_new_zipfile_serialization=False writes torch's legacy (pre-1.6) format instead.
* ember.load reads the zip format written by either library, torch's legacy format, and
  Ember's own earlier format (_ember_v1), telling them apart by their first bytes.

Semantics:

* Tensors that view one storage (a tensor and its transpose or slice; a Parameter and its
  .data) are written as one storage and load as views of one tensor, so writing through one
  loaded view shows in the others; the same holds for torch files. Storage offsets and
  strides are kept. Tensors of different dtypes are written as separate storages.
* requires_grad is saved as torch saves it (a non-leaf loads as a leaf that requires grad);
  nn.Parameter loads as ember.nn.Parameter. .grad and autograd history are not saved.
* load(weights_only=True), the default as in PyTorch 2.6+, unpickles only tensors,
  storages, containers (dict, OrderedDict, list, tuple, set), numbers, strings, bytes,
  Size, device and dtype, and the globals add_safe_globals() allowed; any other global raises
  pickle.UnpicklingError naming it, before anything runs (get_unsafe_globals_in_checkpoint
  lists them without loading). A whole module (ember.save(model)
  pickles it as torch.save does) needs weights_only=False, which runs the pickle's code:
  only for files you trust.
* map_location: None (the saved locations), a device or its name, a dict from saved to new
  location names, or a callable (storage, location) -> tensor or None, where the storage is
  a 1-D tensor over all of it (torch passes a storage object).
* load(mmap=True) maps the file copy-on-write (numpy.memmap mode 'c'): tensors share the
  file's pages until written, and writes never reach the file. Zip and Ember-format files
  only (torch's legacy format cannot be mapped). Without mmap the file is read into one
  buffer that the loaded tensors share.
* save() to a path is atomic: it writes a temporary file beside the target, fsyncs it and
  renames it over the target (a crash leaves the old file or the new one, and maybe a stray
  '.<name>.*.tmp'). Writing to an open file object is not atomic. It pickles everything
  before touching the target, so an object that cannot be saved leaves the target as it was.
* load() raises CheckpointError (a RuntimeError) naming what is wrong for a foreign,
  truncated, corrupted or malformed file: every zip record's CRC-32 and the zip structure are
  checked, and in files ember wrote every other byte too.
"""
from __future__ import annotations

import os
import pickle
import pickletools
import struct
import sys
import warnings

import numpy as np

import ember

from . import _ember_v1, _files, _pickler, _zip
from ._files import BufferReader, CheckpointError, check
from ._unpickler import (Refused, Storage, StorageType, Unpickler, add_safe_globals,
                         clear_safe_globals, get_safe_globals, restorer, safe_globals,
                         tensor_over, unsafe_globals)
from ._views import ITEMSIZE

__all__ = ["save", "load", "CheckpointError", "add_safe_globals", "get_safe_globals",
           "clear_safe_globals", "safe_globals", "get_unsafe_globals_in_checkpoint"]

_LEGACY_MAGIC = 0x1950A86A20F9469CFC6C
_LEGACY_PROTOCOL = 1001
_ZIP_MAGIC = b"PK\x03\x04"
_INTEGRITY_NOTE = b"ember wrote this file: the zip comment is a CRC-32 of the zip headers\n"


# ---------------------------------------------------------------------------------------
# save


def save(obj, f, pickle_module=None, pickle_protocol=2, _use_new_zipfile_serialization=True,
         _disable_byteorder_record=False) -> None:
    """Saves obj (a tensor, a state dict, any picklable object) to a path or binary file in
    the format torch.save writes; see the module docstring."""
    if sys.byteorder != "little":
        raise NotImplementedError("save(): big-endian hosts are not supported")
    if pickle_module is not None and pickle_module is not pickle:
        raise ValueError("save(): expected pickle_module to be None or pickle: ember pickles "
                         "with its own pickler, which names torch's rebuild functions")
    legacy = not _use_new_zipfile_serialization
    data, plan = _pickler.dumps(obj, pickle_protocol, legacy)   # before the target is touched
    storages = [(key, plan.blobs[index]) for index, key in plan.keys.items()]
    if legacy:
        chunks = _legacy_chunks(data, storages, pickle_protocol)
    else:
        records = [("archive/data.pkl", data, None)]
        if not _disable_byteorder_record:
            records.append(("archive/byteorder", b"little", None))
        for key, blob in storages:
            records.append((f"archive/data/{key}", _files.memory(blob.address, blob.nbytes)
                            if blob.nbytes else b"", None))
        records += [("archive/version", b"3\n", None),
                    (f"archive/{_zip.INTEGRITY_RECORD}", _INTEGRITY_NOTE, None)]
        chunks = _zip.plan(records)

    def emit(out):
        for chunk in chunks:
            _files.write_all(out, chunk)

    _files.write_atomically(f, emit)


def _legacy_chunks(data: bytes, storages, protocol: int) -> list:
    sys_info = {"protocol_version": _LEGACY_PROTOCOL, "little_endian": True,
                "type_sizes": {"short": 2, "int": 4, "long": 4}}
    chunks = [pickle.dumps(x, protocol=protocol)
              for x in (_LEGACY_MAGIC, _LEGACY_PROTOCOL, sys_info)]
    chunks += [data, pickle.dumps([key for key, _ in storages], protocol=protocol)]
    for _, blob in storages:
        chunks.append(struct.pack("<q", blob.nbytes // ITEMSIZE[blob.dtype]))
        if blob.nbytes:
            chunks.append(_files.memory(blob.address, blob.nbytes))
    return chunks


# ---------------------------------------------------------------------------------------
# load


def _weights_only_from_env(weights_only):
    """torch's switches: TORCH_FORCE_WEIGHTS_ONLY_LOAD forces weights_only=True;
    TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD makes False the default when the caller gave none."""
    yes = ("1", "y", "yes", "true")
    force = os.getenv("TORCH_FORCE_WEIGHTS_ONLY_LOAD", "0").lower() in yes
    force_no = os.getenv("TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD", "0").lower() in yes
    if force and force_no:
        raise RuntimeError("Only one of `TORCH_FORCE_WEIGHTS_ONLY_LOAD` or "
                           "`TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD` should be set, but both were set.")
    if force:
        return True
    if weights_only is None:
        if force_no:
            warnings.warn("Environment variable TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD detected: since the "
                          "`weights_only` argument was not explicitly passed to `load`, forcing "
                          "weights_only=False.")
            return False
        return True
    return bool(weights_only)


def load(f, map_location=None, pickle_module=None, *, weights_only=None, mmap=None,
         **pickle_load_args):
    """Loads what ember.save or torch.save wrote to a path or binary file; see the module
    docstring for weights_only, map_location and mmap."""
    if sys.byteorder != "little":
        raise NotImplementedError("load(): big-endian hosts are not supported")
    if pickle_module is not None and pickle_module is not pickle:
        raise ValueError("load(): expected pickle_module to be None or pickle, but got "
                         f"{pickle_module!r}")
    weights_only = _weights_only_from_env(weights_only)
    restore = restorer(map_location)   # validates map_location before reading
    buf = _files.read_buffer(f, bool(mmap))
    head = bytes(buf[:16])
    if head and head[:len(_ember_v1.MAGIC)] == _ember_v1.MAGIC[:len(head)]:
        return _ember_v1.load_buffer(buf, map_location)
    if head and (head[:4] == _ZIP_MAGIC[:len(head)] or head.startswith(b"PK\x05\x06")):
        return _load_zip(buf, restore, weights_only, pickle_load_args)
    if head[:1] == b"\x80":
        if mmap:
            raise CheckpointError("load(): mmap=True needs the zip format, but this is the "
                                  "legacy torch.save format (_use_new_zipfile_serialization="
                                  "False); load it without mmap")
        return _load_legacy(buf, restore, weights_only, pickle_load_args)
    raise CheckpointError(f"load(): not a checkpoint: {_describe_foreign(buf, head)}")


def get_unsafe_globals_in_checkpoint(f) -> list[str]:
    """The globals ("module.name") in a checkpoint that load(weights_only=True) would refuse,
    found without running its pickle; [] for Ember's earlier format, which has none."""
    buf = _files.read_buffer(f, False)
    head = bytes(buf[:16])
    if head and head[:len(_ember_v1.MAGIC)] == _ember_v1.MAGIC[:len(head)]:
        return []
    if head and head[:4] == _ZIP_MAGIC[:len(head)]:
        archive = _zip.Archive(buf)
        names = [n for n in archive.records if n.split("/", 1)[-1] == "data.pkl"]
        check(bool(names), "the checkpoint is a zip archive without data.pkl")
        reader = BufferReader(archive.data(names[0]))
    else:
        check(head[:1] == b"\x80", f"not a checkpoint: {_describe_foreign(buf, head)}")
        reader = BufferReader(buf)
        for _ in range(3):   # the legacy format's magic number, protocol and system info
            _skip_pickle(reader)
    try:
        return unsafe_globals(reader)
    except ValueError as e:
        raise CheckpointError(f"load(): the checkpoint's pickle is malformed: {e}") from None


def _skip_pickle(reader) -> None:
    try:
        for _ in pickletools.genops(reader):
            pass
    except ValueError as e:
        raise CheckpointError(f"load(): the legacy torch.save checkpoint's pickle is malformed "
                              f"or truncated: {e}") from None


def _describe_foreign(buf, head: bytes) -> str:
    if not head:
        return "the file is empty"
    if len(buf) > 262 and bytes(buf[257:262]) == b"ustar":
        return ("it is a tar archive, the torch.save format of PyTorch before 0.4, which "
                "ember does not read; load it with torch and save it again")
    return (f"it starts with {head[:8]!r}; expected a zip archive (torch.save or ember.save), "
            "a legacy torch.save pickle or an Ember checkpoint")


def _unpickle(reader, persistent_load, weights_only: bool, kwargs: dict, what: str):
    unpickler = Unpickler(reader, persistent_load, weights_only, **kwargs)
    try:
        return unpickler.load()
    except (CheckpointError, Refused):
        raise
    except EOFError as e:
        raise CheckpointError(f"load(): the checkpoint's {what} is truncated") from e
    except pickle.UnpicklingError as e:
        raise CheckpointError(f"load(): the checkpoint's {what} is malformed: {e}") from e
    except Exception as e:
        if not weights_only:   # the pickle's own code raised: let it through
            raise
        raise CheckpointError(f"load(): the checkpoint's {what} is malformed: "
                              f"{type(e).__name__}: {e}") from e


def _storage_pid(pid, size: int):
    """(storage type, key, location, numel) of a persistent id of size elements."""
    check(isinstance(pid, tuple) and len(pid) == size and pid[0] in ("storage", b"storage"),
          f"the checkpoint names a persistent object {str(pid)[:80]}, expected ('storage', "
          "storage type, key, location, numel" + (", view)" if size == 6 else ")"))
    _, storage_type, key, location, numel = pid[:5]
    location = location.decode("ascii") if isinstance(location, bytes) else location
    check(isinstance(storage_type, StorageType) and isinstance(key, str)
          and isinstance(location, str) and isinstance(numel, int) and numel >= 0,
          f"the checkpoint has a malformed storage id {str(pid)[:80]}")
    return storage_type, key, location, numel


def _load_zip(buf: np.ndarray, restore, weights_only: bool, kwargs: dict):
    archive = _zip.Archive(buf)
    names = list(archive.records)
    check(bool(names), "the checkpoint is an empty zip archive")
    prefix = names[0].split("/", 1)[0] + "/"
    records = {n[len(prefix):]: n for n in names if n.startswith(prefix)}
    check("constants.pkl" not in records and not any(n.startswith("code/") for n in records),
          "the checkpoint is a TorchScript archive (torch.jit.save), which ember does not read")
    if "data.pkl" not in records:
        raise CheckpointError(f"load(): the checkpoint is a zip archive without "
                              f"{prefix}data.pkl, not a torch.save checkpoint")
    byteorder = archive.bytes(records["byteorder"]) if "byteorder" in records else b"little"
    check(byteorder in (b"little", b"big"), f"the checkpoint has byte order {byteorder[:20]!r}, "
          "expected 'little' or 'big'")
    storages: dict[str, Storage] = {}

    def persistent_load(pid):
        storage_type, key, location, numel = _storage_pid(pid, 5)
        if key in storages:
            check(storages[key].dtype == storage_type.dtype, f"the checkpoint names storage "
                  f"'{key}' with two types")
            return storages[key]
        name = records.get(f"data/{key}")
        check(name is not None, f"the checkpoint's pickle names storage '{key}', but the "
              f"archive has no record {prefix}data/{key}")
        blob = archive.data(name)
        nbytes = numel * (ITEMSIZE[storage_type.dtype] if storage_type.dtype else 1)
        check(len(blob) == nbytes, f"the checkpoint's record {name} has {len(blob)} bytes, "
              f"but its pickle says {numel} elements of {storage_type.torch_name} "
              f"({nbytes} bytes)")
        storages[key] = Storage(blob, storage_type.dtype, location, restore,
                                byteswap=byteorder != b"little")
        return storages[key]

    reader = BufferReader(archive.data(records["data.pkl"]))
    return _unpickle(reader, persistent_load, weights_only, kwargs, "data.pkl")


def _load_legacy(buf: np.ndarray, restore, weights_only: bool, kwargs: dict):
    """torch's legacy format: pickles of the magic number, the protocol version and system
    info, the main pickle, a pickle of the storage keys, then per key the storage's element
    count (int64) and bytes. Storages are created empty while the main pickle loads and
    filled from the data after it, as torch does."""
    reader = BufferReader(buf)

    def header(what: str):
        return _unpickle(reader, _no_persistent, True, kwargs,
                         f"pickle of the legacy torch.save {what}")

    magic = header("magic number")
    check(magic == _LEGACY_MAGIC, f"the file is a pickle but not a torch.save checkpoint: it "
          f"starts with {str(magic)[:40]}, not torch's magic number; ember does not load "
          "arbitrary pickles")
    version = header("protocol version")
    check(version == _LEGACY_PROTOCOL, f"the legacy torch.save checkpoint has protocol "
          f"version {version!r}, expected {_LEGACY_PROTOCOL}")
    sys_info = header("system info")
    check(isinstance(sys_info, dict), "the legacy torch.save checkpoint has malformed system "
          "info")
    check(sys_info.get("little_endian", True) is not False, "the legacy torch.save checkpoint "
          "is big-endian, which ember does not read; save it again in the zip format")
    roots: dict[str, Storage] = {}
    views: dict[str, tuple[str, Storage]] = {}   # view key -> (root key, storage)
    numels: dict[str, int] = {}

    def persistent_load(pid):
        if weights_only is False and isinstance(pid, tuple) and pid[:1] in (("module",),
                                                                            (b"module",)):
            return pid[1]   # a module class saved with its source: the class itself
        storage_type, key, location, numel = _storage_pid(pid, 6)
        check(storage_type.dtype is not None, "the legacy checkpoint has an untyped storage")
        itemsize = ITEMSIZE[storage_type.dtype]
        if key not in roots:
            roots[key] = Storage(np.zeros(numel * itemsize, np.uint8), storage_type.dtype,
                                 location, restore)
            numels[key] = numel
        root = roots[key]
        view = pid[5]
        if view is None:
            return root
        check(isinstance(view, tuple) and len(view) == 3, f"the legacy checkpoint has a "
              f"malformed storage view {view!r}")
        view_key, offset, size = view
        if view_key not in views:
            check(isinstance(offset, int) and isinstance(size, int) and 0 <= offset
                  and offset + size <= numels[key], f"the legacy checkpoint has a storage "
                  f"view {view!r} out of the bounds of its storage")
            views[view_key] = (key, Storage(
                root.blob[offset * itemsize:(offset + size) * itemsize], root.dtype,
                location, restore))
        return views[view_key][1]

    main_start = reader.tell()
    _skip_pickle(reader)   # find where the main pickle ends without running it
    main_end = reader.tell()
    keys = header("storage keys")
    check(isinstance(keys, list) and all(isinstance(k, str) for k in keys), "the legacy "
          "torch.save checkpoint has a malformed list of storage keys")
    data_at = reader.tell()
    reader.seek(main_start)
    reader.end = main_end
    result = _unpickle(reader, persistent_load, weights_only, kwargs, "legacy torch.save pickle")
    pos = data_at
    for key in keys:
        check(key in roots, f"the legacy checkpoint lists storage '{key}', which its pickle "
              "does not use")
        check(pos + 8 <= len(buf), f"the legacy checkpoint is truncated: the data of storage "
              f"'{key}' is missing")
        numel = int.from_bytes(bytes(buf[pos:pos + 8]), "little", signed=True)
        root = roots[key]
        check(numel == numels[key], f"the legacy checkpoint's storage '{key}' has {numel} "
              f"elements in its data, but {numels[key]} in its pickle")
        end = pos + 8 + len(root.blob)
        check(end <= len(buf), f"the legacy checkpoint is truncated: storage '{key}' needs "
              f"{len(root.blob)} bytes, {len(buf) - pos - 8} are left")
        np.copyto(root.blob, buf[pos + 8:end])
        _refresh([root] + [v for k, v in views.values() if k == key])
        pos = end
    check(pos == len(buf), f"the legacy checkpoint has {len(buf) - pos} bytes after its last "
          "storage")
    return result


def _refresh(storages) -> None:
    """Copies a legacy storage's bytes, now read into its buffer, to the bases that
    map_location moved off that buffer."""
    for storage in storages:
        lo = storage.blob.ctypes.data
        for dtype, base in storage.bases.items():
            if base.device.type == "cpu" and lo <= base.data_ptr() < lo + max(1, storage.nbytes):
                continue   # a view of the buffer just filled
            with ember.no_grad():
                base.copy_(tensor_over(storage.blob, dtype, False))


def _no_persistent(pid):
    raise CheckpointError(f"load(): the legacy torch.save header names a persistent object "
                          f"{str(pid)[:80]}")
