"""ember.nn.functional's bilinear, normalize, logsigmoid, softsign, tanhshrink, hardshrink, softshrink,
threshold, glu and prelu, and their modules, against torch: values, gradients, edge shapes, bad inputs."""
import numpy as np
import pytest

import ember
import ember.nn as enn
import ember.nn.functional as F

torch = pytest.importorskip("torch")
tnn = torch.nn
TF = torch.nn.functional

DTYPES = {"float32": (np.float32, torch.float32, ember.float32, 1e-5),
          "float64": (np.float64, torch.float64, ember.float64, 1e-10)}
LAYOUTS = ["contiguous", "noncontiguous", "empty", "scalar"]


def to_np(t):
    return t.detach().numpy() if isinstance(t, torch.Tensor) else np.asarray(t.detach())


def _leaf_pair(a, grad):
    a = np.asarray(a)
    t = torch.tensor(a, requires_grad=grad)
    e = ember.from_numpy(a.copy())
    return t, (e.requires_grad_() if grad else e)


def compare(tfn, efn, arrays, grads=None, tol=1e-5, noncontiguous=False, seed=0):
    """Calls tfn and efn on the same arrays (transposed views of them when noncontiguous) and
    compares the outputs, then the gradients of every array marked in grads."""
    grads = [True] * len(arrays) if grads is None else grads
    leaves = [_leaf_pair(a, g) for a, g in zip(arrays, grads)]
    tin = [t for t, _ in leaves]
    ein = [e for _, e in leaves]
    if noncontiguous:
        tin = [t.transpose(0, -1) if t.dim() > 1 else t for t in tin]
        ein = [e.transpose(0, -1) if e.dim() > 1 else e for e in ein]
        assert not ein[0].is_contiguous()
    tout = tfn(*tin)
    eout = efn(*ein)
    assert tuple(eout.shape) == tuple(tout.shape)
    assert str(eout.dtype).rsplit(".", 1)[-1] == str(tout.dtype).rsplit(".", 1)[-1]
    np.testing.assert_allclose(to_np(eout), to_np(tout), rtol=tol, atol=tol)
    if not any(grads):
        return tout, eout
    g = np.random.default_rng(seed + 1).standard_normal(tuple(tout.shape)).astype(to_np(tout).dtype)
    (tout * torch.tensor(g)).sum().backward()
    (eout * ember.from_numpy(g.copy())).sum().backward()
    for i, ((t, e), grad) in enumerate(zip(leaves, grads)):
        if grad:
            assert e.grad is not None, f"no gradient for argument {i}"
            np.testing.assert_allclose(to_np(e.grad), to_np(t.grad), rtol=tol, atol=tol,
                                       err_msg=f"gradient of argument {i}")
    return tout, eout


def assert_same_error(tfn, efn, *arrays):
    """tfn raises on torch tensors of arrays; efn must raise the same exception class on ember ones."""
    with pytest.raises(Exception) as texc:
        tfn(*[torch.tensor(a) if isinstance(a, np.ndarray) else a for a in arrays])
    with pytest.raises(texc.type):
        efn(*[ember.from_numpy(a.copy()) if isinstance(a, np.ndarray) else a for a in arrays])


def _array(layout, dtype, seed=0, shape=(3, 4)):
    rng = np.random.default_rng(seed)
    shape = {"empty": (0, 4), "scalar": ()}.get(layout, shape)
    return np.asarray(rng.standard_normal(shape) * 2, dtype=DTYPES[dtype][0])


# ---- elementwise activations ------------------------------------------------------------------

ELEMENTWISE = [
    ("logsigmoid", {}), ("softsign", {}), ("tanhshrink", {}),
    ("hardshrink", {}), ("hardshrink", {"lambd": 1.2}), ("hardshrink", {"lambd": 0.0}),
    ("softshrink", {}), ("softshrink", {"lambd": 1.5}), ("softshrink", {"lambd": 0.0}),
    ("threshold", {"threshold": 0.3, "value": -2.0}), ("threshold", {"threshold": -1, "value": 5}),
]
ELEMENTWISE_IDS = [f"{n}{sorted(k.items())}" for n, k in ELEMENTWISE]


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("name,kwargs", ELEMENTWISE, ids=ELEMENTWISE_IDS)
def test_elementwise_matches_torch(name, kwargs, dtype, layout):
    compare(lambda x: getattr(TF, name)(x, **kwargs), lambda x: getattr(F, name)(x, **kwargs),
            [_array(layout, dtype)], tol=DTYPES[dtype][3], noncontiguous=layout == "noncontiguous")


SPECIAL = np.array([-800.0, -30.0, -20.5, -1.5, -1.2, -0.5, -1e-8, 0.0, 1e-8, 0.3, 0.5, 1.2, 1.5, 20.5, 30.0,
                    800.0])


@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("name,kwargs", ELEMENTWISE, ids=ELEMENTWISE_IDS)
def test_elementwise_at_boundaries_and_extremes(name, kwargs, dtype):
    """Values at the kinks (0, +-lambd, the threshold) and far out, with their gradients."""
    values = SPECIAL.astype(DTYPES[dtype][0])
    compare(lambda x: getattr(TF, name)(x, **kwargs), lambda x: getattr(F, name)(x, **kwargs), [values],
            tol=DTYPES[dtype][3])


@pytest.mark.parametrize("name,kwargs", ELEMENTWISE, ids=ELEMENTWISE_IDS)
def test_elementwise_nan_and_inf(name, kwargs):
    values = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0], dtype=np.float32)
    compare(lambda x: getattr(TF, name)(x, **kwargs), lambda x: getattr(F, name)(x, **kwargs), [values],
            grads=[False])


def test_logsigmoid_keeps_precision_far_out():
    values = np.array([-1000.0, -745.0, -40.0, -20.0, 15.0, 40.0, 745.0, 1000.0])
    expected = TF.logsigmoid(torch.tensor(values)).numpy()
    actual = F.logsigmoid(ember.from_numpy(values.copy())).numpy()
    np.testing.assert_allclose(actual, expected, rtol=1e-15, atol=0)


@pytest.mark.parametrize("name", ["softsign", "tanhshrink"])
def test_integer_inputs_promote_like_torch(name):
    values = np.arange(-3, 4)
    compare(getattr(TF, name), getattr(F, name), [values], grads=[False])


def test_threshold_keeps_integer_dtype():
    values = np.arange(-3, 4)
    for th, value in ((1, 9), (-0.5, 9.7), (1.5, -2.2), (-2.5, 0)):
        compare(lambda x: TF.threshold(x, th, value), lambda x: F.threshold(x, th, value), [values], grads=[False])


@pytest.mark.parametrize("dtype", list(DTYPES))
def test_threshold_inplace(dtype):
    values = _array("contiguous", dtype, seed=3)

    def run(lib, fn):
        x = lib[0](values.copy())
        x.requires_grad_()
        y = x * 2
        out = fn(y)
        assert out is y
        out.sum().backward()
        return y, x.grad

    ty, tg = run((torch.tensor,), lambda y: TF.threshold(y, 0.1, -3.0, inplace=True))
    ey, eg = run((ember.from_numpy,), lambda y: F.threshold(y, 0.1, -3.0, inplace=True))
    np.testing.assert_allclose(to_np(ey), to_np(ty))
    np.testing.assert_allclose(to_np(eg), to_np(tg))
    ty, tg = run((torch.tensor,), lambda y: TF.threshold_(y, 0.1, -3.0))
    ey, eg = run((ember.from_numpy,), lambda y: F.threshold_(y, 0.1, -3.0))
    np.testing.assert_allclose(to_np(ey), to_np(ty))
    np.testing.assert_allclose(to_np(eg), to_np(tg))


def test_threshold_inplace_on_a_leaf_that_requires_grad_raises():
    with pytest.raises(RuntimeError):
        TF.threshold(torch.ones(3, requires_grad=True), 0.0, 1.0, inplace=True)
    with pytest.raises(RuntimeError):
        F.threshold(ember.ones(3).requires_grad_(), 0.0, 1.0, inplace=True)


BAD_ELEMENTWISE = [
    ("hardshrink", {}, np.arange(4)), ("softshrink", {}, np.arange(4)), ("logsigmoid", {}, np.arange(4)),
    ("hardshrink", {}, np.array([True, False])), ("softshrink", {}, np.array([True, False])),
    ("logsigmoid", {}, np.array([True, False])),
    ("threshold", {"threshold": 0.5, "value": 1.0}, np.array([True, False])),
    ("softshrink", {"lambd": -1.0}, np.ones(3, dtype=np.float32)),
    ("softshrink", {"lambd": -0.5}, np.ones(3)),
    ("softshrink", {"lambd": float("nan")}, np.ones(3, dtype=np.float32)),
    ("softshrink", {"lambd": float("inf")}, np.ones(3, dtype=np.float32)),
]


@pytest.mark.parametrize("name,kwargs,values", BAD_ELEMENTWISE,
                         ids=[f"{n}-{v.dtype}-{sorted(k.items())}" for n, k, v in BAD_ELEMENTWISE])
def test_elementwise_bad_inputs_raise_like_torch(name, kwargs, values):
    assert_same_error(lambda x: getattr(TF, name)(x, **kwargs), lambda x: getattr(F, name)(x, **kwargs), values)


def test_softshrink_lambda_message():
    with pytest.raises(RuntimeError, match="lambda must be in range"):
        F.softshrink(ember.ones(3), -1.0)


# ---- glu -------------------------------------------------------------------------------------

GLU_CASES = [((3, 4, 6), -1), ((3, 4, 6), 1), ((3, 4, 6), -2), ((4, 3), 0), ((8,), 0), ((0, 4), -1), ((4, 0), 0),
             ((2, 0), 1)]


@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("shape,dim", GLU_CASES, ids=[f"{s}-{d}" for s, d in GLU_CASES])
def test_glu_matches_torch(shape, dim, dtype):
    x = np.random.default_rng(1).standard_normal(shape).astype(DTYPES[dtype][0])
    compare(lambda t: TF.glu(t, dim), lambda e: F.glu(e, dim), [x], tol=DTYPES[dtype][3])


@pytest.mark.parametrize("dtype", list(DTYPES))
def test_glu_noncontiguous(dtype):
    x = np.random.default_rng(2).standard_normal((4, 3, 6)).astype(DTYPES[dtype][0])
    for dim in (0, -1):
        compare(lambda t: TF.glu(t, dim), lambda e: F.glu(e, dim), [x], tol=DTYPES[dtype][3], noncontiguous=True)


BAD_GLU = [(np.ones((), np.float32), -1), (np.ones((3, 5)), -1), (np.ones((3, 4)), 0),
           (np.ones((3, 4)), 2), (np.ones((3, 4)), -3), (np.arange(4), 0)]


@pytest.mark.parametrize("values,dim", BAD_GLU, ids=[f"{v.shape}-{v.dtype}-{d}" for v, d in BAD_GLU])
def test_glu_bad_inputs_raise_like_torch(values, dim):
    assert_same_error(lambda t: TF.glu(t, dim), lambda e: F.glu(e, dim), values)


def test_glu_messages():
    with pytest.raises(RuntimeError, match="glu does not support scalars"):
        F.glu(ember.ones(()))
    with pytest.raises(RuntimeError, match="Halving dimension must be even, but dimension 1 is size 5"):
        F.glu(ember.ones((3, 5)))


# ---- prelu -----------------------------------------------------------------------------------

PRELU_CASES = [((2, 3, 4), (3,)), ((2, 3, 4), (1,)), ((2, 3, 4), ()), ((2, 3), (3,)), ((5,), (1,)),
               ((5,), ()), ((), (1,)), ((), ()), ((0, 3), (3,)), ((2, 0, 4), (1,)), ((2, 3, 2, 2), (3,))]


@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("shape,wshape", PRELU_CASES, ids=[f"{s}-{w}" for s, w in PRELU_CASES])
def test_prelu_matches_torch(shape, wshape, dtype):
    rng = np.random.default_rng(4)
    x = rng.standard_normal(shape).astype(DTYPES[dtype][0])
    w = rng.uniform(0.05, 0.5, wshape).astype(DTYPES[dtype][0])
    compare(TF.prelu, F.prelu, [x, w], tol=DTYPES[dtype][3])


@pytest.mark.parametrize("dtype", list(DTYPES))
def test_prelu_noncontiguous_and_zeros(dtype):
    # Transposed to (4, 3, 3): 3 channels.
    x = np.random.default_rng(5).standard_normal((3, 3, 4)).astype(DTYPES[dtype][0])
    x[0, :, 0] = 0.0
    w = np.array([0.1, -0.3, 0.2], dtype=DTYPES[dtype][0])
    compare(TF.prelu, F.prelu, [x, w], tol=DTYPES[dtype][3], noncontiguous=True)


BAD_PRELU = [
    (np.ones((3, 4), np.float32), np.ones(3, np.float32)),
    (np.ones(3, np.float32), np.ones(3, np.float32)),
    (np.ones((), np.float32), np.ones(3, np.float32)),
    (np.ones((3, 4), np.float32), np.ones((4, 1), np.float32)),
    (np.ones((3, 4), np.float32), np.ones((1, 1), np.float32)),
    (np.ones((3, 4), np.float32), np.ones(4, np.float64)),
    (np.ones((3, 4), np.float32), 0.25),
    (np.ones((3, 4), np.int64), np.ones(4, np.int64)),
]


@pytest.mark.parametrize("x,w", BAD_PRELU, ids=[str(i) for i in range(len(BAD_PRELU))])
def test_prelu_bad_inputs_raise_like_torch(x, w):
    assert_same_error(TF.prelu, F.prelu, x, w)


def test_prelu_messages():
    with pytest.raises(RuntimeError, match="Mismatch of parameter numbers and input channel size"):
        F.prelu(ember.ones((3, 4)), ember.ones(3))
    with pytest.raises(RuntimeError, match="scalar or 1D tensor"):
        F.prelu(ember.ones((3, 4)), ember.ones((1, 1)))


# ---- normalize -------------------------------------------------------------------------------

NORMALIZE_CASES = [{}, {"p": 1.0}, {"p": 3}, {"p": float("inf")}, {"dim": 0}, {"dim": -1}, {"eps": 10.0},
                   {"p": 1, "dim": 0, "eps": 0.5}]


@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("layout", ["contiguous", "noncontiguous", "empty"])
@pytest.mark.parametrize("kwargs", NORMALIZE_CASES, ids=[str(sorted(k.items())) for k in NORMALIZE_CASES])
def test_normalize_matches_torch(kwargs, layout, dtype):
    x = _array(layout, dtype, seed=6, shape=(3, 4, 2))
    compare(lambda t: TF.normalize(t, **kwargs), lambda e: F.normalize(e, **kwargs), [x],
            tol=DTYPES[dtype][3], noncontiguous=layout == "noncontiguous")


@pytest.mark.parametrize("dtype", list(DTYPES))
def test_normalize_scalar_and_1d(dtype):
    tol = DTYPES[dtype][3]
    compare(lambda t: TF.normalize(t, dim=0), lambda e: F.normalize(e, dim=0), [_array("scalar", dtype)], tol=tol)
    compare(lambda t: TF.normalize(t, dim=-1), lambda e: F.normalize(e, dim=-1), [_array("scalar", dtype)],
            tol=tol)
    x = np.random.default_rng(7).standard_normal(5).astype(DTYPES[dtype][0])
    compare(lambda t: TF.normalize(t, dim=0), lambda e: F.normalize(e, dim=0), [x], tol=tol)


@pytest.mark.parametrize("dtype", list(DTYPES))
def test_normalize_zero_rows(dtype):
    x = np.random.default_rng(8).standard_normal((3, 4)).astype(DTYPES[dtype][0])
    x[1] = 0.0
    compare(lambda t: TF.normalize(t), lambda e: F.normalize(e), [x], tol=DTYPES[dtype][3])
    x = np.zeros((2, 3), DTYPES[dtype][0])
    compare(lambda t: TF.normalize(t, p=1), lambda e: F.normalize(e, p=1), [x], tol=DTYPES[dtype][3])


def test_normalize_out():
    x = np.random.default_rng(9).standard_normal((3, 4)).astype(np.float32)
    expected = TF.normalize(torch.tensor(x), dim=0)
    out = ember.empty((3, 4))
    result = F.normalize(ember.from_numpy(x.copy()), dim=0, out=out)
    np.testing.assert_allclose(out.numpy(), expected.numpy(), rtol=1e-6)
    np.testing.assert_allclose(result.numpy(), expected.numpy(), rtol=1e-6)


BAD_NORMALIZE = [(np.ones((), np.float32), {}), (np.ones((3, 4), np.float32), {"dim": 2}),
                 (np.ones((3, 4), np.float32), {"dim": -3}), (np.arange(6).reshape(2, 3), {})]


@pytest.mark.parametrize("x,kwargs", BAD_NORMALIZE, ids=[str(i) for i in range(len(BAD_NORMALIZE))])
def test_normalize_bad_inputs_raise_like_torch(x, kwargs):
    assert_same_error(lambda t: TF.normalize(t, **kwargs), lambda e: F.normalize(e, **kwargs), x)


# ---- bilinear --------------------------------------------------------------------------------

BILINEAR_CASES = [((5, 3), (5, 4), (2, 3, 4), True), ((5, 3), (5, 4), (2, 3, 4), False),
                  ((2, 3, 3), (2, 3, 4), (6, 3, 4), True), ((3,), (4,), (2, 3, 4), True),
                  ((0, 3), (0, 4), (2, 3, 4), True), ((5, 3), (5, 4), (0, 3, 4), True),
                  ((5, 1), (5, 1), (1, 1, 1), True)]


@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("s1,s2,sw,bias", BILINEAR_CASES, ids=[str(c) for c in BILINEAR_CASES])
def test_bilinear_matches_torch(s1, s2, sw, bias, dtype):
    rng = np.random.default_rng(10)
    np_dtype = DTYPES[dtype][0]
    arrays = [rng.standard_normal(s).astype(np_dtype) for s in (s1, s2, sw)]
    if bias:
        arrays.append(rng.standard_normal(sw[0]).astype(np_dtype))
    compare(TF.bilinear, F.bilinear, arrays, tol=DTYPES[dtype][3] * 10)


@pytest.mark.parametrize("dtype", list(DTYPES))
def test_bilinear_noncontiguous(dtype):
    rng = np.random.default_rng(11)
    np_dtype = DTYPES[dtype][0]
    # Transposed, (3, 5) -> (5, 3) and (4, 5) -> (5, 4); the weight (4, 3, 2) -> (2, 3, 4).
    arrays = [rng.standard_normal(s).astype(np_dtype) for s in ((3, 5), (4, 5), (4, 3, 2))]
    arrays.append(rng.standard_normal(2).astype(np_dtype))
    compare(TF.bilinear, F.bilinear, arrays, tol=DTYPES[dtype][3] * 10, noncontiguous=True)


def _f(*shape):
    return np.ones(shape, np.float32)


BAD_BILINEAR = [
    (_f(3, 4), _f(2, 5), _f(2, 4, 5), None),         # batch sizes
    (_f(3, 4), _f(1, 3, 5), _f(2, 4, 5), None),      # number of dims
    (_f(2, 3, 4), _f(2, 1, 5), _f(2, 4, 5), None),   # batch dim 1
    (_f(3, 4), _f(3, 6), _f(2, 4, 5), None),         # input2 features
    (_f(3, 3), _f(3, 5), _f(2, 4, 5), None),         # input1 features
    (_f(3, 4), _f(3, 5), _f(2, 4, 5), _f(3)),        # bias size
    (_f(3, 4), _f(3, 5), _f(2, 4, 5), _f()),         # 0-d bias
    (_f(3, 4), _f(3, 5), _f(2, 4, 5), _f(2, 2)),     # bias that does not broadcast
    (_f(3, 4), _f(3, 5), _f(4, 5), None),            # 2-d weight
    (_f(3, 4), _f(3, 5), _f(4), None),               # 1-d weight
    (_f(3, 4), _f(3, 5), _f(), None),                # 0-d weight
    (_f(3, 4), _f(3, 5), _f(2, 4, 5, 1), None),      # 4-d weight
    (_f(), _f(), _f(2, 4, 5), None),                 # 0-d inputs
    (_f(3, 4), _f(3, 5), np.ones((2, 4, 5)), None),  # dtypes
    (_f(3, 4), _f(3, 5), _f(2, 4, 5), np.ones(2)),   # bias dtype
]


@pytest.mark.parametrize("x1,x2,w,b", BAD_BILINEAR, ids=[str(i) for i in range(len(BAD_BILINEAR))])
def test_bilinear_bad_inputs_raise_like_torch(x1, x2, w, b):
    assert_same_error(TF.bilinear, F.bilinear, x1, x2, w, b)


def test_bilinear_messages():
    with pytest.raises(RuntimeError, match=r"bilinear\(\): input1 size does not match weight size: got 3 but "
                                           r"expected 4"):
        F.bilinear(ember.ones((3, 3)), ember.ones((3, 5)), ember.ones((2, 4, 5)))
    with pytest.raises(RuntimeError, match=r"bilinear\(\): input batch dimensions do not match"):
        F.bilinear(ember.ones((3, 4)), ember.ones((2, 5)), ember.ones((2, 4, 5)))


# ---- modules ---------------------------------------------------------------------------------

MODULES = [
    ("LogSigmoid", (), {}, (3, 5)), ("Softsign", (), {}, (3, 5)), ("Tanhshrink", (), {}, (3, 5)),
    ("Hardshrink", (), {}, (3, 5)), ("Hardshrink", (1.1,), {}, (3, 5)),
    ("Softshrink", (), {}, (3, 5)), ("Softshrink", (), {"lambd": 0.8}, (3, 5)),
    ("Threshold", (0.1, 20), {}, (3, 5)), ("Threshold", (0.1, -2.5), {"inplace": True}, (3, 5)),
    ("GLU", (), {}, (3, 6)), ("GLU", (0,), {}, (4, 3)), ("GLU", (), {"dim": 1}, (2, 4, 3)),
    ("PReLU", (), {}, (3, 5)), ("PReLU", (4,), {}, (2, 4, 3)), ("PReLU", (), {"num_parameters": 4, "init": -0.1},
                                                                (2, 4)),
    ("Bilinear", (3, 4, 2), {}, None), ("Bilinear", (3, 4, 2), {"bias": False}, None),
]


@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("name,args,kwargs,shape", MODULES, ids=[f"{m[0]}-{i}" for i, m in enumerate(MODULES)])
def test_module_matches_torch(name, args, kwargs, shape, dtype):
    torch.manual_seed(0)
    tm = getattr(tnn, name)(*args, **kwargs).to(DTYPES[dtype][1])
    em = getattr(enn, name)(*args, **kwargs).to(DTYPES[dtype][2])
    assert repr(em) == repr(tm)
    assert list(em.state_dict().keys()) == list(tm.state_dict().keys())
    assert [n for n, _ in em.named_parameters()] == [n for n, _ in tm.named_parameters()]
    em.load_state_dict({k: ember.from_numpy(v.detach().numpy().copy()) for k, v in tm.state_dict().items()})
    rng = np.random.default_rng(12)
    np_dtype = DTYPES[dtype][0]
    if name == "Bilinear":
        arrays = [rng.standard_normal((5, 3)).astype(np_dtype), rng.standard_normal((5, 4)).astype(np_dtype)]
    else:
        arrays = [rng.standard_normal(shape).astype(np_dtype)]
    # In-place modules get a non-leaf input (x * 1) so autograd allows the in-place write.
    tout, eout = compare(lambda *xs: tm(*[x * 1 for x in xs]), lambda *xs: em(*[x * 1 for x in xs]), arrays,
                         tol=DTYPES[dtype][3] * 10)
    for (n, tp), (_, ep) in zip(tm.named_parameters(), em.named_parameters()):
        np.testing.assert_allclose(to_np(ep.grad), to_np(tp.grad), rtol=DTYPES[dtype][3] * 10,
                                   atol=DTYPES[dtype][3] * 10, err_msg=n)


def test_prelu_defaults_and_dtype():
    m = enn.PReLU()
    assert m.num_parameters == 1 and m.init == 0.25
    assert isinstance(m.weight, enn.Parameter)
    np.testing.assert_array_equal(m.weight.detach().numpy(), np.full(1, 0.25, np.float32))
    m = enn.PReLU(3, init=0.5, dtype=ember.float64)
    assert m.weight.dtype == ember.float64
    np.testing.assert_array_equal(m.weight.detach().numpy(), np.full(3, 0.5))
    with pytest.raises(RuntimeError, match="Mismatch of parameter numbers"):
        m(ember.ones((2, 4), dtype=ember.float64))


def test_module_reprs_match_torch():
    def build(nn):
        return nn.Sequential(nn.LogSigmoid(), nn.Softsign(), nn.Tanhshrink(), nn.Hardshrink(), nn.Hardshrink(2),
                             nn.Softshrink(0.25), nn.Threshold(0.5, 1.5), nn.Threshold(1, 2, inplace=True),
                             nn.GLU(), nn.GLU(dim=2), nn.PReLU(), nn.PReLU(7, init=0.1))
    assert repr(build(enn)) == repr(build(tnn))


def test_bilinear_module_checks_shapes_through_functional():
    m = enn.Bilinear(3, 4, 2)
    with pytest.raises(RuntimeError, match=r"bilinear\(\): input2 size does not match weight size"):
        m(ember.ones((5, 3)), ember.ones((5, 5)))


def test_threshold_module_inplace_returns_its_input():
    x = ember.from_numpy(np.array([-1.0, 0.5, 2.0], np.float32))
    out = enn.Threshold(1.0, 0.0, inplace=True)(x)
    assert out is x
    np.testing.assert_array_equal(x.numpy(), np.array([0.0, 0.0, 2.0], np.float32))


def test_exports():
    for name in ("LogSigmoid", "Softsign", "Tanhshrink", "Hardshrink", "Softshrink", "Threshold", "GLU", "PReLU"):
        assert getattr(enn, name) is getattr(enn.modules, name)
    for name in ("bilinear", "normalize", "logsigmoid", "softsign", "tanhshrink", "hardshrink", "softshrink",
                 "threshold", "threshold_", "glu", "prelu"):
        assert callable(getattr(F, name))


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("weighted", [False, True])
def test_binary_cross_entropy_gradients_at_the_edges(reduction, weighted):
    """Probabilities of exactly 0 and 1 (a saturated sigmoid) give torch's finite gradients
    (its 1e-12 floor), not the composite's 0/0 (found by pytorch/examples siamese_network)."""
    p = np.array([0.0, 1.0, 0.3, 1.0, 0.0, 0.999999], dtype=np.float64)
    y = np.array([0.0, 0.0, 1.0, 1.0, 1.0, 0.0])
    w = np.linspace(0.5, 2, 6)
    ep, tp = (ember.from_numpy(p.copy()).requires_grad_(), torch.from_numpy(p.copy()).requires_grad_())
    ey, ty = (ember.from_numpy(y.copy()).requires_grad_(), torch.from_numpy(y.copy()).requires_grad_())
    ew = ember.from_numpy(w) if weighted else None
    tw = torch.from_numpy(w) if weighted else None
    el = F.binary_cross_entropy(ep, ey, ew, reduction=reduction)
    tl = torch.nn.functional.binary_cross_entropy(tp, ty, tw, reduction=reduction)
    np.testing.assert_allclose(el.detach().numpy(), tl.detach().numpy(), rtol=1e-12)
    g = np.linspace(1, 2, 6) if reduction == "none" else np.array(1.5)
    el.backward(ember.from_numpy(g.copy()))
    tl.backward(torch.from_numpy(g.copy()))
    np.testing.assert_allclose(ep.grad.numpy(), tp.grad.numpy(), rtol=1e-10)
    assert np.isfinite(ep.grad.numpy()).all()
    # the target's gradient is infinite where p is 0 or 1, in torch as here
    np.testing.assert_allclose(ey.grad.numpy(), ty.grad.numpy(), rtol=1e-10)


def test_binary_cross_entropy_second_order():
    p = np.array([0.2, 0.7, 0.5])
    y = np.array([0.0, 1.0, 0.3])
    ep, tp = ember.from_numpy(p.copy()).requires_grad_(), torch.from_numpy(p.copy()).requires_grad_()
    (eg,) = ember.autograd.grad(F.binary_cross_entropy(ep, ember.from_numpy(y)), ep, create_graph=True)
    (tg,) = torch.autograd.grad(torch.nn.functional.binary_cross_entropy(tp, torch.from_numpy(y)), tp,
                                create_graph=True)
    (egg,) = ember.autograd.grad(eg.sum(), ep)
    (tgg,) = torch.autograd.grad(tg.sum(), tp)
    np.testing.assert_allclose(egg.numpy(), tgg.numpy(), rtol=1e-10)
