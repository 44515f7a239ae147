"""Sparse tensors from Python: torch.sparse_coo_tensor, sparse_csr_tensor, sparse_csc_tensor,
sparse_compressed_tensor and the Tensor methods of torch.sparse (to_sparse, to_sparse_csr,
to_sparse_csc, to_dense, indices, values, crow_indices & co., coalesce, sparse_dim,
dense_dim), over the YAML's sparse ops (native_functions.yaml, "sparse";
aten/native/sparse/). Every index is checked against the sizes when the tensor is made
(Note [Sparse invariants]); an op with no sparse kernel raises NotImplementedError naming the
op and the layout. The sparse operators and gradients are issue 24's next parts."""
from __future__ import annotations

import ember

__all__ = ["sparse_coo_tensor", "sparse_csr_tensor", "sparse_csc_tensor", "sparse_compressed_tensor"]

_COMPRESSED = None  # (sparse_csr, sparse_csc), set by install()
_VALUES = None  # the generated values() method, set by install()


def _as_tensor(x, what: str, dtype=None, op: str = "sparse_coo_tensor"):
    if isinstance(x, ember.Tensor):
        return x if dtype is None or x.dtype == dtype else x.to(dtype)
    try:
        return ember.tensor(x, dtype=dtype)
    except (TypeError, ValueError) as e:
        raise TypeError(f"{op}(): expected '{what}' to be a tensor or a sequence of "
                        f"numbers, but got {type(x).__name__}") from e


def sparse_coo_tensor(indices, values, size=None, *, dtype=None, device=None, pin_memory=False,
                      requires_grad=False, check_invariants=None, is_coalesced=None):
    """A sparse COO tensor with values at the coordinates in `indices` ([sparse_dim, nnz],
    integers) and `values` ([nnz, dense sizes...]); `size` defaults to the smallest that
    holds every coordinate. Duplicate coordinates add up (coalesce() merges them)."""
    if device is not None and ember.device(device).type != "cpu":
        raise NotImplementedError(f"sparse_coo_tensor(): sparse tensors are CPU tensors so far, "
                                  f"but got device={device!r}")
    indices = _as_tensor(indices, "indices")
    if indices.is_floating_point() or indices.is_complex() or indices.dtype == ember.bool:
        raise TypeError(f"sparse_coo_tensor(): expected integer 'indices', but got {indices.dtype}")
    indices = indices.to(ember.int64)
    values = _as_tensor(values, "values", dtype)
    if size is None:
        if indices.dim() != 2:
            raise ValueError(f"sparse_coo_tensor(): expected 'indices' of 2 dims [sparse_dim, nnz], "
                             f"but got {indices.dim()} dims")
        if indices.shape[1] > 0:
            sparse_sizes = (indices.amax(1) + 1).tolist()
        else:
            sparse_sizes = [0] * indices.shape[0]
        size = list(sparse_sizes) + list(values.shape[1:])
    else:
        size = list(ember.Size(size))
    t = ember._sparse_coo_tensor_unsafe(indices, values, size, is_coalesced=is_coalesced)
    if requires_grad:
        t.requires_grad_(True)
    if check_invariants and is_coalesced:
        c = t.coalesce() if not _really_coalesced(t) else None
        if c is not None:
            raise ValueError("sparse_coo_tensor(): is_coalesced=True, but the indices are not "
                             "sorted and unique")
    return t


def _really_coalesced(t) -> bool:
    """Whether t's coordinates are sorted (row-major) and unique."""
    idx = t._indices()
    if idx.shape[1] <= 1:
        return True
    strides = [1] * idx.shape[0]
    for d in range(idx.shape[0] - 1, 0, -1):
        strides[d - 1] = strides[d] * t.shape[d]
    lin = (idx * ember.tensor(strides).unsqueeze(1)).sum(0)
    return bool((lin[1:] > lin[:-1]).all())


def _check_coalesced(t, what: str):
    if not t.is_coalesced():
        raise RuntimeError(f"Cannot get {what} on an uncoalesced tensor, please call .coalesce() first")


_COMPRESSED_NAMES = {"sparse_csr": ("crow_indices", "col_indices"),
                     "sparse_csc": ("ccol_indices", "row_indices")}


def sparse_compressed_tensor(compressed_indices, plain_indices, values, size=None, *, dtype=None,
                             layout=None, device=None, pin_memory=False, requires_grad=False,
                             check_invariants=None, _op="sparse_compressed_tensor"):
    """A sparse CSR or CSC tensor (layout=) over compressed_indices [*batch, n + 1], plain_indices
    [*batch, nnz] (int32 or int64, the same) and values [*batch, nnz, *dense]; `size`
    defaults to the smallest that holds every plain index. Every index is checked; with
    check_invariants=True, also that the plain indices are sorted and unique along each line."""
    if layout not in _COMPRESSED:
        raise ValueError(f"{_op}(): expected layout torch.sparse_csr or torch.sparse_csc, but got {layout}")
    if device is not None and ember.device(device).type != "cpu":
        raise NotImplementedError(f"{_op}(): sparse tensors are CPU tensors so far, but got device={device!r}")
    cname, pname = _COMPRESSED_NAMES[str(layout).split(".")[-1]]
    ci = _as_tensor(compressed_indices, cname, op=_op)
    pi = _as_tensor(plain_indices, pname, op=_op)
    for what, t in ((cname, ci), (pname, pi)):
        if t.dtype not in (ember.int32, ember.int64):
            raise TypeError(f"{_op}(): expected '{what}' of dtype int32 or int64, but got {t.dtype}")
    values = _as_tensor(values, "values", dtype, op=_op)
    if size is None:
        if ci.dim() < 1 or pi.dim() != ci.dim():
            raise ValueError(f"{_op}(): expected {cname} and {pname} with the same number of dims "
                             f"(at least 1), but got {ci.dim()} and {pi.dim()}")
        batch = list(ci.shape[:-1])
        major = ci.shape[-1] - 1
        minor = int(pi.max()) + 1 if pi.numel() > 0 else 0
        pair = [major, minor] if layout == ember.sparse_csr else [minor, major]
        size = batch + pair + list(values.shape[len(batch) + 1:])
    else:
        size = list(ember.Size(size))
    t = ember._sparse_compressed_tensor_unsafe(ci, pi, values, size, layout,
                                               check_invariants=bool(check_invariants))
    return t.requires_grad_(True) if requires_grad else t


def sparse_csr_tensor(crow_indices, col_indices, values, size=None, *, dtype=None, device=None,
                      pin_memory=False, requires_grad=False, check_invariants=None):
    """A sparse CSR tensor: row i's entries are values[crow_indices[i]:crow_indices[i + 1]] at
    the columns col_indices[crow_indices[i]:crow_indices[i + 1]]."""
    return sparse_compressed_tensor(crow_indices, col_indices, values, size, dtype=dtype,
                                    layout=ember.sparse_csr, device=device, requires_grad=requires_grad,
                                    check_invariants=check_invariants, _op="sparse_csr_tensor")


def sparse_csc_tensor(ccol_indices, row_indices, values, size=None, *, dtype=None, device=None,
                      pin_memory=False, requires_grad=False, check_invariants=None):
    """A sparse CSC tensor: column j's entries are values[ccol_indices[j]:ccol_indices[j + 1]]
    at the rows row_indices[ccol_indices[j]:ccol_indices[j + 1]]."""
    return sparse_compressed_tensor(ccol_indices, row_indices, values, size, dtype=dtype,
                                    layout=ember.sparse_csc, device=device, requires_grad=requires_grad,
                                    check_invariants=check_invariants, _op="sparse_csc_tensor")


def to_sparse_csr(self, dense_dim=None):
    """self (strided, COO, CSR or CSC) as sparse CSR; a strided self's last dense_dim dims
    stay dense (0 by default), the dims before the compressed pair are batch dims."""
    return self._to_sparse_csr(dense_dim)


def to_sparse_csc(self, dense_dim=None):
    """self (strided, COO, CSR or CSC) as sparse CSC."""
    return self._to_sparse_csc(dense_dim)


def to_sparse(self, sparse_dim=None, *, layout=None, blocksize=None, dense_dim=None):
    """self as a sparse tensor of `layout` (COO by default, over its first sparse_dim dims,
    all by default; sparse_csr, sparse_csc with dense_dim)."""
    if layout in _COMPRESSED:
        if sparse_dim is not None:
            raise ValueError("to_sparse(): sparse_dim= is for layout=torch.sparse_coo; the compressed "
                             "layouts take dense_dim=")
        if blocksize is not None:
            raise NotImplementedError("to_sparse(): blocksize= is for the block layouts sparse_bsr and "
                                      "sparse_bsc, which are not built")
        return self._to_sparse_csr(dense_dim) if layout == ember.sparse_csr else self._to_sparse_csc(dense_dim)
    if layout not in (None, ember.sparse_coo):
        raise NotImplementedError(f"to_sparse(): layout {layout} is not supported; sparse_coo, sparse_csr "
                                  f"and sparse_csc are")
    if blocksize is not None or dense_dim is not None:
        raise ValueError("to_sparse(): blocksize= and dense_dim= are for the compressed layouts")
    if self.layout in _COMPRESSED:
        return self._to_sparse(self.crow_indices().dim() + 1 if self.layout == ember.sparse_csr
                               else self.ccol_indices().dim() + 1) if sparse_dim is None else self._to_sparse(sparse_dim)
    if self.layout == ember.sparse_coo:
        if sparse_dim is not None and sparse_dim != self.sparse_dim():
            raise NotImplementedError("to_sparse(): changing a sparse tensor's sparse_dim is not "
                                      "built yet")
        return self
    return self._to_sparse(self.dim() if sparse_dim is None else sparse_dim)


def to_dense(self, dtype=None, *, masked_grad=None):
    """The strided tensor self stands for: self itself when it is strided (in dtype when given;
    a sparse tensor takes no dtype, as in PyTorch)."""
    if self.layout == ember.sparse_coo or self.layout in _COMPRESSED:
        return self._to_dense(dtype, masked_grad)
    return self if dtype is None else self.to(dtype)


def indices(self):
    """A coalesced sparse tensor's coordinates [sparse_dim, nnz] (its member, not a copy)."""
    if self.layout in _COMPRESSED:
        raise RuntimeError(f"indices(): expected a sparse_coo tensor, but got {self.layout}; use "
                           + " and ".join(n + "()" for n in _COMPRESSED_NAMES[str(self.layout).split(".")[-1]]))
    _check_coalesced(self, "indices")
    return self._indices()


def values(self):
    """A coalesced sparse tensor's values [nnz, dense sizes...] (its member, not a copy); a
    compressed tensor's [*batch, nnz, *dense]."""
    if self.layout not in _COMPRESSED:
        _check_coalesced(self, "values")
    return _VALUES(self)


def sparse_dim(self):
    """The number of sparse dimensions: the rows of indices (2 for a compressed tensor, 0 for a
    strided one)."""
    if self.layout in _COMPRESSED:
        return 2
    return self._indices().shape[0] if self.layout == ember.sparse_coo else 0


def dense_dim(self):
    """The number of dense dimensions: the trailing dims of values (all of a strided tensor's)."""
    if self.layout in _COMPRESSED:
        batch = (self.crow_indices() if self.layout == ember.sparse_csr else self.ccol_indices()).dim() - 1
        return self.dim() - batch - 2
    return self.dim() - sparse_dim(self)


def nnz(self):
    """The number of specified elements (of one batch, for a batched compressed tensor)."""
    return self._nnz()


def install(Tensor) -> None:
    global _COMPRESSED, _VALUES
    _COMPRESSED = (ember.sparse_csr, ember.sparse_csc)
    _VALUES = Tensor.values  # the generated (differentiable) op, before the wrapper replaces it
    methods = {"to_sparse": to_sparse, "to_dense": to_dense, "indices": indices, "values": values,
               "sparse_dim": sparse_dim, "dense_dim": dense_dim, "to_sparse_csr": to_sparse_csr,
               "to_sparse_csc": to_sparse_csc, "nnz": nnz}
    for name, fn in methods.items():
        setattr(Tensor, name, fn)
    for name in __all__:
        setattr(ember, name, globals()[name])
    ember.spmm = spmm


def spmm(input, mat2):
    """torch.spmm: the matrix product of a sparse (or dense) input and a dense mat2."""
    return ember.mm(input, mat2)
