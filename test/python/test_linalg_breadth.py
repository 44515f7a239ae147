"""ember.linalg's breadth against torch.linalg: the compositions of python/ember/linalg.py (norm,
cond, matrix_rank, matrix_power, matrix_exp, multi_dot, cross, vander, vecdot, tensorinv,
tensorsolve, *_ex, lu, lu_solve, householder_product, ...), the LAPACK kernels behind them (LU,
eig, LDL, geqrf) and the older torch-level names and Tensor methods (ember._linalg_aliases):
values, gradients, batches, non-contiguous and empty inputs, and bad inputs.

Each case is an expression over a module `m` (ember or torch) and its tensor arguments, run on
both with the same values; outputs must agree in shape, dtype and values, and the gradients of
a fixed random weighting of the real outputs must agree too.
"""
from __future__ import annotations

import math

import numpy as np
import pytest
import torch

import ember

pytestmark = [pytest.mark.filterwarnings("ignore:.*torch.cross without specifying the dim"),
              pytest.mark.filterwarnings("ignore:torch.(chain_matmul|triangular_solve|lu|lu_solve) is deprecated"),
              pytest.mark.filterwarnings("ignore:.*nuclear_norm is deprecated")]

TOL = {"float32": dict(rtol=2e-4, atol=2e-5), "float64": dict(rtol=1e-7, atol=1e-9)}


def rand(shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


def wellcond(shape, seed=0):
    n = shape[-1]
    return rand(shape, seed) + n * np.eye(n)


def spd(shape, seed=0):
    m = rand(shape, seed)
    return m @ np.swapaxes(m, -1, -2) + shape[-1] * np.eye(shape[-1])


def sym(shape, seed=0):
    m = rand(shape, seed)
    return (m + np.swapaxes(m, -1, -2)) / 2 + np.diag(np.arange(shape[-1]) * 3.0)


def lower(shape, seed=0):
    return np.tril(wellcond(shape, seed))


def as_pair(a, dtype, transposed, grad):
    """(ember, torch) tensors of array a in dtype; transposed: non-contiguous views of the values."""
    if not isinstance(a, np.ndarray):
        return a, a
    a = a.astype(dtype) if a.dtype.kind == "f" else a
    if transposed and a.ndim >= 2:
        base = np.ascontiguousarray(np.swapaxes(a, -1, -2))
        e, t = ember.from_numpy(base.copy()).transpose(-2, -1), torch.from_numpy(base.copy()).transpose(-2, -1)
    else:
        e, t = ember.from_numpy(a.copy()), torch.from_numpy(a.copy())
    if grad and a.dtype.kind == "f":
        e.requires_grad_(True)
        t.requires_grad_(True)
    return e, t


def flat(r):
    if isinstance(r, (tuple, list)):
        return [x for item in r for x in flat(item)]
    return [r]


def to_np(x):
    return x.detach().numpy() if isinstance(x, (torch.Tensor, ember.Tensor)) else np.asarray(x)


def dtype_name(x):
    return str(x.dtype).split(".")[-1]


def check(fn, arrays, dtype="float64", transposed=False, grad=True, tol=None, abs_values=()):
    """Runs fn(m, *tensors) on ember and torch; compares outputs and (grad) the gradients of
    sum(out * w) over the floating outputs. abs_values: output indices compared by |.|."""
    pairs = [as_pair(a, dtype, transposed, grad) for a in arrays]
    es, ts = [p[0] for p in pairs], [p[1] for p in pairs]
    e_out, t_out = flat(fn(ember, *es)), flat(fn(torch, *ts))
    tol = tol or TOL["float32" if dtype == "float32" else "float64"]
    assert len(e_out) == len(t_out)
    for i, (eo, to) in enumerate(zip(e_out, t_out)):
        if not isinstance(to, torch.Tensor):
            assert eo == to
            continue
        assert tuple(eo.shape) == tuple(to.shape), (i, tuple(eo.shape), tuple(to.shape))
        assert dtype_name(eo) == dtype_name(to), (i, eo.dtype, to.dtype)
        ev, tv = to_np(eo), to_np(to)
        if i in abs_values:
            ev, tv = np.abs(ev), np.abs(tv)
        np.testing.assert_allclose(ev, tv, **tol, err_msg=f"output {i}")
    leaves = [(e, t) for e, t in zip(es, ts) if isinstance(t, torch.Tensor) and t.requires_grad]
    if not grad or not leaves:
        return
    e_loss, t_loss = 0, 0
    for i, (eo, to) in enumerate(zip(e_out, t_out)):
        if isinstance(to, torch.Tensor) and to.requires_grad and to.dtype.is_floating_point:
            w = rand(tuple(to.shape), 100 + i).astype(dtype)
            e_loss = e_loss + (eo * ember.from_numpy(w)).sum()
            t_loss = t_loss + (to * torch.from_numpy(w)).sum()
    if isinstance(t_loss, int):
        return
    tg = torch.autograd.grad(t_loss, [t for _, t in leaves], allow_unused=True)
    eg = ember.autograd.grad(e_loss, [e for e, _ in leaves], allow_unused=True)
    for k, (a, b) in enumerate(zip(eg, tg)):
        if b is None:
            assert a is None or not to_np(a).any(), f"gradient {k}"
            continue
        assert a is not None, f"gradient {k}: ember gave none"
        g_tol = {"float32": dict(rtol=1e-3, atol=1e-4), "float64": dict(rtol=1e-6, atol=1e-8)}[dtype]
        np.testing.assert_allclose(to_np(a), to_np(b), **g_tol, err_msg=f"gradient {k}")


def raises_like(fn, arrays, dtype="float64"):
    """fn raises on torch; ember raises the same Python exception type (or a subclass of it)."""
    pairs = [as_pair(a, dtype, False, False) for a in arrays]
    with pytest.raises(Exception) as t_err:
        fn(torch, *[p[1] for p in pairs])
    base = next(c for c in type(t_err.value).__mro__ if c.__module__ == "builtins")
    with pytest.raises(base):
        fn(ember, *[p[0] for p in pairs])


# ---- values and gradients ------------------------------------------------------------------------

R34, R43, R33, B233 = rand((3, 4)), rand((4, 3), 1), rand((3, 3), 2), rand((2, 3, 3), 3)
W33, W244 = wellcond((3, 3), 4), wellcond((2, 4, 4), 5)
S33, SB = spd((3, 3), 6), spd((2, 3, 3), 7)

CASES = {
    # norms
    "norm": (lambda m, a: m.linalg.norm(a), [R34]),
    "norm_ord_vec": (lambda m, a: m.linalg.norm(a, 3.5), [rand((5,))]),
    "norm_ord_mat": (lambda m, a: m.linalg.norm(a, "nuc"), [R34]),
    "norm_inf_mat": (lambda m, a: m.linalg.norm(a, math.inf), [R34]),
    "norm_dim": (lambda m, a: m.linalg.norm(a, dim=1, keepdim=True), [R34]),
    "norm_dims": (lambda m, a: m.linalg.norm(a, 2, dim=(0, 2)), [rand((2, 3, 4))]),
    "norm_fro_dims": (lambda m, a: m.linalg.norm(a, dim=(1, 2)), [rand((2, 3, 4))]),
    "norm_3d": (lambda m, a: m.linalg.norm(a, keepdim=True), [rand((2, 3, 4))]),
    "cond": (lambda m, a: m.linalg.cond(a), [W33]),
    "cond_rect": (lambda m, a: m.linalg.cond(a, -2), [R34]),
    "cond_fro": (lambda m, a: m.linalg.cond(a, "fro"), [W244]),
    "cond_inf": (lambda m, a: m.linalg.cond(a, math.inf), [W33]),
    "cond_1": (lambda m, a: m.linalg.cond(a, -1), [W244]),
    "matrix_rank": (lambda m, a: m.linalg.matrix_rank(a), [R34 @ rand((4, 2), 9) @ rand((2, 4), 10)]),
    "matrix_rank_full": (lambda m, a: m.linalg.matrix_rank(a), [B233]),
    "matrix_rank_atol": (lambda m, a: m.linalg.matrix_rank(a, atol=1.0, rtol=0.1), [B233]),
    "matrix_rank_tol": (lambda m, a: m.linalg.matrix_rank(a, 0.5), [R34]),
    "matrix_rank_herm": (lambda m, a: m.linalg.matrix_rank(a, hermitian=True), [sym((4, 4))]),
    # products
    "matmul": (lambda m, a, b: m.linalg.matmul(a, b), [B233, R34]),
    "diagonal": (lambda m, a: m.linalg.diagonal(a, offset=1), [rand((2, 3, 4))]),
    "diagonal_dims": (lambda m, a: m.linalg.diagonal(a, dim1=0, dim2=2), [rand((3, 2, 3))]),
    "vecdot": (lambda m, a, b: m.linalg.vecdot(a, b), [R34, rand((2, 1, 4), 11)]),
    "vecdot_dim": (lambda m, a, b: m.linalg.vecdot(a, b, dim=0), [R34, rand((3, 4), 11)]),
    "cross": (lambda m, a, b: m.linalg.cross(a, b), [rand((4, 3)), rand((4, 3), 1)]),
    "cross_bcast": (lambda m, a, b: m.linalg.cross(a, b, dim=1), [rand((2, 3, 2)), rand((1, 3, 2), 1)]),
    "torch_cross": (lambda m, a, b: m.cross(a, b), [rand((4, 3, 3)), rand((4, 3, 3), 1)]),
    "tensor_cross": (lambda m, a, b: a.cross(b, dim=-1), [rand((2, 3)), rand((2, 3), 1)]),
    "vander": (lambda m, a: m.linalg.vander(a), [rand((4,))]),
    "vander_n": (lambda m, a: m.linalg.vander(a, N=5), [rand((2, 3))]),
    "torch_vander": (lambda m, a: m.vander(a), [rand((4,))]),
    "torch_vander_n": (lambda m, a: m.vander(a, N=2, increasing=True), [rand((3,))]),
    "torch_vander_1": (lambda m, a: m.vander(a, 1), [rand((3,))]),
    "nuclear_norm": (lambda m, a: m.nuclear_norm(a, keepdim=True), [rand((2, 3, 4))]),
    "nuclear_norm_dim": (lambda m, a: m.nuclear_norm(a, (0, 2)), [rand((2, 3, 4))]),
    "multi_dot": (lambda m, a, b, c: m.linalg.multi_dot([a, b, c]), [rand((2, 5)), rand((5, 3)), rand((3, 4))]),
    "multi_dot_vec": (lambda m, a, b, c: m.linalg.multi_dot([a, b, c]), [rand((5,)), rand((5, 3)), rand((3,))]),
    "multi_dot_vec_first": (lambda m, a, b: m.linalg.multi_dot((a, b)), [rand((3,)), R34]),
    "chain_matmul": (lambda m, a, b, c: m.chain_matmul(a, b, c), [R34, R43, R34]),
    "matrix_power_3": (lambda m, a: m.linalg.matrix_power(a, 3), [B233]),
    "matrix_power_6": (lambda m, a: m.linalg.matrix_power(a, 6), [R33 / 2]),
    "matrix_power_0": (lambda m, a: m.linalg.matrix_power(a, 0), [B233]),
    "matrix_power_1": (lambda m, a: m.linalg.matrix_power(a, 1), [R33]),
    "matrix_power_neg": (lambda m, a: m.linalg.matrix_power(a, -2), [W244]),
    "tensor_matrix_power": (lambda m, a: a.matrix_power(2), [R33]),
    "matrix_exp": (lambda m, a: m.linalg.matrix_exp(a), [R33]),
    "matrix_exp_big": (lambda m, a: m.linalg.matrix_exp(a), [rand((2, 4, 4)) * 4]),
    "matrix_exp_small": (lambda m, a: m.matrix_exp(a), [rand((3, 3)) * 1e-3]),
    "tensor_matrix_exp": (lambda m, a: a.matrix_exp(), [B233]),
    "addr": (lambda m, s, a, b: m.addr(s, a, b, beta=2, alpha=0.5), [R34, rand((3,)), rand((4,))]),
    "addr_bcast": (lambda m, s, a, b: m.addr(s, a, b), [rand((4,)), rand((3,)), rand((4,))]),
    "tensor_addr": (lambda m, s, a, b: s.addr(a, b), [R34, rand((3,)), rand((4,))]),
    # inverses and solvers
    "inv_ex": (lambda m, a: m.linalg.inv_ex(a), [W244]),
    "solve_ex": (lambda m, a, b: m.linalg.solve_ex(a, b), [W244, rand((2, 4, 2))]),
    "solve_ex_vec": (lambda m, a, b: m.linalg.solve_ex(a, b, left=True), [W33, rand((3,))]),
    "solve_ex_right": (lambda m, a, b: m.linalg.solve_ex(a, b, left=False), [W33, rand((2, 3))]),
    "tensorinv": (lambda m, a: m.linalg.tensorinv(a, ind=1), [wellcond((4, 4)).reshape(4, 2, 2)]),
    "tensorinv_2": (lambda m, a: m.linalg.tensorinv(a), [wellcond((6, 6)).reshape(2, 3, 6)]),
    "tensorsolve": (lambda m, a, b: m.linalg.tensorsolve(a, b), [wellcond((6, 6)).reshape(2, 3, 6), rand((2, 3))]),
    "tensorsolve_dims": (lambda m, a, b: m.linalg.tensorsolve(a, b, dims=(0,)),
                         [wellcond((6, 6)).reshape(6, 3, 2).transpose(2, 0, 1), rand((6,))]),
    "cholesky_ex": (lambda m, a: m.linalg.cholesky_ex(a), [SB]),
    "cholesky_ex_upper": (lambda m, a: m.linalg.cholesky_ex(a, upper=True), [S33]),
    "cholesky_solve": (lambda m, b, a: m.cholesky_solve(b, m.linalg.cholesky(a)), [rand((2, 3, 2)), SB]),
    "cholesky_solve_upper": (lambda m, b, a: b.cholesky_solve(m.linalg.cholesky(a, upper=True), upper=True),
                             [rand((3, 2)), S33]),
    "cholesky_inverse": (lambda m, a: m.cholesky_inverse(m.linalg.cholesky(a)), [SB]),
    "cholesky_inverse_upper": (lambda m, a: m.linalg.cholesky(a, upper=True).cholesky_inverse(True), [S33]),
    "triangular_solve": (lambda m, b, a: m.triangular_solve(b, a), [rand((3, 2)), np.triu(W33)]),
    "triangular_solve_t": (lambda m, b, a: b.triangular_solve(a, upper=False, transpose=True),
                           [rand((2, 3, 2)), lower((3, 3))]),
    "triangular_solve_unit": (lambda m, b, a: m.triangular_solve(b, a, False, False, True),
                              [rand((3, 4)), lower((2, 3, 3))]),
    # LU
    "lu_factor_ex": (lambda m, a: m.linalg.lu_factor_ex(a), [B233]),
    "lu_factor_ex_tall": (lambda m, a: m.linalg.lu_factor_ex(a), [rand((2, 5, 3))]),
    "lu_factor_ex_wide": (lambda m, a: m.linalg.lu_factor_ex(a), [rand((3, 5))]),
    "lu_factor": (lambda m, a: m.linalg.lu_factor(a), [W244]),
    "lu": (lambda m, a: m.linalg.lu(a), [B233]),
    "lu_tall": (lambda m, a: m.linalg.lu(a), [rand((5, 3))]),
    "lu_wide": (lambda m, a: m.linalg.lu(a), [rand((2, 3, 5))]),
    "lu_unpack": (lambda m, a: m.lu_unpack(*m.linalg.lu_factor(a)), [W244]),
    "lu_unpack_data": (lambda m, a: m.lu_unpack(*m.linalg.lu_factor(a), unpack_pivots=False)[1:],
                       [W33]),
    "torch_lu": (lambda m, a: m.lu(a), [W33]),
    "torch_lu_infos": (lambda m, a: a.lu(get_infos=True), [B233]),
    "lu_solve": (lambda m, a, b: m.linalg.lu_solve(*m.linalg.lu_factor(a), b), [W244, rand((2, 4, 3))]),
    "lu_solve_adjoint": (lambda m, a, b: m.linalg.lu_solve(*m.linalg.lu_factor(a), b, adjoint=True),
                         [W33, rand((3, 2))]),
    "lu_solve_right": (lambda m, a, b: m.linalg.lu_solve(*m.linalg.lu_factor(a), b, left=False),
                       [W33, rand((2, 3))]),
    "lu_solve_right_adj": (lambda m, a, b: m.linalg.lu_solve(*m.linalg.lu_factor(a), b, left=False,
                                                             adjoint=True), [W244, rand((2, 4))]),
    "lu_solve_bcast": (lambda m, a, b: m.linalg.lu_solve(*m.linalg.lu_factor(a), b), [W33, rand((2, 3, 2))]),
    "torch_lu_solve": (lambda m, a, b: b.lu_solve(*m.linalg.lu_factor(a)), [W244, rand((2, 4, 1))]),
    # eig, LDL, Householder
    "eigvals": (lambda m, a: m.linalg.eigvals(a), [B233]),
    "eig_values": (lambda m, a: m.linalg.eig(a)[0], [rand((4, 4))]),
    "ldl_factor": (lambda m, a: m.linalg.ldl_factor(a), [sym((4, 4))]),
    "ldl_factor_ex": (lambda m, a: m.linalg.ldl_factor_ex(a), [sym((2, 4, 4)) - 6 * np.eye(4)]),
    "ldl_solve": (lambda m, a, b: m.linalg.ldl_solve(*m.linalg.ldl_factor(a), b), [sym((2, 4, 4)), rand((2, 4, 3))]),
    "geqrf": (lambda m, a: m.geqrf(a), [rand((2, 4, 3))]),
    "geqrf_wide": (lambda m, a: a.geqrf(), [R34]),
    "householder_product": (lambda m, a: m.linalg.householder_product(*m.geqrf(a)), [rand((2, 5, 3))]),
    "householder_raw": (lambda m, a, t: m.linalg.householder_product(a, t), [rand((4, 3)), rand((2,))]),
    "orgqr": (lambda m, a, t: a.orgqr(t), [rand((2, 4, 4)), rand((2, 3))]),
    "ormqr": (lambda m, a, t, c: m.ormqr(a, t, c), [rand((4, 3)), rand((3,)), rand((4, 2))]),
    "ormqr_t": (lambda m, a, t, c: m.ormqr(a, t, c, transpose=True), [rand((4, 3)), rand((3,)), rand((4, 2))]),
    "ormqr_right": (lambda m, a, t, c: a.ormqr(t, c, left=False), [rand((4, 2)), rand((2,)), rand((3, 4))]),
    "ormqr_right_t": (lambda m, a, t, c: m.ormqr(a, t, c, False, True),
                      [rand((2, 4, 2)), rand((2, 2)), rand((2, 3, 4))]),
}
# The LAPACK kernels without derivatives in torch.
# (eig's complex results: test_eig_gradients.)
NO_GRAD = {"matrix_rank", "matrix_rank_full", "matrix_rank_atol", "matrix_rank_tol", "matrix_rank_herm",
           "eigvals", "eig_values", "ldl_factor", "ldl_factor_ex", "ldl_solve", "geqrf", "geqrf_wide",
           "householder_product", "lu_unpack_data"}


# torch's backward fails here, each writing in place into a tensor its backward saved: cond for p
# other than None/2/-2 (linalg_inv_ex's result) and torch.vander (its cumprod's): values only;
# test_gradcheck_compositions checks Ember's.
TORCH_GRAD_FAILS = {"cond_fro", "cond_inf", "cond_1", "torch_vander", "torch_vander_n"}


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name", list(CASES))
def test_values_and_gradients(name, dtype):
    fn, arrays = CASES[name]
    check(fn, arrays, dtype=dtype, grad=name not in NO_GRAD | TORCH_GRAD_FAILS)


NON_CONTIGUOUS = ["norm_ord_mat", "cond", "cond_fro", "matrix_rank_full", "matrix_power_3", "matrix_exp",
                  "inv_ex", "solve_ex", "lu", "lu_wide", "lu_solve", "lu_solve_right", "cholesky_solve",
                  "triangular_solve_t", "householder_product", "ormqr_right", "eigvals", "ldl_solve",
                  "multi_dot", "vecdot", "cross_bcast", "lu_factor_ex_tall"]


@pytest.mark.parametrize("name", NON_CONTIGUOUS)
def test_non_contiguous(name):
    fn, arrays = CASES[name]
    check(fn, arrays, transposed=True, grad=name not in NO_GRAD | TORCH_GRAD_FAILS)


def test_gradcheck_compositions():
    """Finite differences agree with the derivatives the compositions get from their ops."""
    fns = [lambda a: ember.linalg.matrix_exp(a), lambda a: ember.linalg.cond(a, "fro"),
           lambda a: ember.linalg.cond(a, math.inf), lambda a: ember.linalg.cond(a, -1),
           lambda a: ember.linalg.lu(a)[1:], lambda a: ember.linalg.lu_factor(a)[0],
           lambda a: ember.linalg.householder_product(a, ember.from_numpy(rand((2,), 3))),
           lambda a: ember.linalg.matrix_power(a, -3), lambda a: ember.vander(a[0], N=4),
           lambda a: ember.vander(a[1], increasing=True), lambda a: ember.linalg.vander(a, N=4), lambda a: ember.linalg.inv_ex(a)[0]]
    for fn in fns:
        a = ember.from_numpy(wellcond((3, 3), 12)).requires_grad_(True)
        assert ember.autograd.gradcheck(fn, (a,))
    for upper in (False, True):  # on symmetrized inputs (cholesky reads one triangle)
        a = ember.from_numpy(spd((3, 3), 14)).requires_grad_(True)
        assert ember.autograd.gradcheck(lambda x: ember.linalg.cholesky_ex(x @ x.mT, upper=upper)[0], (a,))
    for shape in ((4, 2), (2, 4)):
        a = ember.from_numpy(rand(shape, 13)).requires_grad_(True)
        assert ember.autograd.gradcheck(lambda x: ember.linalg.lu_factor_ex(x)[0], (a,))


def test_empty_inputs():
    for name, fn, arrays in [
        ("inv_ex", lambda m, a: m.linalg.inv_ex(a), [np.zeros((0, 3, 3))]),
        ("lu_factor_ex", lambda m, a: m.linalg.lu_factor_ex(a), [np.zeros((0, 2, 3))]),
        ("lu", lambda m, a: m.linalg.lu(a), [np.zeros((3, 0))]),
        ("lu_00", lambda m, a: m.linalg.lu(a), [np.zeros((0, 0))]),
        ("matrix_exp", lambda m, a: m.linalg.matrix_exp(a), [np.zeros((0, 2, 2))]),
        ("matrix_exp_00", lambda m, a: m.linalg.matrix_exp(a), [np.zeros((0, 0))]),
        ("matrix_power", lambda m, a: m.linalg.matrix_power(a, 3), [np.zeros((0, 2, 2))]),
        ("matrix_rank", lambda m, a: m.linalg.matrix_rank(a), [np.zeros((2, 0, 3))]),
        ("norm", lambda m, a: m.linalg.norm(a), [np.zeros((0, 3))]),
        ("cond", lambda m, a: m.linalg.cond(a), [np.zeros((0, 3, 3))]),
        ("cross", lambda m, a, b: m.linalg.cross(a, b), [np.zeros((0, 3)), np.zeros((0, 3))]),
        ("vander", lambda m, a: m.linalg.vander(a, N=3), [np.zeros((0, 2))]),
        ("torch_vander", lambda m, a: m.vander(a, N=0), [np.zeros((3,))]),
        ("torch_vander_int", lambda m, a: m.vander(a), [np.arange(3, dtype=np.int32)]),
        ("torch_vander_bool", lambda m, a: m.vander(a, 3), [np.array([True, False])]),
        ("vecdot", lambda m, a, b: m.linalg.vecdot(a, b), [np.zeros((2, 0)), np.zeros((2, 0))]),
        ("eig", lambda m, a: m.linalg.eig(a), [np.zeros((0, 3, 3))]),
        ("eigvals_00", lambda m, a: m.linalg.eigvals(a), [np.zeros((0, 0))]),
        ("ldl", lambda m, a: m.linalg.ldl_factor_ex(a), [np.zeros((0, 2, 2))]),
        ("geqrf", lambda m, a: m.geqrf(a), [np.zeros((0, 3))]),
        ("householder", lambda m, a, t: m.linalg.householder_product(a, t), [np.zeros((3, 0)), np.zeros((0,))]),
        ("cholesky_ex", lambda m, a: m.linalg.cholesky_ex(a), [np.zeros((0, 2, 2))]),
        ("lu_solve", lambda m, a, b: m.linalg.lu_solve(*m.linalg.lu_factor(a), b), [W33, np.zeros((3, 0))]),
        ("solve_ex", lambda m, a, b: m.linalg.solve_ex(a, b), [np.zeros((0, 3, 3)), np.zeros((0, 3, 1))]),
    ]:
        check(fn, arrays, grad=False)


def test_zero_dim_and_scalar_results():
    check(lambda m, a, b: m.linalg.vecdot(a, b), [rand((3,)), rand((3,), 1)])
    check(lambda m, a, b: m.linalg.multi_dot([a, b]), [rand((3,)), rand((3,), 1)])
    check(lambda m, a: m.linalg.cond(a), [np.array([[2.0]])])
    check(lambda m, a: m.linalg.norm(a), [np.array(3.0)])


def test_singular_inputs():
    """The *_ex forms report info where torch's do; inverses of singular matrices are inf in cond;
    LinAlgError is a RuntimeError raised for singular and non-positive-definite inputs."""
    singular = np.stack([wellcond((3, 3)), np.zeros((3, 3))])
    for fn in (lambda m, a: m.linalg.inv_ex(a)[1], lambda m, a: m.linalg.lu_factor_ex(a)[2],
               lambda m, a: m.linalg.solve_ex(a, a)[1], lambda m, a: m.linalg.cholesky_ex(a)[1],
               lambda m, a: m.linalg.cond(a, 1), lambda m, a: m.linalg.cond(a), lambda m, a: m.linalg.matrix_rank(a)):
        check(fn, [singular], grad=False)
    assert issubclass(ember.linalg.LinAlgError, RuntimeError)
    assert ember.linalg.LinAlgError is ember._C._LinAlgError
    zero = ember.zeros(2, 3, 3, dtype=ember.float64)
    for call in (lambda: ember.linalg.inv(zero), lambda: ember.linalg.inv_ex(zero, check_errors=True),
                 lambda: ember.linalg.solve(zero, zero), lambda: ember.linalg.solve_ex(zero, zero, check_errors=True),
                 lambda: ember.linalg.lu_factor(zero), lambda: ember.linalg.cholesky(zero),
                 lambda: ember.linalg.cholesky_ex(zero, check_errors=True), lambda: ember.linalg.tensorinv(zero[0], 1),
                 lambda: ember.linalg.ldl_factor(zero), lambda: ember.lu(zero)):
        with pytest.raises(ember.linalg.LinAlgError, match=r"\(batch element 0\)|singular|zero|definite"):
            call()
    # not raised without check_errors
    assert ember.linalg.lu(zero).U.abs().sum().item() == 0


def test_in_place_products():
    for name, args in (("addr_", [R34, rand((3,)), rand((4,))]), ("addmv_", [rand((3,)), R34, rand((4,))]),
                       ("addbmm_", [R34, rand((2, 3, 5)), rand((2, 5, 4))])):
        def fn(m, s, *rest, name=name):
            s = s.clone()
            r = getattr(s, name)(*rest, beta=0.5, alpha=2)
            assert r is s
            return s
        check(fn, args)
    # beta = 0 ignores self's values (NaN too)
    nan = np.full((3, 4), np.nan)
    check(lambda m, s, a, b: m.addr(s, a, b, beta=0), [nan, rand((3,)), rand((4,))], grad=False)


def test_return_types():
    a = ember.from_numpy(wellcond((3, 3)))
    assert ember.linalg.lu_factor_ex(a)._fields == ("LU", "pivots", "info")
    assert ember.linalg.inv_ex(a)._fields == ("inverse", "info")
    assert ember.linalg.solve_ex(a, a)._fields == ("result", "info")
    assert ember.linalg.lu(a)._fields == ("P", "L", "U")
    assert ember.linalg.ldl_factor(a + a.mT)._fields == ("LD", "pivots")
    assert ember.geqrf(a)._fields == ("a", "tau")
    assert ember.lu_unpack(*ember.linalg.lu_factor(a))._fields == ("P", "L", "U")
    assert ember.triangular_solve(a, a)._fields == ("solution", "cloned_coefficient")
    assert ember.linalg.eig(a)._fields == ("eigenvalues", "eigenvectors")


def test_eig_decomposes():
    """Eigenvectors are unique up to a complex scale: A V = V diag(w) and unit columns."""
    for a in (rand((4, 4), 20), rand((2, 3, 3), 21), np.array([[0.0, -1.0], [1.0, 0.0]])):
        w, V = ember.linalg.eig(ember.from_numpy(a))
        w, V = w.numpy(), V.numpy()
        np.testing.assert_allclose(a @ V, V * w[..., None, :], atol=1e-10)
        np.testing.assert_allclose(np.linalg.norm(V, axis=-2), 1, atol=1e-10)
        np.testing.assert_allclose(np.sort_complex(w.ravel()),
                                   np.sort_complex(torch.linalg.eigvals(torch.from_numpy(a)).numpy().ravel()),
                                   atol=1e-10)


def test_eig_gradients():
    """eig's gradients (through its complex eigenvalues and the phase-free |V|) match torch's and
    finite differences; a loss that depends on the eigenvectors' phases raises, as in torch."""
    rng = np.random.default_rng(30)
    for shape in ((3, 3), (2, 4, 4)):
        a = rng.standard_normal(shape)
        w1, w2 = rng.standard_normal(shape[:-1] + (2,)), rng.standard_normal(shape)
        grads = []
        for m in (torch, ember):
            A = m.from_numpy(a.copy()).requires_grad_(True)
            L, V = m.linalg.eig(A)
            loss = (m.view_as_real(L) * m.from_numpy(w1)).sum() + (m.abs(V) * m.from_numpy(w2)).sum()
            grads.append(to_np(m.autograd.grad(loss, [A])[0]))
            B = m.from_numpy(a.copy()).requires_grad_(True)
            grads.append(to_np(m.autograd.grad((m.view_as_real(m.linalg.eigvals(B)) * m.from_numpy(w1)).sum(), [B])[0]))
        np.testing.assert_allclose(grads[2], grads[0], rtol=1e-8, atol=1e-10)
        np.testing.assert_allclose(grads[3], grads[1], rtol=1e-8, atol=1e-10)
    x = ember.from_numpy(rng.standard_normal((3, 3))).requires_grad_(True)
    assert ember.autograd.gradcheck(lambda a: ember.abs(ember.linalg.eig(a)[1]), (x,))
    assert ember.autograd.gradcheck(lambda a: ember.view_as_real(ember.linalg.eigvals(a)), (x,))
    with pytest.raises(RuntimeError, match="phase"):
        ember.autograd.grad(ember.view_as_real(ember.linalg.eig(x)[1]).sum(), [x])


BAD = {
    "lu_factor_ex_int": (lambda m, a: m.linalg.lu_factor_ex(a), [np.ones((3, 3), dtype=np.int64)]),
    "lu_factor_1d": (lambda m, a: m.linalg.lu_factor_ex(a), [rand((3,))]),
    "eig_rect": (lambda m, a: m.linalg.eig(a), [R34]),
    "eig_int": (lambda m, a: m.linalg.eig(a), [np.ones((3, 3), dtype=np.int64)]),
    "eig_nan": (lambda m, a: m.linalg.eig(a), [np.full((2, 2), np.nan)]),
    "eigvals_rect": (lambda m, a: m.linalg.eigvals(a), [R34]),
    "ldl_rect": (lambda m, a: m.linalg.ldl_factor_ex(a), [R34]),
    "ldl_solve_shape": (lambda m, a, b: m.linalg.ldl_solve(*m.linalg.ldl_factor(a), b), [sym((3, 3)), rand((4, 2))]),
    "cholesky_ex_rect": (lambda m, a: m.linalg.cholesky_ex(a), [R34]),
    "geqrf_1d": (lambda m, a: m.geqrf(a), [rand((3,))]),
    "geqrf_int": (lambda m, a: m.geqrf(a), [np.ones((3, 3), dtype=np.int64)]),
    "inv_ex_rect": (lambda m, a: m.linalg.inv_ex(a), [R34]),
    "solve_ex_rect": (lambda m, a, b: m.linalg.solve_ex(a, b), [R34, R34]),
    "solve_ex_shape": (lambda m, a, b: m.linalg.solve_ex(a, b), [W33, rand((4, 2))]),
    "lu_solve_rect": (lambda m, a, p, b: m.linalg.lu_solve(a, p, b),
                      [R34, np.array([1, 2, 3], dtype=np.int32), rand((3, 2))]),
    "lu_solve_shape": (lambda m, a, b: m.linalg.lu_solve(*m.linalg.lu_factor(a), b), [W33, rand((4, 2))]),
    "lu_solve_1d": (lambda m, a, b: m.linalg.lu_solve(*m.linalg.lu_factor(a), b), [W33, rand((3,))]),
    "lu_unpack_1d": (lambda m, a, p: m.lu_unpack(a, p), [rand((3,)), np.array([1, 2, 3], dtype=np.int32)]),
    "lu_unpack_pivot_dtype": (lambda m, a, p: m.lu_unpack(a, p), [R33, np.array([1, 2, 3], dtype=np.int64)]),
    "norm_3d_ord": (lambda m, a: m.linalg.norm(a, 2), [rand((2, 3, 4))]),
    "norm_str_vec": (lambda m, a: m.linalg.norm(a, "fro", dim=0), [R34]),
    "norm_ord_bad": (lambda m, a: m.linalg.norm(a, 3), [R34]),
    "cond_bad_p": (lambda m, a: m.linalg.cond(a, 3), [R33]),
    "cond_rect_p": (lambda m, a: m.linalg.cond(a, 1), [R34]),
    "cond_1d": (lambda m, a: m.linalg.cond(a), [rand((3,))]),
    "cond_int": (lambda m, a: m.linalg.cond(a), [np.ones((3, 3), dtype=np.int64)]),
    "matrix_rank_1d": (lambda m, a: m.linalg.matrix_rank(a), [rand((3,))]),
    "matrix_power_rect": (lambda m, a: m.linalg.matrix_power(a, 2), [R34]),
    "matrix_power_1d": (lambda m, a: m.linalg.matrix_power(a, 2), [rand((3,))]),
    "matrix_power_float_n": (lambda m, a: m.linalg.matrix_power(a, 2.0), [R33]),
    "matrix_exp_rect": (lambda m, a: m.linalg.matrix_exp(a), [R34]),
    "matrix_exp_int": (lambda m, a: m.linalg.matrix_exp(a), [np.ones((3, 3), dtype=np.int64)]),
    "matrix_exp_1d": (lambda m, a: m.linalg.matrix_exp(a), [rand((3,))]),
    "multi_dot_one": (lambda m, a: m.linalg.multi_dot([a]), [R34]),
    "multi_dot_3d": (lambda m, a, b: m.linalg.multi_dot([a, b]), [rand((2, 3, 4)), R43]),
    "multi_dot_shape": (lambda m, a, b: m.linalg.multi_dot([a, b]), [R34, R34]),
    "multi_dot_dtype": (lambda m, a, b: m.linalg.multi_dot([a, b.float()]), [R34, R43]),
    "cross_len": (lambda m, a, b: m.linalg.cross(a, b), [R34, R34]),
    "cross_dtype": (lambda m, a, b: m.linalg.cross(a, b.float()), [R33, R33]),
    "vecdot_dtype": (lambda m, a, b: m.linalg.vecdot(a, b.float()), [R34, R34]),
    "vecdot_shape": (lambda m, a, b: m.linalg.vecdot(a, b), [R34, R43]),
    "torch_vander_2d": (lambda m, a: m.vander(a), [R34]),
    "torch_vander_neg": (lambda m, a: m.vander(a, N=-1), [rand((3,))]),
    "vander_0d": (lambda m, a: m.linalg.vander(a), [np.array(2.0)]),
    "vander_n1": (lambda m, a: m.linalg.vander(a, N=1), [rand((3,))]),
    "vander_n0": (lambda m, a: m.linalg.vander(a), [np.zeros((2, 0))]),
    "tensorinv_ind": (lambda m, a: m.linalg.tensorinv(a, ind=0), [rand((2, 2))]),
    "tensorinv_shape": (lambda m, a: m.linalg.tensorinv(a, ind=1), [rand((2, 3))]),
    "tensorsolve_shape": (lambda m, a, b: m.linalg.tensorsolve(a, b), [rand((2, 3, 4)), rand((2, 3))]),
    "householder_wide": (lambda m, a, t: m.linalg.householder_product(a, t), [R34, rand((2,))]),
    "householder_tau": (lambda m, a, t: m.linalg.householder_product(a, t), [R43, rand((4,))]),
    "householder_batch": (lambda m, a, t: m.linalg.householder_product(a, t), [rand((2, 4, 3)), rand((3, 2))]),
    "ormqr_shape": (lambda m, a, t, c: m.ormqr(a, t, c), [R43, rand((3,)), rand((3, 2))]),
    "cholesky_solve_1d": (lambda m, b, a: m.cholesky_solve(b, a), [rand((3,)), S33]),
    "cholesky_solve_dtype": (lambda m, b, a: m.cholesky_solve(b.float(), a), [rand((3, 2)), S33]),
    "cholesky_inverse_rect": (lambda m, a: m.cholesky_inverse(a), [R34]),
    "triangular_solve_dtype": (lambda m, b, a: m.triangular_solve(b.float(), a), [rand((3, 2)), S33]),
    "addr_2d": (lambda m, s, a, b: m.addr(s, a, b), [R34, R34, rand((4,))]),
    "addr_shape": (lambda m, s, a, b: m.addr(s, a, b), [R34, rand((4,)), rand((4,))]),
    "torch_cross_no3": (lambda m, a, b: m.cross(a, b, dim=None), [rand((2, 4)), rand((2, 4))]),
}


@pytest.mark.parametrize("name", list(BAD))
def test_bad_inputs(name):
    fn, arrays = BAD[name]
    raises_like(fn, arrays)


def test_lu_unpack_short_pivots():
    """Pivots shorter than min(m, n): torch 2.13 reads past their end (it raises or not depending on
    what memory follows), so torch is no reference here; Ember checks the shape before reading."""
    a = ember.from_numpy(R33)
    with pytest.raises(RuntimeError, match=r"lu_unpack\(\): expected 'LU_pivots' to have shape \[3\]"):
        ember.lu_unpack(a, ember.tensor([1, 2], dtype=ember.int32))


def test_ldl_solve_vector_rhs():
    """A 1-D B: torch's ldl_solve trips over its own dim check (IndexError); Ember names the rule."""
    a = ember.from_numpy(sym((3, 3)))
    with pytest.raises(RuntimeError, match="at least 2 dimensions"):
        ember.linalg.ldl_solve(*ember.linalg.ldl_factor(a), ember.from_numpy(rand((3,))))


def test_non_differentiable_kernels():
    """ldl_factor(_ex), ldl_solve and geqrf run on inputs that require grad (their int32 results
    without history) and refuse backward, as torch's do."""
    for m in (torch, ember):
        a = m.from_numpy(sym((3, 3))).requires_grad_(True)
        LD, pivots, info = m.linalg.ldl_factor_ex(a)
        assert LD.requires_grad and not pivots.requires_grad and not info.requires_grad
        for out in (LD, m.linalg.ldl_solve(LD.detach(), pivots, a), m.geqrf(a)[0]):
            with pytest.raises(RuntimeError, match="not implemented"):
                m.autograd.grad(out.sum(), [a])


def crand(shape, seed=0):
    return rand(shape, seed) + 1j * rand(shape, seed + 50)


@pytest.mark.parametrize("name,fn,arrays", [
    ("cross", lambda m, a, b: m.linalg.cross(a, b), [crand((2, 3)), crand((2, 3), 1)]),
    ("vecdot", lambda m, a, b: m.linalg.vecdot(a, b), [crand((2, 3)), crand((2, 3), 1)]),
    ("multi_dot", lambda m, a, b: m.linalg.multi_dot([a, b, a]), [crand((3, 3)), crand((3, 3), 1)]),
    ("matrix_power", lambda m, a: m.linalg.matrix_power(a, 3), [crand((2, 3, 3))]),
    ("norm", lambda m, a: m.linalg.norm(a), [crand((3, 4))]),
    ("vander", lambda m, a: m.linalg.vander(a), [crand((3,))]),
    ("addr", lambda m, s, a, b: m.addr(s, a, b), [crand((3, 4)), crand((3,)), crand((4,))]),
], ids=lambda v: v if isinstance(v, str) else "")
def test_complex_compositions(name, fn, arrays):
    """The compositions over ops Ember has for complex dtypes give torch's complex values."""
    check(fn, arrays, grad=False)
