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


def _conv2d(backward, n_default=32, cin=64, cout=64, k=3, channels_last=False):
    def setup(lib, mod, quick):
        n = 4 if quick else n_default
        x = mod.rand(n, cin, 56, 56, dtype=mod.float32)
        if channels_last:
            x = x.contiguous(memory_format=mod.channels_last)
        w = mod.rand(cout, cin, k, k, dtype=mod.float32)
        f = mod.nn.functional.conv2d
        if not backward:
            return lambda: f(x, w, None, 1, k // 2)
        xg = x.detach().requires_grad_(True)
        wg = w.detach().requires_grad_(True)

        def step():
            f(xg, wg, None, 1, k // 2).sum().backward()
            xg.grad = None
            wg.grad = None
        return step
    return setup


python_case("conv2d_32x64x56x56_3x3", goals={"torch": 0.7}, size="N=32, 64->64, 56x56, 3x3 pad 1, float32 NCHW",
            quick_size="N=4", note="NCHW: im2col + MKL GEMM per sample")(_conv2d(False))
python_case("conv2d_32x64x56x56_3x3_fwd_bwd", goals={"torch": 1.0},
            size="N=32, 64->64, 56x56, 3x3 pad 1, float32, forward + backward (input and weight)",
            quick_size="N=4", note="three GEMMs per sample")(_conv2d(True))
python_case("conv2d_32x64x56x56_3x3_channels_last", goals={"torch": 1.0},
            size="N=32, 64->64, 56x56, 3x3 pad 1, float32 channels_last input",
            quick_size="N=4", note="oneDNN nhwc primitive, cached weight")(_conv2d(False, channels_last=True))
python_case("conv2d_1x1_256_64", goals={"torch": 1.0}, size="N=32, 256->64, 56x56, 1x1, float32",
            quick_size="N=4", note="the image is the GEMM operand (no im2col)")(_conv2d(False, cin=256, k=1))


def _dcgan_conv(transposed, cin, cout, size):
    """dcgan's 4x4 stride-2 layers (pytorch/examples dcgan, ngf = ndf = 16, batch 16), forward
    and backward: NCHW images of 16 to 64 pixels, which oneDNN takes (Note [oneDNN
    convolution], Note [Transposed convolution on oneDNN])."""
    def setup(lib, mod, quick):
        n = 4 if quick else 16
        x = mod.rand(n, cin, size, size, dtype=mod.float32).requires_grad_(True)
        shape = (cin, cout, 4, 4) if transposed else (cout, cin, 4, 4)
        w = (mod.rand(*shape, dtype=mod.float32) * 0.1).requires_grad_(True)
        f = mod.nn.functional.conv_transpose2d if transposed else mod.nn.functional.conv2d

        def step():
            f(x, w, None, 2, 1).sum().backward()
            x.grad = None
            w.grad = None
        return step
    return setup


python_case("conv2d_dcgan_16x32_32x32_fwd_bwd", goals={"torch": 1.0},
            size="N=16, 16->32, 32x32, 4x4 stride 2 pad 1, float32 NCHW, forward + backward",
            quick_size="N=4", note="oneDNN with reorders (a small per-sample GEMM)")(_dcgan_conv(False, 16, 32, 32))
python_case("conv_transpose2d_dcgan_32x16_16x16_fwd_bwd", goals={"torch": 1.0},
            size="N=16, 32->16, 16x16 -> 32x32, 4x4 stride 2 pad 1, float32 NCHW, forward + backward",
            quick_size="N=4", note="oneDNN backward-data as the forward")(_dcgan_conv(True, 32, 16, 16))


def _batch_norm(lib, mod, quick):
    n = 8 if quick else 32
    x = mod.rand(n, 64, 56, 56, dtype=mod.float32)
    rm = mod.zeros(64, dtype=mod.float32)
    rv = mod.ones(64, dtype=mod.float32)
    f = mod.nn.functional.batch_norm
    return lambda: f(x, rm, rv, None, None, True)


python_case("batch_norm_32x64x56x56", goals={"torch": 1.0}, size="N=32, 64x56x56 float32, training",
            quick_size="N=8", note="two passes per channel for the statistics, one for the output")(_batch_norm)


def _layer_norm(lib, mod, quick):
    n = 1024 if quick else 4096
    x = mod.rand(n, n, dtype=mod.float32)
    w = mod.rand(n, dtype=mod.float32)
    b = mod.rand(n, dtype=mod.float32)
    f = mod.nn.functional.layer_norm
    return lambda: f(x, (n,), w, b)


python_case("layer_norm_4096", goals={"torch": 1.0}, size="4096x4096 float32, normalized over the last dim",
            quick_size="1024x1024", note="rows in parallel, statistics in double")(_layer_norm)
