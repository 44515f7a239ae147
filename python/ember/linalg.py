"""ember.linalg: the operators the YAML marks `python_module: linalg` (without "linalg_"), and
torch.linalg's compositions of them, written here over ember ops (so autograd follows them):
norms, condition numbers, ranks, powers, the matrix exponential, LU/LDL conveniences,
Householder products and the tensor-shaped solvers."""
from __future__ import annotations

import math

from ember import _C as _C

for _name in dir(_C._linalg):
    if not _name.startswith("__"):
        globals()[_name] = getattr(_C._linalg, _name)
del _name

LinAlgError = _C._LinAlgError

_EPS = {"float32": 1.1920928955078125e-07, "float64": 2.220446049250313e-16}


def _ember():
    import ember
    return ember


def _rt(name, values):
    from ember import return_types
    return getattr(return_types, name)(values)


def _dtype_name(t) -> str:
    return str(t.dtype).split(".")[-1]


def _check_matrix(op, name, A, square=False, floating=True):
    if A.dim() < 2:
        raise RuntimeError(f"{op}(): expected '{name}' to have at least 2 dimensions, but got a "
                           f"{A.dim()}-d tensor")
    if square and A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"{op}(): expected '{name}' to be a batch of square matrices, but got "
                           f"shape {tuple(A.shape)}")
    if floating and not (A.is_floating_point() or A.is_complex()):
        raise RuntimeError(f"{op}(): expected '{name}' to be a floating point or complex tensor, "
                           f"but got {A.dtype}")


def _eye_like(A, n=None, m=None):
    e = _ember()
    n = A.shape[-1] if n is None else n
    return e.eye(n, n if m is None else m, dtype=A.dtype)


def _raise_singular(op, info, what):
    """Raises LinAlgError naming the first failing batch element of a nonzero int32 info."""
    flat = info.reshape(-1)
    bad = [i for i, v in enumerate(flat.tolist()) if v != 0]
    if bad:
        where = f"(batch element {bad[0]}): " if flat.numel() > 1 else ""
        code = flat[bad[0]].item()
        raise LinAlgError(f"{op}(): {where}{what.format(code=code)}")


# ---- products and simple compositions --------------------------------------------------------

def matmul(input, other):
    """The matrix product with PyTorch's rules for every rank (ember.matmul)."""
    return _ember().matmul(input, other)


def diagonal(A, *, offset=0, dim1=-2, dim2=-1):
    """The diagonal of each matrix of A (a view): Tensor.diagonal with matrix-friendly defaults."""
    return A.diagonal(offset, dim1, dim2)


def vecdot(x, y, *, dim=-1):
    """The dot product sum(conj(x) * y) over dim, with broadcasting."""
    if x.dtype != y.dtype:
        raise RuntimeError(f"linalg.vecdot(): expected 'x' and 'y' to have the same dtype, but got "
                           f"{x.dtype} and {y.dtype}")
    return (x.conj() * y).sum(dim) if x.is_complex() else (x * y).sum(dim)


def cross(input, other, *, dim=-1):
    """The cross product of 3-vectors along dim, with broadcasting."""
    if input.dim() != other.dim():
        raise RuntimeError(f"linalg.cross(): expected 'input' and 'other' to have the same number of "
                           f"dimensions, but got {input.dim()} and {other.dim()}")
    if input.dtype != other.dtype:
        raise RuntimeError(f"linalg.cross(): expected 'input' and 'other' to have the same dtype, but "
                           f"got {input.dtype} and {other.dtype}")
    if not -input.dim() <= dim < max(input.dim(), 1):
        raise IndexError(f"linalg.cross(): dim {dim} is out of range for a {input.dim()}-d tensor")
    if input.shape[dim] != 3 or other.shape[dim] != 3:
        raise RuntimeError(f"linalg.cross(): expected 'input' and 'other' to have length 3 in dim "
                           f"{dim}, but got {input.shape[dim]} and {other.shape[dim]}")
    a = [input.narrow(dim, i, 1) for i in range(3)]
    b = [other.narrow(dim, i, 1) for i in range(3)]
    parts = [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
    return _ember().cat(parts, dim)


def vander(x, *, N=None):
    """The Vandermonde matrices [1, x, x^2, ..., x^(N-1)] of each vector of x (increasing powers)."""
    e = _ember()
    if x.dim() < 1:
        raise RuntimeError("linalg.vander(): expected 'x' to have at least 1 dimension, but got a 0-d tensor")
    if x.dtype == e.bool:
        raise RuntimeError("linalg.vander(): expected 'x' to be a numeric tensor, but got ember.bool")
    n = x.shape[-1] if N is None else N
    if n <= 1:
        raise RuntimeError(f"linalg.vander(): expected 'N' to be greater than 1, but got {n}")
    ones = e.ones(tuple(x.shape) + (1,), dtype=x.dtype)
    powers = x.unsqueeze(-1).expand(tuple(x.shape) + (n - 1,)).cumprod(-1)
    return e.cat([ones, powers], -1)


def multi_dot(tensors):
    """The product of a chain of matrices (the first and last may be vectors), multiplied in the
    order that needs the fewest scalar products."""
    e = _ember()
    tensors = list(tensors)
    k = len(tensors)
    if k < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors, but got {k}")
    for i, t in enumerate(tensors):
        allowed = (1, 2) if i in (0, k - 1) else (2,)
        if t.dim() not in allowed:
            raise RuntimeError(f"multi_dot(): expected tensor {i} to be {' or '.join(f'{d}-D' for d in allowed)}, "
                               f"but got {t.dim()}-D")
        if t.dtype != tensors[0].dtype:
            raise RuntimeError(f"multi_dot(): expected every tensor to have the same dtype, but tensor 0 is "
                               f"{tensors[0].dtype} and tensor {i} is {t.dtype}")
    first_vec, last_vec = tensors[0].dim() == 1, tensors[-1].dim() == 1
    mats = list(tensors)
    if first_vec:
        mats[0] = mats[0].unsqueeze(0)
    if last_vec:
        mats[-1] = mats[-1].unsqueeze(-1)
    for i in range(k - 1):
        if mats[i].shape[1] != mats[i + 1].shape[0]:
            raise RuntimeError(f"multi_dot(): tensors {i} and {i + 1} with shapes {tuple(tensors[i].shape)} "
                               f"and {tuple(tensors[i + 1].shape)} cannot be multiplied")
    dims = [m.shape[0] for m in mats] + [mats[-1].shape[1]]
    # The classic matrix-chain order (cost[i][j]: cheapest product of mats[i..j]).
    cost = [[0] * k for _ in range(k)]
    split = [[0] * k for _ in range(k)]
    for length in range(1, k):
        for i in range(k - length):
            j = i + length
            cost[i][j] = math.inf
            for s in range(i, j):
                c = cost[i][s] + cost[s + 1][j] + dims[i] * dims[s + 1] * dims[j + 1]
                if c < cost[i][j]:
                    cost[i][j], split[i][j] = c, s

    def product(i, j):
        if i == j:
            return mats[i]
        s = split[i][j]
        return e.mm(product(i, s), product(s + 1, j))

    result = product(0, k - 1)
    if first_vec and last_vec:
        return result.reshape(())
    if first_vec:
        return result.squeeze(0)
    if last_vec:
        return result.squeeze(-1)
    return result


def matrix_power(A, n):
    """A^n for each square matrix of A (n < 0: the inverse's power; n = 0: the identity)."""
    e = _ember()
    if A.dim() < 2 or A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"linalg.matrix_power(): expected 'A' to be a batch of square matrices, but got "
                           f"shape {tuple(A.shape)}")
    if not isinstance(n, int) or isinstance(n, bool):
        raise TypeError(f"linalg.matrix_power(): expected 'n' to be an int, but got {type(n).__name__}")
    if n == 0:  # a copy of A overwritten, as torch's: it requires grad (a zero one) where A does
        return A.clone().copy_(_eye_like(A).expand(tuple(A.shape)))
    if n < 0:
        A, n = inv(A), -n
    result, z = None, A
    while n:
        if n & 1:
            result = z if result is None else e.matmul(result, z)
        n >>= 1
        if n:
            z = e.matmul(z, z)
    return result


# Padé [13/13] coefficients of exp and the 1-norm under which it is accurate to double
# rounding (Higham, "The scaling and squaring method for the matrix exponential revisited", 2005).
_PADE13 = (64764752532480000.0, 32382376266240000.0, 7771770303897600.0, 1187353796428800.0,
           129060195264000.0, 10559470521600.0, 670442572800.0, 33522128640.0, 1323241920.0,
           40840800.0, 960960.0, 16380.0, 182.0, 1.0)
_THETA13 = 5.371920351148152


def matrix_exp(A):
    """exp(A) of each square matrix: Padé [13/13] with scaling and squaring."""
    e = _ember()
    _check_matrix("linalg.matrix_exp", "A", A, square=True)
    if A.numel() == 0:
        return A.clone()
    b = _PADE13
    with e.no_grad():
        norms = A.abs().sum(-2).amax(-1)  # the 1-norm of each matrix
        steps = [max(0, math.ceil(math.log2(v / _THETA13))) if v > _THETA13 else 0
                 for v in norms.reshape(-1).tolist()]
    batch = tuple(A.shape[:-2])
    s = e.tensor(steps, dtype=A.dtype if not A.is_complex() else e.float64).reshape(batch + (1, 1))
    X = A * e.pow(2.0, -s).to(A.dtype)
    eye = _eye_like(A)
    X2 = e.matmul(X, X)
    X4 = e.matmul(X2, X2)
    X6 = e.matmul(X4, X2)
    U = e.matmul(X, e.matmul(X6, b[13] * X6 + b[11] * X4 + b[9] * X2)
                 + b[7] * X6 + b[5] * X4 + b[3] * X2 + b[1] * eye)
    V = e.matmul(X6, b[12] * X6 + b[10] * X4 + b[8] * X2) + b[6] * X6 + b[4] * X4 + b[2] * X2 + b[0] * eye
    R = solve(V - U, V + U)
    most = max(steps)
    for step in range(most):
        squared = e.matmul(R, R)
        R = squared if all(v > step for v in steps) else e.where(s > step, squared, R)
    return R


# ---- norms, condition numbers, rank ------------------------------------------------------------

def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None):
    """A vector norm (dim an int, or A 1-D) or a matrix norm (dim a pair, or A 2-D); the 2-norm of
    the flattened input when ord and dim are both None."""
    if isinstance(dim, int):
        dim = (dim,)
    if dim is not None:
        dim = tuple(dim)
    if ord is None:
        if dim is not None and len(dim) == 2:
            return matrix_norm(A, "fro", dim, keepdim, dtype=dtype)
        return vector_norm(A, 2, dim, keepdim, dtype=dtype)
    if dim is None:
        if A.dim() not in (1, 2):
            raise RuntimeError(f"linalg.norm(): expected 'A' to be 1-D or 2-D when 'ord' is given without "
                               f"'dim', but got a {A.dim()}-D tensor")
        dim = tuple(range(A.dim()))
    if len(dim) == 1:
        if isinstance(ord, str):
            raise RuntimeError(f"linalg.norm(): ord '{ord}' is a matrix norm: pass a 2-tuple 'dim' or a 2-D input")
        return vector_norm(A, ord, dim, keepdim, dtype=dtype)
    if len(dim) == 2:
        return matrix_norm(A, ord, dim, keepdim, dtype=dtype)
    raise RuntimeError(f"linalg.norm(): expected 'dim' to have 1 or 2 dimensions, but got {len(dim)}")


def cond(A, p=None):
    """The condition number of each matrix in the p-norm: the ratio of extreme singular values for
    p in (None, 2, -2), else norm(A, p) * norm(inv(A), p) (inf where A is singular)."""
    e = _ember()
    _check_matrix("linalg.cond", "A", A)
    if p is None or p in (2, -2):
        if A.numel() == 0:
            return e.zeros(tuple(A.shape[:-2]), dtype=A.dtype)
        S = svdvals(A)
        hi, lo = S.narrow(-1, 0, 1).squeeze(-1), S.narrow(-1, S.shape[-1] - 1, 1).squeeze(-1)
        return hi / lo if p != -2 else lo / hi
    if p not in ("fro", "nuc", 1, -1, math.inf, -math.inf):
        raise RuntimeError(f"linalg.cond(): expected 'p' to be None, 'fro', 'nuc', 1, -1, 2, -2, inf or -inf, "
                           f"but got {p!r}")
    _check_matrix("linalg.cond", "A", A, square=True)
    if A.numel() == 0:
        return e.zeros(tuple(A.shape[:-2]), dtype=A.dtype)
    inverse, info = inv_ex(A)
    singular = info != 0
    if bool(singular.any()):
        inverse = e.where(singular.unsqueeze(-1).unsqueeze(-1), e.zeros_like(inverse), inverse)
    result = matrix_norm(A, p) * matrix_norm(inverse, p)
    return e.where(singular, e.full_like(result, math.inf), result)


def matrix_rank(A, tol=None, hermitian=False, *, atol=None, rtol=None):
    """The number of singular values above max(atol, rtol * the largest) of each matrix (int64).
    rtol defaults to eps * max(m, n), or to 0 where only a positive atol is given; the older
    positional tol is atol with rtol 0."""
    e = _ember()
    _check_matrix("linalg.matrix_rank", "A", A)
    if tol is not None:
        if atol is not None or rtol is not None:
            raise RuntimeError("linalg.matrix_rank(): pass either 'tol' or 'atol'/'rtol', not both")
        atol, rtol = tol, 0.0
    S = eigvalsh(A).abs() if hermitian else svdvals(A)
    real = "float64" if _dtype_name(S) == "float64" else "float32"
    if rtol is None:
        atol_positive = atol is not None and (not isinstance(atol, (int, float)) or atol > 0)
        rtol = 0.0 if atol_positive else _EPS[real] * max(A.shape[-2], A.shape[-1])
    atol = 0.0 if atol is None else atol
    if S.shape[-1] == 0:
        return e.zeros(tuple(A.shape[:-2]), dtype=e.int64)
    largest = S.amax(-1, keepdim=True)
    atol_t = atol.unsqueeze(-1) if isinstance(atol, e.Tensor) and atol.dim() > 0 else atol
    rtol_t = rtol.unsqueeze(-1) if isinstance(rtol, e.Tensor) and rtol.dim() > 0 else rtol
    threshold = e.maximum(e.zeros_like(largest) + atol_t, largest * rtol_t)
    return (S > threshold).sum(-1).to(e.int64)


# ---- factorizations and their solvers -----------------------------------------------------------

def _is_vector_rhs(A, B):
    return B.dim() == 1 or (B.dim() == A.dim() - 1 and tuple(B.shape) == tuple(A.shape[:-1]))


def lu_factor(A, *, pivot=True):
    """The packed LU factors and pivots of each matrix (lu_factor_ex), raising where U has a zero
    on its diagonal."""
    LU, pivots, info = lu_factor_ex(A, pivot=pivot)
    _raise_singular("linalg.lu_factor", info, "U[{code},{code}] is zero and using it on lu_solve would "
                    "result in a division by zero; use linalg.lu or linalg.lu_factor_ex to factor it anyway")
    return _rt("linalg_lu_factor", (LU, pivots))


def lu(A, *, pivot=True):
    """P, L (unit lower) and U with A = P L U of each matrix (any shape)."""
    LU, pivots, _ = lu_factor_ex(A, pivot=pivot)
    return _rt("linalg_lu", tuple(_ember().lu_unpack(LU, pivots)))


def lu_solve(LU, pivots, B, *, left=True, adjoint=False):
    """X with A X = B (or X A = B where not left; A^H for adjoint) for A given by lu_factor."""
    e = _ember()
    _check_matrix("linalg.lu_solve", "LU", LU, square=True)
    if B.dim() < 2:
        raise RuntimeError(f"linalg.lu_solve(): expected 'B' to have at least 2 dimensions, but got a "
                           f"{B.dim()}-d tensor")
    if B.dtype != LU.dtype:
        raise RuntimeError(f"linalg.lu_solve(): expected 'LU' and 'B' to have the same dtype, but got "
                           f"{LU.dtype} and {B.dtype}")
    n = LU.shape[-1]
    if B.shape[-2 if left else -1] != n:
        raise RuntimeError(f"linalg.lu_solve(): incompatible shapes of LU {tuple(LU.shape)} and B "
                           f"{tuple(B.shape)} for the equation {'AX = B' if left else 'XA = B'}")
    if not left:  # X A = B is A^H X^H = B^H (and X A^H = B is A X^H = B^H)
        X = lu_solve(LU, pivots, B.mH if B.is_complex() else B.mT, adjoint=not adjoint)
        return X.mH if X.is_complex() else X.mT
    P, L, U = e.lu_unpack(LU, pivots)
    if not adjoint:  # A = P L U: X = U^-1 L^-1 P^T B
        Y = solve_triangular(L, e.matmul(P.mT, B), upper=False, unitriangular=True)
        return solve_triangular(U, Y, upper=True)
    # A^H = U^H L^H P^T: X = P L^-H U^-H B
    UH, LH = (U.mH, L.mH) if U.is_complex() else (U.mT, L.mT)
    Y = solve_triangular(UH, B, upper=False)
    return e.matmul(P, solve_triangular(LH, Y, upper=True, unitriangular=True))


def inv_ex(A, *, check_errors=False):
    """The inverse of each square matrix and each one's LU info (0: invertible); raises only when
    check_errors."""
    _check_matrix("linalg.inv_ex", "A", A, square=True)
    LU, pivots, info = lu_factor_ex(A)
    if check_errors:
        _raise_singular("linalg.inv_ex", info, "the diagonal element {code} is zero, the inversion could "
                        "not be completed because the input matrix is singular")
    if A.numel() == 0 or not bool(info.any()):
        inverse = inv(A)
    else:
        inverse = lu_solve(LU, pivots, _eye_like(A).expand(tuple(A.shape)))
    return _rt("linalg_inv_ex", (inverse, info))


def solve_ex(A, B, *, left=True, check_errors=False):
    """linalg.solve's X and each matrix's LU info (0: A invertible); raises only when check_errors."""
    _check_matrix("linalg.solve_ex", "A", A, square=True)
    LU, pivots, info = lu_factor_ex(A)
    if check_errors:
        _raise_singular("linalg.solve_ex", info, "the solver failed because the input matrix is singular")
    if A.numel() == 0 or not bool(info.any()):
        result = solve(A, B, left=left)
    else:
        vector = _is_vector_rhs(A, B)
        Bm = B.unsqueeze(-1) if vector else B
        result = lu_solve(LU, pivots, Bm, left=left)
        result = result.squeeze(-1) if vector else result
    return _rt("linalg_solve_ex", (result, info))


def ldl_factor(A, *, hermitian=False):
    """The compact LDL^T factors and pivots of each symmetric matrix (ldl_factor_ex), raising where
    the factorization fails."""
    LD, pivots, info = ldl_factor_ex(A, hermitian=hermitian)
    _raise_singular("linalg.ldl_factor", info, "the factorization could not be completed because "
                    "D[{code},{code}] is zero")
    return _rt("linalg_ldl_factor", (LD, pivots))


def eigvals(A):
    """The complex eigenvalues of each square matrix (linalg.eig's first result)."""
    return eig(A)[0]


# ---- Householder products -----------------------------------------------------------------------

def _reflectors(op, A, tau, order):
    """The unit-lower Householder vectors (columns) of A's first tau.shape[-1] columns."""
    e = _ember()
    _check_matrix(op, "input", A)
    if tau.dtype != A.dtype:
        raise RuntimeError(f"{op}(): expected 'input' and 'tau' to have the same dtype, but got {A.dtype} "
                           f"and {tau.dtype}")
    if tuple(tau.shape[:-1]) != tuple(A.shape[:-2]) or tau.dim() != A.dim() - 1:
        raise RuntimeError(f"{op}(): expected the batch dimensions of 'tau' {tuple(tau.shape)} to equal "
                           f"those of 'input' {tuple(A.shape)}")
    m, k = A.shape[-2], tau.shape[-1]
    if k > A.shape[-1] or k > order:
        raise RuntimeError(f"{op}(): expected tau.shape[-1] ({k}) to be at most input.shape[-1] "
                           f"({A.shape[-1]}) and the order of Q ({order})")
    if m != order:
        raise RuntimeError(f"{op}(): expected 'input' to have {order} rows (the order of Q), but got {m}")
    return e.tril(A.narrow(-1, 0, k), -1) + e.eye(m, k, dtype=A.dtype)


def _apply_reflector(C, v, t, left, conj):
    """H C (left) or C H with H = I - t v v^H (conj: t's conjugate, for H^H)."""
    e = _ember()
    t = t.conj() if conj and t.is_complex() else t
    vh = v.mH if v.is_complex() else v.mT
    if left:
        return C - e.matmul(v, e.matmul(vh, C)) * t
    return C - e.matmul(e.matmul(C, v), vh) * t


def ormqr(input, tau, other, left=True, transpose=False):
    """Q C, Q^H C, C Q or C Q^H for the Q = H_1 ... H_k of geqrf's packed reflectors and tau."""
    if other.dim() < 2:
        raise RuntimeError(f"ormqr(): expected 'other' to have at least 2 dimensions, but got a "
                           f"{other.dim()}-d tensor")
    if other.dtype != input.dtype:
        raise RuntimeError(f"ormqr(): expected 'input' and 'other' to have the same dtype, but got "
                           f"{input.dtype} and {other.dtype}")
    order = other.shape[-2] if left else other.shape[-1]
    V = _reflectors("ormqr", input, tau, order)
    k = tau.shape[-1]
    # Q C = H_1 (H_2 (... H_k C)); Q^H C = H_k^H (... H_1^H C); C Q = ((C H_1) H_2) ...
    forward = left == transpose
    C = other
    for i in (range(k) if forward else reversed(range(k))):
        v = V.narrow(-1, i, 1)
        t = tau.narrow(-1, i, 1).unsqueeze(-1)
        C = _apply_reflector(C, v, t, left, conj=transpose)
    return C


def householder_product(A, tau):
    """The first n columns of Q = H_1 ... H_k for the Householder vectors in A's columns (orgqr)."""
    _check_matrix("linalg.householder_product", "A", A)
    m, n = A.shape[-2], A.shape[-1]
    if n > m:
        raise RuntimeError(f"linalg.householder_product(): expected 'A' to have at least as many rows as "
                           f"columns, but got shape {tuple(A.shape)}")
    eye = _eye_like(A, m, n).expand(tuple(A.shape[:-2]) + (m, n))
    return ormqr(A, tau, eye)


# ---- tensor-shaped solvers ----------------------------------------------------------------------

def tensorinv(A, ind=2):
    """The inverse of A seen as a map from its trailing dims to its leading ind dims, shaped
    A.shape[ind:] + A.shape[:ind]."""
    if not isinstance(ind, int) or ind <= 0:
        raise RuntimeError(f"linalg.tensorinv(): expected 'ind' to be a positive integer, but got {ind}")
    rows, cols = tuple(A.shape[:ind]), tuple(A.shape[ind:])
    if math.prod(rows) != math.prod(cols):
        raise RuntimeError(f"linalg.tensorinv(): expected prod(A.shape[ind:]) == prod(A.shape[:ind]), but "
                           f"got {math.prod(cols)} != {math.prod(rows)}")
    inverse, info = inv_ex(A.reshape(math.prod(rows), math.prod(cols)))
    _raise_singular("linalg.tensorinv", info, "failed to invert the input tensor, because it is singular")
    return inverse.reshape(cols + rows)


def tensorsolve(A, B, dims=None):
    """X with tensordot(A, X, X.ndim) = B; dims are A's dims moved to the end first."""
    if dims is not None:
        dims = [d % A.dim() for d in dims]
        A = A.movedim(dims, list(range(A.dim() - len(dims), A.dim())))
    rows, cols = tuple(A.shape[:B.dim()]), tuple(A.shape[B.dim():])
    if math.prod(rows) != math.prod(cols) or tuple(B.shape) != rows:
        raise RuntimeError(f"linalg.tensorsolve(): expected A.shape[:B.ndim] {rows} to equal B's shape "
                           f"{tuple(B.shape)}, with as many elements as A.shape[B.ndim:] {cols}")
    X = solve(A.reshape(math.prod(rows), math.prod(cols)), B.reshape(math.prod(rows)))
    return X.reshape(cols)
