"""The CPU kernels beyond the op table's small cases: inputs large enough for the SIMD
bodies, the tiled mixed-stride walk and several threads; no hidden copies; the same results
on any thread count; the capability in use (Note [CPU capabilities])."""
from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest
import torch

import ember

pytestmark = pytest.mark.skipif(os.environ.get("EMBER_PYTHON_MODULE") == "absent",
                                reason="no Python module in this build")

TRANSCENDENTAL = ("exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt", "rsqrt",
                  "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh",
                  "acosh", "atanh", "sigmoid", "erf", "erfc")
TOL = {"float32": (1.3e-6, 1e-5), "float64": (1e-7, 1e-7), "float16": (1e-3, 1e-5),
       "bfloat16": (1.6e-2, 1e-5)}


def pair(a: np.ndarray, dtype: str):
    """The same values as an Ember and a PyTorch tensor of `dtype`."""
    t = torch.from_numpy(a).to(getattr(torch, dtype))
    return ember.from_numpy(a).to(getattr(ember, dtype)), t


def values(n: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    a = rng.uniform(-4, 4, n)
    specials = np.array([np.inf, -np.inf, np.nan, 0.0, -0.0, 1.0, -1.0, 0.5, 20.0, -20.0, 1e-30])
    a[: len(specials)] = specials
    return a


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
@pytest.mark.parametrize("op", TRANSCENDENTAL)
def test_transcendental_large_matches_torch(op, dtype):
    """1000 contiguous and 1000 strided elements: vector bodies, tails and gathers."""
    a = values(2000)
    e, t = pair(a, dtype)
    rtol, atol = TOL[dtype]
    got = getattr(ember, op)(e)
    want = getattr(torch, op)(t)
    np.testing.assert_allclose(got.float().numpy(), want.float().numpy(), rtol=rtol, atol=atol,
                               equal_nan=True)
    e2, t2 = e.view(1000, 2).t(), t.view(1000, 2).t()  # rows of stride 2
    np.testing.assert_allclose(getattr(ember, op)(e2).float().numpy(),
                               getattr(torch, op)(t2).float().numpy(), rtol=rtol, atol=atol,
                               equal_nan=True)


def ulps(got: np.ndarray, ref: np.ndarray) -> np.ndarray:
    """|got - ref| in units of float32's spacing at ref (ref in float64)."""
    spacing = np.spacing(np.abs(ref).astype(np.float32)).astype(np.float64)
    return np.abs(got.astype(np.float64) - ref) / np.maximum(spacing, np.float64(1e-45))


def dense_floats(lo: float, hi: float, n: int) -> np.ndarray:
    """n evenly spaced float32 values, powers of 2 down to 2^-140 (both signs), and each
    branch point of the float tanh and gelu with its two neighbours."""
    a = np.linspace(lo, hi, n, dtype=np.float32)
    tiny = np.float32(2.0) ** -np.arange(0, 140, 0.25, dtype=np.float32)
    branch = np.float32([0.625, -0.625, 1.0606602, -1.0606602])  # tanh's and gelu's
    edges = np.concatenate([branch, np.nextafter(branch, np.float32(np.inf)),
                            np.nextafter(branch, np.float32(-np.inf))])
    return np.concatenate([a, tiny, -tiny, edges])


def test_float_tanh_within_2_ulp():
    """Float tanh is Ember's own (polynomial below 0.625, exp above; Vectorized.h)."""
    x = dense_floats(-12, 12, 2_000_001)
    ref = np.tanh(x.astype(np.float64))
    got = ember.tanh(ember.from_numpy(x)).numpy()
    assert ulps(got, ref).max() <= 2.0
    specials = np.float32([np.inf, -np.inf, np.nan, 0.0, -0.0, 1e-30, 100.0, -100.0])
    got = ember.tanh(ember.from_numpy(specials)).numpy()
    np.testing.assert_array_equal(got, np.tanh(specials))
    assert np.signbit(got[4]) and not np.signbit(got[3])


def test_float_exp_within_1_ulp():
    """Float exp is Ember's own where the capability has FMA (Vectorized.h): 1 ulp as SLEEF's,
    subnormal results rounded once, overflow to inf, underflow to 0."""
    x = np.concatenate([dense_floats(-110, 90, 2_000_001),
                        np.linspace(-104, -87, 100_001, dtype=np.float32),  # subnormal results
                        np.float32([88.72, 88.7228, 88.723, 89.0, -103.97, -103.98])])
    with np.errstate(over="ignore"):
        ref = np.exp(x.astype(np.float64))
    got = ember.exp(ember.from_numpy(x)).numpy()
    finite = ref < np.finfo(np.float32).max
    assert ulps(got[finite], ref[finite]).max() <= 1.0
    assert np.all(np.isinf(got[ref > 3.4028235677973366e38]))
    specials = np.float32([np.inf, -np.inf, np.nan, 0.0, -0.0, 200.0, -200.0, 1e-30])
    with np.errstate(over="ignore"):
        want = np.exp(specials)
    np.testing.assert_array_equal(ember.exp(ember.from_numpy(specials)).numpy(), want)


@pytest.mark.parametrize("capability", ["default", "avx2", "avx512"])
def test_float_transcendentals_accurate_at_every_capability(capability):
    """The FMA forms (AVX2, AVX-512) and the baseline's meet the same claims: the accuracy
    tests above, run in a child at each capability this CPU has."""
    if capability.upper() not in available_capabilities():
        pytest.skip(f"this CPU has no {capability}")
    package_root = os.path.dirname(os.path.dirname(os.path.abspath(ember.__file__)))
    env = dict(os.environ, EMBER_CPU_CAPABILITY=capability,
               PYTHONPATH=os.pathsep.join([package_root, os.environ.get("PYTHONPATH", "")]))
    out = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", __file__,
                          "-k", "within_1_ulp or within_2_ulp or accurate_where_torch_cancels"],
                         env=env, capture_output=True, text=True)
    assert out.returncode == 0 and "3 passed" in out.stdout, out.stdout[-3000:] + out.stderr[-2000:]


def available_capabilities() -> list[str]:
    """The capabilities this CPU and build can run, best last."""
    order = ["DEFAULT", "AVX2", "AVX512"]
    return order[: order.index(ember.backends.cpu.get_cpu_capability()) + 1]


def test_float_gelu_accurate_where_torch_cancels():
    """gelu via the erfc tail (cpu/activation.cpp): under 10 ulp where PyTorch's 1 + erf
    cancels (x < 0), 2.5 ulp above 1."""
    x = dense_floats(-13, 10, 2_000_001)
    x64 = torch.from_numpy(x.astype(np.float64))
    ref = (0.5 * x64 * torch.special.erfc(-x64 / np.sqrt(2.0))).numpy()
    got = ember.nn.functional.gelu(ember.from_numpy(x)).numpy()
    err = ulps(got, ref)
    assert err[x <= 1].max() <= 10.0
    assert err[x > 1].max() <= 2.5
    # Beyond |x| = 16 the tail has underflowed: x above, -0.0 below, up to float's limits
    # (x²/2 overflowed and gave NaN once).
    huge = np.float32([16.0, 17.0, 1e5, 1e19, 3e19, 1e20, 3e38, -16.0, -17.0, -1e5, -1e19, -3e19, -1e20, -3e38])
    got = ember.nn.functional.gelu(ember.from_numpy(huge)).numpy()
    want = (0.5 * huge.astype(np.float64) * torch.special.erfc(torch.from_numpy(-huge.astype(np.float64) / np.sqrt(2.0))).numpy()).astype(np.float32)
    np.testing.assert_array_equal(got, want)
    assert np.all(np.signbit(got[huge < 0]))
    # +inf gives its limit, +inf, in every dtype (PyTorch's float kernel gives NaN, its 16-bit
    # ones +inf or NaN by CPU); -inf gives NaN (-inf * 0) as PyTorch's; NaN stays NaN.
    for dt in (ember.float32, ember.float64, ember.float16, ember.bfloat16):
        special = ember.nn.functional.gelu(ember.tensor([np.inf, -np.inf, np.nan, 0.0]).to(dt)).float().numpy()
        np.testing.assert_array_equal(special, np.array([np.inf, np.nan, np.nan, 0.0], dtype=np.float32))


def test_mixed_strides_walk_in_tiles_and_match_torch():
    a = np.random.default_rng(1).standard_normal((300, 200)).astype(np.float32)
    b = np.random.default_rng(2).standard_normal((200, 300)).astype(np.float32)
    ea, ta = pair(a, "float32")
    eb, tb = pair(b, "float32")
    np.testing.assert_array_equal((ea.t() + eb).numpy(), (ta.t() + tb).numpy())
    out = ember.empty(200, 300)
    ember.exp(ea.t(), out=out)
    np.testing.assert_allclose(out.numpy(), torch.exp(ta.t()).numpy(), rtol=1.3e-6)
    # int64 through the tiles, and an out= of the transposed layout
    ia, ta64 = pair(a * 100, "int64")
    ib, tb64 = pair(b * 100, "int64")
    np.testing.assert_array_equal((ia.t() * ib).numpy(), (ta64.t() * tb64).numpy())


def allocations(f):
    before = ember.cpu.memory_stats()["allocations"]
    result = f()
    return ember.cpu.memory_stats()["allocations"] - before, result


@pytest.mark.parametrize("n", [8, 300])  # one block, and the parallel and tiled walks
def test_no_hidden_copies(n):
    """Broadcast, transposed and strided inputs are read in place: only the output is
    allocated (b.view(1, n) stands for b[None], a.select(1, 0) for a[::2] until indexing
    lands)."""
    a = ember.randn(n, n)
    b = ember.randn(n)
    for f in (lambda: a.t() + a, lambda: a + b.view(1, n), lambda: ember.exp(a.select(1, 0)),
              lambda: ember.exp(a.t()), lambda: a.t().sum(0), lambda: ember.tanh(a.t())):
        count, r = allocations(f)
        assert count == 1, f"{count} allocations for one result of shape {tuple(r.shape)}"


CASES = {
    "add_int": lambda x, i: i.t() + i,
    "mul_int": lambda x, i: i * 3,
    "sum_int": lambda x, i: i.sum(),
    "sum_int_dim": lambda x, i: i.sum(1),
    "argmax": lambda x, i: x.argmax(1),
    "amax": lambda x, i: x.amax(0),
    "exp": lambda x, i: ember.exp(x.t()),
    "sum": lambda x, i: x.sum(),
    "sum_dim0": lambda x, i: x.sum(0),
    "mean": lambda x, i: x.mean(1),
    "var": lambda x, i: x.var(),
    "gelu": lambda x, i: ember.nn.functional.gelu(x),
}


def test_same_results_on_any_thread_count():
    """Integer results are identical on 1 and 2 threads; so are these float ones (the
    reductions split their work into chunks that do not depend on the thread count)."""
    rng = np.random.default_rng(3)
    x = ember.from_numpy(rng.standard_normal((700, 900)).astype(np.float32))
    i = ember.from_numpy(rng.integers(-1000, 1000, (700, 700)))
    saved = ember.get_num_threads()
    try:
        results = {}
        for threads in (1, 2):
            ember.set_num_threads(threads)
            results[threads] = {k: f(x, i).numpy() for k, f in CASES.items()}
    finally:
        ember.set_num_threads(saved)
    for k in CASES:
        np.testing.assert_array_equal(results[1][k], results[2][k], err_msg=k)


def test_float_sum_is_pairwise():
    got = ember.full((10_000_000,), 0.1).sum().item()
    exact = np.full(10_000_000, np.float32(0.1), dtype=np.float64).sum()
    assert abs(got - exact) <= 1e-6 * exact


def test_cpu_capability_reported_and_overridable():
    cap = ember.backends.cpu.get_cpu_capability()
    assert cap in ("DEFAULT", "AVX2", "AVX512")
    code = "import ember; print(ember.backends.cpu.get_cpu_capability())"
    # The child imports the very package this process did.
    package_root = os.path.dirname(os.path.dirname(os.path.abspath(ember.__file__)))
    env = dict(os.environ, EMBER_CPU_CAPABILITY="default",
               PYTHONPATH=os.pathsep.join([package_root, os.environ.get("PYTHONPATH", "")]))
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "DEFAULT"
    env["EMBER_CPU_CAPABILITY"] = "sse9"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == cap and "not one of default, avx2, avx512" in out.stderr


REDUCTIONS_16 = {
    "sum": lambda t, d: t.sum(d), "nansum": lambda t, d: ember.nansum(t, d),
    "mean": lambda t, d: t.mean(d), "prod": lambda t, d: t.prod(d),
    "amax": lambda t, d: t.amax(d), "amin": lambda t, d: t.amin(d),
    "argmax": lambda t, d: t.argmax(d), "max": lambda t, d: t.max(d).values,
    "aminmax": lambda t, d: ember.aminmax(t, dim=d).max, "std": lambda t, d: t.std(d),
    "norm3": lambda t, d: ember.linalg.vector_norm(t, 3, d),
    "norm_inf": lambda t, d: ember.linalg.vector_norm(t, float("inf"), d),
    "all": lambda t, d: t.all(d), "count_nonzero": lambda t, d: ember.count_nonzero(t, d),
}


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "sliced"])
def test_16bit_reductions_are_the_float_reduction_rounded(dtype, layout):
    """Note [16-bit floats in reductions]: a Half or BFloat16 reduction widens its input in
    blocks and runs the float op, so it equals the float32 reduction of the widened values,
    rounded once: bit for bit, across block (512) and column-block (256) boundaries."""
    rng = np.random.default_rng(5)
    a = rng.standard_normal((300, 1100)).astype(np.float32)
    a[rng.integers(0, 300, 40), rng.integers(0, 1100, 40)] = np.nan
    a[:, 7] = 0
    x = ember.from_numpy(a).to(getattr(ember, dtype))
    x = {"contiguous": x, "transposed": x.t(), "sliced": x[:, ::3]}[layout]
    for name, f in REDUCTIONS_16.items():
        for d in (0, 1):
            got, want = f(x, d), f(x.float(), d)
            if got.dtype == x.dtype:
                want = want.to(x.dtype)
                got, want = got.float(), want.float()
            np.testing.assert_array_equal(got.numpy(), want.numpy(), err_msg=f"{name} dim {d}")


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_16bit_nan_reductions_skip_nan_like_torch(dtype):
    """nansum and nanmean of 16-bit floats skip NaN (they once summed it: the 16-bit op's
    NaN test took only float and double)."""
    rng = np.random.default_rng(6)
    a = rng.uniform(-2, 2, (40, 700)).astype(np.float32)
    a[rng.random(a.shape) < 0.1] = np.nan
    e, t = pair(a, dtype)
    for d in (None, 0, 1):
        for op in ("nansum", "nanmean"):
            kw = {} if d is None else {"dim": d}
            got = getattr(ember, op)(e, **kw).float().numpy()
            want = getattr(torch, op)(t, **kw).float().numpy()
            assert not np.isnan(got).any(), (op, d)
            np.testing.assert_allclose(got, want, rtol=2e-2 if dtype == "bfloat16" else 2e-3,
                                       atol=0.3 if d is None else 2e-2, err_msg=f"{op} dim {d}")
    got = ember.logsumexp(e, 1).float().numpy()
    want = torch.logsumexp(t, 1).float().numpy()
    np.testing.assert_allclose(got, want, rtol=1e-2, equal_nan=True)
