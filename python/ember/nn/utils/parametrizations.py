"""Parametrizations built on nn.utils.parametrize: weight_norm, spectral_norm and
orthogonal (PyTorch's torch.nn.utils.parametrizations)."""
from __future__ import annotations

import math
from enum import Enum, auto

import ember
from ember.nn import functional as F
from ember.nn.modules.module import Module, _Hooks
from ember.nn.utils import parametrize

__all__ = ["orthogonal", "spectral_norm", "weight_norm"]


def norm_except_dim(v, pow: float = 2, dim: int = 0):
    """The pow-norm of v over every dim but `dim` (shape 1 elsewhere); dim=-1 means the norm
    of the whole tensor (a 0-d tensor), as PyTorch's norm_except_dim."""
    if dim == -1:
        return ember.linalg.vector_norm(v, pow)
    dims = [d for d in range(v.dim()) if d != dim]
    return ember.linalg.vector_norm(v, pow, dims, keepdim=True)


def _weight_norm(v, g, dim: int = 0):
    """v * g / ||v|| with the norm taken over every dim but `dim` (ember has no _weight_norm op)."""
    return v * (g / norm_except_dim(v, 2, dim))


def _matrix_exp(a):
    """exp(A) by scaling and squaring with a degree-18 Taylor polynomial (ember has no
    matrix_exp op); differentiable, as it is matmuls only."""
    norm = float(ember.linalg.matrix_norm(a.detach(), 1).max()) if a.numel() else 0.0
    squarings = max(0, int(math.ceil(math.log2(norm / 0.5)))) if norm > 0.5 else 0
    a = a / (2 ** squarings)
    eye = ember.eye(a.size(-1), dtype=a.dtype).expand(tuple(a.shape))
    term, result = eye, eye
    for k in range(1, 19):
        term = ember.matmul(term, a) / k
        result = result + term
    for _ in range(squarings):
        result = ember.matmul(result, result)
    return result


def _householder_product(a, tau):
    """The first k columns of H_1 ... H_k, H_i = I - tau_i v_i v_i^H with v_i the i-th column
    of a below the diagonal and 1 on it (ember has no householder_product op)."""
    n, k = a.size(-2), a.size(-1)
    batch = tuple(a.shape[:-2])
    q = ember.eye(n, dtype=a.dtype).expand(batch + (n, n))
    rows = ember.arange(n).reshape(n, 1)
    for i in reversed(range(k)):
        col = a[..., :, i:i + 1]
        v = ember.where(rows > i, col, ember.where(rows == i, ember.ones_like(col), ember.zeros_like(col)))
        t = tau[..., i:i + 1].unsqueeze(-1)
        q = q - t * ember.matmul(v, ember.matmul(v.mT, q))
    return q[..., :, :k]


def _is_orthogonal(q):
    n, k = q.size(-2), q.size(-1)
    eye = ember.eye(k, dtype=q.dtype)
    eps = 10.0 * n * float(ember.distributions.utils.finfo(q.dtype).eps)
    return bool(ember.allclose(ember.matmul(q.mT, q), eye.expand(tuple(q.shape[:-2]) + (k, k)), atol=eps))


def _make_orthogonal(a):
    # The Q of A's QR decomposition with R's diagonal made positive (torch's geqrf route gives the same Q).
    q, r = ember.linalg.qr(a)
    return q * r.diagonal(0, -2, -1).sign().unsqueeze(-2)


class _OrthMaps(Enum):
    matrix_exp = auto()
    cayley = auto()
    householder = auto()


class _Orthogonal(Module):
    def __init__(self, weight, orthogonal_map, *, use_trivialization=True) -> None:
        super().__init__()
        self.shape = tuple(weight.shape)
        self.orthogonal_map = orthogonal_map
        if use_trivialization:
            self.register_buffer("base", None)

    def forward(self, x):
        n, k = x.size(-2), x.size(-1)
        transposed = n < k
        if transposed:
            x = x.mT
            n, k = k, n
        if self.orthogonal_map in (_OrthMaps.matrix_exp, _OrthMaps.cayley):
            x = x.tril()
            if n != k:
                x = ember.cat([x, ember.zeros(tuple(x.shape[:-2]) + (n, n - k), dtype=x.dtype)], -1)
            a = x - x.mT
            if self.orthogonal_map == _OrthMaps.matrix_exp:
                q = _matrix_exp(a)
            else:
                eye = ember.eye(n, dtype=a.dtype)
                q = ember.linalg.solve(eye - 0.5 * a, eye + 0.5 * a)
            if n != k:
                q = q[..., :k]
        else:
            a = x.tril(-1)
            tau = 2.0 / (1.0 + (a * a).sum(-2))
            q = _householder_product(a, tau)
            # torch multiplies by diag.int(), which carries no gradient.
            q = q * x.diagonal(0, -2, -1).detach().trunc().unsqueeze(-2)
        base = self._buffers.get("base")
        if base is not None:
            q = ember.matmul(base, q)
        if transposed:
            q = q.mT
        return q

    def right_inverse(self, q):
        with ember.no_grad():
            if tuple(q.shape) != self.shape:
                raise ValueError(f"Expected a matrix or batch of matrices of shape {ember.Size(self.shape)}. Got a "
                                 f"tensor of shape {q.shape}.")
            q_init = q
            n, k = q.size(-2), q.size(-1)
            transpose = n < k
            if transpose:
                q = q.mT
                n, k = k, n
            if "base" not in self._buffers:
                raise NotImplementedError("right_inverse without use_trivialization needs geqrf, which ember lacks")
            if n == k:
                q = q.clone() if _is_orthogonal(q) else _make_orthogonal(q)
            else:
                noise = ember.randn(tuple(q.shape[:-2]) + (n, n - k), dtype=q.dtype)
                q = _make_orthogonal(ember.cat([q, noise], -1))
            self.base = q
            neg_id = ember.zeros_like(q_init)
            m = min(q_init.size(-2), q_init.size(-1))
            idx = ember.arange(m)
            neg_id[..., idx, idx] = -1.0
            return neg_id


def orthogonal(module, name="weight", orthogonal_map=None, *, use_trivialization=True):
    """Constrains module.<name> to be orthogonal (or to have orthonormal rows/columns)."""
    weight = getattr(module, name, None)
    if not isinstance(weight, ember.Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if weight.dim() < 2:
        raise ValueError(f"Expected a matrix or batch of matrices. Got a tensor of {weight.dim()} dimensions.")
    if orthogonal_map is None:
        orthogonal_map = "matrix_exp" if weight.size(-2) == weight.size(-1) else "householder"
    orth_enum = getattr(_OrthMaps, orthogonal_map, None)
    if orth_enum is None:
        raise ValueError('orthogonal_map has to be one of "matrix_exp", "cayley", "householder". '
                         f"Got: {orthogonal_map}")
    orth = _Orthogonal(weight, orth_enum, use_trivialization=use_trivialization)
    parametrize.register_parametrization(module, name, orth, unsafe=True)
    return module


class _WeightNorm(Module):
    def __init__(self, dim=0) -> None:
        super().__init__()
        self.dim = -1 if dim is None else dim

    def forward(self, weight_g, weight_v):
        return _weight_norm(weight_v, weight_g, self.dim)

    def right_inverse(self, weight):
        return norm_except_dim(weight, 2, self.dim), weight


def weight_norm(module, name="weight", dim=0):
    """module.<name> = g * v / ||v||, with originals g (original0) and v (original1);
    dim=None normalises over the whole tensor."""
    parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)

    def _weight_norm_compat_hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                                 error_msgs):
        # Loads state dicts saved with the legacy nn.utils.weight_norm (name_g, name_v).
        g_key, v_key = f"{prefix}{name}_g", f"{prefix}{name}_v"
        if g_key in state_dict and v_key in state_dict:
            state_dict[f"{prefix}parametrizations.{name}.original0"] = state_dict.pop(g_key)
            state_dict[f"{prefix}parametrizations.{name}.original1"] = state_dict.pop(v_key)

    _Hooks.add(module._load_state_dict_pre_hooks, _weight_norm_compat_hook)
    return module


class _SpectralNorm(Module):
    def __init__(self, weight, n_power_iterations=1, dim=0, eps=1e-12) -> None:
        super().__init__()
        ndim = weight.dim()
        if dim >= ndim or dim < -ndim:
            raise IndexError(f"Dimension out of range (expected to be in range of [-{ndim}, {ndim - 1}] but got {dim})")
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but got "
                             f"n_power_iterations={n_power_iterations}")
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps = eps
        if ndim > 1:
            self.n_power_iterations = n_power_iterations
            weight_mat = self._reshape_weight_to_matrix(weight.detach())
            h, w = weight_mat.shape
            u = ember.randn(h, dtype=weight.dtype)
            v = ember.randn(w, dtype=weight.dtype)
            self.register_buffer("_u", F.normalize(u, dim=0, eps=self.eps))
            self.register_buffer("_v", F.normalize(v, dim=0, eps=self.eps))
            self._power_method(weight_mat, 15)

    def _reshape_weight_to_matrix(self, weight):
        if self.dim != 0:
            weight = weight.permute(self.dim, *(d for d in range(weight.dim()) if d != self.dim))
        return weight.flatten(1)

    def _power_method(self, weight_mat, n_power_iterations) -> None:
        # Updates _u and _v in place, so they stay the buffers state_dict holds.
        with ember.no_grad():
            weight_mat = weight_mat.detach()
            for _ in range(n_power_iterations):
                self._u.copy_(F.normalize(ember.mv(weight_mat, self._v), dim=0, eps=self.eps))
                self._v.copy_(F.normalize(ember.mv(weight_mat.mT, self._u), dim=0, eps=self.eps))

    def forward(self, weight):
        if weight.dim() == 1:
            return F.normalize(weight, dim=0, eps=self.eps)
        weight_mat = self._reshape_weight_to_matrix(weight)
        if self.training:
            self._power_method(weight_mat, self.n_power_iterations)
        u, v = self._u.clone(), self._v.clone()
        sigma = ember.vdot(u, ember.mv(weight_mat, v))
        return weight / sigma

    def right_inverse(self, value):
        return value


def spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    """module.<name> divided by its largest singular value, estimated by power iteration
    (n_power_iterations steps per forward in training mode)."""
    weight = getattr(module, name, None)
    if not isinstance(weight, ember.Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if dim is None:
        transposed = (ember.nn.ConvTranspose1d, ember.nn.ConvTranspose2d, ember.nn.ConvTranspose3d)
        dim = 1 if isinstance(module, transposed) else 0
    parametrize.register_parametrization(module, name, _SpectralNorm(weight, n_power_iterations, dim, eps))
    return module
