"""Laplace(loc, scale): the double-exponential distribution."""
from __future__ import annotations

import ember
from ember.distributions.distribution import Distribution, _LocScale
from ember.distributions.utils import finfo

__all__ = ["Laplace"]


class Laplace(_LocScale, Distribution):
    """The Laplace distribution with location loc and scale scale."""

    def expand(self, batch_shape, _instance=None):
        return self._expand_params(Laplace, batch_shape, _instance, loc=(), scale=())

    @property
    def variance(self):
        return 2 * self.scale.pow(2)

    @property
    def stddev(self):
        return 2 ** 0.5 * self.scale

    def rsample(self, sample_shape=()):
        shape = tuple(self._extended_shape(sample_shape))
        eps = float(finfo(self.loc.dtype).eps)
        u = ember.empty(shape, dtype=self.loc.dtype).uniform_(eps - 1, 1)
        return self.loc - self.scale * u.sign() * ember.log1p(-u.abs())

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return -ember.log(2 * self.scale) - ember.abs(value - self.loc) / self.scale

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return 0.5 - 0.5 * (value - self.loc).sign() * ember.expm1(-(value - self.loc).abs() / self.scale)

    def icdf(self, value):
        term = value - 0.5
        return self.loc - self.scale * term.sign() * ember.log1p(-2 * term.abs())

    def entropy(self):
        return 1 + ember.log(2 * self.scale)
