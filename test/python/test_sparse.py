"""Sparse COO tensors (issue 24, first part) against torch.sparse 2.13: construction,
to_dense with duplicates, coalesce, to_sparse (plain and hybrid), the accessors, repr, and
the errors: bad members at construction, ops without a sparse kernel, conversions that read
memory. The values come from random patterns with empty rows and duplicates, in several
dtypes; scipy.sparse checks the dense result where torch is not asked."""
import warnings

import numpy as np
import pytest
import scipy.sparse
import torch

import ember

warnings.filterwarnings("ignore", message="Sparse invariant checks")
DTYPES = ["float32", "float64", "int64", "bool", "complex64"]


def pattern(seed, shape=(5, 6), nnz=9, dense=(), dtype="float32"):
    """(indices, values) numpy arrays: random coordinates (duplicates likely, some rows empty)."""
    rng = np.random.default_rng(seed)
    idx = np.stack([rng.integers(0, n, nnz) for n in shape]).astype(np.int64)
    vals = rng.standard_normal((nnz,) + dense)
    if dtype == "bool":
        vals = vals > 0
    elif dtype == "int64":
        vals = np.round(vals * 5)
    elif dtype == "complex64":
        vals = vals + 1j * rng.standard_normal(vals.shape)
    return idx, vals.astype(dtype)


def both(idx, vals, size=None, **kw):
    args = () if size is None else (size,)
    e = ember.sparse_coo_tensor(ember.from_numpy(idx.copy()), ember.from_numpy(vals.copy()), *args, **kw)
    t = torch.sparse_coo_tensor(torch.from_numpy(idx.copy()), torch.from_numpy(vals.copy()), *args, **kw)
    return e, t


def same(e, t):
    assert tuple(e.shape) == tuple(t.shape)
    assert str(e.dtype).split(".")[1] == str(t.dtype).split(".")[1]
    np.testing.assert_array_equal(e.numpy(), t.numpy())


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("seed", range(3))
def test_to_dense_adds_duplicates_as_torch(dtype, seed):
    idx, vals = pattern(seed, dtype=dtype)
    e, t = both(idx, vals, (5, 6))
    assert e.layout == ember.sparse_coo and e.is_sparse and not e.is_coalesced()
    assert e._nnz() == t._nnz() == 9
    same(e.to_dense(), t.to_dense())
    if dtype in ("float32", "float64"):  # and as scipy sums duplicates
        ref = scipy.sparse.coo_matrix((vals, (idx[0], idx[1])), shape=(5, 6)).toarray()
        np.testing.assert_allclose(e.to_dense().numpy(), ref, rtol=1e-6)


@pytest.mark.parametrize("dtype", DTYPES)
def test_coalesce_gives_torchs_indices_and_values(dtype):
    idx, vals = pattern(7, shape=(4, 3, 5), nnz=20, dtype=dtype)
    e, t = both(idx, vals)  # size inferred from the coordinates
    assert tuple(e.shape) == tuple(t.shape)
    ec, tc = e.coalesce(), t.coalesce()
    assert ec.is_coalesced() and ec._nnz() == tc._nnz()
    same(ec.indices(), tc.indices())
    if dtype in ("float32", "complex64"):  # sums in another order: rounding
        np.testing.assert_allclose(ec.values().numpy(), tc.values().numpy(), rtol=1e-5, atol=1e-6)
    else:
        same(ec.values(), tc.values())
    assert ec.coalesce() is ec  # coalesced already: itself


@pytest.mark.parametrize("sparse_dim", [None, 1, 2, 3])
@pytest.mark.parametrize("dtype", DTYPES)
def test_to_sparse_plain_and_hybrid_as_torch(sparse_dim, dtype):
    rng = np.random.default_rng(3)
    a = rng.standard_normal((3, 4, 2))
    a[rng.random(a.shape) < 0.6] = 0
    a[1] = 0  # an empty row
    a = a.astype(dtype)
    e, t = ember.from_numpy(a.copy()), torch.from_numpy(a.copy())
    es = e.to_sparse() if sparse_dim is None else e.to_sparse(sparse_dim)
    ts = t.to_sparse() if sparse_dim is None else t.to_sparse(sparse_dim)
    assert es.is_coalesced() and ts.is_coalesced()
    assert (es.sparse_dim(), es.dense_dim()) == (ts.sparse_dim(), ts.dense_dim())
    same(es.indices(), ts.indices())
    same(es.values(), ts.values())
    same(es.to_dense(), t)


def test_views_strided_and_empty_inputs():
    a = np.arange(12.0).reshape(3, 4)
    a[a % 3 == 0] = 0
    e, t = ember.from_numpy(a.copy()).t(), torch.from_numpy(a.copy()).t()  # non-contiguous
    same(e.to_sparse().indices(), t.to_sparse().indices())
    same(e.to_sparse().values(), t.to_sparse().values())
    for shape in [(0, 3), (2, 0), ()]:
        z = np.zeros(shape)
        es, ts = ember.from_numpy(z).to_sparse(), torch.from_numpy(z).to_sparse()
        assert es._nnz() == ts._nnz() == 0
        same(es.to_dense(), ts.to_dense())
    e0, t0 = ember.tensor(2.5).to_sparse(), torch.tensor(2.5).to_sparse()  # 0-d
    assert e0._nnz() == t0._nnz() == 1 and e0.shape == t0.shape
    same(e0.to_dense(), t0.to_dense())
    e, t = both(np.zeros((2, 0), np.int64), np.zeros((0,), np.float32), (3, 4))  # nnz 0
    same(e.to_dense(), t.to_dense())
    assert e.is_coalesced() == t.is_coalesced()


def test_construction_forms_as_torch():
    for kw in [{}, {"dtype": ember.float64}, {"is_coalesced": True}]:
        tkw = {k: (getattr(torch, str(v).split(".")[1]) if k == "dtype" else v) for k, v in kw.items()}
        e = ember.sparse_coo_tensor([[0, 1], [2, 0]], [1.0, 2.0], (2, 3), **kw)
        t = torch.sparse_coo_tensor([[0, 1], [2, 0]], [1.0, 2.0], (2, 3), **tkw)
        same(e.to_dense(), t.to_dense())
        assert e.is_coalesced() == t.is_coalesced()
    e = ember.sparse_coo_tensor(ember.tensor([[0, 2]], dtype=ember.int32), [[1.0, 2.0], [3.0, 4.0]])  # int32, hybrid
    t = torch.sparse_coo_tensor(torch.tensor([[0, 2]], dtype=torch.int32), [[1.0, 2.0], [3.0, 4.0]])
    same(e.to_dense(), t.to_dense())
    assert e._indices().dtype == ember.int64 and (e.sparse_dim(), e.dense_dim()) == (1, 1)


def test_members_are_shared_not_copied():
    i, v = ember.tensor([[0, 1]]), ember.tensor([1.0, 2.0])
    s = ember.sparse_coo_tensor(i, v, (3,), is_coalesced=True)
    s._values()[0] = 7.0
    assert v[0].item() == 7.0 and s.to_dense()[0].item() == 7.0


def test_repr_is_torchs():
    d = [[0.0, 2, 0], [3, 0, 4]]
    for e, t in [(ember.tensor(d).to_sparse(), torch.tensor(d).to_sparse()),
                 (ember.tensor(d, dtype=ember.float64).to_sparse(1), torch.tensor(d, dtype=torch.float64).to_sparse(1)),
                 (ember.tensor([0, 1.0, 0]).to_sparse(), torch.tensor([0, 1.0, 0]).to_sparse())]:
        assert repr(e).replace("ember.", "torch.") == repr(t)


def test_bad_members_are_refused_before_the_tensor_exists():
    i, v = [[0, 1], [2, 0]], [1.0, 2.0]
    with pytest.raises(ValueError, match=r"index 2 in row 1 of 'indices' is out of bounds for size 2 of dim 1"):
        ember.sparse_coo_tensor(i, v, (2, 2))
    with pytest.raises(ValueError, match="non-negative indices"):
        ember.sparse_coo_tensor([[0, -1]], v, (2,))
    with pytest.raises(ValueError, match=r"expected 'values' with 2 rows"):
        ember.sparse_coo_tensor(i, [1.0, 2.0, 3.0], (2, 3))
    with pytest.raises(ValueError, match=r"expected 'size' of 2 dims"):
        ember.sparse_coo_tensor(i, v, (2, 3, 4))
    with pytest.raises(ValueError, match=r"expected 'indices' of 2 dims"):
        ember.sparse_coo_tensor([0, 1], v, (2,))
    with pytest.raises(TypeError, match="integer 'indices'"):
        ember.sparse_coo_tensor([[0.0, 1.0]], v, (2,))
    with pytest.raises(ValueError, match="not sorted and unique"):
        ember.sparse_coo_tensor([[1, 0]], v, (2,), is_coalesced=True, check_invariants=True)
    for bad in (0, 3):  # torch: at least one sparse dim, at most dim
        with pytest.raises(RuntimeError):
            torch.ones(2, 2).to_sparse(bad)
        with pytest.raises(ValueError, match=r"sparse_dim in \[1, 2\]"):
            ember.ones(2, 2).to_sparse(bad)
    # torch raises RuntimeError for these; Ember's ValueError is one too.
    with pytest.raises(RuntimeError):
        ember.sparse_coo_tensor(i, v, (2, 2))


def test_uncoalesced_accessors_raise_as_torch():
    e, t = both(*pattern(1))
    for name in ["indices", "values"]:
        with pytest.raises(RuntimeError, match="uncoalesced") as te:
            getattr(t, name)()
        with pytest.raises(RuntimeError, match=str(te.value).split(",")[0]):
            getattr(e, name)()


@pytest.mark.parametrize("call", [lambda s: ember.cumsum(s, 0), lambda s: ember.flip(s, [0]), lambda s: s.roll(1, 0),
                                  lambda s: ember.tril(s), lambda s: ember.trace(s)])
def test_an_op_without_a_sparse_kernel_is_one_clear_error(call):
    s = ember.tensor([[0.0, 2], [3, 0]]).to_sparse()
    with pytest.raises(NotImplementedError, match=r"\(\): not supported for sparse_coo tensors \(dispatch key SparseCPU\).*to_dense"):
        call(s)


@pytest.mark.parametrize("name", ["numpy", "tolist", "__dlpack__"])
def test_conversions_that_read_memory_refuse_sparse_tensors(name):
    s = ember.tensor([[0.0, 2], [3, 0]]).to_sparse()
    with pytest.raises(TypeError, match=rf"{name}\(\): expected a strided tensor.*to_dense"):
        getattr(s, name)()


def test_not_built_yet_is_said():
    with pytest.raises(NotImplementedError, match="block layouts"):
        ember.ones(2, 2).to_sparse(layout=ember.sparse_csr, blocksize=(1, 1))
    assert ember.sparse_coo_tensor([[0]], [1.0], (2,), requires_grad=True).requires_grad


# Note [Sparse on values]: the ops the YAML declares `sparse: values`, each one generic kernel.
def _declared(mode, unary=True):
    """The functional single-overload ops the YAML declares `sparse: <mode>` (read from the
    YAML, so a newly declared op is tested without a line here); with unary, those whose
    only argument without a default is self."""
    import pathlib
    import yaml
    entries = yaml.safe_load((pathlib.Path(__file__).parents[2] / "native_functions.yaml").read_text())
    out = []
    for e in entries:
        name, args = e["func"].split("(")[0], e["func"].split("(", 1)[1].rsplit(") ->", 1)[0]
        required = [a for a in args.split(",") if a.strip() and "=" not in a and a.strip() != "*"]
        if e.get("sparse") == mode and "." not in name and not name.endswith("_") and (not unary or len(required) == 1):
            out.append(name)
    return sorted(out)


ON_VALUES = _declared("values")


def _cmp(e, t):
    assert e.layout == ember.sparse_coo and t.layout == torch.sparse_coo
    assert str(e.dtype).split(".")[1] == str(t.dtype).split(".")[1], (e.dtype, t.dtype)
    assert e.is_coalesced() and e.sparse_dim() == t.sparse_dim()
    np.testing.assert_array_equal(e.indices().numpy(), t.coalesce().indices().numpy())
    np.testing.assert_allclose(e.to_dense().numpy(), t.to_dense().numpy(), rtol=1e-6, atol=1e-6, equal_nan=True)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "complex64"])
@pytest.mark.parametrize("name", ON_VALUES)
def test_zero_preserving_ops_act_on_the_coalesced_values_as_torch(name, dtype):
    idx, vals = pattern(3, dtype=dtype)
    if name in ("asin", "atanh", "erfinv") and dtype != "complex64":
        vals = (vals / (np.abs(vals).max() + 1)).astype(dtype)  # inside the domain
    e, t = both(idx, vals, (5, 6))  # uncoalesced: duplicates sum before a non-linear op
    try:
        want = getattr(torch, name)(t)
    except (RuntimeError, NotImplementedError, TypeError) as err:
        # torch has no sparse kernel or refuses the dtype: Ember gives the dense op's verdict.
        try:
            dense = getattr(torch, name)(t.to_dense())
        except (RuntimeError, TypeError):
            with pytest.raises((RuntimeError, TypeError, ValueError, NotImplementedError)):
                getattr(ember, name)(e)
            return
        got = getattr(ember, name)(e)
        assert got.layout == ember.sparse_coo, err
        np.testing.assert_allclose(got.to_dense().numpy(), dense.numpy(), rtol=1e-6, atol=1e-6, equal_nan=True)
        return
    _cmp(getattr(ember, name)(e), want)
    _cmp(getattr(e, name)(), want)


def test_the_declared_lists_hold_the_everyday_ops():
    assert {"abs", "neg", "sqrt", "sin", "tanh", "relu", "nan_to_num"} <= set(ON_VALUES) and len(ON_VALUES) >= 30
    assert {"exp", "cos", "sigmoid", "log"} <= set(ON_DENSE)


@pytest.mark.parametrize("name", [n for n in ON_VALUES if n not in ("signbit", "isnan", "isinf")])
def test_in_place_forms_write_the_values_of_self(name):
    idx, vals = pattern(4, dtype="float64")
    vals = vals / (np.abs(vals).max() + 1)
    e, t = both(idx, vals, (5, 6))
    want = getattr(torch, name)(t.to_dense())
    out = getattr(e, name + "_")()
    assert out is e and e.is_coalesced()
    np.testing.assert_allclose(e.to_dense().numpy(), want.numpy(), rtol=1e-12, equal_nan=True)


def test_hybrid_empty_and_scalar_factor_forms():
    idx, vals = pattern(5, dense=(3,), dtype="float32")
    e, t = both(idx, vals, (5, 6, 3))
    _cmp(ember.abs(e), torch.abs(t))
    _cmp(ember.mul(e, 2.5), torch.mul(t, 2.5))
    _cmp(ember.div(e, 4), torch.div(t, 4))
    z = ember.sparse_coo_tensor(ember.zeros(2, 0, dtype=ember.int64), ember.zeros(0), (3, 4))
    assert ember.neg(z)._nnz() == 0 and ember.neg(z).shape == (3, 4)


ON_DENSE = _declared("dense")


@pytest.mark.parametrize("dtype", ["float64", "int64", "bool"])
@pytest.mark.parametrize("name", ON_DENSE)
def test_ops_that_do_not_keep_zeros_give_the_dense_result(name, dtype):
    idx, vals = pattern(6, dtype=dtype)
    e, t = both(idx, vals, (5, 6))
    try:
        want = getattr(torch, name)(t.to_dense())
    except (RuntimeError, TypeError):
        with pytest.raises((RuntimeError, TypeError, ValueError)):
            getattr(ember, name)(e)
        return
    got = getattr(ember, name)(e)
    assert got.layout == ember.strided
    same_dtype = str(got.dtype).split(".")[1] == str(want.dtype).split(".")[1]
    assert same_dtype, (got.dtype, want.dtype)
    rtol = 1e-12 if want.dtype == torch.float64 else 2e-6  # float32 results: the dense kernels' ulps
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=rtol, equal_nan=True)
    if hasattr(e, name + "_"):
        with pytest.raises(NotImplementedError, match=rf"{name}_\(\): not supported for sparse_coo"):
            getattr(e, name + "_")()  # the result would be dense: no in-place form


def test_legacy_constructors_of_ember_sparse_as_torch():
    # ember.sparse.FloatTensor & co.: what pygcn-style scipy converters call.
    idx = [[0, 1, 1], [2, 0, 2]]
    for name in ("FloatTensor", "DoubleTensor", "LongTensor", "IntTensor", "ByteTensor"):
        for vals in ([1.0, 2.0, 3.0], [1, 2, 3]):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                t = getattr(torch.sparse, name)(torch.tensor(idx), torch.tensor(vals), torch.Size([2, 3]))
                t_empty = getattr(torch.sparse, name)(2, 3)
            e = getattr(ember.sparse, name)(ember.tensor(idx), ember.tensor(vals), ember.Size([2, 3]))
            same(e.to_dense(), t.to_dense())  # the values keep their dtype, as torch's
            assert e.is_coalesced() == t.is_coalesced()
            e_empty = getattr(ember.sparse, name)(2, 3)
            assert e_empty.shape == t_empty.shape and e_empty._nnz() == 0
            assert str(e_empty.dtype).split(".")[1] == str(t_empty.dtype).split(".")[1]
            assert isinstance(e_empty, getattr(ember.sparse, name)) and not isinstance(e_empty, getattr(ember, name))
            assert not isinstance(e_empty.to_dense(), getattr(ember.sparse, name))
    assert ember.sparse.FloatTensor().shape == (0,)
    assert not hasattr(ember.sparse, "BoolTensor") and not hasattr(torch.sparse, "BoolTensor")
    with pytest.raises(TypeError, match=r"sparse.FloatTensor\(\): expected \(indices, values\[, size\]\)"):
        ember.sparse.FloatTensor("a")
