"""`torch.hub` for Ember: models from a directory with a `hubconf.py`, and checkpoints by URL.

The hub directory follows PyTorch's rules ($TORCH_HOME/hub, else $XDG_CACHE_HOME/torch/hub,
else ~/.cache/torch/hub), so repositories and checkpoints torch has already fetched are
found. `source="github"` loads a repository from that cache (`<owner>_<repo>_<ref>`, as torch
stores it); Ember does not clone repositories itself.
"""
from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import os
import re
import shutil
import sys
import tempfile
import urllib.request
from urllib.parse import urlparse

__all__ = ["download_url_to_file", "get_dir", "help", "list", "load", "load_state_dict_from_url",
           "set_dir"]

MODULE_HUBCONF = "hubconf.py"
VAR_DEPENDENCY = "dependencies"
HASH_REGEX = re.compile(r"-([a-f0-9]*)\.")
_hub_dir: str | None = None


def get_dir() -> str:
    """The directory hub repositories and checkpoints are kept in (see set_dir)."""
    if _hub_dir is not None:
        return _hub_dir
    home = os.environ.get("TORCH_HOME")
    if home is None:
        home = os.path.join(os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache")), "torch")
    return os.path.join(os.path.expanduser(home), "hub")


def set_dir(d: str | os.PathLike) -> None:
    """Makes d the hub directory for this process."""
    global _hub_dir
    _hub_dir = os.path.expanduser(os.fspath(d))


@contextlib.contextmanager
def _on_sys_path(path: str):
    sys.path.insert(0, path)
    try:
        yield
    finally:
        sys.path.remove(path)


def _import_hubconf(repo_dir: str):
    path = os.path.join(repo_dir, MODULE_HUBCONF)
    if not os.path.isfile(path):
        raise FileNotFoundError(f"hub: expected a {MODULE_HUBCONF} in '{repo_dir}', but there is none")
    spec = importlib.util.spec_from_file_location("hubconf", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    missing = [d for d in getattr(module, VAR_DEPENDENCY, []) if importlib.util.find_spec(d) is None]
    if missing:
        raise RuntimeError(f"Missing dependencies: {', '.join(missing)}")
    return module


def _entry(module, model: str):
    if not isinstance(model, str):
        raise ValueError("Invalid input: model should be a string of function name")
    fn = getattr(module, model, None)
    if fn is None or not callable(fn):
        raise RuntimeError(f"Cannot find callable {model} in hubconf")
    return fn


def _cached_repo(github: str) -> str:
    """The hub directory's copy of 'owner/repo[:ref]' (torch's layout), or a clear error."""
    repo, _, ref = github.partition(":")
    if repo.count("/") != 1 or not all(repo.split("/")):
        raise ValueError(f"hub: expected a repository as 'owner/repo[:ref]', but got '{github}'")
    owner, name = repo.split("/")
    refs = [ref] if ref else ["main", "master"]
    for r in refs:
        d = os.path.join(get_dir(), "_".join([owner, name, r.replace("/", "_")]))
        if os.path.isdir(d):
            return d
    raise RuntimeError(f"hub: '{github}' is not in the hub directory {get_dir()} and Ember does not "
                       "download repositories: clone it there as "
                       f"{owner}_{name}_{refs[0]}, or pass a local directory with source='local'")


def _repo_dir(repo_or_dir: str, source: str) -> str:
    source = source.lower()
    if source not in ("github", "local"):
        raise ValueError(f'Unknown source: "{source}". Allowed values: "github" | "local".')
    return os.path.expanduser(repo_or_dir) if source == "local" else _cached_repo(repo_or_dir)


def list(github: str, force_reload: bool = False, skip_validation: bool = False,  # noqa: A001
         trust_repo=None, verbose: bool = True) -> list[str]:
    """The entrypoints (public callables) of a hub repository's hubconf.py."""
    repo_dir = _cached_repo(github)
    with _on_sys_path(repo_dir):
        module = _import_hubconf(repo_dir)
    return [n for n in dir(module) if callable(getattr(module, n)) and not n.startswith("_")]


def help(github: str, model: str, force_reload: bool = False, skip_validation: bool = False,  # noqa: A001
         trust_repo=None) -> str | None:
    """The docstring of entrypoint `model` of a hub repository."""
    repo_dir = _cached_repo(github)
    with _on_sys_path(repo_dir):
        return _entry(_import_hubconf(repo_dir), model).__doc__


def load(repo_or_dir: str, model: str, *args, source: str = "github", trust_repo=None,
         force_reload: bool = False, verbose: bool = True, skip_validation: bool = False, **kwargs):
    """Calls entrypoint `model` of the hubconf.py of a directory (source='local') or of a
    repository in the hub directory (source='github') with args and kwargs."""
    repo_dir = _repo_dir(repo_or_dir, source)
    with _on_sys_path(repo_dir):
        return _entry(_import_hubconf(repo_dir), model)(*args, **kwargs)


def download_url_to_file(url: str, dst: str, hash_prefix: str | None = None, progress: bool = True) -> None:
    """Downloads url to dst through a temporary file, checking the SHA-256 prefix if given."""
    dst = os.path.expanduser(dst)
    fd, tmp = tempfile.mkstemp(prefix=".hub-", dir=os.path.dirname(os.path.abspath(dst)))
    try:
        sha = hashlib.sha256()
        with os.fdopen(fd, "wb") as f, urllib.request.urlopen(url) as r:  # noqa: S310
            while chunk := r.read(1 << 16):
                f.write(chunk)
                sha.update(chunk)
        if hash_prefix is not None and not sha.hexdigest().startswith(hash_prefix):
            raise RuntimeError(f'invalid hash value (expected "{hash_prefix}", got "{sha.hexdigest()}")')
        shutil.move(tmp, dst)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def load_state_dict_from_url(url: str, model_dir: str | None = None, map_location=None,
                             progress: bool = True, check_hash: bool = False,
                             file_name: str | None = None, weights_only: bool = False):
    """ember.load of the checkpoint at url, kept in model_dir (the hub directory's checkpoints/
    by default) and downloaded only when it is not there yet."""
    from ember.serialization import load as _load

    model_dir = os.path.expanduser(model_dir) if model_dir else os.path.join(get_dir(), "checkpoints")
    os.makedirs(model_dir, exist_ok=True)
    name = file_name or os.path.basename(urlparse(url).path)
    path = os.path.join(model_dir, name)
    if not os.path.exists(path):
        match = HASH_REGEX.search(name) if check_hash else None
        download_url_to_file(url, path, match.group(1) if match else None, progress=progress)
    return _load(path, map_location=map_location, weights_only=weights_only)
