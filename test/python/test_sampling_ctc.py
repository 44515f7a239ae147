"""grid_sample / affine_grid / grid_sampler_2d and ctc_loss / _ctc_loss against PyTorch: values
and gradients for every mode, padding and align_corners, float32 and float64, non-contiguous
and empty inputs, padded and concatenated targets, every reduction, and the errors."""
from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest
import torch
import torch.nn.functional as F

import ember
from ember.nn.functional import affine_grid, ctc_loss, grid_sample

MODES = ("bilinear", "nearest", "bicubic")
PADDINGS = ("zeros", "border", "reflection")
DTYPES = {"float32": (torch.float32, 1e-5, 1e-5), "float64": (torch.float64, 1e-10, 1e-10)}


def to_ember(t: torch.Tensor) -> ember.Tensor:
    """A copy of t's values as a contiguous Ember tensor."""
    return ember.from_numpy(t.detach().contiguous().numpy().copy())


def close(e, t, rtol, atol, what=""):
    """Ember tensor e equals PyTorch tensor t (NaN where NaN) within the tolerance."""
    assert e is not None and t is not None, what
    assert tuple(e.shape) == tuple(t.shape), f"{what}: shape {tuple(e.shape)} vs {tuple(t.shape)}"
    np.testing.assert_allclose(e.detach().numpy(), t.detach().numpy(), rtol=rtol, atol=atol, err_msg=what)


def grid_values(shape, dtype, seed, lo=-1.3, hi=1.3):
    g = torch.Generator().manual_seed(seed)
    return torch.rand(shape, generator=g, dtype=torch.float64).mul(hi - lo).add(lo).to(dtype)


# ---- grid_sample -------------------------------------------------------------------------

def run_grid_sample(x, g, mode, padding, align, layout):
    """(Ember output, grads) and (PyTorch output, grads) of grid_sample on the same values;
    layout "permuted" passes an input viewed through a permute and a transposed grid."""
    gout = torch.randn(x.shape[0], x.shape[1], g.shape[1], g.shape[2], dtype=x.dtype,
                       generator=torch.Generator().manual_seed(7))
    results = []
    for lib in (torch, ember):
        conv = (lambda t: t.clone()) if lib is torch else to_ember
        if layout == "permuted":
            xi = conv(x.permute(0, 2, 3, 1)).requires_grad_()
            gi = conv(g.transpose(1, 2)).requires_grad_()
            xv, gv = xi.permute(0, 3, 1, 2), gi.transpose(1, 2)
        else:
            xi, gi = conv(x).requires_grad_(), conv(g).requires_grad_()
            xv, gv = xi, gi
        fn = F.grid_sample if lib is torch else grid_sample
        out = fn(xv, gv, mode=mode, padding_mode=padding, align_corners=align)
        grads = lib.autograd.grad([out], [xi, gi], [conv(gout)])
        results.append((out, grads))
    return results


@pytest.mark.parametrize("layout", ("contiguous", "permuted"))
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("mode,padding,align", list(itertools.product(MODES, PADDINGS, (False, True))))
def test_grid_sample_values_and_gradients(mode, padding, align, dtype, layout):
    tdt, rtol, atol = DTYPES[dtype]
    x = torch.randn(2, 3, 5, 7, dtype=tdt, generator=torch.Generator().manual_seed(1))
    g = grid_values((2, 4, 6, 2), tdt, 2)
    (t_out, t_grads), (e_out, e_grads) = run_grid_sample(x, g, mode, padding, align, layout)
    close(e_out, t_out, rtol, atol, "output")
    # Gradients sum over channels and taps in another order: float32 within 1e-4.
    gtol = (1e-4, 1e-5) if dtype == "float32" else (1e-9, 1e-10)
    close(e_grads[0], t_grads[0], *gtol, "grad input")
    close(e_grads[1], t_grads[1], *gtol, "grad grid")


def test_grid_sample_nearest_rounds_half_to_even():
    # W = 4 without align_corners: x = 2 * g + 1.5, so g = k / 4 lands on every half pixel.
    x = torch.arange(4.0).reshape(1, 1, 1, 4)
    gx = torch.tensor([-1.0, -0.75, -0.5, -0.25, 0.0, 0.25, 0.5, 0.75, 1.0])
    g = torch.stack([gx, torch.zeros_like(gx)], -1).reshape(1, 1, -1, 2)
    for padding in PADDINGS:
        t = F.grid_sample(x, g, mode="nearest", padding_mode=padding, align_corners=False)
        e = grid_sample(to_ember(x), to_ember(g), mode="nearest", padding_mode=padding)
        close(e, t, 0, 0, padding)
    assert grid_sample(to_ember(x), to_ember(g), mode="nearest").numpy().ravel().tolist() == \
        [0.0, 0.0, 0.0, 1.0, 2.0, 2.0, 2.0, 3.0, 0.0]


def test_grid_sample_far_and_nonfinite_coordinates_read_nothing():
    x = torch.randn(1, 2, 3, 3)
    g = torch.tensor([[[[1e30, 0.0], [-1e30, 0.5], [0.0, 5.0], [40.0, -40.0]]]])
    for mode in MODES:
        t = F.grid_sample(x, g, mode=mode, padding_mode="zeros", align_corners=False)
        close(grid_sample(to_ember(x), to_ember(g), mode=mode), t, 1e-5, 1e-6, mode)
    for padding in ("border", "reflection"):
        t = F.grid_sample(x, g, mode="bilinear", padding_mode=padding, align_corners=True)
        e = grid_sample(to_ember(x), to_ember(g), padding_mode=padding, align_corners=True)
        close(e, t, 1e-5, 1e-6, padding)


@pytest.mark.parametrize("mode", MODES)
def test_grid_sample_gradcheck(mode):
    """Finite differences in float64 (away from the kinks at pixel boundaries)."""
    rng = np.random.default_rng(3)
    x = ember.from_numpy(rng.standard_normal((1, 2, 4, 5))).requires_grad_()
    g = ember.from_numpy(rng.uniform(-1.1, 1.1, (1, 3, 2, 2))).requires_grad_()
    for padding in PADDINGS:
        assert ember.autograd.gradcheck(lambda a, b: grid_sample(a, b, mode, padding, False), (x, g),
                                        atol=1e-5, rtol=1e-4)


@pytest.mark.parametrize("shapes", [((0, 3, 5, 6), (0, 2, 2, 2)), ((2, 0, 5, 6), (2, 2, 2, 2)),
                                    ((2, 3, 5, 6), (2, 0, 4, 2))])
def test_grid_sample_empty(shapes):
    xs, gs = shapes
    x, g = torch.randn(xs), grid_values(gs, torch.float32, 0)
    t = F.grid_sample(x, g, align_corners=False)
    e = grid_sample(to_ember(x).requires_grad_(), to_ember(g).requires_grad_())
    assert tuple(e.shape) == tuple(t.shape)
    ex, eg = to_ember(x).requires_grad_(), to_ember(g).requires_grad_()
    gx, gg = ember.autograd.grad([grid_sample(ex, eg)], [ex, eg], [ember.ones(tuple(t.shape))])
    assert tuple(gx.shape) == xs and tuple(gg.shape) == gs
    assert not gx.numpy().any() and not gg.numpy().any()


def test_grid_sampler_2d_backward_output_mask():
    x, g = torch.randn(2, 3, 4, 5, dtype=torch.float64), grid_values((2, 3, 2, 2), torch.float64, 4)
    go = torch.randn(2, 3, 3, 2, dtype=torch.float64)
    t_in, t_grid = torch.ops.aten.grid_sampler_2d_backward(go, x, g, 0, 1, True, [True, True])
    args = (to_ember(go), to_ember(x), to_ember(g), 0, 1, True)
    e_in, e_grid = ember.grid_sampler_2d_backward(*args, [False, True])
    assert e_in is None
    close(e_grid, t_grid, 1e-10, 1e-10)
    e_in, e_grid = ember.grid_sampler_2d_backward(*args, [True, False])
    assert e_grid is None
    close(e_in, t_in, 1e-10, 1e-10)
    # Nearest sampling: zero grid gradient.
    _, e_grid = ember.grid_sampler_2d_backward(to_ember(go), to_ember(x), to_ember(g), 1, 0, False, [True, True])
    assert not e_grid.numpy().any()


def test_grid_sample_only_input_or_only_grid_requires_grad():
    x, g = torch.randn(1, 2, 4, 4, dtype=torch.float64), grid_values((1, 3, 3, 2), torch.float64, 5)
    tx, tg = x.clone().requires_grad_(), g.clone().requires_grad_()
    t_gx, = torch.autograd.grad(F.grid_sample(tx, g, align_corners=False).sum(), [tx])
    t_gg, = torch.autograd.grad(F.grid_sample(x, tg, align_corners=False).sum(), [tg])
    ex, eg = to_ember(x).requires_grad_(), to_ember(g).requires_grad_()
    e_gx, = ember.autograd.grad([grid_sample(ex, to_ember(g)).sum()], [ex])
    e_gg, = ember.autograd.grad([grid_sample(to_ember(x), eg).sum()], [eg])
    close(e_gx, t_gx, 1e-10, 1e-10)
    close(e_gg, t_gg, 1e-10, 1e-10)


def test_grid_sample_align_corners_default_is_false_without_warning():
    x, g = torch.randn(1, 1, 3, 4), grid_values((1, 2, 2, 2), torch.float32, 6)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        e = grid_sample(to_ember(x), to_ember(g))
    close(e, F.grid_sample(x, g, align_corners=False), 1e-6, 1e-6)


@pytest.mark.parametrize("kwargs,error,match", [
    ({"mode": "area"}, ValueError, "expected mode"),
    ({"padding_mode": "circular"}, ValueError, "expected padding_mode"),
    ({"grid": torch.rand(2, 3, 4, 3)}, RuntimeError, r"grid_sampler_2d\(\): expected grid of shape"),
    ({"grid": torch.rand(3, 3, 4, 2)}, RuntimeError, "same batch size"),
    ({"grid": torch.rand(2, 3, 4, 2, dtype=torch.float64)}, RuntimeError, "expected grid of input's dtype"),
    ({"input": torch.randn(2, 3, 0, 6)}, RuntimeError, "non-empty spatial"),
    ({"input": torch.randn(3, 5, 6)}, RuntimeError, "expected 4-D input"),
    ({"input": torch.zeros(2, 3, 5, 6, dtype=torch.int64)}, NotImplementedError, "not implemented for input"),
    ({"input": torch.randn(2, 3, 5, 6).half()}, NotImplementedError, "not implemented for input"),
    ({"input": torch.randn(2, 1, 3, 5, 6), "grid": torch.rand(2, 3, 4, 2, 3)}, NotImplementedError, "5-D"),
])
def test_grid_sample_bad_inputs(kwargs, error, match):
    args = {"input": torch.randn(2, 3, 5, 6), "grid": torch.rand(2, 3, 4, 2), **kwargs}
    x, g = to_ember(args.pop("input")), to_ember(args.pop("grid"))
    with pytest.raises(error, match=match):
        grid_sample(x, g, **args)


def test_grid_sampler_2d_bad_modes_and_grad_output():
    x, g = ember.zeros((1, 1, 2, 2)), ember.zeros((1, 1, 1, 2))
    with pytest.raises(ValueError, match="interpolation_mode"):
        ember.grid_sampler_2d(x, g, 3, 0, False)
    with pytest.raises(ValueError, match="padding_mode"):
        ember.grid_sampler_2d(x, g, 0, -1, False)
    with pytest.raises(RuntimeError, match=r"grid_sampler_2d_backward\(\): expected grad_output of shape"):
        ember.grid_sampler_2d_backward(ember.zeros((1, 1, 2, 1)), x, g, 0, 0, False, [True, True])


# ---- affine_grid -------------------------------------------------------------------------

@pytest.mark.parametrize("align", (False, True))
@pytest.mark.parametrize("size", [(2, 3, 4, 5), (2, 1, 1, 6), (1, 2, 5, 1), (2, 3, 2, 3, 4), (1, 1, 3, 1, 2)])
def test_affine_grid_matches_torch(size, align):
    theta = torch.randn(size[0], len(size) - 2, len(size) - 1, dtype=torch.float64,
                        generator=torch.Generator().manual_seed(8))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # unit-size grids with align_corners warn in both
        t_th = theta.clone().requires_grad_()
        t = F.affine_grid(t_th, size, align_corners=align)
        e_th = to_ember(theta).requires_grad_()
        e = affine_grid(e_th, size, align_corners=align)
    close(e, t, 1e-12, 1e-12)
    go = torch.randn(t.shape, dtype=torch.float64)
    t_g, = torch.autograd.grad([t], [t_th], [go])
    e_g, = ember.autograd.grad([e], [e_th], [to_ember(go)])
    close(e_g, t_g, 1e-12, 1e-12)


def test_affine_grid_then_grid_sample_identity():
    x = torch.randn(2, 3, 4, 5)
    theta = torch.tensor([[1.0, 0, 0], [0, 1.0, 0]]).expand(2, 2, 3)
    e = grid_sample(to_ember(x), affine_grid(to_ember(theta), (2, 3, 4, 5)))
    close(e, x, 1e-5, 1e-5)


@pytest.mark.parametrize("theta,size,error", [
    (torch.zeros(2, 2, 3, dtype=torch.int64), (2, 3, 4, 5), ValueError),
    (torch.zeros(2, 3, 3), (2, 3, 4, 5), ValueError),
    (torch.zeros(2, 2, 3), (2, 3, 4, 5, 6), ValueError),
    (torch.zeros(2, 2, 3), (2, 3, 4), NotImplementedError),
    (torch.zeros(2, 2, 3), (2, 3, 0, 5), ValueError),
])
def test_affine_grid_bad_inputs(theta, size, error):
    with pytest.raises(error):
        F.affine_grid(theta, size, align_corners=False)
    with pytest.raises(error):
        affine_grid(to_ember(theta), size)


# ---- ctc_loss ----------------------------------------------------------------------------

def ctc_case(seed, t_len=12, n=4, c=5, s=4, input_lengths=None, target_lengths=None, dtype=torch.float32):
    """(logits (T, N, C), padded targets (N, S), input lengths, target lengths)."""
    g = torch.Generator().manual_seed(seed)
    logits = torch.randn(t_len, n, c, generator=g, dtype=dtype)
    targets = torch.randint(1, c, (n, s), generator=g)
    il = input_lengths or [t_len - i % 3 for i in range(n)]
    tl = target_lengths or [s - i % (s + 1) for i in range(n)]
    return logits, targets, il, tl


def concatenated(targets, tl):
    return torch.cat([targets[i, :k] for i, k in enumerate(tl)])


def ctc_both(logits, targets, il, tl, tensor_lengths=False, **kw):
    """(Ember loss, grad of logits) and (PyTorch's) through log_softmax, as in training."""
    out = []
    for lib in (torch, ember):
        conv = (lambda t: t.clone()) if lib is torch else to_ember
        x = conv(logits).requires_grad_()
        lp = x.log_softmax(-1)
        lens = (conv(torch.tensor(il)), conv(torch.tensor(tl))) if tensor_lengths else (il, tl)
        fn = F.ctc_loss if lib is torch else ctc_loss
        loss = fn(lp, conv(targets), *lens, **kw)
        go = conv(torch.linspace(0.5, 1.5, max(loss.numel(), 1)).reshape(tuple(loss.shape)).to(logits.dtype))
        grad, = lib.autograd.grad([loss], [x], [go])
        out.append((loss, grad))
    return out


@pytest.mark.parametrize("dtype", ("float32", "float64"))
@pytest.mark.parametrize("reduction", ("none", "mean", "sum"))
@pytest.mark.parametrize("form", ("padded", "concatenated", "int32", "tensor_lengths"))
def test_ctc_loss_values_and_gradients(form, reduction, dtype):
    tdt, rtol, atol = DTYPES[dtype]
    logits, targets, il, tl = ctc_case(1, dtype=tdt)
    if form == "concatenated":
        targets = concatenated(targets, tl)
    if form == "int32":
        targets = targets.int()
    (t_loss, t_grad), (e_loss, e_grad) = ctc_both(logits, targets, il, tl, tensor_lengths=form == "tensor_lengths",
                                                  reduction=reduction)
    close(e_loss, t_loss, rtol * 10, atol)
    close(e_grad, t_grad, rtol * 10, atol)


@pytest.mark.parametrize("blank", (0, 2, 4))
def test_ctc_loss_blank_and_repeats(blank):
    # Repeated labels need a blank between them; the blank index may be any class.
    logits, _, _, _ = ctc_case(2, t_len=9, n=3, c=5, dtype=torch.float64)
    labels = [c for c in range(5) if c != blank]
    targets = torch.tensor([[labels[0], labels[0], labels[1]], [labels[2], labels[2], labels[2]],
                            [labels[3], labels[1], labels[3]]])
    (t_loss, t_grad), (e_loss, e_grad) = ctc_both(logits, targets, [9, 9, 6], [3, 3, 2], blank=blank,
                                                  reduction="none")
    close(e_loss, t_loss, 1e-10, 1e-10)
    close(e_grad, t_grad, 1e-10, 1e-10)


def test_ctc_loss_zero_length_targets_and_inputs():
    logits, targets, _, _ = ctc_case(3, t_len=6, n=4, s=3, dtype=torch.float64)
    il, tl = [6, 0, 0, 4], [0, 0, 2, 0]
    (t_loss, t_grad), (e_loss, e_grad) = ctc_both(logits, targets, il, tl, reduction="none")
    close(e_loss, t_loss, 1e-10, 1e-10)  # input length 0 and a target: inf
    assert np.isinf(e_loss.detach().numpy()[2])
    close(e_grad[:, [0, 1, 3]], t_grad[:, [0, 1, 3]], 1e-10, 1e-10)


@pytest.mark.parametrize("reduction", ("none", "mean", "sum"))
def test_ctc_loss_zero_infinity(reduction):
    # Sample 1 has 3 input steps for 3 labels of which two repeat (needs 4): impossible.
    logits, _, _, _ = ctc_case(4, t_len=5, n=3, c=4, dtype=torch.float64)
    targets = torch.tensor([[1, 2, 3], [1, 1, 2], [3, 2, 1]])
    il, tl = [5, 3, 2], [3, 3, 2]
    for zero_infinity in (False, True):
        (t_loss, t_grad), (e_loss, e_grad) = ctc_both(logits, targets, il, tl, reduction=reduction,
                                                      zero_infinity=zero_infinity)
        close(e_loss, t_loss, 1e-10, 1e-10, f"zero_infinity={zero_infinity}")
        close(e_grad, t_grad, 1e-10, 1e-10, f"zero_infinity={zero_infinity}")
        if zero_infinity:
            assert np.isfinite(e_loss.detach().numpy()).all() and np.isfinite(e_grad.numpy()).all()


def test_ctc_loss_unbatched():
    logits, targets, _, _ = ctc_case(5, t_len=7, n=1, s=3, dtype=torch.float64)
    for reduction in ("none", "mean", "sum"):
        (t_loss, t_grad), (e_loss, e_grad) = ctc_both(logits[:, 0], targets[0], [7], [3], reduction=reduction)
        close(e_loss, t_loss, 1e-10, 1e-10, reduction)
        close(e_grad, t_grad, 1e-10, 1e-10, reduction)


def test_ctc_loss_noncontiguous_log_probs():
    logits, targets, il, tl = ctc_case(6, dtype=torch.float64)
    lp = logits.log_softmax(-1)
    base = lp.permute(1, 2, 0).contiguous()  # (N, C, T): viewed back as (T, N, C) with odd strides
    t = torch.ops.aten._ctc_loss(base.permute(2, 0, 1), targets.t().contiguous().t(), il, tl, 0, False)
    e = ember._ctc_loss(to_ember(base).permute(2, 0, 1), to_ember(targets.t()).t(), il, tl, 0, False)
    close(e[0], t[0], 1e-10, 1e-10)


def test_ctc_log_alpha_and_backward_kernels():
    logits, targets, il, tl = ctc_case(7, dtype=torch.float64)
    lp = logits.log_softmax(-1)
    t_nll, t_alpha = torch.ops.aten._ctc_loss(lp, targets, il, tl, 0, False)
    e_nll, e_alpha = ember._ctc_loss(to_ember(lp), to_ember(targets), il, tl, 0, False)
    close(e_nll, t_nll, 1e-10, 1e-10)
    assert tuple(e_alpha.shape) == tuple(t_alpha.shape) == (4, 12, 9)
    a = e_alpha.numpy()
    for b in range(4):  # PyTorch leaves the rest uninitialised; Ember fills it with -inf
        np.testing.assert_allclose(a[b, :il[b], :2 * tl[b] + 1], t_alpha[b, :il[b], :2 * tl[b] + 1].numpy(),
                                   rtol=1e-10, atol=1e-10)
        assert (a[b, il[b]:] == -np.inf).all() and (a[b, :, 2 * tl[b] + 1:] == -np.inf).all()
    go = torch.tensor([1.0, -0.5, 2.0, 0.25], dtype=torch.float64)
    t_g = torch.ops.aten._ctc_loss_backward(go, lp, targets, il, tl, t_nll, t_alpha, 0, False)
    e_g = ember._ctc_loss_backward(to_ember(go), to_ember(lp), to_ember(targets), il, tl, e_nll, e_alpha, 0, False)
    close(e_g, t_g, 1e-10, 1e-10)


def test_ctc_loss_gradcheck_through_log_softmax():
    """PyTorch's gradient is the one through the log_softmax that makes log_probs (Note [CTC in
    log space]); finite differences agree there."""
    logits, targets, il, tl = ctc_case(8, t_len=6, n=2, c=4, s=2, dtype=torch.float64)
    x = to_ember(logits).requires_grad_()
    for reduction in ("none", "mean"):
        fn = lambda a: ctc_loss(a.log_softmax(-1), to_ember(targets), il, tl, reduction=reduction)  # noqa: E731
        assert ember.autograd.gradcheck(fn, (x,), atol=1e-6, rtol=1e-5)


def test_ctc_loss_empty_log_probs_raise():
    # PyTorch refuses an empty log_probs (an empty batch or T = 0) outright.
    for shape, targets, il, tl in (((5, 0, 4), torch.zeros(0, 3, dtype=torch.int64), [], []),
                                   ((0, 2, 4), torch.ones(2, 1, dtype=torch.int64), [0, 0], [1, 1])):
        lp = torch.randn(shape)
        with pytest.raises(RuntimeError, match="must not be empty"):
            F.ctc_loss(lp, targets, il, tl)
        with pytest.raises(RuntimeError, match="non-empty log_probs"):
            ctc_loss(to_ember(lp), to_ember(targets), il, tl)


@pytest.mark.parametrize("kwargs,error,match", [
    ({"blank": 5}, RuntimeError, "blank in the label range"),
    ({"blank": -1}, RuntimeError, "blank in the label range"),
    ({"input_lengths": [13, 12, 11, 12]}, RuntimeError, "input_lengths in"),
    ({"input_lengths": [12, 12]}, RuntimeError, "input_lengths of the batch size"),
    ({"target_lengths": [5, 3, 2, 1]}, RuntimeError, "longest target length"),
    ({"target_lengths": [-1, 3, 2, 1]}, RuntimeError, "at least 0"),
    ({"targets": torch.zeros(3, 4, dtype=torch.int64)}, RuntimeError, "batch size 4 rows"),
    ({"targets": torch.ones(9, dtype=torch.int64)}, RuntimeError, "sum\\(target_lengths\\) = 10"),
    ({"targets": torch.full((4, 4), 5)}, IndexError, "expected targets in \\[0, 5\\)"),
    ({"log_probs": torch.randn(12, 4, 5).half()}, NotImplementedError, "not implemented"),
    ({"log_probs": torch.randn(3, 12, 4, 5)}, RuntimeError, "expected log_probs of shape"),
    ({"reduction": "avg"}, ValueError, "not a valid value"),
])
def test_ctc_loss_bad_inputs(kwargs, error, match):
    logits, targets, il, tl = ctc_case(9)
    args = {"log_probs": logits.log_softmax(-1), "targets": targets, "input_lengths": il, "target_lengths": tl, **kwargs}
    args["log_probs"], args["targets"] = to_ember(args["log_probs"]), to_ember(args["targets"])
    with pytest.raises(error, match=match):
        ctc_loss(**args)


def test_ctc_loss_bad_length_tensors_and_target_dtype():
    logits, targets, il, tl = ctc_case(10)
    lp = to_ember(logits.log_softmax(-1))
    with pytest.raises(RuntimeError, match="integral input_lengths"):
        ctc_loss(lp, to_ember(targets), to_ember(torch.tensor(il, dtype=torch.float32)), to_ember(torch.tensor(tl)))
    with pytest.raises(RuntimeError, match="targets of dtype int64 or int32"):
        ember._ctc_loss(lp, to_ember(targets.float()), il, tl, 0, False)
