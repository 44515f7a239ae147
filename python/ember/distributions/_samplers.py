"""Samplers ember has no op for, composed from ember.rand / ember.randn: the standard
Gamma (with its implicit reparameterisation gradient), Poisson and Binomial.

Each rejection sampler draws for every element per round and keeps the first accepted
value, so a round costs one pass over the tensor and few rounds are needed (Marsaglia-Tsang
accepts > 95% per round, PTRS > 85%). The draws differ from PyTorch's (which samples one
element at a time); the distributions are the same.
"""
from __future__ import annotations

import ember
from ember.autograd.function import Function
from ember.distributions.utils import finfo

__all__ = ["standard_gamma", "standard_gamma_grad", "poisson", "binomial"]


def _marsaglia_tsang(alpha):
    """Gamma(alpha, 1) samples for alpha >= 1 (Marsaglia and Tsang 2000)."""
    d = alpha - 1.0 / 3.0
    c = 1.0 / ember.sqrt(9.0 * d)
    out = ember.zeros_like(alpha)
    done = ember.zeros(tuple(alpha.shape), dtype=ember.bool)
    while not bool(done.all()):
        x = ember.randn(tuple(alpha.shape), dtype=alpha.dtype)
        y = 1.0 + c * x
        v = y * y * y
        u = 1 - ember.rand(tuple(alpha.shape), dtype=alpha.dtype)
        xx = x * x
        safe_v = ember.where(y > 0, v, ember.ones_like(v))
        accept = (y > 0) & ((u < 1.0 - 0.0331 * xx * xx)
                            | (ember.log(u) < 0.5 * xx + d * (1.0 - safe_v + ember.log(safe_v))))
        new = accept & ~done
        out = ember.where(new, d * v, out)
        done = done | accept
    return out


def _sample_standard_gamma(alpha):
    with ember.no_grad():
        a = alpha.detach().to(ember.float64)
        small = a < 1
        boosted = ember.where(small, a + 1, a)
        x = _marsaglia_tsang(boosted)
        # Gamma(a) = Gamma(a + 1) * U^(1/a) for a < 1.
        u = 1 - ember.rand(tuple(a.shape), dtype=ember.float64)
        scale = ember.where(small, ember.pow(u, 1.0 / ember.where(small, a, ember.ones_like(a))), ember.ones_like(a))
        x = ember.where(a == 0, ember.zeros_like(x), x * scale)
        x = x.to(alpha.dtype)
        return x.clamp(min=float(finfo(alpha.dtype).tiny))


_COEF_UV = (
    (0.16009398, -0.094634809, 0.025146376, -0.0030648343, 1, 0.32668115, 0.10406089, 0.0014179084),
    (0.53487893, 0.1298071, 0.065735949, -0.0015649758, 0.16639465, 0.020070113, -0.0035938915,
     -0.00058392623),
    (0.040121004, -0.0065914022, -0.0026286047, -0.0013441777, 0.017050642, -0.0021309326, 0.00085092367,
     -1.5247877e-07),
)


def standard_gamma_grad(alpha, x):
    """d x / d alpha for x ~ Gamma(alpha, 1), the implicit reparameterisation gradient
    -(d/dalpha cdf(x; alpha)) / pdf(x; alpha), with the series, saddle-point and rational
    approximations of PyTorch's _standard_gamma_grad (aten/native/Distributions.h)."""
    with ember.no_grad():
        dtype = x.dtype
        a, x = alpha.detach().to(ember.float64), x.detach().to(ember.float64)
        # Taylor series for small x.
        numer = ember.ones_like(x)
        denom = a.clone()
        series1 = numer / denom
        series2 = numer / (denom * denom)
        for i in range(1, 6):
            numer = numer * (-x / i)
            denom = denom + 1
            series1 = series1 + numer / denom
            series2 = series2 + numer / (denom * denom)
        pow_x_alpha = ember.pow(x, a)
        gamma_pdf = ember.pow(x, a - 1) * ember.exp(-x)
        gamma_cdf = pow_x_alpha * series1
        gamma_cdf_alpha = (ember.log(x) - ember.digamma(a)) * gamma_cdf - pow_x_alpha * series2
        small_x = -gamma_cdf_alpha / gamma_pdf
        small_x = ember.where(ember.isnan(small_x), ember.zeros_like(small_x), small_x)
        # Rice saddle-point expansion for large alpha.
        near = (0.9 * a <= x) & (x <= 1.1 * a)
        numer_1 = 1 + 24 * a * (1 + 12 * a)
        numer_2 = 1440 * (a * a) + 6 * x * (53 - 120 * x) - 65 * x * x / a + a * (107 + 3600 * x)
        near_val = numer_1 * numer_2 / (1244160 * (a * a) * (a * a))
        sq = ember.sqrt(8 * a)
        term2 = sq / (a - x)
        term3 = ember.pow((x - a - a * ember.log(x / a)).abs(), -1.5)
        term23 = ember.where(x < a, term2 - term3, term2 + term3)
        term1 = ember.log(x / a) * term23 - ember.sqrt(2 / a) * (a + x) / ((a - x) * (a - x))
        stirling = 1 + 1 / (12 * a) * (1 + 1 / (24 * a))
        far_val = -stirling * (x * term1) / sq
        large_a = ember.where(near, near_val, far_val)
        # Bivariate rational approximation elsewhere.
        u = ember.log(x / a)
        v = ember.log(a)
        cv = [_COEF_UV[0][i] + u * (_COEF_UV[1][i] + u * _COEF_UV[2][i]) for i in range(8)]
        p = cv[0] + v * (cv[1] + v * (cv[2] + v * cv[3]))
        q = cv[4] + v * (cv[5] + v * (cv[6] + v * cv[7]))
        rational = ember.exp(p / q)
        out = ember.where(x < 0.8, small_x, ember.where(a > 8.0, large_a, rational))
        return out.to(dtype)


class _StandardGamma(Function):
    """Gamma(alpha, 1) samples whose gradient to alpha is standard_gamma_grad."""

    @staticmethod
    def forward(ctx, alpha):
        x = _sample_standard_gamma(alpha)
        ctx.save_for_backward(x, alpha)
        return x

    @staticmethod
    def backward(ctx, grad):
        x, alpha = ctx.saved_tensors
        return grad * standard_gamma_grad(alpha, x)


def standard_gamma(alpha):
    """Samples of Gamma(alpha, 1), one per element of alpha, differentiable in alpha."""
    return _StandardGamma.apply(alpha)


def _poisson_small(rate):
    """Knuth's product-of-uniforms method, for rate < 10."""
    limit = ember.exp(-rate)
    prod = ember.ones_like(rate)
    count = ember.zeros_like(rate)
    while True:
        prod = prod * ember.rand(tuple(rate.shape), dtype=rate.dtype)
        going = prod > limit
        if not bool(going.any()):
            return count
        count = count + going.to(rate.dtype)


def _poisson_ptrs(rate):
    """Hormann's transformed rejection with squeeze (PTRS), for rate >= 10."""
    slam = ember.sqrt(rate)
    loglam = ember.log(rate)
    b = 0.931 + 2.53 * slam
    a = -0.059 + 0.02483 * b
    invalpha = 1.1239 + 1.1328 / (b - 3.4)
    vr = 0.9277 - 3.6224 / (b - 2)
    out = ember.zeros_like(rate)
    done = ember.zeros(tuple(rate.shape), dtype=ember.bool)
    while not bool(done.all()):
        u = ember.rand(tuple(rate.shape), dtype=rate.dtype) - 0.5
        v = ember.rand(tuple(rate.shape), dtype=rate.dtype)
        us = 0.5 - u.abs()
        k = ember.floor((2 * a / us + b) * u + rate + 0.43)
        quick = (us >= 0.07) & (v <= vr)
        reject = (k < 0) | ((us < 0.013) & (v > us))
        safe_k = k.clamp(min=0)
        slow = (ember.log(v) + ember.log(invalpha) - ember.log(a / (us * us) + b)
                <= -rate + safe_k * loglam - ember.lgamma(safe_k + 1))
        accept = quick | (~reject & slow)
        out = ember.where(accept & ~done, k, out)
        done = done | accept
    return out


def poisson(rate):
    """One Poisson(rate) sample per element of rate (ember has no poisson op)."""
    with ember.no_grad():
        r = rate.detach().to(ember.float64)
        big = r >= 10
        small = _poisson_small(ember.where(big, ember.zeros_like(r), r))
        out = small
        if bool(big.any()):
            out = ember.where(big, _poisson_ptrs(ember.where(big, r, ember.full_like(r, 10.0))), small)
        return out.to(rate.dtype)


def binomial(count, prob):
    """One Binomial(count, prob) sample per element, as a sum of Bernoulli draws taken in
    chunks so memory stays bounded (ember has no binomial op)."""
    with ember.no_grad():
        n_max = int(count.max()) if count.numel() else 0
        shape = tuple(count.shape)
        out = ember.zeros(shape, dtype=prob.dtype)
        numel = max(1, count.numel())
        chunk = max(1, min(n_max, (1 << 22) // numel))
        for start in range(0, n_max, chunk):
            c = min(chunk, n_max - start)
            u = ember.rand((c,) + shape, dtype=prob.dtype)
            idx = ember.arange(start, start + c, dtype=prob.dtype).reshape((c,) + (1,) * len(shape))
            hits = (u < prob) & (idx < count)
            out = out + hits.to(prob.dtype).sum(0)
        return out
