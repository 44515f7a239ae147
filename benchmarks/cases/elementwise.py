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


# ---- the CPU-kernels issue: per-op overhead on tiny tensors (goal 0.5 of torch) ----------

def _tiny(expr):
    def setup(lib, mod, quick):
        a = mod.ones(4, dtype=mod.float32)
        b = mod.ones(4, dtype=mod.float32)
        c = mod.empty(4, dtype=mod.float32)
        if expr == "a + b":
            return lambda: a + b
        if expr == "a + 1":
            return lambda: a + 1
        if expr == "y * 1.01":
            return lambda: a * 1.01
        if expr == "add out":
            return (lambda: mod.add(a, b, out=c)) if lib != "numpy" else (lambda: mod.add(a, b, out=c))
        if expr == "add_":
            return (lambda: a.add_(b)) if lib != "numpy" else (lambda: mod.add(a, b, out=a))
        raise ValueError(expr)
    return setup


for _name, _expr in (("py_add_4", "a + b"), ("py_add_scalar_4", "a + 1"),
                     ("py_mul_float_4", "y * 1.01"), ("py_add_out_4", "add out"),
                     ("py_add__4", "add_")):
    python_case(_name, goals={"torch": 0.5, "numpy": None}, threads=(1,), size="4 float32",
                note=f"{_expr} on tiny tensors: the per-op cost")(_tiny(_expr))


# ---- transcendental and mixed-stride cases ------------------------------------------------

def _unary_64m(fn):
    def setup(lib, mod, quick):
        n = QUICK_BIG if quick else BIG
        a = mod.ones(n, dtype=mod.float32)
        f = getattr(mod, fn)
        return lambda: f(a)
    return setup


def _bytes_2(quick):
    return 2 * 4 * (QUICK_BIG if quick else BIG)


for _fn in ("exp", "tanh"):
    python_case(f"py_{_fn}_64M", goals={"torch": 1.0, "numpy": 1.0}, bytes_moved=_bytes_2,
                size="64M float32 (256 MiB)", quick_size="4M float32",
                note=f"{_fn}(a) into a new tensor (scalar libm until SIMD math lands)")(_unary_64m(_fn))


def _square(quick):
    return 1024 if quick else 4096


def _transpose_add(lib, mod, quick):
    n = _square(quick)
    m = mod.ones((n, n), dtype=mod.float32)
    m2 = mod.ones((n, n), dtype=mod.float32)
    return lambda: m.T + m2


def _exp_transposed(lib, mod, quick):
    n = _square(quick)
    m = mod.ones((n, n), dtype=mod.float32)
    return lambda: mod.exp(m.T)


python_case("py_transpose_add_4096", goals={"torch": 0.25, "numpy": None},
            size="4096x4096 float32", quick_size="1024x1024",
            note="M.T + M2: one operand walks across rows (needs transpose and .T)")(_transpose_add)
python_case("py_exp_transposed_4096", goals={"torch": 0.25, "numpy": None},
            size="4096x4096 float32", quick_size="1024x1024",
            note="exp(M.T): the output follows the input's memory order")(_exp_transposed)
