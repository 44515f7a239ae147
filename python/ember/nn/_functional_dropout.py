"""Dropout for ember.nn.functional: of elements, of whole channels, and SELU's alpha dropout."""
import warnings

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


def _feature(input, p, training, inplace):
    return _ember.feature_dropout_(input, p, training) if inplace else _ember.feature_dropout(input, p, training)


def _deprecated_rank(name, dim, spatial, ranks):
    warnings.warn(f"{name}: Received a {dim}-D input to {name}, which is deprecated and will "
                  f"result in an error in a future release. To retain the behavior and silence "
                  f"this warning, please use dropout instead. Note that {name} exists to provide "
                  f"channel-wise dropout on inputs with {spatial} spatial dimensions, a channel "
                  f"dimension, and an optional batch dimension (i.e. {ranks[0]}D or {ranks[1]}D "
                  f"inputs).", stacklevel=3)


def dropout1d(input, p=0.5, training=True, inplace=False):
    """Dropout of whole channels of [N, C, L] (or [C, L]) inputs."""
    _check_p(p)
    if input.dim() not in (2, 3):
        raise RuntimeError(f"dropout1d: Expected 2D or 3D input, but received a {input.dim()}D "
                           "input. Note that dropout1d exists to provide channel-wise dropout on "
                           "inputs with 1 spatial dimension, a channel dimension, and an optional "
                           "batch dimension (i.e. 2D or 3D inputs).")
    if input.dim() == 3:
        return _feature(input, p, training, inplace)
    x = input.unsqueeze_(0) if inplace else input.unsqueeze(0)
    out = _feature(x, p, training, inplace)
    return out.squeeze_(0) if inplace else out.squeeze(0)


def dropout2d(input, p=0.5, training=True, inplace=False):
    """Dropout of whole channels of [N, C, H, W] inputs. As torch's: a 3-D input is taken as
    [N, C, L] (with a warning), and other ranks warn and drop along dim 1 of what they are."""
    _check_p(p)
    if input.dim() not in (3, 4):
        _deprecated_rank("dropout2d", input.dim(), 2, (3, 4))
    if input.dim() == 3:
        warnings.warn("dropout2d: Received a 3D input to dropout2d and assuming that channel-wise "
                      "1D dropout behavior is desired - input is interpreted as shape (N, C, L), "
                      "where C is the channel dim. This behavior will change in a future release "
                      "to interpret the input as one without a batch dimension, i.e. shape "
                      "(C, H, W). To maintain the 1D channel-wise dropout behavior, please switch "
                      "to using dropout1d instead.", stacklevel=2)
    return _feature(input, p, training, inplace)


def dropout3d(input, p=0.5, training=True, inplace=False):
    """Dropout of whole channels of [N, C, D, H, W] (or [C, D, H, W]) inputs; other ranks
    warn, as in torch."""
    _check_p(p)
    dim = input.dim()
    if dim not in (4, 5):
        _deprecated_rank("dropout3d", dim, 3, (4, 5))
    if dim == 5:
        return _feature(input, p, training, inplace)
    x = input.unsqueeze_(0) if inplace else input.unsqueeze(0)
    out = _feature(x, p, training, inplace)
    return out.squeeze_(0) if inplace else out.squeeze(0)
