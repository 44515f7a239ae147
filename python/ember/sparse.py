"""ember.sparse, as torch.sparse: mm, addmm, sum, softmax, log_softmax, sampled_addmm and the
legacy constructors ember.sparse.FloatTensor & co. (ember/_tensor_type.py). The constructors
and the Tensor methods of sparse tensors are in ember/_sparse.py; the kernels under
aten/native/sparse/ (the coverage table is the build's generated/sparse.md)."""
import ember
from ember._tensor_type import legacy_types as _legacy_types

globals().update(_legacy_types("ember.sparse", is_cuda=False, is_sparse=True))

__all__ = ["mm", "addmm", "sum", "softmax", "log_softmax", "sampled_addmm", "densify_fallback"]


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
