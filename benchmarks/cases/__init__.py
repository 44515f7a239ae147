"""Every benchmark case of `make bench`: importing this package registers them all.

Add a module here (and to the import list below) for a new family of cases.
"""

from runner.registry import CPP_SUITES, PY_CASES

from . import autograd, dispatch, elementwise, factory, fft, jit, nn, python_api, scan, shape, sparse, train  # noqa: F401

PY_CASES_BY_NAME = {c.name: c for c in PY_CASES}
__all__ = ["CPP_SUITES", "PY_CASES", "PY_CASES_BY_NAME"]
