"""The op table's rows of the DFT primitives (_fft_c2c, _fft_r2c, _fft_c2r; test_op_table.py
runs them). The torch.fft functions over them are checked in test_fft.py."""
from __future__ import annotations

from op_rows import *  # noqa: F401,F403

# Non-negative dims only: the primitives take the wrapped dims torch.fft passes (PyTorch's
# do not wrap a negative one and compute garbage sizes).
FFT_DIMS = [(0,), (1,), (0, 1), (1, 0)]
FFT_LAYOUTS = ("contiguous", "transposed", "broadcast", "sliced")
# torch's private primitives crash (SIGSEGV) on dims out of range, so the generic bad values
# are off here; Ember's errors for them are tested in test_fft.py.

ROWS_FFT: list[Row] = [
    Row("_fft_c2c", dtypes=COMPLEX, shape=(4, 6), layouts=FFT_LAYOUTS,
        pools={"dim": FFT_DIMS, "normalization": [0, 1, 2], "forward": [True, False]},
        generic_bad=False, bad=[{"self": TensorSpec("float32", shape=(4, 6))}]),
    Row("_fft_r2c", dtypes=("float32", "float64"), shape=(4, 6), layouts=FFT_LAYOUTS,
        pools={"dim": FFT_DIMS, "normalization": [0, 1, 2], "onesided": [True, False]},
        generic_bad=False, bad=[{"self": TensorSpec("complex64", shape=(4, 6))}]),
    Row("_fft_c2r", dtypes=COMPLEX, shape=(4, 6), layouts=FFT_LAYOUTS,
        pools={"dim": [(1,), (0, 1), (1, 0)], "normalization": [0, 1, 2], "last_dim_size": [10, 11, 7]},
        generic_bad=False, bad=[{"self": TensorSpec("float32", shape=(4, 6))}]),
]
