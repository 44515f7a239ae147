"""MultivariateNormal(loc, covariance_matrix | precision_matrix | scale_tril)."""
from __future__ import annotations

import math

import ember
from ember.distributions import constraints
from ember.distributions.distribution import Distribution
from ember.distributions.utils import broadcast_shapes, lazy_property, standard_normal

__all__ = ["MultivariateNormal"]


def _batch_mv(bmat, bvec):
    return ember.matmul(bmat, bvec.unsqueeze(-1)).squeeze(-1)


def _batch_mahalanobis(L, x):
    """|| L^{-1} x ||^2 over the last dim, L broadcast against x's batch dims."""
    n = x.size(-1)
    batch = tuple(broadcast_shapes(L.shape[:-2], x.shape[:-1]))
    L = L.expand(batch + (n, n))
    x = x.expand(batch + (n,))
    sol = ember.linalg.solve_triangular(L, x.unsqueeze(-1), upper=False)
    return sol.squeeze(-1).pow(2).sum(-1)


def _cholesky_inverse(L):
    """(L L^T)^{-1} from its Cholesky factor L (ember has no cholesky_inverse op)."""
    eye = ember.eye(L.size(-1), dtype=L.dtype).expand(tuple(L.shape))
    l_inv = ember.linalg.solve_triangular(L, eye, upper=False)
    return ember.matmul(l_inv.mT, l_inv)


def _precision_to_scale_tril(P):
    # L with L L^T = P^{-1}: the Cholesky factor of the flipped P gives it without inverting P.
    Lf = ember.linalg.cholesky(ember.flip(P, (-2, -1)))
    L_inv = ember.transpose(ember.flip(Lf, (-2, -1)), -2, -1)
    eye = ember.eye(P.shape[-1], dtype=P.dtype).expand(tuple(P.shape))
    return ember.linalg.solve_triangular(L_inv, eye, upper=False)


class MultivariateNormal(Distribution):
    """The Gaussian over vectors with mean loc and covariance given by exactly one of
    covariance_matrix, precision_matrix or the lower-triangular factor scale_tril."""

    arg_constraints = {"loc": constraints.real_vector, "covariance_matrix": constraints.positive_definite,
                       "precision_matrix": constraints.positive_definite, "scale_tril": constraints.lower_cholesky}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc, covariance_matrix=None, precision_matrix=None, scale_tril=None,
                 validate_args=None) -> None:
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        if (covariance_matrix is not None) + (scale_tril is not None) + (precision_matrix is not None) != 1:
            raise ValueError("Exactly one of covariance_matrix or precision_matrix or scale_tril may be specified.")
        for name, m in (("scale_tril matrix", scale_tril), ("covariance_matrix", covariance_matrix),
                        ("precision_matrix", precision_matrix)):
            if m is not None:
                if m.dim() < 2:
                    raise ValueError(f"{name} must be at least two-dimensional, with optional leading batch "
                                     "dimensions")
                batch_shape = tuple(broadcast_shapes(m.shape[:-2], loc.shape[:-1]))
                matrix = m.expand(batch_shape + (-1, -1))
        if scale_tril is not None:
            self.scale_tril = matrix
        elif covariance_matrix is not None:
            self.covariance_matrix = matrix
        else:
            self.precision_matrix = matrix
        self.loc = loc.expand(batch_shape + (-1,))
        super().__init__(batch_shape, self.loc.shape[-1:], validate_args=validate_args)
        if scale_tril is not None:
            self._unbroadcasted_scale_tril = scale_tril
        elif covariance_matrix is not None:
            self._unbroadcasted_scale_tril = ember.linalg.cholesky(covariance_matrix)
        else:
            self._unbroadcasted_scale_tril = _precision_to_scale_tril(precision_matrix)

    def expand(self, batch_shape, _instance=None):
        event = tuple(self.event_shape)
        new = self._expand_params(MultivariateNormal, batch_shape, _instance, loc=event,
                                  covariance_matrix=event + event, scale_tril=event + event,
                                  precision_matrix=event + event)
        new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril
        return new

    def _matrix_shape(self):
        return tuple(self._batch_shape) + tuple(self._event_shape) * 2

    @lazy_property
    def scale_tril(self):
        return self._unbroadcasted_scale_tril.expand(self._matrix_shape())

    @lazy_property
    def covariance_matrix(self):
        L = self._unbroadcasted_scale_tril
        return ember.matmul(L, L.mT).expand(self._matrix_shape())

    @lazy_property
    def precision_matrix(self):
        return _cholesky_inverse(self._unbroadcasted_scale_tril).expand(self._matrix_shape())

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        return self._unbroadcasted_scale_tril.pow(2).sum(-1).expand(tuple(self._batch_shape) +
                                                                    tuple(self._event_shape))

    def rsample(self, sample_shape=()):
        eps = standard_normal(self._extended_shape(sample_shape), self.loc.dtype)
        return self.loc + _batch_mv(self._unbroadcasted_scale_tril, eps)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        diff = value - self.loc
        M = _batch_mahalanobis(self._unbroadcasted_scale_tril, diff)
        half_log_det = self._unbroadcasted_scale_tril.diagonal(0, -2, -1).log().sum(-1)
        return -0.5 * (self._event_shape[0] * math.log(2 * math.pi) + M) - half_log_det

    def entropy(self):
        half_log_det = self._unbroadcasted_scale_tril.diagonal(0, -2, -1).log().sum(-1)
        H = 0.5 * self._event_shape[0] * (1.0 + math.log(2 * math.pi)) + half_log_det
        return H if len(self._batch_shape) == 0 else H.expand(tuple(self._batch_shape))
