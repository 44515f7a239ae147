"""Checkpoints move between the C++ frontend and Python: what ember::save writes (the C++
suite's SerializeForPython case, test/cpp/api/serialize_test.cpp) loads with torch.load
(weights_only=True) and ember.load, and what Python's ember.save writes loads in C++ (its
SerializeFromPython.FilesEmberSaveWrote case); torch.save's files are checked there."""
import collections
import os
import subprocess
from pathlib import Path

import pytest
import torch

import ember

REPO = Path(__file__).resolve().parents[2]
BINARY = (REPO / os.environ.get("EMBER_BUILD_DIR", "build")) / "test/cpp/ember_cpp_api_tests"

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16",
          "float32", "float64", "complex64", "complex128"]


def pattern(dtype):
    """serialize_test.cpp's pattern(): the 2x3 tensor of every dtype case."""
    i = torch.arange(6, dtype=torch.float64).reshape(2, 3)
    if dtype == torch.bool:
        return i.long() % 2 == 1
    if dtype.is_complex:
        return torch.complex((i - 2.5) * 0.5, i * 0.25).to(dtype)
    if dtype.is_floating_point:
        return ((i - 2.5) * 0.5).to(dtype)
    if dtype == torch.uint8:
        return (i * 40).to(dtype)
    return (i * 7 - 20).to(dtype)


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    if not BINARY.exists():
        pytest.skip(f"the C++ API tests are not built ({BINARY})")
    out = tmp_path_factory.mktemp("cpp_serialize")
    subprocess.run([str(BINARY), "--gtest_filter=SerializeForPython.*"], check=True,
                   env=dict(os.environ, EMBER_SERIALIZE_OUT=str(out)), capture_output=True)
    return out


@pytest.mark.parametrize("name", DTYPES)
def test_tensor_of_every_dtype(written, name):
    dtype = getattr(torch, name)
    t = torch.load(written / f"tensor_{name}.pt", weights_only=True)
    assert t.dtype == dtype and torch.equal(t, pattern(dtype))
    e = ember.load(written / f"tensor_{name}.pt", weights_only=True)
    assert str(e.dtype).endswith(name) and tuple(e.shape) == (2, 3)
    assert e.tolist() == t.tolist()


def test_views_lists_and_state_dicts(written):
    base = torch.arange(12.).reshape(3, 4)
    t = torch.load(written / "noncontiguous.pt", weights_only=True)
    assert torch.equal(t, base.t()) and t.stride() == (1, 4)
    v = torch.load(written / "list.pt", weights_only=True)
    assert [x.shape for x in v] == [(3, 4), (2, 4), ()]
    assert torch.equal(v[1], base[1:]) and v[1].data_ptr() == v[0].data_ptr() + 16
    assert v[2].item() == 2.5
    model = torch.nn.Sequential(torch.nn.Linear(3, 2), torch.nn.BatchNorm1d(2))
    model.load_state_dict(torch.load(written / "state_dict.pt", weights_only=True))
    assert torch.equal(model[0].weight.detach(), base[:2, :3])
    assert model[1].num_batches_tracked.item() == 5
    state = ember.load(written / "state_dict.pt", weights_only=True)
    assert list(state) == ["0.weight", "0.bias", "1.weight", "1.bias", "1.running_mean",
                           "1.running_var", "1.num_batches_tracked"]
    assert state["0.weight"].tolist() == base[:2, :3].tolist()


def test_pickle_save_bytes(written):
    data = (written / "pickle_save.pt").read_bytes()
    import io
    t = torch.load(io.BytesIO(data), weights_only=True)
    assert t.dtype == torch.int16 and t.tolist() == [0, 1, 2, 3]


def test_ember_save_files_load_in_cpp(tmp_path):
    if not BINARY.exists():
        pytest.skip(f"the C++ API tests are not built ({BINARY})")
    for name in DTYPES:
        t = pattern(getattr(torch, name))
        ember.save(ember.tensor(t.tolist(), dtype=getattr(ember, name)),
                   tmp_path / f"tensor_{name}.pt")
    state = collections.OrderedDict()
    for key, shape in [("0.weight", (2, 3)), ("0.bias", (2,)), ("1.weight", (2,)),
                       ("1.bias", (2,)), ("1.running_mean", (2,)), ("1.running_var", (2,))]:
        state[key] = ember.full(shape, 0.5)
    state["1.num_batches_tracked"] = ember.tensor(3)
    ember.save(state, tmp_path / "state_dict.pt")
    x = ember.arange(4.)
    ember.save([x, x[1:]], tmp_path / "list.pt")
    run = subprocess.run([str(BINARY), "--gtest_filter=SerializeFromPython.FilesEmberSaveWrote"],
                         env=dict(os.environ, EMBER_SERIALIZE_IN=str(tmp_path)),
                         capture_output=True, text=True)
    assert run.returncode == 0 and "[  PASSED  ] 1 test" in run.stdout, run.stdout[-3000:]
    assert "SKIPPED" not in run.stdout
