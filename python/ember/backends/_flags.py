"""Module attributes that are checked flags (ember.backends.cudnn.enabled = True, ...)."""
from __future__ import annotations

import types


def bool_flag(module: str, name: str, state: dict) -> property:
    """A property of a module's class reading state[name]; assigning anything but a bool
    raises RuntimeError (as PyTorch's flags do)."""

    def get(self):
        return state[name]

    def set_(self, value):
        if not isinstance(value, bool):
            raise RuntimeError(f"ember.backends.{module}.{name}: expected a bool, but got "
                               f"{type(value).__name__}")
        state[name] = value
    return property(get, set_, doc=f"ember.backends.{module}.{name} (a bool).")


def module_class(module: str, state: dict, **extra) -> type:
    """A ModuleType subclass whose attributes named in state are bool flags."""
    namespace = {name: bool_flag(module, name, state) for name in state}
    namespace.update(extra)
    return type(f"_{module.capitalize()}Module", (types.ModuleType,), namespace)
