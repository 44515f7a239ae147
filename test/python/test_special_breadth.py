"""ember.special's kernels against torch 2.13 (and scipy / mpmath where torch's own values
are off): the Bessel and Airy functions, erfcx, log_ndtr, the incomplete gammas, zeta,
polygamma, mvlgamma and the orthogonal polynomials, on wide grids with their edge values
(0, negative, large, inf, NaN), in float32 and float64, with their gradients, layouts
(non-contiguous, broadcast, empty, 0-d) and errors. The op table (op_rows_special.py) runs
every overload's schema cases besides."""
import numpy as np
import pytest

import ember
import ember.special as es

torch = pytest.importorskip("torch")
scipy_special = pytest.importorskip("scipy.special")
mpmath = pytest.importorskip("mpmath")
ts = torch.special

INF, NAN = np.inf, np.nan
GRID = np.concatenate([np.linspace(-30, 30, 481), np.geomspace(1e-8, 700, 120),
                       -np.geomspace(1e-8, 700, 120),
                       [0.0, -0.0, INF, -INF, NAN, 1e-300, 705, 709, 710, 720, 1e4, -1e4, 26, 27]])


def run_pair(name, *arrays, dtype=np.float64):
    """(ember result, torch result) as float64 arrays of ember.special.name / torch.special.name."""
    fe = getattr(es, name)
    ft = getattr(ts, name)
    e = fe(*[ember.from_numpy(np.asarray(a, dtype)) if isinstance(a, np.ndarray) else a for a in arrays])
    t = ft(*[torch.from_numpy(np.asarray(a, dtype)) if isinstance(a, np.ndarray) else a for a in arrays])
    assert e.dtype == getattr(ember, str(t.dtype).removeprefix("torch."))
    return e.numpy().astype(np.float64), t.numpy().astype(np.float64)


def assert_close(actual, expected, rtol, atol=0.0):
    np.testing.assert_allclose(actual, expected, rtol=rtol, atol=atol, equal_nan=True)


# ---- unary: values against torch ----------------------------------------------------------

# (name, float64 rtol, float32 rtol, atol): torch's float32 kernels compute in float (Ember
# in double, rounded once), so their difference is float32's own error.
ACCURATE = [("i0", 1e-13, 4e-6), ("i0e", 1e-13, 4e-6), ("i1", 1e-13, 4e-6), ("i1e", 1e-13, 4e-6),
            ("modified_bessel_i0", 1e-13, 4e-6), ("modified_bessel_i1", 1e-13, 4e-6),
            ("modified_bessel_k0", 1e-13, 4e-6), ("modified_bessel_k1", 1e-13, 4e-6),
            ("scaled_modified_bessel_k0", 1e-13, 4e-6), ("scaled_modified_bessel_k1", 1e-13, 4e-6),
            ("spherical_bessel_j0", 1e-13, 4e-6), ("erfcx", 1e-12, 1e-5), ("log_ndtr", 1e-13, 2e-5)]


@pytest.mark.parametrize("name,rtol64,rtol32", ACCURATE)
def test_unary_values_match_torch(name, rtol64, rtol32):
    e, t = run_pair(name, GRID)
    assert_close(e, t, rtol64, 1e-300)
    # float32 away from float32's overflow (where both give inf, checked below).
    x32 = GRID[np.abs(GRID) < 80]
    e, t = run_pair(name, x32, dtype=np.float32)
    assert_close(e, t, rtol32, 1e-37)


@pytest.mark.parametrize("name", ["bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "airy_ai"])
def test_oscillating_values(name):
    # torch's J, Y and Ai carry absolute errors up to ~1e-6 near their zeros (its J0(5.5) is
    # -0.0068440327, the true value -0.0068438694): compare with torch absolutely, and with
    # scipy (cephes, Amos) relatively.
    x = GRID[np.abs(GRID) <= (100 if name == "airy_ai" else 1e4)]
    e, t = run_pair(name, x)
    assert_close(e, t, 1e-6, 5e-6)
    ref = {"bessel_j0": scipy_special.j0, "bessel_j1": scipy_special.j1, "bessel_y0": scipy_special.y0,
           "bessel_y1": scipy_special.y1, "airy_ai": lambda v: scipy_special.airy(v)[0]}[name]
    finite = np.isfinite(x) & ((x > 0) | (name in ("bessel_j0", "bessel_j1", "airy_ai")))
    with np.errstate(all="ignore"):
        expected = ref(x[finite])
    assert_close(e[finite], expected, 1e-9, 1e-15)
    e32, t32 = run_pair(name, x[np.abs(x) < 50], dtype=np.float32)
    assert_close(e32, t32, 1e-4, 1e-5)


@pytest.mark.parametrize("name", ["i0", "i0e", "i1", "i1e", "modified_bessel_i0", "modified_bessel_i1",
                                  "modified_bessel_k0", "modified_bessel_k1", "scaled_modified_bessel_k0",
                                  "scaled_modified_bessel_k1", "bessel_j0", "bessel_j1", "bessel_y0",
                                  "bessel_y1", "spherical_bessel_j0", "airy_ai", "erfcx", "log_ndtr"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_unary_edge_values_are_torchs(name, dtype):
    """inf, NaN, 0, -0 and overflow give torch's values (NaN at +-inf for J, Y, Ai, I)."""
    x = np.array([INF, -INF, NAN, 0.0, -0.0, 88.0, 89.0, -89.0, 709.0, 710.0, -710.0, 1e-40, -1e-40])
    e, t = run_pair(name, x, dtype=dtype)
    same_class = (np.isnan(e) == np.isnan(t)) & (np.isinf(e) == np.isinf(t))
    assert same_class.all(), (x[~same_class], e[~same_class], t[~same_class])
    finite = np.isfinite(t)
    # torch's float32 J, Y and Ai are off by ~1e-7 absolutely (they compute in float).
    atol = 1e-30 if dtype == np.float64 else (2e-4 if name == "airy_ai" else 2e-7)
    assert_close(e[finite], t[finite], 1e-6, atol)
    assert (np.sign(e[np.isinf(e)]) == np.sign(t[np.isinf(t)])).all()


def test_i0_is_a_function_method_and_in_place():
    x = np.linspace(-5, 5, 11)
    e, t = ember.from_numpy(x.copy()), torch.from_numpy(x.copy())
    assert_close(ember.i0(e).numpy(), torch.i0(t).numpy(), 1e-13)
    assert_close(e.i0().numpy(), t.i0().numpy(), 1e-13)
    assert_close(es.i0(e).numpy(), ts.i0(t).numpy(), 1e-13)
    e.i0_()
    t.i0_()
    assert_close(e.numpy(), t.numpy(), 1e-13)
    out = ember.empty(11, dtype=ember.float64)
    es.i1(ember.from_numpy(x), out=out)
    assert_close(out.numpy(), ts.i1(torch.from_numpy(x)).numpy(), 1e-13)


@pytest.mark.parametrize("name", ["i0", "i0e", "i1", "i1e", "bessel_j0", "erfcx", "log_ndtr", "airy_ai"])
def test_unary_layouts(name):
    rng = np.random.default_rng(3)
    base = rng.uniform(-4, 4, (4, 6))
    e_base, t_base = ember.from_numpy(base), torch.from_numpy(base)
    for e, t in [(e_base.t(), t_base.t()), (e_base[:, ::2], t_base[:, ::2]), (e_base[:0], t_base[:0]),
                 (e_base[1, 2], t_base[1, 2]), (e_base[:1].expand(3, 6), t_base[:1].expand(3, 6))]:
        r, q = getattr(es, name)(e), getattr(ts, name)(t)
        assert tuple(r.shape) == tuple(q.shape)
        assert_close(r.numpy(), q.numpy(), 1e-6, 5e-6)


@pytest.mark.parametrize("name", ["i0", "i1e", "bessel_j0", "modified_bessel_k1", "erfcx", "log_ndtr"])
def test_unary_integer_and_bool_promote(name):
    for values, dtype in (([0, 1, 2, 5], np.int64), ([True, False], np.bool_), ([3, 7], np.int32)):
        a = np.array(values, dtype)
        e, t = getattr(es, name)(ember.from_numpy(a)), getattr(ts, name)(torch.from_numpy(a))
        assert e.dtype == ember.float32 and t.dtype == torch.float32
        assert_close(e.numpy(), t.numpy(), 2e-6, 1e-6)


@pytest.mark.parametrize("name", ["i0", "i0e", "i1", "i1e"])
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_i0_family_takes_16_bit_floats(name, dtype):
    x = [0.0, 0.5, -1.25, 3.0, 10.0]
    e = getattr(es, name)(ember.tensor(x, dtype=getattr(ember, dtype)))
    t = getattr(ts, name)(torch.tensor(x, dtype=getattr(torch, dtype)))
    assert_close(e.float().numpy(), t.float().numpy(), 1e-2, 1e-3)


@pytest.mark.parametrize("name", ["bessel_j0", "bessel_y1", "modified_bessel_k0", "modified_bessel_i1",
                                  "scaled_modified_bessel_k1", "spherical_bessel_j0", "airy_ai",
                                  "erfcx", "log_ndtr"])
def test_unary_refuses_what_torch_refuses(name):
    for dtype in ("float16", "bfloat16", "complex64"):
        with pytest.raises((NotImplementedError, RuntimeError, TypeError)):
            getattr(ts, name)(torch.ones(2, dtype=getattr(torch, dtype)))
        with pytest.raises((NotImplementedError, RuntimeError, TypeError)):
            getattr(es, name)(ember.ones(2, dtype=getattr(ember, dtype)))
    with pytest.raises(NotImplementedError):
        es.i0(ember.ones(2, dtype=ember.complex64))
    with pytest.raises(TypeError):
        getattr(es, name)([1.0, 2.0])


# ---- unary: gradients -----------------------------------------------------------------------

@pytest.mark.parametrize("name", ["i0", "i0e", "i1", "i1e", "erfcx", "log_ndtr"])
def test_unary_gradients_match_torch(name):
    x = np.array([-7.5, -2.0, -0.3, 0.0, 0.4, 1.0, 3.5, 12.0, 30.0])
    e, t = ember.from_numpy(x).requires_grad_(True), torch.from_numpy(x).requires_grad_(True)
    (getattr(es, name)(e) * ember.arange(9, dtype=ember.float64)).sum().backward()
    (getattr(ts, name)(t) * torch.arange(9, dtype=torch.float64)).sum().backward()
    assert_close(e.grad.numpy(), t.grad.numpy(), 1e-10, 1e-14)
    assert ember.autograd.gradcheck(getattr(es, name), (ember.from_numpy(x[x != 0]).requires_grad_(True),))


@pytest.mark.parametrize("name", ["modified_bessel_i0", "bessel_j0", "bessel_y1", "airy_ai",
                                  "spherical_bessel_j0", "scaled_modified_bessel_k0"])
def test_unary_non_differentiable_as_torch(name):
    e = getattr(es, name)(ember.ones(3, dtype=ember.float64, requires_grad=True))
    t = getattr(ts, name)(torch.ones(3, dtype=torch.float64, requires_grad=True))
    assert e.requires_grad == t.requires_grad is False


# ---- incomplete gammas -------------------------------------------------------------------------

A_GRID = np.array([1e-300, 1e-5, 0.1, 0.5, 1.0, 1.5, 2.0, 3.0, 7.5, 10.0, 19.9, 20.0, 25.0, 50.0,
                   100.0, 250.0, 1000.0, 1e4])
X_GRID = np.array([1e-300, 1e-5, 0.1, 0.5, 1.0, 1.5, 2.0, 3.0, 7.5, 10.0, 20.0, 25.0, 50.0, 99.0,
                   100.0, 101.0, 250.0, 1000.0, 1e4, 1e5])


@pytest.mark.parametrize("name,ref", [("gammainc", scipy_special.gammainc),
                                      ("gammaincc", scipy_special.gammaincc)])
def test_incomplete_gamma_values(name, ref):
    a, x = np.meshgrid(A_GRID, X_GRID, indexing="ij")
    e, t = run_pair(name, a, x)
    expected = ref(a, x)
    # Against scipy (and mpmath below) tightly; torch's own values are off by up to ~1e-9
    # near x = a for a >= 20 and lose Q entirely for tiny a (its Q(1e-300, 1) is 8e-301; the
    # true value 2.19e-301).
    assert_close(e, expected, 5e-12, 1e-300)
    big = (e > 1e-200) & (a > 1e-3)
    assert_close(e[big], t[big], 1e-7, 1e-15)
    mid = (a <= 250) & (a > 1e-3)  # torch's float32 Q loses tiny a too
    e32, t32 = run_pair(name, a[mid], x[mid], dtype=np.float32)
    assert_close(e32, t32, 1e-4, 1e-30)


def test_incomplete_gamma_against_mpmath():
    mpmath.mp.dps = 30
    for a, x in [(25.0, 20.0), (1e-300, 1.0), (0.5, 1.0), (1e4, 9990.0), (3.0, 1e-5), (0.1, 30.0)]:
        p = float(mpmath.gammainc(a, 0, x, regularized=True))
        q = float(mpmath.gammainc(a, x, mpmath.inf, regularized=True))
        e_p = ember.igamma(ember.tensor(a, dtype=ember.float64), ember.tensor(x, dtype=ember.float64)).item()
        e_q = ember.igammac(ember.tensor(a, dtype=ember.float64), ember.tensor(x, dtype=ember.float64)).item()
        assert abs(e_p - p) <= 1e-12 * abs(p), (a, x, e_p, p)
        assert abs(e_q - q) <= 1e-12 * abs(q), (a, x, e_q, q)


def test_incomplete_gamma_edges_are_torchs():
    pairs = [(NAN, 0), (NAN, INF), (INF, NAN), (0, NAN), (-1, 0), (0, 0), (-1, INF), (NAN, -1),
             (INF, INF), (0, INF), (INF, 0), (-1, NAN), (2, -1), (-1, 2), (0, 2), (INF, 3), (2, INF),
             (NAN, NAN), (2, NAN), (NAN, 2)]
    a = np.array([p[0] for p in pairs], dtype=np.float64)
    x = np.array([p[1] for p in pairs], dtype=np.float64)
    for name in ("gammainc", "gammaincc"):
        e, t = run_pair(name, a, x)
        np.testing.assert_array_equal(e, t)


def test_incomplete_gamma_forms_broadcast_and_promotion():
    a = np.array([[0.5], [2.0], [7.0]])
    x = np.array([0.25, 1.0, 3.0, 12.0])
    ea, ex, ta, tx = ember.from_numpy(a), ember.from_numpy(x), torch.from_numpy(a), torch.from_numpy(x)
    assert_close(ember.igamma(ea, ex).numpy(), torch.igamma(ta, tx).numpy(), 1e-12)
    assert_close(ea.igammac(ex).numpy(), ta.igammac(tx).numpy(), 1e-12)
    assert_close(ember.igamma(ea.t(), ex[:, None]).numpy(), torch.igamma(ta.t(), tx[:, None]).numpy(), 1e-12)
    e, t = ember.from_numpy(np.full(4, 2.0)), torch.from_numpy(np.full(4, 2.0))
    e.igamma_(ex)
    t.igamma_(tx)
    assert_close(e.numpy(), t.numpy(), 1e-12)
    e.igammac_(ex)
    t.igammac_(tx)
    assert_close(e.numpy(), t.numpy(), 1e-12)
    # A float tensor with an integer one promotes to the float; empty and 0-d keep their shapes.
    r = ember.igamma(ember.tensor([1.5, 2.0]), ember.tensor([1, 2]))
    assert r.dtype == ember.float32
    assert_close(r.numpy(), torch.igamma(torch.tensor([1.5, 2.0]), torch.tensor([1, 2])).numpy(), 1e-6)
    assert tuple(ember.igamma(ea[:0], ex).shape) == (0, 4)
    assert ember.igamma(ember.tensor(2.0), ember.tensor(1.0)).dim() == 0
    h = ember.igamma(ember.tensor([2.0], dtype=ember.float16), ember.tensor([1.0], dtype=ember.float16))
    assert h.dtype == ember.float16 and abs(h.item() - 0.26424) < 1e-3


def test_incomplete_gamma_refusals():
    for lib in (ember, torch):
        with pytest.raises(NotImplementedError):
            lib.igamma(lib.tensor([1, 2]), lib.tensor([1, 2]))
        with pytest.raises((NotImplementedError, RuntimeError)):
            lib.igammac(lib.tensor([1 + 1j]), lib.tensor([1 + 1j]))
        with pytest.raises(RuntimeError):
            lib.igamma(lib.ones(3), lib.ones(2))
        with pytest.raises(RuntimeError):
            lib.ones(3, dtype=lib.int64).igamma_(lib.ones(3))


def test_incomplete_gamma_gradients():
    a = np.array([0.5, 1.5, 3.0, 10.0])
    x = np.array([0.25, 2.0, 3.5, 8.0])
    for name in ("igamma", "igammac"):
        ex = ember.from_numpy(x).requires_grad_(True)
        tx = torch.from_numpy(x).requires_grad_(True)
        getattr(ember, name)(ember.from_numpy(a), ex).sum().backward()
        getattr(torch, name)(torch.from_numpy(a), tx).sum().backward()
        assert_close(ex.grad.numpy(), tx.grad.numpy(), 1e-10)
        ea = ember.from_numpy(a).requires_grad_(True)
        with pytest.raises(NotImplementedError, match="derivative for '" + name):
            getattr(ember, name)(ea, ember.from_numpy(x)).sum().backward()


# ---- zeta and polygamma -------------------------------------------------------------------------

def test_zeta_values():
    s = np.array([1.0001, 1.5, 2.0, 3.0, 4.5, 7.0, 10.0, 20.0, 50.0, 100.0, 250.0])
    q = np.array([1e-3, 0.1, 0.5, 1.0, 1.5, 2.0, 7.5, 20.0, 101.0, 1e4, 1e8])
    S, Q = np.meshgrid(s, q, indexing="ij")
    e, t = run_pair("zeta", S, Q)
    with np.errstate(all="ignore"):
        expected = scipy_special.zeta(S, Q)
    assert_close(e, expected, 1e-13, 1e-300)
    assert_close(e, t, 1e-6, 1e-300)  # torch's is cephes' (1e-8 off at s = 50, q = 20)
    # Negative non-integer q for integer s (the sum converges): against mpmath.
    mpmath.mp.dps = 30
    for sv, qv in [(2.0, -1.5), (3.0, -2.5), (4.0, -0.25), (2.0, -7.75)]:
        got = es.zeta(ember.tensor(sv, dtype=ember.float64), ember.tensor(qv, dtype=ember.float64)).item()
        assert abs(got - float(mpmath.zeta(sv, qv))) <= 1e-12 * abs(got)


def test_zeta_edges_numbers_and_broadcast():
    pairs = [(1, NAN), (NAN, 1), (INF, 1), (INF, 0.5), (INF, 2), (INF, -1.5), (2, -INF), (2, INF),
             (1, -1), (1, INF), (0.5, -1.5), (2, -1.5), (INF, NAN), (NAN, 0), (-INF, 1), (2, 0),
             (2, -0.0), (1.5, -0.5), (0.5, 2), (-2, 1)]
    s = np.array([p[0] for p in pairs], dtype=np.float64)
    q = np.array([p[1] for p in pairs], dtype=np.float64)
    e, t = run_pair("zeta", s, q)
    np.testing.assert_allclose(e, t, rtol=1e-12, equal_nan=True)
    x = np.array([[1.5], [2.0], [3.0]])
    y = np.array([0.5, 1.0, 4.0])
    assert_close(*run_pair("zeta", x, y), 1e-12)
    assert_close(*run_pair("zeta", x, 2.5), 1e-12)
    assert_close(*run_pair("zeta", 2.5, y), 1e-12)
    # Integers and bool promote to float32, as torch's.
    e = es.zeta(ember.tensor([2, 3]), ember.tensor([1, 2]))
    t = ts.zeta(torch.tensor([2, 3]), torch.tensor([1, 2]))
    assert e.dtype == ember.float32 and t.dtype == torch.float32
    assert_close(e.numpy(), t.numpy(), 1e-6)
    assert_close(*run_pair("zeta", np.zeros((0, 3)), np.ones(3)), 0)
    for lib, mod in ((ember, es), (torch, ts)):
        with pytest.raises(NotImplementedError):
            mod.zeta(lib.ones(2, dtype=lib.float16), lib.ones(2, dtype=lib.float16))
        with pytest.raises((NotImplementedError, RuntimeError)):
            mod.zeta(lib.ones(2, dtype=lib.complex64), 2.0)
        with pytest.raises(TypeError):
            mod.zeta(2.0, 3.0)


def test_zeta_gradient():
    x = np.array([2.0, 3.5, 5.0])
    q = np.array([0.5, 1.25, 4.0])
    eq, tq = ember.from_numpy(q).requires_grad_(True), torch.from_numpy(q).requires_grad_(True)
    es.zeta(ember.from_numpy(x), eq).sum().backward()
    ts.zeta(torch.from_numpy(x), tq).sum().backward()
    assert_close(eq.grad.numpy(), tq.grad.numpy(), 1e-12)
    eq.grad = None
    es.zeta(3.0, eq).sum().backward()
    tq.grad = None
    ts.zeta(3.0, tq).sum().backward()
    assert_close(eq.grad.numpy(), tq.grad.numpy(), 1e-12)
    with pytest.raises(NotImplementedError, match="derivative for 'zeta'"):
        es.zeta(ember.from_numpy(x).requires_grad_(True), ember.from_numpy(q)).sum().backward()


POLYGAMMA_X = np.concatenate([np.linspace(-9.75, 30, 160), [1e-8, 1e-3, 0.5, 1.0, 100.0, 1e4, 1e6]])


@pytest.mark.parametrize("n", [0, 1, 2, 3, 4, 7])
def test_polygamma_values(n):
    x = POLYGAMMA_X[POLYGAMMA_X != np.round(POLYGAMMA_X)] if n else POLYGAMMA_X
    x = np.concatenate([x, [1.0, 2.0, 100.0]])
    e = ember.polygamma(n, ember.from_numpy(x)).numpy()
    t = torch.polygamma(n, torch.from_numpy(x)).numpy()
    assert_close(e, scipy_special.polygamma(n, x), 1e-12 if n else 1e-13, 1e-300)
    # torch's trigamma is its own series (5e-10 off at x = 1), the others are close.
    assert_close(e, t, 1e-8 if n == 1 else 1e-11, 1e-300)
    e32 = ember.polygamma(n, ember.from_numpy(x.astype(np.float32))).numpy()
    t32 = torch.polygamma(n, torch.from_numpy(x.astype(np.float32))).numpy()
    assert_close(e32, t32, 2e-4 if n == 0 else 1e-5, 1e-30)


@pytest.mark.parametrize("n", [0, 1, 2, 3])
def test_polygamma_edges_are_torchs(n):
    x = np.array([0.0, -0.0, -1.0, -3.0, INF, -INF, NAN, -1.5, 1e-300])
    e = ember.polygamma(n, ember.from_numpy(x)).numpy()
    t = torch.polygamma(n, torch.from_numpy(x)).numpy()
    np.testing.assert_allclose(e, t, rtol=1e-6, equal_nan=True)


def test_polygamma_forms_gradients_and_errors():
    x = np.array([[0.5, 1.5, 4.0], [-0.5, 2.5, 10.0]])
    e, t = ember.from_numpy(x), torch.from_numpy(x)
    assert_close(e.polygamma(2).numpy(), t.polygamma(2).numpy(), 1e-12)
    assert_close(es.polygamma(3, e.t()).numpy(), ts.polygamma(3, t.t()).numpy(), 1e-12)
    assert_close(ember.polygamma(1, e[:, ::2]).numpy(), torch.polygamma(1, t[:, ::2]).numpy(), 1e-8)
    ec, tc = e.clone(), t.clone()
    ec.polygamma_(2)
    tc.polygamma_(2)
    assert_close(ec.numpy(), tc.numpy(), 1e-12)
    r = ember.polygamma(1, ember.tensor([1, 2, 3]))
    assert r.dtype == ember.float32
    assert ember.polygamma(2, ember.tensor(1.5)).dim() == 0
    assert tuple(ember.polygamma(2, ember.ones(0, 2)).shape) == (0, 2)
    for n in (0, 1, 2):
        eg = ember.from_numpy(x).requires_grad_(True)
        tg = torch.from_numpy(x).requires_grad_(True)
        ember.polygamma(n, eg).sum().backward()
        torch.polygamma(n, tg).sum().backward()
        assert_close(eg.grad.numpy(), tg.grad.numpy(), 1e-8)
    eg = ember.from_numpy(x).requires_grad_(True)
    tg = torch.from_numpy(x).requires_grad_(True)
    ember.digamma(eg).sum().backward()
    torch.digamma(tg).sum().backward()
    assert_close(eg.grad.numpy(), tg.grad.numpy(), 1e-8)
    for lib in (ember, torch):
        with pytest.raises(RuntimeError, match="negative"):
            lib.polygamma(-1, lib.ones(2))
        with pytest.raises((NotImplementedError, RuntimeError)):
            lib.polygamma(1, lib.ones(2, dtype=lib.complex64))
        with pytest.raises(RuntimeError):
            lib.ones(2, dtype=lib.int64).polygamma_(1)


# ---- mvlgamma --------------------------------------------------------------------------------

def test_mvlgamma():
    x = np.array([[2.5, 3.0, 7.25], [10.0, 2.25, 40.0]])
    for p in (1, 2, 3, 5):
        e, t = ember.from_numpy(x.copy()), torch.from_numpy(x.copy())
        assert_close(ember.mvlgamma(e, p).numpy(), torch.mvlgamma(t, p).numpy(), 1e-13)
        assert_close(e.t().mvlgamma(p).numpy(), t.t().mvlgamma(p).numpy(), 1e-13)
        assert_close(es.multigammaln(e, p).numpy(), ts.multigammaln(t, p).numpy(), 1e-13)
        e.mvlgamma_(p)
        t.mvlgamma_(p)
        assert_close(e.numpy(), t.numpy(), 1e-13)
    r = ember.mvlgamma(ember.tensor([3, 4]), 2)
    assert r.dtype == ember.float32
    assert_close(r.numpy(), torch.mvlgamma(torch.tensor([3, 4]), 2).numpy(), 1e-6)
    assert tuple(ember.mvlgamma(ember.ones(0), 3).shape) == (0,)
    # Outside the domain (a <= (p - 1) / 2) and NaN: torch 2.13 gives the sum's value.
    bad = np.array([0.75, 0.3, np.nan])
    assert_close(ember.mvlgamma(ember.from_numpy(bad), 3).numpy(), torch.mvlgamma(torch.from_numpy(bad), 3).numpy(), 1e-13)
    eg = ember.from_numpy(x).requires_grad_(True)
    tg = torch.from_numpy(x).requires_grad_(True)
    ember.mvlgamma(eg, 3).sum().backward()
    torch.mvlgamma(tg, 3).sum().backward()
    assert_close(eg.grad.numpy(), tg.grad.numpy(), 1e-12)
    for lib in (ember, torch):
        with pytest.raises(RuntimeError):
            lib.mvlgamma(lib.ones(2), 0)
        with pytest.raises(RuntimeError):
            lib.tensor([3, 4]).mvlgamma_(2)


# ---- orthogonal polynomials --------------------------------------------------------------------

POLYS = ["chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v",
         "chebyshev_polynomial_w", "shifted_chebyshev_polynomial_t", "shifted_chebyshev_polynomial_u",
         "shifted_chebyshev_polynomial_v", "shifted_chebyshev_polynomial_w", "hermite_polynomial_h",
         "hermite_polynomial_he", "laguerre_polynomial_l", "legendre_polynomial_p"]
PX = np.concatenate([np.linspace(-3, 3, 61), [-1, 1, 0, 0.5, -0.5, 0.999, -0.999, 10, -10, 100,
                                              INF, -INF, NAN, 1e-3]])
PN = np.array([-3, -1, 0, 1, 2, 3, 5, 6, 7, 8, 10, 15, 20, 31, 50, 2.5, 3.7, -0.5])


def _reference(name, x, n):
    """scipy's eval_* of the integer degree (the shifted kinds at 2x - 1, V and W from U)."""
    shifted = name.startswith("shifted_")
    z = 2 * x - 1 if shifted else x
    kind = name.removeprefix("shifted_")
    if kind == "chebyshev_polynomial_t":
        return scipy_special.eval_chebyt(n, z)
    if kind == "chebyshev_polynomial_u":
        return scipy_special.eval_chebyu(n, z)
    if kind == "chebyshev_polynomial_v":  # V_n = U_n - U_(n-1)
        return scipy_special.eval_chebyu(n, z) - (scipy_special.eval_chebyu(n - 1, z) if n else 0)
    if kind == "chebyshev_polynomial_w":  # W_n = U_n + U_(n-1)
        return scipy_special.eval_chebyu(n, z) + (scipy_special.eval_chebyu(n - 1, z) if n else 0)
    return {"hermite_polynomial_h": scipy_special.eval_hermite, "hermite_polynomial_he": scipy_special.eval_hermitenorm,
            "laguerre_polynomial_l": scipy_special.eval_laguerre, "legendre_polynomial_p": scipy_special.eval_legendre}[kind](n, z)


@pytest.mark.parametrize("name", POLYS)
def test_polynomial_values(name):
    x, n = np.meshgrid(PX, PN, indexing="ij")
    e, t = run_pair(name, x, n)
    np.testing.assert_allclose(e, t, rtol=1e-12, atol=1e-12, equal_nan=True)
    # float32: torch computes in float as Ember does; the values agree to float32's accuracy
    # relative to the polynomial's scale.
    e32, t32 = run_pair(name, x, n, dtype=np.float32)
    both = np.isfinite(e32) & np.isfinite(t32)
    scale = np.maximum(np.abs(t32), 1.0)
    assert (np.abs(e32 - t32)[both] <= 1e-4 * scale[both]).all()
    # Against scipy, on the moderate part of the grid.
    for k in (0, 1, 2, 3, 7, 10, 20):
        xs = PX[np.isfinite(PX) & (np.abs(PX) <= 3)]
        got, _ = run_pair(name, xs, np.full(xs.shape, float(k)))
        expected = _reference(name, xs, k)
        assert_close(got, expected, 1e-10, 1e-10 * np.max(np.abs(expected)))


@pytest.mark.parametrize("name", POLYS)
def test_polynomial_degree_without_an_integer_value_is_zero(name):
    # NaN, infinite and beyond-int64 degrees give 0, as torch's cast to int64 does on x86
    # (these once looped forever: an infinite degree ran the recurrence without end).
    x, n = np.meshgrid([0.5, -0.5, 0.0, 2.0, NAN], [INF, -INF, NAN, 1e19, -1e19], indexing="ij")
    for dtype in (np.float64, np.float32):
        e, t = run_pair(name, x, n, dtype=dtype)
        np.testing.assert_array_equal(e, t)
        assert (e == 0).all()


@pytest.mark.parametrize("name", POLYS)
def test_polynomial_numbers_broadcast_and_dtypes(name):
    x = np.array([[0.25], [-0.5], [1.5]])
    n = np.array([0, 1, 4, 9])
    e, t = run_pair(name, x, n.astype(np.float64))
    assert e.shape == (3, 4)
    assert_close(e, t, 1e-12, 1e-12)
    assert_close(*run_pair(name, x, 3), 1e-12, 1e-12)
    assert_close(*run_pair(name, 0.5, n.astype(np.float64)), 1e-12, 1e-12)
    fe, ft = getattr(es, name), getattr(ts, name)
    r, q = fe(ember.tensor([1, 2, 3]), ember.tensor([2, 3, 4])), ft(torch.tensor([1, 2, 3]), torch.tensor([2, 3, 4]))
    assert r.dtype == ember.float32 and q.dtype == torch.float32
    assert_close(r.numpy(), q.numpy(), 1e-6)
    r, q = fe(0.5, ember.tensor([2, 3])), ft(0.5, torch.tensor([2, 3]))
    assert r.dtype == ember.float32 and q.dtype == torch.float32
    assert_close(r.numpy(), q.numpy(), 1e-6)
    xt = ember.from_numpy(np.linspace(-1, 1, 12).reshape(3, 4))
    tt = torch.from_numpy(np.linspace(-1, 1, 12).reshape(3, 4))
    assert_close(fe(xt.t(), 5).numpy(), ft(tt.t(), 5).numpy(), 1e-12, 1e-12)
    assert tuple(fe(xt[:0], 3).shape) == (0, 4)
    assert fe(ember.tensor(0.3, dtype=ember.float64), 4).dim() == 0
    out = ember.empty(3, 4, dtype=ember.float64)
    fe(xt, ember.full((4,), 3.0, dtype=ember.float64), out=out)
    assert_close(out.numpy(), ft(tt, torch.full((4,), 3.0, dtype=torch.float64)).numpy(), 1e-12, 1e-12)
    assert not fe(ember.ones(2, dtype=ember.float64, requires_grad=True), 2).requires_grad
    for lib, f in ((ember, fe), (torch, ft)):
        with pytest.raises(NotImplementedError):
            f(lib.ones(2, dtype=lib.float16), 2)
        with pytest.raises((NotImplementedError, RuntimeError)):
            f(lib.ones(2, dtype=lib.complex64), 2)
        with pytest.raises(RuntimeError):
            f(lib.ones(3), lib.ones(2))
        with pytest.raises(TypeError):
            f(0.5, 2)
