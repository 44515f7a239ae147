"""Normal(loc, scale): the Gaussian distribution."""
from __future__ import annotations

import math

import ember
from ember.distributions.distribution import _LocScale
from ember.distributions.exp_family import ExponentialFamily
from ember.distributions.utils import standard_normal

__all__ = ["Normal"]


class Normal(_LocScale, ExponentialFamily):
    """The normal distribution with mean loc and standard deviation scale."""

    _mean_carrier_measure = 0

    def expand(self, batch_shape, _instance=None):
        return self._expand_params(Normal, batch_shape, _instance, loc=(), scale=())

    @property
    def stddev(self):
        return self.scale

    @property
    def variance(self):
        return self.scale.pow(2)

    def sample(self, sample_shape=()):
        with ember.no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape=()):
        eps = standard_normal(self._extended_shape(sample_shape), self.loc.dtype)
        return self.loc + eps * self.scale

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        var = self.scale ** 2
        return -((value - self.loc) ** 2) / (2 * var) - self.scale.log() - math.log(math.sqrt(2 * math.pi))

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return 0.5 * (1 + ember.erf((value - self.loc) * self.scale.reciprocal() / math.sqrt(2)))

    def icdf(self, value):
        return self.loc + self.scale * ember.erfinv(2 * value - 1) * math.sqrt(2)

    def entropy(self):
        return 0.5 + 0.5 * math.log(2 * math.pi) + ember.log(self.scale)

    @property
    def _natural_params(self):
        return self.loc / self.scale.pow(2), -0.5 * self.scale.pow(2).reciprocal()

    def _log_normalizer(self, x, y):
        return -0.25 * x.pow(2) / y + 0.5 * ember.log(-math.pi / y)
