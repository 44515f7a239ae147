"""ember.nn.functional's Python-level wrappers (inplace=, PyTorch's defaults) against
torch.nn.functional; the operators under them are checked by the op table."""
import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import ember
import ember.nn.functional as F

VALUES = np.array([[-3.5, -1.0, -0.25, 0.0], [0.5, 1.25, 3.0, 7.0]], dtype=np.float32)

CALLS = [
    ("relu", {}), ("relu6", {}), ("hardtanh", {}), ("hardtanh", {"min_val": -0.5, "max_val": 2.0}),
    ("elu", {}), ("elu", {"alpha": 0.5}), ("selu", {}), ("celu", {"alpha": 2.0}),
    ("leaky_relu", {}), ("leaky_relu", {"negative_slope": 0.2}), ("silu", {}), ("mish", {}),
    ("hardswish", {}), ("hardsigmoid", {}), ("gelu", {}), ("gelu", {"approximate": "tanh"}),
    ("softplus", {}), ("softplus", {"beta": 2.0, "threshold": 1.0}), ("sigmoid", {}), ("tanh", {}),
]


@pytest.mark.parametrize("name,kwargs", CALLS, ids=[f"{n}{sorted(k.items())}" for n, k in CALLS])
def test_functional_matches_torch(name, kwargs):
    expected = getattr(TF, name)(torch.from_numpy(VALUES.copy()), **kwargs)
    actual = getattr(F, name)(ember.from_numpy(VALUES.copy()), **kwargs)
    np.testing.assert_allclose(actual.numpy(), expected.numpy(), rtol=1.3e-6, atol=1e-5)


INPLACE = [n for n, k in CALLS if not k and n not in ("gelu", "softplus", "sigmoid", "tanh")]


@pytest.mark.parametrize("name", INPLACE)
def test_inplace_returns_input(name):
    x = ember.from_numpy(VALUES.copy())
    out = getattr(F, name)(x, inplace=True)
    assert out is x
    expected = getattr(TF, name)(torch.from_numpy(VALUES.copy()))
    np.testing.assert_allclose(x.numpy(), expected.numpy(), rtol=1.3e-6, atol=1e-5)


def test_gelu_rejects_an_unknown_approximation():
    with pytest.raises(ValueError, match="approximate"):
        F.gelu(ember.from_numpy(VALUES.copy()), approximate="fast")
