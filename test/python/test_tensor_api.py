"""The ember.Tensor surface and the module-level functions that need no arithmetic ops,
each checked against PyTorch 2.13 (or numpy) on the same inputs."""
import copy
import pickle
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

import ember

REPO = Path(__file__).resolve().parents[2]
DTYPES = ["uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32",
          "float64", "complex64", "complex128", "bool"]


def pair(data, dtype="float32"):
    """The same values as an ember and a torch tensor."""
    return ember.tensor(data, dtype=getattr(ember, dtype)), torch.tensor(data, dtype=getattr(torch, dtype))


def torch_repr(t: torch.Tensor) -> str:
    return repr(t).replace("torch.", "ember.")


# ---- printing ------------------------------------------------------------------------------

@pytest.mark.parametrize("data,dtype", [
    ([[1.5, -2.25], [3.0, 4.125]], "float32"), ([1, 2, 3], "int64"), ([True, False], "bool"),
    ([1e-8, 1.0], "float64"), (3.5, "float32"), ([], "float32"), ([], "int64"),
    ([[1, 2], [3, 4]], "int32"), ([1.0 + 2j, -0.5j], "complex64"), ([0.1, 0.2], "float16"),
])
def test_repr_matches_pytorch(data, dtype):
    e, t = pair(data, dtype)
    assert repr(e) == torch_repr(t)
    assert str(e) == torch_repr(t)


def test_repr_summarises_like_pytorch():
    e, t = ember.arange(2000, dtype=ember.float32), torch.arange(2000, dtype=torch.float32)
    assert repr(e) == torch_repr(t)


def test_repr_shows_requires_grad():
    e = ember.tensor([1.0, 2.0], requires_grad=True)
    t = torch.tensor([1.0, 2.0], requires_grad=True)
    assert repr(e) == torch_repr(t)


def test_set_printoptions():
    e, t = pair([1.123456789, 2.0])
    try:
        ember.set_printoptions(precision=2)
        torch.set_printoptions(precision=2)
        assert repr(e) == torch_repr(t)
    finally:
        ember.set_printoptions(profile="default")
        torch.set_printoptions(profile="default")
    assert repr(e) == torch_repr(t)


# ---- sizes, strides, metadata ----------------------------------------------------------------

def test_shape_size_dim_numel():
    e = ember.zeros(2, 3, 4)
    t = torch.zeros(2, 3, 4)
    assert isinstance(e.shape, ember.Size) and isinstance(e.shape, tuple)
    assert e.shape == t.shape and e.size() == t.size() and repr(e.shape) == repr(t.shape).replace("torch", "ember")
    assert [e.size(d) for d in (0, 1, 2, -1, -3)] == [t.size(d) for d in (0, 1, 2, -1, -3)]
    assert e.size(dim=1) == 3
    assert e.dim() == e.ndim == e.ndimension() == 3
    assert e.numel() == e.nelement() == ember.numel(e) == 24
    assert e.shape.numel() == 24
    assert e.stride() == t.stride() and e.stride(1) == t.stride(1) and e.stride(-1) == 1
    assert e.storage_offset() == 0 and e.is_contiguous()
    assert e.element_size() == e.itemsize == 4 and e.nbytes == 96
    with pytest.raises(IndexError, match="dimension out of range"):
        e.size(3)
    with pytest.raises(IndexError):
        t.size(3)
    with pytest.raises(TypeError):
        e.size("a")


def test_views_report_offset_and_contiguity():
    base = ember.arange(12).view(3, 4)
    row = base.select(0, 2)
    col = base.select(1, 1)
    assert row.storage_offset() == 8 and row.is_contiguous()
    assert col.stride() == (4,) and not col.is_contiguous()
    assert col.data_ptr() == base.data_ptr() + 1 * base.element_size()
    tb = torch.arange(12).view(3, 4)
    assert col.tolist() == tb.select(1, 1).tolist()


@pytest.mark.parametrize("name", DTYPES)
def test_dtype_objects(name):
    d, td = getattr(ember, name), getattr(torch, name)
    assert repr(d) == f"ember.{name}"
    assert d.is_floating_point == td.is_floating_point
    assert d.is_complex == td.is_complex
    assert d.is_signed == td.is_signed
    assert d.itemsize == td.itemsize
    assert pickle.loads(pickle.dumps(d)) is d


def test_dtype_aliases():
    assert ember.float is ember.float32 and ember.double is ember.float64
    assert ember.long is ember.int64 and ember.int is ember.int32 and ember.half is ember.float16
    assert ember.cfloat is ember.complex64 and ember.short is ember.int16


def test_device_objects():
    d = ember.device("cpu")
    assert d.type == "cpu" and d.index is None and str(d) == "cpu" and repr(d) == "device(type='cpu')"
    assert ember.device("cuda:1").index == 1 and ember.device("cuda", 2) == ember.device("cuda:2")
    assert repr(ember.device("cuda", 0)) == repr(torch.device("cuda", 0))
    assert ember.zeros(1).device == d and hash(d) == hash(ember.device("cpu"))
    assert ember.zeros(1).is_cpu and not ember.zeros(1).is_cuda
    with pytest.raises(ValueError, match="expected a device type"):  # torch: RuntimeError
        ember.device("abc")
    with pytest.raises(TypeError):
        ember.device(1.5)


def test_layout_and_memory_format_objects():
    assert ember.zeros(1).layout is ember.strided
    assert repr(ember.contiguous_format) == "ember.contiguous_format"
    assert ember.zeros(2, 2).is_contiguous(memory_format=ember.contiguous_format)


# ---- conversions to Python ---------------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
def test_item_and_tolist(dtype):
    data = [[1, 0, 3], [4, 5, 0]] if dtype != "bool" else [[True, False], [False, True]]
    e, t = pair(data, dtype)
    assert e.tolist() == t.tolist()
    assert e.select(0, 1).select(0, 1).item() == t[1][1].item()
    assert type(e.select(0, 0).select(0, 0).item()) is type(t[0][0].item())
    z = ember.tensor(7, dtype=getattr(ember, dtype)) if dtype != "bool" else ember.tensor(True)
    assert z.tolist() == z.item()


def test_number_protocol():
    e = ember.tensor([2.5])
    assert float(e) == 2.5 and int(e) == 2 and bool(e)
    assert not bool(ember.zeros(1)) and bool(ember.tensor(3))
    assert [10, 20, 30][ember.tensor(1)] == 20
    assert "{:.2f}".format(ember.tensor(1.5)) == "1.50"
    with pytest.raises(RuntimeError, match="ambiguous"):
        bool(ember.zeros(2))
    with pytest.raises(RuntimeError):
        bool(torch.zeros(2))
    with pytest.raises(TypeError):
        [1, 2][ember.tensor(0.5)]
    with pytest.raises(TypeError):
        [1, 2][torch.tensor(0.5)]


def test_len_and_iter():
    e, t = pair([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    assert len(e) == len(t) == 3
    assert [r.tolist() for r in e] == [r.tolist() for r in t]
    assert [r.tolist() for r in reversed(e)] == [r.tolist() for r in reversed(t)]
    with pytest.raises(TypeError, match="0-d"):
        len(ember.tensor(1.0))
    with pytest.raises(TypeError):
        iter(ember.tensor(1.0))


# ---- dtype conversions ----------------------------------------------------------------------

@pytest.mark.parametrize("method,dtype", [("float", "float32"), ("double", "float64"),
                                          ("half", "float16"), ("bfloat16", "bfloat16"),
                                          ("long", "int64"), ("int", "int32"), ("short", "int16"),
                                          ("char", "int8"), ("byte", "uint8"), ("bool", "bool")])
def test_conversion_methods(method, dtype):
    e, t = pair([[0.0, 1.5], [-2.0, 3.25]])
    r, rt = getattr(e, method)(), getattr(t, method)()
    assert r.dtype is getattr(ember, dtype)
    assert r.float().tolist() == rt.float().tolist()


def test_to_forms():
    e = ember.tensor([1.5, 2.5])
    assert e.to(ember.float32) is e                 # nothing to do: self
    assert e.to(ember.float32, copy=True) is not e
    assert e.to(ember.int64).tolist() == [1, 2]
    assert e.to(dtype=ember.float64).dtype is ember.float64
    assert e.to(ember.zeros(1, dtype=ember.int32)).dtype is ember.int32
    assert e.to("cpu") is e and e.to("cpu", ember.float64).dtype is ember.float64
    assert e.to(device="cpu", dtype=ember.int8).dtype is ember.int8
    assert e.type_as(ember.zeros(1, dtype=ember.float16)).dtype is ember.float16
    assert e.cpu() is e
    with pytest.raises(TypeError):
        e.to(1.5)
    with pytest.raises(RuntimeError):  # no CUDA device (or no CUDA build: NotImplementedError)
        e.to("cuda")


def test_new_factories():
    e = ember.zeros(2, dtype=ember.float64)
    assert e.new_zeros(3).dtype is ember.float64 and e.new_zeros(3).tolist() == [0.0] * 3
    assert e.new_ones((2, 2)).tolist() == [[1.0, 1.0], [1.0, 1.0]]
    assert e.new_full((2,), 7).tolist() == [7.0, 7.0]
    assert e.new_empty(4).shape == (4,)
    assert e.new_tensor([1, 2]).dtype is ember.float64
    assert e.new_zeros(2, dtype=ember.int32).dtype is ember.int32


def test_requires_grad_flag():
    e = ember.zeros(2)
    assert e.requires_grad is False and e.is_leaf and e.grad is None
    assert e.requires_grad_() is e and e.requires_grad
    e.requires_grad = False
    assert not e.requires_grad
    assert ember.ones(2, requires_grad=True).requires_grad
    with pytest.raises(RuntimeError, match="floating point"):
        ember.zeros(2, dtype=ember.int64).requires_grad_()
    with pytest.raises(RuntimeError, match="floating point"):
        ember.zeros(2, dtype=ember.int64, requires_grad=True)
    with pytest.raises(RuntimeError):
        ember.ones(2, requires_grad=True).numpy()
    assert ember.ones(2, requires_grad=True).numpy(force=True).tolist() == [1.0, 1.0]
    with pytest.raises(TypeError, match="force"):
        ember.ones(2).numpy(force=1)


# ---- identity ---------------------------------------------------------------------------------

def test_same_tensor_same_python_object():
    e = ember.zeros(3)
    e.note = "kept"
    assert e.zero_() is e and e.fill_(2) is e
    assert e.uniform_().note == "kept"
    o = ember.empty(0)
    assert ember.arange(3, out=o) is o


def test_subclass():
    class Mine(ember.Tensor):
        def twice(self):
            return self.clone().fill_(2)

    m = Mine([1.0, 2.0])
    assert isinstance(m, Mine) and isinstance(m, ember.Tensor) and m.tolist() == [1.0, 2.0]
    assert m.twice().tolist() == [2.0, 2.0]
    assert Mine(2, 3).shape == (2, 3) and Mine().shape == (0,)
    assert ember.Tensor([1, 2]).dtype is ember.float32  # the legacy constructor: default dtype


def test_deepcopy():
    e = ember.tensor([1.0, 2.0], requires_grad=True)
    c = copy.deepcopy(e)
    assert c is not e and c.tolist() == e.tolist() and c.requires_grad
    assert c.data_ptr() != e.data_ptr()


# ---- module-level functions -----------------------------------------------------------------

TENSOR_DATA = [1, 1.5, True, 1 + 2j, [1, 2], [1, 2.5], [True, False], [[1, 2], [3, 4]],
               [], [[]], [1, True], [1.0, 2j], [np.float32(1.5)], [np.int16(3)],
               np.arange(6, dtype=np.int32).reshape(2, 3), np.float32(2.5), np.array(3.0),
               np.array([True, False]), [[1.0], [2.0]]]


@pytest.mark.parametrize("data", TENSOR_DATA, ids=[repr(d)[:20] for d in TENSOR_DATA])
def test_tensor_from_data_matches_pytorch(data):
    e, t = ember.tensor(data), torch.tensor(data)
    assert str(e.dtype).split(".")[1] == str(t.dtype).split(".")[1]
    assert e.shape == t.shape and e.tolist() == t.tolist()


@pytest.mark.parametrize("dtype", DTYPES)
def test_tensor_with_dtype(dtype):
    data = [[0, 1], [2, 3]]
    e, t = ember.tensor(data, dtype=getattr(ember, dtype)), torch.tensor(data, dtype=getattr(torch, dtype))
    assert e.dtype is getattr(ember, dtype) and e.tolist() == t.tolist()


def test_tensor_from_tensors_copies():
    src = ember.tensor([1.0, 2.0])
    c = ember.tensor(src)
    assert c.data_ptr() != src.data_ptr() and c.tolist() == [1.0, 2.0]
    assert ember.tensor([ember.tensor(1), ember.tensor(2)]).tolist() == [1, 2]
    assert ember.tensor([ember.tensor([1, 2]), ember.tensor([3, 4])]).tolist() == [[1, 2], [3, 4]]


@pytest.mark.parametrize("bad,exc", [([[1, 2], [3]], ValueError), ([1, [2]], ValueError),
                                     ("abc", TypeError), ([object()], TypeError),
                                     ([2 ** 70], RuntimeError)])
def test_tensor_bad_data(bad, exc):
    with pytest.raises(exc):
        ember.tensor(bad)
    with pytest.raises(Exception):
        torch.tensor(bad)


def test_default_dtype():
    assert ember.get_default_dtype() is ember.float32
    try:
        ember.set_default_dtype(ember.float64)
        assert ember.tensor([1.5]).dtype is ember.float64
        assert ember.zeros(2).dtype is ember.float64 and ember.randn(2).dtype is ember.float64
        assert ember.tensor([1j]).dtype is ember.complex128
        assert repr(ember.tensor([1.5])) == "tensor([1.5000])"
        with pytest.raises(TypeError):
            ember.set_default_dtype(ember.int64)
    finally:
        ember.set_default_dtype(ember.float32)
    assert ember.zeros(1).dtype is ember.float32


def test_keyword_named_arguments():
    t = ember.zeros(1000)
    t.uniform_(from_=2.0, to=3.0)
    assert 2.0 <= min(t.tolist()) and max(t.tolist()) < 3.0
    t.random_(5, to=7)
    assert set(t.tolist()) <= {5.0, 6.0}
    t.uniform_(**{"from": 4.0, "to": 5.0})  # PyTorch's spelling works too
    assert 4.0 <= min(t.tolist())


def test_seeds_and_generators():
    ember.manual_seed(123)
    a = ember.randn(5).tolist()
    ember.manual_seed(123)
    assert ember.randn(5).tolist() == a
    assert ember.initial_seed() == 123
    g = ember.Generator().manual_seed(7)
    x = ember.rand(4, generator=g).tolist()
    g.manual_seed(7)
    assert ember.rand(4, generator=g).tolist() == x
    assert g.initial_seed() == 7 and g.device == ember.device("cpu")
    s = ember.Generator().seed()
    assert isinstance(s, int)
    assert isinstance(ember.manual_seed(1), ember.Generator)
    with pytest.raises(TypeError):
        g.manual_seed("x")


def test_threads():
    n = ember.get_num_threads()
    try:
        ember.set_num_threads(1)
        assert ember.get_num_threads() == 1
        with pytest.raises(ValueError):
            ember.set_num_threads(0)
    finally:
        ember.set_num_threads(n)


@pytest.mark.parametrize("env,want", [
    ({"EMBER_NUM_THREADS": "1"}, 1),
    ({"OMP_NUM_THREADS": "1"}, 1),
    ({"OMP_NUM_THREADS": "1,1"}, 1),               # OpenMP's nested list: the first level
    ({"EMBER_NUM_THREADS": "1", "OMP_NUM_THREADS": "2"}, 1),  # Ember's own wins
    ({"OMP_NUM_THREADS": "0"}, None),              # not a positive count: ignored
    ({"EMBER_NUM_THREADS": "abc"}, None),
    ({}, None),                                    # None: the hardware's count
])
def test_default_thread_count_follows_the_environment_as_torch(env, want):
    # torch's default follows OMP_NUM_THREADS; a child process reads the variables at start.
    import os
    import subprocess
    clean = {k: v for k, v in os.environ.items() if k not in ("EMBER_NUM_THREADS", "OMP_NUM_THREADS")}
    out = subprocess.run([sys.executable, "-c", "import ember, os; print(ember.get_num_threads(), os.cpu_count())"],
                         env={**clean, **env}, capture_output=True, text=True, check=True).stdout.split()
    got, cpus = int(out[0]), int(out[1])
    assert got == (want if want is not None else cpus), (env, out)
    if "OMP_NUM_THREADS" in env and "EMBER_NUM_THREADS" not in env and want is not None:
        torch_got = subprocess.run([sys.executable, "-c", "import torch; print(torch.get_num_threads())"],
                                   env={**clean, **env}, capture_output=True, text=True, check=True).stdout
        assert int(torch_got) == got


def test_predicates():
    assert ember.is_tensor(ember.zeros(1)) and not ember.is_tensor([1])
    assert ember.is_floating_point(ember.zeros(1)) and not ember.is_floating_point(ember.arange(2))
    assert ember.is_complex(ember.zeros(1, dtype=ember.complex64))


def test_equal_and_allclose():
    a = ember.tensor([1.0, 2.0, 3.0])
    assert ember.equal(a, ember.tensor([1.0, 2.0, 3.0])) and not ember.equal(a, ember.tensor([1.0, 2.0]))
    assert not ember.equal(a, ember.tensor([1.0, 2.0, 4.0]))
    b = ember.tensor([1.0, 2.0, 3.0 + 1e-7])
    assert ember.allclose(a, b) == torch.allclose(torch.tensor(a.tolist()), torch.tensor(b.tolist()))
    assert not ember.allclose(a, ember.tensor([1.0, 2.0, 3.1]))
    assert ember.allclose(ember.tensor([float("nan")]), ember.tensor([float("nan")]), equal_nan=True)
    assert not ember.allclose(ember.tensor([float("nan")]), ember.tensor([float("nan")]))
    with pytest.raises(RuntimeError):
        ember.allclose(a, ember.tensor([1, 2, 3]))
    with pytest.raises(TypeError):
        ember.equal(a, [1.0])


def test_assert_close():
    a = ember.tensor([1.0, 2.0])
    ember.testing.assert_close(a, ember.tensor([1.0, 2.0 + 1e-7]))
    with pytest.raises(AssertionError, match="Mismatched elements: 1 / 2"):
        ember.testing.assert_close(a, ember.tensor([1.0, 2.5]))
    with pytest.raises(AssertionError, match="dtype"):
        ember.testing.assert_close(a, a.double())
    ember.testing.assert_close(a, a.double(), check_dtype=False)
    with pytest.raises(AssertionError, match="shape"):
        ember.testing.assert_close(a, ember.zeros(3))
    ember.testing.assert_close(1.0, 1.0 + 1e-9)
    ember.testing.assert_close([a, 2], [a.clone(), 2])
    with pytest.raises(ValueError):
        ember.testing.assert_close(a, a, rtol=1e-3)


# ---- errors --------------------------------------------------------------------------------

def test_error_classes_map():
    with pytest.raises(ValueError):           # ember::ValueError
        ember.zeros(2).view(3)
    with pytest.raises(IndexError):           # ember::IndexError
        ember.zeros(2).select(0, 5)
    with pytest.raises(TypeError):            # the argument parser
        ember.zeros(2).select("a", 0)
    with pytest.raises(RuntimeError):         # ember::Error
        ember.zeros(1, device="meta").item()
    with pytest.raises(NotImplementedError):  # ember::NotImplementedError
        ember.zeros(2, layout=ember.sparse_coo)


BAD_CALLS = [
    ("function", lambda: ember.zeros("a"), "zeros(int[] size"),
    ("function kwarg", lambda: ember.zeros(2, dtype="float"), "argument 'dtype' must be ember.dtype"),
    ("unknown keyword", lambda: ember.zeros(2, colour=1), "unexpected keyword argument 'colour'"),
    ("too many positional", lambda: ember.clone(ember.zeros(1), 1), "positional"),
    ("missing argument", lambda: ember.full((2,)), "missing required argument 'fill_value'"),
    ("overloads", lambda: ember.arange("a"), "expected one of:\n * arange(Scalar end"),
    ("method", lambda: ember.zeros(2).fill_("x"), "fill_(Scalar value)"),
    ("method overloads", lambda: ember.zeros(2).random_(1.5), "random_("),
    ("varargs", lambda: ember.zeros(2, 3).view(6, "a"), "view(int[] size)"),
    ("out", lambda: ember.arange(3, out=[1]), "got (int, out=list)"),
    ("generator", lambda: ember.rand(2, generator=5), "Generator"),
    ("multiple values", lambda: ember.full((1,), 1, fill_value=2), "multiple values"),
]


@pytest.mark.parametrize("kind,call,message", BAD_CALLS, ids=[b[0] for b in BAD_CALLS])
def test_bad_arguments_raise_type_error_with_signature(kind, call, message):
    with pytest.raises(TypeError) as info:
        call()
    assert message in str(info.value)


def test_stub_has_signatures_and_docs():
    stub = (REPO / "python" / "ember" / "_C" / "__init__.pyi").read_text()
    import ast
    ast.parse(stub)  # valid Python: keyword names such as `from` are spelt `from_`
    assert "def uniform_(self, from_: float = ..., to: float = ..." in stub
    assert "def zeros(size: _size, *, dtype: dtype | None = ..." in stub
    assert "Returns a tensor of the given size filled with 0." in stub
    assert "class _TensorMethods:" in stub and "def fill_(self, value: Number) -> Tensor" in stub


def test_make_subclass_aliases_data_with_own_autograd_state():
    class Sub(ember.Tensor):
        pass
    x = ember.ones(3)
    p = ember.Tensor._make_subclass(Sub, x, True)
    assert type(p) is Sub and p.requires_grad and not x.requires_grad
    p.data.add_(1)  # same storage
    assert x.tolist() == [2.0, 2.0, 2.0]
    (p * 3).sum().backward()
    assert p.grad.tolist() == [3.0, 3.0, 3.0]
    with pytest.raises(TypeError):
        ember.Tensor._make_subclass(int, x)
