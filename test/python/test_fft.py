"""ember.fft against torch.fft (and numpy.fft for accuracy): every function, its norms,
n/s padding and trimming, dims, dtypes, non-contiguous and batched inputs, gradients
(real and complex inputs, random cotangents), and bad arguments."""
import numpy as np
import pytest
import torch

import ember

RNG = np.random.default_rng(11)
NORMS = [None, "backward", "ortho", "forward"]
C2C = ["fft", "ifft", "fft2", "ifft2", "fftn", "ifftn"]
R2C = ["rfft", "ihfft", "rfft2", "rfftn", "ihfft2", "ihfftn"]
C2R = ["irfft", "hfft", "irfft2", "irfftn", "hfft2", "hfftn"]
ONE_D = {"fft", "ifft", "rfft", "ihfft", "irfft", "hfft"}


def _np(t):
    return t.detach().resolve_conj().numpy() if isinstance(t, torch.Tensor) else np.array(t.tolist())


def _close(e, t, rtol=1e-9, atol=1e-10):
    assert tuple(e.shape) == tuple(t.shape)
    np.testing.assert_allclose(_np(e), _np(t), rtol=rtol, atol=atol)


def _input(kind, shape):
    if kind == "complex":
        return RNG.standard_normal(shape) + 1j * RNG.standard_normal(shape)
    return RNG.standard_normal(shape)


@pytest.mark.parametrize("name", C2C + R2C + C2R)
@pytest.mark.parametrize("norm", NORMS)
def test_values_match_torch(name, norm):
    kind = "real" if name in R2C else "complex"
    a = _input(kind, (3, 5, 8))
    e = getattr(ember.fft, name)(ember.tensor(a), norm=norm)
    t = getattr(torch.fft, name)(torch.tensor(a), norm=norm)
    assert str(e.dtype).split(".")[-1] == str(t.dtype).split(".")[-1]
    _close(e, t)


@pytest.mark.parametrize("name", sorted(ONE_D))
@pytest.mark.parametrize("n", [1, 4, 7, 11, 16])
@pytest.mark.parametrize("dim", [0, -1, 1])
def test_one_d_n_and_dim(name, n, dim):
    kind = "real" if name in R2C else "complex"
    a = _input(kind, (6, 9))
    e = getattr(ember.fft, name)(ember.tensor(a), n=n, dim=dim)
    t = getattr(torch.fft, name)(torch.tensor(a), n=n, dim=dim)
    _close(e, t)


@pytest.mark.parametrize("name", ["fft2", "ifft2", "fftn", "ifftn", "rfft2", "rfftn", "irfft2",
                                  "irfftn", "hfftn", "ihfftn", "hfft2", "ihfft2"])
@pytest.mark.parametrize("s_dim", [((4, 6), None), (None, (0, 2)), ((3, 10), (2, 0)),
                                   ((5,), None), ((2, -1), (1, 2))])
def test_multi_d_s_and_dim(name, s_dim):
    s, dim = s_dim
    if name.endswith("2") and s is not None and dim is None and len(s) != 2:
        pytest.skip("fft2 functions take two dims by default")
    kind = "real" if name in R2C else "complex"
    a = _input(kind, (4, 5, 6))
    kwargs = {"s": s}
    if dim is not None:
        kwargs["dim"] = dim
    if name.endswith("2") and dim is None and s is None:
        kwargs.pop("s")
    if s is not None and -1 in s and name in C2R:
        pytest.skip("torch refuses -1 for the halved dim")
    e = getattr(ember.fft, name)(ember.tensor(a), **kwargs)
    t = getattr(torch.fft, name)(torch.tensor(a), **kwargs)
    _close(e, t)


@pytest.mark.parametrize("n", [1, 2, 3, 5, 7, 8, 12, 30, 97, 128, 210, 1000, 1024, 1031, 4096, 4099])
def test_accuracy_against_numpy(n):
    a = _input("complex", (2, n))
    ref = np.fft.fft(a, axis=-1)
    got = _np(ember.fft.fft(ember.tensor(a)))
    assert np.abs(got - ref).max() <= 1e-13 * max(np.abs(ref).max(), 1)
    got32 = _np(ember.fft.fft(ember.tensor(a.astype(np.complex64))))
    assert np.abs(got32 - ref).max() <= 2e-6 * np.log2(n + 1) * max(np.abs(ref).max(), 1)
    back = _np(ember.fft.ifft(ember.fft.fft(ember.tensor(a))))
    np.testing.assert_allclose(back, a, atol=1e-12)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "bool", "complex64"])
def test_dtypes_as_torch(dtype):
    a = (RNG.standard_normal((3, 8)) * 3).astype(dtype) if dtype != "complex64" else \
        _input("complex", (3, 8)).astype(np.complex64)
    for name in ("fft", "ifft", "fft2", "hfft", "irfft"):
        e = getattr(ember.fft, name)(ember.tensor(a))
        t = getattr(torch.fft, name)(torch.tensor(a))
        assert str(e.dtype).split(".")[-1] == str(t.dtype).split(".")[-1], name
        _close(e, t, rtol=1e-4, atol=1e-4)
    if dtype != "complex64":
        for name in ("rfft", "ihfft", "rfftn"):
            e = getattr(ember.fft, name)(ember.tensor(a))
            t = getattr(torch.fft, name)(torch.tensor(a))
            assert str(e.dtype).split(".")[-1] == str(t.dtype).split(".")[-1], name
            _close(e, t, rtol=1e-4, atol=1e-4)


def test_non_contiguous_batched_and_out():
    a = _input("complex", (8, 6, 10))
    te, tt = ember.tensor(a).transpose(0, 2)[::2], torch.tensor(a).transpose(0, 2)[::2]
    _close(ember.fft.fftn(te, dim=(0, 2)), torch.fft.fftn(tt, dim=(0, 2)))
    _close(ember.fft.fft(te, dim=1), torch.fft.fft(tt, dim=1))
    r = RNG.standard_normal((5, 12))
    _close(ember.fft.rfft(ember.tensor(r).t(), dim=0), torch.fft.rfft(torch.tensor(r).t(), dim=0))
    out = ember.empty((5, 7), dtype=ember.complex128)
    res = ember.fft.rfft(ember.tensor(r), out=out)
    assert res is out
    _close(out, torch.fft.rfft(torch.tensor(r)))
    src = ember.tensor(a)
    before = src.clone()
    ember.fft.fft(src)
    assert ember.equal(src, before)  # the input is not written


GRAD_CASES = [(name, kind) for name in C2C for kind in ("real", "complex")] + \
             [(name, "real") for name in R2C] + [(name, "complex") for name in C2R]


@pytest.mark.parametrize("name,kind", GRAD_CASES)
@pytest.mark.parametrize("norm", [None, "ortho", "forward"])
def test_gradients_match_torch(name, kind, norm):
    a = _input(kind, (3, 6) if name in ONE_D else (3, 4, 6))
    kwargs = {"norm": norm}
    if name in ONE_D:
        kwargs["n"] = 5 if name in C2R else 7
    te, tt = ember.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    ye, yt = getattr(ember.fft, name)(te, **kwargs), getattr(torch.fft, name)(tt, **kwargs)
    _close(ye, yt)
    g = _input("complex" if yt.is_complex() else "real", tuple(yt.shape))
    ye.backward(ember.tensor(g))
    yt.backward(torch.tensor(g))
    _close(te.grad, tt.grad)
    assert str(te.grad.dtype).split(".")[-1] == str(tt.grad.dtype).split(".")[-1]


def test_second_order_and_a_spectral_loss():
    x = RNG.standard_normal((4, 16))
    te, tt = ember.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    le = ember.fft.rfft(te).abs().pow(2).sum() + ember.fft.irfft(ember.fft.rfft(te) * 2, n=16).sum()
    lt = torch.fft.rfft(tt).abs().pow(2).sum() + torch.fft.irfft(torch.fft.rfft(tt) * 2, n=16).sum()
    _close(le, lt)
    (ge,) = ember.autograd.grad(le, te, create_graph=True)
    (gt,) = torch.autograd.grad(lt, tt, create_graph=True)
    _close(ge, gt)
    ge.pow(2).sum().backward()
    gt.pow(2).sum().backward()
    _close(te.grad, tt.grad)


def test_freqs_and_shifts():
    for n in (0, 1, 4, 5):
        for d in (1.0, 0.25):
            _close(ember.fft.fftfreq(n, d), torch.fft.fftfreq(n, d), atol=1e-7)
            _close(ember.fft.rfftfreq(n, d), torch.fft.rfftfreq(n, d), atol=1e-7)
    assert ember.fft.fftfreq(4, dtype=ember.float64).dtype == ember.float64
    assert ember.fft.fftfreq(4, requires_grad=True).requires_grad
    a = RNG.standard_normal((4, 5))
    for dim in (None, 0, -1, (0, 1)):
        _close(ember.fft.fftshift(ember.tensor(a), dim), torch.fft.fftshift(torch.tensor(a), dim))
        _close(ember.fft.ifftshift(ember.tensor(a), dim), torch.fft.ifftshift(torch.tensor(a), dim))
    _close(ember.fft.ifftshift(ember.fft.fftshift(ember.tensor(a))), torch.tensor(a))


def test_empty_batches():
    # torch's MKL plan refuses an empty batch ("Inconsistent configuration parameters");
    # Ember returns the empty result of the right shape and dtype.
    a = ember.zeros(0, 8)
    assert tuple(ember.fft.fft(a).shape) == (0, 8) and ember.fft.fft(a).dtype == ember.complex64
    assert tuple(ember.fft.rfft(a).shape) == (0, 5)
    assert tuple(ember.fft.irfft(ember.fft.rfft(a)).shape) == (0, 8)
    assert tuple(ember.fft.fft2(ember.zeros(3, 0, 4), dim=(0, 2)).shape) == (3, 0, 4)


def test_bad_arguments():
    x = ember.ones(4, 4)
    with pytest.raises(ValueError, match="Invalid normalization mode"):
        ember.fft.fft(x, norm="sideways")
    with pytest.raises(RuntimeError, match=r"Invalid number of data points \(0\)"):
        ember.fft.fft(x, n=0)
    with pytest.raises(RuntimeError, match="real input"):
        ember.fft.rfft(ember.ones(4, dtype=ember.complex64))
    with pytest.raises(IndexError, match="Dimension out of range"):
        ember.fft.fft(x, dim=2)
    with pytest.raises(RuntimeError, match="unique"):
        ember.fft.fftn(x, dim=(0, 0))
    with pytest.raises(RuntimeError, match="same length"):
        ember.fft.fftn(x, s=(2, 2, 2), dim=(0, 1))
    with pytest.raises(RuntimeError, match="dimensions"):
        ember.fft.fftn(x, s=(2, 2, 2))
    with pytest.raises(IndexError):
        ember.fft.fft(ember.tensor(1.0))
    with pytest.raises(TypeError, match="Tensor"):
        ember.fft.fft([1.0, 2.0])
    with pytest.raises(RuntimeError, match="dtype"):
        ember.fft.fft(ember.ones(4, dtype=ember.float16))
    with pytest.raises(RuntimeError, match="non-negative"):
        ember.fft.fftfreq(-1)
    with pytest.raises(RuntimeError, match="normalization"):
        ember._fft_c2c(ember.ones(4, dtype=ember.complex64), [0], 3, True)
    with pytest.raises(RuntimeError, match="complex"):
        ember._fft_c2c(ember.ones(4), [0], 0, True)
    with pytest.raises(RuntimeError, match="last_dim_size"):
        ember._fft_c2r(ember.ones(2, dtype=ember.complex64), [0], 0, 8)


def test_import_forms():
    import ember.fft as f
    from ember.fft import rfft
    assert f.rfft is rfft is ember.fft.rfft
