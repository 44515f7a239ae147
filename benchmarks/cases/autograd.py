"""Autograd cases (the autograd issue): recording and replaying a graph, against torch."""

from runner.registry import python_case

CHAIN = 100
BIG = 64 << 20  # 64M float32
QUICK_BIG = 4 << 20


def _chain(lib, mod, quick):
    """A 100-op chain on size-10 tensors, forward and backward: per-op recording and replay
    cost from Python (the time is divided by 100 in the report's note only)."""
    x = mod.ones(10, dtype=mod.float32, requires_grad=True)
    w = mod.ones(10, dtype=mod.float32)

    def run():
        y = x
        for i in range(CHAIN // 4):
            y = y * w
            y = y + 1.0
            y = y.sin()
            y = y * 0.5
        y.sum().backward()
        x.grad = None
    return run


python_case("py_chain_100_fwd_bwd", goals={"torch": 0.5}, threads=(1,), size="10 float32, 100 ops",
            note="a 100-op chain (mul, add, sin, mul) forward plus backward; per-op cost is the "
                 "time / 100")(_chain)


def _exp_mul_sum(lib, mod, quick):
    n = QUICK_BIG if quick else BIG
    a = mod.rand(n, dtype=mod.float32).requires_grad_()
    b = mod.rand(n, dtype=mod.float32).requires_grad_()

    def run():
        (a * b).exp().sum().backward()
        a.grad = None
        b.grad = None
    return run


python_case("py_exp_mul_sum_64M_fwd_bwd", goals={"torch": 1.0}, size="64M float32 (256 MiB)",
            quick_size="4M float32 (16 MiB)",
            note="(a * b).exp().sum() forward and backward (memory-bound)")(_exp_mul_sum)
