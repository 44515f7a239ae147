"""Loading operator libraries built with ember_add_op_library(... PYTHON)."""
from __future__ import annotations

import importlib.machinery
import importlib.util
import os

_loaded: dict[str, object] = {}


def load_library(path: str | os.PathLike):
    """Loads the Python extension of an operator library: its operators appear as ember.<op>
    (and Tensor.<op> for method variants) with no binding code written. Returns the module."""
    path = os.fspath(path)
    if path in _loaded:
        return _loaded[path]
    name = os.path.basename(path).split(".")[0]
    loader = importlib.machinery.ExtensionFileLoader(name, path)
    spec = importlib.util.spec_from_file_location(name, path, loader=loader)
    if spec is None:
        raise ImportError(f"load_library(): cannot load '{path}'")
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    _loaded[path] = module
    return module
