"""Window functions and stft/istft against torch: values, round trips, gradients, errors."""
import warnings

import numpy as np
import pytest
import torch

import ember

RNG = np.random.default_rng(5)


def _np(t):
    return t.detach().resolve_conj().numpy() if isinstance(t, torch.Tensor) else np.array(t.tolist())


@pytest.mark.parametrize("name", ["hann_window", "hamming_window", "blackman_window",
                                  "bartlett_window", "kaiser_window"])
@pytest.mark.parametrize("n", [0, 1, 2, 5, 16, 101])
@pytest.mark.parametrize("periodic", [True, False])
def test_windows_match_torch(name, n, periodic):
    e = getattr(ember, name)(n, periodic, dtype=ember.float64)
    t = getattr(torch, name)(n, periodic, dtype=torch.float64)
    np.testing.assert_allclose(_np(e), _np(t), atol=1e-12)
    assert getattr(ember, name)(8).dtype == ember.float32
    assert getattr(ember, name)(8, requires_grad=True).requires_grad


def test_window_options_and_errors():
    np.testing.assert_allclose(_np(ember.hamming_window(9, False, 0.6, 0.4, dtype=ember.float64)),
                               _np(torch.hamming_window(9, False, 0.6, 0.4, dtype=torch.float64)))
    np.testing.assert_allclose(_np(ember.kaiser_window(9, True, 3.5, dtype=ember.float64)),
                               _np(torch.kaiser_window(9, True, 3.5, dtype=torch.float64)), atol=1e-12)
    with pytest.raises(RuntimeError, match="non-negative"):
        ember.hann_window(-1)
    with pytest.raises(RuntimeError, match="floating"):
        ember.hann_window(4, dtype=ember.int64)
    with pytest.raises(TypeError, match="window_length"):
        ember.hann_window(4.0)


STFT_CASES = [dict(n_fft=32), dict(n_fft=32, hop_length=5, win_length=20), dict(n_fft=16, center=False),
              dict(n_fft=32, normalized=True, onesided=False), dict(n_fft=32, pad_mode="constant"),
              dict(n_fft=15, hop_length=4)]


@pytest.mark.parametrize("kw", STFT_CASES)
@pytest.mark.parametrize("windowed", [False, True])
@pytest.mark.parametrize("batched", [False, True])
def test_stft_and_istft_match_torch(kw, windowed, batched):
    x = RNG.standard_normal((2, 200) if batched else (200,))
    wl = kw.get("win_length", kw["n_fft"])
    we = ember.hann_window(wl, dtype=ember.float64) if windowed else None
    wt = torch.hann_window(wl, dtype=torch.float64) if windowed else None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t = torch.stft(torch.tensor(x), window=wt, return_complex=True, **kw)
    e = ember.stft(ember.tensor(x), window=we, return_complex=True, **kw)
    assert tuple(e.shape) == tuple(t.shape)
    np.testing.assert_allclose(_np(e), _np(t), atol=1e-10)
    er = ember.tensor(x).stft(window=we, return_complex=False, **kw)
    np.testing.assert_allclose(_np(er), _np(torch.view_as_real(t)), atol=1e-10)
    if windowed and kw.get("center", True):
        kk = {k: v for k, v in kw.items() if k != "pad_mode"}
        ie = ember.istft(e, window=we, length=200, **kk)
        it = torch.istft(t, window=wt, length=200, **kk)
        np.testing.assert_allclose(_np(ie), _np(it), atol=1e-9)
        np.testing.assert_allclose(_np(ie), x, atol=1e-9)
        np.testing.assert_allclose(_np(e.istft(window=we, **kk)), _np(torch.istft(t, window=wt, **kk)), atol=1e-9)


def test_stft_gradients_match_torch():
    x = RNG.standard_normal((2, 120))
    xe, xt = ember.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    ember.stft(xe, 32, window=ember.hann_window(32, dtype=ember.float64), return_complex=True).abs().sum().backward()
    torch.stft(xt, 32, window=torch.hann_window(32, dtype=torch.float64), return_complex=True).abs().sum().backward()
    np.testing.assert_allclose(_np(xe.grad), _np(xt.grad), atol=1e-10)
    s = RNG.standard_normal((17, 9)) + 1j * RNG.standard_normal((17, 9))
    se, st = ember.tensor(s, requires_grad=True), torch.tensor(s, requires_grad=True)
    ember.istft(se, 32, window=ember.hann_window(32, dtype=ember.float64)).pow(2).sum().backward()
    torch.istft(st, 32, window=torch.hann_window(32, dtype=torch.float64)).pow(2).sum().backward()
    np.testing.assert_allclose(_np(se.grad), _np(st.grad), atol=1e-9)


def test_stft_errors():
    x = ember.randn(100)
    with pytest.raises(RuntimeError, match="return_complex"):
        ember.stft(x, 16)
    with pytest.raises(RuntimeError, match="hop_length"):
        ember.stft(x, 16, hop_length=0, return_complex=True)
    with pytest.raises(RuntimeError, match="win_length"):
        ember.stft(x, 16, win_length=20, return_complex=True)
    with pytest.raises(RuntimeError, match="window"):
        ember.stft(x, 16, window=ember.ones(8), return_complex=True)
    with pytest.raises(RuntimeError, match="n_fft"):
        ember.stft(x, 400, center=False, return_complex=True)
    with pytest.raises(RuntimeError, match="1D or 2D"):
        ember.stft(ember.randn(2, 2, 50), 16, return_complex=True)
    with pytest.raises(RuntimeError, match="complex"):
        ember.istft(ember.randn(9, 4), 16)
    with pytest.raises(RuntimeError, match="NOLA|overlap"):
        ember.istft(ember.stft(x, 16, return_complex=True), 16, window=ember.zeros(16))
