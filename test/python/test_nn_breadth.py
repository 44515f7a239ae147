"""The nn.functional losses, pools, shuffles and samplers added for breadth (soft_margin_loss ...
gumbel_softmax) and their modules, against torch: values, gradients, reductions, edge shapes, errors."""
import numpy as np
import pytest

import ember
import ember.nn as enn
import ember.nn.functional as F

torch = pytest.importorskip("torch")
TF = torch.nn.functional

DTYPES = {"float32": (np.float32, 1e-4), "float64": (np.float64, 1e-9)}
REDUCTIONS = ["mean", "sum", "none"]


def to_np(t):
    return t.detach().numpy() if isinstance(t, torch.Tensor) else np.asarray(t.detach())


def compare(tfn, efn, arrays, grads, tol, noncontiguous=False):
    """tfn and efn on the same arrays; outputs and the gradients of the arrays marked in grads."""
    tin = [torch.tensor(a, requires_grad=g) for a, g in zip(arrays, grads)]
    ein = [ember.from_numpy(np.array(a)) for a in arrays]
    ein = [e.requires_grad_() if g else e for e, g in zip(ein, grads)]
    tv, ev = tin, ein
    if noncontiguous:
        tv = [t.transpose(0, -1) if t.dim() > 1 else t for t in tin]
        ev = [e.transpose(0, -1) if e.dim() > 1 else e for e in ein]
    tout, eout = tfn(*tv), efn(*ev)
    assert tuple(eout.shape) == tuple(tout.shape)
    np.testing.assert_allclose(to_np(eout), to_np(tout), rtol=tol, atol=tol)
    if any(grads) and tout.numel():
        g = np.random.default_rng(1).standard_normal(tuple(tout.shape)).astype(to_np(tout).dtype)
        (tout * torch.tensor(g)).sum().backward()
        (eout * ember.from_numpy(g.copy())).sum().backward()
        for i, (t, e, gr) in enumerate(zip(tin, ein, grads)):
            if gr:
                np.testing.assert_allclose(to_np(e.grad), to_np(t.grad), rtol=tol, atol=tol, err_msg=f"grad {i}")


def rnd(shape, dtype, seed=0, scale=1.0):
    return (np.random.default_rng(seed).standard_normal(shape) * scale).astype(DTYPES[dtype][0])


def sign(shape, dtype, seed=3):
    return np.where(np.random.default_rng(seed).random(shape) < 0.5, -1.0, 1.0).astype(DTYPES[dtype][0])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("nc", [False, True])
def test_pointwise_losses(dtype, reduction, nc):
    tol = DTYPES[dtype][1]
    x, y = rnd((3, 4), dtype), sign((3, 4), dtype)
    for name in ("soft_margin_loss", "hinge_embedding_loss"):
        compare(lambda a, b: getattr(TF, name)(a, b, reduction=reduction),
                lambda a, b: getattr(F, name)(a, b, reduction=reduction), [x, y], [True, False], tol, nc)
    compare(lambda a, b: TF.hinge_embedding_loss(a, b, margin=0.5, reduction=reduction),
            lambda a, b: F.hinge_embedding_loss(a, b, margin=0.5, reduction=reduction), [x, y], [True, False], tol)
    counts = np.abs(rnd((3, 4), dtype, 5, 3)).round() + 1  # torch: nan target gradient at 0 when full
    for log_input, full in [(True, False), (False, False), (True, True), (False, True)]:
        inp = x if log_input else np.abs(x) + 0.1
        compare(lambda a, b: TF.poisson_nll_loss(a, b, log_input, full, reduction=reduction),
                lambda a, b: F.poisson_nll_loss(a, b, log_input, full, reduction=reduction),
                [inp, counts], [True, True], tol, nc)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_gaussian_nll_loss(dtype, reduction):
    tol = DTYPES[dtype][1]
    x, y = rnd((4, 3), dtype), rnd((4, 3), dtype, 1)
    for vshape in [(4, 3), (4,), (4, 1)]:
        var = np.abs(rnd(vshape, dtype, 2)) + 1e-7 * (vshape == (4,))
        for full in (False, True):
            compare(lambda a, b, v: TF.gaussian_nll_loss(a, b, v, full, reduction=reduction),
                    lambda a, b, v: F.gaussian_nll_loss(a, b, v, full, reduction=reduction),
                    [x, y, var], [True, True, True], tol)
    compare(lambda a, b: TF.gaussian_nll_loss(a, b, 0.7, reduction=reduction),
            lambda a, b: F.gaussian_nll_loss(a, b, 0.7, reduction=reduction), [x, y], [True, True], tol)
    e = ember.from_numpy(x)
    with pytest.raises(ValueError, match="negative"):
        F.gaussian_nll_loss(e, e, -1.0)
    with pytest.raises(ValueError, match="incorrect size"):
        F.gaussian_nll_loss(e, e, ember.ones(2, 2, dtype=e.dtype))
    with pytest.raises(ValueError, match="not valid"):
        F.gaussian_nll_loss(e, e, 1.0, reduction="bad")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_multilabel_soft_margin_and_multi_margin(dtype, reduction):
    tol = DTYPES[dtype][1]
    x = rnd((5, 4), dtype)
    t01 = (sign((5, 4), dtype) > 0).astype(x.dtype)
    w = np.abs(rnd((4,), dtype, 4))
    compare(lambda a, b: TF.multilabel_soft_margin_loss(a, b, reduction=reduction),
            lambda a, b: F.multilabel_soft_margin_loss(a, b, reduction=reduction), [x, t01], [True, True], tol)
    compare(lambda a, b, c: TF.multilabel_soft_margin_loss(a, b, c, reduction=reduction),
            lambda a, b, c: F.multilabel_soft_margin_loss(a, b, c, reduction=reduction), [x, t01, w],
            [True, False, False], tol)
    y = np.array([0, 3, 1, 1, 2])
    for p, margin in [(1, 1.0), (2, 0.5)]:
        compare(lambda a, b: TF.multi_margin_loss(a, b, p, margin, reduction=reduction),
                lambda a, b: F.multi_margin_loss(a, b, p, margin, reduction=reduction), [x, y], [True, False], tol)
        compare(lambda a, b, c: TF.multi_margin_loss(a, b, p, margin, c, reduction=reduction),
                lambda a, b, c: F.multi_margin_loss(a, b, p, margin, c, reduction=reduction), [x, y, w],
                [True, False, False], tol)
    compare(lambda a, b: TF.multi_margin_loss(a, b, reduction=reduction),
            lambda a, b: F.multi_margin_loss(a, b, reduction=reduction), [x[0], y[:1]], [True, False], tol)
    with pytest.raises(ValueError):
        F.multi_margin_loss(ember.from_numpy(x), ember.from_numpy(y), p=3)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_multilabel_margin_loss(dtype, reduction):
    tol = DTYPES[dtype][1]
    x = rnd((3, 5), dtype)
    y = np.array([[3, 0, -1, 1, 1], [1, 2, 3, 4, 0], [-1, 2, 0, 0, 0]])
    compare(lambda a, b: TF.multilabel_margin_loss(a, b, reduction=reduction),
            lambda a, b: F.multilabel_margin_loss(a, b, reduction=reduction), [x, y], [True, False], tol)
    compare(lambda a, b: TF.multilabel_margin_loss(a, b, reduction=reduction),
            lambda a, b: F.multilabel_margin_loss(a, b, reduction=reduction), [x[0], y[0]], [True, False], tol)
    with pytest.raises(RuntimeError, match="multilabel_margin_loss"):
        F.multilabel_margin_loss(ember.from_numpy(x), ember.from_numpy(y[:2]))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_triplet_margin_with_distance_loss(dtype, reduction):
    tol = DTYPES[dtype][1]
    a, p, n = rnd((4, 3), dtype), rnd((4, 3), dtype, 1), rnd((4, 3), dtype, 2)
    for swap in (False, True):
        compare(lambda *t: TF.triplet_margin_with_distance_loss(*t, swap=swap, reduction=reduction),
                lambda *t: F.triplet_margin_with_distance_loss(*t, swap=swap, reduction=reduction),
                [a, p, n], [True, True, True], tol)
    compare(lambda *t: TF.triplet_margin_with_distance_loss(
                *t, distance_function=lambda u, v: 1 - TF.cosine_similarity(u, v), margin=0.3, reduction=reduction),
            lambda *t: F.triplet_margin_with_distance_loss(
                *t, distance_function=lambda u, v: 1 - F.cosine_similarity(u, v), margin=0.3, reduction=reduction),
            [a, p, n], [True, True, True], tol)
    e = ember.from_numpy(a)
    with pytest.raises(ValueError, match="margin"):
        F.triplet_margin_with_distance_loss(e, e, e, margin=0)
    with pytest.raises(RuntimeError, match="dimensions"):
        F.triplet_margin_with_distance_loss(e, e, e[0])


@pytest.mark.parametrize("dtype", DTYPES)
def test_pools_shuffle_pdist(dtype):
    tol = DTYPES[dtype][1]
    x = np.abs(rnd((2, 3, 6, 6, 4), dtype)) + 0.1
    compare(lambda a: TF.lp_pool1d(a, 2, 3), lambda a: F.lp_pool1d(a, 2, 3), [x[:, :, 0, 0]], [True], tol)
    compare(lambda a: TF.lp_pool1d(a, 1.5, 2, 1, True), lambda a: F.lp_pool1d(a, 1.5, 2, 1, True),
            [x[:, :, 0, 0]], [True], tol)
    compare(lambda a: TF.lp_pool2d(a, 2, (2, 3)), lambda a: F.lp_pool2d(a, 2, (2, 3)), [x[..., 0]], [True], tol)
    compare(lambda a: TF.lp_pool2d(a, 3, 2, 1), lambda a: F.lp_pool2d(a, 3, 2, 1), [x[..., 0]], [True], tol)
    compare(lambda a: TF.lp_pool3d(a, 2, 2), lambda a: F.lp_pool3d(a, 2, 2), [x], [True], tol)
    y = rnd((2, 6, 3, 2), dtype)
    compare(lambda a: TF.channel_shuffle(a, 3), lambda a: F.channel_shuffle(a, 3), [y], [True], tol)
    compare(lambda a: TF.native_channel_shuffle(a, 2), lambda a: F.native_channel_shuffle(a, 2), [y], [False], tol)
    with pytest.raises(RuntimeError, match="divisible"):
        F.channel_shuffle(ember.from_numpy(y), 4)
    with pytest.raises(RuntimeError, match="3 dimensions"):
        F.channel_shuffle(ember.from_numpy(y[0, 0]), 1)
    for p in (1, 2, 3.5):
        compare(lambda a: TF.pdist(a, p), lambda a: F.pdist(a, p), [rnd((5, 3), dtype)], [True], tol)
    compare(lambda a: TF.pdist(a), lambda a: F.pdist(a), [rnd((1, 3), dtype)], [False], tol)
    with pytest.raises(RuntimeError, match="2D"):
        F.pdist(ember.from_numpy(y))


@pytest.mark.parametrize("dtype", DTYPES)
def test_inplace_activations_and_rrelu(dtype):
    tol = DTYPES[dtype][1]
    x = rnd((3, 4), dtype)
    for name, args in [("celu_", (0.7,)), ("selu_", ())]:
        t, e = torch.tensor(x), ember.from_numpy(x.copy())
        r = getattr(F, name)(e, *args)
        assert r is e
        np.testing.assert_allclose(to_np(e), getattr(TF, name)(t, *args).numpy(), rtol=tol, atol=tol)
    compare(lambda a: TF.rrelu(a, 0.1, 0.3), lambda a: F.rrelu(a, 0.1, 0.3), [x], [True], tol, True)
    e = ember.from_numpy(x.copy()).requires_grad_()
    out = F.rrelu(e, 0.1, 0.3, training=True)
    slope = to_np(out) / x
    assert np.allclose(slope[x >= 0], 1) and ((slope[x < 0] >= 0.1 - tol) & (slope[x < 0] <= 0.3 + tol)).all()
    out.sum().backward()
    np.testing.assert_allclose(to_np(e.grad), slope, rtol=tol, atol=tol)
    m = enn.RReLU(0.1, 0.3).eval()
    np.testing.assert_allclose(to_np(m(ember.from_numpy(x))), TF.rrelu(torch.tensor(x), 0.1, 0.3).numpy(), rtol=tol)


@pytest.mark.parametrize("hard", [False, True])
def test_gumbel_softmax(hard):
    e = ember.from_numpy(rnd((4, 5), "float64")).requires_grad_()
    out = F.gumbel_softmax(e, tau=0.5, hard=hard)
    assert tuple(out.shape) == (4, 5)
    o = to_np(out)
    np.testing.assert_allclose(o.sum(-1), 1, rtol=1e-9)
    if hard:
        assert set(np.unique(o)) <= {0.0, 1.0}
    (out * ember.arange(5.0, dtype=ember.float64)).sum().backward()
    assert e.grad is not None and np.isfinite(to_np(e.grad)).all() and np.abs(to_np(e.grad)).sum() > 0
    np.testing.assert_allclose(to_np(e.grad).sum(-1), 0, atol=1e-9)  # softmax's gradient sums to zero
    assert tuple(F.gumbel_softmax(ember.zeros(2, 3, 4), dim=1, hard=True).sum(1).shape) == (2, 4)


def test_upsample_aliases():
    x = rnd((1, 2, 3, 3), "float64")
    for name in ("upsample_nearest", "upsample_bilinear"):
        with pytest.warns(UserWarning):
            got = getattr(F, name)(ember.from_numpy(x), scale_factor=2)
        with pytest.warns(UserWarning):
            want = getattr(TF, name)(torch.tensor(x), scale_factor=2)
        np.testing.assert_allclose(to_np(got), want.numpy(), rtol=1e-9)


LOSS_MODULES = [
    ("SoftMarginLoss", {}, "sign"), ("HingeEmbeddingLoss", {"margin": 0.4}, "sign"),
    ("PoissonNLLLoss", {"full": True}, "count"), ("MultiLabelSoftMarginLoss", {}, "01"),
    ("MultiMarginLoss", {"p": 2}, "class"), ("MultiLabelMarginLoss", {}, "labels"),
]


@pytest.mark.parametrize("name,kwargs,kind", LOSS_MODULES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_loss_modules(name, kwargs, kind, reduction):
    x = rnd((3, 4), "float64")
    y = {"sign": sign((3, 4), "float64"), "count": np.abs(rnd((3, 4), "float64", 2, 3)).round(),
         "01": (sign((3, 4), "float64") > 0).astype(np.float64), "class": np.array([0, 3, 2]),
         "labels": np.array([[1, -1, 0, 0], [3, 2, 1, 0], [0, 1, -1, 2]])}[kind]
    compare(getattr(torch.nn, name)(reduction=reduction, **kwargs), getattr(enn, name)(reduction=reduction, **kwargs),
            [x, y], [True, False], 1e-9)


def test_other_loss_modules():
    a, p, n = (rnd((4, 3), "float64", s) for s in range(3))
    var = np.abs(rnd((4, 3), "float64", 5))
    compare(torch.nn.GaussianNLLLoss(full=True), enn.GaussianNLLLoss(full=True), [a, p, var], [True] * 3, 1e-9)
    compare(torch.nn.TripletMarginWithDistanceLoss(swap=True), enn.TripletMarginWithDistanceLoss(swap=True),
            [a, p, n], [True] * 3, 1e-9)
    with pytest.raises(ValueError):
        enn.TripletMarginWithDistanceLoss(margin=-1)
    with pytest.raises(ValueError):
        enn.MultiMarginLoss(p=3)


PAD_MODULES = [(f"{kind}Pad{n}d", n) for kind in ("Zero", "Reflection", "Replication", "Circular")
               for n in (1, 2, 3)]


@pytest.mark.parametrize("name,n", PAD_MODULES)
def test_padding_modules(name, n):
    x = rnd((2, 3, 4, 5, 6)[:n + 2], "float64")
    for padding in (1, tuple(range(1, 2 * n + 1))):
        padding = tuple(min(v, 3) for v in padding) if isinstance(padding, tuple) else padding
        compare(getattr(torch.nn, name)(padding), getattr(enn, name)(padding), [x], [True], 1e-9)
    for m in (1, 2, 3):
        cm_t, cm_e = getattr(torch.nn, f"ConstantPad{m}d")(2, 1.5), getattr(enn, f"ConstantPad{m}d")(2, 1.5)
        compare(cm_t, cm_e, [rnd((2, 3, 4, 5)[:m + 1], "float64")], [True], 1e-9)


def test_vision_modules():
    x = rnd((2, 8, 3, 4), "float64")
    for t, e, arr in [
        (torch.nn.PixelShuffle(2), enn.PixelShuffle(2), x), (torch.nn.PixelUnshuffle(2), enn.PixelUnshuffle(2),
                                                              rnd((2, 2, 4, 6), "float64")),
        (torch.nn.ChannelShuffle(4), enn.ChannelShuffle(4), x), (torch.nn.Softmax2d(), enn.Softmax2d(), x),
        (torch.nn.Upsample(scale_factor=2, mode="bilinear"), enn.Upsample(scale_factor=2, mode="bilinear"), x),
        (torch.nn.Upsample(size=(5, 7)), enn.Upsample(size=(5, 7)), x),
        (torch.nn.UpsamplingNearest2d(scale_factor=3), enn.UpsamplingNearest2d(scale_factor=3), x),
        (torch.nn.UpsamplingBilinear2d(size=(6, 5)), enn.UpsamplingBilinear2d(size=(6, 5)), x),
        (torch.nn.Unfold(2, padding=1), enn.Unfold(2, padding=1), x),
        (torch.nn.Fold((3, 4), 2, padding=1), enn.Fold((3, 4), 2, padding=1), rnd((2, 8, 20), "float64")),
        (torch.nn.LPPool2d(2, 2), enn.LPPool2d(2, 2), np.abs(x) + 0.1),
        (torch.nn.LPPool1d(3, 2), enn.LPPool1d(3, 2), np.abs(x[0]) + 0.1),
        (torch.nn.LPPool3d(2, (1, 2, 2)), enn.LPPool3d(2, (1, 2, 2)), np.abs(x[None]) + 0.1),
    ]:
        compare(t, e, [arr], [True], 1e-9)
    with pytest.raises(ValueError, match="Softmax2d"):
        enn.Softmax2d()(ember.zeros(3))
    a, b = rnd((4, 5), "float64"), rnd((4, 5), "float64", 1)
    compare(torch.nn.CosineSimilarity(0), enn.CosineSimilarity(0), [a, b], [True, True], 1e-9)
    compare(torch.nn.PairwiseDistance(1.0, keepdim=True), enn.PairwiseDistance(1.0, keepdim=True), [a, b],
            [True, True], 1e-9)


def test_empty_inputs():
    x, y = np.zeros((0, 4)), np.zeros((0, 4))
    for name in ("soft_margin_loss", "hinge_embedding_loss", "poisson_nll_loss"):
        for reduction in ("sum", "none"):
            compare(lambda a, b: getattr(TF, name)(a, b, reduction=reduction),
                    lambda a, b: getattr(F, name)(a, b, reduction=reduction), [x, y], [True, False], 1e-9)


def test_bad_reduction():
    e = ember.zeros(3)
    for fn in (F.soft_margin_loss, F.hinge_embedding_loss, F.poisson_nll_loss, F.multilabel_soft_margin_loss):
        with pytest.raises(ValueError, match="not a valid value for reduction"):
            fn(e, e, reduction="bad")


def test_errors_and_legacy_reduction():
    x = ember.from_numpy(rnd((3, 4), "float64"))
    with pytest.raises(IndexError, match="multi_margin_loss"):
        F.multi_margin_loss(x, ember.tensor([0, 4, 1]))
    with pytest.raises(RuntimeError, match="multi_margin_loss"):
        F.multi_margin_loss(x, ember.tensor([0, 1]))
    with pytest.raises(RuntimeError, match="multilabel_margin_loss"):
        F.multilabel_margin_loss(x, ember.full((3, 4), 7))
    with pytest.raises(RuntimeError, match="pdist"):
        F.pdist(x, -1)
    y = sign((3, 4), "float64")
    for kw in ({"size_average": False}, {"reduce": False}):
        np.testing.assert_allclose(to_np(F.soft_margin_loss(x, ember.from_numpy(y), **kw)),
                                   TF.soft_margin_loss(torch.tensor(to_np(x)), torch.tensor(y), **kw).numpy())


def test_rrelu_inplace_and_gumbel_straight_through():
    x = rnd((3, 4), "float64")
    e = ember.from_numpy(x.copy())
    assert F.rrelu_(e, 0.2, 0.2, training=True) is e
    np.testing.assert_allclose(to_np(e), np.where(x >= 0, x, 0.2 * x))
    ember.manual_seed(0)
    s = ember.from_numpy(x.copy()).requires_grad_()
    soft = F.gumbel_softmax(s, tau=0.7)
    ember.manual_seed(0)
    h = ember.from_numpy(x.copy()).requires_grad_()
    hard = F.gumbel_softmax(h, tau=0.7, hard=True)
    np.testing.assert_allclose(to_np(hard), np.eye(4)[to_np(soft).argmax(-1)])
    w = ember.from_numpy(rnd((3, 4), "float64", 9))
    (soft * w).sum().backward()
    (hard * w).sum().backward()
    np.testing.assert_allclose(to_np(h.grad), to_np(s.grad), rtol=1e-12)
