"""Pooling (max, average, adaptive; 1-d to 3-d) against torch.nn.functional: values,
indices and gradients, including padding, dilation, ceil_mode, NaN, unbatched inputs and
the errors."""
from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import ember
import ember.nn.functional as EF
from test_linalg_nn import check_grads, close, pair

MAX2D = [dict(kernel_size=2), dict(kernel_size=3, stride=2, padding=1), dict(kernel_size=(2, 3), stride=(1, 2)),
         dict(kernel_size=3, stride=2, ceil_mode=True), dict(kernel_size=2, dilation=2, padding=1),
         dict(kernel_size=3, stride=1, padding=1, dilation=(1, 2), ceil_mode=True)]


@pytest.mark.parametrize("kw", MAX2D, ids=str)
@pytest.mark.parametrize("shape", [(2, 3, 7, 8), (3, 6, 5), (1, 1, 4, 4)], ids=str)
def test_max_pool2d(kw, shape):
    x = pair(shape)
    check_grads(lambda v: EF.max_pool2d(v, **kw), lambda v: TF.max_pool2d(v, **kw), x)
    _, ie = EF.max_pool2d(x[0], return_indices=True, **kw)
    _, it = TF.max_pool2d(x[1], return_indices=True, **kw)
    close(ie, it)


def test_max_pool_nan_and_ties_and_double_backward():
    a = np.arange(32.0).reshape(1, 2, 4, 4) % 3
    a[0, 1, 1, 2] = np.nan
    xe, xt = ember.from_numpy(a.copy()), torch.from_numpy(a.copy())
    oe, ie = EF.max_pool2d(xe, 2, return_indices=True)
    ot, it = TF.max_pool2d(xt, 2, return_indices=True)
    np.testing.assert_array_equal(oe.numpy(), ot.numpy())
    np.testing.assert_array_equal(ie.numpy(), it.numpy())
    xe, xt = pair((2, 3, 6, 6))
    ye, yt = EF.max_pool2d(xe, 3, 2, 1), TF.max_pool2d(xt, 3, 2, 1)
    (ge,) = ember.autograd.grad(ye.sum() * 2, xe, create_graph=True)
    (gt,) = torch.autograd.grad(yt.sum() * 2, xt, create_graph=True)
    close(ge, gt)


@pytest.mark.parametrize("kw", [dict(kernel_size=3), dict(kernel_size=2, stride=1, padding=1),
                                dict(kernel_size=3, stride=2, ceil_mode=True, return_indices=True)], ids=str)
def test_max_pool1d_3d(kw):
    ri = kw.get("return_indices", False)
    for fe, ft, shape in ((EF.max_pool1d, TF.max_pool1d, (2, 3, 9)), (EF.max_pool1d, TF.max_pool1d, (3, 8)),
                          (EF.max_pool3d, TF.max_pool3d, (1, 2, 5, 6, 7)), (EF.max_pool3d, TF.max_pool3d, (2, 4, 5, 6))):
        x = pair(shape)
        check_grads(lambda v: fe(v, **kw)[0] if ri else fe(v, **kw),
                    lambda v: ft(v, **kw)[0] if ri else ft(v, **kw), x)
        if ri:
            close(fe(x[0], **kw)[1], ft(x[1], **kw)[1])


AVG = [dict(kernel_size=2), dict(kernel_size=3, stride=2, padding=1),
       dict(kernel_size=3, stride=2, padding=1, count_include_pad=False),
       dict(kernel_size=3, stride=2, padding=1, ceil_mode=True),
       dict(kernel_size=3, stride=2, padding=1, ceil_mode=True, count_include_pad=False),
       dict(kernel_size=(2, 3), stride=(2, 1), padding=(1, 0), divisor_override=5)]


@pytest.mark.parametrize("kw", AVG, ids=str)
def test_avg_pool(kw):
    check_grads(lambda v: EF.avg_pool2d(v, **kw), lambda v: TF.avg_pool2d(v, **kw), pair((2, 3, 7, 8)))
    check_grads(lambda v: EF.avg_pool2d(v, **kw), lambda v: TF.avg_pool2d(v, **kw), pair((3, 5, 6)))
    kw3 = {k: (v if not isinstance(v, tuple) else v + (v[-1],)) for k, v in kw.items()}
    check_grads(lambda v: EF.avg_pool3d(v, **kw3), lambda v: TF.avg_pool3d(v, **kw3), pair((1, 2, 5, 6, 7)))
    kw1 = {k: (v[0] if isinstance(v, tuple) else v) for k, v in kw.items() if k != "divisor_override"}
    check_grads(lambda v: EF.avg_pool1d(v, **kw1), lambda v: TF.avg_pool1d(v, **kw1), pair((2, 3, 9)))


@pytest.mark.parametrize("size", [1, 3, (2, 5), (None, 4), 7], ids=str)
def test_adaptive_pools(size):
    x = pair((2, 3, 7, 9))
    check_grads(lambda v: EF.adaptive_avg_pool2d(v, size), lambda v: TF.adaptive_avg_pool2d(v, size), x)
    check_grads(lambda v: EF.adaptive_max_pool2d(v, size), lambda v: TF.adaptive_max_pool2d(v, size), x)
    close(EF.adaptive_max_pool2d(x[0], size, return_indices=True)[1],
          TF.adaptive_max_pool2d(x[1], size, return_indices=True)[1])
    s1 = size if isinstance(size, int) else size[1]
    y = pair((3, 10))
    check_grads(lambda v: EF.adaptive_avg_pool1d(v, s1), lambda v: TF.adaptive_avg_pool1d(v, s1), y)
    check_grads(lambda v: EF.adaptive_max_pool1d(v, s1), lambda v: TF.adaptive_max_pool1d(v, s1), y)


def test_pool_errors():
    x = ember.ones(1, 1, 4, 4)
    with pytest.raises(RuntimeError, match="pad should be at most half"):
        EF.max_pool2d(x, 2, padding=2)
    with pytest.raises(RuntimeError, match="too small"):
        EF.max_pool2d(x, 5)
    with pytest.raises(RuntimeError, match="3D or 4D"):
        EF.max_pool2d(ember.ones(4, 4), 2)
    with pytest.raises(RuntimeError, match="stride should be greater than zero"):
        EF.avg_pool2d(x, 2, stride=0)
    with pytest.raises(RuntimeError, match="divisor must be not zero"):
        EF.avg_pool2d(x, 2, divisor_override=0)
    with pytest.raises(NotImplementedError):
        EF.avg_pool2d(ember.ones(1, 1, 4, 4, dtype=ember.int64), 2)
    close(EF.max_pool2d(ember.arange(16).reshape(1, 1, 4, 4), 2), TF.max_pool2d(torch.arange(16).reshape(1, 1, 4, 4), 2))
