"""ember.random: the default CPU generator's seed and state (torch.random)."""
from __future__ import annotations

from contextlib import contextmanager

from ember import _C
from ember._creation import initial_seed, manual_seed, seed  # noqa: F401
from ember.errors import NOT_COMPILED, NotCompiledError

default_generator = _C.default_generator
Generator = _C.Generator


def get_rng_state():
    """The default CPU generator's state as a uint8 tensor (Generator.get_state(): 16 bytes, its
    seed and offset; torch's mt19937 state is another format, so states do not cross over)."""
    getter = getattr(_C.default_generator, "get_state", None)
    if getter is None:
        raise NotImplementedError("get_rng_state(): ember.Generator does not expose its state "
                                  "yet (it needs Generator.get_state() in ember._C); "
                                  "manual_seed() restarts a stream")
    return getter()


def set_rng_state(new_state) -> None:
    """Restores a state get_rng_state returned."""
    setter = getattr(_C.default_generator, "set_state", None)
    if setter is None:
        raise NotImplementedError("set_rng_state(): ember.Generator does not expose its state "
                                  "yet (it needs Generator.set_state() in ember._C); "
                                  "manual_seed() restarts a stream")
    setter(new_state)


@contextmanager
def fork_rng(devices=None, enabled=True, _caller="fork_rng", _devices_kw="devices",
             device_type=None):
    """Restores the CPU generator's state when the block ends (no other device has one)."""
    if device_type not in (None, "cpu", "cuda", "meta"):
        raise RuntimeError(f"fork_rng(): expected 'device_type' to be a device type Ember has "
                           f"(cpu, cuda, meta), but got {device_type!r}")
    if device_type == "meta" or not enabled:
        yield
        return
    if devices is not None and list(devices):
        raise NotCompiledError(f"fork_rng(): cannot fork the generators of CUDA devices: "
                               f"{NOT_COMPILED}")
    state = get_rng_state()
    try:
        yield
    finally:
        set_rng_state(state)
