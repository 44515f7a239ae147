"""Dirichlet(concentration): the distribution on the probability simplex."""
from __future__ import annotations

import ember
from ember.distributions import constraints
from ember.distributions._samplers import standard_gamma
from ember.distributions.exp_family import ExponentialFamily
from ember.distributions.utils import digamma, finfo, lgamma, xlogy

__all__ = ["Dirichlet"]


class Dirichlet(ExponentialFamily):
    """The Dirichlet distribution over the last dim of concentration.

    rsample normalises independent Gamma(concentration_i, 1) draws, each reparameterised
    implicitly, so its gradient is the pathwise gradient of that construction; PyTorch
    differentiates the Beta marginals instead (_dirichlet_grad). Both are unbiased
    estimators of the same expected gradient; single samples differ.
    """

    arg_constraints = {"concentration": constraints.independent(constraints.positive, 1)}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, concentration, validate_args=None) -> None:
        if concentration.dim() < 1:
            raise ValueError("`concentration` parameter must be at least one-dimensional.")
        self.concentration = concentration
        super().__init__(concentration.shape[:-1], concentration.shape[-1:], validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expand_params(Dirichlet, batch_shape, _instance, concentration=tuple(self.event_shape))

    def rsample(self, sample_shape=()):
        shape = tuple(self._extended_shape(sample_shape))
        gammas = standard_gamma(self.concentration.expand(shape))
        x = gammas / gammas.sum(-1, keepdim=True)
        tiny = float(finfo(x.dtype).tiny)
        return x.clamp(min=tiny)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return (xlogy(self.concentration - 1.0, value).sum(-1) + ember.lgamma(self.concentration.sum(-1))
                - ember.lgamma(self.concentration).sum(-1))

    @property
    def mean(self):
        return self.concentration / self.concentration.sum(-1, keepdim=True)

    @property
    def mode(self):
        cm1 = (self.concentration - 1).clamp(min=0.0)
        mode = cm1 / cm1.sum(-1, keepdim=True)
        mask = (self.concentration < 1).all(-1, keepdim=True)
        one_hot = ember.nn.functional.one_hot(mode.argmax(-1), cm1.shape[-1]).to(mode.dtype)
        return ember.where(mask, one_hot, mode)

    @property
    def variance(self):
        con0 = self.concentration.sum(-1, keepdim=True)
        return self.concentration * (con0 - self.concentration) / (con0.pow(2) * (con0 + 1))

    def entropy(self):
        k = self.concentration.size(-1)
        a0 = self.concentration.sum(-1)
        return (ember.lgamma(self.concentration).sum(-1) - ember.lgamma(a0) - (k - a0) * digamma(a0)
                - ((self.concentration - 1.0) * digamma(self.concentration)).sum(-1))

    @property
    def _natural_params(self):
        return (self.concentration,)

    def _log_normalizer(self, x):
        return lgamma(x).sum(-1) - lgamma(x.sum(-1))
