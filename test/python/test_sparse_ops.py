"""Sparse operators and their gradients on COO, CSR and CSC (issue 24) against torch 2.13:
each op's result against torch's on the same sparse input where torch has the kernel, and
against torch's op on the dense form where it does not (the sparse semantics: a sparse
result's dense form is the dense op's result). Gradients of sparse leaves against torch's
gradient of the dense form projected onto the leaf's pattern (Note [Sparse gradients]);
gradients of dense operands against torch's exactly. Random patterns with empty rows and
columns, float64, float32, int64 and complex128 values, empty tensors and bad inputs."""
import warnings

import numpy as np
import pytest
import scipy.sparse
import torch

import ember

warnings.filterwarnings("ignore", message="Sparse (invariant checks|CSR tensor support|CSC tensor support)")
LAYOUTS = ["coo", "csr", "csc"]


def arr(seed, shape=(6, 5), density=0.4, dtype="float64"):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(shape) * (rng.random(shape) < density)
    a[1] = 0  # an empty row
    if dtype == "int64":
        return np.round(a * 4).astype(np.int64)
    if dtype == "complex128":
        return (a + 1j * np.roll(a, 1, 0) * (a != 0)).astype(np.complex128)
    return a.astype(dtype)


def sp(x, layout):
    return {"coo": x.to_sparse, "csr": x.to_sparse_csr, "csc": x.to_sparse_csc}[layout]()


def dense_np(x):
    x = x.detach()
    return (x.to_dense() if x.layout not in (ember.strided, torch.strided) else x).numpy()


def close(e, t, rtol=1e-10):
    e, t = dense_np(e), dense_np(t)
    assert e.shape == t.shape, (e.shape, t.shape)
    np.testing.assert_allclose(e, t, rtol=rtol, atol=rtol, equal_nan=True)


LAYOUT_NAME = {"coo": "sparse_coo", "csr": "sparse_csr", "csc": "sparse_csc"}

# (name, ember call, torch call on the dense form, result layout: "sparse" or "strided")
A2 = arr(10)


def _d(lib):
    return lib.from_numpy(A2.copy())


OPS = [
    ("add_sparse", lambda s, lib: s + s * 2, "sparse"),
    ("sub_sparse", lambda s, lib: s - s * 3, "sparse"),
    ("mul_sparse", lambda s, lib: s * s, "sparse"),
    ("mul_dense", lambda s, lib: s * _d(lib), "sparse"),
    ("dense_mul", lambda s, lib: _d(lib) * s, "sparse"),
    ("mul_0d", lambda s, lib: s * lib.tensor(2.5, dtype=lib.float64), "sparse"),
    ("add_dense", lambda s, lib: s + _d(lib), "strided"),
    ("dense_add", lambda s, lib: _d(lib) + s, "strided"),
    ("add_broadcast", lambda s, lib: lib.ones(5, dtype=lib.float64) + s, "strided"),
    ("add_alpha", lambda s, lib: lib.add(s, s, alpha=-0.5), "sparse"),
    ("div_dense", lambda s, lib: s / lib.full((6, 5), 4.0, dtype=lib.float64), "sparse"),
    ("gt_scalar", lambda s, lib: s > 0.1, "sparse"),
    ("lt_scalar", lambda s, lib: s < 0.1, "strided"),
    ("eq_tensor", lambda s, lib: lib.eq(s, _d(lib)), "strided"),
    ("pow2", lambda s, lib: s.pow(2), "sparse"),
    ("pow0", lambda s, lib: s.pow(0), "strided"),
    ("clamp", lambda s, lib: s.clamp(-0.5, 0.5), "sparse"),
    ("add_scalar", lambda s, lib: s + 1, "strided"),
    ("where", lambda s, lib: lib.where(_d(lib) > 0, s, lib.zeros((), dtype=lib.float64)), "strided"),
    ("masked_fill", lambda s, lib: s.masked_fill(_d(lib) > 0.5, 9.0), "strided"),
    ("sum", lambda s, lib: s.sum(), "strided"),
    ("sum0", lambda s, lib: s.sum(0), None),
    ("sum1_keepdim", lambda s, lib: s.sum(1, keepdim=True), None),
    ("sum01", lambda s, lib: s.sum((0, 1)), "strided"),
    ("mean", lambda s, lib: s.mean(), "strided"),
    ("mean1", lambda s, lib: s.mean(1), None),
    ("amax1", lambda s, lib: lib.amax(s, 1), "strided"),
    ("amin", lambda s, lib: lib.amin(s), "strided"),
    ("prod0", lambda s, lib: s.prod(0), "strided"),
    ("any1", lambda s, lib: s.any(1), "strided"),
    ("t", lambda s, lib: s.t(), "sparse"),
    ("transpose", lambda s, lib: s.transpose(0, 1), "sparse"),
    ("permute", lambda s, lib: s.permute(1, 0), "sparse"),
    ("reshape", lambda s, lib: s.reshape(5, 6), "sparse"),
    ("view_flat", lambda s, lib: s.view(-1), "sparse"),
    ("narrow", lambda s, lib: s.narrow(1, 1, 3), "sparse"),
    ("slice_step", lambda s, lib: s[1:6:2], "sparse"),
    ("slice_cols", lambda s, lib: s[:, ::2], "sparse"),
    ("select_row", lambda s, lib: s[2], "sparse"),
    ("select_col", lambda s, lib: s[:, 3], "sparse"),
    ("index_select", lambda s, lib: s.index_select(1, lib.tensor([4, 0, 4, 2])), "sparse"),
    ("cat0", lambda s, lib: lib.cat([s, s * 2], 0), "sparse"),
    ("cat1", lambda s, lib: lib.cat([s, s], 1), "sparse"),
    ("stack", lambda s, lib: lib.stack([s, s]), "sparse"),
    ("clone", lambda s, lib: s.clone(), "sparse"),
    ("to_float32", lambda s, lib: s.to(lib.float32), "sparse"),
    ("abs", lambda s, lib: s.abs(), "sparse"),
    ("exp", lambda s, lib: s.exp(), "strided"),
]


def _dense_call(fn, lib, x):
    """fn on a strided tensor, as a reference."""
    return fn(x, lib)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("name,fn,kind", OPS, ids=[o[0] for o in OPS])
def test_op_matches_the_dense_op(layout, name, fn, kind):
    e = sp(ember.from_numpy(A2.copy()), layout)
    got = fn(e, ember)
    want = _dense_call(fn, torch, torch.from_numpy(A2.copy()))
    if kind == "sparse":
        assert got.layout != ember.strided, got.layout
    elif kind == "strided":
        assert got.layout == ember.strided, got.layout
    assert str(got.dtype).split(".")[1] == str(want.dtype).split(".")[1], (got.dtype, want.dtype)
    close(got, want)


@pytest.mark.parametrize("layout", ["coo", "csr"])
@pytest.mark.parametrize("name,fn,kind", OPS, ids=[o[0] for o in OPS])
def test_layout_matches_torch_where_torch_has_the_kernel(layout, name, fn, kind):
    e = sp(ember.from_numpy(A2.copy()), layout)
    t = sp(torch.from_numpy(A2.copy()), layout)
    try:
        want = fn(t, torch)
    except (RuntimeError, NotImplementedError, TypeError):
        pytest.skip("torch has no kernel for this op on this layout")
    got = fn(e, ember)
    assert str(got.layout).split(".")[1] == str(want.layout).split(".")[1] or \
        (got.layout != ember.strided and want.layout != torch.strided), (got.layout, want.layout)
    close(got, want)


def test_transposing_a_compressed_tensor_flips_its_layout_as_torch():
    r = sp(ember.from_numpy(A2.copy()), "csr")
    c = r.t()
    assert c.layout == ember.sparse_csc and c.ccol_indices() is not None
    np.testing.assert_array_equal(c.ccol_indices().numpy(), r.crow_indices().numpy())
    assert c.t().layout == ember.sparse_csr
    # a select of a compressed row gives a 1-D COO tensor, as torch's
    assert r[2].layout == ember.sparse_coo


# ---- products ----

@pytest.mark.parametrize("dtype", ["float64", "float32", "int64", "complex128"])
@pytest.mark.parametrize("layout", LAYOUTS)
def test_products_against_torch_and_scipy(layout, dtype):
    a, b = arr(1, (9, 7), dtype=dtype), arr(2, (7, 4), 1.0, dtype=dtype)
    e = sp(ember.from_numpy(a.copy()), layout)
    eb = ember.from_numpy(b.copy())
    rtol = 1e-5 if dtype == "float32" else 1e-12
    want = a @ b
    close(e @ eb, torch.from_numpy(want), rtol)
    close(ember.mm(e, eb), torch.from_numpy(want), rtol)
    close(ember.spmm(e, eb), torch.from_numpy(want), rtol)
    close(ember.sparse.mm(e, eb), torch.from_numpy(want), rtol)
    close(ember.matmul(e, eb), torch.from_numpy(want), rtol)
    # dense @ sparse
    c = arr(3, (3, 9), 1.0, dtype=dtype)
    close(ember.from_numpy(c.copy()) @ e, torch.from_numpy(c @ a), rtol)
    # sparse @ sparse (SpGEMM), against scipy; the result is sparse
    s2 = sp(ember.from_numpy(arr(4, (7, 6), dtype=dtype)), layout)
    got = e @ s2
    assert got.layout != ember.strided
    ref = (scipy.sparse.csr_matrix(a) @ scipy.sparse.csr_matrix(arr(4, (7, 6), dtype=dtype))).toarray()
    np.testing.assert_allclose(dense_np(got), ref, rtol=rtol, atol=rtol)
    if dtype == "float64":
        t = sp(torch.from_numpy(a.copy()), layout)
        try:
            tr = t @ sp(torch.from_numpy(arr(4, (7, 6))), layout)
        except RuntimeError:
            return
        assert str(got.layout).split(".")[1] == str(tr.layout).split(".")[1]


@pytest.mark.parametrize("layout", LAYOUTS)
def test_addmm_bmm_sampled_addmm_sparse_mask(layout):
    a, b = arr(5, (6, 5)), arr(6, (5, 3), 1.0)
    e, eb = sp(ember.from_numpy(a.copy()), layout), ember.from_numpy(b.copy())
    m = np.linspace(0, 1, 18).reshape(6, 3)
    close(ember.addmm(ember.from_numpy(m.copy()), e, eb, beta=0.5, alpha=2.0), torch.from_numpy(0.5 * m + 2 * a @ b))
    close(ember.addmm(ember.from_numpy(m[0].copy()), e, eb), torch.from_numpy(m[0] + a @ b))  # broadcast self
    close(ember.sparse.addmm(ember.from_numpy(m.copy()), e, eb, beta=0.0), torch.from_numpy(a @ b))
    # sparse_mask: the dense self at the mask's entries, in the mask's layout
    d = np.arange(30.0).reshape(6, 5)
    got = ember.from_numpy(d.copy()).sparse_mask(e)
    assert got.layout == e.layout
    close(got, torch.from_numpy(d * (a != 0)))
    # bmm of a batched COO against torch
    batch = np.stack([a, arr(7, (6, 5))])
    eb3 = ember.from_numpy(batch.copy()).to_sparse()
    rhs = np.stack([b, b * 2])
    close(ember.bmm(eb3, ember.from_numpy(rhs.copy())), torch.bmm(torch.from_numpy(batch).to_sparse(), torch.from_numpy(rhs)))
    lhs = np.stack([arr(16, (3, 6), 1.0), arr(17, (3, 6), 1.0)])  # [2, 3, 6] @ [2, 6, 5]
    close(ember.bmm(ember.from_numpy(lhs.copy()), eb3), torch.from_numpy(lhs @ batch))
    close(ember.bmm(eb3, eb3.transpose(1, 2)), torch.from_numpy(batch @ batch.transpose(0, 2, 1)))
    if layout == "csr":
        x1, x2 = arr(8, (6, 4), 1.0), arr(9, (4, 5), 1.0)
        got = ember.sparse.sampled_addmm(e, ember.from_numpy(x1.copy()), ember.from_numpy(x2.copy()), beta=0.5, alpha=2.0)
        want = torch.sparse.sampled_addmm(sp(torch.from_numpy(a.copy()), "csr"), torch.from_numpy(x1),
                                          torch.from_numpy(x2), beta=0.5, alpha=2.0)
        assert got.layout == ember.sparse_csr
        close(got, want)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_empty_operands(layout):
    z = sp(ember.zeros(4, 3, dtype=ember.float64), layout)
    close(z @ ember.ones(3, 2, dtype=ember.float64), torch.zeros(4, 2, dtype=torch.float64))
    close(z @ z.t(), torch.zeros(4, 4, dtype=torch.float64))
    close(z + z, torch.zeros(4, 3, dtype=torch.float64))
    close(z.sum(0), torch.zeros(3, dtype=torch.float64))
    e0 = sp(ember.zeros(0, 3, dtype=ember.float64), layout)
    close(e0 @ ember.ones(3, 2, dtype=ember.float64), torch.zeros(0, 2, dtype=torch.float64))


def test_softmax_over_the_specified_entries_as_torch():
    a = arr(11, (5, 6))
    for dim in (0, 1, -1):
        for name in ("softmax", "log_softmax"):
            t = getattr(torch.sparse, name)(torch.from_numpy(a.copy()).to_sparse(), dim)
            for layout in LAYOUTS:
                got = getattr(ember.sparse, name)(sp(ember.from_numpy(a.copy()), layout), dim)
                assert got.layout == getattr(ember, LAYOUT_NAME[layout])
                np.testing.assert_allclose(dense_np(got), t.to_dense().numpy(), rtol=1e-12)
    assert float(ember.sparse.sum(sp(ember.from_numpy(a.copy()), "csr"))) == pytest.approx(a.sum())


# ---- bad inputs ----

@pytest.mark.parametrize("layout", LAYOUTS)
def test_bad_inputs_name_the_op(layout):
    e = sp(ember.from_numpy(A2.copy()), layout)
    with pytest.raises(ValueError, match=r"mm\(\): self and mat2 shapes cannot be multiplied \(6x5 and 4x2\)"):
        e @ ember.ones(4, 2, dtype=ember.float64)
    with pytest.raises(TypeError, match="one dtype"):
        e @ ember.ones(5, 2, dtype=ember.float32)
    with pytest.raises(ValueError, match="sparse operands of one size"):
        e + sp(ember.zeros(5, 6, dtype=ember.float64), layout)
    with pytest.raises(ValueError, match="does not broadcast to the sparse operand"):
        e * ember.ones(3, 6, 5, dtype=ember.float64)
    with pytest.raises(IndexError, match="out of bounds"):
        e.index_select(0, ember.tensor([0, 6]))
    with pytest.raises(IndexError, match="out of range"):
        e.select(0, 6)
    with pytest.raises(ValueError, match="at most one -1"):
        e.reshape(-1, -1)


def test_permute_keeps_sparse_and_dense_dims_apart():
    h = ember.arange(24.0).reshape(2, 3, 4).to_sparse(2)  # hybrid: 2 sparse dims, 1 dense
    close(h.permute(1, 0, 2), torch.arange(24.0).reshape(2, 3, 4).permute(1, 0, 2))
    with pytest.raises(ValueError, match="permuted among themselves"):
        h.permute(2, 0, 1)
    with pytest.raises(ValueError, match="sparse dim with a dense one"):
        h.transpose(0, 2)


# ---- gradients (Note [Sparse gradients]) ----

W = np.linspace(-1, 1, 15).reshape(5, 3)
GRAD_CASES = [
    ("mm", lambda s, lib: (s @ lib.from_numpy(W.copy())).pow(2).sum()),
    ("dense_mm", lambda s, lib: (lib.from_numpy(W.T.copy()).t().t() @ s.t()).sum() if False else
     (lib.ones(2, 6, dtype=lib.float64) @ s).pow(2).sum()),
    ("t_mm", lambda s, lib: (s.t() @ lib.ones(6, 2, dtype=lib.float64)).pow(2).sum()),
    ("abs_to_dense", lambda s, lib: (s.abs().to_dense() * lib.arange(30, dtype=lib.float64).reshape(6, 5)).sum()),
    ("mul_dense", lambda s, lib: (s * lib.arange(30, dtype=lib.float64).reshape(6, 5)).to_dense().pow(2).sum()),
    ("add_self", lambda s, lib: ((s + s * 3) * lib.arange(30, dtype=lib.float64).reshape(6, 5)).to_dense().sum()),
    ("sum", lambda s, lib: s.sum() * 3),
    ("sum1", lambda s, lib: s.sum(1).to_dense().pow(2).sum() if s.layout != lib.strided else s.sum(1).pow(2).sum()),
    ("square_sum", lambda s, lib: (s * s).to_dense().sum()),
]


def _torch_reference(fn, a, dense_fn_layout):
    """torch's gradient of fn on the dense form of a, projected onto a's pattern."""
    x = torch.from_numpy(a.copy()).requires_grad_(True)
    fn(x, torch).backward()
    return x.grad.numpy() * (a != 0)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("name,fn", GRAD_CASES, ids=[c[0] for c in GRAD_CASES])
def test_a_sparse_leaf_gets_a_sparse_gradient_on_its_pattern(layout, name, fn):
    a = arr(12)
    s = sp(ember.from_numpy(a.copy()), layout).requires_grad_(True)
    loss = fn(s, ember)
    loss.backward()
    assert s.grad is not None and s.grad.layout == s.layout, (s.grad.layout if s.grad is not None else None)
    np.testing.assert_allclose(dense_np(s.grad), _torch_reference(fn, a, layout), rtol=1e-10, atol=1e-12)
    # its pattern is the leaf's: no entry outside it
    assert s.grad._nnz() == s._nnz()


@pytest.mark.parametrize("layout", LAYOUTS)
def test_dense_operands_get_torchs_gradients(layout):
    # A graph-convolution step: a constant sparse adjacency times dense weights.
    a = arr(13)
    for lib in (ember, torch):
        adj = sp(lib.from_numpy(a.copy()), layout if lib is ember else "coo")
        x = lib.from_numpy(np.linspace(0, 1, 10).reshape(5, 2)).requires_grad_(True)
        w = lib.from_numpy(np.array([[1.0, -2.0], [0.5, 3.0]])).requires_grad_(True)
        lib.relu(adj @ (x @ w)).sum().backward()
        if lib is ember:
            ex, ew = x.grad.numpy(), w.grad.numpy()
        else:
            np.testing.assert_allclose(ex, x.grad.numpy(), rtol=1e-12)
            np.testing.assert_allclose(ew, w.grad.numpy(), rtol=1e-12)


def test_values_through_the_constructor_get_gradients():
    idx = ember.tensor([[0, 1, 1], [2, 0, 2]])
    v = ember.tensor([1.0, 2.0, 3.0], dtype=ember.float64, requires_grad=True)
    s = ember.sparse_coo_tensor(idx, v, (2, 3))
    (s @ ember.tensor([[1.0], [2.0], [3.0]], dtype=ember.float64)).sum().backward()
    np.testing.assert_array_equal(v.grad.numpy(), [3.0, 1.0, 3.0])
    vc = ember.tensor([1.0, 2.0], dtype=ember.float64, requires_grad=True)
    c = ember.sparse_csr_tensor(ember.tensor([0, 1, 2]), ember.tensor([1, 0]), vc, (2, 2))
    (c.to_dense() * ember.tensor([[1.0, 5.0], [7.0, 1.0]], dtype=ember.float64)).sum().backward()
    np.testing.assert_array_equal(vc.grad.numpy(), [5.0, 7.0])


@pytest.mark.parametrize("layout", LAYOUTS)
def test_softmax_gradient_against_torch(layout):
    a = arr(14, (4, 5), 0.6)
    t = torch.from_numpy(a.copy()).to_sparse().requires_grad_(True)
    wt = torch.arange(20, dtype=torch.float64).reshape(4, 5)
    (torch.sparse.softmax(t, 1).to_dense() * wt).sum().backward()
    s = sp(ember.from_numpy(a.copy()), layout).requires_grad_(True)
    (ember.sparse.softmax(s, 1).to_dense() * ember.arange(20, dtype=ember.float64).reshape(4, 5)).sum().backward()
    np.testing.assert_allclose(dense_np(s.grad), t.grad.to_dense().numpy(), rtol=1e-10, atol=1e-12)


def test_gradcheck_masked_on_sparse_inputs():
    a = arr(15, (4, 3))
    for layout in LAYOUTS:
        s = sp(ember.from_numpy(a.copy()), layout).requires_grad_(True)
        w = ember.from_numpy(np.linspace(-1, 1, 6).reshape(3, 2)).requires_grad_(True)
        assert ember.autograd.gradcheck(lambda s, w: ember.mm(s, w).tanh(), (s, w), masked=True)


DIFFERENTIABLE = [o for o in OPS if o[0] not in ("gt_scalar", "lt_scalar", "eq_tensor", "any1")]


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("name,fn,kind", DIFFERENTIABLE, ids=[o[0] for o in DIFFERENTIABLE])
def test_every_op_gradient_against_the_dense_gradient_on_the_pattern(layout, name, fn, kind):
    """d/d(entries of a sparse leaf) of sum(op(leaf) * w): torch's gradient of the same op on
    the dense form, at the leaf's entries (Note [Sparse gradients])."""
    e = sp(ember.from_numpy(A2.copy()), layout).requires_grad_(True)
    x = torch.from_numpy(A2.copy()).requires_grad_(True)
    tr = fn(x, torch)
    w = np.linspace(-1.0, 2.0, max(tr.numel(), 1)).reshape(tuple(tr.shape))
    (tr.to(torch.float64) * torch.from_numpy(w)).sum().backward()
    er = fn(e, ember)
    er = er.to_dense() if er.layout != ember.strided else er
    (er.to(ember.float64) * ember.from_numpy(w.copy())).sum().backward()
    assert e.grad is not None and e.grad.layout == e.layout
    np.testing.assert_allclose(dense_np(e.grad), x.grad.numpy() * (A2 != 0), rtol=1e-10, atol=1e-12)


def batched(layout, seed=30, dtype="float64"):
    """A [2, 6, 5] array whose two batches have the same number of entries (a batched CSR's rule)."""
    a = arr(seed, (6, 5), 0.5, dtype)
    b = np.zeros_like(a)
    flat = np.flatnonzero(a)
    rng = np.random.default_rng(seed)
    b.flat[rng.choice(a.size, flat.size, replace=False)] = a.flat[flat][::-1]
    x = np.stack([a, b])
    e = ember.from_numpy(x.copy())
    return x, (e.to_sparse_csr() if layout == "csr" else e.to_sparse_csc())


@pytest.mark.parametrize("layout", ["csr", "csc"])
@pytest.mark.parametrize("dtype", ["float64", "float32", "int64", "complex128"])
def test_bmm_with_batched_compressed_operands(layout, dtype):
    # torch 2.13 has no CPU kernel for bmm with a batched CSR or CSC: the reference is numpy.
    x, s = batched(layout, dtype=dtype)
    assert s.layout == LAYOUT_NAME_E[layout] and s.dim() == 3
    rhs = arr(31, (2, 5, 4), 1.0, dtype)
    lhs = arr(32, (2, 3, 6), 1.0, dtype)
    rtol = 1e-5 if dtype == "float32" else 1e-12
    got = ember.bmm(s, ember.from_numpy(rhs.copy()))
    assert got.layout == ember.strided
    np.testing.assert_allclose(got.numpy(), x @ rhs, rtol=rtol, atol=rtol)
    np.testing.assert_allclose(ember.bmm(ember.from_numpy(lhs.copy()), s).numpy(), lhs @ x, rtol=rtol, atol=rtol)
    # a non-contiguous dense operand
    rt = ember.from_numpy(np.ascontiguousarray(rhs.transpose(0, 2, 1))).transpose(1, 2)
    np.testing.assert_allclose(ember.bmm(s, rt).numpy(), x @ rhs, rtol=rtol, atol=rtol)
    # sparse @ sparse: the product in self's layout. A diagonal right operand keeps self's
    # pattern, so both batches of the product have one count, as a batched CSR must.
    diag = np.stack([np.diag(np.arange(1, 6)), np.diag(np.arange(2, 7))]).astype(x.dtype)
    ss = ember.bmm(s, ember.from_numpy(diag.copy()).to_sparse())
    assert ss.layout == s.layout
    np.testing.assert_allclose(ss.to_dense().numpy(), x @ diag, rtol=rtol, atol=rtol)
    with pytest.raises(ValueError, match=r"bmm\(\): expected the same number of specified elements in every batch"):
        ember.bmm(s, ember.from_numpy(np.ascontiguousarray(x.transpose(0, 2, 1))).to_sparse())


LAYOUT_NAME_E = {"csr": ember.sparse_csr, "csc": ember.sparse_csc}


@pytest.mark.parametrize("layout", ["csr", "csc"])
def test_bmm_gradients_with_a_batched_compressed_operand(layout):
    x, s = batched(layout)
    s.requires_grad_(True)
    rhs = arr(33, (2, 5, 4), 1.0)
    w = arr(34, (2, 6, 4), 1.0)
    d = ember.from_numpy(rhs.copy()).requires_grad_(True)
    (ember.bmm(s, d) * ember.from_numpy(w.copy())).sum().backward()
    tx = torch.from_numpy(x.copy()).requires_grad_(True)
    td = torch.from_numpy(rhs.copy()).requires_grad_(True)
    (torch.bmm(tx, td) * torch.from_numpy(w)).sum().backward()
    assert s.grad.layout == s.layout
    np.testing.assert_allclose(s.grad.to_dense().numpy(), tx.grad.numpy() * (x != 0), rtol=1e-12)
    np.testing.assert_allclose(d.grad.numpy(), td.grad.numpy(), rtol=1e-12)


def test_bmm_refuses_bad_batched_operands():
    _, s = batched("csr")
    with pytest.raises(ValueError, match=r"bmm\(\): expected mat2 of \[2, 5, p\], but got \[2, 4, 3\]"):
        ember.bmm(s, ember.ones(2, 4, 3, dtype=ember.float64))
    with pytest.raises(TypeError, match=r"bmm\(\): expected self and mat2 of one dtype"):
        ember.bmm(s, ember.ones(2, 5, 3))
    with pytest.raises(ValueError, match=r"bmm\(\): expected 3-D self and mat2"):
        ember.bmm(s, ember.ones(5, 3, dtype=ember.float64))
    hybrid = ember.ones(3, 4, 2, dtype=ember.float64).to_sparse_csr(dense_dim=1)
    with pytest.raises(NotImplementedError, match=r"bmm\(\): expected a torch.sparse_csr operand with 1 batch dim and no "
                                                  r"dense dims, but got 0 batch and 1 dense dims"):
        ember.bmm(hybrid, ember.ones(3, 2, 5, dtype=ember.float64))


@pytest.mark.parametrize("dtype", ["float64", "float32", "int64", "complex128"])
@pytest.mark.parametrize("layout", ["csr", "csc"])
def test_line_sums_of_long_rows(dtype, layout):
    # Rows of 0 to 79 entries: the vector loop, its odd register and every tail length.
    rng = np.random.default_rng(40)
    a = np.zeros((80, 97), dtype=dtype)
    for i in range(80):
        cols = rng.choice(97, i, replace=False)
        a[i, cols] = rng.standard_normal(i) * 8 if dtype != "int64" else rng.integers(-9, 9, i)
    x = a if layout == "csr" else np.ascontiguousarray(a.T)
    dim = 1 if layout == "csr" else 0
    e = sp(ember.from_numpy(x.copy()), layout)
    got = e.sum(dim=dim, keepdim=True)
    assert got.layout == e.layout
    rtol = 1e-5 if dtype == "float32" else 1e-12
    np.testing.assert_allclose(got.to_dense().numpy(), x.sum(axis=dim, keepdims=True), rtol=rtol, atol=rtol)
    np.testing.assert_allclose(e.sum(dim=dim).to_dense().numpy(), x.sum(axis=dim), rtol=rtol, atol=rtol)
    if dtype != "complex128":
        t = sp(torch.from_numpy(x.copy()), layout)
        if layout == "csr":
            close(got, t.sum(dim=dim, keepdim=True), rtol)
