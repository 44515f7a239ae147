"""Tensor storages (ember/_storage.py): untyped_storage() and storage() against torch's
(sizes, bytes, items, memory shared with the tensor), set_ and is_set_to, and shared memory
(share_memory_, is_shared, writes seen across fork)."""
import multiprocessing
import os
import warnings

import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")


def both(a, dtype=np.float32):
    a = np.array(a, dtype=dtype)
    return ember.tensor(a.tolist(), dtype=getattr(ember, np.dtype(dtype).name if dtype != np.bool_ else "bool")), \
        torch.tensor(a.tolist(), dtype=getattr(torch, np.dtype(dtype).name if dtype != np.bool_ else "bool"))


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch's TypedStorage deprecation warning
        yield


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64, np.int16, np.uint8, np.bool_])
def test_untyped_storage_matches_torch(dtype):
    e, t = both([[1, 0, 3], [4, 5, 0]], dtype)
    es, ts = e.untyped_storage(), t.untyped_storage()
    assert es.size() == ts.size() == len(es) == es.nbytes() == ts.nbytes()
    assert es.element_size() == ts.element_size() == 1
    assert es.tolist() == ts.tolist()
    assert [es[i] for i in range(len(es))] == [ts[i] for i in range(len(ts))]
    assert es[-1] == ts[-1]
    assert es.data_ptr() == e.data_ptr()
    assert es.device.type == "cpu"
    # views share the storage, including its start
    ev, tv = e[1, 1:], t[1, 1:]
    assert ev.untyped_storage().data_ptr() == es.data_ptr()
    assert ev.untyped_storage().tolist() == tv.untyped_storage().tolist()


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.bool_])
def test_typed_storage_matches_torch(dtype):
    e, t = both([[1, 0, 3], [4, 5, 0]], dtype)
    es, ts = e.t().storage(), t.t().storage()
    assert es.size() == ts.size() == len(es) == 6
    assert es.element_size() == ts.element_size()
    assert es.nbytes() == ts.nbytes()
    assert es.tolist() == ts.tolist()
    assert [es[i] for i in range(6)] == [ts[i] for i in range(6)]
    assert str(es.dtype).split(".")[-1] == str(ts.dtype).split(".")[-1]
    assert es.untyped().tolist() == ts.untyped().tolist()
    assert list(es) == list(ts)


def test_storage_writes_share_memory():
    e = ember.zeros(2, 3)
    s = e.storage()
    s[4] = 7.5
    assert e[1, 1].item() == 7.5
    e[0, 0] = -1.0
    assert s[0] == -1.0
    u = e.untyped_storage()
    u[3] = 0x40  # the high byte of element 0: -1.0 (0xbf800000) becomes 0x40800000 = 4.0
    assert e[0, 0].item() == 4.0
    del e
    assert s[4] == 7.5  # the storage object keeps the memory alive


def test_storage_empty_0d_and_errors():
    for e, t in (both([]), both(2.5)):
        assert e.untyped_storage().tolist() == t.untyped_storage().tolist()
        assert e.storage().tolist() == t.storage().tolist()
        assert len(e.storage()) == len(t.storage())
    s = ember.ones(3).storage()
    with pytest.raises(IndexError):
        s[3]
    with pytest.raises(IndexError):
        ember.ones(3).untyped_storage()[12]
    with pytest.raises(TypeError):
        s["a"]


def test_is_set_to_and_set_():
    a = ember.arange(6.0)
    b = ember.zeros(2)
    assert not b.is_set_to(a) and a.is_set_to(a)
    assert b.set_(a) is b
    assert b.is_set_to(a) and b.data_ptr() == a.data_ptr() and tuple(b.shape) == (6,)
    assert not a.view(2, 3).is_set_to(a)
    c = ember.zeros(1)
    c.set_(a.untyped_storage(), 1, (2, 2), (2, 1))
    t = torch.arange(6.0)
    u = torch.zeros(1).set_(t.untyped_storage(), 1, (2, 2), (2, 1))
    assert c.tolist() == u.tolist() and c.stride() == u.stride()
    c.set_(a.storage(), 2, (3,))
    assert c.tolist() == [2.0, 3.0, 4.0]
    c.set_(a.storage())
    assert c.tolist() == a.tolist()
    c[0] = 9.0
    assert a[0].item() == 9.0
    c.set_()
    assert c.numel() == 0 and c.dtype == ember.float32
    assert torch.zeros(1).set_().numel() == 0


def test_set_errors():
    a = ember.arange(6.0)
    with pytest.raises(RuntimeError):
        ember.zeros(1, dtype=ember.float64).set_(a)
    with pytest.raises(Exception):
        torch.zeros(1, dtype=torch.float64).set_(torch.arange(6.0))
    grown = ember.zeros(1).set_(a.storage(), 0, (7,))  # as torch, the storage grows
    assert tuple(grown.shape) == (7,) and a.untyped_storage().nbytes() == 28
    assert torch.zeros(1).set_(torch.arange(6.0).untyped_storage(), 0, (7,)).shape == (7,)
    fixed = ember.from_numpy(np.zeros(2, dtype=np.float32))  # memory Ember does not own
    with pytest.raises(ValueError):
        ember.zeros(1).set_(fixed, 0, (3,))
    with pytest.raises(TypeError):
        ember.zeros(1).set_([1.0])
    x = ember.zeros(2, requires_grad=True)
    with pytest.raises(RuntimeError):
        x.set_(a)
    with pytest.raises(RuntimeError):
        torch.zeros(2, requires_grad=True).set_(torch.arange(6.0))


def test_share_memory():
    e, t = both([[1, 2, 3], [4, 5, 6]])
    assert e.is_shared() is t.is_shared() is False
    view = e.t()
    assert e.share_memory_() is e and t.share_memory_() is t
    assert e.is_shared() and t.is_shared()
    assert e.tolist() == t.tolist() and e.storage().is_shared()
    assert e.share_memory_().is_shared()  # again: a no-op
    assert not view.is_shared()  # views taken before keep the old storage
    p = ember.nn.Parameter(ember.ones(3))
    p.share_memory_()
    assert p.is_shared() and p.requires_grad
    s = ember.ones(4).untyped_storage().share_memory_()
    assert s.is_shared()


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_share_memory_across_fork():
    e = ember.zeros(4, dtype=ember.float64).share_memory_()
    ctx = multiprocessing.get_context("fork")
    proc = ctx.Process(target=_child_writes, args=(e,))
    proc.start()
    proc.join(60)
    assert proc.exitcode == 0
    assert e.tolist() == [0.0, 1.0, 2.0, 3.0]


def _child_writes(tensor):
    tensor.copy_(ember.arange(4, dtype=ember.float64))
