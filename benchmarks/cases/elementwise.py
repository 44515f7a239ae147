"""Elementwise Python cases: ember against torch and numpy, and against memory bandwidth.

Until the `ember` module exists these rows report torch and numpy alone (reference only).
Goals are provisional until the issue that brings Ember's binary kernels sets its own.
"""

from runner.registry import python_case

BIG = 64 << 20  # 64M float32 = 256 MiB a tensor: well past the cache (16M sits on its edge)
QUICK_BIG = 4 << 20


def _add_setup(n_full, n_quick):
    def setup(lib, mod, quick):
        n = n_quick if quick else n_full
        a = mod.ones(n, dtype=mod.float32)
        b = mod.ones(n, dtype=mod.float32)
        return lambda: a + b
    return setup


python_case("py_add_1k", goals={"torch": 1.0, "numpy": 1.0},
            size="1024 float32", note="a + b, per-call overhead dominates")(
    _add_setup(1024, 1024))

def _add_out_setup(lib, mod, quick):
    n = QUICK_BIG if quick else BIG
    a = mod.ones(n, dtype=mod.float32)
    b = mod.ones(n, dtype=mod.float32)
    out = mod.empty(n, dtype=mod.float32)
    return lambda: mod.add(a, b, out=out)


def _bytes_3(quick):
    return 3 * 4 * (QUICK_BIG if quick else BIG)  # two reads and a write of float32


python_case("py_add_64M", goals={"torch": 1.0, "numpy": 1.0, "stream": 1.5},
            bytes_moved=_bytes_3, stream="triad",
            size="64M float32 (256 MiB)", quick_size="4M float32 (16 MiB, in cache)",
            note="a + b into a new tensor: the allocation's page faults count too")(
    _add_setup(BIG, QUICK_BIG))

python_case("py_add_out_64M", goals={"torch": 1.0, "numpy": 1.0, "stream": 1.25},
            bytes_moved=_bytes_3, stream="triad",
            size="64M float32 (256 MiB)", quick_size="4M float32 (16 MiB, in cache)",
            note="add(a, b, out=c): the kernel alone against triad bandwidth")(
    _add_out_setup)
