"""The LAPACK ops (aten/native/linalg/lapack.cpp, linalg_composites.cpp) and their derivatives
(aten/autograd/LinalgBackward.cpp) against PyTorch: values, gradients, batching and
broadcasting, non-contiguous and empty inputs, and bad inputs.

Factorizations are unique only up to signs (qr, eigh, svd), so those compare
reconstructions and the gradients of losses that do not depend on the signs.
"""
from __future__ import annotations

import numpy as np
import pytest
import torch

import ember

DTYPES = ("float32", "float64")
TOL = {"float32": dict(rtol=2e-4, atol=2e-4), "float64": dict(rtol=1e-8, atol=1e-8)}


def rand(shape, seed=0, dtype="float64"):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def well_conditioned(shape, seed=0, dtype="float64"):
    """Random square matrices plus n on the diagonal (far from singular)."""
    a = rand(shape, seed, "float64")
    n = shape[-1]
    return (a + n * np.eye(n)).astype(dtype)


def spd(shape, seed=0, dtype="float64"):
    """Symmetric positive-definite matrices M M^T + n I."""
    m = rand(shape, seed, "float64")
    n = shape[-1]
    return (m @ np.swapaxes(m, -1, -2) + n * np.eye(n)).astype(dtype)


def symmetric(shape, seed=0, dtype="float64"):
    """Symmetric matrices with well-separated eigenvalues."""
    m = rand(shape, seed, "float64")
    n = shape[-1]
    return ((m + np.swapaxes(m, -1, -2)) / 2 + np.diag(np.arange(n) * 3.0)).astype(dtype)


def both(a, grad=False, transposed=False):
    """(ember, torch) tensors of a numpy array; transposed: non-contiguous views of the same values."""
    if transposed:
        base = np.ascontiguousarray(np.swapaxes(a, -1, -2))
        e = ember.from_numpy(base.copy()).transpose(-2, -1)
        t = torch.from_numpy(base.copy()).transpose(-2, -1)
    else:
        e, t = ember.from_numpy(a.copy()), torch.from_numpy(a.copy())
    if grad:
        e.requires_grad_(True)
        t.requires_grad_(True)
    return e, t


def np_of(x):
    return x.detach().numpy() if isinstance(x, torch.Tensor) else x.detach().numpy()


def close(e, t, dtype="float64", **kw):
    tol = dict(TOL[dtype], **kw)
    assert tuple(e.shape) == tuple(t.shape), (tuple(e.shape), tuple(t.shape))
    np.testing.assert_allclose(np_of(e), np_of(t), **tol)


def grads_match(e_inputs, t_inputs, e_out, t_out, dtype="float64", seed=7, symmetrize=False, **kw):
    """Backward of sum(out * w) for fixed random w; compares the inputs' gradients (their
    symmetric parts when symmetrize: the gradients along symmetric directions)."""
    e_outs = e_out if isinstance(e_out, (tuple, list)) else (e_out,)
    t_outs = t_out if isinstance(t_out, (tuple, list)) else (t_out,)
    e_loss, t_loss = 0, 0
    for i, (eo, to) in enumerate(zip(e_outs, t_outs)):
        if eo is None:
            continue
        w = rand(tuple(to.shape), seed + i, dtype)
        e_loss = e_loss + (eo * ember.from_numpy(w)).sum()
        t_loss = t_loss + (to * torch.from_numpy(w)).sum()
    e_loss.backward()
    t_loss.backward()
    for ei, ti in zip(e_inputs, t_inputs):
        if symmetrize:
            e_sym, t_sym = [(g + np.swapaxes(g, -1, -2)) / 2 for g in (np_of(ei.grad), np_of(ti.grad))]
            np.testing.assert_allclose(e_sym, t_sym, **dict(TOL[dtype], **kw))
        else:
            close(ei.grad, ti.grad, dtype, **kw)


# ---- solve ---------------------------------------------------------------------------------

SOLVE_SHAPES = [((3, 3), (3,)), ((3, 3), (3, 2)), ((2, 3, 3), (3,)), ((2, 3, 3), (2, 3)),
                ((2, 3, 3), (2, 3, 4)), ((2, 1, 3, 3), (4, 3, 2)), ((3, 3), (2, 3, 2)),
                ((1, 1), (1,)), ((0, 3, 3), (0, 3, 2)), ((0, 0), (0, 2)), ((2, 0, 0), (2, 0))]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shapes", SOLVE_SHAPES, ids=str)
def test_solve(dtype, shapes):
    sa, sb = shapes
    ea, ta = both(well_conditioned(sa, 1, dtype), grad=True)
    eb, tb = both(rand(sb, 2, dtype), grad=True)
    ex, tx = ember.linalg.solve(ea, eb), torch.linalg.solve(ta, tb)
    close(ex, tx, dtype)
    if tx.numel():
        grads_match((ea, eb), (ta, tb), ex, tx, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_solve_left_false_and_noncontiguous(dtype):
    ea, ta = both(well_conditioned((2, 3, 3), 1, dtype), grad=True, transposed=True)
    eb, tb = both(rand((2, 4, 3), 2, dtype), grad=True, transposed=False)
    ex, tx = ember.linalg.solve(ea, eb, left=False), torch.linalg.solve(ta, tb, left=False)
    close(ex, tx, dtype)
    grads_match((ea, eb), (ta, tb), ex, tx, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("upper", [True, False])
@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("unitriangular", [True, False])
def test_solve_triangular(dtype, upper, left, unitriangular):
    ea, ta = both(well_conditioned((2, 3, 3), 3, dtype), grad=True)
    eb, tb = both(rand((3, 2) if left else (2, 3), 4, dtype), grad=True)
    kw = dict(upper=upper, left=left, unitriangular=unitriangular)
    ex, tx = ember.linalg.solve_triangular(ea, eb, **kw), torch.linalg.solve_triangular(ta, tb, **kw)
    close(ex, tx, dtype)
    grads_match((ea, eb), (ta, tb), ex, tx, dtype)


def test_solve_triangular_empty():
    ea, ta = both(well_conditioned((0, 3, 3)))
    eb, tb = both(rand((0, 3, 2)))
    close(ember.linalg.solve_triangular(ea, eb, upper=True), torch.linalg.solve_triangular(ta, tb, upper=True))


# ---- determinants and inverse --------------------------------------------------------------

DET_SHAPES = [(3, 3), (2, 4, 4), (2, 1, 3, 3), (1, 1), (0, 0), (0, 3, 3), (2, 0, 0)]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", DET_SHAPES, ids=str)
@pytest.mark.parametrize("op", ["det", "slogdet", "inv", "logdet"])
def test_det_family(dtype, shape, op):
    a = rand(shape, 5, dtype)
    if op in ("inv", "logdet"):
        a = well_conditioned(shape, 5, dtype)
    ea, ta = both(a, grad=True)
    if op == "logdet":
        ex, tx = ember.logdet(ea), torch.logdet(ta)
    else:
        ex, tx = getattr(ember.linalg, op)(ea), getattr(torch.linalg, op)(ta)
    if op == "slogdet":
        close(ex[0], tx[0], dtype)
        close(ex[1], tx[1], dtype)
        ex, tx = (None, ex[1]), (tx[0], tx[1])
    else:
        close(ex, tx, dtype)
    if ta.numel():
        grads_match((ea,), (ta,), ex, tx, dtype, rtol=1e-3 if dtype == "float32" else 1e-7)


def test_det_singular_and_negative():
    # A rank-deficient matrix: det 0, slogdet (0, -inf), and det's gradient (the cofactors).
    a = np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]])
    ea, ta = both(a, grad=True)
    close(ember.linalg.det(ea), torch.linalg.det(ta))
    # PyTorch's LU leaves rounding noise where Ember's hits an exact zero: sign 0, -inf.
    es = ember.linalg.slogdet(ea)
    assert es[0].item() == 0 and np.isneginf(es[1].detach().numpy())
    # det's gradient there is the cofactor matrix (rank one, not zero). PyTorch's follows its
    # LU's rounding (zeros where a pivot comes out exactly 0, noise elsewhere), so the reference
    # is the cofactors themselves.
    ember.linalg.det(ea).backward()
    cofactors = np.array([[4.0, 4.0, -4.0], [-2.0, -2.0, 2.0], [0.0, 0.0, 0.0]])
    np.testing.assert_allclose(ea.grad.numpy(), cofactors, rtol=1e-10, atol=1e-12)
    # A negative determinant: logdet is nan, slogdet's sign -1.
    b = np.diag([-1.0, 2.0, 3.0])
    eb, tb = both(b)
    assert np.isnan(ember.logdet(eb).numpy())
    close(ember.linalg.slogdet(eb)[0], torch.linalg.slogdet(tb)[0])


# ---- cholesky --------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(3, 3), (2, 4, 4), (1, 1), (0, 0), (0, 3, 3)], ids=str)
@pytest.mark.parametrize("upper", [False, True])
def test_cholesky(dtype, shape, upper):
    ea, ta = both(spd(shape, 6, dtype), grad=True, transposed=len(shape) == 3)
    ex, tx = ember.linalg.cholesky(ea, upper=upper), torch.linalg.cholesky(ta, upper=upper)
    close(ex, tx, dtype)
    if tx.numel():
        grads_match((ea,), (ta,), ex, tx, dtype, rtol=1e-3 if dtype == "float32" else 1e-7)


# ---- qr --------------------------------------------------------------------------------------

QR_SHAPES = [(4, 3), (3, 4), (3, 3), (2, 5, 3), (2, 3, 5), (1, 1), (0, 3), (3, 0), (0, 4, 3)]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", QR_SHAPES, ids=str)
@pytest.mark.parametrize("mode", ["reduced", "complete", "r"])
def test_qr_values(dtype, shape, mode):
    ea, ta = both(rand(shape, 8, dtype))
    (eq, er), (tq, tr) = ember.linalg.qr(ea, mode=mode), torch.linalg.qr(ta, mode=mode)
    assert tuple(eq.shape) == tuple(tq.shape) and tuple(er.shape) == tuple(tr.shape)
    # Householder QR from the same LAPACK: same signs; check the gauge-free facts as well.
    close(er.abs(), tr.abs(), dtype)
    np.testing.assert_allclose(np.triu(er.numpy()), er.numpy())
    if mode != "r":
        q, r = eq.numpy(), er.numpy()
        np.testing.assert_allclose(q @ r, ea.numpy(), **TOL[dtype])
        np.testing.assert_allclose(np.swapaxes(q, -1, -2) @ q, np.broadcast_to(np.eye(q.shape[-1]), q.shape[:-2] + (q.shape[-1],) * 2),
                                   **TOL[dtype])


@pytest.mark.parametrize("shape", [(4, 3), (3, 4), (3, 3), (2, 5, 3), (2, 3, 5)], ids=str)
@pytest.mark.parametrize("mode", ["reduced", "complete"])
def test_qr_grad(shape, mode):
    if mode == "complete" and shape[-2] > shape[-1]:
        pytest.skip("not differentiable (as in PyTorch)")
    ea, ta = both(rand(shape, 9), grad=True)
    eo, to = ember.linalg.qr(ea, mode=mode), torch.linalg.qr(ta, mode=mode)
    np.testing.assert_allclose(eo[1].detach().numpy(), to[1].detach().numpy(), rtol=1e-8, atol=1e-8)
    grads_match((ea,), (ta,), eo, to)
    # Each output alone (the other's gradient undefined).
    for i in range(2):
        ea2, ta2 = both(rand(shape, 9), grad=True)
        eo, to = ember.linalg.qr(ea2, mode=mode), torch.linalg.qr(ta2, mode=mode)
        grads_match((ea2,), (ta2,), eo[i], to[i])


def test_qr_backward_errors():
    ea, _ = both(rand((4, 3)), grad=True)
    q, r = ember.linalg.qr(ea, mode="r")
    with pytest.raises(RuntimeError, match="mode='r'"):
        r.sum().backward()
    q, r = ember.linalg.qr(ea, mode="complete")
    with pytest.raises(RuntimeError, match="complete"):
        q.sum().backward()


# ---- eigh ------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(3, 3), (2, 4, 4), (1, 1), (0, 0), (0, 3, 3)], ids=str)
@pytest.mark.parametrize("uplo", ["L", "U"])
def test_eigh(dtype, shape, uplo):
    a = symmetric(shape, 10, dtype)
    a = a + np.triu(np.ones(shape, dtype), 1) * (3 if uplo == "L" else 0)  # junk the other triangle
    a = a + np.tril(np.ones(shape, dtype), -1) * (3 if uplo == "U" else 0)
    ea, ta = both(a, grad=True)
    (el, ev), (tl, tv) = ember.linalg.eigh(ea, UPLO=uplo), torch.linalg.eigh(ta, UPLO=uplo)
    close(el, tl, dtype)
    close(ember.linalg.eigvalsh(ea, UPLO=uplo), tl, dtype)
    # Columns up to sign: |V^T V_torch| = I.
    overlap = np.abs(np.swapaxes(ev.detach().numpy(), -1, -2) @ tv.detach().numpy())
    np.testing.assert_allclose(overlap, np.broadcast_to(np.eye(shape[-1]), overlap.shape), **TOL[dtype])
    if ta.numel():
        # A sign-free loss: eigenvalues and squared eigenvector entries.
        w = rand(shape, 11, dtype)
        e_loss = (el * el).sum() + (ev * ev * ember.from_numpy(w)).sum()
        t_loss = (tl * tl).sum() + (tv * tv * torch.from_numpy(w)).sum()
        e_loss.backward()
        t_loss.backward()
        close(ea.grad, ta.grad, dtype, rtol=1e-3 if dtype == "float32" else 1e-6, atol=1e-3 if dtype == "float32" else 1e-8)


# ---- svd -------------------------------------------------------------------------------------

SVD_SHAPES = [(4, 3), (3, 4), (3, 3), (2, 5, 3), (2, 3, 5), (1, 1), (0, 3), (3, 0), (0, 4, 3)]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SVD_SHAPES, ids=str)
@pytest.mark.parametrize("full_matrices", [True, False])
def test_svd_values(dtype, shape, full_matrices):
    ea, ta = both(rand(shape, 12, dtype), transposed=len(shape) == 2)
    (eu, es, evh), (tu, ts, tvh) = (ember.linalg.svd(ea, full_matrices=full_matrices),
                                    torch.linalg.svd(ta, full_matrices=full_matrices))
    for e, t in ((eu, tu), (evh, tvh)):
        assert tuple(e.shape) == tuple(t.shape)
    close(es, ts, dtype)
    close(ember.linalg.svdvals(ea), torch.linalg.svdvals(ta), dtype)
    k = min(shape[-2:])
    u, s, vh = eu.numpy(), es.numpy(), evh.numpy()
    recon = (u[..., :, :k] * s[..., None, :]) @ vh[..., :k, :]
    np.testing.assert_allclose(recon, ea.numpy(), **TOL[dtype])
    for q in (u, np.swapaxes(vh, -1, -2)):
        np.testing.assert_allclose(np.swapaxes(q, -1, -2) @ q,
                                   np.broadcast_to(np.eye(q.shape[-1]), q.shape[:-2] + (q.shape[-1],) * 2),
                                   **TOL[dtype])


@pytest.mark.parametrize("shape", [(4, 3), (3, 4), (3, 3), (2, 5, 3), (2, 3, 5)], ids=str)
@pytest.mark.parametrize("full_matrices", [True, False])
@pytest.mark.parametrize("which", ["all", "S", "U", "Vh"])
def test_svd_grad(shape, full_matrices, which):
    """Gradients of sign-free losses: S, and squared entries of the first k singular vectors."""
    ea, ta = both(rand(shape, 13), grad=True)
    k = min(shape[-2:])
    losses = []
    for lib, a in ((ember, ea), (torch, ta)):
        u, s, vh = lib.linalg.svd(a, full_matrices=full_matrices)
        u, vh = u[..., :, :k], vh[..., :k, :]
        wu = lib.from_numpy(rand(tuple(u.shape), 14))
        wv = lib.from_numpy(rand(tuple(vh.shape), 15))
        parts = {"S": (s * s).sum(), "U": (u * u * wu).sum(), "Vh": (vh * vh * wv).sum()}
        losses.append(sum(parts.values()) if which == "all" else parts[which])
    losses[0].backward()
    losses[1].backward()
    close(ea.grad, ta.grad, "float64", rtol=1e-6, atol=1e-8)


def test_svd_driver_rejected():
    with pytest.raises(RuntimeError, match="driver"):
        ember.linalg.svd(ember.ones(3, 3), driver="gesvd")


# ---- pinv, lstsq, matrix_norm ----------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(4, 3), (3, 4), (2, 3, 3), (0, 3), (2, 0, 4)], ids=str)
@pytest.mark.parametrize("hermitian", [False, True])
def test_pinv(dtype, shape, hermitian):
    if hermitian and shape[-1] != shape[-2]:
        return
    a = symmetric(shape, 16, dtype) if hermitian else rand(shape, 16, dtype)
    ea, ta = both(a, grad=True)
    for kw in ({}, {"atol": 0.5}, {"rtol": 0.2}, {"atol": 0.1, "rtol": 0.01}):
        close(ember.linalg.pinv(ea, hermitian=hermitian, **kw), torch.linalg.pinv(ta, hermitian=hermitian, **kw), dtype,
              rtol=1e-3 if dtype == "float32" else 1e-7)
    close(ember.linalg.pinv(ea, 0.1, hermitian), torch.linalg.pinv(ta, 0.1, hermitian), dtype,
          rtol=1e-3 if dtype == "float32" else 1e-7)
    close(ember.pinverse(ea), torch.pinverse(ta), dtype, rtol=1e-3 if dtype == "float32" else 1e-7)
    if ta.numel():
        grads_match((ea,), (ta,), ember.linalg.pinv(ea, hermitian=hermitian), torch.linalg.pinv(ta, hermitian=hermitian),
                    dtype, rtol=1e-3 if dtype == "float32" else 1e-6, symmetrize=hermitian)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shapes", [((5, 3), (5, 2)), ((5, 3), (5,)), ((2, 5, 3), (2, 5)), ((3, 5), (3, 2)),
                                    ((2, 5, 3), (1, 5, 2)), ((0, 3), (0, 2))], ids=str)
@pytest.mark.parametrize("driver", [None, "gels", "gelsy", "gelsd", "gelss"])
def test_lstsq(dtype, shapes, driver):
    sa, sb = shapes
    if driver == "gels" and sa[-2] < sa[-1]:
        return  # gels assumes full column rank
    ea, ta = both(rand(sa, 17, dtype), grad=True)
    eb, tb = both(rand(sb, 18, dtype), grad=True)
    eo, to = ember.linalg.lstsq(ea, eb, driver=driver), torch.linalg.lstsq(ta, tb, driver=driver)
    tol = dict(rtol=1e-3, atol=1e-4) if dtype == "float32" else {}
    for e, t in zip(eo, to):
        close(e, t, dtype, **tol)
    if ta.numel():
        grads_match((ea, eb), (ta, tb), eo[0], to[0], dtype, **tol)


MATRIX_ORDS = [1, -1, 2, -2, float("inf"), float("-inf"), "fro", "nuc"]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("ord", MATRIX_ORDS, ids=str)
@pytest.mark.parametrize("dim", [(-2, -1), (0, 2), (2, 0)], ids=str)
@pytest.mark.parametrize("keepdim", [False, True])
def test_matrix_norm(dtype, ord, dim, keepdim):
    ea, ta = both(rand((3, 2, 4), 19, dtype), grad=True)
    ex = ember.linalg.matrix_norm(ea, ord, dim, keepdim)
    tx = torch.linalg.matrix_norm(ta, ord, dim, keepdim)
    close(ex, tx, dtype, rtol=1e-4 if dtype == "float32" else 1e-7)
    grads_match((ea,), (ta,), ex, tx, dtype, rtol=1e-3 if dtype == "float32" else 1e-6)


def test_matrix_norm_dtype():
    ea, ta = both(rand((3, 4), 20, "float32"))
    for ord in (1, "fro", "nuc"):
        close(ember.linalg.matrix_norm(ea, ord, dtype=ember.float64),
              torch.linalg.matrix_norm(ta, ord, dtype=torch.float64), "float64", rtol=1e-6)


# ---- gradcheck (finite differences, float64) -----------------------------------------------

def _gc(fn, *arrays):
    inputs = tuple(ember.from_numpy(a.copy()).requires_grad_(True) for a in arrays)
    assert ember.autograd.gradcheck(fn, inputs, eps=1e-6, atol=1e-5, rtol=1e-3)


def _sym(a):
    return (a + a.transpose(-2, -1)) / 2


GRADCHECKS = {
    "solve": (lambda a, b: ember.linalg.solve(a, b), (well_conditioned((2, 3, 3)), rand((3, 2), 1))),
    "solve_vec": (lambda a, b: ember.linalg.solve(a, b), (well_conditioned((3, 3)), rand((3,), 1))),
    "solve_right": (lambda a, b: ember.linalg.solve(a, b, left=False), (well_conditioned((3, 3)), rand((2, 3), 1))),
    "solve_triangular": (lambda a, b: ember.linalg.solve_triangular(a, b, upper=True),
                         (well_conditioned((3, 3)), rand((3, 2), 1))),
    "solve_triangular_right_unit": (lambda a, b: ember.linalg.solve_triangular(a, b, upper=False, left=False,
                                                                               unitriangular=True),
                                    (well_conditioned((3, 3)), rand((2, 3), 1))),
    "det": (ember.linalg.det, (rand((2, 3, 3), 2),)),
    "det_singular": (ember.linalg.det, (np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]]),)),
    "slogdet": (lambda a: ember.linalg.slogdet(a)[1], (rand((3, 3), 3),)),
    "logdet": (ember.logdet, (spd((3, 3), 3),)),
    "inv": (ember.linalg.inv, (well_conditioned((2, 3, 3), 4),)),
    "cholesky": (lambda a: ember.linalg.cholesky(_sym(a)), (spd((3, 3), 5),)),
    "cholesky_upper": (lambda a: ember.linalg.cholesky(_sym(a), upper=True), (spd((2, 3, 3), 5),)),
    "qr_tall": (lambda a: ember.linalg.qr(a), (rand((4, 3), 6),)),
    "qr_wide": (lambda a: ember.linalg.qr(a), (rand((3, 5), 6),)),
    "qr_complete_square": (lambda a: ember.linalg.qr(a, mode="complete"), (rand((3, 3), 6),)),
    "eigh": (lambda a: (lambda l, v: (l, v * v))(*ember.linalg.eigh(_sym(a))), (symmetric((3, 3), 7),)),
    "eigvalsh": (lambda a: ember.linalg.eigvalsh(_sym(a)), (symmetric((2, 3, 3), 7),)),
    "svd_tall": (lambda a: (lambda u, s, vh: (u * u, s, vh * vh))(*ember.linalg.svd(a, full_matrices=False)),
                 (rand((4, 3), 8),)),
    "svd_wide": (lambda a: (lambda u, s, vh: (u * u, s, vh * vh))(*ember.linalg.svd(a, full_matrices=False)),
                 (rand((3, 4), 8),)),
    "svdvals": (ember.linalg.svdvals, (rand((2, 3, 4), 8),)),
    "pinv": (ember.linalg.pinv, (rand((4, 3), 9),)),
    "pinv_hermitian": (lambda a: ember.linalg.pinv(_sym(a), hermitian=True), (symmetric((3, 3), 9),)),
    "lstsq": (lambda a, b: ember.linalg.lstsq(a, b)[0], (rand((5, 3), 10), rand((5, 2), 11))),
    "matrix_norm_2": (lambda a: ember.linalg.matrix_norm(a, 2), (rand((3, 4), 12),)),
    "matrix_norm_nuc": (lambda a: ember.linalg.matrix_norm(a, "nuc"), (rand((3, 4), 12),)),
    "matrix_norm_1": (lambda a: ember.linalg.matrix_norm(a, 1), (rand((3, 4), 12),)),
}


@pytest.mark.parametrize("name", list(GRADCHECKS))
def test_gradcheck(name):
    fn, arrays = GRADCHECKS[name]
    _gc(fn, *arrays)


def test_gradgradcheck_solve_and_cholesky():
    a = ember.from_numpy(well_conditioned((3, 3))).requires_grad_(True)
    b = ember.from_numpy(rand((3, 2), 1)).requires_grad_(True)
    assert ember.autograd.gradgradcheck(lambda a, b: ember.linalg.solve(a, b), (a, b))
    s = ember.from_numpy(spd((3, 3), 5)).requires_grad_(True)
    assert ember.autograd.gradgradcheck(lambda a: ember.linalg.cholesky(_sym(a)), (s,))


# ---- top-level aliases and methods --------------------------------------------------------------

def test_aliases_and_methods():
    a = well_conditioned((2, 3, 3), 21)
    ea, ta = both(a)
    close(ember.inverse(ea), torch.inverse(ta))
    close(ea.inverse(), ta.inverse())
    close(ember.det(ea), torch.det(ta))
    close(ea.det(), ta.det())
    for e, t in zip(ember.slogdet(ea), torch.slogdet(ta)):
        close(e, t)
    assert ea.slogdet().logabsdet.shape == (2,)
    s = spd((3, 3), 22)
    es, ts = both(s)
    close(ember.cholesky(es), torch.cholesky(ts))
    close(es.cholesky(True), ts.cholesky(True))
    close(ember.pinverse(ea), torch.pinverse(ta))
    close(ea.pinverse(), ta.pinverse())
    r = rand((4, 3), 23)
    er, tr = both(r)
    for some in (True, False):
        eu, es_, ev = ember.svd(er, some=some)
        tu, ts_, tv = torch.svd(tr, some=some)
        assert eu.shape == tuple(tu.shape) and ev.shape == tuple(tv.shape)
        close(es_, ts_)
        k = 3
        np.testing.assert_allclose((eu.numpy()[:, :k] * es_.numpy()) @ ev.numpy()[:, :k].T, r, atol=1e-10)
        eq, eR = ember.qr(er, some=some)
        tq, tR = torch.qr(tr, some=some)
        assert eq.shape == tuple(tq.shape) and eR.shape == tuple(tR.shape)
        close(eR.abs(), tR.abs())
    eu, es_, ev = er.svd(compute_uv=False)
    tu, ts_, tv = tr.svd(compute_uv=False)
    close(eu, tu)
    close(es_, ts_)
    close(ev, tv)
    q, rr = er.qr()
    np.testing.assert_allclose(q.numpy() @ rr.numpy(), r, atol=1e-10)
    close(ember.logdet(es), torch.logdet(ts))


# ---- bad inputs ------------------------------------------------------------------------------

BAD = [
    ("solve non-square", lambda: ember.linalg.solve(ember.ones(3, 4), ember.ones(3)), "square"),
    ("solve int", lambda: ember.linalg.solve(ember.ones(3, 3, dtype=ember.int64), ember.ones(3, dtype=ember.int64)),
     "float32 or float64"),
    ("solve dtypes", lambda: ember.linalg.solve(ember.eye(3), ember.ones(3, dtype=ember.float64)), "same dtype"),
    ("solve shapes", lambda: ember.linalg.solve(ember.eye(3), ember.ones(4, 2)), "incompatible shapes"),
    ("solve batch", lambda: ember.linalg.solve(ember.ones(2, 3, 3), ember.ones(3, 3, 2)), "broadcast"),
    ("solve singular", lambda: ember.linalg.solve(ember.ones(3, 3), ember.ones(3)), "singular"),
    ("solve singular batch", lambda: ember.linalg.solve(ember.stack([ember.eye(2), ember.zeros(2, 2)]), ember.ones(2, 2, 1)),
     r"batch element 1.*singular"),
    ("solve 1-d A", lambda: ember.linalg.solve(ember.ones(3), ember.ones(3)), "at least 2 dimensions"),
    ("inv singular", lambda: ember.linalg.inv(ember.zeros(2, 2)), "singular"),
    ("inv non-square", lambda: ember.linalg.inv(ember.ones(2, 3)), "linalg_inv.*square"),
    ("inv int", lambda: ember.linalg.inv(ember.ones(2, 2, dtype=ember.int32)), "linalg_inv.*float32"),
    ("det non-square", lambda: ember.linalg.det(ember.ones(2, 3)), "linalg_det.*square"),
    ("det int", lambda: ember.linalg.det(ember.ones(2, 2, dtype=ember.int64)), "linalg_det"),
    ("slogdet complex", lambda: ember.linalg.slogdet(ember.ones(2, 2, dtype=ember.complex64)), "linalg_slogdet"),
    ("logdet non-square", lambda: ember.logdet(ember.ones(2, 3)), "logdet.*square"),
    ("cholesky non-PD", lambda: ember.linalg.cholesky(-ember.eye(3)), "positive-definite"),
    ("cholesky non-PD batch", lambda: ember.linalg.cholesky(ember.stack([ember.eye(2), -ember.eye(2)])),
     r"batch element 1.*positive-definite"),
    ("cholesky non-square", lambda: ember.linalg.cholesky(ember.ones(2, 3)), "square"),
    ("triangular shapes", lambda: ember.linalg.solve_triangular(ember.eye(3), ember.ones(4, 2), upper=True),
     "incompatible shapes"),
    ("triangular 1-d B", lambda: ember.linalg.solve_triangular(ember.eye(3), ember.ones(3), upper=True),
     "'B' to have at least 2"),
    ("qr mode", lambda: ember.linalg.qr(ember.ones(3, 3), mode="full"), "mode"),
    ("qr int", lambda: ember.linalg.qr(ember.ones(3, 3, dtype=ember.int64)), "float32"),
    ("eigh uplo", lambda: ember.linalg.eigh(ember.eye(3), UPLO="X"), "UPLO"),
    ("eigh non-square", lambda: ember.linalg.eigh(ember.ones(2, 3)), "square"),
    ("svd 1-d", lambda: ember.linalg.svd(ember.ones(3)), "at least 2"),
    ("pinv int", lambda: ember.linalg.pinv(ember.ones(3, 3, dtype=ember.int64)), "linalg_pinv"),
    ("lstsq driver", lambda: ember.linalg.lstsq(ember.ones(3, 2), ember.ones(3, 1), driver="foo"), "driver"),
    ("lstsq rows", lambda: ember.linalg.lstsq(ember.ones(3, 2), ember.ones(4, 1)), "rows"),
    ("matrix_norm ord", lambda: ember.linalg.matrix_norm(ember.ones(3, 3), 3), "ord"),
    ("matrix_norm str ord", lambda: ember.linalg.matrix_norm(ember.ones(3, 3), "foo"), "ord"),
    ("matrix_norm dims", lambda: ember.linalg.matrix_norm(ember.ones(3, 3), dim=(1, 1)), "different"),
    ("matrix_norm int", lambda: ember.linalg.matrix_norm(ember.ones(3, 3, dtype=ember.int64)), "floating"),
    ("matrix_norm 1-d", lambda: ember.linalg.matrix_norm(ember.ones(3)), "at least 2"),
]


@pytest.mark.parametrize("name,call,match", BAD, ids=[b[0] for b in BAD])
def test_bad_inputs(name, call, match):
    with pytest.raises(RuntimeError, match=match):
        call()


def test_failed_call_leaves_inputs_unchanged():
    a = ember.ones(3, 3)
    b = ember.ones(3)
    before = a.numpy().copy()
    with pytest.raises(RuntimeError):
        ember.linalg.solve(a, b)
    np.testing.assert_array_equal(a.numpy(), before)
