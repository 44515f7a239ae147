"""Ember: an eager tensor library with PyTorch's Python API (`import ember as torch`)."""
from __future__ import annotations

import sys as _sys

from ember import _C
from ember._C import (  # noqa: F401
    Generator, Size, default_generator, device, dtype, layout, memory_format,
    uint8, int8, int16, short, int32, int, int64, long, float16, half, float32, float,
    float64, double, complex64, cfloat, complex128, cdouble, bool, bfloat16,
    strided, sparse_coo, sparse_csr, sparse_csc, contiguous_format, preserve_format, channels_last,
    channels_last_3d, get_default_dtype, set_default_dtype, get_num_threads,
    set_num_threads, from_numpy, from_dlpack,
)
from ember._tensor import Tensor, _install_operators

_C._set_tensor_class(Tensor)

# The generated functions of native_functions.yaml: ember.zeros, ember.randn, ...
for _name in dir(_C._functions):
    if not _name.startswith("__"):
        globals()[_name] = getattr(_C._functions, _name)
del _name
_install_operators(Tensor)

from ember.functional import (  # noqa: E402,F401
    atleast_1d, atleast_2d, atleast_3d, cartesian_prod, einsum, meshgrid, nonzero, split,
    tensordot, unique,
    unique_consecutive,
)
from ember._creation import (  # noqa: E402,F401
    allclose, as_tensor, equal, initial_seed, is_floating_point, is_complex, is_tensor,
    manual_seed, numel, seed, set_printoptions, tensor,
)
from ember import autograd, backends, cpu, errors, fft, linalg, nn, ops, special, testing  # noqa: E402,F401
from ember import distributions, optim, utils  # noqa: E402,F401
from ember.serialization import load, save  # noqa: E402,F401
from ember import _linalg_aliases  # noqa: E402
from ember._linalg_aliases import cholesky, det, inverse, pinverse, qr, slogdet, svd  # noqa: E402,F401
from ember.nn.functional import (  # noqa: E402,F401
    conv1d, conv2d, conv3d, conv_transpose1d, conv_transpose2d, conv_transpose3d,
)
from ember.autograd.grad_mode import (  # noqa: E402,F401
    enable_grad, inference_mode, is_grad_enabled, is_inference_mode_enabled, no_grad,
    set_grad_enabled,
)

from ember import accelerator, amp, cuda, distributed, func, hub, jit, onnx, profiler, random, return_types  # noqa: E402,F401
from ember.func import vmap  # noqa: E402,F401
from ember import compiler  # noqa: E402,F401
from ember.compiler import compile  # noqa: E402,F401
from ember._cond import cond  # noqa: E402,F401
from ember.amp import autocast, get_autocast_dtype, is_autocast_enabled  # noqa: E402,F401
from ember.random import get_rng_state, set_rng_state  # noqa: E402,F401
from ember._float32_precision import (  # noqa: E402,F401
    get_float32_matmul_precision, set_float32_matmul_precision,
)
from ember._tensor_type import legacy_types as _legacy_types  # noqa: E402

globals().update(_legacy_types("ember", is_cuda=False))  # ember.FloatTensor, ...
cuda.__dict__.update(_legacy_types("ember.cuda", is_cuda=True))
# The ops returning several tensors return ember.return_types' named tuples (x.max(1).values).
return_types.install({"Tensor": Tensor, "ember": _sys.modules[__name__], "linalg": linalg})
# torch's alias names and the small compositions (absolute, divide, ravel, hsplit, gcd, ...).
from ember import _tensor_aliases  # noqa: E402

_tensor_aliases.install()
_linalg_aliases.install(Tensor, _sys.modules[__name__])  # cross, lu, matrix_exp, addr_, ...
# torch's remaining Tensor methods: in-place views, *_scatter, random fills, statistics, storages.
from ember import _storage, _tensor_breadth, _tensor_legacy, _tensor_stats  # noqa: E402

_tensor_breadth.install()
from ember import _sparse, sparse  # noqa: E402,F401

_sparse.install(Tensor)
_tensor_legacy.install()
_tensor_stats.install()
_storage.install()
# Window functions and stft/istft over ember.fft.
from ember import _signal  # noqa: E402

_signal.install(Tensor)
_install_operators(Tensor)  # the slots of the ops the aliases added (__pos__: positive)

__version__ = "0.1.0"
