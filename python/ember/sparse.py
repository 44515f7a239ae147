"""ember.sparse, as torch.sparse: mm, addmm, sum, softmax, log_softmax, sampled_addmm, the
legacy constructors ember.sparse.FloatTensor & co. (ember/_tensor_type.py), and from_scipy /
to_scipy (scipy.sparse interop, which torch lacks). The constructors and the Tensor methods of
sparse tensors are in ember/_sparse.py; the kernels under aten/native/sparse/ (the coverage
table is the build's generated/sparse.md)."""
import ember
from ember._tensor_type import legacy_types as _legacy_types

globals().update(_legacy_types("ember.sparse", is_cuda=False, is_sparse=True))

__all__ = ["mm", "addmm", "sum", "softmax", "log_softmax", "sampled_addmm", "densify_fallback", "from_scipy",
           "to_scipy"]


class densify_fallback:
    """Within this context (on this thread), an op with no kernel for a sparse layout runs on
    the dense forms of its sparse arguments, with a UserWarning naming the op, instead of
    raising NotImplementedError. Its result is dense; ops that write a sparse argument still
    raise. Usable as a decorator too."""

    def __enter__(self):
        self._prev = ember._C._get_sparse_densify_fallback()
        ember._C._set_sparse_densify_fallback(True)
        return self

    def __exit__(self, *exc):
        ember._C._set_sparse_densify_fallback(self._prev)
        return False

    def __call__(self, fn):
        import functools

        @functools.wraps(fn)
        def wrapped(*args, **kwargs):
            with densify_fallback():
                return fn(*args, **kwargs)
        return wrapped


def mm(mat1, mat2, reduce=None):
    """mat1 @ mat2 with mat1 or both sparse: dense for sparse @ dense, sparse for sparse @ sparse."""
    if reduce not in (None, "sum"):
        raise NotImplementedError(f"sparse.mm(): reduce={reduce!r} is not supported; 'sum' (the default) is")
    return ember.mm(mat1, mat2)


def addmm(mat, mat1, mat2, *, beta=1, alpha=1):
    """beta * mat + alpha * (mat1 @ mat2), mat1 sparse."""
    return ember.addmm(mat, mat1, mat2, beta=beta, alpha=alpha)


def sum(input, dim=None, dtype=None):  # noqa: A001 (torch.sparse.sum)
    """The sum of a sparse tensor over dim (all dims by default): dense when every sparse dim
    is summed, sparse otherwise."""
    if dim is None:
        return ember.sum(input, dtype=dtype)
    return ember.sum(input, dim, dtype=dtype)


def softmax(input, dim, *, dtype=None):
    """The softmax over dim of the specified entries only (unspecified ones count as -inf, so
    they stay unspecified): a sparse tensor of input's pattern."""
    if input.layout == ember.strided:
        return ember.softmax(input, dim, dtype=dtype)
    coo = input if input.layout == ember.sparse_coo else input.to_sparse()
    out = ember._sparse_softmax(coo, dim, dtype)
    return out if input.layout == ember.sparse_coo else out.to_sparse(layout=input.layout)


def log_softmax(input, dim, *, dtype=None):
    """log(softmax(input, dim)) over the specified entries, computed stably."""
    if input.layout == ember.strided:
        return ember.log_softmax(input, dim, dtype=dtype)
    coo = input if input.layout == ember.sparse_coo else input.to_sparse()
    out = ember._sparse_log_softmax(coo, dim, dtype)
    return out if input.layout == ember.sparse_coo else out.to_sparse(layout=input.layout)


def sampled_addmm(input, mat1, mat2, *, beta=1.0, alpha=1.0, out=None):
    """beta * input + alpha * (mat1 @ mat2) at input's entries only (SDDMM), input sparse CSR."""
    r = ember.sparse_sampled_addmm(input, mat1, mat2, beta=beta, alpha=alpha)
    if out is not None:
        raise NotImplementedError("sparse.sampled_addmm(): out= is not supported")
    return r


# scipy.sparse interop. torch has no such helpers (its users build from indptr/indices/data by
# hand); the conversions copy, so neither side sees the other's later writes.
_SCIPY_FORMATS = {"coo": "sparse_coo", "csr": "sparse_csr", "csc": "sparse_csc"}


def from_scipy(matrix, *, layout=None, dtype=None, requires_grad=False, check_invariants=None):
    """An Ember sparse tensor with the entries of a scipy.sparse matrix or array.

    A COO, CSR or CSC input keeps its layout (COO duplicates are kept, uncoalesced, as scipy
    keeps them); other formats (BSR, LIL, DOK, DIA) become CSR. `layout=` picks the result's
    layout instead (ember.sparse_coo, sparse_csr, sparse_csc or strided). CSR and CSC keep
    scipy's index dtype (int32 or int64); COO indices are int64, as torch's."""
    try:
        import scipy.sparse as sp
    except ImportError as e:  # pragma: no cover - scipy is in the venv
        raise ImportError("sparse.from_scipy(): needs scipy") from e
    if not sp.issparse(matrix):
        raise TypeError(f"sparse.from_scipy(): expected a scipy.sparse matrix or array, but got "
                        f"{type(matrix).__name__}")
    if matrix.ndim != 2:
        raise ValueError(f"sparse.from_scipy(): expected a 2-D scipy.sparse input, but got {matrix.ndim}-D")
    fmt = matrix.format if matrix.format in _SCIPY_FORMATS else "csr"
    if fmt != matrix.format:
        matrix = matrix.tocsr()
    shape = list(matrix.shape)
    if fmt == "coo":
        import numpy as np
        idx = np.stack([np.asarray(matrix.row, dtype=np.int64), np.asarray(matrix.col, dtype=np.int64)])
        t = ember.sparse_coo_tensor(ember.tensor(idx), ember.tensor(matrix.data, dtype=dtype), shape,
                                    check_invariants=check_invariants)
    else:
        make = ember.sparse_csr_tensor if fmt == "csr" else ember.sparse_csc_tensor
        t = make(ember.tensor(matrix.indptr), ember.tensor(matrix.indices),
                 ember.tensor(matrix.data, dtype=dtype), shape, check_invariants=check_invariants)
    if layout is not None and layout != t.layout:
        t = t.to_dense() if layout == ember.strided else t.to_sparse(layout=layout)
    return t.requires_grad_(True) if requires_grad else t


def to_scipy(tensor, format=None):  # noqa: A002 (scipy's word)
    """The scipy.sparse array (coo_array, csr_array or csc_array) with tensor's entries.

    A COO tensor gives a coo_array (its duplicates kept), CSR a csr_array, CSC a csc_array and a
    strided one a csr_array; format= ('coo', 'csr', 'csc') picks another. Only 2-D tensors
    without batch or dense dims have a scipy form."""
    import scipy.sparse as sp
    if not isinstance(tensor, ember.Tensor):
        raise TypeError(f"sparse.to_scipy(): expected a Tensor, but got {type(tensor).__name__}")
    if format is not None and format not in _SCIPY_FORMATS:
        raise ValueError(f"sparse.to_scipy(): expected format 'coo', 'csr' or 'csc', but got {format!r}")
    if tensor.dim() != 2:
        raise ValueError(f"sparse.to_scipy(): scipy.sparse holds 2-D matrices, but got a {tensor.dim()}-D tensor")
    if tensor.layout != ember.strided and tensor.dense_dim() != 0:
        raise ValueError(f"sparse.to_scipy(): scipy.sparse has no dense dims, but the tensor has "
                         f"dense_dim {tensor.dense_dim()}; convert with .to_dense() first")
    if tensor.dtype == ember.bfloat16:
        raise TypeError("sparse.to_scipy(): scipy has no bfloat16; convert with .float() first")
    t = tensor.detach()
    if t.layout == ember.strided:
        t = t.to_sparse_csr()
    shape = tuple(t.shape)
    if t.layout == ember.sparse_coo:
        idx = t._indices().numpy()
        out = sp.coo_array((t._values().numpy().copy(), (idx[0].copy(), idx[1].copy())), shape=shape)
    elif t.layout == ember.sparse_csr:
        out = sp.csr_array((t.values().numpy().copy(), t.col_indices().numpy().copy(),
                            t.crow_indices().numpy().copy()), shape=shape)
    else:
        out = sp.csc_array((t.values().numpy().copy(), t.row_indices().numpy().copy(),
                            t.ccol_indices().numpy().copy()), shape=shape)
    return out if format is None or format == out.format else out.asformat(format)
