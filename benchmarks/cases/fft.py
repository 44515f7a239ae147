"""Fourier transforms against torch (MKL's FFT in torch's CPU wheel): power-of-two,
mixed-radix and prime lengths, a batch of real rows and a 2-d transform.

Each case times one call on an input made once; goals are Ember's time over torch's.
"""

from runner.registry import python_case


def _fft(fn_name, shape, complex_input, **kw):
    def setup(lib, mod, quick):
        x = mod.randn(*shape, dtype=mod.float32)
        if complex_input:
            x = mod.complex(x, mod.randn(*shape, dtype=mod.float32)) if hasattr(mod, "complex") else \
                mod.view_as_complex(mod.randn(*shape, 2, dtype=mod.float32))
        fn = getattr(mod.fft, fn_name)
        return lambda: fn(x, **kw)
    return setup


for _name, _fn, _shape, _cplx, _note in (
        ("fft_1024", "fft", (1024,), True, "power of two"),
        ("fft_4096", "fft", (4096,), True, "power of two"),
        ("fft_1000", "fft", (1000,), True, "mixed radix 2^3 5^3"),
        ("fft_1031", "fft", (1031,), True, "prime (Bluestein)"),
        ("rfft_64x4096", "rfft", (64, 4096), False, "batch of real rows"),
        ("fft2_256x256", "fft2", (256, 256), True, "2-d transform")):
    python_case(_name, goals={"torch": 1.0}, threads=(1,), size=f"{'x'.join(map(str, _shape))} complex64"
                if _cplx else f"{'x'.join(map(str, _shape))} float32", note=_note)(_fft(_fn, _shape, _cplx))
del _name, _fn, _shape, _cplx, _note
