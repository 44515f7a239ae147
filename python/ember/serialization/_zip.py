"""The zip container of PyTorch's checkpoint format: an uncompressed ("stored") archive.

Writing: every record's data starts on a 64-byte boundary (padding sits in an 'FB' extra
field of the local header, as PyTorch's writer does), so storages can be mapped in place.
Zip64 records are written when a size or offset reaches 4 GiB. The archive comment is
b"ember-crc32:" and 8 hex digits: the CRC-32 of every byte before the comment that is not a
record's data (local headers, central directory, end records); the data itself is covered
by each record's own CRC-32. A record named INTEGRITY_RECORD marks the file as written so,
so a damaged comment cannot pass for a foreign archive: together every byte is checked.

Reading: the central directory is parsed and cross-checked against each local header, every
record's CRC-32 is verified, and for archives that carry the comment, the comment too. Any
failure raises CheckpointError naming what is wrong.
"""
from __future__ import annotations

import struct
import zlib

import numpy as np

from ._files import CheckpointError, check

ALIGN = 64
INTEGRITY_RECORD = ".data/ember_integrity"
ZIP64_LIMIT = 0xFFFFFFFF   # sizes and offsets from here on need zip64 records

_LOCAL = struct.Struct("<IHHHHHIIIHH")          # 30 bytes
_CENTRAL = struct.Struct("<IHHHHHHIIIHHHHHII")  # 46 bytes
_EOCD = struct.Struct("<IHHHHIIH")              # 22 bytes
_EOCD64 = struct.Struct("<IQHHIIQQQQ")          # 56 bytes
_LOCATOR = struct.Struct("<IIQI")               # 20 bytes
_SIG_LOCAL, _SIG_CENTRAL = 0x04034B50, 0x02014B50
_SIG_EOCD, _SIG_EOCD64, _SIG_LOCATOR = 0x06054B50, 0x06064B50, 0x07064B50
_COMMENT = b"ember-crc32:"
_DOS_DATE = 0x0021   # 1980-01-01, the first date zip can hold (time 00:00)
_MASK32, _MASK16 = 0xFFFFFFFF, 0xFFFF


# ---------------------------------------------------------------------------------------
# write


def plan(records) -> list:
    """The chunks (bytes or memoryviews) of an archive holding records, a list of
    (name, data, crc32 or None), in that order."""
    chunks: list = []
    headers: list = []   # the non-data chunks, for the comment's checksum
    central: list[bytes] = []
    offset = 0
    for name, data, crc in records:
        data = memoryview(data).cast("B")
        raw_name = name.encode("utf-8")
        size = len(data)
        crc = zlib.crc32(data) if crc is None else crc
        big = size >= ZIP64_LIMIT or offset >= ZIP64_LIMIT
        zip64 = struct.pack("<HHQQ", 1, 16, size, size) if big else b""
        start = offset + _LOCAL.size + len(raw_name) + len(zip64) + 4
        pad = -start % ALIGN
        extra = zip64 + struct.pack("<HH", 0x4246, pad) + b"Z" * pad   # 'FB' padding field
        shown = _MASK32 if big else size
        local = _LOCAL.pack(_SIG_LOCAL, 45 if big else 20, 0, 0, 0, _DOS_DATE, crc, shown,
                            shown, len(raw_name), len(extra)) + raw_name + extra
        chunks += [local, data]
        headers.append(local)
        c_extra, c_offset = b"", offset
        if big:
            c_extra = struct.pack("<HHQQQ", 1, 24, size, size, offset)
            c_offset = _MASK32
        central.append(_CENTRAL.pack(_SIG_CENTRAL, 45, 45 if big else 20, 0, 0, 0, _DOS_DATE,
                                     crc, shown, shown, len(raw_name), len(c_extra), 0, 0, 0,
                                     0, c_offset) + raw_name + c_extra)
        offset += len(local) + size
    directory = b"".join(central)
    tail = b""
    count = len(records)
    if count >= _MASK16 or len(directory) >= ZIP64_LIMIT or offset >= ZIP64_LIMIT:
        eocd64_at = offset + len(directory)
        tail = (_EOCD64.pack(_SIG_EOCD64, _EOCD64.size - 12, 45, 45, 0, 0, count, count,
                             len(directory), offset)
                + _LOCATOR.pack(_SIG_LOCATOR, 0, eocd64_at, 1))
        eocd = _EOCD.pack(_SIG_EOCD, 0, 0, _MASK16, _MASK16, _MASK32, _MASK32,
                          len(_COMMENT) + 8)
    else:
        eocd = _EOCD.pack(_SIG_EOCD, 0, 0, count, count, len(directory), offset,
                          len(_COMMENT) + 8)
    crc = 0
    for part in headers + [directory, tail, eocd]:
        crc = zlib.crc32(part, crc)
    chunks += [directory, tail, eocd, _COMMENT + b"%08x" % crc]
    return chunks


# ---------------------------------------------------------------------------------------
# read


class Archive:
    """The records of a zip archive in buf, by name, after every check."""

    def __init__(self, buf: np.ndarray):
        self.buf = buf
        self.records: dict[str, tuple[int, int]] = {}   # name -> (data start, size)
        self.compressed: dict[str, int] = {}            # name -> compression method
        self._read()

    def data(self, name: str) -> np.ndarray:
        check(name not in self.compressed, f"the checkpoint's zip record '{name}' is "
              f"compressed (method {self.compressed.get(name)}); ember reads stored records, "
              "which torch.save writes")
        start, size = self.records[name]
        return self.buf[start:start + size]

    def bytes(self, name: str) -> bytes:
        return bytes(self.data(name))

    def _read(self) -> None:
        buf, size = self.buf, len(self.buf)
        tail_start = max(0, size - _EOCD.size - _MASK16)
        tail = bytes(buf[tail_start:])
        at = tail.rfind(b"PK\x05\x06")
        while at >= 0:   # the last signature whose comment length reaches the end exactly
            if (at + _EOCD.size <= len(tail)
                    and at + _EOCD.size + _EOCD.unpack_from(tail, at)[7] == len(tail)):
                break
            at = tail.rfind(b"PK\x05\x06", 0, at)
        check(at >= 0, "the checkpoint is truncated or has "
              "trailing bytes: its zip archive has no end record (end of central directory) "
              f"at its end ({size} bytes read)")
        eocd_at = tail_start + at
        _, disk, cd_disk, here, count, cd_size, cd_offset, comment_len = \
            _EOCD.unpack_from(tail, at)
        self.comment = tail[at + _EOCD.size:]
        cd_end = eocd_at
        locator_at = eocd_at - _LOCATOR.size
        if locator_at >= 0 and bytes(buf[locator_at:locator_at + 4]) == b"PK\x06\x07":
            _, _, eocd64_at, _ = _LOCATOR.unpack(bytes(buf[locator_at:eocd_at]))
            check(eocd64_at + _EOCD64.size <= locator_at, "the checkpoint is corrupted: its "
                  "zip64 end record is out of bounds")
            sig, _, _, _, disk, cd_disk, here, count, cd_size, cd_offset = _EOCD64.unpack(
                bytes(buf[eocd64_at:eocd64_at + _EOCD64.size]))
            check(sig == _SIG_EOCD64, "the checkpoint is corrupted: its zip64 end record "
                  "has a bad signature")
            cd_end = eocd64_at
        else:
            check(_MASK32 not in (cd_size, cd_offset) and _MASK16 not in (here, count),
                  "the checkpoint is corrupted: its zip end record needs a zip64 record, "
                  "but there is none")
        check(disk == 0 and cd_disk == 0 and here == count, "the checkpoint is a multi-part "
              "zip archive, which ember does not read")
        check(cd_offset + cd_size == cd_end, "the checkpoint is corrupted or truncated: its "
              "zip central directory does not end where the end record starts")
        gaps = [(eocd_at, eocd_at + _EOCD.size)]   # non-data ranges, for the comment check
        if cd_end != eocd_at:
            gaps.insert(0, (cd_end, eocd_at))
        gaps.insert(0, (cd_offset, cd_end))
        directory = bytes(buf[cd_offset:cd_end])
        pos = 0
        for i in range(count):
            pos = self._entry(directory, pos, i, cd_offset, gaps)
        check(pos == len(directory), "the checkpoint is corrupted: its zip central directory "
              "has bytes after its last entry")
        self._check_comment(gaps)

    def _entry(self, directory: bytes, pos: int, i: int, cd_offset: int, gaps) -> int:
        buf = self.buf
        check(pos + _CENTRAL.size <= len(directory), "the checkpoint is corrupted: its zip "
              f"central directory ends inside entry {i}")
        (sig, _, _, flags, method, _, _, crc, csize, usize, name_len, extra_len, comment_len,
         disk, _, _, offset) = _CENTRAL.unpack_from(directory, pos)
        check(sig == _SIG_CENTRAL, f"the checkpoint is corrupted: zip central directory "
              f"entry {i} has a bad signature")
        name_at = pos + _CENTRAL.size
        end = name_at + name_len + extra_len + comment_len
        check(end <= len(directory), "the checkpoint is corrupted: its zip central directory "
              f"ends inside entry {i}")
        raw_name = directory[name_at:name_at + name_len]
        try:
            name = raw_name.decode("utf-8")
        except UnicodeDecodeError:
            raise CheckpointError(f"load(): the checkpoint is corrupted: zip entry {i} has a "
                                  f"name that is not UTF-8: {raw_name!r}") from None
        extra = directory[name_at + name_len:name_at + name_len + extra_len]
        masked = [usize, csize, offset].count(_MASK32)
        if masked:
            it = iter(_zip64_values(extra, masked, name))
            usize = next(it) if usize == _MASK32 else usize
            csize = next(it) if csize == _MASK32 else csize
            offset = next(it) if offset == _MASK32 else offset
        check(not flags & 1, f"the checkpoint's zip record '{name}' is encrypted")
        check(method != 0 or csize == usize, f"the checkpoint is corrupted: zip record "
              f"'{name}' is stored but its sizes differ ({csize} and {usize})")
        check(name not in self.records, f"the checkpoint is corrupted: zip record '{name}' "
              "appears twice")
        check(offset + _LOCAL.size <= cd_offset, f"the checkpoint is corrupted: zip record "
              f"'{name}' starts out of bounds")
        local = bytes(buf[offset:offset + _LOCAL.size])
        (lsig, _, lflags, lmethod, _, _, lcrc, lcsize, lusize, lname_len,
         lextra_len) = _LOCAL.unpack(local)
        data_at = offset + _LOCAL.size + lname_len + lextra_len
        check(lsig == _SIG_LOCAL and lmethod == method and data_at + csize <= cd_offset
              and bytes(buf[offset + _LOCAL.size:offset + _LOCAL.size + lname_len]) == raw_name,
              f"the checkpoint is corrupted: the local header of zip record '{name}' does not "
              "match its central directory entry")
        if not lflags & 8:   # without a data descriptor the local header repeats crc and sizes
            if _MASK32 in (lcsize, lusize):
                lextra = bytes(buf[data_at - lextra_len:data_at])
                lusize, lcsize = (_zip64_values(lextra, 2, name) + [None, None])[:2]
            check((lcrc, lcsize, lusize) == (crc, csize, usize), f"the checkpoint is "
                  f"corrupted: the local header of zip record '{name}' does not match its "
                  "central directory entry")
        if method != 0:   # never read (data() refuses it), so its CRC is not checked
            self.compressed[name] = method
        else:
            got = zlib.crc32(buf[data_at:data_at + csize])
            check(got == crc, f"the checkpoint is corrupted: checksum mismatch in zip record "
                  f"'{name}' ({csize} bytes)")
        self.records[name] = (data_at, csize)
        gaps.append((offset, data_at))
        return end

    def _check_comment(self, gaps) -> None:
        marked = any(n.endswith("/" + INTEGRITY_RECORD) for n in self.records)
        if not marked and not self.comment.startswith(_COMMENT):
            return   # an archive from another writer: the records' own CRCs were checked
        check(len(self.comment) == len(_COMMENT) + 8 and self.comment.startswith(_COMMENT),
              "the checkpoint is corrupted: its zip comment should hold the checksum of its "
              f"headers, but is {self.comment[:40]!r}")
        crc = 0
        for lo, hi in sorted(gaps):
            crc = zlib.crc32(self.buf[lo:hi], crc)
        try:
            want = int(self.comment[len(_COMMENT):], 16)
        except ValueError:
            want = None
        check(crc == want, "the checkpoint is corrupted: checksum mismatch in its zip headers "
              "(local headers, central directory or end record)")


def _zip64_values(extra: bytes, n: int, name: str) -> list[int]:
    """The first n 8-byte values of the zip64 field (id 1) in an extra field block."""
    pos = 0
    while pos + 4 <= len(extra):
        tag, length = struct.unpack_from("<HH", extra, pos)
        if tag == 1:
            check(length >= 8 * n and pos + 4 + length <= len(extra), "the checkpoint is "
                  f"corrupted: zip record '{name}' has a short zip64 field")
            return list(struct.unpack_from(f"<{n}Q", extra, pos + 4))
        pos += 4 + length
    raise CheckpointError(f"load(): the checkpoint is corrupted: zip record '{name}' needs a "
                          "zip64 field, but has none")
