"""ember.hub against torch.hub: local hubconf directories, the hub cache layout, checkpoints by URL."""
from __future__ import annotations

import textwrap

import numpy as np
import pytest
import torch

import ember

HUBCONF = '''
dependencies = ["numpy"]

def tiny(width=3, *, bias=True):
    """A linear layer of the given width."""
    import {lib}
    {lib}.manual_seed(0)
    return {lib}.nn.Linear(width, 2, bias=bias)

def _private():
    return None

NOT_CALLABLE = 3
'''


def make_repo(path, lib, deps=None):
    path.mkdir(parents=True, exist_ok=True)
    text = HUBCONF.replace("{lib}", lib)
    if deps is not None:
        text = text.replace('dependencies = ["numpy"]', f"dependencies = {deps!r}")
    (path / "hubconf.py").write_text(textwrap.dedent(text))
    return path


@pytest.mark.parametrize("lib", [torch, ember], ids=["torch", "ember"])
def test_load_local_calls_the_entrypoint(tmp_path, lib):
    repo = make_repo(tmp_path / "repo", lib.__name__)
    m = lib.hub.load(str(repo), "tiny", 4, source="local", bias=False)
    assert tuple(m.weight.shape) == (2, 4) and m.bias is None


@pytest.mark.parametrize("lib", [torch, ember], ids=["torch", "ember"])
def test_bad_inputs_raise_like_torch(tmp_path, lib):
    repo = make_repo(tmp_path / "repo", lib.__name__)
    with pytest.raises(ValueError, match="Unknown source"):
        lib.hub.load(str(repo), "tiny", source="ftp")
    with pytest.raises(RuntimeError, match="Cannot find callable missing in hubconf"):
        lib.hub.load(str(repo), "missing", source="local")
    with pytest.raises(RuntimeError, match="Cannot find callable NOT_CALLABLE"):
        lib.hub.load(str(repo), "NOT_CALLABLE", source="local")
    bad = make_repo(tmp_path / "bad", lib.__name__, deps=["no_such_module_xyz"])
    with pytest.raises(RuntimeError, match="Missing dependencies: no_such_module_xyz"):
        lib.hub.load(str(bad), "tiny", source="local")


def test_dir_follows_torch_rules(tmp_path, monkeypatch):
    monkeypatch.setattr(ember.hub, "_hub_dir", None)
    monkeypatch.setattr(torch.hub, "_hub_dir", None)
    monkeypatch.setenv("TORCH_HOME", str(tmp_path / "th"))
    assert ember.hub.get_dir() == torch.hub.get_dir() == str(tmp_path / "th" / "hub")
    monkeypatch.delenv("TORCH_HOME")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert ember.hub.get_dir() == torch.hub.get_dir()
    ember.hub.set_dir(tmp_path / "mine")
    assert ember.hub.get_dir() == str(tmp_path / "mine")


def test_github_source_reads_the_hub_cache(tmp_path, monkeypatch):
    monkeypatch.setattr(ember.hub, "_hub_dir", str(tmp_path))
    with pytest.raises(RuntimeError, match="does not download repositories"):
        ember.hub.load("someone/models", "tiny")
    with pytest.raises(ValueError, match="owner/repo"):
        ember.hub.list("not-a-repo")
    make_repo(tmp_path / "someone_models_main", "ember")
    assert ember.hub.list("someone/models") == ["tiny"]
    assert ember.hub.help("someone/models", "tiny") == "A linear layer of the given width."
    assert tuple(ember.hub.load("someone/models", "tiny", 5).weight.shape) == (2, 5)
    make_repo(tmp_path / "someone_models_v1", "ember")
    assert ember.hub.list("someone/models:v1") == ["tiny"]


def test_load_state_dict_from_url_downloads_once_and_checks_the_hash(tmp_path):
    import hashlib
    src = tmp_path / "src"
    src.mkdir()
    ckpt = src / "weights.pt"
    torch.save({"w": torch.arange(6.0).reshape(2, 3)}, ckpt)
    digest = hashlib.sha256(ckpt.read_bytes()).hexdigest()
    named = src / f"weights-{digest[:8]}.pt"
    named.write_bytes(ckpt.read_bytes())
    models = tmp_path / "models"
    sd = ember.hub.load_state_dict_from_url(named.as_uri(), model_dir=str(models), check_hash=True,
                                            weights_only=True)
    np.testing.assert_array_equal(sd["w"].numpy(), np.arange(6.0, dtype=np.float32).reshape(2, 3))
    named.unlink()  # a second call reads the kept copy
    again = ember.hub.load_state_dict_from_url(named.as_uri(), model_dir=str(models))
    np.testing.assert_array_equal(again["w"].numpy(), sd["w"].numpy())
    wrong = src / "weights-deadbeef.pt"
    wrong.write_bytes(ckpt.read_bytes())
    with pytest.raises(RuntimeError, match="invalid hash value"):
        ember.hub.load_state_dict_from_url(wrong.as_uri(), model_dir=str(models), check_hash=True)
    assert not (models / "weights-deadbeef.pt").exists()
