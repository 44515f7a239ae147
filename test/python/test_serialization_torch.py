"""Checkpoints interchangeable with PyTorch: ember.save -> torch.load(weights_only=True) and
torch.save (zip and legacy formats) -> ember.load, with the weights_only allow-list."""
import os
import pickle
import struct
import zipfile
from collections import OrderedDict

import numpy as np
import pytest

import ember
import ember.nn as nn
from ember import serialization
from ember.serialization import CheckpointError, _zip

torch = pytest.importorskip("torch")

_PAIRS = [(ember.float32, torch.float32), (ember.float64, torch.float64),
          (ember.float16, torch.float16), (ember.bfloat16, torch.bfloat16),
          (ember.int8, torch.int8), (ember.int16, torch.int16), (ember.int32, torch.int32),
          (ember.int64, torch.int64), (ember.uint8, torch.uint8), (ember.bool, torch.bool),
          (ember.complex64, torch.complex64), (ember.complex128, torch.complex128)]
_IDS = [str(t).split(".")[1] for t, _ in _PAIRS]


def _values(shape, torch_dtype, seed=0):
    """Sample values as a numpy array (float32 for bfloat16), exact in either library."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape) * 50
    if torch_dtype.is_complex:
        x = x + 1j * rng.standard_normal(shape)
    elif torch_dtype == torch.bool:
        x = x > 0
    elif not torch_dtype.is_floating_point:
        info = torch.iinfo(torch_dtype)
        x = np.clip(x, info.min, info.max)
    np_dtype = {torch.bfloat16: np.float32, torch.float16: np.float16}.get(
        torch_dtype, torch.empty(0, dtype=torch_dtype).numpy().dtype
        if torch_dtype not in (torch.bfloat16,) else np.float32)
    return np.ascontiguousarray(x.astype(np_dtype))


def _torch_tensor(array, dtype):
    return torch.from_numpy(array.copy()).to(dtype)


def _ember_tensor(array, dtype):
    return ember.from_numpy(array.copy()).to(dtype)


def _as_numpy(t):
    """Values of an ember or torch tensor as numpy (bfloat16 widened exactly to float32)."""
    t = t.detach()
    if t.dtype in (ember.bfloat16, torch.bfloat16):
        t = t.float()
    return t.numpy()


def _same_values(e, t):
    assert str(e.dtype).split(".")[1] == str(t.dtype).split(".")[1]
    assert tuple(e.shape) == tuple(t.shape)
    assert np.array_equal(_as_numpy(e), _as_numpy(t), equal_nan=True)


def _cases(make, dtype, array):
    """The tensors every direction checks: whole, a transposed offset view of it, a 0-d
    scalar and an empty tensor."""
    t = make(array, dtype)
    return {"t": t, "odd": t[1:, ::2].t(), "scalar": t[2, 3].clone(), "empty": t[:0]}


# ------------------------------------------------------------------------ every dtype


@pytest.mark.parametrize("pair", _PAIRS, ids=_IDS)
def test_ember_save_is_read_by_torch_load_weights_only(pair, tmp_path):
    edtype, tdtype = pair
    array = _values((4, 6), tdtype)
    cases = _cases(_ember_tensor, edtype, array)
    path = tmp_path / "e.pt"
    ember.save(cases, path)
    out = torch.load(path, weights_only=True)
    expect = _cases(_torch_tensor, tdtype, array)
    for k in cases:
        assert out[k].dtype == tdtype, k
        assert torch.equal(out[k], expect[k]), k
        assert out[k].stride() == expect[k].stride() and out[k].dim() == expect[k].dim(), k
    # Views of one storage load as views of one storage in torch too.
    assert out["odd"].untyped_storage().data_ptr() == out["t"].untyped_storage().data_ptr()
    assert out["odd"].storage_offset() == cases["odd"].storage_offset()
    out["odd"][0, 0] = out["t"][0, 0]
    assert torch.equal(out["t"][1, 0], out["t"][0, 0])


@pytest.mark.parametrize("mmap", [False, True], ids=["read", "mmap"])
@pytest.mark.parametrize("pair", _PAIRS, ids=_IDS)
def test_torch_save_is_read_by_ember_load(pair, mmap, tmp_path):
    edtype, tdtype = pair
    array = _values((4, 6), tdtype)
    cases = _cases(_torch_tensor, tdtype, array)
    path = tmp_path / "t.pt"
    torch.save(cases, path)
    out = ember.load(path, mmap=mmap)
    expect = _cases(_ember_tensor, edtype, array)
    for k in cases:
        assert out[k].dtype == edtype, k
        _same_values(out[k], cases[k])
        assert out[k].stride() == cases[k].stride() and out[k].dim() == cases[k].dim(), k
        assert out[k].storage_offset() == cases[k].storage_offset(), k
        _same_values(out[k], expect[k])
    # Shared storage stays shared: writing through the view changes the base.
    out["odd"][0, 0] = out["t"][0, 0]
    assert bool((out["t"][1, 0] == out["t"][0, 0]).all())
    if mmap:   # the storages are the file's pages (a private mapping)
        assert out["t"].data_ptr() % 64 == 0
        with open("/proc/self/maps") as f:
            maps = f.read()
        assert str(path.resolve()) in maps


def test_shared_storages_and_views_from_torch(tmp_path):
    base = torch.arange(24.0).reshape(4, 6)
    other = torch.arange(10, dtype=torch.int64)
    p = torch.nn.Parameter(torch.randn(3, 2))
    obj = {"base": base, "t": base.t(), "slice": base[1:3, 2:], "row": base[3],
           "flat": base.view(-1)[5:], "expanded": other[:3].expand(2, 3), "other": other,
           "p": p, "p_data": p.data, "p_t": p.data.t()}
    path = tmp_path / "shared.pt"
    torch.save(obj, path)
    assert len([n for n in zipfile.ZipFile(path).namelist() if "/data/" in n]) == 3
    out = ember.load(path)
    for k, v in obj.items():
        _same_values(out[k], v)
        assert out[k].stride() == v.stride(), k
    out["t"][2, 1] = -1.0                        # base[1, 2]
    assert float(out["base"][1, 2]) == -1.0 and float(out["slice"][0, 0]) == -1.0
    assert float(out["flat"][3]) == -1.0         # base.view(-1)[8] is base[1, 2]
    out["other"][1] = 77
    assert int(out["expanded"][1, 1]) == 77
    assert isinstance(out["p"], nn.Parameter) and out["p"].requires_grad
    with ember.no_grad():
        out["p_t"][1, 0] = 5.0                   # p[0, 1]
    assert float(out["p"][0, 1]) == 5.0 and float(out["p_data"][0, 1]) == 5.0


def test_shared_storages_from_ember_stay_shared_in_torch(tmp_path):
    base = ember.arange(24.0).reshape(4, 6)
    p = nn.Parameter(ember.randn(3, 2))
    path = tmp_path / "shared.pt"
    ember.save({"base": base, "t": base.t(), "row": base[2], "p": p, "p_t": p.data.t()}, path)
    out = torch.load(path, weights_only=True)
    assert isinstance(out["p"], torch.nn.Parameter) and out["p"].requires_grad
    out["t"][2, 1] = -1.0
    assert float(out["base"][1, 2]) == -1.0
    out["row"][0] = -2.0
    assert float(out["base"][2, 0]) == -2.0
    with torch.no_grad():
        out["p_t"][1, 0] = 5.0
    assert float(out["p"].detach()[0, 1]) == 5.0


def test_requires_grad_round_trips_both_ways(tmp_path):
    path = tmp_path / "g.pt"
    leaf = torch.ones(2, requires_grad=True)
    torch.save([leaf, leaf * 2, torch.ones(2), torch.nn.Parameter(torch.ones(2), False)], path)
    out = ember.load(path)
    assert [t.requires_grad for t in out] == [True, True, False, False]
    assert isinstance(out[3], nn.Parameter) and all(t.is_leaf for t in out)
    leaf = ember.ones(2, requires_grad=True)
    ember.save([leaf, leaf * 2, ember.ones(2), nn.Parameter(ember.ones(2), False)], path)
    out = torch.load(path, weights_only=True)
    assert [t.requires_grad for t in out] == [True, True, False, False]
    assert isinstance(out[3], torch.nn.Parameter) and all(t.is_leaf for t in out)


def test_plain_values_round_trip_both_ways(tmp_path):
    values = {"int": -2**70, "float": 1.5, "nan": float("inf"), "str": "s", "none": None,
              "bool": True, "bytes": b"\x00\xff", "empty_bytes": b"", "complex": 1 - 2j,
              "set": {1, 2}, "tuple": (1, (2, [3])), "list": [], 3: "int key",
              (1, "a"): "tuple key", "od": OrderedDict([("b", 1), ("a", 2)])}
    path = tmp_path / "v.pt"
    ember.save({**values, "size": ember.Size([2, 3]), "dtype": ember.bfloat16,
                "device": ember.device("cpu")}, path)
    out = torch.load(path, weights_only=True)
    assert {k: out[k] for k in values} == values and type(out["od"]) is OrderedDict
    assert out["size"] == torch.Size([2, 3]) and isinstance(out["size"], torch.Size)
    assert out["dtype"] is torch.bfloat16 and out["device"] == torch.device("cpu")
    torch.save({**values, "size": torch.Size([2, 3]), "dtype": torch.bfloat16,
                "device": torch.device("cpu")}, path)
    out = ember.load(path)
    assert {k: out[k] for k in values} == values and type(out["od"]) is OrderedDict
    assert out["size"] == ember.Size([2, 3]) and isinstance(out["size"], ember.Size)
    assert out["dtype"] == ember.bfloat16 and out["device"] == ember.device("cpu")


# ------------------------------------------------------------------------ legacy format


def test_legacy_format_from_torch(tmp_path):
    tensors = {str(td): _torch_tensor(_values((3, 4), td), td) for _, td in _PAIRS}
    base = torch.arange(12.0).reshape(3, 4)
    obj = {"tensors": tensors, "base": base, "t": base.t(), "row": base[1],
           "p": torch.nn.Parameter(torch.randn(2)), "empty": torch.zeros(0, 2),
           "scalar": torch.tensor(3.5), "step": 3}
    path = tmp_path / "legacy.pt"
    torch.save(obj, path, _use_new_zipfile_serialization=False)
    assert not zipfile.is_zipfile(path)
    out = ember.load(path)
    for k, t in tensors.items():
        _same_values(out["tensors"][k], t)
    for k in ["base", "t", "row", "p", "empty", "scalar"]:
        _same_values(out[k], obj[k])
        assert out[k].stride() == obj[k].stride()
    assert isinstance(out["p"], nn.Parameter) and out["step"] == 3
    out["t"][1, 2] = -1.0
    assert float(out["base"][2, 1]) == -1.0 and float(out["row"][2]) != -1.0
    out["row"][0] = -3.0
    assert float(out["base"][1, 0]) == -3.0
    for where in ["cpu", {"cpu": "cpu"}, lambda s, loc: s]:
        _same_values(ember.load(path, map_location=where)["base"], base)
    with pytest.raises(CheckpointError, match="mmap=True needs the zip format"):
        ember.load(path, mmap=True)


def test_legacy_format_from_ember_is_read_by_torch(tmp_path):
    base = ember.arange(12.0).reshape(3, 4)
    obj = {"base": base, "t": base.t(), "b": ember.ones(3, dtype=ember.bfloat16),
           "p": nn.Parameter(ember.ones(2)), "empty": ember.zeros(0)}
    path = tmp_path / "legacy.pt"
    ember.save(obj, path, _use_new_zipfile_serialization=False)
    back = ember.load(path)
    out = torch.load(path, weights_only=True)
    for k, v in obj.items():
        _same_values(v, out[k])
        _same_values(back[k], out[k])
    out["t"][1, 2] = -1.0
    assert float(out["base"][2, 1]) == -1.0
    back["t"][1, 2] = -1.0
    assert float(back["base"][2, 1]) == -1.0


def test_truncated_legacy_files(tmp_path):
    path = tmp_path / "legacy.pt"
    torch.save({"w": torch.arange(100.0)}, path, _use_new_zipfile_serialization=False)
    data = path.read_bytes()
    bad = tmp_path / "cut.pt"
    for n in [2, 10, 40, len(data) // 2, len(data) - 8, len(data) - 1]:
        bad.write_bytes(data[:n])
        with pytest.raises(CheckpointError, match="truncated|malformed"):
            ember.load(bad)
    bad.write_bytes(data + b"\0")
    with pytest.raises(CheckpointError, match="1 bytes after its last storage"):
        ember.load(bad)


# ------------------------------------------------------------ models and optimizers


# No bias before a BatchNorm: its gradient is rounding noise, whose sign Adam would amplify.
def _torch_model():
    torch.manual_seed(0)
    return torch.nn.Sequential(
        torch.nn.Conv2d(3, 4, 3, padding=1, bias=False), torch.nn.BatchNorm2d(4),
        torch.nn.ReLU(), torch.nn.Conv2d(4, 2, 1, bias=False), torch.nn.Flatten(),
        torch.nn.Linear(2 * 5 * 5, 6, bias=False), torch.nn.BatchNorm1d(6), torch.nn.Tanh(),
        torch.nn.Linear(6, 2))


def _ember_model():
    ember.manual_seed(1)
    return nn.Sequential(
        nn.Conv2d(3, 4, 3, padding=1, bias=False), nn.BatchNorm2d(4), nn.ReLU(),
        nn.Conv2d(4, 2, 1, bias=False), nn.Flatten(), nn.Linear(2 * 5 * 5, 6, bias=False),
        nn.BatchNorm1d(6), nn.Tanh(), nn.Linear(6, 2))


def _batch(seed):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((8, 3, 5, 5)).astype(np.float32),
            rng.standard_normal((8, 2)).astype(np.float32))


def _outputs_match(tmodel, emodel, seed=9):
    x, _ = _batch(seed)
    tmodel.eval()
    emodel.eval()
    with torch.no_grad():
        expect = tmodel(torch.from_numpy(x)).numpy()
    got = emodel(ember.from_numpy(x)).detach().numpy()
    np.testing.assert_allclose(got, expect, rtol=1e-5, atol=1e-5)


def test_model_state_dict_torch_to_ember(tmp_path):
    tmodel = _torch_model()
    tmodel(torch.from_numpy(_batch(0)[0]))   # train mode: moves the BatchNorm statistics
    path = tmp_path / "model.pt"
    torch.save(tmodel.state_dict(), path)
    sd = ember.load(path)
    assert type(sd) is OrderedDict and list(sd) == list(tmodel.state_dict())
    assert sd["1.num_batches_tracked"].dtype == ember.int64
    emodel = _ember_model()
    emodel.load_state_dict(sd)
    _outputs_match(tmodel, emodel)


def test_model_state_dict_ember_to_torch(tmp_path):
    emodel = _ember_model()
    emodel(ember.from_numpy(_batch(0)[0]))
    path = tmp_path / "model.pt"
    ember.save(emodel.state_dict(), path)
    sd = torch.load(path, weights_only=True)
    assert list(sd) == list(emodel.state_dict())
    tmodel = _torch_model()
    tmodel.load_state_dict(sd)
    _outputs_match(tmodel, emodel)


def _train(model, opt, lib, seed):
    x, y = _batch(seed)
    x, y = lib.from_numpy(x), lib.from_numpy(y)
    opt.zero_grad()
    loss = ((model(x) - y) ** 2).mean()
    loss.backward()
    opt.step()


_OPTIMIZERS = {
    "SGD": lambda lib, p: lib.optim.SGD(p, lr=0.05, momentum=0.9, nesterov=True),
    "Adam": lambda lib, p: lib.optim.Adam(p, lr=0.01, betas=(0.8, 0.99), amsgrad=True),
    "AdamW": lambda lib, p: lib.optim.AdamW(p, lr=0.01, weight_decay=0.1),
}


@pytest.mark.parametrize("name", list(_OPTIMIZERS))
def test_optimizer_state_dict_torch_to_ember_resumes_training(name, tmp_path):
    tmodel = _torch_model()
    topt = _OPTIMIZERS[name](torch, tmodel.parameters())
    for seed in range(2):
        _train(tmodel, topt, torch, seed)
    path = tmp_path / "ckpt.pt"
    torch.save({"model": tmodel.state_dict(), "optim": topt.state_dict(), "epoch": 2}, path)
    ckpt = ember.load(path)
    assert set(ckpt["optim"]["state"]) == set(topt.state_dict()["state"])   # int keys
    emodel = _ember_model()
    emodel.load_state_dict(ckpt["model"])
    eopt = _OPTIMIZERS[name](ember, emodel.parameters())
    eopt.load_state_dict(ckpt["optim"])
    for seed in range(2, 4):
        _train(tmodel, topt, torch, seed)
        _train(emodel, eopt, ember, seed)
    for (k, a), b in zip(tmodel.state_dict().items(), emodel.state_dict().values()):
        np.testing.assert_allclose(_as_numpy(b), a.numpy(), rtol=1e-4, atol=1e-5, err_msg=k)


@pytest.mark.parametrize("name", list(_OPTIMIZERS))
def test_optimizer_state_dict_ember_to_torch_resumes_training(name, tmp_path):
    emodel = _ember_model()
    eopt = _OPTIMIZERS[name](ember, emodel.parameters())
    for seed in range(2):
        _train(emodel, eopt, ember, seed)
    path = tmp_path / "ckpt.pt"
    ember.save({"model": emodel.state_dict(), "optim": eopt.state_dict()}, path)
    ckpt = torch.load(path, weights_only=True)
    tmodel = _torch_model()
    tmodel.load_state_dict(ckpt["model"])
    topt = _OPTIMIZERS[name](torch, tmodel.parameters())
    topt.load_state_dict(ckpt["optim"])
    for seed in range(2, 4):
        _train(tmodel, topt, torch, seed)
        _train(emodel, eopt, ember, seed)
    for (k, a), b in zip(tmodel.state_dict().items(), emodel.state_dict().values()):
        np.testing.assert_allclose(_as_numpy(b), a.numpy(), rtol=1e-4, atol=1e-5, err_msg=k)


def test_whole_module_needs_weights_only_false(tmp_path):
    model = _ember_model()
    path = tmp_path / "module.pt"
    ember.save(model, path)
    with pytest.raises(pickle.UnpicklingError, match="Weights only load failed.*global "
                       "ember.nn.modules.container.Sequential"):
        ember.load(path)
    with pytest.raises(pickle.UnpicklingError, match="Weights only load failed"):
        torch.load(path, weights_only=True)   # torch refuses it the same way
    loaded = ember.load(path, weights_only=False)
    assert type(loaded) is nn.Sequential and isinstance(loaded[0].weight, nn.Parameter)
    for a, b in zip(model.state_dict().values(), loaded.state_dict().values()):
        assert a.dtype == b.dtype and np.array_equal(_as_numpy(a), _as_numpy(b))
    x = ember.from_numpy(_batch(3)[0])
    model.eval()
    loaded.eval()
    assert np.array_equal(model(x).detach().numpy(), loaded(x).detach().numpy())


# ------------------------------------------------------------------- the allow-list


class Evil:
    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


class Point:
    """A class a checkpoint may hold once the user allows it."""

    def __init__(self, x, y):
        self.x, self.y = x, y

    def __eq__(self, other):
        return isinstance(other, Point) and (self.x, self.y) == (other.x, other.y)


@pytest.mark.parametrize("writer", ["torch_zip", "torch_legacy", "ember_zip", "ember_legacy"])
def test_a_malicious_pickle_is_refused_without_running(writer, tmp_path):
    marker = tmp_path / "pwned_x"
    path = tmp_path / "evil.pt"
    obj = {"w": torch.ones(2) if writer.startswith("torch") else ember.ones(2),
           "payload": Evil(marker)}
    save = torch.save if writer.startswith("torch") else ember.save
    save(obj, path, _use_new_zipfile_serialization=writer.endswith("zip"))
    name = f"{os.system.__module__}.system"   # posix.system on Linux
    with pytest.raises(pickle.UnpicklingError, match=f"Weights only load failed.*{name}"):
        ember.load(path)
    with serialization.safe_globals([Point]):   # allowing something else allows nothing more
        with pytest.raises(pickle.UnpicklingError, match=name):
            ember.load(path, weights_only=True)
    assert not marker.exists()


def test_safe_globals(tmp_path):
    path = tmp_path / "point.pt"
    torch.save({"p": Point(1, 2), "w": torch.ones(1)}, path)
    full = f"{Point.__module__}.Point"
    with pytest.raises(pickle.UnpicklingError, match=f"{full}.*add_safe_globals"):
        ember.load(path)
    assert serialization.get_safe_globals() == []
    with serialization.safe_globals([Point]):
        assert serialization.get_safe_globals() == [Point]
        assert ember.load(path)["p"] == Point(1, 2)
    assert serialization.get_safe_globals() == []
    with pytest.raises(pickle.UnpicklingError, match=full):
        ember.load(path)
    try:
        serialization.add_safe_globals([(Point, full)])
        assert ember.load(path)["p"] == Point(1, 2)
        serialization.add_safe_globals([Point])
        assert len(serialization.get_safe_globals()) == 2
    finally:
        serialization.clear_safe_globals()
    assert serialization.get_safe_globals() == []
    with pytest.raises(pickle.UnpicklingError, match=full):
        ember.load(path)
    assert ember.load(path, weights_only=False)["p"] == Point(1, 2)
    with pytest.raises(TypeError, match="'module.name'"):
        serialization.add_safe_globals([(Point, 3)])


@pytest.mark.parametrize("protocol", [2, 4])
@pytest.mark.parametrize("zip_format", [True, False], ids=["zip", "legacy"])
def test_get_unsafe_globals_in_checkpoint(zip_format, protocol, tmp_path):
    path = tmp_path / "mixed.pt"
    torch.save({"p": Point(1, 2), "q": Point(3, 4), "w": torch.ones(2), "s": {1}},
               path, _use_new_zipfile_serialization=zip_format, pickle_protocol=protocol)
    full = f"{Point.__module__}.Point"
    assert serialization.get_unsafe_globals_in_checkpoint(path) == [full]
    with serialization.safe_globals([Point]):
        assert serialization.get_unsafe_globals_in_checkpoint(path) == []
    torch.save(torch.nn.Linear(2, 2), path, _use_new_zipfile_serialization=zip_format,
               pickle_protocol=protocol)
    assert "torch.nn.modules.linear.Linear" in serialization.get_unsafe_globals_in_checkpoint(path)
    ember.save({"w": ember.ones(2)}, path)
    assert serialization.get_unsafe_globals_in_checkpoint(path) == []


def test_parameter_and_tensor_python_state(tmp_path):
    p = torch.nn.Parameter(torch.ones(2))
    p.tag = "kept"
    t = torch.arange(3.0)
    t.note = 7
    path = tmp_path / "state.pt"
    torch.save({"p": p, "t": t}, path)
    pkl = zipfile.ZipFile(path).read("state/data.pkl")
    assert b"_rebuild_parameter_with_state" in pkl and b"_rebuild_from_type_v2" in pkl
    out = ember.load(path)
    assert isinstance(out["p"], nn.Parameter) and out["p"].tag == "kept"
    assert out["t"].note == 7
    _same_values(out["t"], t)


def test_lazy_conj_and_neg_bits_are_materialized(tmp_path):
    c = torch.tensor([1 + 2j, 3 - 1j])
    path = tmp_path / "bits.pt"
    torch.save({"a": c.conj(), "b": c._neg_view()}, path)
    pkl = zipfile.ZipFile(path).read("bits/data.pkl")
    assert b"conj" in pkl and b"neg" in pkl   # the tensors' metadata dicts
    out = ember.load(path)
    _same_values(out["a"], c.conj().resolve_conj())
    _same_values(out["b"], -c)


# ------------------------------------------------------------- crafted torch files


def _records(path):
    z = zipfile.ZipFile(path)
    return {n: z.read(n) for n in z.namelist()}


def _write_zip(path, records):
    with open(path, "wb") as f:
        for chunk in _zip.plan([(n, d, None) for n, d in records.items()]):
            f.write(chunk)


def test_untyped_storage_with_two_dtypes(tmp_path):
    """_rebuild_tensor_v3 over one torch.storage.UntypedStorage, viewed as float32 and as
    int32: both libraries load them as views of the same bytes."""
    from ember.serialization._pickler import _Global, _Pickler, Plan
    import io

    class Untyped:   # stands for the storage in the pickle below
        pass

    v3, untyped = _Global("torch._utils", "_rebuild_tensor_v3"), _Global("torch.storage",
                                                                          "UntypedStorage")
    storage = Untyped()
    floats = (v3, (storage, 0, (4,), (1,), False, OrderedDict(), _Global("torch", "float32")))
    ints = (v3, (storage, 2, (2,), (1,), False, OrderedDict(), _Global("torch", "int32")))

    class Crafted(_Pickler):
        def persistent_id(self, obj):
            return ("storage", untyped, "0", "cpu", 16) if obj is storage else None

        def reducer_override(self, obj):
            return obj.reduce if isinstance(obj, Reduce) else NotImplemented

    class Reduce:
        def __init__(self, reduce):
            self.reduce = reduce

    out = io.BytesIO()
    Crafted(out, Plan(), 2).dump({"f": Reduce(floats), "i": Reduce(ints)})
    data = np.array([1.5, 2.5, 3.5, 4.5], dtype=np.float32)
    path = tmp_path / "v3.pt"
    _write_zip(path, {"archive/data.pkl": out.getvalue(), "archive/byteorder": b"little",
                      "archive/data/0": data.tobytes(), "archive/version": b"3\n"})
    expect_ints = data[2:].view(np.int32)
    for lib_out in [torch.load(path, weights_only=True), ember.load(path)]:
        assert np.array_equal(_as_numpy(lib_out["f"]), data)
        assert np.array_equal(_as_numpy(lib_out["i"]), expect_ints)
    out = ember.load(path)
    out["f"][2] = 0.0   # the first int32 is the bytes of f[2]
    assert int(out["i"][0]) == 0


def test_big_endian_torch_files_load(tmp_path):
    path = tmp_path / "little.pt"
    values = {"f": torch.randn(5, dtype=torch.float64), "i": torch.arange(4, dtype=torch.int16),
              "c": torch.randn(3, dtype=torch.complex64), "b": torch.randn(3).bfloat16()}
    torch.save(values, path)
    records = _records(path)
    prefix = "little/"
    keys = {}   # which record holds which tensor: the order they were pickled in
    for i, (k, v) in enumerate(values.items()):
        keys[k] = f"{prefix}data/{i}"
        item = v.element_size() // (2 if v.is_complex() else 1)
        raw = np.frombuffer(records[keys[k]], dtype=f"<u{item}")
        records[keys[k]] = raw.byteswap().tobytes()
    records[f"{prefix}byteorder"] = b"big"
    big = tmp_path / "big.pt"
    _write_zip(big, records)
    out = ember.load(big)
    for k, v in values.items():
        _same_values(out[k], v)
        _same_values(out[k], torch.load(big, weights_only=True)[k])   # torch agrees


def test_zip64_records(tmp_path, monkeypatch):
    monkeypatch.setattr(_zip, "ZIP64_LIMIT", 0)   # every size and offset takes zip64 fields
    path = tmp_path / "zip64.pt"
    t = ember.arange(10.0)
    ember.save({"t": t, "v": t[3:]}, path)
    data = path.read_bytes()
    assert b"PK\x06\x06" in data and b"PK\x06\x07" in data   # zip64 end record and locator
    assert zipfile.ZipFile(path).testzip() is None
    out = torch.load(path, weights_only=True)
    assert torch.equal(out["t"], torch.arange(10.0)) and torch.equal(out["v"], out["t"][3:])
    back = ember.load(path, mmap=True)
    _same_values(back["v"], out["v"])
    flipped = bytearray(data)
    flipped[data.index(b"PK\x06\x06") + 40] ^= 1
    (tmp_path / "bad.pt").write_bytes(flipped)
    with pytest.raises(CheckpointError):
        ember.load(tmp_path / "bad.pt")


def test_map_location_on_a_cuda_checkpoint(tmp_path):
    """A file whose storages were saved from cuda:0 loads onto the CPU as torch's would."""
    path = tmp_path / "gpu.pt"
    w = torch.arange(4.0)
    torch.save({"w": w, "v": w[1:]}, path)
    records = _records(path)
    pkl = records["gpu/data.pkl"]
    assert pkl.count(b"X\x03\x00\x00\x00cpu") == 1   # memoized after its first use
    records["gpu/data.pkl"] = pkl.replace(b"X\x03\x00\x00\x00cpu", b"X\x06\x00\x00\x00cuda:0")
    _write_zip(path, records)
    for where in ["cpu", ember.device("cpu"), torch.device("cpu"), {"cuda:0": "cpu"}]:
        out = ember.load(path, map_location=where)
        assert out["w"].device == ember.device("cpu")
        _same_values(out["v"], torch.arange(4.0)[1:])
    seen = []

    def to_cpu(storage, location):
        seen.append((location, tuple(storage.shape)))
        return storage * 10

    out = ember.load(path, map_location=to_cpu)
    assert seen == [("cuda:0", (4,))]   # once per storage, with all of it
    _same_values(out["v"], torch.arange(4.0)[1:] * 10)
    with pytest.raises(TypeError, match="expected map_location"):
        ember.load(path, map_location=3)


def test_unsupported_contents_are_named(tmp_path):
    path = tmp_path / "x.pt"
    torch.save({"u": torch.ones(2, dtype=torch.uint16)}, path)
    with pytest.raises(CheckpointError, match="torch.uint16 .a dtype ember does not have"):
        ember.load(path)
    torch.save({"q": torch.quantize_per_tensor(torch.ones(2), 0.1, 0, torch.quint8)}, path)
    with pytest.raises(CheckpointError, match="_rebuild_qtensor .it rebuilds a quantized"):
        ember.load(path)
    torch.save({"s": torch.eye(2).to_sparse()}, path)  # sparse tensors load (test_sparse_compressed.py)
    assert ember.load(path)["s"].to_dense().tolist() == [[1.0, 0.0], [0.0, 1.0]]
    scripted = torch.jit.script(torch.nn.Linear(2, 2))
    torch.jit.save(scripted, str(path))
    with pytest.raises(CheckpointError, match="TorchScript archive"):
        ember.load(path)


def test_torch_pickle_protocol_4_loads(tmp_path):
    path = tmp_path / "p4.pt"
    base = torch.arange(6.0)
    torch.save({"a": base, "b": base[2:], "s": "x" * 300}, path, pickle_protocol=4)
    out = ember.load(path)
    _same_values(out["b"], base[2:])
    out["b"][0] = 9.0
    assert float(out["a"][2]) == 9.0 and out["s"] == "x" * 300


def test_truncated_and_corrupted_torch_files(tmp_path):
    path = tmp_path / "t.pt"
    torch.save({"w": torch.randn(64), "n": 3}, path)
    data = path.read_bytes()
    bad = tmp_path / "bad.pt"
    for n in [1, 4, 30, 200, len(data) // 2, len(data) - 22, len(data) - 1]:
        bad.write_bytes(data[:n])
        with pytest.raises(CheckpointError, match="truncated"):
            ember.load(bad)
    layout = {}
    for info in zipfile.ZipFile(path).infolist():
        name_len, extra_len = struct.unpack_from("<HH", data, info.header_offset + 26)
        layout[info.filename] = info.header_offset + 30 + name_len + extra_len
    for name in ["t/data/0", "t/data.pkl", "t/byteorder"]:
        flipped = bytearray(data)
        flipped[layout[name]] ^= 0x04
        bad.write_bytes(flipped)
        with pytest.raises(CheckpointError, match=f"checksum mismatch in zip record '{name}'"):
            ember.load(bad)
    flipped = bytearray(data)
    flipped[data.rfind(b"PK\x01\x02") + 46] ^= 0x04   # a name in the central directory
    bad.write_bytes(flipped)
    with pytest.raises(CheckpointError, match="does not match its central directory entry"):
        ember.load(bad)


def test_torch_load_mmap_reads_ember_files(tmp_path):
    path = tmp_path / "e.pt"
    t = ember.arange(1000.0).reshape(10, 100)
    ember.save({"t": t, "col": t[:, 3]}, path)
    out = torch.load(path, mmap=True, weights_only=True)
    assert torch.equal(out["t"], torch.arange(1000.0).reshape(10, 100))
    assert torch.equal(out["col"], out["t"][:, 3])


def test_weights_only_environment_switches(tmp_path, monkeypatch):
    """torch's TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD / TORCH_FORCE_WEIGHTS_ONLY_LOAD, as a published
    program that torch.save's a numpy array relies on (pytorch/examples time_sequence_prediction)."""
    import numpy as np
    import torch
    path = tmp_path / "array.pt"
    torch.save(np.arange(4.0), open(path, "wb"))
    with pytest.raises(Exception, match="numpy"):
        ember.load(path)
    monkeypatch.setenv("TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD", "1")
    with pytest.warns(UserWarning, match="TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD"):
        np.testing.assert_array_equal(ember.load(path), np.arange(4.0))
    with pytest.raises(Exception, match="numpy"):
        ember.load(path, weights_only=True)  # an explicit argument wins over the default switch
    monkeypatch.setenv("TORCH_FORCE_WEIGHTS_ONLY_LOAD", "1")
    with pytest.raises(RuntimeError, match="Only one of"):
        ember.load(path)
    monkeypatch.delenv("TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD")
    with pytest.raises(Exception, match="numpy"):
        ember.load(path, weights_only=False)  # forced on
