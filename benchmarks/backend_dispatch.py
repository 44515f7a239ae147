"""Out-of-tree backend dispatch (issue 25): what a call costs when it goes to a loaded
backend's kernel instead of the CPU's, and what the CPU fallback adds per call.

    .venv/bin/python benchmarks/backend_dispatch.py [--build build] [--repeats 15]

Ember against itself, in one process, rounds alternating: the backend is
test/backends/slot_backend.cpp ("alpha", host memory behind tagged pointers, synchronous
kernels, Ember's CPU fallback enabled), built by the C++ test targets. Cases:
  - view:  t.view(-1) of a 1-element tensor: the same kernel (view_strided, a
    CompositeExplicitAutograd kernel) reached through the backend's key or the CPU's, so
    the ratio is the dispatch alone (goal <= 1.1);
  - add:   a + b of 1-element float32 tensors: the backend's own add kernel against the CPU
    kernel (goal <= 1.1: the two kernels do alike work);
  - fallback: exp of a 1-element tensor through the CPU fallback (two copies through the
    backend's copy_, the CPU kernel, a device result) against exp on the CPU: reported as
    the overhead per call in microseconds.
Each figure is the median over the repeats of the mean of N calls.
"""
import argparse
import os
import statistics
import sys
import time
import warnings

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def per_call(fn, n):
    fn()
    t0 = time.perf_counter()
    for _ in range(n):
        fn()
    return (time.perf_counter() - t0) / n * 1e6


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--build", default="build")
    p.add_argument("--repeats", type=int, default=15)
    p.add_argument("--calls", type=int, default=20000)
    args = p.parse_args(argv)
    import ember
    ember.set_num_threads(1)
    path = os.path.join(os.path.abspath(args.build), "test", "backends", "libember_test_backend_alpha.so")
    dev = ember.backends.load(path)
    warnings.filterwarnings("ignore", message=".*has no kernel on the")
    cpu = {"a": ember.ones(1), "b": ember.ones(1)}
    on = {k: v.to(dev) for k, v in cpu.items()}
    cases = {
        "view": (lambda: cpu["a"].view(-1), lambda: on["a"].view(-1)),
        "add": (lambda: cpu["a"] + cpu["b"], lambda: on["a"] + on["b"]),
        "fallback exp": (lambda: cpu["a"].exp(), lambda: on["a"].exp()),
    }
    print(f"{'case':14} {'cpu us':>8} {dev + ' us':>9} {'ratio':>6}   goal")
    for name, (f_cpu, f_dev) in cases.items():
        n = args.calls if name != "fallback exp" else args.calls // 10
        c, d = [], []
        for _ in range(args.repeats):
            c.append(per_call(f_cpu, n))
            d.append(per_call(f_dev, n))
        mc, md = statistics.median(c), statistics.median(d)
        ratio = statistics.median(x / y for x, y in zip(d, c))
        goal = "<= 1.1 " + ("met" if ratio <= 1.1 else "MISSED") if name != "fallback exp" else \
            f"overhead {md - mc:.1f} us per call"
        print(f"{name:14} {mc:8.2f} {md:9.2f} {ratio:6.2f}   {goal}")
    del cpu, on
    ember.backends.unload(dev)
    return 0


if __name__ == "__main__":
    sys.exit(main())
