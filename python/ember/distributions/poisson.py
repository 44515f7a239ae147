"""Poisson(rate)."""
from __future__ import annotations

import numbers

import ember
from ember.distributions import constraints
from ember.distributions._samplers import poisson
from ember.distributions.exp_family import ExponentialFamily
from ember.distributions.utils import broadcast_all, xlogy

__all__ = ["Poisson"]


class Poisson(ExponentialFamily):
    """The number of events of a Poisson process with the given rate in unit time."""

    arg_constraints = {"rate": constraints.nonnegative}
    support = constraints.nonnegative_integer

    def __init__(self, rate, validate_args=None) -> None:
        (self.rate,) = broadcast_all(rate)
        super().__init__(() if isinstance(rate, numbers.Number) else self.rate.shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expand_params(Poisson, batch_shape, _instance, rate=())

    @property
    def mean(self):
        return self.rate

    @property
    def mode(self):
        return self.rate.floor()

    @property
    def variance(self):
        return self.rate

    def sample(self, sample_shape=()):
        with ember.no_grad():
            return poisson(self.rate.expand(tuple(self._extended_shape(sample_shape))))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        rate, value = broadcast_all(self.rate, value)
        return xlogy(value, rate) - rate - (value + 1).lgamma()

    @property
    def _natural_params(self):
        return (ember.log(self.rate),)

    def _log_normalizer(self, x):
        return ember.exp(x)
