"""Elementwise and reduction Python cases (the CPU-kernels issue): ember against torch and
numpy, and against memory bandwidth."""

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
                note=f"{_fn}(a) into a new tensor")(_unary_64m(_fn))


def _gelu_64m(lib, mod, quick):
    n = QUICK_BIG if quick else BIG
    a = mod.ones(n, dtype=mod.float32)
    f = mod.nn.functional.gelu
    return lambda: f(a)


python_case("py_gelu_64M", goals={"torch": 1.0}, bytes_moved=_bytes_2,
            size="64M float32 (256 MiB)", quick_size="4M float32",
            note="nn.functional.gelu(a) into a new tensor")(_gelu_64m)


def _mul_setup(lib, mod, quick):
    n = QUICK_BIG if quick else BIG
    a = mod.ones(n, dtype=mod.float32)
    b = mod.ones(n, dtype=mod.float32)
    return lambda: a * b


def _mul_out_setup(lib, mod, quick):
    n = QUICK_BIG if quick else BIG
    a = mod.ones(n, dtype=mod.float32)
    b = mod.ones(n, dtype=mod.float32)
    out = mod.empty(n, dtype=mod.float32)
    return lambda: mod.mul(a, b, out=out) if lib != "numpy" else mod.multiply(a, b, out=out)


python_case("py_mul_64M", goals={"torch": 0.5, "numpy": 1.0}, bytes_moved=_bytes_3,
            size="64M float32 (256 MiB)", quick_size="4M float32",
            note="a * b into a new tensor")(_mul_setup)
python_case("py_mul_out_64M", goals={"torch": 1.0, "numpy": 1.0, "stream": 1.25},
            bytes_moved=_bytes_3, stream="triad", size="64M float32 (256 MiB)",
            quick_size="4M float32", note="mul(a, b, out=c)")(_mul_out_setup)


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


def _exp_transposed_out(lib, mod, quick):
    n = _square(quick)
    m = mod.ones((n, n), dtype=mod.float32)
    out = mod.empty((n, n), dtype=mod.float32)
    return lambda: mod.exp(m.T, out=out)


python_case("py_transpose_add_4096", goals={"torch": 0.25, "numpy": 1.0},
            size="4096x4096 float32", quick_size="1024x1024",
            note="M.T + M2: one operand walks across rows (needs transpose and .T)")(_transpose_add)
python_case("py_exp_transposed_4096", goals={"torch": 0.25, "numpy": 1.0},
            size="4096x4096 float32", quick_size="1024x1024",
            note="exp(M.T): the output follows the input's memory order")(_exp_transposed)
python_case("py_exp_transposed_out_4096", goals={"torch": 0.25, "numpy": 1.0},
            size="4096x4096 float32", quick_size="1024x1024",
            note="exp(M.T, out=contiguous): the walk crosses the input's rows (tiles)")(
    _exp_transposed_out)


# ---- reductions --------------------------------------------------------------------------

def _sum_64m(lib, mod, quick):
    a = mod.ones(QUICK_BIG if quick else BIG, dtype=mod.float32)
    return lambda: a.sum()


def _bytes_1(quick):
    return 4 * (QUICK_BIG if quick else BIG)


python_case("py_sum_64M", goals={"torch": 1.0, "numpy": 1.0}, bytes_moved=_bytes_1,
            size="64M float32 (256 MiB)", quick_size="4M float32",
            note="a.sum(): pairwise in float32")(_sum_64m)


def _sum_dim(dim):
    def setup(lib, mod, quick):
        n = _square(quick)
        m = mod.ones((n, n), dtype=mod.float32)
        return lambda: m.sum(dim) if lib != "numpy" else m.sum(axis=dim)
    return setup


for _dim in (0, 1):
    python_case(f"py_sum_dim{_dim}_4096", goals={"torch": 1.0, "numpy": 1.0},
                size="4096x4096 float32", quick_size="1024x1024",
                note=f"M.sum({_dim})")(_sum_dim(_dim))


def _argmax_dim1(lib, mod, quick):
    n = _square(quick)
    m = mod.ones((n, n), dtype=mod.float32)
    return lambda: m.argmax(1) if lib != "numpy" else m.argmax(axis=1)


python_case("py_argmax_dim1_4096", goals={"torch": 1.0, "numpy": 1.0},
            size="4096x4096 float32", quick_size="1024x1024", note="M.argmax(1)")(_argmax_dim1)


def _tiny_sum(lib, mod, quick):
    a = mod.ones(4, dtype=mod.float32)
    return lambda: a.sum()


python_case("py_sum_4", goals={"torch": 0.5, "numpy": None}, threads=(1,), size="4 float32",
            note="a.sum() on a tiny tensor: the per-op cost")(_tiny_sum)
