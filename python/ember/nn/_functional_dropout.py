"""Dropout for ember.nn.functional: of elements, of whole channels, and SELU's alpha dropout."""
import ember as _ember

__all__ = ["dropout", "alpha_dropout", "feature_alpha_dropout", "dropout1d", "dropout2d", "dropout3d"]


def _check_p(p):
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def dropout(input, p=0.5, training=True, inplace=False):
    """Zeroes elements with probability p and scales the rest by 1 / (1 - p) when training."""
    _check_p(p)
    return _ember.dropout_(input, p, training) if inplace else _ember.dropout(input, p, training)


def alpha_dropout(input, p=0.5, training=False, inplace=False):
    """Dropout that keeps SELU's self-normalising mean and variance."""
    _check_p(p)
    return _ember.alpha_dropout_(input, p, training) if inplace else _ember.alpha_dropout(input, p, training)


def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):
    """Alpha dropout of whole channels."""
    _check_p(p)
    return _ember.feature_alpha_dropout(input, p, training)


def _feature_dropout(name, batched, input, p, training, inplace):
    _check_p(p)
    if input.dim() not in (batched - 1, batched):
        raise RuntimeError(f"{name}: Expected {batched - 1}D or {batched}D input, but received a "
                           f"{input.dim()}D input.")
    unbatched = input.dim() == batched - 1
    x = input.unsqueeze(0) if unbatched else input
    out = _ember.feature_dropout_(x, p, training) if inplace else _ember.feature_dropout(x, p, training)
    return out.squeeze(0) if unbatched else out


def dropout1d(input, p=0.5, training=True, inplace=False):
    """Dropout of whole channels of [N, C, L] (or [C, L]) inputs."""
    return _feature_dropout("dropout1d", 3, input, p, training, inplace)


def dropout2d(input, p=0.5, training=True, inplace=False):
    """Dropout of whole channels of [N, C, H, W] (or [C, H, W]) inputs."""
    return _feature_dropout("dropout2d", 4, input, p, training, inplace)


def dropout3d(input, p=0.5, training=True, inplace=False):
    """Dropout of whole channels of [N, C, D, H, W] (or [C, D, H, W]) inputs."""
    return _feature_dropout("dropout3d", 5, input, p, training, inplace)
