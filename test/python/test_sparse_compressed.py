"""Sparse CSR and CSC tensors (issue 24) against torch.sparse 2.13 and scipy.sparse:
construction (int32 and int64 indices, sizes inferred, batched, hybrid), conversions between
every pair of layouts (strided, COO, CSR, CSC), the accessors, repr, the generic kernels on
values, the ops that run through COO (Note [Compressed through COO]), and the bad inputs:
each refused at construction with the op, the member and what was expected."""
import itertools
import warnings

import numpy as np
import pytest
import scipy.sparse
import torch

import ember

warnings.filterwarnings("ignore", message="Sparse (invariant checks|CSC tensor support)")
LAYOUTS = ("strided", "sparse_coo", "sparse_csr", "sparse_csc")


def dense(seed, shape=(5, 7), density=0.35, dtype="float64"):
    """A random array with about `density` non-zeros (rows and columns left empty at random)."""
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(shape) * (rng.random(shape) < density)
    if dtype == "bool":
        return a != 0
    if dtype == "int64":
        return np.round(a * 5).astype(np.int64)
    if dtype == "complex64":
        return (a + 1j * a[::-1] * (a != 0)).astype(np.complex64)
    return a.astype(dtype)


def convert(x, layout, lib):
    if layout == "strided":
        return x.to_dense() if x.layout != lib.strided else x
    if layout == "sparse_coo":
        return x.to_sparse()
    return x.to_sparse_csr() if layout == "sparse_csr" else x.to_sparse_csc()


def members(x):
    if x.layout in (torch.sparse_csr, ember.sparse_csr):
        return [x.crow_indices(), x.col_indices(), x.values()]
    if x.layout in (torch.sparse_csc, ember.sparse_csc):
        return [x.ccol_indices(), x.row_indices(), x.values()]
    if x.layout in (torch.sparse_coo, ember.sparse_coo):
        return [x.coalesce().indices(), x.coalesce().values()]
    return [x]


def same_members(e, t):
    assert str(e.layout).split(".")[1] == str(t.layout).split(".")[1]
    assert tuple(e.shape) == tuple(t.shape)
    for em, tm in zip(members(e), members(t)):
        assert str(em.dtype).split(".")[1] == str(tm.dtype).split(".")[1]
        if em.is_floating_point() or em.is_complex():
            np.testing.assert_allclose(em.numpy(), tm.numpy(), rtol=1e-6 if em.dtype == ember.float32 else 1e-13)
        else:
            np.testing.assert_array_equal(em.numpy(), tm.numpy())


@pytest.mark.parametrize("src,dst", list(itertools.product(LAYOUTS, LAYOUTS)))
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "bool", "complex64"])
def test_every_conversion_gives_torchs_members(src, dst, dtype):
    a = dense(1, dtype=dtype)
    e = convert(ember.from_numpy(a.copy()), src, ember)
    t = convert(torch.from_numpy(a.copy()), src, torch)
    same_members(convert(e, dst, ember), convert(t, dst, torch))
    np.testing.assert_array_equal(convert(e, dst, ember).to_dense().numpy(), a)


@pytest.mark.parametrize("shape", [(0, 4), (4, 0), (3, 3), (1, 1)])
@pytest.mark.parametrize("layout", ["sparse_csr", "sparse_csc"])
def test_empty_and_all_zero(shape, layout):
    a = np.zeros(shape)
    e, t = convert(ember.from_numpy(a), layout, ember), convert(torch.from_numpy(a), layout, torch)
    same_members(e, t)
    assert e._nnz() == 0 and e.nnz() == 0
    assert repr(e).replace("ember", "torch") == repr(t)


@pytest.mark.parametrize("layout", ["sparse_csr", "sparse_csc"])
def test_batched_and_hybrid_as_torch(layout):
    a = np.arange(1, 2 * 3 * 4 + 1, dtype=np.float64).reshape(2, 3, 4)
    a[0, 1, :] = 0
    a[1, 1, :] = 0  # the same count per batch: batched compressed tensors need it
    e, t = convert(ember.from_numpy(a.copy()), layout, ember), convert(torch.from_numpy(a.copy()), layout, torch)
    same_members(e, t)
    assert e.to_sparse().sparse_dim() == 3
    np.testing.assert_array_equal(e.to_dense().numpy(), a)
    h = np.arange(24.0).reshape(3, 4, 2)
    h[1, 2] = 0
    eh = ember.from_numpy(h.copy()).to_sparse_csr(dense_dim=1) if layout == "sparse_csr" else \
        ember.from_numpy(h.copy()).to_sparse_csc(dense_dim=1)
    th = torch.from_numpy(h.copy()).to_sparse_csr(dense_dim=1) if layout == "sparse_csr" else \
        torch.from_numpy(h.copy()).to_sparse_csc(dense_dim=1)
    same_members(eh, th)
    assert eh.dense_dim() == th.dense_dim() == 1 and eh.sparse_dim() == 2
    np.testing.assert_array_equal(eh.to_dense().numpy(), h)


def test_unequal_batches_are_refused():
    a = np.arange(24.0).reshape(2, 3, 4)  # batch 0 holds a zero, batch 1 none
    with pytest.raises(ValueError, match="same number of specified elements in every batch"):
        ember.from_numpy(a).to_sparse_csr()


@pytest.mark.parametrize("index_dtype", ["int32", "int64"])
def test_constructors_infer_sizes_and_keep_index_dtypes(index_dtype):
    crow, col, val = [0, 2, 2, 3], [1, 4, 0], [1.0, 2.0, 3.0]
    kw = lambda lib: dict(dtype=getattr(lib, "float64"))  # noqa: E731
    mk = lambda lib, f, *s: f(lib.tensor(crow, dtype=getattr(lib, index_dtype)),  # noqa: E731
                              lib.tensor(col, dtype=getattr(lib, index_dtype)), lib.tensor(val), *s, **kw(lib))
    for fe, ft, size in ((ember.sparse_csr_tensor, torch.sparse_csr_tensor, (3, 6)),
                         (ember.sparse_csc_tensor, torch.sparse_csc_tensor, (6, 3))):
        same_members(mk(ember, fe), mk(torch, ft))
        same_members(mk(ember, fe, size), mk(torch, ft, size))
        assert repr(mk(ember, fe)).replace("ember", "torch") == repr(mk(torch, ft))
    e = ember.sparse_compressed_tensor(ember.tensor(crow), ember.tensor(col), ember.tensor(val), layout=ember.sparse_csr)
    t = torch.sparse_compressed_tensor(torch.tensor(crow), torch.tensor(col), torch.tensor(val), layout=torch.sparse_csr)
    same_members(e, t)
    # lists become int64 indices, as torch's do
    assert ember.sparse_csr_tensor(crow, col, val).crow_indices().dtype == ember.int64


def test_scipy_round_trip():
    a = dense(5, (40, 30), 0.1)
    m = scipy.sparse.csr_matrix(a)
    e = ember.sparse_csr_tensor(ember.from_numpy(m.indptr.astype(np.int64)), ember.from_numpy(m.indices.astype(np.int64)),
                                ember.from_numpy(m.data), m.shape)
    np.testing.assert_array_equal(e.to_dense().numpy(), a)
    back = scipy.sparse.csr_matrix((e.values().numpy(), e.col_indices().numpy(), e.crow_indices().numpy()), shape=e.shape)
    assert (back != m).nnz == 0
    c = e.to_sparse_csc()
    mc = m.tocsc()
    np.testing.assert_array_equal(c.ccol_indices().numpy(), mc.indptr)
    np.testing.assert_array_equal(c.row_indices().numpy(), mc.indices)
    np.testing.assert_array_equal(c.values().numpy(), mc.data)


def test_accessors_name_the_right_layout():
    r = ember.eye(3).to_sparse_csr()
    with pytest.raises(ValueError, match=r"ccol_indices\(\): expected a ember.sparse_csc tensor|expected a torch.sparse_csc"):
        r.ccol_indices()
    with pytest.raises(RuntimeError, match="crow_indices"):
        r.indices()
    with pytest.raises(ValueError, match="sparse_csr or sparse_csc"):
        ember.eye(3).crow_indices()
    assert r.sparse_dim() == 2 and r.dense_dim() == 0 and not r.is_sparse
    assert r.is_sparse_csr and not r.to_sparse_csc().is_sparse_csr


# Bad members: refused at construction (check_invariants or not) with the member named.
BAD = [
    (dict(crow=[1, 2, 3], col=[0, 1], val=[1.0, 2.0], size=(2, 2)), r"crow_indices\[\.\.\., 0\] == 0"),
    (dict(crow=[0, 1, 3], col=[0, 1], val=[1.0, 2.0], size=(2, 2)), r"crow_indices\[\.\.\., -1\] == nnz"),
    (dict(crow=[0, 2, 1, 2], col=[0, 1], val=[1.0, 2.0], size=(3, 2)), "non-decreasing crow_indices"),
    (dict(crow=[0, 1, 2], col=[0, 5], val=[1.0, 2.0], size=(2, 2)), r"col_indices\[1\] = 5 is out of bounds"),
    (dict(crow=[0, 1, 2], col=[0, -1], val=[1.0, 2.0], size=(2, 2)), "out of bounds"),
    (dict(crow=[0, 1, 2], col=[0, 1], val=[1.0, 2.0, 3.0], size=(2, 2)), "values with 2 entries"),
    (dict(crow=[0, 1, 2], col=[0, 1], val=[1.0, 2.0], size=(3, 2)), "crow_indices of 4 entries"),
    (dict(crow=[0, 1, 2], col=[0, 1], val=[1.0, 2.0], size=(2, 2, 2)), "size of 2 dims"),
]


@pytest.mark.parametrize("case,match", BAD)
def test_bad_members_are_refused_at_construction(case, match):
    for check in (False, True):
        with pytest.raises(ValueError, match=match):
            ember.sparse_csr_tensor(ember.tensor(case["crow"]), ember.tensor(case["col"]), ember.tensor(case["val"]),
                                    case["size"], check_invariants=check)
        # torch refuses them too when asked to check
        with pytest.raises(RuntimeError):
            torch.sparse_csr_tensor(torch.tensor(case["crow"]), torch.tensor(case["col"]), torch.tensor(case["val"]),
                                    case["size"], check_invariants=True)


def test_unsorted_columns_need_check_invariants_to_be_refused():
    args = lambda lib: (lib.tensor([0, 2]), lib.tensor([1, 0]), lib.tensor([1.0, 2.0]), (1, 2))  # noqa: E731
    e = ember.sparse_csr_tensor(*args(ember))  # accepted, as torch's is
    np.testing.assert_array_equal(e.to_dense().numpy(), torch.sparse_csr_tensor(*args(torch)).to_dense().numpy())
    with pytest.raises(ValueError, match="sorted and unique along each row"):
        ember.sparse_csr_tensor(*args(ember), check_invariants=True)
    with pytest.raises(RuntimeError):
        torch.sparse_csr_tensor(*args(torch), check_invariants=True)
    # a non-canonical tensor is made canonical before an op on its values
    np.testing.assert_array_equal(e.abs().to_dense().numpy(), [[2.0, 1.0]])
    dup = ember.sparse_csr_tensor(ember.tensor([0, 2]), ember.tensor([1, 1]), ember.tensor([1.0, -3.0]), (1, 2))
    np.testing.assert_array_equal(dup.abs().to_dense().numpy(), [[0.0, 2.0]])  # |1 + -3|, not 1 + 3


def test_index_dtypes_are_refused_clearly():
    with pytest.raises(TypeError, match="int32 or int64"):
        ember.sparse_csr_tensor(ember.tensor([0, 1], dtype=ember.int16), ember.tensor([0], dtype=ember.int16),
                                ember.tensor([1.0]))
    with pytest.raises(TypeError, match="the dtype of crow_indices"):
        ember._sparse_compressed_tensor_unsafe(ember.tensor([0, 1], dtype=ember.int32), ember.tensor([0]),
                                               ember.tensor([1.0]), [1, 1], ember.sparse_csr)


# Note [Sparse on values] on the compressed layouts: the same declared kernels.
@pytest.mark.parametrize("layout", ["sparse_csr", "sparse_csc"])
@pytest.mark.parametrize("name", ["abs", "neg", "sqrt", "sin", "tanh", "relu", "square", "sign", "isnan", "trunc"])
def test_zero_preserving_ops_keep_the_compressed_pattern(layout, name):
    a = dense(7)
    if name == "sqrt":
        a = np.abs(a)
    e = convert(ember.from_numpy(a.copy()), layout, ember)
    got = getattr(ember, name)(e)
    assert got.layout == e.layout
    np.testing.assert_array_equal(members(got)[0].numpy(), members(e)[0].numpy())
    want = getattr(torch, name)(torch.from_numpy(a.copy()))
    np.testing.assert_allclose(got.to_dense().numpy(), want.numpy(), rtol=1e-12)
    t = convert(torch.from_numpy(a.copy()), layout, torch)
    try:
        tw = getattr(torch, name)(t)
    except (RuntimeError, NotImplementedError):
        return  # torch has no kernel for this op on this layout; the dense result was checked
    same_members(got, tw)


@pytest.mark.parametrize("layout", ["sparse_csr", "sparse_csc"])
def test_in_place_and_dense_results(layout):
    a = dense(8)
    e = convert(ember.from_numpy(a.copy()), layout, ember)
    assert e.neg_() is e
    np.testing.assert_array_equal(e.to_dense().numpy(), -a)
    x = ember.exp(e)
    assert x.layout == ember.strided
    np.testing.assert_allclose(x.numpy(), np.exp(-a))


@pytest.mark.parametrize("layout", ["sparse_csr", "sparse_csc"])
def test_ops_without_a_kernel_name_the_layouts(layout):
    e = convert(ember.eye(3), layout, ember)
    with pytest.raises(NotImplementedError, match=r"cumsum\(\): not supported for sparse_csr and sparse_csc tensors"):
        ember.cumsum(e, 0)


def test_coalesce_through_coo():
    # coalesce has a COO kernel only: on CSR it runs through COO and comes back as CSR
    e = ember.sparse_csr_tensor(ember.tensor([0, 2]), ember.tensor([1, 1]), ember.tensor([1.0, -3.0]), (1, 2))
    c = e.coalesce()
    assert c.layout == ember.sparse_csr
    np.testing.assert_array_equal(c.col_indices().numpy(), [1])
    np.testing.assert_array_equal(c.values().numpy(), [-2.0])


# ember.save / ember.load: torch's format (torch._utils._rebuild_sparse_tensor), both ways.
@pytest.mark.parametrize("layout", LAYOUTS[1:])
def test_save_and_load_round_trip_with_torch(layout, tmp_path):
    a = dense(9, (6, 4))
    e = convert(ember.from_numpy(a.copy()), layout, ember)
    ember.save({"m": e, "n": 3}, tmp_path / "e.pt")
    t = torch.load(tmp_path / "e.pt", weights_only=True)
    same_members(e, t["m"])
    back = ember.load(tmp_path / "e.pt")
    same_members(back["m"], t["m"])
    torch.save(convert(torch.from_numpy(a.copy()), layout, torch), tmp_path / "t.pt")
    same_members(ember.load(tmp_path / "t.pt"), convert(torch.from_numpy(a.copy()), layout, torch))


def test_a_damaged_sparse_checkpoint_is_refused(tmp_path):
    # An index past the size, saved by torch's unchecked constructor: ember.load rebuilds
    # through the checked one (Note [Sparse invariants]), so the file cannot make a tensor
    # that reads out of bounds.
    bad = torch.sparse_coo_tensor(torch.tensor([[0, 5]]), torch.tensor([1.0, 2.0]), (4,), check_invariants=False)
    torch.save(bad, tmp_path / "bad.pt")
    with pytest.raises(Exception, match="out of bounds"):
        ember.load(tmp_path / "bad.pt")


@pytest.mark.parametrize("layout", LAYOUTS[1:])
def test_densify_fallback_runs_an_op_without_a_sparse_kernel_with_a_warning(layout):
    a = dense(10, (4, 3))
    e = convert(ember.from_numpy(a.copy()), layout, ember)
    with pytest.raises(NotImplementedError, match="cumsum"):
        ember.cumsum(e, 0)
    with pytest.warns(UserWarning, match=r"cumsum\(\): no sparse kernel; running it on the dense form"):
        with ember.sparse.densify_fallback():
            got = ember.cumsum(e, 0)
    assert got.layout == ember.strided
    np.testing.assert_allclose(got.numpy(), np.cumsum(a, 0))
    with ember.sparse.densify_fallback():
        with pytest.raises(NotImplementedError, match="writes its sparse argument"):
            e.clone().cumsum_(0)
    with pytest.raises(NotImplementedError):  # off again outside the context
        ember.cumsum(e, 0)

    @ember.sparse.densify_fallback()
    def flipped(x):
        return ember.flip(x, [0])
    with pytest.warns(UserWarning, match="flip"):
        np.testing.assert_array_equal(flipped(e).numpy(), a[::-1])


@pytest.mark.parametrize("fmt", ["coo", "csr", "csc", "bsr", "lil", "dok", "dia"])
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
def test_from_scipy_keeps_layout_entries_and_index_dtype(fmt, index_dtype):
    a = dense(11, (9, 8), 0.3)
    m = scipy.sparse.csr_array(a).asformat(fmt)
    if fmt in ("coo", "csr", "csc"):
        for name in ("indptr", "indices", "row", "col"):
            if hasattr(m, name):
                setattr(m, name, getattr(m, name).astype(index_dtype))
    e = ember.sparse.from_scipy(m)
    want = {"coo": ember.sparse_coo, "csc": ember.sparse_csc}.get(fmt, ember.sparse_csr)
    assert e.layout == want and tuple(e.shape) == (9, 8)
    np.testing.assert_array_equal(e.to_dense().numpy(), a)
    if fmt in ("csr", "csc"):
        compressed = e.crow_indices() if fmt == "csr" else e.ccol_indices()
        assert compressed.dtype == {np.int32: ember.int32, np.int64: ember.int64}[index_dtype]
        np.testing.assert_array_equal(compressed.numpy(), m.indptr)
    if fmt == "coo":
        assert e._indices().dtype == ember.int64


def test_from_scipy_keeps_coo_duplicates_and_converts_on_request():
    m = scipy.sparse.coo_array((np.array([1.0, 2.0, 3.0]), (np.array([0, 0, 2]), np.array([1, 1, 0]))), shape=(3, 2))
    e = ember.sparse.from_scipy(m)
    assert e._nnz() == 3 and not e.is_coalesced()
    np.testing.assert_array_equal(e.to_dense().numpy(), m.toarray())
    assert ember.sparse.from_scipy(m, layout=ember.sparse_csc).layout == ember.sparse_csc
    d = ember.sparse.from_scipy(m, layout=ember.strided, dtype=ember.float32)
    assert d.layout == ember.strided and d.dtype == ember.float32
    g = ember.sparse.from_scipy(m.tocsr(), requires_grad=True)
    (g * 2).sum().backward()
    assert g.grad.layout == ember.sparse_csr


@pytest.mark.parametrize("layout", ["strided", "coo", "csr", "csc"])
def test_to_scipy_gives_the_matching_array(layout):
    a = dense(12, (7, 10), 0.25)
    t = ember.from_numpy(a.copy())
    t = {"strided": lambda x: x, "coo": lambda x: x.to_sparse(), "csr": lambda x: x.to_sparse_csr(),
         "csc": lambda x: x.to_sparse_csc()}[layout](t)
    m = ember.sparse.to_scipy(t)
    assert m.format == {"strided": "csr", "coo": "coo", "csr": "csr", "csc": "csc"}[layout]
    np.testing.assert_array_equal(m.toarray(), a)
    for fmt in ("coo", "csr", "csc"):
        assert ember.sparse.to_scipy(t, format=fmt).format == fmt
    # a copy: writing scipy's data leaves the tensor as it was
    m.data[:] = 0
    np.testing.assert_array_equal(t.to_dense().numpy() if layout != "strided" else t.numpy(), a)
    # the round trip through scipy gives the same members as torch's own conversion
    # (scipy may narrow the indices to int32, so the index values are compared, not their dtype)
    if layout in ("csr", "csc"):
        back = ember.sparse.from_scipy(ember.sparse.to_scipy(t))
        want = convert(torch.from_numpy(a), "sparse_" + layout, torch)
        assert back.layout == t.layout
        for em, tm in zip(members(back), members(want)):
            np.testing.assert_array_equal(em.numpy(), tm.numpy())


def test_scipy_interop_refuses_what_has_no_form():
    with pytest.raises(TypeError, match=r"from_scipy\(\): expected a scipy.sparse matrix or array, but got ndarray"):
        ember.sparse.from_scipy(np.eye(3))
    with pytest.raises(ValueError, match=r"to_scipy\(\): scipy.sparse holds 2-D matrices, but got a 3-D"):
        ember.sparse.to_scipy(ember.ones(2, 3, 4).to_sparse())
    with pytest.raises(ValueError, match=r"to_scipy\(\): scipy.sparse has no dense dims"):
        ember.sparse.to_scipy(ember.ones(3, 4).to_sparse(1))
    with pytest.raises(ValueError, match=r"to_scipy\(\): expected format 'coo', 'csr' or 'csc', but got 'bsr'"):
        ember.sparse.to_scipy(ember.ones(3, 4).to_sparse(), format="bsr")
    with pytest.raises(TypeError, match=r"to_scipy\(\): scipy has no bfloat16"):
        ember.sparse.to_scipy(ember.ones(3, 4, dtype=ember.bfloat16).to_sparse())
