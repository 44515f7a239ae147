"""Distribution: the base class of every distribution (PyTorch's torch.distributions.Distribution)."""
from __future__ import annotations

import numbers
import warnings

import ember
from ember.distributions import constraints
from ember.distributions.utils import broadcast_all, lazy_property, logits_to_probs, probs_to_logits

__all__ = ["Distribution"]


class Distribution:
    """A probability distribution with batch_shape (independent, differently parameterised
    copies) and event_shape (the shape of one sample). With validate_args, parameters are
    checked against arg_constraints at construction and values against support in
    log_prob/cdf, raising ValueError."""

    has_rsample = False
    has_enumerate_support = False
    _validate_args = __debug__

    @staticmethod
    def set_default_validate_args(value: bool) -> None:
        """Turns argument validation on or off for every distribution made afterwards."""
        if value not in (True, False):
            raise ValueError
        Distribution._validate_args = value

    def __init__(self, batch_shape=(), event_shape=(), validate_args=None) -> None:
        self._batch_shape = ember.Size(tuple(batch_shape))
        self._event_shape = ember.Size(tuple(event_shape))
        if validate_args is not None:
            self._validate_args = validate_args
        if self._validate_args:
            try:
                arg_constraints = self.arg_constraints
            except NotImplementedError:
                arg_constraints = {}
                warnings.warn(f"{self.__class__} does not define `arg_constraints`. Please set "
                              "`arg_constraints = {}` or initialize the distribution with `validate_args=False` "
                              "to turn off validation.", stacklevel=2)
            for param, constraint in arg_constraints.items():
                if constraints.is_dependent(constraint):
                    continue
                if param not in self.__dict__ and isinstance(getattr(type(self), param, None), lazy_property):
                    continue
                value = getattr(self, param)
                valid = constraint.check(value)
                if not bool(valid.all()):
                    raise ValueError(f"Expected parameter {param} ({type(value).__name__} of shape "
                                     f"{tuple(value.shape)}) of distribution {self!r} to satisfy the constraint "
                                     f"{constraint!r}, but found invalid values:\n{value}")
        super().__init__()

    def expand(self, batch_shape, _instance=None):
        """A new distribution with the parameters expanded (not copied) to batch_shape."""
        raise NotImplementedError

    @property
    def batch_shape(self):
        """The shape over which parameters are batched."""
        return self._batch_shape

    @property
    def event_shape(self):
        """The shape of a single sample."""
        return self._event_shape

    @property
    def arg_constraints(self):
        """The constraint each parameter must satisfy, by name."""
        raise NotImplementedError

    @property
    def support(self):
        """The constraint samples satisfy."""
        raise NotImplementedError

    @property
    def mean(self):
        """The mean."""
        raise NotImplementedError

    @property
    def mode(self):
        """The mode."""
        raise NotImplementedError(f"{self.__class__} does not implement mode")

    @property
    def variance(self):
        """The variance."""
        raise NotImplementedError

    @property
    def stddev(self):
        """The standard deviation."""
        return self.variance.sqrt()

    def sample(self, sample_shape=()):
        """A sample_shape batch of samples, without gradient."""
        with ember.no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape=()):
        """A sample_shape batch of reparameterised samples (differentiable in the parameters)."""
        raise NotImplementedError

    def sample_n(self, n: int):
        """Deprecated: sample((n,))."""
        warnings.warn("`sample_n(n)` will be deprecated. Use `sample((n,))` instead.", FutureWarning, stacklevel=2)
        return self.sample((n,))

    def log_prob(self, value):
        """log of the density or mass function at value."""
        raise NotImplementedError

    def cdf(self, value):
        """The cumulative distribution function at value."""
        raise NotImplementedError

    def icdf(self, value):
        """The inverse cumulative distribution function at value."""
        raise NotImplementedError

    def enumerate_support(self, expand: bool = True):
        """Every value of a discrete support along dim 0, shape (cardinality,) + batch_shape + event_shape."""
        raise NotImplementedError

    def entropy(self):
        """The entropy, of shape batch_shape."""
        raise NotImplementedError

    def perplexity(self):
        """exp(entropy())."""
        return ember.exp(self.entropy())

    def _extended_shape(self, sample_shape=()):
        return ember.Size(tuple(sample_shape) + tuple(self._batch_shape) + tuple(self._event_shape))

    def _validate_sample(self, value) -> None:
        if not isinstance(value, ember.Tensor):
            raise ValueError("The value argument to log_prob must be a Tensor")
        event_dim_start = value.dim() - len(self._event_shape)
        if tuple(value.shape[event_dim_start:]) != tuple(self._event_shape):
            raise ValueError(f"The right-most size of value must match event_shape: {value.shape} vs "
                             f"{self._event_shape}.")
        actual = tuple(value.shape)
        expected = tuple(self._batch_shape) + tuple(self._event_shape)
        for i, j in zip(reversed(actual), reversed(expected)):
            if i != 1 and j != 1 and i != j:
                raise ValueError(f"Value is not broadcastable with batch_shape+event_shape: {value.shape} vs "
                                 f"{ember.Size(expected)}.")
        try:
            support = self.support
        except NotImplementedError:
            warnings.warn(f"{self.__class__} does not define `support` to enable sample validation. Please "
                          "initialize the distribution with `validate_args=False` to turn off validation.",
                          stacklevel=2)
            return
        valid = support.check(value)
        if not bool(valid.all()):
            raise ValueError(f"Expected value argument ({type(value).__name__} of shape {tuple(value.shape)}) to be "
                             f"within the support ({support!r}) of the distribution {self!r}, but found invalid "
                             f"values:\n{value}")

    def _expand_params(self, cls, batch_shape, _instance, **param_event_shapes):
        """The body of a plain expand(): each named parameter expanded to batch_shape + its
        event shape (given per name), the shapes set and validation carried over."""
        new = self._get_checked_instance(cls, _instance)
        batch_shape = ember.Size(tuple(batch_shape))
        for name, event in param_event_shapes.items():
            if name in self.__dict__:
                setattr(new, name, getattr(self, name).expand(tuple(batch_shape) + tuple(event)))
        Distribution.__init__(new, batch_shape, self._event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _get_checked_instance(self, cls, _instance=None):
        if _instance is None and type(self).__init__ != cls.__init__:
            raise NotImplementedError(f"Subclass {self.__class__.__name__} of {cls.__name__} that defines a custom "
                                      "__init__ method must also define a custom .expand() method.")
        return self.__new__(type(self)) if _instance is None else _instance

    def __repr__(self) -> str:
        try:
            names = [k for k in self.arg_constraints if k in self.__dict__]
        except NotImplementedError:
            names = []
        args = ", ".join(f"{p}: {self.__dict__[p] if self.__dict__[p].numel() == 1 else self.__dict__[p].size()}"
                         for p in names)
        return self.__class__.__name__ + "(" + args + ")"


class _LocScale:
    """What the location-scale families (Normal, Laplace) share, listed before their
    Distribution base: a real `loc` and a positive `scale` broadcast together (batch shape ()
    when both are Python numbers), reparameterised sampling, and `loc` as mean and mode.

    expand stays with each family: it names its own class, so a subclass with its own
    __init__ must still define expand, as in PyTorch.
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None) -> None:
        self.loc, self.scale = broadcast_all(loc, scale)
        scalar = isinstance(loc, numbers.Number) and isinstance(scale, numbers.Number)
        super().__init__(() if scalar else self.loc.shape, validate_args=validate_args)

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc


class _BinaryProbsLogits:
    """What Bernoulli and Binomial share: one success probability kept as `probs` or as
    `logits` (`_param`, the one given), the other computed from it on first access."""

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits, is_binary=True)

    @property
    def param_shape(self):
        return self._param.size()
