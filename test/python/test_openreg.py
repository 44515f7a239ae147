"""openreg, the reference out-of-tree backend (examples/openreg), loaded into this process:
its kernels against numpy on contiguous, strided, broadcast, empty and 0-d inputs; its
memory (handles the host cannot dereference); its asynchronous stream; two devices;
autograd on the device against the CPU's gradients; and the demo CNN trained there to the
CPU's accuracy, with the CPU fallback's calls counted. The in-tree build of it is
<build>/test/backends/libember_openreg.so (test/cpp/CMakeLists.txt); check_install builds
it from the installed package."""
import copy
import os
import subprocess
import sys
import warnings

import numpy as np
import pytest

import ember

BUILD = os.environ.get("EMBER_BUILD_DIR")
pytestmark = pytest.mark.skipif(not BUILD, reason="needs EMBER_BUILD_DIR (openreg is a build output)")
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def lib():
    return os.path.join(os.path.abspath(BUILD), "test", "backends", "libember_openreg.so")


@pytest.fixture(scope="module")
def openreg():
    before = ember._C._dispatch_tables()
    assert ember.backends.load(lib()) == "openreg"
    warnings.filterwarnings("ignore", message=".*has no kernel on the 'openreg' device")
    yield "openreg"
    import gc
    gc.collect()
    ember.backends.unload("openreg")
    assert ember._C._dispatch_tables() == before


def dev(a, device="openreg"):
    return ember.from_numpy(np.ascontiguousarray(a)).to(device)


def host(t):
    return t.detach().cpu().numpy()


def test_memory_is_handles_the_host_cannot_dereference(openreg):
    t = dev(np.arange(6, dtype=np.float32))
    assert t.is_openreg and t.device == ember.device("openreg:0")
    assert t.data_ptr() >> 56 == 0x0E  # the tag: a non-canonical address on x86-64
    assert ember.backends.fallback_stats()["openreg"].get("aten::copy_", 0) == 0


RNG = np.random.default_rng(0)


@pytest.mark.parametrize("shape_a,shape_b", [((3, 4), (3, 4)), ((3, 4), (4,)), ((2, 1, 4), (3, 1)), ((), (5,)),
                                             ((0, 3), (3,))])
def test_elementwise_against_numpy(openreg, shape_a, shape_b):
    a = RNG.standard_normal(shape_a).astype(np.float32)
    b = RNG.standard_normal(shape_b).astype(np.float32) + 3
    ea, eb = dev(a), dev(b)
    for got, want in [(ea + eb, a + b), (ea - eb * 2, a - b * 2), (ea * eb, a * b), (ea / eb, a / b),
                      (ember.add(ea, eb, alpha=0.5), a + 0.5 * b), (ea.relu(), np.maximum(a, 0))]:
        assert got.device.type == "openreg"
        np.testing.assert_allclose(host(got), want, rtol=1e-6, atol=1e-6)


def test_strided_inputs_in_place_and_host_scalars(openreg):
    a = RNG.standard_normal((4, 5)).astype(np.float32)
    ea = dev(a)
    t = ea.t()  # a view on the device, no copy
    assert not t.is_contiguous() and t.device.type == "openreg"
    np.testing.assert_allclose(host(t * 2), a.T * 2, rtol=1e-6)
    np.testing.assert_allclose(host(t[1:, ::2] + 1), a.T[1:, ::2] + 1, rtol=1e-6)
    c = ea.clone()
    c.mul_(dev(np.full(5, 3, np.float32)))
    c.add_(dev(a), alpha=-1)
    np.testing.assert_allclose(host(c), a * 3 - a, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(host(ea * ember.tensor(2.0)), a * 2, rtol=1e-6)  # a CPU 0-d operand
    z = ember.zeros(2, 3, device="openreg")
    np.testing.assert_array_equal(host(z), np.zeros((2, 3), np.float32))
    z.fill_(7)
    np.testing.assert_array_equal(host(z), np.full((2, 3), 7, np.float32))
    # copies of every dtype, strided destinations, device <-> device
    for dt in (np.int64, np.float64, np.bool_, np.int8):
        x = (RNG.standard_normal((3, 4)) * 4).astype(dt)
        np.testing.assert_array_equal(host(dev(x)), x)
        np.testing.assert_array_equal(host(dev(x).t()), x.T)
    d = ember.empty(4, 5, device="openreg")
    d.t().copy_(dev(a.T))
    np.testing.assert_array_equal(host(d), a)


def test_mm_and_sum(openreg):
    a = RNG.standard_normal((7, 5)).astype(np.float32)
    b = RNG.standard_normal((5, 3)).astype(np.float32)
    np.testing.assert_allclose(host(ember.mm(dev(a), dev(b))), a @ b, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(host(dev(a.T.copy()).t() @ dev(b)), a @ b, rtol=1e-5, atol=1e-5)  # strided
    np.testing.assert_allclose(host(dev(a).sum()), a.sum(), rtol=1e-5)
    assert host((dev(a) > 0).sum()) == (a > 0).sum()  # a bool sum, on the host
    with pytest.raises(ValueError, match=r"mm\(\): self and mat2 shapes cannot be multiplied"):
        ember.mm(dev(a), dev(a))


def test_kernels_run_asynchronously_in_order_and_errors_are_clear(openreg):
    x = dev(np.ones(1000, np.float32))
    for _ in range(200):
        x = x + x * 0  # queued on the worker; nothing waits until the copy to the host
    ember.openreg.synchronize()
    np.testing.assert_array_equal(host(x), np.ones(1000, np.float32))
    with pytest.raises(NotImplementedError, match=r"mul\(\): openreg computes in float32 only, but got int64"):
        dev(np.arange(3)) * dev(np.arange(3))
    with pytest.raises(ValueError, match=r"cannot be broadcast"):
        dev(np.ones(3, np.float32)) + dev(np.ones(4, np.float32))


def test_two_devices(openreg):
    assert ember.openreg.device_count() == 2 and ember.openreg.is_available()
    a = RNG.standard_normal(5).astype(np.float32)
    t1 = dev(a, "openreg:1")
    assert t1.device == ember.device("openreg:1")
    r = t1 + t1
    assert r.device == ember.device("openreg:1")
    np.testing.assert_allclose(host(r), 2 * a, rtol=1e-6)
    t0 = t1.to("openreg:0")
    assert t0.device == ember.device("openreg:0")
    np.testing.assert_array_equal(host(t0), a)
    ember.openreg.synchronize(1)
    with pytest.raises(ValueError, match=r"device index below 2"):
        ember.empty(3, device="openreg:5")


def test_autograd_on_the_device_matches_the_cpu(openreg):
    ember.manual_seed(0)
    model = ember.nn.Sequential(ember.nn.Linear(6, 8), ember.nn.ReLU(), ember.nn.Linear(8, 2))
    on = copy.deepcopy(model).to("openreg")
    assert all(p.is_openreg for p in on.parameters())
    x = ember.randn(5, 6)
    target = ember.randn(5, 2)
    opt_a = ember.optim.SGD(model.parameters(), lr=0.1)
    opt_b = ember.optim.SGD(on.parameters(), lr=0.1)
    for _ in range(3):
        for m, o, xx, tt in ((model, opt_a, x, target), (on, opt_b, x.to("openreg"), target.to("openreg"))):
            o.zero_grad()
            loss = ((m(xx) - tt) * (m(xx) - tt)).sum()
            loss.backward()
            o.step()
    for p, q in zip(model.parameters(), on.parameters()):
        assert q.grad.is_openreg
        np.testing.assert_allclose(host(q), p.detach().numpy(), rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(host(q.grad), p.grad.numpy(), rtol=1e-4, atol=1e-5)


def test_batch_norm_running_stats_are_written_through_the_fallback(openreg):
    bn = ember.nn.BatchNorm1d(3)
    on = copy.deepcopy(bn).to("openreg")
    x = ember.randn(8, 3)
    bn(x)
    on(x.to("openreg"))
    np.testing.assert_allclose(host(on.running_mean), bn.running_mean.numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(host(on.running_var), bn.running_var.numpy(), rtol=1e-5, atol=1e-6)


def test_the_demo_cnn_trains_on_openreg_to_the_cpus_accuracy(tmp_path, openreg):
    # In processes of their own, as a user runs the demo (and so the counts are the run's),
    # for its full 12 epochs: dropout draws from each device's own generator, so the runs
    # differ, and the accuracy is compared where training has converged.
    env = dict(os.environ)
    runs = {}
    for name, extra in (("cpu", []), ("openreg", ["--load-backend", lib()])):
        out = tmp_path / name
        r = subprocess.run([sys.executable, os.path.join(REPO, "examples", "train_digits.py"), "--backend", "ember",
                            "--out", str(out), *extra], capture_output=True, text=True, env=env,
                           timeout=600)
        assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
        import json
        runs[name] = json.loads((out / "ember" / "metrics.json").read_text())
    assert runs["openreg"]["device"] == "openreg" and runs["openreg"]["fallback_calls"] > 0
    assert runs["cpu"]["fallback_calls"] == 0
    assert abs(runs["openreg"]["test_acc"] - runs["cpu"]["test_acc"]) <= 0.005, runs
    assert runs["openreg"]["reload_same"]


def test_events_and_the_current_device(openreg):
    start, end = ember.openreg.Event(enable_timing=True), ember.openreg.Event(enable_timing=True)
    assert start.query()  # not recorded: nothing to wait for
    x = dev(np.ones(20000, np.float32))
    start.record()
    for _ in range(50):
        x = x * 1.0001
    end.record()
    end.synchronize()
    assert end.query() and start.elapsed_time(end) >= 0
    np.testing.assert_allclose(host(x), np.full(20000, 1.0001 ** 50, np.float32), rtol=1e-5)
    assert ember.openreg.current_device() == 0
    ember.openreg.set_device(1)
    try:
        assert ember.empty(2, device="openreg").device == ember.device("openreg:1")
    finally:
        ember.openreg.set_device(0)
    with pytest.raises(ValueError, match=r"device index below 2"):
        ember.openreg.set_device(3)


def calls(op):
    return ember.backends.fallback_stats().get("openreg", {}).get(op, 0)


def test_scalar_and_optimiser_kernels_against_numpy_without_the_fallback(openreg):
    a = RNG.standard_normal((3, 4)).astype(np.float32)
    b = RNG.standard_normal((4,)).astype(np.float32)
    c = np.abs(RNG.standard_normal((3, 1)).astype(np.float32)) + 0.5
    ember.backends.reset_fallback_stats()
    ea, eb, ec = dev(a), dev(b), dev(c)
    for got, want in [(ea + 2.5, a + 2.5), (ea * -3, a * -3), (ea / 4, a / 4), (ec.sqrt(), np.sqrt(c)),
                      (-ea, -a), (ea.t() * 2, a.T * 2)]:
        assert got.device.type == "openreg"
        np.testing.assert_allclose(host(got), want, rtol=1e-6, atol=1e-6)
    s = ea.clone()
    s.addcmul_(eb, ec, value=0.5)
    np.testing.assert_allclose(host(s), a + 0.5 * b * c, rtol=1e-5, atol=1e-6)
    s.addcdiv_(eb, ec, value=-2)
    np.testing.assert_allclose(host(s), a + 0.5 * b * c - 2 * b / c, rtol=1e-5, atol=1e-5)
    s.copy_(ea).lerp_(dev(np.zeros((3, 4), np.float32)), 0.25)
    np.testing.assert_allclose(host(s), a * 0.75, rtol=1e-6, atol=1e-6)
    s.copy_(ea).add_(1.5, alpha=2).mul_(2).div_(4)
    np.testing.assert_allclose(host(s), (a + 3) / 2, rtol=1e-6, atol=1e-6)
    v = ea.t()[::2]  # in place on a strided view writes through to its base
    v.mul_(0)
    want = a.copy()
    want[:, ::2] = 0
    np.testing.assert_allclose(host(ea), want)
    assert ember.backends.fallback_stats().get("openreg", {}) == {}
    with pytest.raises(ValueError, match=r"addcmul_\(\): an operand of shape \[2, 3, 4\] does not broadcast to "
                       r"self's shape \[3, 4\]"):
        s.addcmul_(dev(np.ones((2, 3, 4), np.float32)), eb)
    with pytest.raises(ValueError, match=r"expected every tensor on openreg:0, but got one on openreg:1"):
        ea + eb.to("openreg:1")


def test_random_fills_draw_from_the_devices_generator(openreg):
    ember.backends.reset_fallback_stats()
    ember.openreg.manual_seed(7)
    x = ember.empty(20000, device="openreg").uniform_(-1, 3)
    n = ember.empty(20000, device="openreg").normal_(2, 0.5)
    ember.openreg.manual_seed(7)
    x2 = ember.empty(20000, device="openreg").uniform_(-1, 3)
    ux, un = host(x), host(n)
    np.testing.assert_array_equal(ux, host(x2))  # reproducible from the seed
    assert ux.min() >= -1 and ux.max() < 3 and abs(ux.mean() - 1) < 0.05
    assert abs(un.mean() - 2) < 0.02 and abs(un.std() - 0.5) < 0.02
    y = ember.empty(20000, device="openreg").uniform_()  # the stream goes on: other numbers
    assert not np.array_equal(host(y), ux)
    b = host(ember.empty(20000, device="openreg").bernoulli_(0.3))
    assert set(np.unique(b)) <= {0.0, 1.0} and abs(b.mean() - 0.3) < 0.02
    ember.manual_seed(7)  # seeds every device's generator, openreg's included
    np.testing.assert_array_equal(host(ember.empty(20000, device="openreg").uniform_(-1, 3)), ux)
    d = ember.nn.functional.dropout(dev(np.ones(10000, np.float32)), 0.25)
    assert abs((host(d) == 0).mean() - 0.25) < 0.03
    stats = ember.backends.fallback_stats().get("openreg", {})
    assert not any(op.startswith(("aten::uniform_", "aten::normal_", "aten::bernoulli_")) for op in stats), stats
    with pytest.raises(ValueError, match=r"uniform_\(\): expected a generator of the openreg device, but got one of cpu"):
        ember.empty(3, device="openreg").uniform_(generator=ember.Generator())
    with pytest.raises(ValueError, match=r"bernoulli_\(\): expected 0 <= p <= 1, but got p=1.5"):
        ember.empty(3, device="openreg").bernoulli_(1.5)


def test_resize_on_the_device_keeps_the_bytes(openreg):
    a = np.arange(6, dtype=np.float32)
    t = dev(a)
    v = t.view(2, 3)
    t.resize_(4, 5)  # the storage grows through the device's allocator and copy
    assert t.shape == (4, 5) and t.is_contiguous() and t.device.type == "openreg"
    np.testing.assert_array_equal(host(t).reshape(-1)[:6], a)
    np.testing.assert_array_equal(host(v), a.reshape(2, 3))  # a view shares the grown storage
    t.resize_(2, 3)  # shrinking keeps the storage
    np.testing.assert_array_equal(host(t), a.reshape(2, 3))
    c = dev(np.zeros(1, np.float32)).resize_(2, 3, 4, 5, memory_format=ember.channels_last)
    assert c.stride() == (60, 1, 15, 3)
    assert calls("aten::resize_") == 0  # CompositeExplicitAutograd: every device has it
    ember.openreg.set_device(1)
    try:
        t1 = dev(a, "openreg:1")
        t1.resize_(100)  # grows on its own device, not the current one
        np.testing.assert_array_equal(host(t1)[:6], a)
    finally:
        ember.openreg.set_device(0)
    with pytest.raises(RuntimeError, match=r"resize_\(\): cannot resize variables that require grad"):
        dev(a).requires_grad_().resize_(3)
