"""ember.distributions: probability distributions with PyTorch's torch.distributions API
(sample/rsample, log_prob, entropy, moments, cdf/icdf, expand, validate_args, kl_divergence).

Samplers ember has no op for (Gamma, Poisson, Binomial) are composed in _samplers.py.
"""
from ember.distributions import constraints, transforms  # noqa: F401
from ember.distributions.bernoulli import Bernoulli
from ember.distributions.beta import Beta
from ember.distributions.binomial import Binomial
from ember.distributions.categorical import Categorical, OneHotCategorical
from ember.distributions.dirichlet import Dirichlet
from ember.distributions.distribution import Distribution
from ember.distributions.exp_family import ExponentialFamily
from ember.distributions.exponential import Exponential
from ember.distributions.gamma import Gamma
from ember.distributions.independent import Independent
from ember.distributions.kl import kl_divergence, register_kl
from ember.distributions.laplace import Laplace
from ember.distributions.multivariate_normal import MultivariateNormal
from ember.distributions.normal import Normal
from ember.distributions.poisson import Poisson
from ember.distributions.transformed_distribution import LogNormal, TransformedDistribution
from ember.distributions.transforms import (  # noqa: F401
    AffineTransform, ComposeTransform, ExpTransform, SigmoidTransform, TanhTransform, Transform,
    identity_transform,
)
from ember.distributions.uniform import Uniform

__all__ = [
    "AffineTransform", "Bernoulli", "Beta", "Binomial", "Categorical", "ComposeTransform", "Dirichlet",
    "Distribution", "ExpTransform", "Exponential", "ExponentialFamily", "Gamma", "Independent", "Laplace", "LogNormal",
    "MultivariateNormal", "Normal", "OneHotCategorical", "Poisson", "SigmoidTransform", "TanhTransform",
    "Transform", "TransformedDistribution", "Uniform", "constraints", "identity_transform", "kl_divergence",
    "register_kl", "transforms",
]
