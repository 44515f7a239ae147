"""Flattening parameters into one vector and writing a vector back into them."""
from __future__ import annotations

import ember
from ember._tensor import Tensor


def parameters_to_vector(parameters) -> Tensor:
    """Concatenates the flattened parameters into one 1-D tensor (differentiable)."""
    return ember.cat([p.reshape(-1) for p in parameters])


def vector_to_parameters(vec: Tensor, parameters) -> None:
    """Copies consecutive slices of `vec` into the parameters, in order.

    Unlike PyTorch (which rebinds each parameter's .data to a view of `vec`), the values
    are copied, so later writes to `vec` do not reach the parameters.
    """
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected ember.Tensor, but got: {type(vec).__name__}")
    pointer = 0
    with ember.no_grad():
        for param in parameters:
            num = param.numel()
            param.copy_(vec[pointer:pointer + num].view_as(param))
            pointer += num
