"""ember.cuda.amp: torch.cuda.amp's autocast and GradScaler, both disabled without CUDA (as
PyTorch's CPU build disables them, with a warning)."""
from __future__ import annotations

import warnings

from ember import _C
from ember import amp as _amp


class autocast(_amp.autocast):
    """torch.cuda.amp.autocast: ember.amp.autocast("cuda", ...), disabled here (no CUDA)."""

    def __init__(self, enabled: bool = True, dtype=_C.float16, cache_enabled: bool = True) -> None:
        super().__init__("cuda", dtype=dtype, enabled=enabled, cache_enabled=cache_enabled)


class GradScaler:
    """torch.cuda.amp.GradScaler without CUDA: disabled, so scale() returns its argument,
    step() calls optimizer.step() and update() / unscale_() do nothing."""

    def __init__(self, init_scale: float = 2.0**16, growth_factor: float = 2.0,
                 backoff_factor: float = 0.5, growth_interval: int = 2000,
                 enabled: bool = True) -> None:
        if enabled:
            warnings.warn("torch.cuda.amp.GradScaler is enabled, but CUDA is not available "
                          "(Ember was built without CUDA). Disabling.", stacklevel=2)
        self._enabled = False

    def is_enabled(self) -> bool:
        return self._enabled

    def scale(self, outputs):
        return outputs

    def unscale_(self, optimizer) -> None:
        """Unscales the optimizer's gradients: nothing to do when disabled."""

    def step(self, optimizer, *args, **kwargs):
        return optimizer.step(*args, **kwargs)

    def update(self, new_scale=None) -> None:
        """Updates the scale: nothing to do when disabled."""

    def get_scale(self) -> float:
        return 1.0

    def state_dict(self) -> dict:
        return {}

    def load_state_dict(self, state_dict) -> None:
        """Loads a saved state: a disabled scaler keeps none."""
