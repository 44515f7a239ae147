"""ember.save / ember.load: round trips, shared storage, mmap, atomic writes, bad files, and
reading Ember's earlier format (interchange with PyTorch: test_serialization_torch.py)."""
import io
import math
import os
import pathlib
import pickle
import signal
import struct
import subprocess
import sys
import time
import zipfile
from collections import OrderedDict

import numpy as np
import pytest

import ember
import ember.nn as nn
from ember import serialization
from ember.serialization import CheckpointError, _ember_v1

_NUMPY_DTYPES = {
    ember.float32: np.float32, ember.float64: np.float64, ember.float16: np.float16,
    ember.int8: np.int8, ember.int16: np.int16, ember.int32: np.int32, ember.int64: np.int64,
    ember.uint8: np.uint8, ember.bool: np.bool_, ember.complex64: np.complex64,
    ember.complex128: np.complex128,
}
_ALL_DTYPES = list(_NUMPY_DTYPES) + [ember.bfloat16]


def _sample(dtype, shape=(3, 5), seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape) * 50
    if dtype == ember.bfloat16:
        return ember.from_numpy(x.astype(np.float32)).to(ember.bfloat16)
    np_dtype = _NUMPY_DTYPES[dtype]
    if np_dtype in (np.complex64, np.complex128):
        x = x + 1j * rng.standard_normal(shape)
    elif np_dtype == np.bool_:
        x = x > 0
    elif np.issubdtype(np_dtype, np.integer):
        x = np.clip(x, np.iinfo(np_dtype).min, np.iinfo(np_dtype).max)
    return ember.from_numpy(np.ascontiguousarray(x.astype(np_dtype)))


def _array(t):
    """t's values as numpy (bfloat16 widened exactly to float32)."""
    if t.dtype == ember.bfloat16:
        t = t.float()
    return t.detach().numpy()


def _same(a, b):
    assert a.dtype == b.dtype
    assert tuple(a.shape) == tuple(b.shape)
    assert np.array_equal(_array(a), _array(b), equal_nan=a.is_floating_point() or a.is_complex())


def _roundtrip(obj, tmp_path, **load_kwargs):
    path = tmp_path / "obj.ember"
    ember.save(obj, path)
    return ember.load(path, **load_kwargs)


def _storage_records(path):
    """The names of the storage records in a zip checkpoint."""
    return [n for n in zipfile.ZipFile(path).namelist() if "/data/" in n]


# ------------------------------------------------------------------------- round trips


@pytest.mark.parametrize("dtype", _ALL_DTYPES, ids=str)
@pytest.mark.parametrize("mmap", [False, True], ids=["read", "mmap"])
def test_every_dtype_round_trips(dtype, mmap, tmp_path):
    t = _sample(dtype)
    odd = t[1:, ::2].t()   # non-contiguous, offset, transposed
    out = _roundtrip({"t": t, "odd": odd, "scalar": t[0, 0].clone(),
                      "empty": t[:0]}, tmp_path, mmap=mmap)
    _same(out["t"], t)
    _same(out["odd"], odd)
    assert out["odd"].stride() == odd.stride()
    _same(out["scalar"], t[0, 0])
    assert out["scalar"].dim() == 0
    _same(out["empty"], t[:0])


def test_special_float_values_and_bfloat16_bits(tmp_path):
    x = ember.tensor([0.0, -0.0, math.inf, -math.inf, math.nan, 1e-40, 3.0e38])
    out = _roundtrip([x, x.to(ember.float16), x.to(ember.bfloat16), x.double()], tmp_path)
    for a, b in zip(out, [x, x.to(ember.float16), x.to(ember.bfloat16), x.double()]):
        _same(a, b)
    # -0.0 keeps its sign bit.
    assert math.copysign(1.0, float(out[0][1])) == -1.0


def test_tensor_shapes(tmp_path):
    cases = [ember.tensor(3.5), ember.zeros(0), ember.zeros(2, 0, 3), ember.ones(1, 1, 1),
             ember.arange(24.0).reshape(2, 3, 4).permute(2, 0, 1),
             ember.arange(10.0).expand(3, 10)]
    out = _roundtrip(cases, tmp_path)
    for a, b in zip(out, cases):
        _same(a, b)
        assert a.stride() == b.stride()


def test_single_tensor_and_file_objects(tmp_path):
    t = _sample(ember.float32)
    _same(_roundtrip(t, tmp_path), t)
    buf = io.BytesIO()
    ember.save(t, buf)
    buf.seek(0)
    _same(ember.load(buf), t)
    path = tmp_path / "f.ember"
    with open(path, "wb") as f:
        ember.save({"t": t}, f)
    with open(path, "rb") as f:
        _same(ember.load(f)["t"], t)
    with open(path, "rb") as f:
        _same(ember.load(f, mmap=True)["t"], t)
    _same(ember.load(str(path))["t"], t)


def test_nested_containers_keep_their_types(tmp_path):
    t = ember.arange(4.0)
    obj = OrderedDict([
        ("list", [1, -2**70, 2.5, "s", None, True, False, b"\x00\xffbytes", t]),
        ("tuple", (1, (2, [3, {"deep": t}]))),
        ("floats", [math.inf, -math.inf, 1e-300, 0.1]),
        (3, "int key"), (2.5, "float key"), (None, "none key"), ((1, "a"), "tuple key"),
        ("dict", {"x": {}, "y": [], "z": ()}),
        ("misc", [complex(1, -2), ember.Size([2, 3]), ember.float16, ember.device("cpu")]),
    ])
    out = _roundtrip(obj, tmp_path)
    assert type(out) is OrderedDict and list(out) == list(obj)
    assert out["list"][:8] == obj["list"][:8]
    assert type(out["list"][5]) is bool and type(out["list"][0]) is int
    assert out["tuple"][:1] == (1,) and isinstance(out["tuple"][1], tuple)
    assert isinstance(out["tuple"][1][1], list)
    _same(out["tuple"][1][1][1]["deep"], t)
    assert out["floats"][:2] == [math.inf, -math.inf] and out["floats"][2:] == [1e-300, 0.1]
    assert out[3] == "int key" and out[2.5] == "float key" and out[None] == "none key"
    assert out[(1, "a")] == "tuple key"
    assert out["dict"] == {"x": {}, "y": [], "z": ()} and type(out["dict"]) is dict
    c, size, dtype, device = out["misc"]
    assert c == complex(1, -2) and isinstance(size, ember.Size) and size == ember.Size([2, 3])
    assert dtype == ember.float16 and device == ember.device("cpu")
    assert math.isnan(_roundtrip(math.nan, tmp_path))


def test_same_tensor_twice_loads_as_one_object(tmp_path):
    t = ember.ones(3)
    out = _roundtrip({"a": t, "b": [t, t]}, tmp_path)
    assert out["a"] is out["b"][0] is out["b"][1]


def test_unpicklable_objects_raise_before_touching_the_target(tmp_path):
    path = tmp_path / "keep.ember"
    ember.save({"w": ember.ones(2)}, path)
    before = path.read_bytes()

    class Local:   # a class pickle cannot find by name
        pass

    for bad in [lambda: 0, Local()]:
        with pytest.raises((pickle.PicklingError, AttributeError), match="Local|lambda"):
            ember.save({"w": ember.zeros(2), "bad": bad}, path)
    with pytest.raises(TypeError, match="cannot save a tensor on the meta device"):
        ember.save(ember.empty(2, device="meta"), path)
    assert path.read_bytes() == before
    assert os.listdir(tmp_path) == ["keep.ember"]


def test_reference_cycles_round_trip(tmp_path):
    cyclic = [ember.ones(2)]
    cyclic.append(cyclic)
    out = _roundtrip(cyclic, tmp_path)
    assert out[1] is out
    _same(out[0], ember.ones(2))


# ------------------------------------------------------------------ modules, optimizers


def _model():
    ember.manual_seed(0)
    return nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.Linear(8, 2))


def _train_step(model, opt, seed):
    ember.manual_seed(seed)
    x, y = ember.randn(16, 4), ember.randn(16, 2)
    opt.zero_grad()
    loss = ((model(x) - y) ** 2).mean()
    loss.backward()
    opt.step()


@pytest.mark.parametrize("make_opt", [
    lambda p: ember.optim.SGD(p, lr=0.1, momentum=0.9, nesterov=True),
    lambda p: ember.optim.Adam(p, lr=0.01, betas=(0.8, 0.99), amsgrad=True),
    lambda p: ember.optim.AdamW(p, lr=0.01),
], ids=["SGD", "Adam", "AdamW"])
def test_module_and_optimizer_state_dicts_resume_training(make_opt, tmp_path):
    model = _model()
    opt = make_opt(model.parameters())
    for i in range(2):
        _train_step(model, opt, i)
    ember.save({"model": model.state_dict(), "optim": opt.state_dict(), "epoch": 2},
               tmp_path / "ckpt.ember")
    ckpt = ember.load(tmp_path / "ckpt.ember", map_location="cpu")
    assert type(ckpt["model"]) is OrderedDict and list(ckpt["model"]) == list(model.state_dict())
    assert ckpt["model"]["1.num_batches_tracked"].dtype == ember.int64
    assert set(ckpt["optim"]["state"]) == {0, 1, 2, 3, 4, 5}   # int keys survive
    saved_groups = opt.state_dict()["param_groups"]
    assert ckpt["optim"]["param_groups"] == saved_groups

    resumed = _model()
    resumed.load_state_dict(ckpt["model"])
    resumed_opt = make_opt(resumed.parameters())
    resumed_opt.load_state_dict(ckpt["optim"])
    for i in range(2, 4):
        _train_step(model, opt, i)
        _train_step(resumed, resumed_opt, i)
    for (name, a), b in zip(model.state_dict().items(), resumed.state_dict().values()):
        assert np.allclose(a.numpy(), b.numpy(), rtol=1e-6, atol=1e-7), name


def test_parameters_and_requires_grad(tmp_path):
    p = nn.Parameter(ember.randn(3, 2))
    frozen = nn.Parameter(ember.randn(2), requires_grad=False)
    leaf = ember.ones(2, requires_grad=True)
    nonleaf = leaf * 2
    out = _roundtrip([p, frozen, leaf, nonleaf, p.data], tmp_path)
    assert isinstance(out[0], nn.Parameter) and out[0].requires_grad
    assert isinstance(out[1], nn.Parameter) and not out[1].requires_grad
    assert not isinstance(out[2], nn.Parameter) and out[2].requires_grad and out[2].is_leaf
    # Autograd history is not saved: a non-leaf loads as a leaf that requires grad, as torch's.
    assert out[3].requires_grad and out[3].is_leaf and out[3].grad_fn is None
    _same(out[3].detach(), nonleaf.detach())
    out[4][0, 0] = 42.0   # p.data shares p's storage, in the file too
    assert float(out[0][0, 0]) == 42.0
    # state_dict() detaches: a loaded state dict holds plain tensors.
    sd = _roundtrip(nn.Linear(2, 2).state_dict(), tmp_path)
    assert all(type(v) is ember.Tensor and not v.requires_grad for v in sd.values())


# ------------------------------------------------------------------------ shared storage


@pytest.mark.parametrize("mmap", [False, True], ids=["read", "mmap"])
def test_views_of_one_storage_stay_shared(mmap, tmp_path):
    base = ember.arange(24.0).reshape(4, 6)
    other = ember.arange(6.0)
    obj = {"base": base, "t": base.t(), "slice": base[1:3, 2:], "row": base[3],
           "first": base[0, :2], "other": other, "other_view": other[1:4]}
    path = tmp_path / "shared.ember"
    ember.save(obj, path)
    assert len(_storage_records(path)) == 2   # one record per storage, not per tensor
    out = ember.load(path, mmap=mmap)
    for k in obj:
        _same(out[k], obj[k])
    out["t"][2, 1] = -1.0           # base[1, 2]
    assert float(out["base"][1, 2]) == -1.0 and float(out["slice"][0, 0]) == -1.0
    out["row"][5] = -2.0
    assert float(out["base"][3, 5]) == -2.0
    out["other_view"][0] = 99.0
    assert float(out["other"][1]) == 99.0 and float(out["base"][0, 1]) == 1.0


def test_disjoint_views_of_one_storage_share_one_blob(tmp_path):
    base = ember.arange(100.0)
    head, tail = base[:10], base[90:]
    path = tmp_path / "ends.ember"
    ember.save([head, tail], path)
    assert len(_storage_records(path)) == 1
    a, b = ember.load(path)
    _same(a, head)
    _same(b, tail)
    assert b.data_ptr() - a.data_ptr() == 90 * 4


def test_storages_of_different_dtypes_are_separate(tmp_path):
    c = ember.from_numpy(np.array([1 + 2j, 3 - 4j], dtype=np.complex64))
    r = ember.view_as_real(c)
    out = _roundtrip([c, r], tmp_path)
    _same(out[0], c)
    _same(out[1], r)
    assert len(_storage_records(tmp_path / "obj.ember")) == 2


# --------------------------------------------------------------------------------- mmap


def _mapping_of(address):
    """The /proc/self/maps line whose range holds address, or None."""
    with open("/proc/self/maps") as f:
        for line in f:
            lo, hi = (int(x, 16) for x in line.split()[0].split("-"))
            if lo <= address < hi:
                return line
    return None


def test_mmap_shares_the_file_pages_copy_on_write(tmp_path):
    t = _sample(ember.float64, shape=(64, 64))
    path = tmp_path / "big.ember"
    ember.save({"t": t, "b": _sample(ember.bfloat16)}, path)
    before = path.read_bytes()
    out = ember.load(path, mmap=True)
    _same(out["t"], t)
    _same(out["b"], _sample(ember.bfloat16))
    assert out["t"].data_ptr() % 64 == 0 and out["b"].data_ptr() % 64 == 0
    if os.path.exists("/proc/self/maps"):
        for name in ["t", "b"]:   # bfloat16 too (Note [bfloat16 through DLPack])
            line = _mapping_of(out[name].data_ptr())
            assert line is not None and line.rstrip().endswith(str(path.resolve())), name
    out["t"][0, 0] = 123.0   # a private mapping: the file never changes
    assert float(out["t"][0, 0]) == 123.0
    assert path.read_bytes() == before
    _same(ember.load(path)["t"], t)


def test_mmap_needs_a_named_file():
    buf = io.BytesIO()
    ember.save(ember.ones(2), buf)
    buf.seek(0)
    with pytest.raises(ValueError, match="mmap=True needs a path"):
        ember.load(buf, mmap=True)


def test_map_location(tmp_path):
    t = ember.ones(3)
    path = tmp_path / "m.ember"
    ember.save(t, path)
    for loc in ["cpu", ember.device("cpu"), {"cpu": "cpu"}]:
        out = ember.load(path, map_location=loc)
        _same(out, t)
        assert out.device == ember.device("cpu")
    seen = []
    out = ember.load(path, map_location=lambda x, where: seen.append(where) or x * 2)
    assert seen == ["cpu"] and float(out[0]) == 2.0


# ------------------------------------------------------------------------- atomic writes


_CHILD = r"""
import sys, time
import ember
from ember import serialization

path, marker = sys.argv[1:3]
real_write = serialization._files.write_all
def slow_write(f, data):
    real_write(f, data)
    f.flush()
    open(marker, "w").close()   # part of the new file is on disk: kill me now
    time.sleep(120)
serialization._files.write_all = slow_write
ember.save({"w": ember.zeros(1 << 18), "step": 2}, path)
"""


def test_killed_mid_write_leaves_the_old_checkpoint(tmp_path):
    path = tmp_path / "ckpt.ember"
    good = {"w": ember.arange(5.0), "step": 1}
    ember.save(good, path)
    before = path.read_bytes()
    marker = tmp_path / "writing"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    child = subprocess.Popen([sys.executable, "-c", _CHILD, str(path), str(marker)], env=env)
    try:
        deadline = time.monotonic() + 120
        while not marker.exists():
            assert child.poll() is None, "the writer exited before writing"
            assert time.monotonic() < deadline, "the writer never started writing"
            time.sleep(0.02)
        temps = [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
        assert len(temps) == 1 and temps[0].name.startswith(".ckpt.ember.")
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=30)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    assert child.returncode == -signal.SIGKILL
    assert path.read_bytes() == before
    out = ember.load(path)
    _same(out["w"], good["w"])
    assert out["step"] == 1
    # The half-written temporary file is recognised as truncated.
    with pytest.raises(CheckpointError, match="truncated"):
        ember.load(temps[0])


def test_failed_write_removes_its_temporary_file(tmp_path, monkeypatch):
    path = tmp_path / "ckpt.ember"
    ember.save(ember.ones(2), path)
    before = path.read_bytes()
    calls = []

    def failing_write(f, data):
        calls.append(1)
        if len(calls) > 2:
            raise OSError("disk full")
        f.write(data)

    monkeypatch.setattr(serialization._files, "write_all", failing_write)
    with pytest.raises(OSError, match="disk full"):
        ember.save({"w": ember.zeros(100)}, path)
    assert path.read_bytes() == before
    assert os.listdir(tmp_path) == ["ckpt.ember"]


def test_overwrite_replaces_the_file(tmp_path):
    path = tmp_path / "ckpt.ember"
    ember.save(ember.ones(2), path)
    ember.save(ember.zeros(3), path)
    _same(ember.load(path), ember.zeros(3))
    assert os.listdir(tmp_path) == ["ckpt.ember"]


def test_save_writes_through_a_symlink(tmp_path):
    target = tmp_path / "real.ember"
    link = tmp_path / "link.ember"
    ember.save(ember.ones(2), target)
    link.symlink_to(target)
    ember.save(ember.zeros(2), link)
    assert link.is_symlink()
    _same(ember.load(target), ember.zeros(2))


# ----------------------------------------------------------------------------- bad files


def _header(path):
    """The JSON header of a file in Ember's earlier format."""
    import json
    data = pathlib.Path(path).read_bytes()
    (length,) = struct.unpack_from("<Q", data, 16)
    return json.loads(data[32:32 + length])


_SMALL = {"a": ember.arange(6.0).reshape(2, 3), "b": [ember.tensor([1, 2], dtype=ember.int8)],
          "n": 3}
_WRITERS = {"zip": serialization.save, "v1": _ember_v1.save}


@pytest.fixture(params=["zip", "v1"])
def small_file(request, tmp_path):
    path = tmp_path / f"small.{request.param}"
    _WRITERS[request.param](_SMALL, path)
    return path


def test_every_single_byte_corruption_is_detected(small_file, tmp_path):
    data = small_file.read_bytes()
    bad = tmp_path / "bad.ember"
    for i in range(len(data)):
        flipped = bytearray(data)
        flipped[i] ^= 0x10
        bad.write_bytes(flipped)
        with pytest.raises(CheckpointError):
            ember.load(bad)


def _zip_layout(path):
    """{record name: (local header offset, data offset, size)} of a zip checkpoint."""
    data = path.read_bytes()
    out = {}
    for info in zipfile.ZipFile(path).infolist():
        name_len, extra_len = struct.unpack_from("<HH", data, info.header_offset + 26)
        out[info.filename] = (info.header_offset, info.header_offset + 30 + name_len + extra_len,
                              info.file_size)
    return out


def test_zip_checksum_mismatch_names_the_part(tmp_path):
    path = tmp_path / "small.zip"
    ember.save(_SMALL, path)
    data = bytearray(path.read_bytes())
    layout = _zip_layout(path)
    central = data.rfind(b"PK\x01\x02")   # the last central directory entry
    bad = tmp_path / "bad.ember"
    for offset, message in [
            (layout["archive/data/0"][1] + 1, "checksum mismatch in zip record 'archive/data/0'"),
            (layout["archive/data.pkl"][1] + 3, "checksum mismatch in zip record 'archive/data.pkl'"),
            (layout["archive/data/1"][0] + 10, "checksum mismatch in its zip headers"),  # mtime
            (central + 38, "checksum mismatch in its zip headers"),   # external attributes
            (len(data) - 3, "its zip comment should hold the checksum|checksum mismatch in its zip"),
            (layout["archive/data/1"][0] + 31, "local header of zip record .* does not match")]:
        copy = bytearray(data)
        copy[offset] ^= 0x01
        bad.write_bytes(copy)
        with pytest.raises(CheckpointError, match=message):
            ember.load(bad)
        with pytest.raises(CheckpointError, match=message):
            ember.load(bad, mmap=True)


def test_v1_checksum_mismatch_names_the_part(tmp_path):
    path = tmp_path / "small.v1"
    _ember_v1.save(_SMALL, path)
    data = bytearray(path.read_bytes())
    assert len(data) % 64 == 16   # 64-aligned data section, then the 16-byte trailer
    (header_len,) = struct.unpack_from("<Q", data, 16)
    blob = (32 + header_len + 63) // 64 * 64
    bad = tmp_path / "bad.ember"
    for offset, message in [(blob + 1, "checksum mismatch in storage 0"),
                            (40, "checksum mismatch in its header"),
                            (9, "checksum mismatch in its 32-byte prefix")]:
        copy = bytearray(data)
        copy[offset] ^= 0xFF
        bad.write_bytes(copy)
        with pytest.raises(CheckpointError, match=message):
            ember.load(bad)
        with pytest.raises(CheckpointError, match=message):
            ember.load(bad, mmap=True)


def test_truncated_files(small_file, tmp_path):
    data = small_file.read_bytes()
    bad = tmp_path / "cut.ember"
    for n in [1, 3, 7, 8, 20, 32, 47, 48, len(data) // 2, len(data) - 16, len(data) - 1]:
        bad.write_bytes(data[:n])
        with pytest.raises(CheckpointError, match="truncated"):
            ember.load(bad)
        with pytest.raises(CheckpointError, match="truncated"):
            ember.load(bad, mmap=True)
    bad.write_bytes(data + b"\0" * 64)
    with pytest.raises(CheckpointError, match="trailing bytes"):
        ember.load(bad)


def test_foreign_files(tmp_path):
    bad = tmp_path / "foreign"
    bad.write_bytes(np.random.default_rng(0).bytes(4096))
    with pytest.raises(CheckpointError, match="not a checkpoint: it starts with"):
        ember.load(bad)
    bad.write_bytes(b"")
    with pytest.raises(CheckpointError, match="empty"):
        ember.load(bad)
    with pytest.raises(CheckpointError, match="empty"):
        ember.load(bad, mmap=True)
    bad.write_bytes(b"\x80\x04\x95" + b"\0" * 100)
    with pytest.raises(CheckpointError, match="pickle"):
        ember.load(bad)
    bad.write_bytes(pickle.dumps({"just": "a pickle"}, protocol=2))
    with pytest.raises(CheckpointError, match="a pickle but not a torch.save checkpoint"):
        ember.load(bad)
    with zipfile.ZipFile(bad, "w") as z:
        z.writestr("notes/readme.txt", "hello")
    with pytest.raises(CheckpointError, match="without notes/data.pkl, not a torch.save"):
        ember.load(bad)
    with zipfile.ZipFile(bad, "w", compression=zipfile.ZIP_DEFLATED) as z:
        z.writestr("archive/data.pkl", pickle.dumps(1, protocol=2))
    with pytest.raises(CheckpointError, match="compressed"):
        ember.load(bad)


def test_a_zip_written_by_python_loads(tmp_path):
    """ember.load needs neither 64-byte alignment nor Ember's integrity comment."""
    path = tmp_path / "plain.pt"
    ember.save({"w": ember.arange(5.0), "b": ember.ones(3, dtype=ember.bfloat16)}, path)
    src = zipfile.ZipFile(path)
    out = tmp_path / "rezipped.pt"
    for pad in range(1, 5):   # shift the storages off their elements' alignment
        with zipfile.ZipFile(out, "w") as z:
            z.writestr("archive/pad", b"x" * pad)
            for name in src.namelist():
                if not name.endswith("ember_integrity"):
                    z.writestr(name, src.read(name))
        layout = _zip_layout(out)
        if layout["archive/data/0"][1] % 4 and layout["archive/data/1"][1] % 2:
            break
    assert layout["archive/data/0"][1] % 4 and layout["archive/data/1"][1] % 2
    assert zipfile.ZipFile(out).comment == b""
    for mmap in [False, True]:
        loaded = ember.load(out, mmap=mmap)
        _same(loaded["w"], ember.arange(5.0))
        _same(loaded["b"], ember.ones(3, dtype=ember.bfloat16))


def test_tensor_past_its_storage_is_refused(tmp_path):
    """A crafted file, valid as a zip, whose pickle puts a tensor past its storage's end."""
    from ember.serialization import _zip
    path = tmp_path / "ok.pt"
    ember.save(ember.arange(4.0), path)
    src = zipfile.ZipFile(path)
    records = {n: src.read(n) for n in src.namelist()}
    pkl = records["archive/data.pkl"]
    assert pkl.count(b"K\x04\x85") == 1   # BININT1 4, TUPLE1: the size (4,)
    records["archive/data.pkl"] = pkl.replace(b"K\x04\x85", b"K\x09\x85")
    with open(path, "wb") as f:
        for chunk in _zip.plan([(n, d, None) for n, d in records.items()]):
            f.write(chunk)
    with pytest.raises(CheckpointError, match="reaches past the end of its storage"):
        ember.load(path)


def test_malformed_v1_header_with_valid_checksums_is_refused(tmp_path):
    """A crafted file with correct CRCs but a tensor past its storage must not read out of
    bounds."""
    import json
    import zlib
    path = tmp_path / "ok.ember"
    _ember_v1.save(ember.arange(4.0), path)
    data = path.read_bytes()
    (header_len,) = struct.unpack_from("<Q", data, 16)
    header = json.loads(data[32:32 + header_len])
    header["tensors"][0]["shape"] = [9]   # same length as [4]
    new = json.dumps(header, separators=(",", ":")).encode()
    assert len(new) == header_len   # the layout stays valid
    prefix = bytearray(data[:32])
    struct.pack_into("<I", prefix, 24, zlib.crc32(new))
    struct.pack_into("<I", prefix, 28, zlib.crc32(bytes(prefix[:28])))
    path.write_bytes(bytes(prefix) + new + data[32 + header_len:])
    with pytest.raises(CheckpointError, match="reaches past the end of storage 0"):
        ember.load(path)


# ------------------------------------------------------------------ Ember's earlier format


@pytest.mark.parametrize("mmap", [False, True], ids=["read", "mmap"])
def test_v1_files_still_load(mmap, tmp_path):
    path = tmp_path / "old.ember"
    tensors = {str(d): _sample(d) for d in _ALL_DTYPES}
    base = ember.arange(24.0).reshape(4, 6)
    p = nn.Parameter(ember.randn(3))
    obj = {"tensors": tensors, "t": base.t(), "base": base, "p": p, "step": 7,
           "misc": (ember.Size([2]), ember.float16, b"x", 1.5, None)}
    _ember_v1.save(obj, path)
    assert _header(path)["format"] == "ember"
    out = ember.load(path, mmap=mmap)
    for k, t in tensors.items():
        _same(out["tensors"][k], t)
    assert out["t"].stride() == base.t().stride()
    out["t"][0, 1] = -5.0
    assert float(out["base"][1, 0]) == -5.0
    assert isinstance(out["p"], nn.Parameter) and out["p"].requires_grad
    assert out["step"] == 7 and out["misc"] == obj["misc"]


def test_checkpoint_error_is_a_runtime_error():
    assert issubclass(CheckpointError, RuntimeError)
    assert ember.save is serialization.save and ember.load is serialization.load
