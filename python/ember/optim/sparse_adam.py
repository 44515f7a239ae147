"""SparseAdam: Adam for sparse gradients (waits on the sparse-tensor work; see the class)."""
from __future__ import annotations

from ember._tensor import Tensor
from ember.optim.optimizer import Optimizer, _check_betas

__all__ = ["SparseAdam"]


class SparseAdam(Optimizer):
    """torch.optim.SparseAdam's constructor; its lazy sparse update is not implemented yet.

    The arguments are validated as PyTorch validates them (ValueError), and then the
    constructor raises NotImplementedError: the update needs sparse gradient support
    (coalesce, sparse_mask), which belongs to the Sparse issue.
    """

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, maximize=False):
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 < lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 < eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        _check_betas(betas)
        raise NotImplementedError(
            "SparseAdam(): not implemented yet; its sparse-gradient update is deferred to the "
            "Sparse issue. Use Adam (dense gradients) until then.")

    def step(self, closure=None):
        """Not reachable: construction raises NotImplementedError."""
        raise NotImplementedError("SparseAdam.step(): deferred to the Sparse issue")
