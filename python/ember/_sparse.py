"""Sparse COO tensors from Python: torch.sparse_coo_tensor and the Tensor methods of
torch.sparse (to_sparse, to_dense, indices, values, coalesce, sparse_dim, dense_dim), over
the YAML's sparse ops (native_functions.yaml, "sparse"; aten/native/sparse/SparseTensor.cpp).
Every coordinate is checked against the sizes when the tensor is made (Note [Sparse
invariants]); an op with no sparse kernel raises NotImplementedError naming the op and the
layout. CSR/CSC, the sparse operators and gradients come next (issue 24)."""
from __future__ import annotations

import ember

__all__ = ["sparse_coo_tensor"]


def _as_tensor(x, what: str, dtype=None):
    if isinstance(x, ember.Tensor):
        return x if dtype is None or x.dtype == dtype else x.to(dtype)
    try:
        return ember.tensor(x, dtype=dtype)
    except (TypeError, ValueError) as e:
        raise TypeError(f"sparse_coo_tensor(): expected '{what}' to be a tensor or a sequence of "
                        f"numbers, but got {type(x).__name__}") from e


def sparse_coo_tensor(indices, values, size=None, *, dtype=None, device=None, pin_memory=False,
                      requires_grad=False, check_invariants=None, is_coalesced=None):
    """A sparse COO tensor with values at the coordinates in `indices` ([sparse_dim, nnz],
    integers) and `values` ([nnz, dense sizes...]); `size` defaults to the smallest that
    holds every coordinate. Duplicate coordinates add up (coalesce() merges them)."""
    if device is not None and ember.device(device).type != "cpu":
        raise NotImplementedError(f"sparse_coo_tensor(): sparse tensors are CPU tensors so far, "
                                  f"but got device={device!r}")
    if requires_grad:
        raise NotImplementedError("sparse_coo_tensor(): gradients of sparse tensors are not "
                                  "built yet (issue 24); make the tensor, then use to_dense()")
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


def to_sparse(self, sparse_dim=None, *, layout=None, blocksize=None, dense_dim=None):
    """self as a sparse COO tensor over its first sparse_dim dims (all by default)."""
    if layout not in (None, ember.sparse_coo):
        raise NotImplementedError(f"to_sparse(): layout {layout} is not built yet (issue 24); "
                                  f"sparse_coo is")
    if blocksize is not None or dense_dim is not None:
        raise NotImplementedError("to_sparse(): blocksize= and dense_dim= are for the compressed "
                                  "layouts, which are not built yet (issue 24)")
    if self.layout == ember.sparse_coo:
        if sparse_dim is not None and sparse_dim != self.sparse_dim():
            raise NotImplementedError("to_sparse(): changing a sparse tensor's sparse_dim is not "
                                      "built yet")
        return self
    return self._to_sparse(self.dim() if sparse_dim is None else sparse_dim)


def to_dense(self, dtype=None, *, masked_grad=None):
    """The strided tensor self stands for: self itself when it is strided (in dtype when given;
    a sparse tensor takes no dtype, as in PyTorch)."""
    if self.layout == ember.sparse_coo:
        return self._to_dense(dtype, masked_grad)
    return self if dtype is None else self.to(dtype)


def indices(self):
    """A coalesced sparse tensor's coordinates [sparse_dim, nnz] (its member, not a copy)."""
    _check_coalesced(self, "indices")
    return self._indices()


def values(self):
    """A coalesced sparse tensor's values [nnz, dense sizes...] (its member, not a copy)."""
    _check_coalesced(self, "values")
    return self._values()


def sparse_dim(self):
    """The number of sparse dimensions: the rows of indices (0 for a strided tensor)."""
    return self._indices().shape[0] if self.layout == ember.sparse_coo else 0


def dense_dim(self):
    """The number of dense dimensions: the trailing dims of values (all of a strided tensor's)."""
    return self.dim() - sparse_dim(self)


def install(Tensor) -> None:
    methods = {"to_sparse": to_sparse, "to_dense": to_dense, "indices": indices, "values": values,
               "sparse_dim": sparse_dim, "dense_dim": dense_dim}
    for name, fn in methods.items():
        setattr(Tensor, name, fn)
    ember.sparse_coo_tensor = sparse_coo_tensor
