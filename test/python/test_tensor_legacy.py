"""The legacy and plumbing methods of ember/_tensor_legacy.py (new, resize family, apply_,
map_, map2_, nonzero_static, module_load, grad_dtype, pin_memory, ...) against torch on the
same inputs, including empty and 0-d inputs and the errors."""
import warnings

import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")

def both(a, dtype=np.float64, grad=False):
    a = np.array(a, dtype=dtype)
    e, t = ember.from_numpy(a.copy()), torch.from_numpy(a.copy())
    if grad:
        e.requires_grad_(True)
        t.requires_grad_(True)
    return e, t


def same(e, t, tol=1e-12):
    if isinstance(t, (tuple, list)):
        assert len(e) == len(t)
        for x, y in zip(e, t):
            same(x, y, tol)
        return
    if not isinstance(t, torch.Tensor):
        assert e == t
        return
    assert tuple(e.shape) == tuple(t.shape)
    assert str(e.dtype).split(".")[-1] == str(t.dtype).split(".")[-1]
    np.testing.assert_allclose(e.detach().numpy(), t.detach().numpy(), rtol=tol, atol=tol,
                               equal_nan=True)


def raises_like(e_call, t_call, exc=Exception):
    """Both calls raise (ember with exc)."""
    with pytest.raises(Exception):
        t_call()
    with pytest.raises(exc):
        e_call()


def test_apply_map_map2():
    for dt in (np.float64, np.int64):
        e, t = both([[1, 2, 3], [4, 5, 6]], dt)
        same(e.apply_(lambda v: v * 2 + 1), t.apply_(lambda v: v * 2 + 1))
        f, u = both([10, 20, 30], dt)
        same(e.map_(f, lambda a, b: a - b), t.map_(u, lambda a, b: a - b))
        g, w = both([[1], [2]], dt)
        same(e.map2_(f, g, lambda a, b, c: a * c + b), t.map2_(u, w, lambda a, b, c: a * c + b))
    e, t = both(np.arange(6.0).reshape(2, 3))
    same(e.t().apply_(lambda v: -v), t.t().apply_(lambda v: -v))
    same(e, t)
    e, t = both(np.zeros(0))
    same(e.apply_(abs), t.apply_(abs))
    e, t = both(2.0)
    same(e.apply_(lambda v: v * v), t.apply_(lambda v: v * v))
    e, t = both([1.0], grad=True)
    raises_like(lambda: e.apply_(abs), lambda: t.apply_(abs), RuntimeError)
    raises_like(lambda: e.detach().map_(ember.ones(3), max), lambda: t.detach().map_(torch.ones(3), max))


def test_new():
    e, t = both(np.ones((2, 3)), np.float32)
    same(e.new(), t.new())
    assert tuple(e.new(2, 3).shape) == (2, 3) and e.new(2, 3).dtype == ember.float32
    assert tuple(e.new(ember.Size([4, 1])).shape) == tuple(t.new(torch.Size([4, 1])).shape)
    same(e.new([1, 2]), t.new([1, 2]))
    same(e.new((2, 3)), t.new((2, 3)))
    f = ember.zeros(2, dtype=ember.float32)
    alias = e.new(f)
    alias[0] = 5.0
    assert f[0].item() == 5.0
    raises_like(lambda: e.new(ember.zeros(2, dtype=ember.int64)), lambda: t.new(torch.zeros(2, dtype=torch.int64)),
                TypeError)


def test_nonzero_static():
    for data in ([0, 1, 2, 0, 3], [[0, 1], [2, 0]], 5, []):
        e, t = both(data, np.int64)
        for size, fill in ((2, -1), (4, -7), (0, -1)):
            same(ember.nonzero_static(e, size=size, fill_value=fill),
                 torch.nonzero_static(t, size=size, fill_value=fill))
            same(e.nonzero_static(size=size), t.nonzero_static(size=size))
    e, t = both([[0.0, 1.5], [2.0, 0.0]])
    same(e.t().nonzero_static(size=3), t.t().nonzero_static(size=3))
    raises_like(lambda: e.nonzero_static(size=-1), lambda: t.nonzero_static(size=-1), RuntimeError)


def test_resize_family():
    # (torch's storage stops being resizable once numpy has seen it: compare lists)
    e, t = ember.arange(6.0).view(2, 3), torch.arange(6.0).view(2, 3)
    ptr = e.data_ptr()
    assert e.resize_(3, 2).tolist() == t.resize_(3, 2).tolist()
    assert e.data_ptr() == ptr
    assert e.resize_((1, 2)).tolist() == t.resize_((1, 2)).tolist()
    e.resize_(4, 5)
    t.resize_(4, 5)
    assert tuple(e.shape) == (4, 5) and e.is_contiguous()
    assert e.view(-1)[:6].tolist() == t.view(-1)[:6].tolist()  # the old elements keep their place
    e.resize_as_(ember.ones(2, 2))
    assert tuple(e.shape) == (2, 2)
    ember.resize_as_(e, ember.ones(3))
    assert tuple(e.shape) == (3,)
    e.resize_(1, 2, 2, 3, memory_format=ember.channels_last)
    t.resize_(1, 2, 2, 3, memory_format=torch.channels_last)
    assert e.stride() == t.stride()
    e, t = both(np.arange(6.0).reshape(2, 3))
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        same(e.resize(3, 2), t.resize(3, 2))
        same(e.resize_as(ember.ones(6)), t.resize_as(torch.ones(6)))
        raises_like(lambda: e.resize(4), lambda: t.resize(4), RuntimeError)
    raises_like(lambda: e.resize_(-1, 2), lambda: t.resize_(-1, 2), RuntimeError)
    e, t = both([1.0], grad=True)
    raises_like(lambda: e.resize_(3), lambda: t.resize_(3), RuntimeError)
    e, t = ember.tensor(2.0), torch.tensor(2.0)
    same(e.resize_(0), t.resize_(0))


def test_plumbing_methods():
    e, t = both(np.ones((2, 3)))
    assert e.const_data_ptr() == e.data_ptr()
    assert e.is_inference() is False and ember.is_inference(e) is False
    assert e.is_pinned() is t.is_pinned() is False
    raises_like(lambda: e.pin_memory(), lambda: t.pin_memory(), RuntimeError)
    assert e.name is None and t.name is None
    p = ember.ones(2, requires_grad=True)
    assert p.grad_dtype == ember.float32 and torch.ones(2, requires_grad=True).grad_dtype == torch.float32
    p.grad_dtype = ember.float32
    with pytest.raises(NotImplementedError):
        p.grad_dtype = ember.float16
    with pytest.raises(RuntimeError):
        (p * 2).grad_dtype
    with pytest.raises(RuntimeError):
        (torch.ones(2, requires_grad=True) * 2).grad_dtype
    parts = ember.unsafe_split_with_sizes(ember.arange(6), [1, 5])
    assert [tuple(x.shape) for x in parts] == [(1,), (5,)]
    same(ember.arange(6).unsafe_split_with_sizes([4, 2])[1], torch.arange(6).unsafe_split_with_sizes([4, 2])[1])


def test_module_load():
    e, t = both([1.0, 2.0])
    f, u = both([3.0, 4.0], grad=True)
    out = e.module_load(f)
    assert out is not e and out is not f and not out.requires_grad
    same(e, torch.tensor([3.0, 4.0], dtype=torch.float64))
    assert not t.module_load(u).requires_grad
    out = e.module_load(f, assign=True)
    assert not out.requires_grad and out.data_ptr() == f.data_ptr()


def test_resize_keeps_the_elements_in_every_dtype():
    for dt in ("float32", "bfloat16", "int64", "bool", "complex64"):
        e = ember.arange(6).to(getattr(ember, dt))
        t = torch.arange(6).to(getattr(torch, dt))
        e.resize_(2, 5)
        t.resize_(2, 5)
        assert e.shape == t.shape and e.stride() == t.stride()
        assert e.reshape(-1)[:6].tolist() == t.reshape(-1)[:6].tolist()
        assert e.resize_(2, 2).tolist() == t.resize_(2, 2).tolist()
