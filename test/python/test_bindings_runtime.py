"""The binding runtime: reference counts and leaks over a million calls, the GIL released in
long kernels (and KeyboardInterrupt still reaching Python), and operator libraries' ops
reaching Python with no binding code (the three-file path)."""
import gc
import glob
import os
import signal
import subprocess
import sys
import threading
import time
import tracemalloc

import numpy as np
import pytest

import ember
from ember import _C

BUILD = os.environ.get("EMBER_BUILD_DIR", "build")
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_no_leaks_across_a_million_calls():
    t = ember.zeros(4)
    a = np.zeros(4, dtype=np.float32)
    one = ember.ones(1)
    calls = [lambda: ember.zeros(4), lambda: t.clone(), lambda: one.item(), lambda: t.numpy(),
             lambda: ember.from_numpy(a), lambda: t.view(2, 2), lambda: t.select(0, 1),
             lambda: t.tolist(), lambda: ember.tensor([1.0, 2.0]), lambda: t.shape,
             lambda: t.zero_(), lambda: t.to(ember.float64)]
    per = 1_000_000 // len(calls) + 1
    for f in calls:   # warm up caches (interned names, parsers)
        f()
    gc.collect()
    refs = (sys.getrefcount(t), sys.getrefcount(a), sys.getrefcount(one))
    blocks0 = _C._allocator_stats()[0]
    tracemalloc.start()
    before = tracemalloc.take_snapshot()
    for f in calls:
        for _ in range(per):
            f()
    gc.collect()
    after = tracemalloc.take_snapshot()
    tracemalloc.stop()
    grown = sum(s.size_diff for s in after.compare_to(before, "filename") if s.size_diff > 0)
    assert grown < 64 * 1024, f"Python memory grew by {grown} bytes over 1e6 calls"
    assert _C._allocator_stats()[0] == blocks0, "tensor storage leaked"
    assert (sys.getrefcount(t), sys.getrefcount(a), sys.getrefcount(one)) == refs


def test_allocator_counters_see_frees():
    blocks0, bytes0 = _C._allocator_stats()[:2]
    x = ember.empty(1 << 20)
    blocks1, bytes1 = _C._allocator_stats()[:2]
    assert blocks1 == blocks0 + 1 and bytes1 >= bytes0 + 4 * (1 << 20)
    del x
    assert _C._allocator_stats()[:2] == (blocks0, bytes0)


def test_cpu_cache_keeps_and_returns_large_blocks():
    ember.cpu.empty_cache()
    x = ember.empty(1 << 20)
    ptr = x.data_ptr()
    del x
    assert ember.cpu.memory_stats()["cached_blocks"] == 1
    y = ember.zeros(1 << 20)
    assert y.data_ptr() == ptr and ember.cpu.memory_stats()["cached_blocks"] == 0
    del y
    ember.cpu.empty_cache()
    assert ember.cpu.memory_stats()["cached_bytes"] == 0


def test_failed_calls_leak_nothing():
    t = ember.zeros(4)
    gc.collect()
    refs = sys.getrefcount(t)
    blocks0 = _C._allocator_stats()[0]
    for _ in range(10000):
        with pytest.raises(TypeError):
            t.view(2, "a")
        with pytest.raises(ValueError):
            t.view(3)
        with pytest.raises(TypeError):
            ember.zeros(2, 2, dtype=5)
    gc.collect()
    assert sys.getrefcount(t) == refs and _C._allocator_stats()[0] == blocks0


def test_gil_released_in_long_kernels():
    ticks = []
    stop = threading.Event()

    def count():
        while not stop.is_set():
            ticks.append(1)
            time.sleep(0)

    th = threading.Thread(target=count)
    th.start()
    time.sleep(0.01)
    try:
        for _ in range(3):
            n0 = len(ticks)
            ember.randn(8_000_000)  # tens of ms
            if len(ticks) - n0 > 10:
                break
        ran_during = len(ticks) - n0
    finally:
        stop.set()
        th.join()
    assert ran_during > 10, "another Python thread did not run during the kernel"


def test_small_calls_keep_the_gil():
    # Releasing the GIL costs more than a tiny op, so below the threshold it stays held:
    # with a long switch interval, another thread gets no turn during a loop of small calls.
    ticks = []
    stop = threading.Event()
    th = threading.Thread(target=lambda: [ticks.append(1) or time.sleep(0) for _ in iter(stop.is_set, True)])
    old = sys.getswitchinterval()
    th.start()
    time.sleep(0.01)
    sys.setswitchinterval(10.0)
    try:
        n0 = len(ticks)
        for _ in range(20000):
            ember.zeros(4)
            ember.ones(8).clone()
        during = len(ticks) - n0
    finally:
        sys.setswitchinterval(old)
        stop.set()
        th.join()
    assert during <= 1, f"the other thread ran {during} times: the GIL was released"


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_keyboard_interrupt_reaches_python_during_a_long_kernel():
    # In a fresh interpreter: inside the whole suite's process the signal did not come through
    # (twice on 2026-12-03, whether a thread or another process sent it), while the test passed
    # alone; the property is the extension's, so a clean process shows it.
    script = (
        "import signal, sys, time, ember\n"
        # The suite's process passes SIGINT on blocked or ignored (found 2026-12-03: some
        # earlier test leaves it so); the child restores Python's own disposition.
        "signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})\n"
        "signal.signal(signal.SIGINT, signal.default_int_handler)\n"
        "print('ready', flush=True)\n"
        "t0 = time.perf_counter()\n"
        "try:\n"
        "    while time.perf_counter() - t0 < 20:\n"
        "        ember.randn(4_000_000)\n"
        "except KeyboardInterrupt:\n"
        "    print('interrupted', round(time.perf_counter() - t0, 3), flush=True)\n"
        "    sys.exit(0)\n"
        "sys.exit(3)\n")
    child = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True,
                             env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    try:
        assert child.stdout.readline().strip() == "ready"
        time.sleep(0.05)
        t0 = time.perf_counter()
        child.send_signal(signal.SIGINT)
        out, _ = child.communicate(timeout=60)
    finally:
        if child.poll() is None:
            child.kill()
    assert child.returncode == 0 and out.startswith("interrupted"), (child.returncode, out)
    assert time.perf_counter() - t0 < 5


def scratch_library():
    paths = glob.glob(os.path.join(REPO, BUILD, "test", "cpp", "ember_scratch_ops_py*.so"))
    if not paths:
        pytest.fail(f"the scratch library's Python extension is missing from {BUILD}/test/cpp")
    return ember.ops.load_library(paths[0])


def test_three_file_path_reaches_python():
    # test/cpp/codegen/scratch_ops.yaml + scratch_kernels.cpp + ember_add_op_library(PYTHON):
    # no binding code written, yet the ops are ember.<op> and Tensor.<op>.
    lib = scratch_library()
    assert ember.ops.load_library(lib.__file__) is lib  # loading twice is a no-op
    a = ember.ones(4)
    b = ember.arange(4, dtype=ember.float32)
    assert ember.scratch_axpy(a, b, alpha=2).tolist() == [1.0, 3.0, 5.0, 7.0]
    assert a.scratch_axpy(b).tolist() == [1.0, 2.0, 3.0, 4.0]
    assert ember.scratch_double(b).tolist() == [0.0, 2.0, 4.0, 6.0]
    out = ember.empty(4)
    assert ember.scratch_axpy(a, b, out=out) is out and out.tolist() == [1.0, 2.0, 3.0, 4.0]
    assert a.scratch_axpy_(b) is a and a.tolist() == [1.0, 2.0, 3.0, 4.0]
    assert "self + alpha * other" in ember.scratch_axpy.__doc__
    with pytest.raises(TypeError, match=r"scratch_axpy\(Tensor input, Tensor other, \*, Scalar alpha=1"):
        ember.scratch_axpy(a, "b")
    with pytest.raises(ValueError):
        ember.scratch_axpy(a, ember.ones(3))


def test_typed_defaults_reach_python():
    # The Python parser's defaults come from the schema's typed defaults (c10's FunctionSchema):
    # [reduction, memory_format, dtype, pad[0], pad[1]] as the kernel received them.
    scratch_library()
    x = ember.ones(2)
    assert ember.scratch_defaults(x).tolist() == [1, 0, 4, 1, 1]
    assert ember.scratch_defaults(x, 2, memory_format=ember.channels_last, dtype=ember.float64,
                                  pad=(3, 4)).tolist() == [2, 2, 7, 3, 4]


def test_operator_slots_follow_the_table():
    from ember._tensor import OPERATOR_SLOTS, _install_operators
    # Every slot whose op exists is installed on ember.Tensor; the others are absent, so
    # Python raises its usual TypeError until the op lands in the YAML.
    for slot, (op, kind) in OPERATOR_SLOTS.items():
        exists = hasattr(ember.Tensor, op) if kind != "swap" else hasattr(ember, op)
        assert (slot in ember.Tensor.__dict__) == exists, slot
    if not hasattr(ember.Tensor, "add"):
        with pytest.raises(TypeError):
            ember.zeros(1) + ember.zeros(1)
    # The mechanism, on an op that exists today (the scratch library's axpy).
    scratch_library()

    class T(ember.Tensor):
        pass

    installed = _install_operators(T, {"__add__": ("scratch_axpy", "method"),
                                       "__iadd__": ("scratch_axpy_", "inplace"),
                                       "__radd__": ("scratch_axpy", "swap"),
                                       "__pos__": ("scratch_double", "unary")})
    # scratch_double is a function only: a "unary" slot needs a method, so none is installed.
    assert sorted(installed) == ["__add__", "__iadd__", "__radd__"]
    a = T([1.0, 2.0])
    b = ember.tensor([10.0, 20.0])
    assert (a + b).tolist() == [11.0, 22.0]
    assert T.__radd__(a, b).tolist() == [11.0, 22.0]
    assert "__pos__" not in T.__dict__  # scratch_double is not a method (T inherits Tensor's +)
    before = a
    a += b
    assert a is before and a.tolist() == [11.0, 22.0]
    with pytest.raises(TypeError):
        a + "x"
