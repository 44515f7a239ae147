"""gradcheck and gradgradcheck: gradients from backward against central finite differences,
in float64. A sparse input (COO, CSR, CSC) is checked in masked mode, as torch's masked=True:
its variables are the elements of its values, so the gradient is compared on its pattern
(Note [Sparse gradients], aten/autograd/Node.h)."""
from __future__ import annotations

import numpy as np

import ember
from ember import _C

__all__ = ["gradcheck", "gradgradcheck", "GradcheckError"]


class GradcheckError(RuntimeError):
    """Raised by gradcheck when the analytical and numerical gradients differ."""


def _as_tuple(x) -> tuple:
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def _outputs(func, inputs) -> tuple:
    return tuple(o for o in _as_tuple(func(*inputs)) if isinstance(o, _C.TensorBase))


def _is_sparse(t) -> bool:
    return t.layout != ember.strided


def _values(t):
    """A sparse tensor's values member (shared), whose elements are its variables."""
    return t._values() if t.layout == ember.sparse_coo else t.values()


def _flat(t) -> np.ndarray:
    """A copy (an output may alias the input being perturbed); a sparse one's dense form."""
    t = t.detach()
    if _is_sparse(t):
        t = t.to_dense()
    return np.array(t.numpy(), dtype=np.float64).reshape(-1)


def _flat_grad(g, x) -> np.ndarray:
    """The gradient g of input x as one row of the Jacobian: for a sparse x, g at each of its
    entries, in the order of its values."""
    if not _is_sparse(x):
        return _flat(g)
    dense = g.detach().to_dense() if _is_sparse(g) else g.detach()
    if x.layout == ember.sparse_coo:   # g at each entry's coordinate, duplicates included
        idx = x.detach()._indices()
        return _flat(dense[tuple(idx[d] for d in range(idx.shape[0]))])
    return _flat(_values(dense.sparse_mask(x.detach())))


def _numel(x) -> int:
    return _values(x).numel() if _is_sparse(x) else x.numel()


def _numerical(func, inputs, i: int, eps: float) -> list[np.ndarray]:
    """d outputs / d inputs[i] by central differences, one (out numel, in numel) matrix per output."""
    x = inputs[i]
    view = (_values(x) if _is_sparse(x) else x).detach().numpy()  # shares x's memory, strides included
    n = view.size
    with ember.no_grad():
        outs0 = _outputs(func, inputs)
    jac = [np.zeros((o.numel(), n)) for o in outs0]
    for j, idx in enumerate(np.ndindex(view.shape)):
        orig = view[idx].copy()
        with ember.no_grad():
            view[idx] = orig + eps
            plus = [_flat(o) for o in _outputs(func, inputs)]
            view[idx] = orig - eps
            minus = [_flat(o) for o in _outputs(func, inputs)]
            view[idx] = orig
        for k in range(len(jac)):
            jac[k][:, j] = (plus[k] - minus[k]) / (2 * eps)
    return jac


def _analytical(outputs, inputs, diff_idx) -> list[list[np.ndarray]]:
    """jac[k][i]: d outputs[k] / d inputs[i] from backward, row by row."""
    jac = [[np.zeros((o.numel(), _numel(inputs[i]))) for i in diff_idx] for o in outputs]
    for k, o in enumerate(outputs):
        if not o.requires_grad:
            continue
        for r in range(o.numel()):
            onehot = np.zeros(o.numel())
            onehot[r] = 1.0
            g_out = ember.from_numpy(onehot.reshape(tuple(o.shape))).to(o.dtype)
            grads = ember.autograd.grad([o], [inputs[i] for i in diff_idx], [g_out],
                                        retain_graph=True, allow_unused=True)
            for c, g in enumerate(grads):
                if g is not None:
                    jac[k][c][r, :] = _flat_grad(g, inputs[diff_idx[c]])
    return jac


def gradcheck(func, inputs, *, eps: float = 1e-6, atol: float = 1e-5, rtol: float = 1e-3,
              raise_exception: bool = True, nondet_tol: float = 0.0, check_undefined_grad: bool = True,
              check_grad_dtypes: bool = False, check_batched_grad: bool = False,
              check_batched_forward_grad: bool = False, check_forward_ad: bool = False,
              check_backward_ad: bool = True, fast_mode: bool = False, masked=None) -> bool:
    """Checks the gradients of func at inputs (float64 tensors that require grad) against
    finite differences; raises GradcheckError (or returns False) on a mismatch."""
    inputs = _as_tuple(inputs)
    diff_idx = [i for i, x in enumerate(inputs) if isinstance(x, _C.TensorBase) and x.requires_grad]
    if not diff_idx:
        raise ValueError("gradcheck expects at least one input tensor to require gradient, but "
                         "none of the them have requires_grad=True.")
    for i in diff_idx:
        if inputs[i].dtype != ember.float64:
            import warnings
            warnings.warn(f"Input #{i} requires gradient and is not a double precision floating "
                          f"point. This check will likely fail if all the inputs are not of "
                          f"double precision floating point.")
    outputs = _outputs(func, inputs)
    analytical = _analytical(outputs, inputs, diff_idx)
    for c, i in enumerate(diff_idx):
        numerical = _numerical(func, inputs, i, eps)
        for k in range(len(outputs)):
            a, n = analytical[k][c], numerical[k]
            if a.shape != n.shape or not np.allclose(a, n, rtol=rtol, atol=atol, equal_nan=True):
                msg = (f"Jacobian mismatch for output {k} with respect to input {i},\n"
                       f"numerical:{n}\nanalytical:{a}\n")
                if raise_exception:
                    raise GradcheckError(msg)
                return False
    return True


def gradgradcheck(func, inputs, grad_outputs=None, *, eps: float = 1e-6, atol: float = 1e-5,
                  rtol: float = 1e-3, gen_non_contig_grad_outputs: bool = False,
                  raise_exception: bool = True, nondet_tol: float = 0.0,
                  check_undefined_grad: bool = True, check_grad_dtypes: bool = False,
                  check_batched_grad: bool = False, check_fwd_over_rev: bool = False,
                  check_rev_over_rev: bool = True, fast_mode: bool = False, masked: bool = False) -> bool:
    """gradcheck of the gradients of func (backward with create_graph=True): second order."""
    inputs = _as_tuple(inputs)
    diff_idx = [i for i, x in enumerate(inputs) if isinstance(x, _C.TensorBase) and x.requires_grad]
    outputs = _outputs(func, inputs)
    if grad_outputs is None:
        rng = np.random.default_rng(0)
        grad_outputs = tuple(
            ember.from_numpy(rng.standard_normal(tuple(o.shape))).to(o.dtype).requires_grad_()
            for o in outputs if o.requires_grad)
    grad_outputs = _as_tuple(grad_outputs)
    n_in = len(inputs)

    def first_order(*args):
        ins, gos = args[:n_in], args[n_in:]
        with ember.enable_grad():  # the finite differences call this under no_grad
            outs = [o for o in _outputs(func, ins) if o.requires_grad]
            grads = ember.autograd.grad(outs, [ins[i] for i in diff_idx], gos, create_graph=True,
                                        allow_unused=True)
        return tuple(g for g in grads if g is not None)

    return gradcheck(first_order, inputs + tuple(grad_outputs), eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception)
