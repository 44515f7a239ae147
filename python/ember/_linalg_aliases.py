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


# ---- torch's older names of linalg ops, and the linalg-flavoured Tensor methods ----------------

def _ember():
    import ember
    return ember


def _broadcast_shapes(a, b):
    n = max(len(a), len(b))
    a, b = (1,) * (n - len(a)) + tuple(a), (1,) * (n - len(b)) + tuple(b)
    if any(x != y and 1 not in (x, y) for x, y in zip(a, b)):
        raise RuntimeError(f"the shapes {a} and {b} do not broadcast")
    return tuple(y if x == 1 else x for x, y in zip(a, b))


def matrix_exp(input):
    """exp of each square matrix (ember.linalg.matrix_exp)."""
    return _linalg.matrix_exp(input)


def matrix_power(input, n):
    """input^n of each square matrix (ember.linalg.matrix_power)."""
    return _linalg.matrix_power(input, n)


def cross(input, other, dim=None):
    """torch.cross: the cross product along dim; without dim, along the first dim of size 3
    (after broadcasting)."""
    if dim is None:
        shape = _broadcast_shapes(input.shape, other.shape)
        sizes3 = [i for i, s in enumerate(shape) if s == 3]
        if not sizes3:
            raise RuntimeError(f"cross(): no dimension of size 3 in the broadcast shape {tuple(shape)}")
        dim = sizes3[0]
        input, other = input.expand(shape), other.expand(shape)
    elif input.dim() == other.dim():
        shape = _broadcast_shapes(input.shape, other.shape)
        input, other = input.expand(shape), other.expand(shape)
    return _linalg.cross(input, other, dim=dim)


def cholesky_solve(input, input2, upper=False):
    """X with A X = input for A = L L^H (input2 = L) or U^H U (upper, input2 = U)."""
    if input.dim() < 2 or input2.dim() < 2:
        raise RuntimeError(f"cholesky_solve(): expected 'input' and 'input2' to have at least 2 dimensions, "
                           f"but got {input.dim()}-d and {input2.dim()}-d tensors")
    if input.dtype != input2.dtype:
        raise RuntimeError(f"cholesky_solve(): expected 'input' and 'input2' to have the same dtype, but got "
                           f"{input.dtype} and {input2.dtype}")
    F = input2
    FH = F.mH if F.is_complex() else F.mT
    lower, higher = (FH, F) if upper else (F, FH)
    Y = _linalg.solve_triangular(lower, input, upper=False)
    return _linalg.solve_triangular(higher, Y, upper=True)


def cholesky_inverse(input, upper=False):
    """The inverse of A = L L^H (input = L) or U^H U (upper, input = U), from its Cholesky factor."""
    if input.dim() < 2 or input.shape[-1] != input.shape[-2]:
        raise RuntimeError(f"cholesky_inverse(): expected 'input' to be a batch of square matrices, but got "
                           f"shape {tuple(input.shape)}")
    e = _ember()
    eye = e.eye(input.shape[-1], dtype=input.dtype).expand(tuple(input.shape))
    return cholesky_solve(eye, input, upper)


def triangular_solve(input, A, upper=True, transpose=False, unitriangular=False):
    """torch.triangular_solve: (X with op(A) X = input, A's clone) where op is the transpose when
    transpose."""
    from ember.return_types import triangular_solve as result_type
    if input.dim() < 2 or A.dim() < 2:
        raise RuntimeError(f"triangular_solve(): expected 'input' and 'A' to have at least 2 dimensions, "
                           f"but got {input.dim()}-d and {A.dim()}-d tensors")
    if input.dtype != A.dtype:
        raise RuntimeError(f"triangular_solve(): expected 'input' and 'A' to have the same dtype, but got "
                           f"{input.dtype} and {A.dtype}")
    batch = _broadcast_shapes(input.shape[:-2], A.shape[:-2])
    At = A.mT if transpose else A
    X = _linalg.solve_triangular(At, input, upper=upper != transpose, unitriangular=unitriangular)
    return result_type((X, A.expand(tuple(batch) + tuple(A.shape[-2:])).clone()))


def lu(A, pivot=True, get_infos=False):
    """torch.lu: (LU, pivots) or (LU, pivots, infos); raises for a singular A unless get_infos."""
    if get_infos:
        return tuple(_linalg.lu_factor_ex(A, pivot=pivot))
    return tuple(_linalg.lu_factor(A, pivot=pivot))


def lu_solve(b, LU_data, LU_pivots):
    """torch.lu_solve: X with A X = b for A given by lu (ember.linalg.lu_solve)."""
    return _linalg.lu_solve(LU_data, LU_pivots, b)


def orgqr(input, tau):
    """Q's first n columns from geqrf's reflectors (ember.linalg.householder_product)."""
    return _linalg.householder_product(input, tau)


def ormqr(input, tau, other, left=True, transpose=False):
    """Q other, Q^H other, other Q or other Q^H for geqrf's Q (ember.linalg.ormqr)."""
    return _linalg.ormqr(input, tau, other, left, transpose)


def chain_matmul(*matrices):
    """The product of a chain of matrices (ember.linalg.multi_dot); one matrix is returned as is."""
    if len(matrices) == 1:
        return matrices[0].clone()
    return _linalg.multi_dot(matrices)


def addr(input, vec1, vec2, *, beta=1, alpha=1):
    """beta * input + alpha * outer(vec1, vec2) (input ignored where beta is 0)."""
    e = _ember()
    if vec1.dim() != 1 or vec2.dim() != 1:
        raise RuntimeError(f"addr(): expected 'vec1' and 'vec2' to be 1-D, but got {vec1.dim()}-D and "
                           f"{vec2.dim()}-D")
    product = e.outer(vec1, vec2)
    if alpha != 1:
        product = product * alpha
    if beta == 0:  # input's values are ignored (NaN too); its shape and dtype still count
        return product + _ember().zeros_like(input)
    return (input if beta == 1 else input * beta) + product


def vander(x, N=None, increasing=False):
    """torch.vander: the powers of a 1-D x in columns, decreasing (x^(N-1) first) unless increasing;
    integer and bool inputs give int64."""
    e = _ember()
    if x.dim() != 1:
        raise RuntimeError(f"vander(): expected 'x' to be a one-dimensional tensor, but got {x.dim()}-D")
    n = x.shape[0] if N is None else N
    if n < 0:
        raise RuntimeError(f"vander(): expected 'N' to be non-negative, but got {n}")
    if not (x.is_floating_point() or x.is_complex()):
        x = x.to(e.int64)
    if n == 0:
        return e.empty((x.shape[0], 0), dtype=x.dtype)
    columns = [e.ones((x.shape[0], 1), dtype=x.dtype)]
    if n > 1:
        columns.append(x.unsqueeze(-1).expand((x.shape[0], n - 1)).cumprod(-1))
    result = e.cat(columns, -1)
    return result if increasing else result.flip(-1)


def nuclear_norm(input, dim=None, keepdim=False):
    """The nuclear norm over dim (the last two dims by default): linalg.matrix_norm(input, 'nuc')."""
    if isinstance(dim, bool):  # nuclear_norm(input, keepdim)
        dim, keepdim = None, dim
    return _linalg.matrix_norm(input, "nuc", (-2, -1) if dim is None else tuple(dim), keepdim)


# name -> (Tensor method, torch-level function)
FUNCTIONS = {"matrix_exp": matrix_exp, "matrix_power": matrix_power, "cross": cross,
             "cholesky_solve": cholesky_solve, "cholesky_inverse": cholesky_inverse,
             "triangular_solve": triangular_solve, "lu": lu, "lu_solve": lu_solve, "orgqr": orgqr,
             "ormqr": ormqr, "addr": addr}


def _addr_(self, vec1, vec2, *, beta=1, alpha=1):
    return self.copy_(addr(self, vec1, vec2, beta=beta, alpha=alpha))


def _addbmm_(self, batch1, batch2, *, beta=1, alpha=1):
    return self.copy_(_ember().addbmm(self, batch1, batch2, beta=beta, alpha=alpha))


def _addmv_(self, mat, vec, *, beta=1, alpha=1):
    return self.copy_(_ember().addmv(self, mat, vec, beta=beta, alpha=alpha))


def install(Tensor, ember):
    """Adds FUNCTIONS to ember (where missing) and as Tensor methods, and the in-place addr_,
    addbmm_ and addmv_."""
    for name, fn in FUNCTIONS.items():
        if not hasattr(ember, name):
            setattr(ember, name, fn)
        if not hasattr(Tensor, name):
            setattr(Tensor, name, fn)
    for name, fn in (("chain_matmul", chain_matmul), ("vander", vander), ("nuclear_norm", nuclear_norm)):
        if not hasattr(ember, name):
            setattr(ember, name, fn)
    for name, fn in (("addr_", _addr_), ("addbmm_", _addbmm_), ("addmv_", _addmv_)):
        if not hasattr(Tensor, name):
            setattr(Tensor, name, fn)
