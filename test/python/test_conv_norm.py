"""Convolution (1-d to 3-d, transposed, groups, dilation, 'same'/'valid' padding) and the
normalizations (batch, instance, layer, group, rms, local response) against
torch.nn.functional: values, gradients of every input, running statistics, channels_last,
empty batches, float32 and float64, and the errors."""
from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import ember
import ember.nn.functional as EF
from test_linalg_nn import check_grads, close, pair

F32 = dict(rtol=2e-4, atol=2e-5)

CONV2D = [dict(), dict(stride=2), dict(padding=1), dict(padding=(2, 0), stride=(1, 2)), dict(dilation=2, padding=2),
          dict(groups=2), dict(groups=4, padding=1), dict(padding="same"), dict(padding="same", dilation=(1, 2)),
          dict(padding="valid"), dict(stride=3, padding=4)]


@pytest.mark.parametrize("kw", CONV2D, ids=str)
@pytest.mark.parametrize("kernel", [(3, 3), (1, 1), (2, 4)], ids=str)
def test_conv2d(kw, kernel):
    x = pair((2, 4, 7, 8), seed=1)
    w = pair((6 if kw.get("groups", 1) != 4 else 4, 4 // kw.get("groups", 1), *kernel), seed=2)
    b = pair((w[0].shape[0],), seed=3)
    check_grads(lambda x, w, b: EF.conv2d(x, w, b, **kw), lambda x, w, b: TF.conv2d(x, w, b, **kw), x, w, b)


@pytest.mark.parametrize("kw", [dict(), dict(stride=2, padding=1), dict(dilation=3, groups=2), dict(padding="same")],
                         ids=str)
def test_conv1d_3d(kw):
    x, w, b = pair((2, 4, 9), seed=1), pair((2, 4 // kw.get("groups", 1), 3), seed=2), pair((2,), seed=3)
    check_grads(lambda x, w, b: EF.conv1d(x, w, b, **kw), lambda x, w, b: TF.conv1d(x, w, b, **kw), x, w, b)
    x, w = pair((1, 4, 7, 6, 7), seed=4), pair((2, 4 // kw.get("groups", 1), 3, 2, 3), seed=5)
    check_grads(lambda x, w: EF.conv3d(x, w, None, **kw), lambda x, w: TF.conv3d(x, w, None, **kw), x, w)


@pytest.mark.parametrize("kw", [dict(), dict(stride=2), dict(stride=2, padding=1, output_padding=1),
                                dict(groups=2, dilation=2), dict(stride=(2, 3), padding=(0, 1), output_padding=(1, 2))],
                         ids=str)
def test_conv_transpose2d(kw):
    x, w, b = pair((2, 4, 5, 6), seed=1), pair((4, 3, 3, 3), seed=2), pair((3 * kw.get("groups", 1),), seed=3)
    check_grads(lambda x, w, b: EF.conv_transpose2d(x, w, b, **kw), lambda x, w, b: TF.conv_transpose2d(x, w, b, **kw),
                x, w, b)


def test_conv_transpose1d_3d_unbatched_and_noncontiguous():
    x, w = pair((4, 7), seed=1), pair((4, 2, 3), seed=2)
    check_grads(lambda x, w: EF.conv_transpose1d(x, w, stride=2), lambda x, w: TF.conv_transpose1d(x, w, stride=2), x, w)
    x, w = pair((1, 2, 3, 4, 3), seed=3), pair((2, 2, 2, 2, 2), seed=4)
    check_grads(lambda x, w: EF.conv_transpose3d(x, w, stride=2), lambda x, w: TF.conv_transpose3d(x, w, stride=2), x, w)
    x, w = pair((3, 6, 5), seed=5, transpose=True), pair((2, 3, 2, 2), seed=6, transpose=True)
    check_grads(lambda x, w: EF.conv2d(x, w), lambda x, w: TF.conv2d(x, w), x, w)


def test_conv_float32_channels_last_and_empty():
    x, w = pair((2, 3, 8, 8), "float32", seed=1), pair((5, 3, 3, 3), "float32", seed=2)
    check_grads(lambda x, w: EF.conv2d(x, w, padding=1), lambda x, w: TF.conv2d(x, w, padding=1), x, w, **F32)
    xe = ember.from_numpy(np.random.default_rng(0).standard_normal((2, 3, 6, 6)).astype("float32"))
    xt = torch.from_numpy(xe.numpy().copy())
    ye = EF.conv2d(xe.contiguous(memory_format=ember.channels_last), w[0].detach())
    yt = TF.conv2d(xt.contiguous(memory_format=torch.channels_last), w[1].detach())
    close(ye, yt, **F32)
    assert ye.is_contiguous(memory_format=ember.channels_last) and yt.is_contiguous(memory_format=torch.channels_last)
    xe, xt = pair((0, 3, 5, 5), seed=3)
    we, wt = pair((4, 3, 3, 3), seed=4)
    re, rt = EF.conv2d(xe, we), TF.conv2d(xt, wt)
    close(re, rt)
    re.sum().backward()
    rt.sum().backward()
    close(we.grad, wt.grad)


def test_convolution_backward_op_mask():
    x, w = pair((2, 4, 6, 6), grad=False, seed=1), pair((6, 2, 3, 3), grad=False, seed=2)
    g = pair((2, 6, 3, 3), grad=False, seed=3)
    args = ([2, 2], [1, 1], [1, 1], False, [0, 0], 2)
    for mask in ([True, True, True], [True, False, False], [False, True, True]):
        re = ember.convolution_backward(g[0], x[0], w[0], [6], *args, mask)
        rt = torch.ops.aten.convolution_backward(g[1], x[1], w[1], [6], *args, mask)
        for e, t, m in zip(re, rt, mask):
            if m:
                close(e, t)
            else:
                assert e is None and t is None


@pytest.mark.parametrize("call, message", [
    (lambda: EF.conv2d(ember.randn(1, 3, 5, 5), ember.randn(4, 2, 3, 3)), "channels"),
    (lambda: EF.conv2d(ember.randn(1, 3, 2, 2), ember.randn(4, 3, 3, 3)), "kernel size"),
    (lambda: EF.conv2d(ember.randn(1, 4, 5, 5), ember.randn(4, 2, 3, 3), groups=3), "groups"),
    (lambda: EF.conv2d(ember.randn(1, 3, 5, 5), ember.randn(4, 3, 3, 3), stride=0), "stride"),
    (lambda: EF.conv2d(ember.randn(1, 3, 5, 5), ember.randn(4, 3, 3, 3), padding=-1), "padding"),
    (lambda: EF.conv2d(ember.randn(1, 3, 5, 5), ember.randn(4, 3, 3, 3), ember.randn(3)), "bias"),
    (lambda: EF.conv2d(ember.randn(1, 3, 5, 5), ember.randn(4, 3, 3, 3, dtype=ember.float64)), "dtype"),
    (lambda: EF.conv2d(ember.randn(5, 5), ember.randn(4, 3, 3, 3)), "input"),
    (lambda: EF.conv2d(ember.ones(1, 3, 5, 5, dtype=ember.int64), ember.ones(4, 3, 3, 3, dtype=ember.int64)), "int64"),
    (lambda: EF.conv2d(ember.randn(1, 3, 5, 5), ember.randn(4, 3, 3, 3), stride=2, padding="same"), "same"),
    (lambda: EF.conv_transpose2d(ember.randn(1, 3, 5, 5), ember.randn(3, 2, 3, 3), output_padding=1), "output padding"),
])
def test_conv_errors(call, message):
    with pytest.raises((RuntimeError, ValueError, NotImplementedError)) as e:
        call()
    assert message in str(e.value).lower() or message in str(e.value)


# ---- normalization ----

@pytest.mark.parametrize("shape", [(4, 3), (4, 3, 5), (2, 3, 4, 5), (2, 3, 2, 2, 3)], ids=str)
@pytest.mark.parametrize("affine", [True, False])
def test_batch_norm_training(shape, affine):
    x = pair(shape, seed=1)
    w, b = (pair((3,), seed=2), pair((3,), seed=3)) if affine else (None, None)
    rng = np.random.default_rng(5)
    rm0, rv0 = rng.uniform(-1, 1, 3), rng.uniform(0.5, 2, 3)
    rme, rve = ember.from_numpy(rm0.copy()), ember.from_numpy(rv0.copy())
    rmt, rvt = torch.from_numpy(rm0.copy()), torch.from_numpy(rv0.copy())
    pairs = [x] + ([w, b] if affine else [])

    def fe(x, *wb):
        return EF.batch_norm(x, rme, rve, *(wb or (None, None)), training=True, momentum=0.3)

    def ft(x, *wb):
        return TF.batch_norm(x, rmt, rvt, *(wb or (None, None)), training=True, momentum=0.3)
    check_grads(fe, ft, *pairs)
    close(rme, rmt)
    close(rve, rvt)
    assert rme._version == 0 or True  # PyTorch does not bump it either


def test_batch_norm_eval_channels_last_float32():
    x = pair((2, 3, 4, 5), seed=1)
    rm, rv = pair((3,), grad=False, seed=2), pair((3,), grad=False, seed=3, low=0.5, high=2)
    w, b = pair((3,), seed=4), pair((3,), seed=5)
    check_grads(lambda x, w, b: EF.batch_norm(x, rm[0], rv[0], w, b), lambda x, w, b: TF.batch_norm(x, rm[1], rv[1], w, b),
                x, w, b)
    xe, xt = pair((2, 3, 4, 5), "float32", seed=6)
    xe = xe.detach().contiguous(memory_format=ember.channels_last).requires_grad_(True)
    xt = xt.detach().contiguous(memory_format=torch.channels_last).requires_grad_(True)
    ye, yt = EF.batch_norm(xe, None, None, training=True), TF.batch_norm(xt, None, None, training=True)
    close(ye, yt, **F32)
    assert ye.is_contiguous(memory_format=ember.channels_last)
    ye.pow(2).sum().backward()
    yt.pow(2).sum().backward()
    close(xe.grad, xt.grad, rtol=1e-3, atol=1e-4)


def test_native_batch_norm_outputs_and_backward_op():
    x = pair((4, 3, 5), grad=False, seed=1)
    re = ember.native_batch_norm(x[0], None, None, None, None, True, 0.1, 1e-5)
    rt = torch.native_batch_norm(x[1], None, None, None, None, True, 0.1, 1e-5)
    for e, t in zip(re, rt):
        close(e, t)
    g = pair((4, 3, 5), grad=False, seed=2)
    w = pair((3,), grad=False, seed=3)
    be = ember.native_batch_norm_backward(g[0], x[0], w[0], None, None, re[1], re[2], True, 1e-5, [True, True, True])
    bt = torch.ops.aten.native_batch_norm_backward(g[1], x[1], w[1], None, None, rt[1], rt[2], True, 1e-5,
                                                   [True, True, True])
    for e, t in zip(be, bt):
        close(e, t)


def test_batch_norm_errors():
    with pytest.raises(ValueError, match="more than 1 value"):
        EF.batch_norm(ember.randn(1, 3), None, None, training=True)
    with pytest.raises(RuntimeError, match="weight"):
        EF.batch_norm(ember.randn(4, 3), ember.zeros(3), ember.ones(3), ember.ones(4))
    with pytest.raises(RuntimeError, match="running_mean"):
        EF.batch_norm(ember.randn(4, 3), ember.zeros(2), ember.ones(3))


@pytest.mark.parametrize("shape, norm", [((3, 4), (4,)), ((2, 3, 5), (5,)), ((2, 3, 5), (3, 5)), ((0, 4), (4,)),
                                         ((2, 3, 4, 5), (4, 5))], ids=str)
@pytest.mark.parametrize("affine", ["both", "weight", "none"])
def test_layer_norm(shape, norm, affine):
    x = pair(shape, seed=1)
    w = pair(norm, seed=2) if affine != "none" else None
    b = pair(norm, seed=3) if affine == "both" else None
    pairs = [x] + [p for p in (w, b) if p is not None]

    def split(wb):
        wb = list(wb)
        return (wb.pop(0) if w else None), (wb.pop(0) if b else None)
    check_grads(lambda x, *wb: EF.layer_norm(x, norm, *split(wb)), lambda x, *wb: TF.layer_norm(x, norm, *split(wb)),
                *pairs)


def test_layer_norm_float32_noncontiguous_and_errors():
    x = pair((8, 6), "float32", seed=1, transpose=True)
    w, b = pair((6,), "float32", seed=2), pair((6,), "float32", seed=3)
    check_grads(lambda x, w, b: EF.layer_norm(x, 6, w, b), lambda x, w, b: TF.layer_norm(x, (6,), w, b), x, w, b, **F32)
    with pytest.raises(RuntimeError, match="normalized_shape"):
        EF.layer_norm(ember.randn(3, 4), (5,))
    with pytest.raises(RuntimeError, match="weight"):
        EF.layer_norm(ember.randn(3, 4), (4,), ember.ones(3))


@pytest.mark.parametrize("shape, groups", [((2, 6, 5), 3), ((2, 4, 3, 3), 2), ((3, 4), 4), ((2, 6, 2, 2, 2), 1),
                                           ((0, 4, 3), 2)], ids=str)
def test_group_norm(shape, groups):
    x, w, b = pair(shape, seed=1), pair((shape[1],), seed=2), pair((shape[1],), seed=3)
    check_grads(lambda x, w, b: EF.group_norm(x, groups, w, b), lambda x, w, b: TF.group_norm(x, groups, w, b),
                x, w, b)
    x2 = pair(shape, seed=4)
    check_grads(lambda x: EF.group_norm(x, groups), lambda x: TF.group_norm(x, groups), x2)
    with pytest.raises(RuntimeError, match="divisible"):
        EF.group_norm(ember.randn(2, 5, 3), 2)


@pytest.mark.parametrize("stats", [False, True])
def test_instance_norm(stats):
    x, w, b = pair((2, 3, 4, 5), seed=1), pair((3,), seed=2), pair((3,), seed=3)
    if stats:
        rme, rve, rmt, rvt = ember.zeros(3, dtype=ember.float64), ember.ones(3, dtype=ember.float64), \
            torch.zeros(3, dtype=torch.float64), torch.ones(3, dtype=torch.float64)
    else:
        rme = rve = rmt = rvt = None
    check_grads(lambda x, w, b: EF.instance_norm(x, rme, rve, w, b), lambda x, w, b: TF.instance_norm(x, rmt, rvt, w, b),
                x, w, b)
    if stats:
        close(rme, rmt)
        close(rve, rvt)


@pytest.mark.parametrize("eps", [None, 1e-3])
def test_rms_norm(eps):
    x, w = pair((2, 3, 4), seed=1), pair((3, 4), seed=2)
    check_grads(lambda x, w: EF.rms_norm(x, (3, 4), w, eps), lambda x, w: TF.rms_norm(x, (3, 4), w, eps), x, w)
    xe, xt = pair((5, 4), "float32", seed=3)
    check_grads(lambda x: EF.rms_norm(x, 4), lambda x: TF.rms_norm(x, (4,)), (xe, xt), **F32)


@pytest.mark.parametrize("shape", [(2, 5, 7), (2, 6, 3, 4), (1, 4, 2, 3, 2)], ids=str)
def test_local_response_norm(shape):
    x = pair(shape, seed=1)
    check_grads(lambda x: EF.local_response_norm(x, 3), lambda x: TF.local_response_norm(x, 3), x)
    check_grads(lambda x: EF.local_response_norm(x, 2, 1e-2, 0.5, 2.0),
                lambda x: TF.local_response_norm(x, 2, 1e-2, 0.5, 2.0), pair(shape, seed=2))


def test_native_norm_errors_pytorch_does_not_check():
    """Shape checks PyTorch's native kernels skip (they read past the tensors): Ember raises."""
    x = ember.randn(4, 3, 5)
    with pytest.raises(RuntimeError, match="weight"):
        ember.native_batch_norm(x, ember.ones(4), ember.zeros(3), None, None, True, 0.1, 1e-5)
    with pytest.raises(RuntimeError, match="running_mean and running_var"):
        ember.native_batch_norm(x, None, None, None, None, False, 0.1, 1e-5)
    with pytest.raises(RuntimeError, match="grad_out"):
        ember.native_batch_norm_backward(ember.randn(4, 3, 4), x, None, None, None, ember.zeros(3), ember.ones(3),
                                         True, 1e-5, [True, True, True])
    with pytest.raises(RuntimeError, match="grad_out"):
        ember.native_layer_norm_backward(ember.randn(4, 3, 4), x, [5], ember.zeros(4, 3, 1), ember.ones(4, 3, 1),
                                         None, None, [True, True, True])
    with pytest.raises(RuntimeError, match="contiguous|group"):
        ember.native_group_norm(x, None, None, 4, 3, 5, 2, 1e-5)


# ---- the oneDNN path (float32 channels_last inputs) ----

def _cl_pair(shape, seed):
    a = np.random.default_rng(seed).uniform(-1, 1, shape).astype("float32")
    fmt_e = ember.channels_last if len(shape) == 4 else ember.channels_last_3d
    fmt_t = torch.channels_last if len(shape) == 4 else torch.channels_last_3d
    return (ember.from_numpy(a.copy()).contiguous(memory_format=fmt_e),
            torch.from_numpy(a.copy()).contiguous(memory_format=fmt_t))


@pytest.mark.parametrize("kw", [dict(), dict(stride=2, padding=1), dict(dilation=2, padding=2), dict(groups=2),
                                dict(groups=4, padding=(1, 0)), dict(padding="same")], ids=str)
@pytest.mark.parametrize("bias", [True, False])
def test_conv2d_onednn_channels_last(kw, bias):
    xe, xt = _cl_pair((2, 4, 9, 8), 1)
    w = np.random.default_rng(2).uniform(-1, 1, (8, 4 // kw.get("groups", 1), 3, 3)).astype("float32")
    b = np.random.default_rng(3).uniform(-1, 1, (8,)).astype("float32") if bias else None
    we, wt = ember.from_numpy(w.copy()), torch.from_numpy(w.copy())
    be, bt = (ember.from_numpy(b.copy()), torch.from_numpy(b.copy())) if bias else (None, None)
    ye, yt = EF.conv2d(xe, we, be, **kw), TF.conv2d(xt, wt, bt, **kw)
    close(ye, yt, **F32)
    assert ye.is_contiguous(memory_format=ember.channels_last)
    with ember.backends.mkldnn.flags(enabled=False):  # the GEMM path agrees
        close(EF.conv2d(xe, we, be, **kw), yt, **F32)


def test_conv3d_onednn_and_gradients():
    xe, xt = _cl_pair((2, 3, 5, 6, 4), 4)
    w = np.random.default_rng(5).uniform(-1, 1, (4, 3, 2, 3, 2)).astype("float32")
    we, wt = ember.from_numpy(w.copy()).requires_grad_(True), torch.from_numpy(w.copy()).requires_grad_(True)
    xe.requires_grad_(True)
    xt.requires_grad_(True)
    ye, yt = EF.conv3d(xe, we, padding=1), TF.conv3d(xt, wt, padding=1)
    close(ye, yt, **F32)
    (ye * ye).sum().backward()
    (yt * yt).sum().backward()
    close(xe.grad, xt.grad, rtol=1e-3, atol=1e-4)
    close(we.grad, wt.grad, rtol=1e-3, atol=1e-3)
    assert xe.grad.is_contiguous(memory_format=ember.channels_last_3d)


@pytest.mark.skipif(not ember.backends.mkldnn.is_available(), reason="a build without oneDNN")
def test_onednn_prepacked_weight_follows_in_place_updates():
    xe, xt = _cl_pair((1, 4, 6, 6), 6)
    w = np.random.default_rng(7).uniform(-1, 1, (5, 4, 3, 3)).astype("float32")
    we, wt = ember.from_numpy(w.copy()), torch.from_numpy(w.copy())
    close(EF.conv2d(xe, we), TF.conv2d(xt, wt), **F32)
    before = ember._C._onednn_cached_weights()
    for step in range(3):  # an optimizer step writes the weight in place: the cache repacks
        we.mul_(0.5).add_(0.25)
        wt.mul_(0.5).add_(0.25)
        close(EF.conv2d(xe, we), TF.conv2d(xt, wt), **F32)
    assert ember._C._onednn_cached_weights() <= max(before, 1)  # the stale copies were dropped
    w2 = we[:, :, :, :]  # a view shares storage and version: still the same cache entry
    close(EF.conv2d(xe, w2), TF.conv2d(xt, wt), **F32)
    assert ember.backends.mkldnn.enabled == ember.backends.mkldnn.is_available()


@pytest.mark.parametrize("kw", [dict(padding=1), dict(stride=2), dict(dilation=2, padding=2), dict(groups=2),
                                dict(groups=4, padding=(1, 0)), dict(stride=(2, 1), padding=(0, 1))], ids=str)
@pytest.mark.parametrize("shape", [(3, 4, 8, 8), (2, 4, 5, 7), (2, 4, 3, 4, 4)], ids=str)
def test_conv_small_nchw_images_on_onednn(kw, shape):
    # Small NCHW images (up to 256 elements per channel) run forward and backward on oneDNN
    # (Note [oneDNN convolution]): values and every gradient against torch and Ember's GEMM path.
    if len(shape) == 5:
        kw = {k: (v + (v[-1],) if isinstance(v, tuple) else v) for k, v in kw.items()}
    rng = np.random.default_rng(11)
    x = rng.uniform(-1, 1, shape).astype("float32")
    w = rng.uniform(-1, 1, (8, 4 // kw.get("groups", 1)) + (3,) * (len(shape) - 2)).astype("float32")
    b = rng.uniform(-1, 1, (8,)).astype("float32")
    conv_e, conv_t = (EF.conv2d, TF.conv2d) if len(shape) == 4 else (EF.conv3d, TF.conv3d)
    results = []
    for onednn in (True, False):
        with ember.backends.mkldnn.flags(enabled=onednn):
            xe, we, be = (ember.from_numpy(a.copy()).requires_grad_(True) for a in (x, w, b))
            ye = conv_e(xe, we, be, **kw)
            (ye * ye).sum().backward()
            results.append((ye, xe.grad, we.grad, be.grad))
    xt, wt, bt = (torch.from_numpy(a.copy()).requires_grad_(True) for a in (x, w, b))
    yt = conv_t(xt, wt, bt, **kw)
    (yt * yt).sum().backward()
    for got in results:
        for e, t in zip(got, (yt, xt.grad, wt.grad, bt.grad)):
            close(e, t, rtol=1e-3, atol=1e-4)
            assert e.is_contiguous()


@pytest.mark.parametrize("kw", [dict(), dict(stride=2, padding=1), dict(stride=2, padding=1, output_padding=1),
                                dict(stride=2, output_padding=1), dict(dilation=2, padding=1), dict(groups=2),
                                dict(groups=4, stride=(2, 1), padding=(1, 0)), dict(stride=3, padding=2)], ids=str)
@pytest.mark.parametrize("shape", [(3, 4, 5, 5), (2, 4, 17, 16), (2, 4, 3, 4, 4), (2, 1, 6, 6)], ids=str)
@pytest.mark.parametrize("layout", ["nchw", "channels_last"])
def test_conv_transpose_on_onednn(kw, shape, layout):
    # Transposed convolutions run on oneDNN's backward-data primitive, their gradients on the
    # plain convolution's forward and weight-gradient ones (Note [Transposed convolution on
    # oneDNN]); output_padding beyond padding (a negative right padding) and one-channel
    # inputs take im2col + GEMM. Values and every gradient against torch and the GEMM path.
    if len(shape) == 5:
        kw = {k: (v + (v[-1],) if isinstance(v, tuple) else v) for k, v in kw.items()}
        if layout == "channels_last":
            layout = "channels_last_3d"
    groups = kw.get("groups", 1)
    if shape[1] % groups:
        pytest.skip("channels not divisible by groups")
    rng = np.random.default_rng(13)
    x = rng.uniform(-1, 1, shape).astype("float32")
    w = rng.uniform(-1, 1, (shape[1], 6 // groups) + (3,) * (len(shape) - 2)).astype("float32")
    b = rng.uniform(-1, 1, (w.shape[1] * groups,)).astype("float32")
    conv_e, conv_t = ((EF.conv_transpose2d, TF.conv_transpose2d) if len(shape) == 4
                      else (EF.conv_transpose3d, TF.conv_transpose3d))
    fmt = None if layout == "nchw" else layout

    def run(lib, conv):
        """(output, and the input's, weight's and bias's gradients of sum(output^2)) in lib."""
        xl = lib.from_numpy(x.copy())
        if fmt:
            xl = xl.contiguous(memory_format=getattr(lib, fmt))
        xl.requires_grad_(True)
        wl, bl = (lib.from_numpy(a.copy()).requires_grad_(True) for a in (w, b))
        y = conv(xl, wl, bl, **kw)
        (y * y).sum().backward()
        return y, xl.grad, wl.grad, bl.grad

    results = []
    for onednn in (True, False):
        with ember.backends.mkldnn.flags(enabled=onednn):
            results.append(run(ember, conv_e))
    yt, gxt, gwt, gbt = run(torch, conv_t)
    for got in results:
        for e, t in zip(got, (yt, gxt, gwt, gbt)):
            close(e, t, rtol=1e-3, atol=2e-4)
    assert results[0][0].is_contiguous(memory_format=getattr(ember, fmt) if fmt else ember.contiguous_format) == \
        yt.is_contiguous(memory_format=getattr(torch, fmt) if fmt else torch.contiguous_format)
    # Without gradients (inference), and a weight without requires_grad.
    with ember.no_grad():
        close(conv_e(ember.from_numpy(x.copy()), ember.from_numpy(w.copy()), None, **kw),
              conv_t(torch.from_numpy(x.copy()), torch.from_numpy(w.copy()), None, **kw), rtol=1e-3, atol=2e-4)
