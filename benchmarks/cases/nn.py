"""Linear algebra and neural-network operators (the BLAS/oneDNN issue), against torch.

Each case times one call on inputs made once; goals are Ember's time over torch's. The
matrix products report GFLOP/s in their notes through the size (2*m*n*k per call).
"""

from runner.registry import python_case


def _matmul(n):
    def setup(lib, mod, quick):
        m = min(n, 512) if quick else n
        a = mod.rand(m, m, dtype=mod.float32)
        b = mod.rand(m, m, dtype=mod.float32)
        return lambda: mod.matmul(a, b)
    return setup


for _n in (512, 1024, 2048):
    python_case(f"matmul_{_n}", goals={"torch": 1.05}, size=f"{_n}x{_n} @ {_n}x{_n} float32",
                quick_size="512x512 float32",
                note=f"{2 * _n ** 3 / 1e9:.2f} GFLOP per call; BLAS-bound")(_matmul(_n))


def _bmm(lib, mod, quick):
    a = mod.rand(64, 128, 128, dtype=mod.float32)
    b = mod.rand(64, 128, 128, dtype=mod.float32)
    return lambda: mod.bmm(a, b)


python_case("bmm_64x128", goals={"torch": 1.0}, size="64 x (128x128 @ 128x128) float32",
            note="0.27 GFLOP per call")(_bmm)


def _linear(lib, mod, quick):
    x = mod.rand(128, 784, dtype=mod.float32)
    w = mod.rand(512, 784, dtype=mod.float32)
    b = mod.rand(512, dtype=mod.float32)
    f = mod.nn.functional.linear
    return lambda: f(x, w, b)


python_case("linear_128x784_512", goals={"torch": 1.0}, size="(128x784) -> 512 float32, with bias",
            note="addmm with a transposed weight")(_linear)


def _softmax(log):
    def setup(lib, mod, quick):
        n = 1024 if quick else 4096
        x = mod.rand(n, n, dtype=mod.float32)
        f = mod.log_softmax if log else mod.softmax
        return lambda: f(x, 1)
    return setup


python_case("softmax_4096", goals={"torch": 0.5}, size="4096x4096 float32, dim 1",
            quick_size="1024x1024 float32", note="three passes per row in cache")(_softmax(False))
python_case("log_softmax_4096", goals={"torch": 0.5}, size="4096x4096 float32, dim 1",
            quick_size="1024x1024 float32", note="three passes per row in cache")(_softmax(True))


def _cross_entropy(lib, mod, quick):
    x = mod.rand(4096, 1000, dtype=mod.float32)
    t = mod.randint(0, 1000, (4096,))
    f = mod.nn.functional.cross_entropy
    return lambda: f(x, t)


python_case("cross_entropy_4096x1000", goals={"torch": 1.0}, size="4096x1000 float32 logits",
            note="log_softmax + nll_loss, mean")(_cross_entropy)


def _max_pool2d(lib, mod, quick):
    n = 8 if quick else 32
    x = mod.rand(n, 64, 56, 56, dtype=mod.float32)
    f = mod.nn.functional.max_pool2d
    return lambda: f(x, 3, 2, 1)


python_case("max_pool2d_32x64x56x56", goals={"torch": 1.0}, size="N=32, 64x56x56 float32, 3x3 stride 2 pad 1",
            quick_size="N=8", note="NCHW, one plane per task")(_max_pool2d)
