"""ember.nn.functional's operators built from other ops (embedding, embedding_bag, one_hot,
dropout, pixel_shuffle, distances, pad, interpolate, unfold/fold): values and gradients
against torch.nn.functional on the same inputs, and their errors."""
from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import ember
import ember.nn.functional as EF
from test_linalg_nn import check_grads, close, pair


def ints(values):
    a = np.asarray(values, dtype=np.int64)
    return ember.from_numpy(a.copy()), torch.from_numpy(a.copy())


@pytest.mark.parametrize("padding_idx", [None, 2, -1])
@pytest.mark.parametrize("scale", [False, True])
def test_embedding(padding_idx, scale):
    w = pair((6, 3))
    ie, it = ints([[0, 2, 5], [2, 2, 1]])
    check_grads(lambda v: EF.embedding(ie, v, padding_idx=padding_idx, scale_grad_by_freq=scale),
                lambda v: TF.embedding(it, v, padding_idx=padding_idx, scale_grad_by_freq=scale), w)


def test_embedding_max_norm_renormalises_rows_in_place():
    we, wt = pair((6, 3), low=-3, high=3, grad=False)
    ie, it = ints([0, 4, 4])
    close(EF.embedding(ie, we, max_norm=1.0), TF.embedding(it, wt, max_norm=1.0), rtol=1e-6)
    close(we, wt, rtol=1e-6)  # rows 0 and 4 scaled, the rest untouched
    with pytest.raises(IndexError):
        EF.embedding(ints([7])[0], we)
    with pytest.raises(RuntimeError, match="int64 or int32"):
        EF.embedding(ember.tensor([1.0]), we)


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
@pytest.mark.parametrize("layout", ["2d", "offsets", "last_offset", "padding"])
def test_embedding_bag(mode, layout):
    w = pair((7, 3), seed=4)
    kw = {}
    if layout == "2d":
        ie, it = ints([[1, 2, 4], [4, 3, 2]])
        oe = ot = None
    else:
        ie, it = ints([1, 2, 4, 5, 4, 3, 2, 6])
        oe, ot = ints([0, 2, 2, 5] + ([8] if layout == "last_offset" else []))  # bag 1 is empty
        if layout == "last_offset":
            kw["include_last_offset"] = True
        if layout == "padding":
            kw["padding_idx"] = 4
    check_grads(lambda v: EF.embedding_bag(ie, v, oe, mode=mode, **kw),
                lambda v: TF.embedding_bag(it, v, ot, mode=mode, **kw), w)


def test_embedding_bag_per_sample_weights():
    w = pair((7, 3), seed=4)
    ie, it = ints([1, 2, 4, 5])
    oe, ot = ints([0, 1])
    pw = pair((4,), seed=6)
    check_grads(lambda v, s: EF.embedding_bag(ie, v, oe, mode="sum", per_sample_weights=s),
                lambda v, s: TF.embedding_bag(it, v, ot, mode="sum", per_sample_weights=s), w, pw)
    with pytest.raises(NotImplementedError):
        EF.embedding_bag(ie, w[0], oe, mode="mean", per_sample_weights=pw[0])


def test_one_hot():
    for values, n in (([0, 3, 1], -1), ([[1, 0], [2, 2]], 5), ([], 3)):
        e, t = ints(values)
        close(EF.one_hot(e, n), TF.one_hot(t, n))
    with pytest.raises(RuntimeError, match="non-negative"):
        EF.one_hot(ints([-1, 2])[0])
    with pytest.raises(RuntimeError, match="smaller than num_classes"):
        EF.one_hot(ints([1, 5])[0], 3)
    with pytest.raises(RuntimeError, match="empty tensor"):
        EF.one_hot(ints([])[0])
    with pytest.raises(RuntimeError, match="LongTensor"):
        EF.one_hot(ember.tensor([1.0]))


def test_dropout_statistics_and_scaling():
    ember.manual_seed(0)
    x = ember.ones(200_000)
    y = EF.dropout(x, 0.3).numpy()
    kept = y != 0
    assert abs(kept.mean() - 0.7) < 0.01
    np.testing.assert_allclose(y[kept], 1 / 0.7, rtol=1e-6)
    assert EF.dropout(x, 0.3, training=False) is x
    close(EF.dropout(x, 1.0), torch.zeros(200_000))
    # Gradients flow through the kept elements with the same scale.
    xg = ember.ones(1000, requires_grad=True)
    out = EF.dropout(xg, 0.5)
    out.sum().backward()
    np.testing.assert_allclose(xg.grad.numpy(), (out.detach().numpy() != 0) * 2.0)
    # In place, on whole channels, and the alpha form (mean and variance kept).
    z = ember.ones(4, 50, 3)
    EF.dropout2d(z, 0.5, inplace=True)
    zz = z.numpy()
    assert ((zz == 0).all(axis=2) | (zz == 2).all(axis=2)).all()
    a = EF.alpha_dropout(ember.randn(400_000), 0.2, training=True).numpy()
    assert abs(a.mean()) < 0.01 and abs(a.std() - 1) < 0.02
    with pytest.raises(ValueError, match="between 0 and 1"):
        EF.dropout(x, 1.5)


@pytest.mark.parametrize("shape,r", [((2, 8, 3, 2), 2), ((9, 2, 2), 3), ((1, 2, 4, 3, 3), 1)], ids=str)
def test_pixel_shuffle_round_trip(shape, r):
    x = pair(shape)
    check_grads(lambda v: EF.pixel_shuffle(v, r), lambda v: TF.pixel_shuffle(v, r), x)
    y = pair(tuple(shape[:-3]) + (shape[-3] // (r * r), shape[-2] * r, shape[-1] * r), seed=3)
    check_grads(lambda v: EF.pixel_unshuffle(v, r), lambda v: TF.pixel_unshuffle(v, r), y)
    with pytest.raises(RuntimeError, match="divisible"):
        EF.pixel_shuffle(ember.ones(1, 3, 2, 2), 2)


def test_distances():
    a, b = pair((4, 5)), pair((4, 5), seed=2)
    check_grads(lambda x, y: EF.cosine_similarity(x, y), lambda x, y: TF.cosine_similarity(x, y), a, b)
    check_grads(lambda x, y: EF.cosine_similarity(x, y, dim=0), lambda x, y: TF.cosine_similarity(x, y, dim=0), a, b)
    c = pair((5,), seed=3)
    check_grads(lambda x, y: EF.cosine_similarity(x, y, dim=-1), lambda x, y: TF.cosine_similarity(x, y, dim=-1), a, c)
    for p in (1.0, 2.0, 3.0):
        check_grads(lambda x, y: EF.pairwise_distance(x, y, p), lambda x, y: TF.pairwise_distance(x, y, p), a, b)
        check_grads(lambda x, y: ember.cdist(x, y, p), lambda x, y: torch.cdist(x, y, p), pair((2, 3, 4)),
                    pair((2, 5, 4), seed=7))
    with pytest.raises(RuntimeError, match="same number of columns"):
        ember.cdist(ember.ones(2, 3), ember.ones(2, 4))


PADS = [((3, 4), (1, 2)), ((2, 3, 4), (1, 0, 2, 1)), ((1, 2, 3, 4), (2, 1, 0, 1)), ((1, 1, 3, 3, 3), (1, 1, 1, 0, 0, 2))]


@pytest.mark.parametrize("mode", ["constant", "reflect", "replicate", "circular"])
@pytest.mark.parametrize("shape,amount", PADS, ids=str)
def test_pad(mode, shape, amount):
    if mode != "constant" and len(shape) == 2 and len(amount) == 2:
        shape = (1,) + shape
    x = pair(shape)
    kw = {"value": 1.5} if mode == "constant" else {}
    check_grads(lambda v: EF.pad(v, amount, mode=mode, **kw), lambda v: TF.pad(v, amount, mode=mode, **kw), x)


def test_pad_crop_and_errors():
    x = pair((3, 5))
    check_grads(lambda v: EF.pad(v, (-1, 2, 1, -2)), lambda v: TF.pad(v, (-1, 2, 1, -2)), x)
    with pytest.raises(RuntimeError, match="Padding size should be less than"):
        EF.pad(ember.ones(1, 2, 3), (3, 0), mode="reflect")
    with pytest.raises(ValueError, match="divisible by 2"):
        EF.pad(ember.ones(2), (1,))


INTERP = [((1, 2, 5), {"size": 8, "mode": "nearest"}), ((1, 2, 5), {"scale_factor": 0.6, "mode": "nearest"}),
          ((1, 2, 4, 5), {"size": (7, 3), "mode": "nearest-exact"}),
          ((1, 2, 5), {"size": 9, "mode": "linear"}), ((1, 2, 5), {"size": 9, "mode": "linear", "align_corners": True}),
          ((2, 1, 4, 5), {"scale_factor": 2, "mode": "bilinear"}),
          ((2, 1, 4, 5), {"size": (3, 7), "mode": "bilinear", "align_corners": True}),
          ((1, 2, 4, 5), {"size": (6, 9), "mode": "bicubic"}),
          ((1, 2, 4, 5), {"size": (6, 9), "mode": "bicubic", "align_corners": True}),
          ((1, 1, 2, 3, 4), {"scale_factor": (2, 1.5, 0.5), "mode": "trilinear"}),
          ((1, 2, 6, 6), {"size": (4, 3), "mode": "area"})]


@pytest.mark.parametrize("shape,kw", INTERP, ids=[str(k) for _, k in INTERP])
def test_interpolate(shape, kw):
    x = pair(shape)
    check_grads(lambda v: EF.interpolate(v, **kw), lambda v: TF.interpolate(v, **kw), x, rtol=1e-6, atol=1e-7)


def test_interpolate_errors():
    x = ember.ones(1, 1, 4)
    with pytest.raises(ValueError, match="align_corners"):
        EF.interpolate(x, size=3, mode="nearest", align_corners=True)
    with pytest.raises(ValueError, match="only one of size or scale_factor"):
        EF.interpolate(x)
    with pytest.raises(NotImplementedError):
        EF.interpolate(x, size=3, mode="bilinear")


@pytest.mark.parametrize("kw", [dict(kernel_size=2), dict(kernel_size=(2, 3), stride=2, padding=1),
                                dict(kernel_size=3, dilation=2, padding=2, stride=(1, 2))], ids=str)
def test_unfold_fold(kw):
    x = pair((2, 3, 6, 7))
    check_grads(lambda v: EF.unfold(v, **kw), lambda v: TF.unfold(v, **kw), x)
    cols_shape = tuple(TF.unfold(x[1].detach(), **kw).shape)
    c = pair(cols_shape, seed=5)
    check_grads(lambda v: EF.fold(v, (6, 7), **kw), lambda v: TF.fold(v, (6, 7), **kw), c)
    with pytest.raises(RuntimeError, match="sliding blocks"):
        EF.fold(c[0][:, :, :-1], (6, 7), **kw)


@pytest.mark.parametrize("fn,shape", [
    ("dropout1d", (30, 40)), ("dropout1d", (3, 40, 5)),
    ("dropout2d", (60, 40)), ("dropout2d", (3, 40, 5)), ("dropout2d", (2, 40, 3, 3)),
    ("dropout2d", (2, 30, 40, 2, 2)), ("dropout3d", (40, 3, 2, 2)), ("dropout3d", (2, 40, 2, 2, 2)),
    ("dropout3d", (20, 40, 2))], ids=str)
def test_feature_dropout_ranks_as_torch(fn, shape):
    """Which dims share a mask, and which ranks warn, for every rank torch accepts (its
    dropout2d takes a 3-D input as [N, C, L] and a 2-D one element-wise)."""
    import warnings

    def run(lib, F):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            y = getattr(F, fn)(lib.ones(*shape), 0.5, True).numpy()
        return y, sorted({str(x.message)[:40] for x in w})

    ey, ew = run(ember, EF)
    ty, tw = run(torch, torch.nn.functional)
    assert ew == tw

    def shared(y):   # the axes along which every mask is constant
        return [ax for ax in range(y.ndim) if y.shape[ax] > 1 and (y == y.take([0], axis=ax)).all()]

    assert shared(ey) == shared(ty)
    assert set(np.unique(ey)) <= {0.0, 2.0}


def test_dropout1d_bad_rank():
    with pytest.raises(RuntimeError, match="dropout1d: Expected 2D or 3D input, but received a 4D"):
        EF.dropout1d(ember.ones(1, 2, 3, 4))
