"""PyTorch's top-level linear-algebra functions (torch.inverse, torch.det, torch.svd, ...):
thin wrappers over ember.linalg, with torch's older signatures where they differ."""
from __future__ import annotations

from ember import _C
from ember import linalg as _linalg
from ember.return_types import qr as qr_result, slogdet as slogdet_result, svd as svd_result


def inverse(input):
    """The inverse of each square matrix (ember.linalg.inv)."""
    return _linalg.inv(input)


def det(input):
    """The determinant of each square matrix (ember.linalg.det)."""
    return _linalg.det(input)


def slogdet(input):
    """(sign, log|det|) of each square matrix (ember.linalg.slogdet)."""
    return slogdet_result(_linalg.slogdet(input))


def cholesky(input, upper=False):
    """The Cholesky factor L (or U = L^T when upper) of each positive-definite matrix."""
    return _linalg.cholesky(input, upper=upper)


def pinverse(input, rcond=1e-15):
    """The pseudo-inverse with singular values below rcond * the largest dropped."""
    return _linalg.pinv(input, rcond)


def svd(input, some=True, compute_uv=True):
    """torch.svd: (U, S, V) with A = U diag(S) V^T; reduced when some; without compute_uv,
    U and V are zero matrices of shapes (m, m) and (n, n)."""
    if compute_uv:
        U, S, Vh = _linalg.svd(input, full_matrices=not some)
        return svd_result((U, S, Vh.mT))
    S = _linalg.svdvals(input)
    batch, (m, n) = tuple(input.shape[:-2]), tuple(input.shape[-2:])
    U = _C._functions.zeros(batch + (m, m), dtype=input.dtype)
    V = _C._functions.zeros(batch + (n, n), dtype=input.dtype)
    return svd_result((U, S, V))


def qr(input, some=True):
    """torch.qr: the reduced QR decomposition, or the complete one when some is False."""
    return qr_result(_linalg.qr(input, "reduced" if some else "complete"))
