"""Bernoulli(probs | logits)."""
from __future__ import annotations

import math
import numbers

import ember
from ember.distributions import constraints
from ember.distributions.distribution import _BinaryProbsLogits
from ember.distributions.exp_family import ExponentialFamily
from ember.distributions.utils import broadcast_all
from ember.nn.functional import binary_cross_entropy_with_logits

__all__ = ["Bernoulli"]


class Bernoulli(_BinaryProbsLogits, ExponentialFamily):
    """1 with probability probs (or sigmoid(logits)), else 0."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.boolean
    has_enumerate_support = True
    _mean_carrier_measure = 0

    def __init__(self, probs=None, logits=None, validate_args=None) -> None:
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            scalar = isinstance(probs, numbers.Number)
            (self.probs,) = broadcast_all(probs)
        else:
            scalar = isinstance(logits, numbers.Number)
            (self.logits,) = broadcast_all(logits)
        self._param = self.probs if probs is not None else self.logits
        super().__init__(() if scalar else self._param.shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._expand_params(Bernoulli, batch_shape, _instance, probs=(), logits=())
        new._param = new.probs if "probs" in self.__dict__ else new.logits
        return new

    @property
    def mean(self):
        return self.probs

    @property
    def mode(self):
        mode = (self.probs >= 0.5).to(self.probs.dtype)
        return ember.where(self.probs == 0.5, ember.full_like(mode, math.nan), mode)

    @property
    def variance(self):
        return self.probs * (1 - self.probs)

    def sample(self, sample_shape=()):
        with ember.no_grad():
            return ember.bernoulli(self.probs.expand(tuple(self._extended_shape(sample_shape))))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        return -binary_cross_entropy_with_logits(logits, value, reduction="none")

    def entropy(self):
        return binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none")

    def enumerate_support(self, expand=True):
        values = ember.arange(2, dtype=self._param.dtype).reshape((-1,) + (1,) * len(self._batch_shape))
        if expand:
            values = values.expand((-1,) + tuple(self._batch_shape))
        return values

    @property
    def _natural_params(self):
        return (ember.logit(self.probs),)

    def _log_normalizer(self, x):
        return ember.log1p(ember.exp(x))
