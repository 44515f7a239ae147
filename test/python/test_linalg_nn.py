"""Matrix products, einsum, softmax and losses through their Python APIs (ember.matmul,
ember.einsum, ember.nn.functional.*), values and gradients against PyTorch: the composites
the op table reaches only through their own rows, and PyTorch's Python-level signatures
(reduction strings, einsum's operand lists, tensordot's dims)."""
from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import ember
import ember.nn.functional as EF


def pair(shape, dtype="float64", seed=0, low=-2.0, high=2.0, grad=True, transpose=False):
    """The same random tensor in both libraries (float64 by default), leaves requiring grad."""
    rng = np.random.default_rng(seed)
    a = rng.uniform(low, high, shape).astype(dtype)
    if transpose and a.ndim >= 2:
        a = np.ascontiguousarray(a.swapaxes(-1, -2)).swapaxes(-1, -2)
    e, t = ember.from_numpy(a.copy()), torch.from_numpy(a.copy())
    if transpose and a.ndim >= 2:  # the same non-contiguous strides in both
        e = ember.from_numpy(np.ascontiguousarray(a.swapaxes(-1, -2))).transpose(-1, -2)
        t = torch.from_numpy(np.ascontiguousarray(a.swapaxes(-1, -2))).transpose(-1, -2)
    if grad:
        e = e.detach().requires_grad_(True)
        t = t.detach().requires_grad_(True)
    return e, t


def close(e, t, rtol=1e-7, atol=1e-9):
    """Ember's tensor equals PyTorch's in shape, dtype and values."""
    assert tuple(e.shape) == tuple(t.shape), (tuple(e.shape), tuple(t.shape))
    assert str(e.dtype).split(".")[-1] == str(t.dtype).split(".")[-1], (e.dtype, t.dtype)
    np.testing.assert_allclose(e.detach().numpy(), t.detach().numpy(), rtol=rtol, atol=atol)


def check_grads(fe, ft, *pairs, rtol=1e-7, atol=1e-9, seed=1):
    """Values of fe(ember inputs) and ft(torch inputs), then the gradients of a random
    weighted sum of the result."""
    re, rt = fe(*[p[0] for p in pairs]), ft(*[p[1] for p in pairs])
    close(re, rt, rtol, atol)
    g = np.random.default_rng(seed).uniform(-1, 1, tuple(rt.shape)).astype(str(rt.dtype).split(".")[-1])
    (re * ember.from_numpy(g.copy())).sum().backward()
    (rt * torch.from_numpy(g.copy())).sum().backward()
    for e, t in pairs:
        if t.grad is None:
            assert e.grad is None
            continue
        close(e.grad, t.grad, rtol, atol)


MATMUL_SHAPES = [((4,), (4,)), ((4,), (4, 5)), ((3, 4), (4,)), ((3, 4), (4, 5)), ((2, 3, 4), (4,)),
                 ((2, 3, 4), (4, 5)), ((4,), (2, 4, 5)), ((3, 4), (2, 4, 5)), ((2, 1, 3, 4), (5, 4, 2)),
                 ((2, 3, 4), (2, 4, 5)), ((1, 3, 4), (6, 4, 2)), ((7, 1, 2, 3), (1, 5, 3, 4)),
                 ((0, 3, 4), (4, 2)), ((2, 3, 0), (0, 4)), ((5, 0), (0,))]


@pytest.mark.parametrize("transpose", [False, True])
@pytest.mark.parametrize("shapes", MATMUL_SHAPES, ids=str)
def test_matmul_values_and_grads(shapes, transpose):
    a, b = pair(shapes[0], seed=1, transpose=transpose), pair(shapes[1], seed=2, transpose=transpose)
    check_grads(ember.matmul, torch.matmul, a, b)
    # The @ operator is matmul.
    close(a[0] @ b[0], a[1] @ b[1])


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_matmul_blas_sizes(dtype):
    # Shapes past the BLAS's blocking, and operands it reads transposed or copies.
    for (m, k, n), seed in (((257, 300, 129), 0), ((1, 512, 1), 1), ((64, 1, 64), 2)):
        a, b = pair((m, k), dtype, seed, grad=False), pair((k, n), dtype, seed + 10, grad=False)
        tol = dict(rtol=1e-4, atol=1e-4) if dtype == "float32" else {}
        close(ember.mm(a[0], b[0]), torch.mm(a[1], b[1]), **tol)
        close(ember.mm(a[0].t().contiguous().t(), b[0][:, :]), torch.mm(a[1], b[1]), **tol)
        close(ember.mm(b[0].t(), a[0].t()), torch.mm(b[1].t(), a[1].t()), **tol)


def test_mm_into_transposed_out():
    # A column-major out= is written in place (the transposed product).
    a, b = pair((30, 20), grad=False), pair((20, 10), seed=3, grad=False)
    out_e = ember.empty((10, 30), dtype=ember.float64).t()
    ember.mm(a[0], b[0], out=out_e)
    close(out_e, torch.mm(a[1], b[1]))
    # A strided out (every other column) goes through a buffer.
    base = ember.zeros((30, 20), dtype=ember.float64)
    ember.mm(a[0], b[0], out=base[:, ::2])
    close(base[:, ::2], torch.mm(a[1], b[1]))
    assert float(base[:, 1::2].abs().sum()) == 0.0


def test_mm_errors_name_the_op():
    x = ember.ones((2, 3))
    with pytest.raises(RuntimeError, match=r"mm\(\): mat1 and mat2 shapes cannot be multiplied \(2x3 and 4x5\)"):
        ember.mm(x, ember.ones((4, 5)))
    with pytest.raises(RuntimeError, match=r"same dtype"):
        ember.mm(x, ember.ones((3, 5), dtype=ember.float64))
    with pytest.raises(RuntimeError, match=r"2-d tensor"):
        ember.mm(x, ember.ones(3))
    with pytest.raises(RuntimeError, match=r"bmm\(\)"):
        ember.bmm(ember.ones((2, 3, 4)), ember.ones((3, 4, 5)))
    with pytest.raises(RuntimeError, match=r"matmul\(\).*batch dimensions"):
        ember.matmul(ember.ones((2, 3, 4)), ember.ones((3, 4, 5)))
    with pytest.raises(NotImplementedError):
        ember.mm(ember.ones((2, 2), dtype=ember.bool), ember.ones((2, 2), dtype=ember.bool))


EINSUM = [
    ("ij,jk->ik", [(3, 4), (4, 5)]),
    ("ij,jk", [(3, 4), (4, 5)]),
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
    ("ii->i", [(4, 4)]),
    ("ii", [(4, 4)]),
    ("ij->ji", [(3, 4)]),
    ("ij->", [(3, 4)]),
    ("i,i->", [(5,), (5,)]),
    ("i,j->ij", [(3,), (4,)]),
    ("...ij,...jk->...ik", [(2, 3, 4), (4, 5)]),
    ("b...,b...->b...", [(2, 3, 4), (2, 1, 4)]),
    ("i...->...", [(3, 2, 4)]),
    ("iij->ji", [(3, 3, 2)]),
    ("abc,cd,de->abe", [(2, 3, 4), (4, 5), (5, 2)]),
    ("ijk,ikl,jl->", [(2, 3, 4), (2, 4, 5), (3, 5)]),
    ("bhqd,bhkd->bhqk", [(2, 3, 4, 5), (2, 3, 6, 5)]),
    ("ij,ij->i", [(3, 4), (1, 4)]),
    ("Aa,aB->AB", [(2, 3), (3, 4)]),
    (" i j , j k -> i k ", [(3, 4), (4, 5)]),
    ("ij,kj->", [(0, 3), (2, 3)]),
]


@pytest.mark.parametrize("eq,shapes", EINSUM, ids=[e for e, _ in EINSUM])
def test_einsum_values_and_grads(eq, shapes):
    ops = [pair(s, seed=i + 1) for i, s in enumerate(shapes)]
    check_grads(lambda *x: ember.einsum(eq, *x), lambda *x: torch.einsum(eq, *x), *ops)
    # The operands as one list.
    close(ember.einsum(eq, [o[0] for o in ops]), torch.einsum(eq, [o[1] for o in ops]))


def test_einsum_errors():
    a = ember.ones((2, 3))
    for eq, args in (("ij,jk", [a, ember.ones((4, 5))]), ("ij,jk->ik", [a]), ("ii", [a]), ("i1", [a]),
                     ("ij->ii", [a]), ("ij->k", [a]), ("ijk", [a])):
        with pytest.raises(RuntimeError, match=r"einsum\(\)"):
            ember.einsum(eq, *args)


@pytest.mark.parametrize("dims", [2, 1, 0, ([0, 1], [1, 0]), ([2], [0])], ids=str)
def test_tensordot(dims):
    a, b = pair((4, 3, 2)), pair((2, 3, 5) if dims != ([0, 1], [1, 0]) else (3, 4, 5), seed=4)
    if dims == 2:
        b = pair((3, 2, 5), seed=4)
    if dims == 1 or dims == ([2], [0]):
        b = pair((2, 5), seed=4)
    check_grads(lambda x, y: ember.tensordot(x, y, dims), lambda x, y: torch.tensordot(x, y, dims), a, b)


def test_tensordot_errors():
    a, b = ember.ones(4, 3, 2), ember.ones(2, 5)
    with pytest.raises(TypeError):  # a pair of ints, not of lists (as PyTorch)
        ember.tensordot(a, b, (2, 0))
    with pytest.raises(RuntimeError, match="contracted dimensions need to match"):
        ember.tensordot(a, b, ([1], [0]))
    with pytest.raises(RuntimeError, match="dims >= 0"):
        ember.tensordot(a, b, -1)


def test_linear_addbmm_kron_outer_grads():
    x, w, bias = pair((5, 4)), pair((3, 4), seed=2), pair((3,), seed=3)
    check_grads(EF.linear, TF.linear, x, w, bias)
    x3 = pair((2, 5, 4), seed=5)
    check_grads(lambda a, b: EF.linear(a, b), lambda a, b: TF.linear(a, b), x3, w)
    s, b1, b2 = pair((3, 5)), pair((4, 3, 2), seed=2), pair((4, 2, 5), seed=3)
    check_grads(lambda *v: ember.addbmm(*v, beta=0.5, alpha=2), lambda *v: torch.addbmm(*v, beta=0.5, alpha=2),
                s, b1, b2)
    check_grads(ember.kron, torch.kron, pair((2, 3)), pair((3, 1, 2), seed=7))
    check_grads(ember.outer, torch.outer, pair((3,)), pair((4,), seed=8))


@pytest.mark.parametrize("fn", ["softmax", "log_softmax", "softmin"])
@pytest.mark.parametrize("shape,dim", [((4, 7), 1), ((4, 7), 0), ((2, 3, 5), 1), ((2, 300), -1), ((5,), 0),
                                       ((), 0), ((0, 3), 1)], ids=str)
def test_softmax_functional(fn, shape, dim):
    x = pair(shape)
    check_grads(lambda v: getattr(EF, fn)(v, dim=dim), lambda v: getattr(TF, fn)(v, dim=dim), x)


def test_softmax_double_backward():
    for fn in ("softmax", "log_softmax"):
        xe, xt = pair((3, 5))
        ye, yt = getattr(EF, fn)(xe, 1), getattr(TF, fn)(xt, 1)
        we = ember.from_numpy(np.linspace(-1, 1, 15).reshape(3, 5))
        wt = torch.from_numpy(np.linspace(-1, 1, 15).reshape(3, 5))
        (ge,) = ember.autograd.grad((ye * we).sum(), xe, create_graph=True)
        (gt,) = torch.autograd.grad((yt * wt).sum(), xt, create_graph=True)
        close(ge, gt)
        (ge2,) = ember.autograd.grad((ge * ge).sum(), xe)
        (gt2,) = torch.autograd.grad((gt * gt).sum(), xt)
        close(ge2, gt2)


def test_softmax_implicit_dim_warns_and_dtype():
    x = pair((2, 3), grad=False)
    with pytest.warns(UserWarning, match="Implicit dimension"):
        close(EF.softmax(x[0]), TF.softmax(x[1], dim=1))
    close(EF.softmax(x[0].float(), 1, dtype=ember.float64), TF.softmax(x[1].float(), 1, dtype=torch.float64))
    close(x[0].softmax(0), x[1].softmax(0))
    close(ember.log_softmax(x[0], 1), torch.log_softmax(x[1], 1))


def test_softmax_large_and_extreme_values():
    rng = np.random.default_rng(0)
    a = (rng.standard_normal((64, 4096)) * 30).astype(np.float32)
    a[0, :] = -np.inf
    a[1, 5] = np.inf
    a[2, 7] = np.nan
    a[3, :] = 1e30
    for fn in ("softmax", "log_softmax"):
        e = getattr(EF, fn)(ember.from_numpy(a), 1).numpy()
        t = getattr(TF, fn)(torch.from_numpy(a), 1).numpy()
        np.testing.assert_allclose(e, t, rtol=1e-5, atol=1e-6)


CLASSES = 5


def logits_and_targets(shape=(6, CLASSES), seed=0, ignore=None):
    x = pair(shape, seed=seed)
    tshape = (shape[0],) + tuple(shape[2:]) if len(shape) > 1 else ()
    t = np.random.default_rng(seed + 100).integers(0, shape[1] if len(shape) > 1 else shape[0], tshape)
    if ignore is not None and t.ndim:
        t.reshape(-1)[::3] = ignore
    return x, (ember.from_numpy(t.copy()), torch.from_numpy(t.copy()))


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("shape", [(6, CLASSES), (2, CLASSES, 3, 2), (CLASSES,), (0, CLASSES)], ids=str)
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("smoothing", [0.0, 0.25])
def test_cross_entropy_and_nll(reduction, shape, weighted, smoothing):
    x, (te, tt) = logits_and_targets(shape, ignore=1 if len(shape) > 1 else None)
    w = pair((shape[1] if len(shape) > 1 else shape[0],), low=0.5, high=2, seed=9, grad=False) if weighted else (None, None)
    kw = dict(reduction=reduction, ignore_index=1)
    check_grads(lambda v: EF.cross_entropy(v, te, weight=w[0], label_smoothing=smoothing, **kw),
                lambda v: TF.cross_entropy(v, tt, weight=w[1], label_smoothing=smoothing, **kw), x)
    x2 = pair(shape, seed=3)
    check_grads(lambda v: EF.nll_loss(EF.log_softmax(v, 1 if len(shape) > 1 else 0), te, weight=w[0], **kw),
                lambda v: TF.nll_loss(TF.log_softmax(v, 1 if len(shape) > 1 else 0), tt, weight=w[1], **kw), x2)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_cross_entropy_probabilities(reduction):
    x = pair((4, CLASSES))
    p = np.random.default_rng(1).dirichlet(np.ones(CLASSES), 4)
    pe, pt = pair((4, CLASSES), grad=True)
    pe, pt = ember.from_numpy(p.copy()).requires_grad_(True), torch.from_numpy(p.copy()).requires_grad_(True)
    w = pair((CLASSES,), low=0.5, high=2, seed=9, grad=False)
    check_grads(lambda v, q: EF.cross_entropy(v, q, weight=w[0], reduction=reduction, label_smoothing=0.1),
                lambda v, q: TF.cross_entropy(v, q, weight=w[1], reduction=reduction, label_smoothing=0.1),
                x, (pe, pt))


def test_nll_loss_errors():
    x = ember.zeros((3, 5))
    with pytest.raises(IndexError, match="Target 7 is out of bounds"):
        EF.nll_loss(x, ember.tensor([1, 7, 2]))
    with pytest.raises(ValueError, match=r"batch_size \(3\) to match target batch_size \(2\)"):
        EF.nll_loss(x, ember.tensor([1, 2]))
    with pytest.raises(RuntimeError, match="Long or Byte"):
        EF.nll_loss(x, ember.tensor([1.0, 2.0, 3.0]))
    with pytest.raises(RuntimeError, match="weight tensor should be defined"):
        EF.nll_loss(x, ember.tensor([1, 2, 3]), weight=ember.ones(4))
    with pytest.raises(ValueError, match="not a valid value for reduction"):
        EF.nll_loss(x, ember.tensor([1, 2, 3]), reduction="avg")
    with pytest.raises(RuntimeError, match="label_smoothing"):
        EF.cross_entropy(x, ember.tensor([1, 2, 3]), label_smoothing=2.0)


LOSSES = [
    ("mse_loss", {}), ("l1_loss", {}), ("smooth_l1_loss", {"beta": 0.5}), ("smooth_l1_loss", {"beta": 0.0}),
    ("huber_loss", {"delta": 0.7}), ("binary_cross_entropy_with_logits", {}),
    ("binary_cross_entropy_with_logits", {"pos_weight": "w"}), ("binary_cross_entropy", {}),
    ("binary_cross_entropy", {"weight": "w"}), ("kl_div", {}), ("kl_div", {"log_target": True}),
    ("mse_loss", {"weight": "full"}), ("l1_loss", {"weight": "full"}), ("huber_loss", {"weight": "full"}),
]


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("name,kw", LOSSES, ids=[f"{n}{kw}" for n, kw in LOSSES])
def test_pointwise_losses(name, kw, reduction):
    probs = name == "binary_cross_entropy"
    x = pair((4, 3), low=0.05 if probs else -2, high=0.95 if probs else 2, seed=1)
    y = pair((4, 3), low=0.0, high=1.0, seed=2)
    if name == "kl_div" and kw.get("log_target"):
        y = pair((4, 3), low=-3.0, high=0.0, seed=2)
    kwe, kwt = {}, {}
    for k, v in kw.items():
        if v == "w":
            e, t = pair((3,), low=0.5, high=2.0, seed=5, grad=False)
        elif v == "full":
            e, t = pair((4, 3), low=0.5, high=2.0, seed=5, grad=False)
        else:
            e = t = v
        kwe[k], kwt[k] = e, t
    check_grads(lambda a, b: getattr(EF, name)(a, b, reduction=reduction, **kwe),
                lambda a, b: getattr(TF, name)(a, b, reduction=reduction, **kwt), x, y)


def test_kl_div_batchmean_and_zero_targets():
    x = pair((4, 3), seed=1)
    t = np.random.default_rng(2).uniform(0, 1, (4, 3))
    t[0, 1] = 0.0
    check_grads(lambda a: EF.kl_div(a, ember.from_numpy(t.copy()), reduction="batchmean"),
                lambda a: TF.kl_div(a, torch.from_numpy(t.copy()), reduction="batchmean"), x)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_pair_losses(reduction):
    a, b = pair((5, 4), seed=1), pair((5, 4), seed=2)
    sign = np.random.default_rng(3).choice([-1.0, 1.0], 5)
    se, st = ember.from_numpy(sign.copy()), torch.from_numpy(sign.copy())
    check_grads(lambda x, y: EF.cosine_embedding_loss(x, y, se, margin=0.2, reduction=reduction),
                lambda x, y: TF.cosine_embedding_loss(x, y, st, margin=0.2, reduction=reduction), a, b)
    s2 = np.random.default_rng(4).choice([-1.0, 1.0], (5, 4))
    check_grads(lambda x, y: EF.margin_ranking_loss(x, y, ember.from_numpy(s2.copy()), margin=0.3, reduction=reduction),
                lambda x, y: TF.margin_ranking_loss(x, y, torch.from_numpy(s2.copy()), margin=0.3, reduction=reduction),
                a, b)
    n = pair((5, 4), seed=6)
    for p, swap in ((2, False), (1, True), (3, False)):
        check_grads(lambda x, y, z: EF.triplet_margin_loss(x, y, z, margin=0.5, p=p, swap=swap, reduction=reduction),
                    lambda x, y, z: TF.triplet_margin_loss(x, y, z, margin=0.5, p=p, swap=swap, reduction=reduction),
                    a, b, n)


def test_loss_errors():
    x = ember.zeros((3, 2))
    with pytest.raises(RuntimeError, match="between 0 and 1"):
        EF.binary_cross_entropy(x + 2, x)
    with pytest.raises(ValueError, match="target size"):
        EF.binary_cross_entropy(x, ember.zeros((2, 2)))
    with pytest.raises(RuntimeError, match="non-positive values for delta"):
        EF.huber_loss(x, x, delta=0.0)
    with pytest.raises(RuntimeError, match="negative values for beta"):
        EF.smooth_l1_loss(x, x, beta=-1.0)
    with pytest.raises(ValueError, match="Weights and input must have the same size"):
        EF.mse_loss(x, x, weight=ember.ones(2))


def test_softmax_backward_ops_check_their_inputs():
    y = EF.softmax(ember.ones(3, 4), 1)
    for op in (ember._softmax_backward_data, ember._log_softmax_backward_data):
        with pytest.raises(RuntimeError, match="one shape"):
            op(ember.ones(4, 3), y, 1, ember.float32)
        with pytest.raises(RuntimeError, match="one dtype"):
            op(ember.ones(3, 4, dtype=ember.float64), y, 1, ember.float32)
        with pytest.raises(IndexError):
            op(ember.ones(3, 4), y, 2, ember.float32)
