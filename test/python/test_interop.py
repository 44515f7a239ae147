"""numpy and torch interop: zero-copy both ways, writes seen on the other side, lifetimes."""
import gc

import numpy as np
import pytest
import torch

import ember

NUMPY_DTYPES = ["uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64",
                "complex64", "complex128", "bool"]


@pytest.mark.parametrize("dtype", NUMPY_DTYPES)
def test_numpy_shares_memory_both_ways(dtype):
    e = ember.zeros(2, 3, dtype=getattr(ember, dtype))
    a = e.numpy()
    assert a.dtype == np.dtype(dtype) and a.shape == (2, 3) and a.strides == (3 * a.itemsize, a.itemsize)
    assert a.__array_interface__["data"][0] == e.data_ptr()
    a[1, 2] = 1
    assert e.tolist()[1][2] == 1
    e.fill_(1)
    assert a.all()


def test_numpy_of_views_keeps_strides_and_base_alive():
    base = ember.arange(12, dtype=ember.float32).view(3, 4)
    col = base.select(1, 2)
    a = col.numpy()
    assert a.strides == (16,) and a.tolist() == [2.0, 6.0, 10.0]
    del base, col
    gc.collect()
    assert a.tolist() == [2.0, 6.0, 10.0]  # the array keeps the tensor (and storage) alive


def test_numpy_rejects_bfloat16_and_meta():
    with pytest.raises(TypeError, match="bfloat16"):
        ember.zeros(2, dtype=ember.bfloat16).numpy()
    with pytest.raises(TypeError, match="meta"):
        ember.zeros(2, device="meta").numpy()
    assert np.asarray(ember.ones(2, dtype=ember.bfloat16)).dtype == np.float32  # __array__


def test_array_protocol():
    e = ember.arange(4)
    assert np.asarray(e).__array_interface__["data"][0] == e.data_ptr()
    assert np.array(e, dtype=np.float64).tolist() == [0.0, 1.0, 2.0, 3.0]
    assert np.array(e, copy=True).__array_interface__["data"][0] != e.data_ptr()


@pytest.mark.parametrize("dtype", NUMPY_DTYPES)
def test_from_numpy_shares_memory_both_ways(dtype):
    a = np.zeros((3, 2), dtype=dtype)
    e = ember.from_numpy(a)
    assert e.dtype is getattr(ember, dtype) and e.shape == (3, 2) and e.data_ptr() == a.ctypes.data
    a[2, 1] = 1
    assert e.tolist()[2][1] == 1
    e.fill_(1)
    assert a.all()


def test_from_numpy_strided_and_lifetime():
    a = np.arange(24, dtype=np.float64).reshape(4, 6)
    view = a[::2, 1::3]
    e = ember.from_numpy(view)
    assert e.stride() == (12, 3) and not e.is_contiguous() and e.tolist() == view.tolist()
    t = torch.from_numpy(view)
    assert e.stride() == t.stride()
    b = np.broadcast_to(np.arange(3.0), (4, 3))
    eb = ember.from_numpy(b)
    assert eb.stride() == (0, 1) and eb.tolist() == b.tolist()
    z = ember.from_numpy(np.zeros((0, 3), dtype=np.float32))
    assert z.shape == (0, 3) and z.numel() == 0
    s = ember.from_numpy(np.array(5, dtype=np.int32))
    assert s.dim() == 0 and s.item() == 5
    src = np.arange(3, dtype=np.int64)
    kept = ember.from_numpy(src)
    del src
    gc.collect()
    assert kept.tolist() == [0, 1, 2]


def test_from_numpy_bad_inputs():
    with pytest.raises(TypeError, match="numpy.ndarray"):
        ember.from_numpy([1, 2])
    with pytest.raises(TypeError, match="uint16"):
        ember.from_numpy(np.zeros(2, dtype=np.uint16))
    with pytest.raises(TypeError):
        torch.from_numpy(np.zeros(2, dtype=np.object_))
    with pytest.raises(ValueError, match="negative"):
        ember.from_numpy(np.arange(4)[::-1])
    with pytest.raises(ValueError):
        torch.from_numpy(np.arange(4)[::-1])
    with pytest.raises(ValueError, match="byte order"):
        ember.from_numpy(np.zeros(2, dtype=">f4"))


def test_torch_to_ember_via_dlpack_shares_memory():
    t = torch.arange(6, dtype=torch.float32).reshape(2, 3).t()  # non-contiguous
    e = ember.from_dlpack(t)
    assert e.shape == (3, 2) and e.stride() == t.stride() and e.data_ptr() == t.data_ptr()
    t[0, 0] = 42
    assert e.tolist()[0][0] == 42
    e.fill_(3)
    assert (t == 3).all()
    del t
    gc.collect()
    assert e.tolist() == [[3.0, 3.0]] * 3


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int8", "uint8", "bool",
                                   "float16", "bfloat16", "complex64"])
def test_ember_to_torch_via_dlpack_shares_memory(dtype):
    e = ember.zeros(2, 2, dtype=getattr(ember, dtype))
    t = torch.from_dlpack(e)
    assert t.dtype == getattr(torch, dtype) and t.data_ptr() == e.data_ptr()
    t.fill_(1)
    assert e.to(ember.float32).tolist() == [[1.0, 1.0], [1.0, 1.0]]
    e.zero_()
    assert not t.any()
    del e
    gc.collect()
    assert t.shape == (2, 2)  # the capsule's deleter keeps the memory alive


def test_numpy_and_ember_via_dlpack():
    a = np.arange(5.0)
    e = ember.from_dlpack(a)
    a[0] = -1
    assert e.tolist()[0] == -1
    n = np.from_dlpack(ember.arange(3))
    assert n.tolist() == [0, 1, 2]
    assert ember.zeros(1).__dlpack_device__() == (1, 0)


def test_dlpack_capsules():
    e = ember.ones(3)
    legacy = e.__dlpack__()
    assert "dltensor" in repr(legacy)
    v = ember.from_dlpack(legacy)
    assert v.data_ptr() == e.data_ptr()
    with pytest.raises(ValueError, match="consumed once"):
        ember.from_dlpack(legacy)
    versioned = e.__dlpack__(max_version=(1, 0))
    assert "dltensor_versioned" in repr(versioned)
    assert ember.from_dlpack(versioned).data_ptr() == e.data_ptr()
    unused = e.__dlpack__()
    del unused  # freed by the capsule's destructor (leak tests count the storage)
    with pytest.raises(TypeError):
        ember.from_dlpack([1, 2])
    with pytest.raises(ValueError):
        e.__dlpack__(copy=True)


def test_as_tensor_shares_when_it_can():
    a = np.arange(4.0)
    e = ember.as_tensor(a)
    assert e.data_ptr() == a.ctypes.data
    assert ember.as_tensor(a, dtype=ember.float32).data_ptr() != a.ctypes.data
    t = ember.zeros(2)
    assert ember.as_tensor(t) is t
    assert ember.as_tensor([1, 2]).tolist() == [1, 2]
