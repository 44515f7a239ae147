"""PyTorch's device, backend and legacy names on a machine without a usable GPU, each against
what torch's CPU build does (a build of Ember with CUDA raises a RuntimeError saying why
there is no device where torch's CPU build raises): ember.cuda, ember.accelerator, ember.backends.{cudnn,cuda,mps},
tensor device predicates, Tensor.type() and the legacy tensor types, ember.onnx,
ember.nn.parallel, the float32 matmul precision, ember.random and ember.autocast."""
import warnings

import numpy as np
import pytest
import torch

import ember
from ember.errors import NotCompiledError

CUDA_BUILT = ember._C._cuda_built()
# What needs a device raises this in Ember: NotCompiledError without CUDA, else a
# RuntimeError naming the driver's reason.
NO_DEVICE_ERROR = RuntimeError if CUDA_BUILT else NotCompiledError
NO_DEVICE_MESSAGE = "CUDA is not available" if CUDA_BUILT else "Ember not compiled with CUDA enabled"
no_gpu = pytest.mark.skipif(ember.cuda.device_count() > 0, reason="a GPU is present: test_cuda.py covers it")


def outcome(f):
    """("ok", result) or ("raise", exception type name) of f()."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return "ok", f()
    except Exception as e:  # noqa: BLE001 - the type is the outcome
        return "raise", type(e).__name__


def same_outcome(call):
    """call(m) on ember and torch ends the same way: the same result, or the same exception
    (NotCompiledError counting as the AssertionError or RuntimeError torch raises)."""
    got, want = outcome(lambda: call(ember)), outcome(lambda: call(torch))
    if got[1] == NO_DEVICE_ERROR.__name__ and want[1] in ("AssertionError", "RuntimeError"):
        got = want
    assert got == want
    return got


# ---- ember.cuda -------------------------------------------------------------------------

CUDA_CALLS = {
    "is_available": lambda m: m.cuda.is_available(), "device_count": lambda m: m.cuda.device_count(),
    "is_initialized": lambda m: m.cuda.is_initialized(),
    "manual_seed": lambda m: m.cuda.manual_seed(3), "manual_seed_all": lambda m: m.cuda.manual_seed_all(3),
    "seed": lambda m: m.cuda.seed(), "seed_all": lambda m: m.cuda.seed_all(),
    "empty_cache": lambda m: m.cuda.empty_cache(),
    "memory_allocated": lambda m: m.cuda.memory_allocated(),
    "max_memory_allocated": lambda m: m.cuda.max_memory_allocated(0),
    "memory_reserved": lambda m: m.cuda.memory_reserved(),
    "max_memory_reserved": lambda m: m.cuda.max_memory_reserved(),
    "is_bf16_supported": lambda m: m.cuda.is_bf16_supported(),
    "is_tf32_supported": lambda m: m.cuda.is_tf32_supported(),
    "get_arch_list": lambda m: m.cuda.get_arch_list(),
    "get_rng_state_all": lambda m: m.cuda.get_rng_state_all(),
    "synchronize": lambda m: m.cuda.synchronize(), "current_device": lambda m: m.cuda.current_device(),
    "get_device_name": lambda m: m.cuda.get_device_name(), "get_device_name(0)": lambda m: m.cuda.get_device_name(0),
    "get_device_capability": lambda m: m.cuda.get_device_capability(),
    "get_device_properties": lambda m: m.cuda.get_device_properties(0),
    "init": lambda m: m.cuda.init(), "initial_seed": lambda m: m.cuda.initial_seed(),
    "get_rng_state": lambda m: m.cuda.get_rng_state(), "current_stream": lambda m: m.cuda.current_stream(),
    "mem_get_info": lambda m: m.cuda.mem_get_info(),
    "set_device('cpu')": lambda m: m.cuda.set_device("cpu"),
    "set_device(device('cpu'))": lambda m: m.cuda.set_device(m.device("cpu")),
    "set_device(-1)": lambda m: m.cuda.set_device(-1),
    "manual_seed('x')": lambda m: m.cuda.manual_seed("x"),
    "device(-1)": lambda m: m.cuda.device(-1).__enter__(),
    "device(0)": lambda m: m.cuda.device(0).__enter__(),
    "device_of(cpu tensor)": lambda m: m.cuda.device_of(m.zeros(1)).__enter__(),
}


@pytest.mark.parametrize("name", CUDA_CALLS)
@no_gpu
def test_cuda_module_as_torch_cpu_build(name):
    if name == "get_arch_list" and CUDA_BUILT:
        archs = ember.cuda.get_arch_list()  # what the kernels were compiled for (default: Hopper)
        assert archs and all(a.startswith("sm_") for a in archs), archs
        return
    same_outcome(CUDA_CALLS[name])


@no_gpu
def test_cuda_types_and_messages():
    assert ember.cuda.is_available() is False and type(ember.cuda.device_count()) is int
    assert ember.cuda.memory_stats() == dict(torch.cuda.memory_stats())
    ember.cuda.reset_peak_memory_stats()  # nothing to reset (torch's CPU build fails here)
    for f in (ember.cuda.current_device, ember.cuda.synchronize, ember.cuda.get_device_name,
              ember.cuda.Stream, ember.cuda.Event, ember.cuda.current_stream):
        with pytest.raises(NO_DEVICE_ERROR, match=NO_DEVICE_MESSAGE):
            f()
    # set_device(0) raises as the other device calls (torch's CPU build: an AttributeError
    # about its own internals).
    with pytest.raises(NO_DEVICE_ERROR, match=NO_DEVICE_MESSAGE):
        ember.cuda.set_device(0)
    with pytest.raises(NO_DEVICE_ERROR):
        ember.cuda.set_device("cuda:0")
    with pytest.raises(ValueError, match="Expected a cuda device, but got: cpu"):
        ember.cuda.set_device("cpu")


@no_gpu
def test_not_compiled_error_is_caught_as_ember_and_torch_errors():
    for kind in (AssertionError, NotImplementedError, RuntimeError) if not CUDA_BUILT else (RuntimeError,):
        with pytest.raises(kind):
            ember.cuda.current_device()


MOVES = {
    "t.to('cuda')": lambda m: m.zeros(2).to("cuda"),
    "t.to('cuda:1')": lambda m: m.zeros(2).to("cuda:1"),
    "t.to(device('cuda'))": lambda m: m.zeros(2).to(m.device("cuda")),
    "t.to(device='cuda', dtype)": lambda m: m.zeros(2).to(device="cuda", dtype=m.float64),
    "t.cuda()": lambda m: m.zeros(2).cuda(),
    "t.to('cpu')": lambda m: m.zeros(2).to("cpu").shape,
}


@pytest.mark.parametrize("name", MOVES)
@no_gpu
def test_moving_to_cuda_raises_not_compiled(name):
    same_outcome(MOVES[name])
    if name != "t.to('cpu')":
        with pytest.raises(NO_DEVICE_ERROR, match=NO_DEVICE_MESSAGE):
            MOVES[name](ember)


def test_cuda_method_checks_its_device():
    for m in (ember, torch):
        with pytest.raises(RuntimeError):
            m.zeros(1).cuda("cpu")


@pytest.mark.parametrize("factory", [
    lambda m: m.zeros(2, device="cuda"), lambda m: m.empty(2, device="cuda"),
    lambda m: m.randn(2, device="cuda"), lambda m: m.ones_like(m.zeros(2), device="cuda"),
    lambda m: m.tensor([1.0], device="cuda"), lambda m: m.Generator("cuda"),
])
@no_gpu
def test_cuda_factories_raise(factory):
    """Factories raise in C++ (torch: AssertionError): without CUDA, NotImplementedError naming
    the missing CUDA kernel or device; with it, a RuntimeError saying why there is no device."""
    with pytest.raises(RuntimeError if CUDA_BUILT else NotImplementedError, match="(?i)cuda|only CPU"):
        factory(ember)
    with pytest.raises((AssertionError, RuntimeError)):
        factory(torch)


@pytest.mark.filterwarnings("ignore:`torch.cuda.amp")
def test_cuda_amp():
    for m in (ember, torch):
        with pytest.warns(UserWarning, match="CUDA is not available"):
            ac = m.cuda.amp.autocast()
        with ac:
            assert not m.is_autocast_enabled("cuda")
        with pytest.warns(UserWarning, match="CUDA is not available"):
            scaler = m.cuda.amp.GradScaler()
        assert scaler.is_enabled() is False and scaler.get_scale() == 1.0
        loss = m.ones(())
        assert scaler.scale(loss) is loss and scaler.state_dict() == {}
    net = ember.nn.Linear(2, 1)
    opt = ember.optim.SGD(net.parameters(), lr=1.0)
    net(ember.ones(1, 2)).sum().backward()
    before = net.weight.detach().clone()
    with pytest.warns(UserWarning):
        ember.cuda.amp.GradScaler().step(opt)
    assert ember.allclose(net.weight.detach(), before - 1.0)  # step() ran optimizer.step()


# ---- ember.accelerator ------------------------------------------------------------------

ACCELERATOR_CALLS = {
    "is_available": lambda m: m.accelerator.is_available(),
    "device_count": lambda m: m.accelerator.device_count(),
    "current_accelerator": lambda m: m.accelerator.current_accelerator(),
    "current_accelerator(True)": lambda m: m.accelerator.current_accelerator(check_available=True),
    "current_device_index": lambda m: m.accelerator.current_device_index(),
    "set_device_index(0)": lambda m: m.accelerator.set_device_index(0),
    "synchronize": lambda m: m.accelerator.synchronize(),
    "empty_cache": lambda m: m.accelerator.empty_cache(),
    "memory_allocated": lambda m: m.accelerator.memory_allocated(),
    "device_index(None)": lambda m: m.accelerator.device_index(None).__enter__(),
    "device_index(0)": lambda m: m.accelerator.device_index(0).__enter__(),
}


@pytest.mark.parametrize("name", ACCELERATOR_CALLS)
def test_accelerator_as_torch_cpu_build(name):
    same_outcome(ACCELERATOR_CALLS[name])


# ---- ember.backends ---------------------------------------------------------------------

CUDNN_FLAGS = ("enabled", "benchmark", "deterministic", "allow_tf32")


def cudnn_state(m):
    return tuple(getattr(m.backends.cudnn, f) for f in CUDNN_FLAGS)


def test_cudnn_facts_and_defaults():
    for m in (ember, torch):
        c = m.backends.cudnn
        assert (c.is_available(), c.version(), c.is_acceptable(m.zeros(1))) == (False, None, False)
    assert cudnn_state(ember) == cudnn_state(torch) == (True, False, False, True)


@pytest.mark.parametrize("flag", CUDNN_FLAGS)
def test_cudnn_flag_set_and_checked(flag):
    for m in (ember, torch):
        c = m.backends.cudnn
        before = getattr(c, flag)
        try:
            setattr(c, flag, not before)
            assert getattr(c, flag) is (not before)
            with pytest.raises(RuntimeError, match="expects a bool|expected a bool"):
                setattr(c, flag, 1)
            assert getattr(c, flag) is (not before)
        finally:
            setattr(c, flag, before)


def test_cudnn_flags_context_manager():
    for m in (ember, torch):
        with m.backends.cudnn.flags(enabled=False, benchmark=True, deterministic=True,
                                     allow_tf32=False):
            assert cudnn_state(m) == (False, True, True, False)
        assert cudnn_state(m) == (True, False, False, True)
        with m.backends.cudnn.flags():
            assert cudnn_state(m) == (False, False, False, True)  # its defaults, as torch
        with pytest.raises(ZeroDivisionError):
            with m.backends.cudnn.flags(benchmark=True):
                1 / 0
        assert cudnn_state(m) == (True, False, False, True)
        with pytest.raises(RuntimeError):
            with m.backends.cudnn.flags(enabled=1):
                pass
        assert cudnn_state(m) == (True, False, False, True)


def test_mps_and_cuda_backend_facts():
    for m in (ember, torch):
        assert m.backends.mps.is_available() is False and m.backends.mps.is_built() is False
        assert m.backends.cuda.is_built() is False
        assert m.backends.mkldnn.is_available() is True
    mm_e, mm_t = ember.backends.cuda.matmul, torch.backends.cuda.matmul
    for flag in ("allow_tf32", "allow_fp16_reduced_precision_reduction",
                 "allow_bf16_reduced_precision_reduction"):
        assert getattr(mm_e, flag) == getattr(mm_t, flag), flag
    for mm in (mm_e, mm_t):
        with pytest.raises(AttributeError, match="Unknown attribute foo"):
            mm.foo  # noqa: B018
        with pytest.raises(AttributeError, match="Unknown attribute foo"):
            mm.foo = True
        with pytest.raises(RuntimeError):
            mm.allow_tf32 = 1


@pytest.fixture
def precision():
    before = (ember.get_float32_matmul_precision(), torch.get_float32_matmul_precision())
    yield
    ember.set_float32_matmul_precision(before[0])
    torch.set_float32_matmul_precision(before[1])


def test_float32_matmul_precision(precision):
    for m in (ember, torch):
        assert m.get_float32_matmul_precision() == "highest"
        for value, tf32 in (("high", True), ("medium", True), ("highest", False)):
            m.set_float32_matmul_precision(value)
            assert m.get_float32_matmul_precision() == value
            assert m.backends.cuda.matmul.allow_tf32 is tf32
        m.backends.cuda.matmul.allow_tf32 = True
        assert m.get_float32_matmul_precision() == "high"
        m.backends.cuda.matmul.allow_tf32 = False
        assert m.get_float32_matmul_precision() == "highest"
        for bad in ("HIGH", "low"):
            with pytest.warns(UserWarning, match="is not one of 'highest', 'high', or 'medium'"):
                m.set_float32_matmul_precision(bad)
            assert m.get_float32_matmul_precision() == "highest"
        with pytest.raises(RuntimeError, match="expects a str, but got int"):
            m.set_float32_matmul_precision(3)


def test_matmul_precision_does_not_change_cpu_results(precision):
    a = ember.randn(64, 64)
    exact = a @ a
    for value in ("high", "medium"):
        ember.set_float32_matmul_precision(value)
        assert ember.equal(a @ a, exact)


# ---- tensor device predicates -----------------------------------------------------------

PREDICATES = ("is_cuda", "is_xpu", "is_sparse", "is_sparse_csr", "is_mkldnn", "is_quantized",
              "is_meta", "is_mps", "is_cpu", "is_nested", "is_ipu", "is_vulkan", "is_maia",
              "is_mtia")


@pytest.mark.parametrize("device", ["cpu", "meta"])
@pytest.mark.parametrize("dtype", ["float32", "int64", "bool"])
def test_device_predicates(device, dtype):
    e = ember.zeros(2, 3, device=device, dtype=getattr(ember, dtype))
    t = torch.zeros(2, 3, device=device, dtype=getattr(torch, dtype))
    for p in PREDICATES:
        assert getattr(e, p) is getattr(t, p), p
    assert e.is_meta is (device == "meta")


# ---- Tensor.type() and the legacy types -------------------------------------------------

DTYPES = ("float32", "float64", "float16", "bfloat16", "int8", "uint8", "int16", "int32",
          "int64", "bool", "complex64", "complex128")


@pytest.mark.parametrize("dtype", DTYPES)
def test_type_names(dtype):
    e = ember.zeros(2, dtype=getattr(ember, dtype))
    t = torch.zeros(2, dtype=getattr(torch, dtype))
    assert e.type() == t.type()
    assert ember.zeros(2, dtype=getattr(ember, dtype), device="meta").type() == \
        torch.zeros(2, dtype=getattr(torch, dtype), device="meta").type()
    legacy = t.type().split(".")[-1]
    assert hasattr(ember, legacy) is hasattr(torch, legacy)  # torch has no complex classes
    if hasattr(torch, legacy):
        assert getattr(ember, legacy).dtype == getattr(ember, dtype)
        assert isinstance(e, getattr(ember, legacy)) and isinstance(t, getattr(torch, legacy))


CONVERSIONS = ["float64", "int32", "'torch.DoubleTensor'", "'torch.LongTensor'",
               "'torch.sparse.DoubleTensor'", "'torch.Tensor'", "m.IntTensor", "m.Tensor",
               "'torch.FloatTensor'"]


@pytest.mark.parametrize("target", CONVERSIONS)
def test_type_conversions(target):
    results = []
    for m in (ember, torch):
        src = m.tensor([1.5, -2.0, 3.0])
        arg = eval(target, {"m": m}) if not target.isidentifier() else getattr(m, target)
        out = src.type(arg)
        assert out.layout == m.strided
        assert (out is src) is (out.dtype == src.dtype)
        results.append((str(out.dtype).split(".")[-1], np.asarray(out).tolist()))
    assert results[0] == results[1]


@pytest.mark.parametrize("target", ["'torch.Foo'", "'float64'", "'torch.meta.FloatTensor'",
                                    "float", "5", "'torch.cuda.FloatTensor'"])
def test_type_bad_targets(target):
    got, want = (outcome(lambda: m.zeros(2).type(eval(target))) for m in (ember, torch))
    if target == "'torch.cuda.FloatTensor'":
        assert got == ("raise", "NotCompiledError")  # torch: a RuntimeError of its CUDA loader
    else:
        assert got == want and got[0] == "raise"


def test_type_keywords():
    for m in (ember, torch):
        assert m.zeros(2).type(dtype=m.int32).dtype == m.int32
        assert m.zeros(2).type(m.float64, True).dtype == m.float64
        with pytest.raises(TypeError, match="unexpected keyword argument 'foo'"):
            m.zeros(2).type("torch.FloatTensor", foo=1)


LEGACY_CALLS = {
    "FloatTensor()": lambda m: m.FloatTensor().shape, "FloatTensor(2, 3)": lambda m: m.FloatTensor(2, 3).shape,
    "LongTensor([1, 2])": lambda m: m.LongTensor([1, 2]).tolist(),
    "DoubleTensor([[1, 2]])": lambda m: m.DoubleTensor([[1, 2]]).tolist(),
    "BoolTensor([1, 0])": lambda m: m.BoolTensor([1, 0]).tolist(),
    "FloatTensor(Size)": lambda m: m.FloatTensor(m.Size([4])).shape,
    "FloatTensor(float tensor)": lambda m: m.FloatTensor(m.zeros(2)).tolist(),
    "FloatTensor(long tensor)": lambda m: m.FloatTensor(m.zeros(2, dtype=m.int64)),
    "FloatTensor(2, dtype=)": lambda m: m.FloatTensor(2, dtype=m.float64),
    "cuda.FloatTensor(2)": lambda m: m.cuda.FloatTensor(2),
    "isinstance(double, FloatTensor)": lambda m: isinstance(m.zeros(2, dtype=m.float64), m.FloatTensor),
    "isinstance(meta, FloatTensor)": lambda m: isinstance(m.zeros(2, device="meta"), m.FloatTensor),
    "isinstance(cpu, cuda.FloatTensor)": lambda m: isinstance(m.zeros(2), m.cuda.FloatTensor),
    "issubclass(FloatTensor, Tensor)": lambda m: issubclass(m.FloatTensor, m.Tensor),
    "FloatTensor.is_cuda": lambda m: (m.FloatTensor.is_cuda, m.cuda.FloatTensor.is_cuda),
}


@pytest.mark.parametrize("name", LEGACY_CALLS)
def test_legacy_tensor_types(name):
    got, want = outcome(lambda: LEGACY_CALLS[name](ember)), outcome(lambda: LEGACY_CALLS[name](torch))
    assert got == want


def test_legacy_tensor_type_details():
    t = ember.zeros(3)
    assert ember.FloatTensor(t) is t
    assert repr(ember.FloatTensor) == "<class 'ember.FloatTensor'>"
    assert repr(ember.cuda.FloatTensor) == "<class 'ember.cuda.FloatTensor'>"
    assert not isinstance(np.zeros(2), ember.FloatTensor)
    # A tensor is an instance of its dtype's legacy type, as in torch (to_dense is self).
    for dtype in ("float32", "float64"):
        e, t = ember.zeros(2, dtype=getattr(ember, dtype)), torch.zeros(2, dtype=getattr(torch, dtype))
        assert isinstance(e.to_dense(), ember.FloatTensor) == isinstance(t.to_dense(), torch.FloatTensor)
    with pytest.raises(TypeError, match="not available. Ember not compiled with CUDA"):
        ember.cuda.FloatTensor(2)
    with pytest.raises(RuntimeError, match="cpu device"):
        ember.FloatTensor(2, device="meta")


# ---- ember.onnx, ember.nn.parallel ------------------------------------------------------

def test_onnx_is_in_onnx_export_outside_an_export():
    # (the exporter itself is tested in test_onnx.py)
    import ember.onnx
    assert ember.onnx.is_in_onnx_export() is torch.onnx.is_in_onnx_export() is False


@pytest.mark.parametrize("device_ids", [None, [0], []])
def test_data_parallel_runs_the_module(device_ids):
    torch.manual_seed(0)
    tm = torch.nn.Linear(3, 2)
    em = ember.nn.Linear(3, 2)
    em.load_state_dict({k: ember.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()})
    td, ed = torch.nn.DataParallel(tm, device_ids), ember.nn.DataParallel(em, device_ids)
    assert ed.module is em and ed.device_ids == td.device_ids == []
    assert list(ed.state_dict()) == list(td.state_dict()) == ["module.weight", "module.bias"]
    assert [n for n, _ in ed.named_parameters()] == [n for n, _ in td.named_parameters()]
    x = np.arange(6.0, dtype=np.float32).reshape(2, 3)
    eo, to = ed(ember.tensor(x)), td(torch.tensor(x))
    np.testing.assert_allclose(np.asarray(eo.detach()), to.detach().numpy(), rtol=1e-6)
    eo.sum().backward()
    to.sum().backward()
    np.testing.assert_allclose(np.asarray(em.weight.grad), tm.weight.grad.numpy(), rtol=1e-6)
    assert repr(ed) == repr(td)
    assert ember.nn.parallel.DataParallel is ember.nn.DataParallel


def test_data_parallel_bad_input_and_function():
    with pytest.raises(TypeError, match="nn.Module"):
        ember.nn.DataParallel(lambda x: x)
    for m in (ember, torch):
        with pytest.raises(RuntimeError, match="device type could not be determined"):
            m.nn.parallel.data_parallel(m.nn.Linear(2, 2), (m.ones(1, 2),))


def test_distributed_data_parallel_not_implemented():
    with pytest.raises(NotImplementedError, match="ember.distributed.*distributed issue"):
        ember.nn.parallel.DistributedDataParallel(ember.nn.Linear(2, 2))


# ---- ember.random -----------------------------------------------------------------------

def test_random_module_seeds():
    assert ember.random.manual_seed(5) is ember.default_generator
    assert ember.random.initial_seed() == 5
    a = ember.rand(3)
    ember.random.manual_seed(5)
    assert ember.equal(ember.rand(3), a)
    assert ember.random.default_generator is ember.default_generator
    s = ember.random.seed()
    assert ember.random.initial_seed() == s


def test_rng_state_round_trips():
    """Generator.get_state()/set_state() (seed and offset, 16 bytes) under get_rng_state,
    set_rng_state and fork_rng, used as torch's."""
    for m in (ember, torch):
        m.manual_seed(3)
        state = m.get_rng_state()
        assert state.dtype == m.uint8 and state.dim() == 1
        a = m.randn(5)
        m.set_rng_state(state)
        assert m.equal(m.randn(5), a)
        with m.random.fork_rng():
            m.rand(7)
        after = m.randn(5)
        m.set_rng_state(state)
        m.randn(5)
        assert m.equal(m.randn(5), after)  # the fork left the stream where it was
        g = m.Generator().manual_seed(11)
        m.rand(3, generator=g)
        s = g.get_state()
        b = m.rand(4, generator=g)
        assert g.set_state(s) is g and m.equal(m.rand(4, generator=g), b)
    g = ember.Generator()
    with pytest.raises(ValueError, match="16 bytes"):
        g.set_state(ember.zeros(5, dtype=ember.uint8))
    with pytest.raises(TypeError, match="uint8"):
        g.set_state(ember.zeros(16))
    with pytest.raises(TypeError, match="Tensor"):
        g.set_state(b"x" * 16)
    bad = ember.zeros(16, dtype=ember.uint8)
    bad[8] = 3  # an offset that is not a multiple of 4
    with pytest.raises(ValueError, match="multiple of 4"):
        g.set_state(bad)


def test_fork_rng_disabled_forms():
    for m in (ember, torch):
        m.manual_seed(1)
        with m.random.fork_rng(enabled=False):
            a = m.rand(2)
        with m.random.fork_rng(device_type="meta"):
            b = m.rand(2)
        m.manual_seed(1)
        assert m.equal(m.rand(2), a) and m.equal(m.rand(2), b)  # nothing was forked
        assert not m.equal(a, b)
    with pytest.raises(RuntimeError, match="device_type"):
        with ember.random.fork_rng(device_type="foo"):
            pass
    with pytest.raises(NotCompiledError):
        with ember.random.fork_rng(devices=[0]):
            pass


# ---- ember.autocast ---------------------------------------------------------------------

def test_autocast_state_as_torch():
    for m in (ember, torch):
        assert not m.is_autocast_enabled("cpu") and m.get_autocast_dtype("cpu") == m.bfloat16
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with m.autocast("cpu", dtype=m.bfloat16):
                assert m.is_autocast_enabled("cpu") and m.get_autocast_dtype("cpu") == m.bfloat16
                with m.autocast("cpu", enabled=False):
                    assert not m.is_autocast_enabled("cpu")
                assert m.is_autocast_enabled("cpu")
            with m.autocast("cpu", dtype=m.float16):
                assert m.get_autocast_dtype("cpu") == m.float16
        assert not m.is_autocast_enabled("cpu") and m.get_autocast_dtype("cpu") == m.bfloat16
        assert m.get_autocast_dtype("cuda") == m.float16 and not m.is_autocast_enabled()


@pytest.mark.parametrize("args", [("cpu", "float32"), ("cpu", "float64"), ("cuda", None)])
def test_autocast_disables_itself_with_a_warning(args):
    for m in (ember, torch):
        dtype = getattr(m, args[1]) if args[1] else None
        with pytest.warns(UserWarning, match="Disabling autocast"):
            ac = m.autocast(args[0], dtype=dtype)
        with ac:
            assert not m.is_autocast_enabled(args[0])


@pytest.mark.parametrize("device_type", [3, "foo", None])
def test_autocast_bad_device_type(device_type):
    same_outcome(lambda m: m.autocast(device_type))
    assert outcome(lambda: ember.autocast(device_type))[0] == "raise"


def test_autocast_as_decorator():
    @ember.autocast("cpu", enabled=False)
    def f():
        return ember.is_autocast_enabled("cpu")
    assert f() is False and f.__name__ == "f"



# ember.distributed before process groups exist (the distributed issue): programs that import
# its functions at the top and call them only under a launcher (nanoGPT) run unchanged.
def test_distributed_names_import_as_nanogpt_imports_them():
    from ember.distributed import destroy_process_group, init_process_group  # noqa: F401
    import ember.distributed as dist
    assert ember.distributed is dist
    assert dist.is_available() is False and dist.is_initialized() is False
    assert not dist.is_gloo_available() and not dist.is_nccl_available()
    for name in ["init_process_group", "destroy_process_group", "get_rank", "get_world_size",
                 "barrier", "all_reduce", "broadcast", "all_gather", "ReduceOp", "Backend"]:
        assert hasattr(torch.distributed, name), name  # the names are torch's
        assert hasattr(dist, name), name
    assert dist.ReduceOp.SUM.name == "SUM" and dist.Backend("GLOO") == torch.distributed.Backend("GLOO")


def test_distributed_calls_without_a_group_raise_as_torch():
    import ember.distributed as dist
    with pytest.raises(NotImplementedError, match=r"init_process_group\(\).*distributed issue"):
        dist.init_process_group("gloo", rank=0, world_size=1)
    with pytest.raises(NotImplementedError, match=r"new_group\(\)"):
        dist.new_group([0])
    for name in ["get_rank", "get_world_size", "barrier"]:
        # torch raises ValueError for a default group that was never initialised, as here.
        with pytest.raises(ValueError, match="not been initialized"):
            getattr(torch.distributed, name)()
        with pytest.raises(ValueError, match=rf"{name}\(\): Default process group has not been initialized"):
            getattr(dist, name)()
    with pytest.raises(ValueError, match=r"all_reduce\(\)"):
        dist.all_reduce(ember.ones(2))
    with pytest.raises(ValueError, match="backend name"):
        dist.Backend(3)


def test_torchelastic_launch_is_read_from_the_environment(monkeypatch):
    import ember.distributed as dist
    monkeypatch.delenv("TORCHELASTIC_RUN_ID", raising=False)
    assert dist.is_torchelastic_launched() is torch.distributed.is_torchelastic_launched() is False
    monkeypatch.setenv("TORCHELASTIC_RUN_ID", "x")
    assert dist.is_torchelastic_launched() is torch.distributed.is_torchelastic_launched() is True


def test_cuda_queries_answer_from_the_driver_without_failing():
    # c10/cuda/CudaRuntime.h: a CUDA build opens libcudart on first use; with no GPU (or no
    # driver, or a build without CUDA) there are no devices, and the reason is kept.
    n = ember.cuda.device_count()
    assert ember.cuda.is_available() == (n > 0)
    if n == 0:
        reason = ember._C._cuda_unavailable_reason()
        assert reason and ("CUDA" in reason or "cuda" in reason), reason
    assert isinstance(ember._C._cuda_built(), bool)
