"""The CUDA backend from Python (ember.cuda, Tensor.cuda/to/pin_memory, the CUDA kernels),
each result checked against the CPU's. Everything here needs a GPU and skips without one;
the CPU-side logic is tested in C++ (test/cpp/c10/device_streams_test.cpp,
device_caching_allocator_test.cpp) and the no-device behaviour in test_device_stubs.py."""
import re
from pathlib import Path

import numpy as np
import pytest

import ember

pytestmark = pytest.mark.skipif(ember.cuda.device_count() == 0,
                                reason=f"no CUDA device: {ember._C._cuda_unavailable_reason()}")

DTYPES = [ember.float32, ember.float64, ember.float16, ember.bfloat16, ember.int64, ember.int32,
          ember.int16, ember.int8, ember.uint8, ember.bool]


def same(cuda_result, cpu_result):
    assert cuda_result.is_cuda and cuda_result.device == ember.device("cuda", 0)
    assert cuda_result.dtype == cpu_result.dtype and cuda_result.shape == cpu_result.shape
    assert ember.equal(cuda_result.cpu(), cpu_result), (cuda_result.cpu(), cpu_result)


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_round_trips(dtype):
    x = ember.arange(24).reshape(2, 3, 4).to(dtype)
    same(x.cuda(), x)
    same(x.to("cuda"), x)
    same(x.transpose(0, 2).cuda(), x.transpose(0, 2))
    same(x.cuda().transpose(0, 2).contiguous(), x.transpose(0, 2).contiguous())
    same(x.cuda().float(), x.float())
    same(x.cuda()[:, 1:, ::2].clone(), x[:, 1:, ::2].clone())
    assert x.cuda().cpu().device == ember.device("cpu")


def test_empty_and_zero_dim():
    same(ember.empty(0, 3).cuda(), ember.empty(0, 3))
    z = ember.tensor(2.5)
    same(z.cuda(), z)
    assert z.cuda().item() == 2.5
    same(ember.zeros(3, device="cuda"), ember.zeros(3))
    same(ember.full((2, 2), 7, device="cuda"), ember.full((2, 2), 7))


def test_arithmetic_matches_the_cpu():
    ember.manual_seed(0)
    a, b, c = ember.randn(4, 5), ember.randn(5), ember.randn(5, 4)
    same(a.cuda() + b.cuda(), a + b)
    same(a.cuda() - c.cuda().t(), a - c.t())
    same(a.cuda() * b.cuda(), a * b)
    same(a.cuda() / b.cuda(), a / b)
    same(ember.add(a.cuda(), b.cuda(), alpha=2.5), ember.add(a, b, alpha=2.5))
    same(a.cuda() * ember.tensor(3.0), a * ember.tensor(3.0))
    same(a.cuda() + 1.5, a + 1.5)
    i, j = ember.arange(20).reshape(4, 5), ember.arange(5) + 1
    same(i.cuda() + j.cuda(), i + j)
    same(i.cuda() / j.cuda(), i / j)
    same(i.cuda() * a.cuda(), i * a)
    h = a.half()
    same(h.cuda() + h.cuda(), h + h)
    x = a.cuda()
    x.add_(b.cuda())
    x.mul_(2)
    same(x, (a + b) * 2)
    out = ember.empty(4, 5, dtype=ember.float64, device="cuda")
    ember.add(a.cuda(), b.cuda(), out=out)
    same(out, (a + b).double())


# The float family with CUDA kernels: the ops of the shared functor list.
UNARY = re.findall(r"^  X\((\w+), ", (Path(__file__).parents[2] / "aten/native/UnaryOps.h").read_text(), re.M)


@pytest.mark.parametrize("name", UNARY)
@pytest.mark.parametrize("dtype", [ember.float32, ember.float64, ember.float16, ember.bfloat16, ember.int64], ids=str)
def test_unary_float_family_matches_the_cpu(name, dtype):
    x = (ember.rand(7, 6) * 0.9 + 0.05) if dtype != ember.int64 else ember.arange(1, 43).reshape(7, 6)
    x = x.to(dtype)
    f = getattr(ember, name)
    got, want = f(x.cuda()), f(x)
    assert got.is_cuda and got.dtype == want.dtype
    tol = {ember.float16: 2e-3, ember.bfloat16: 1e-2}.get(dtype, 1e-6)
    np.testing.assert_allclose(got.cpu().double().numpy(), want.double().numpy(), rtol=tol, atol=tol,
                               equal_nan=True)
    np.testing.assert_allclose(f(x.cuda().t()).cpu().double().numpy(), f(x.t()).double().numpy(),
                               rtol=tol, atol=tol, equal_nan=True)  # strided


REDUCTIONS = {
    "sum": lambda t: t.sum(), "sum(0)": lambda t: t.sum(0), "sum(1, keepdim)": lambda t: t.sum(1, keepdim=True),
    "sum((0, 2))": lambda t: t.sum((0, 2)), "mean": lambda t: t.mean(), "mean(-1)": lambda t: t.mean(-1),
    "prod(1)": lambda t: t.prod(1), "amax(0)": lambda t: t.amax(0), "amin((1, 2))": lambda t: t.amin((1, 2)),
    "max": lambda t: t.max(), "max(1)": lambda t: t.max(1), "min(2)": lambda t: t.min(2),
    "argmax": lambda t: t.argmax(), "argmax(1)": lambda t: t.argmax(1), "argmin(0)": lambda t: t.argmin(0),
    "aminmax": lambda t: ember.aminmax(t), "all(1)": lambda t: (t > 0).all(1), "any": lambda t: (t > 0.5).any(),
    "count_nonzero": lambda t: ember.count_nonzero(t > 0.5),
    "norm": lambda t: t.norm(), "norm(1, dim=1)": lambda t: t.norm(1, dim=1),
    "norm(inf)": lambda t: ember.linalg.vector_norm(t, float("inf")), "var(1)": lambda t: t.var(1),
    "std": lambda t: t.std(), "logsumexp(2)": lambda t: ember.logsumexp(t, 2),
}


@pytest.mark.parametrize("name", REDUCTIONS)
@pytest.mark.parametrize("layout", ["contiguous", "transposed"])
def test_reductions_match_the_cpu(name, layout):
    ember.manual_seed(3)
    x = ember.randn(5, 6, 7)
    if layout == "transposed":
        x = x.transpose(0, 2)
    f = REDUCTIONS[name]
    got, want = f(x.cuda()), f(x)
    got = got if isinstance(got, tuple) else (got,)
    want = want if isinstance(want, tuple) else (want,)
    for g, w in zip(got, want):
        assert g.is_cuda and g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_allclose(g.cpu().double().numpy(), w.double().numpy(), rtol=1e-5, atol=1e-5)


def test_integer_and_half_sums():
    i = ember.arange(60).reshape(3, 4, 5)
    assert ember.equal(i.cuda().sum(1).cpu(), i.sum(1)) and i.cuda().sum().dtype == ember.int64
    h = ember.rand(64, 33).half()
    np.testing.assert_allclose(h.cuda().sum(0).cpu().float().numpy(), h.sum(0).float().numpy(), rtol=2e-3, atol=2e-3)


@pytest.mark.parametrize("dim", [0, 1, -1])
@pytest.mark.parametrize("log", [False, True])
def test_softmax_forward_and_backward(dim, log):
    ember.manual_seed(4)
    x = ember.randn(6, 7, 33)
    f = ember.log_softmax if log else ember.softmax
    xc, xr = x.cuda().requires_grad_(), x.clone().requires_grad_()
    g = ember.randn(6, 7, 33)
    yc, yr = f(xc, dim), f(xr, dim)
    yc.backward(g.cuda())
    yr.backward(g)
    np.testing.assert_allclose(yc.detach().cpu().numpy(), yr.detach().numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(xc.grad.cpu().numpy(), xr.grad.numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_cross_entropy_forward_and_backward(reduction):
    ember.manual_seed(5)
    x, t = ember.randn(16, 10), ember.randint(0, 10, (16,))
    t[3] = -100  # ignored
    w = ember.rand(10)
    for weight in (None, w):
        xc, xr = x.cuda().requires_grad_(), x.clone().requires_grad_()
        lc = ember.nn.functional.cross_entropy(xc, t.cuda(), None if weight is None else weight.cuda(),
                                               reduction=reduction)
        lr = ember.nn.functional.cross_entropy(xr, t, weight, reduction=reduction)
        np.testing.assert_allclose(lc.detach().cpu().numpy(), lr.detach().numpy(), rtol=1e-5, atol=1e-6)
        lc.sum().backward()
        lr.sum().backward()
        np.testing.assert_allclose(xc.grad.cpu().numpy(), xr.grad.numpy(), rtol=1e-5, atol=1e-6)
    with pytest.raises(IndexError, match="out of bounds"):
        ember.nn.functional.cross_entropy(x.cuda(), ember.full((16,), 10).cuda())


def test_an_mlp_trains_on_the_device_as_on_the_cpu():
    ember.manual_seed(6)
    model = ember.nn.Sequential(ember.nn.Linear(20, 32), ember.nn.ReLU(), ember.nn.Linear(32, 5))
    ref = ember.nn.Sequential(ember.nn.Linear(20, 32), ember.nn.ReLU(), ember.nn.Linear(32, 5))
    ref.load_state_dict(model.state_dict())
    model.cuda()
    opt = ember.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    opt_ref = ember.optim.SGD(ref.parameters(), lr=0.1, momentum=0.9)
    x, y = ember.randn(64, 20), ember.randint(0, 5, (64,))
    for _ in range(5):
        for m, o, xb, yb in ((model, opt, x.cuda(), y.cuda()), (ref, opt_ref, x, y)):
            o.zero_grad()
            ember.nn.functional.cross_entropy(m(xb), yb).backward()
            o.step()
    for p, q in zip(model.parameters(), ref.parameters()):
        assert p.is_cuda
        np.testing.assert_allclose(p.detach().cpu().numpy(), q.detach().numpy(), rtol=1e-4, atol=1e-5)


POINTWISE = {
    "eq": lambda a, b, c: a == b, "ne(0.5)": lambda a, b, c: a != 0.5, "lt": lambda a, b, c: a < b,
    "le(0)": lambda a, b, c: a <= 0, "gt": lambda a, b, c: a > b, "ge(0)": lambda a, b, c: a >= 0,
    "where": lambda a, b, c: ember.where(a > 0, a, b), "clamp": lambda a, b, c: a.clamp(-0.5, 0.5),
    "clamp_min": lambda a, b, c: a.clamp_min(0), "clamp_max": lambda a, b, c: a.clamp_max(0.2),
    "relu": lambda a, b, c: ember.relu(a), "lerp": lambda a, b, c: ember.lerp(a, b, 0.3),
    "addcmul": lambda a, b, c: ember.addcmul(a, b, c, value=0.5),
    "addcdiv": lambda a, b, c: ember.addcdiv(a, b, c.abs() + 1, value=-2),
    "div(3)": lambda a, b, c: a / 3, "sub(2, alpha)": lambda a, b, c: ember.sub(a, 2, alpha=0.5),
    "cat": lambda a, b, c: ember.cat([a, c, a.t().contiguous().t()], 1), "flip": lambda a, b, c: a.flip(1),
    "roll": lambda a, b, c: a.roll(2, 1), "repeat": lambda a, b, c: b.repeat(2, 3), "tril": lambda a, b, c: a.tril(),
    "triu_": lambda a, b, c: a.clone().triu_(1),
}


@pytest.mark.parametrize("name", POINTWISE)
def test_pointwise_and_comparisons_match_the_cpu(name):
    ember.manual_seed(7)
    a, b, c = ember.randn(4, 6), ember.randn(6), ember.randn(4, 1)
    f = POINTWISE[name]
    got, want = f(a.cuda(), b.cuda(), c.cuda()), f(a, b, c)
    assert got.is_cuda and got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_allclose(got.cpu().double().numpy(), want.double().numpy(), rtol=1e-6, atol=1e-6)


def test_adam_steps_on_the_device_as_on_the_cpu():
    ember.manual_seed(8)
    lin, ref = ember.nn.Linear(6, 3), ember.nn.Linear(6, 3)
    ref.load_state_dict(lin.state_dict())
    lin.cuda()
    opt, opt_ref = ember.optim.Adam(lin.parameters(), lr=0.01), ember.optim.Adam(ref.parameters(), lr=0.01)
    x = ember.randn(8, 6)
    for _ in range(3):
        for m, o, xb in ((lin, opt, x.cuda()), (ref, opt_ref, x)):
            o.zero_grad()
            m(xb).relu().sum().backward()
            o.step()
    np.testing.assert_allclose(lin.weight.detach().cpu().numpy(), ref.weight.detach().numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("dtype", [ember.float32, ember.float64, ember.float16, ember.bfloat16], ids=str)
def test_random_draws_the_cpu_stream(dtype):
    # Note [Philox stream layout]: CUDA's generator, seeded as the CPU's, gives the same values.
    ember.manual_seed(9)  # seeds both
    got = ember.empty(1001, dtype=dtype, device="cuda").uniform_(-2, 3)
    want = ember.empty(1001, dtype=dtype).uniform_(-2, 3)
    assert ember.equal(got.cpu(), want)
    got = ember.empty(7, 9, device="cuda").t().bernoulli_(0.3)  # strided: filled in logical order
    want = ember.empty(7, 9).t().bernoulli_(0.3)
    assert ember.equal(got.cpu(), want)
    ember.cuda.manual_seed(11)  # CUDA's alone
    cpu = ember.Generator().manual_seed(11)
    got = ember.empty(100, dtype=dtype, device="cuda").uniform_()
    assert ember.equal(got.cpu(), ember.empty(100, dtype=dtype).uniform_(generator=cpu))
    assert ember.cuda.initial_seed() == 11


def test_dropout_on_the_device():
    x = ember.ones(1000, device="cuda")
    y = ember.nn.functional.dropout(x, 0.25, training=True)
    kept = (y != 0).sum().item()
    assert 650 < kept < 850 and ember.allclose(y[y != 0], ember.full((kept,), 1 / 0.75, device="cuda"))


def test_autograd_on_the_device():
    a = ember.randn(3, 4)
    b = ember.randn(4)
    ac, bc = a.cuda().requires_grad_(), b.cuda().requires_grad_()
    (ac * bc + ac).backward(ember.ones(3, 4, device="cuda"))
    ar, br = a.clone().requires_grad_(), b.clone().requires_grad_()
    (ar * br + ar).backward(ember.ones(3, 4))
    assert ac.grad.is_cuda
    np.testing.assert_allclose(ac.grad.cpu().numpy(), ar.grad.numpy(), rtol=1e-6)
    np.testing.assert_allclose(bc.grad.cpu().numpy(), br.grad.numpy(), rtol=1e-6)


@pytest.mark.parametrize("dtype,tol", [(ember.float32, 1e-5), (ember.float64, 1e-12), (ember.float16, 5e-2),
                                       (ember.bfloat16, 5e-2)], ids=str)
def test_matrix_products_match_the_cpu(dtype, tol):
    ember.manual_seed(1)
    a, b, c = ember.randn(33, 17).to(dtype), ember.randn(17, 9).to(dtype), ember.randn(9).to(dtype)
    def close(x, y):
        assert x.is_cuda and x.dtype == y.dtype and x.shape == y.shape
        np.testing.assert_allclose(x.cpu().double().numpy(), y.double().numpy(), rtol=tol, atol=tol)
    close(a.cuda() @ b.cuda(), a @ b)
    close(b.cuda().t() @ a.cuda().t(), b.t() @ a.t())
    close(ember.addmm(c.cuda(), a.cuda(), b.cuda(), beta=0.5, alpha=2), ember.addmm(c, a, b, beta=0.5, alpha=2))
    x, y = ember.randn(4, 6, 5).to(dtype), ember.randn(4, 5, 3).to(dtype)
    close(x.cuda() @ y.cuda(), x @ y)
    close(ember.nn.functional.linear(a.cuda(), b.t().cuda(), c.cuda()), ember.nn.functional.linear(a, b.t(), c))


def test_linear_layer_trains_on_the_device():
    ember.manual_seed(2)
    lin = ember.nn.Linear(8, 4)
    x, target = ember.randn(16, 8), ember.randn(16, 4)
    ref = ember.nn.Linear(8, 4)
    ref.load_state_dict(lin.state_dict())
    lin_cuda = lin.cuda()
    out = lin_cuda(x.cuda())
    ((out - target.cuda()) * (out - target.cuda())).backward(ember.ones(16, 4, device="cuda"))
    r = ref(x)
    ((r - target) * (r - target)).backward(ember.ones(16, 4))
    np.testing.assert_allclose(lin_cuda.weight.grad.cpu().numpy(), ref.weight.grad.numpy(), rtol=1e-4, atol=1e-5)


def test_operators_without_a_cuda_kernel_fall_back_to_the_cpu():
    # Note [CUDA fallback]: correct results on the device, one warning per operator, counted.
    x = ember.randn(4, 5)
    with pytest.warns(UserWarning, match="no kernel on the 'cuda' device"):
        got = ember.atan2(x.cuda(), x.cuda() + 1)
    assert got.is_cuda and ember.equal(got.cpu(), ember.atan2(x, x + 1))
    assert ember.backends.fallback_stats()["cuda"]["aten::atan2"] >= 1


def test_mixing_devices_is_an_error():
    with pytest.raises(ValueError, match="same device"):
        ember.ones(3).cuda() + ember.ones(3)


def test_streams_events_and_memory():
    assert ember.cuda.current_stream() == ember.cuda.default_stream()
    s = ember.cuda.Stream()
    x = ember.ones(1 << 20, device="cuda")
    start, end = ember.cuda.Event(enable_timing=True), ember.cuda.Event(enable_timing=True)
    with ember.cuda.stream(s):
        assert ember.cuda.current_stream() == s
        start.record()
        y = x + x
        end.record()
    assert ember.cuda.current_stream() == ember.cuda.default_stream()
    end.synchronize()
    assert end.query() and start.elapsed_time(end) >= 0
    s.synchronize()
    assert ember.equal(y.cpu(), ember.full((1 << 20,), 2.0))
    before = ember.cuda.memory_allocated()
    z = ember.empty(1000, device="cuda")
    assert ember.cuda.memory_allocated() == before + 4096
    del z
    assert ember.cuda.memory_allocated() == before
    assert ember.cuda.max_memory_allocated() >= before + 4096
    free, total = ember.cuda.mem_get_info()
    assert 0 < free <= total
    assert ember.cuda.get_device_capability()[0] >= 7 and ember.cuda.get_device_name()


def test_pinned_memory_and_non_blocking_copies():
    x = ember.randn(1 << 16)
    p = x.pin_memory()
    assert p.is_pinned() and not x.is_pinned() and ember.equal(p, x)
    d = p.to("cuda", non_blocking=True)
    back = ember.empty(1 << 16).pin_memory()
    back.copy_(d, non_blocking=True)
    ember.cuda.synchronize()
    assert ember.equal(back, x)
