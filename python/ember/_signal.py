"""torch's window functions and the short-time Fourier transform (stft, istft), composed of
Ember's ops and ember.fft, so their gradients come from their parts. Installed on ember and
on Tensor at the end of ember/__init__.py."""
import math

import ember as _ember
from ember import fft as _fft


def _window_args(op, window_length, dtype, requires_grad):
    if not isinstance(window_length, int) or isinstance(window_length, bool):
        raise TypeError(f"{op}(): argument 'window_length' must be int, not {type(window_length).__name__}")
    if window_length < 0:
        raise RuntimeError(f"{op}(): requires non-negative window_length, got window_length={window_length}")
    dtype = dtype or _ember.get_default_dtype()
    if not dtype.is_floating_point:
        raise RuntimeError(f"{op}(): expected a floating point dtype, but got {dtype}")
    return dtype


def _finish(values, dtype, device, requires_grad):
    w = values.to(dtype)
    if device is not None:
        w = w.to(device)
    return w.requires_grad_() if requires_grad else w


def _cosine_window(op, coefficients, window_length, periodic, dtype, layout, device, requires_grad):
    dtype = _window_args(op, window_length, dtype, requires_grad)
    if window_length <= 1:
        return _finish(_ember.ones(window_length, dtype=_ember.float64), dtype, device, requires_grad)
    n = window_length + 1 if periodic else window_length
    k = _ember.arange(window_length, dtype=_ember.float64) * (2 * math.pi / (n - 1))
    w = _ember.zeros(window_length, dtype=_ember.float64) + coefficients[0]
    for i, c in enumerate(coefficients[1:], start=1):
        w = w + (k * i).cos() * c
    return _finish(w, dtype, device, requires_grad)


def hann_window(window_length, periodic=True, *, dtype=None, layout=None, device=None,
                pin_memory=False, requires_grad=False):
    """0.5 - 0.5 cos(2 pi k / (N - 1)), N = window_length (+1 when periodic)."""
    return _cosine_window("hann_window", (0.5, -0.5), window_length, periodic, dtype, layout, device,
                          requires_grad)


def hamming_window(window_length, periodic=True, alpha=0.54, beta=0.46, *, dtype=None, layout=None,
                   device=None, pin_memory=False, requires_grad=False):
    """alpha - beta cos(2 pi k / (N - 1))."""
    return _cosine_window("hamming_window", (alpha, -beta), window_length, periodic, dtype, layout,
                          device, requires_grad)


def blackman_window(window_length, periodic=True, *, dtype=None, layout=None, device=None,
                    pin_memory=False, requires_grad=False):
    """0.42 - 0.5 cos(2 pi k / (N - 1)) + 0.08 cos(4 pi k / (N - 1))."""
    return _cosine_window("blackman_window", (0.42, -0.5, 0.08), window_length, periodic, dtype, layout,
                          device, requires_grad)


def bartlett_window(window_length, periodic=True, *, dtype=None, layout=None, device=None,
                    pin_memory=False, requires_grad=False):
    """1 - |2k / (N - 1) - 1|."""
    dtype = _window_args("bartlett_window", window_length, dtype, requires_grad)
    if window_length <= 1:
        return _finish(_ember.ones(window_length, dtype=_ember.float64), dtype, device, requires_grad)
    n = window_length + 1 if periodic else window_length
    k = _ember.arange(window_length, dtype=_ember.float64)
    return _finish(1 - (k * (2.0 / (n - 1)) - 1).abs(), dtype, device, requires_grad)


def _i0(x):
    """The modified Bessel function I0 by its power series (x^2 / 4)^k / k!^2 (the window's
    arguments are bounded by beta, so the series converges in a few dozen terms)."""
    q = x * x / 4
    term = _ember.ones_like(x)
    total = _ember.ones_like(x)
    for k in range(1, 200):
        term = term * q / (k * k)
        total = total + term
        if float(term.max()) <= 1e-17 * float(total.min()):
            break
    return total


def kaiser_window(window_length, periodic=True, beta=12.0, *, dtype=None, layout=None, device=None,
                  pin_memory=False, requires_grad=False):
    """I0(beta sqrt(1 - (2k / (N - 1) - 1)^2)) / I0(beta)."""
    dtype = _window_args("kaiser_window", window_length, dtype, requires_grad)
    if window_length <= 1:
        return _finish(_ember.ones(window_length, dtype=_ember.float64), dtype, device, requires_grad)
    n = window_length + 1 if periodic else window_length
    k = _ember.arange(window_length, dtype=_ember.float64)
    r = (k * (2.0 / (n - 1)) - 1)
    arg = (1 - r * r).clamp(min=0).sqrt() * beta
    w = _i0(arg) / _i0(_ember.tensor([float(beta)], dtype=_ember.float64))
    return _finish(w, dtype, device, requires_grad)


def _padded_window(op, window, win_length, n_fft, dtype):
    if window is None:
        window = _ember.ones(win_length, dtype=dtype)
    if window.dim() != 1 or window.shape[0] != win_length:
        raise RuntimeError(f"{op}(): expected a 1D window tensor of size equal to win_length={win_length}, "
                           f"but got window with size {list(window.shape)}")
    if win_length < n_fft:
        left = (n_fft - win_length) // 2
        window = _ember.nn.functional.pad(window, (left, n_fft - win_length - left))
    return window


def stft(input, n_fft, hop_length=None, win_length=None, window=None, center=True, pad_mode="reflect",
         normalized=False, onesided=None, return_complex=None, align_to_window=None):
    """The short-time Fourier transform, as torch.stft: frames of n_fft samples every
    hop_length (n_fft // 4), each times the window (ones if None, centred when shorter), their
    DFT (one-sided for real input unless onesided=False). return_complex must be given;
    False returns the real view (..., 2), as torch."""
    if return_complex is None:
        raise RuntimeError("stft requires the return_complex parameter be given for real inputs, and "
                           "will further require that return_complex=True in a future PyTorch release.")
    if input.dim() not in (1, 2):
        raise RuntimeError(f"stft: expected a 1D or 2D tensor, but got {input.dim()}D")
    hop_length = n_fft // 4 if hop_length is None else hop_length
    win_length = n_fft if win_length is None else win_length
    if hop_length <= 0:
        raise RuntimeError(f"stft: expected hop_length > 0, but got hop_length={hop_length}")
    if not 0 < win_length <= n_fft:
        raise RuntimeError(f"stft: expected 0 < win_length <= n_fft, but got win_length={win_length}")
    x = input.unsqueeze(0) if input.dim() == 1 else input
    if center:
        pad = n_fft // 2
        x = _ember.nn.functional.pad(x.unsqueeze(1), (pad, pad), mode=pad_mode).squeeze(1)
    if not 0 < n_fft <= x.shape[-1]:
        raise RuntimeError(f"stft: expected 0 < n_fft < {x.shape[-1]}, but got n_fft={n_fft}")
    real_dtype = x.real.dtype if x.is_complex() and hasattr(x, "real") else \
        (_ember.float64 if x.dtype in (_ember.float64, _ember.complex128) else _ember.float32)
    w = _padded_window("stft", window, win_length, n_fft, real_dtype)
    frames = x.unfold(-1, n_fft, hop_length) * w  # (B, frames, n_fft)
    onesided = (not x.is_complex()) if onesided is None else onesided
    if onesided and x.is_complex():
        raise RuntimeError("stft: Cannot have onesided output if window or input is complex")
    spec = _fft.rfft(frames, dim=-1) if onesided else _fft.fft(frames, dim=-1)
    if normalized:
        spec = spec * (1.0 / math.sqrt(n_fft))
    spec = spec.transpose(-1, -2)
    if input.dim() == 1:
        spec = spec.squeeze(0)
    return spec if return_complex else _ember.view_as_real(spec.contiguous())


def istft(input, n_fft, hop_length=None, win_length=None, window=None, center=True, normalized=False,
          onesided=None, length=None, return_complex=False):
    """The inverse of stft: each frame's inverse DFT times the window, overlap-added and
    divided by the summed squared window (which must not vanish), trimmed as torch.istft."""
    if not input.is_complex():
        raise RuntimeError("istft requires a complex-valued input tensor")
    hop_length = n_fft // 4 if hop_length is None else hop_length
    win_length = n_fft if win_length is None else win_length
    spec = input.unsqueeze(0) if input.dim() == 2 else input
    if spec.dim() != 3:
        raise RuntimeError(f"istft: expected a 2D or 3D complex tensor, but got {input.dim()}D")
    n_freq, n_frames = spec.shape[-2], spec.shape[-1]
    onesided = (n_freq != n_fft) if onesided is None else onesided
    expected = n_fft // 2 + 1 if onesided else n_fft
    if n_freq != expected:
        raise RuntimeError(f"istft: expected the frequency dimension (3rd to the last) of the input tensor "
                           f"to match n_fft / 2 + 1 when onesided=True, but got {n_freq}")
    real_dtype = _ember.float64 if spec.dtype == _ember.complex128 else _ember.float32
    w = _padded_window("istft", window, win_length, n_fft, real_dtype)
    if normalized:
        spec = spec * math.sqrt(n_fft)
    spec = spec.transpose(-1, -2)  # (B, frames, freq)
    if onesided:
        frames = _fft.irfft(spec, n=n_fft, dim=-1)
    else:
        frames = _fft.ifft(spec, dim=-1)
        if not return_complex:
            frames = _ember.view_as_real(frames.contiguous()).select(-1, 0)
    frames = frames * w
    total = n_fft + hop_length * (n_frames - 1)
    fold = _ember.nn.functional.fold
    y = fold(frames.transpose(1, 2), (1, total), (1, n_fft), stride=(1, hop_length)).reshape(spec.shape[0], total)
    env = fold((w * w).reshape(1, n_fft, 1).expand(1, n_fft, n_frames), (1, total), (1, n_fft),
               stride=(1, hop_length)).reshape(total)
    start = n_fft // 2 if center else 0
    end = total - n_fft // 2 if center else total
    if length is not None:
        end = start + length
    y = y[:, start:min(end, total)]
    env = env[start:min(end, total)]
    if float(env.abs().min()) < 1e-11:
        raise RuntimeError("istft: window overlap add min: the window's squared overlap-add is zero "
                           "somewhere (NOLA condition failed)")
    y = y / env
    if length is not None and y.shape[-1] < length:
        y = _ember.nn.functional.pad(y, (0, length - y.shape[-1]))
    return y.squeeze(0) if input.dim() == 2 else y


def install(tensor_type):
    for f in (hann_window, hamming_window, blackman_window, bartlett_window, kaiser_window, stft, istft):
        setattr(_ember, f.__name__, f)
    tensor_type.stft = stft
    tensor_type.istft = istft
