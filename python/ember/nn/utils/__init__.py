"""ember.nn.utils: gradient clipping, parameter/vector conversion, packed sequences,
parametrizations and the legacy weight_norm / spectral_norm hooks."""
from ember.nn.utils.clip_grad import clip_grad_norm, clip_grad_norm_, clip_grad_value_  # noqa: F401
from ember.nn.utils.convert_parameters import (  # noqa: F401
    parameters_to_vector, vector_to_parameters,
)
from ember.nn.utils import parametrizations, parametrize, rnn  # noqa: F401
from ember.nn.utils.spectral_norm import remove_spectral_norm, spectral_norm  # noqa: F401
from ember.nn.utils.weight_norm import remove_weight_norm, weight_norm  # noqa: F401
