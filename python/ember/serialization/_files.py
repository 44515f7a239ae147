"""Reading a checkpoint into one buffer, and writing one atomically."""
from __future__ import annotations

import ctypes
import os

import numpy as np

_CHUNK = 16 << 20   # bytes per write() call


class CheckpointError(RuntimeError):
    """A file that ember.load cannot read: foreign, truncated, corrupted or malformed."""


def check(cond: bool, msg: str) -> None:
    """Raises CheckpointError('load(): ' + msg) unless cond."""
    if not cond:
        raise CheckpointError(f"load(): {msg}")


def memory(address: int, nbytes: int) -> memoryview:
    """A byte view of nbytes of process memory at address (kept valid by its owner)."""
    return memoryview((ctypes.c_char * nbytes).from_address(address)).cast("B")


def is_path(f) -> bool:
    return isinstance(f, (str, bytes, os.PathLike))


def write_all(f, data) -> None:
    """Writes all of data to f in chunks (raw files may write less than asked)."""
    mem = memoryview(data).cast("B")
    while len(mem):
        n = f.write(mem[:_CHUNK])
        mem = mem[_CHUNK if n is None else n:]


def write_atomically(f, emit) -> None:
    """Calls emit(file) to write the checkpoint to f, a path or a binary file object.

    A path is written through a temporary file beside it that is fsynced and renamed over the
    target with os.replace, and then the directory is fsynced: a crash leaves the old file or
    the new one, never a half-written target. A file object is written in place.
    """
    if not is_path(f):
        emit(f)
        if hasattr(f, "flush"):
            f.flush()
        return
    # Through a symlink, as open() would write; the temporary file sits beside the target.
    path = os.path.realpath(os.fsdecode(os.fspath(f)))
    directory, name = os.path.split(path)
    tmp = os.path.join(directory, f".{name}.{os.getpid()}.{os.urandom(4).hex()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o666)
    try:
        with os.fdopen(fd, "wb") as out:
            emit(out)
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    _fsync_directory(directory)


def _fsync_directory(directory: str) -> None:
    try:
        dfd = os.open(directory, os.O_RDONLY)
    except OSError:   # e.g. Windows cannot open directories
        return
    try:
        os.fsync(dfd)
    except OSError:
        pass
    finally:
        os.close(dfd)


def read_buffer(f, mmap: bool) -> np.ndarray:
    """The file (from its current position) as a uint8 array: a copy-on-write map of it, or
    one buffer read into memory."""
    if is_path(f):
        path = os.fsdecode(os.fspath(f))
        if mmap:
            if os.path.getsize(path) == 0:
                raise CheckpointError(f"load(): cannot read '{path}': the file is empty")
            return np.memmap(path, dtype=np.uint8, mode="c")
        with open(path, "rb") as fh:
            return _read_all(fh)
    if mmap:
        name = getattr(f, "name", None)
        if not is_path(name):
            raise ValueError("load(): mmap=True needs a path or a file object opened from a "
                             "path, but got a file object without a name")
        return read_buffer(name, True)
    return _read_all(f)


def _read_all(fh) -> np.ndarray:
    try:
        size = os.fstat(fh.fileno()).st_size - fh.tell()
    except (AttributeError, OSError, ValueError):   # io.UnsupportedOperation is both
        size = None
    if size is None or not hasattr(fh, "readinto"):
        return np.frombuffer(bytearray(fh.read()), dtype=np.uint8)
    buf = np.empty(size, dtype=np.uint8)
    mem, got = memoryview(buf), 0
    while got < size:
        n = fh.readinto(mem[got:])
        if not n:
            break
        got += n
    return buf[:got]


class BufferReader:
    """A read-only binary file over a uint8 array, for the pickle module (no copy)."""

    def __init__(self, buf: np.ndarray, pos: int = 0, end: int | None = None):
        self.mem = memoryview(buf).cast("B")
        self.pos = pos
        self.end = len(self.mem) if end is None else end

    def read(self, n: int = -1) -> bytes:
        stop = self.end if n is None or n < 0 else min(self.end, self.pos + n)
        out = bytes(self.mem[self.pos:stop])
        self.pos = max(self.pos, stop)
        return out

    def readinto(self, b) -> int:
        out = memoryview(b).cast("B")
        n = max(0, min(len(out), self.end - self.pos))
        out[:n] = self.mem[self.pos:self.pos + n]
        self.pos += n
        return n

    def readline(self) -> bytes:
        stop = self.pos
        while stop < self.end:
            chunk = bytes(self.mem[stop:min(self.end, stop + 256)])
            i = chunk.find(b"\n")
            if i >= 0:
                stop += i + 1
                break
            stop += len(chunk)
        return self.read(stop - self.pos)

    def tell(self) -> int:
        return self.pos

    def seek(self, pos: int, whence: int = 0) -> int:
        self.pos = pos if whence == 0 else (self.pos + pos if whence == 1 else self.end + pos)
        return self.pos
