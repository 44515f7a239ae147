"""Shape ops beyond the op table's generated cases: memory formats (channels_last), nonzero's
tuple form, PyTorch's Python signatures (split with sizes, unique's optional outputs,
meshgrid/cartesian_prod varargs), in-place writes through views of views, and large inputs
that take the threaded and tiled paths (transposing copy, sort, topk, masked_select)."""
from __future__ import annotations

import numpy as np
import pytest
import torch

import ember


def pair(shape, seed=0, dtype=np.float32):
    a = np.random.default_rng(seed).standard_normal(shape).astype(dtype)
    return ember.from_numpy(a.copy()), torch.from_numpy(a.copy())


@pytest.mark.parametrize("fmt", ["channels_last", "contiguous_format"])
def test_memory_formats_match_pytorch(fmt):
    e, t = pair((2, 3, 4, 5))
    ef, tf = getattr(ember, fmt), getattr(torch, fmt)
    for ex, tx in ((e, t), (e.permute(0, 2, 3, 1), t.permute(0, 2, 3, 1))):
        ec, tc = ex.contiguous(memory_format=ef), tx.contiguous(memory_format=tf)
        assert ec.stride() == tc.stride() and ec.shape == tc.shape
        np.testing.assert_array_equal(ec.numpy(), tc.numpy())
        assert ec.is_contiguous(memory_format=ef) == tc.is_contiguous(memory_format=tf)
        assert ex.is_contiguous(memory_format=ember.channels_last) == tx.is_contiguous(memory_format=torch.channels_last)
        assert ex.clone(memory_format=ef).stride() == tx.clone(memory_format=tf).stride()
    assert ember.empty(2, 3, 4, 5, memory_format=ef).stride() == torch.empty(2, 3, 4, 5, memory_format=tf).stride()
    assert ember.empty_like(e, memory_format=ef).stride() == torch.empty_like(t, memory_format=tf).stride()


def test_channels_last_needs_rank_4():
    with pytest.raises(RuntimeError):
        torch.empty(2, 3, memory_format=torch.channels_last)
    with pytest.raises(RuntimeError):
        ember.empty(2, 3, memory_format=ember.channels_last)
    with pytest.raises(RuntimeError):
        ember.ones(2, 3).contiguous(memory_format=ember.channels_last)


def test_channels_last_3d():
    e, t = pair((2, 3, 2, 4, 5))
    ec = e.contiguous(memory_format=ember.channels_last_3d)
    tc = t.contiguous(memory_format=torch.channels_last_3d)
    assert ec.stride() == tc.stride()
    np.testing.assert_array_equal(ec.numpy(), tc.numpy())


@pytest.mark.parametrize("shape", [(3, 4), (5,), (), (2, 0, 3), (2, 3, 4)])
def test_nonzero_as_tuple(shape):
    a = np.asarray(np.random.default_rng(1).random(shape) < 0.5, dtype=np.float32)
    e, t = ember.from_numpy(a.copy()), torch.from_numpy(a.copy())
    et, tt = ember.nonzero(e, as_tuple=True), torch.nonzero(t, as_tuple=True)
    assert len(et) == len(tt)
    for x, y in zip(et, tt):
        np.testing.assert_array_equal(x.numpy(), y.numpy())
    np.testing.assert_array_equal(e.nonzero().numpy(), t.nonzero().numpy())
    assert len(e.nonzero(as_tuple=True)) == len(t.nonzero(as_tuple=True))


def test_python_signatures():
    e, t = pair((6, 4))
    for es, ts in ((e.split([1, 5]), t.split([1, 5])), (ember.split(e, 4), torch.split(t, 4)),
                   (ember.split(e, [2, 2, 2], dim=0), torch.split(t, [2, 2, 2], dim=0))):
        assert [tuple(x.shape) for x in es] == [tuple(x.shape) for x in ts]
    v = np.array([3, 1, 3, 2, 1])
    eu = ember.unique(ember.from_numpy(v), return_inverse=True, return_counts=True)
    tu = torch.unique(torch.from_numpy(v), return_inverse=True, return_counts=True)
    for x, y in zip(eu, tu):
        np.testing.assert_array_equal(x.numpy(), y.numpy())
    np.testing.assert_array_equal(ember.from_numpy(v).unique().numpy(), torch.from_numpy(v).unique().numpy())
    a, b = ember.arange(3), ember.arange(2)
    ga = ember.meshgrid(a, b, indexing="xy")
    gt = torch.meshgrid(torch.arange(3), torch.arange(2), indexing="xy")
    for x, y in zip(ga, gt):
        np.testing.assert_array_equal(x.numpy(), y.numpy())
    np.testing.assert_array_equal(ember.cartesian_prod(a, b).numpy(),
                                  torch.cartesian_prod(torch.arange(3), torch.arange(2)).numpy())
    assert ember.atleast_2d(a, b)[1].shape == (1, 2)


def test_writes_through_views_of_views_reach_the_base():
    e, t = pair((4, 6))
    for x in (e, t):
        v = x.t()[1:5:2].unsqueeze(0).narrow(2, 1, 2)
        v.mul_(10)
        x.diagonal().zero_()
        x.unfold(1, 2, 2)[0, 1].fill_(7)
    np.testing.assert_array_equal(e.numpy(), t.numpy())
    assert e._version > 0


def test_gradient_flows_through_inplace_writes_into_views():
    e, t = pair((3, 4))
    ex, tx = e.requires_grad_(), t.requires_grad_()
    outs = []
    for x, lib in ((ex, ember), (tx, torch)):
        y = x * 1
        y[:, 1:3] *= 2
        y.t()[0].copy_(lib.ones(3))
        outs.append(y)
    g = np.arange(12, dtype=np.float32).reshape(3, 4)
    outs[0].backward(ember.from_numpy(g))
    outs[1].backward(torch.from_numpy(g))
    np.testing.assert_array_equal(ex.grad.numpy(), tx.grad.numpy())


@pytest.mark.parametrize("shape", [(1000, 777), (257, 4099), (4, 70000)])
def test_large_transposing_copy(shape):
    e, t = pair(shape)
    np.testing.assert_array_equal(e.t().contiguous().numpy(), t.t().contiguous().numpy())
    e64, t64 = pair(shape, dtype=np.float64)
    np.testing.assert_array_equal(e64.t().contiguous().numpy(), t64.t().contiguous().numpy())


@pytest.mark.parametrize("descending", [False, True])
def test_large_sort_with_nan_ties_and_signed_zeros(descending):
    a = np.random.default_rng(3).integers(-50, 50, 300000).astype(np.float32)
    a[::7] = np.nan
    a[::11] = -0.0
    a[::13] = 0.0
    ev, ei = ember.sort(ember.from_numpy(a.copy()), descending=descending, stable=True)
    tv, ti = torch.sort(torch.from_numpy(a.copy()), descending=descending, stable=True)
    np.testing.assert_array_equal(ev.numpy(), tv.numpy())
    np.testing.assert_array_equal(ei.numpy(), ti.numpy())


@pytest.mark.parametrize("largest", [True, False])
def test_large_topk_and_masked_select(largest):
    e, t = pair((300, 2000), seed=4)
    ev, ei = ember.topk(e, 10, dim=1, largest=largest)
    tv, ti = torch.topk(t, 10, dim=1, largest=largest)
    np.testing.assert_array_equal(ev.numpy(), tv.numpy())
    np.testing.assert_array_equal(ei.numpy(), ti.numpy())
    np.testing.assert_array_equal(e[e > 0.3].numpy(), t[t > 0.3].numpy())
