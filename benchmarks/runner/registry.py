"""The case registry: every benchmark row of `make bench` is declared here, by a case module
in benchmarks/cases/ (imported by benchmarks/cases/__init__.py).

Two kinds of case:
- C++ cases live in a `CppSuite`: a Google Benchmark executable of Ember's build and its
  libtorch twin (benchmarks/libtorch/), whose BENCHMARK()s carry the same names.
- Python cases are a setup function `setup(lib, mod, quick) -> fn`, registered with
  `@python_case`: `mod` is the imported library (`ember`, `torch` or `numpy`, which share
  the basic API: `mod.ones(n, dtype=mod.float32)`, `a + b`), and the runner times `fn()`.

A case's goals name its references: `{"torch": 0.5}` means Ember's time must be at most
half of torch's. The reference "stream" compares with this machine's memory bandwidth (the
case gives the bytes it moves per call and the STREAM kernel it resembles).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

# Libraries a Python case can run on; the first is the one measured against the others.
PY_LIBS = ("ember", "torch", "numpy", "scipy")
STREAM_KERNELS = ("copy", "triad")


@dataclass(frozen=True)
class CppCase:
    """One BENCHMARK() present, under the same name, in a suite's executables."""

    name: str
    goal: float | None  # None: reported for the record, no goal
    threads: tuple[int, ...] = (1,)
    # "cpu": the benchmark thread's CPU time (robust to preemption; right for one thread);
    # "real": wall time (needed once a case runs a thread pool).
    timer: str = "cpu"
    reference_only: bool = False  # only the reference executable has it (Ember's is to come)
    note: str = ""


@dataclass(frozen=True)
class CppSuite:
    """A pair of Google Benchmark executables: Ember's and the reference's."""

    name: str
    ember_target: str  # CMake target of Ember's build (benchmarks/cpp/CMakeLists.txt)
    reference: str  # "libtorch"
    reference_target: str  # CMake target of benchmarks/libtorch/CMakeLists.txt
    cases: tuple[CppCase, ...]
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class PyCase:
    """A Python case: ember against each reference library, same setup for all."""

    name: str
    setup: Callable  # (lib: str, mod: module, quick: bool) -> zero-argument callable
    goals: dict[str, float | None]  # reference ("torch", "numpy", "stream") -> goal
    threads: tuple[int, ...] = (1, 2)
    # Bytes read and written per call, STREAM-style (each array once): fn(quick) -> int.
    bytes_moved: Callable[[bool], int] | None = None
    stream: str | None = None  # the STREAM kernel it resembles, for reference "stream"
    size: str = ""  # what it runs on, for the report; quick_size when --quick
    quick_size: str = ""
    note: str = ""
    libs: tuple[str, ...] = field(default=())

    def __post_init__(self):
        refs = [r for r in self.goals if r != "stream"]
        bad = [r for r in refs if r not in PY_LIBS[1:]]
        if bad:
            raise ValueError(f"{self.name}: unknown reference {bad}; expected {PY_LIBS[1:]} or stream")
        if "stream" in self.goals and (self.stream not in STREAM_KERNELS or self.bytes_moved is None):
            raise ValueError(f"{self.name}: reference 'stream' needs stream= one of "
                             f"{STREAM_KERNELS} and bytes_moved=")
        object.__setattr__(self, "libs", ("ember", *refs))


CPP_SUITES: list[CppSuite] = []
PY_CASES: list[PyCase] = []


def cpp_suite(suite: CppSuite) -> CppSuite:
    """Registers a C++ suite."""
    if any(s.name == suite.name for s in CPP_SUITES):
        raise ValueError(f"C++ suite {suite.name} registered twice")
    CPP_SUITES.append(suite)
    return suite


def python_case(name: str, *, goals: dict[str, float | None], threads=(1, 2), bytes_moved=None,
                stream=None, size="", quick_size="", note=""):
    """Decorator registering `setup(lib, mod, quick) -> fn` as the Python case `name`."""

    def register(setup):
        if any(c.name == name for c in PY_CASES):
            raise ValueError(f"Python case {name} registered twice")
        PY_CASES.append(PyCase(name, setup, dict(goals), tuple(threads), bytes_moved, stream,
                               size, quick_size or size, note))
        return setup

    return register


def py_case(name: str) -> PyCase:
    """The registered Python case called `name`."""
    for c in PY_CASES:
        if c.name == name:
            return c
    raise KeyError(f"no Python case {name}")
