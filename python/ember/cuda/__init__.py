"""ember.cuda: torch.cuda's API (c10/cuda/CudaRuntime.h through ember._C).

In a build with CUDA (EMBER_CUDA) the calls reach the driver: devices, streams, events, the
caching allocator's statistics. Without a usable device, queries answer as PyTorch's do
(no devices, nothing allocated) and whatever needs a device raises a RuntimeError saying
why (the driver's error). In a build without CUDA, whatever needs a device raises
ember.errors.NotCompiledError("Ember not compiled with CUDA enabled"): an AssertionError, as
PyTorch's CPU build raises there.
"""
from __future__ import annotations

import builtins
import contextlib

from ember import _C
from ember.cuda import amp  # noqa: F401
from ember.errors import NOT_COMPILED, NotCompiledError

_BUILT = _C._cuda_built()


def _no_cuda(*args, **kwargs):
    raise NotCompiledError(NOT_COMPILED)


def _require() -> None:
    """Raises unless a CUDA device can be used."""
    if not _BUILT:
        raise NotCompiledError(NOT_COMPILED)
    if _C._cuda_device_count() == 0:
        raise RuntimeError(f"CUDA is not available: {_C._cuda_unavailable_reason()}")


def _index(device) -> int:
    """The device index of a device argument (None: the current device)."""
    if device is None:
        return current_device()
    if isinstance(device, (str, _C.device)):
        d = _C.device(device)
        if d.type != "cuda":
            raise ValueError(f"Expected a cuda device, but got: {d}")
        return current_device() if d.index is None else d.index
    return builtins.int(device)


def is_available() -> bool:
    """Whether a CUDA device can be used: the driver reports one (never in a build without
    CUDA; ember._C._cuda_unavailable_reason() says why not)."""
    return _C._cuda_device_count() > 0


def is_initialized() -> bool:
    """Whether CUDA has been set up: in Ember, as soon as a device is found."""
    return _BUILT and _C._cuda_device_count() > 0


def device_count() -> int:
    """The number of CUDA devices the driver reports: 0 without a driver or a CUDA build."""
    return _C._cuda_device_count()


def is_bf16_supported(including_emulation: bool = True) -> bool:
    return is_available() and (including_emulation or get_device_capability()[0] >= 8)


def is_tf32_supported() -> bool:
    return is_available() and get_device_capability()[0] >= 8


def get_arch_list() -> list:
    """The architectures the kernels were compiled for (EMBER_CUDA_ARCHITECTURES)."""
    return list(_C._cuda_arch_list())


def manual_seed(seed) -> None:
    """Seeds CUDA's generator (ember.manual_seed seeds it too); nothing to seed without CUDA."""
    seed = builtins.int(seed)
    if _BUILT:
        _C._cuda_manual_seed(seed & ((1 << 64) - 1))


def manual_seed_all(seed) -> None:
    """Seeds CUDA's generator, which every device shares in Ember."""
    manual_seed(seed)


def seed() -> None:
    """Seeds the current CUDA device non-deterministically: nothing to seed here."""


def seed_all() -> None:
    """Seeds every CUDA device non-deterministically: nothing to seed here."""


def empty_cache() -> None:
    """Returns the cached blocks of every device to the driver."""
    for i in range(device_count()):
        _C._cuda_empty_cache(i)


def memory_stats(device=None) -> dict:
    """The caching allocator's counters (torch.cuda.memory_stats' main keys); {} before any
    device is usable."""
    if not is_initialized():
        return {}
    return _C._cuda_memory_stats(_index(device))


def memory_allocated(device=None) -> int:
    return memory_stats(device).get("allocated_bytes.all.current", 0)


def max_memory_allocated(device=None) -> int:
    return memory_stats(device).get("allocated_bytes.all.peak", 0)


def memory_reserved(device=None) -> int:
    return memory_stats(device).get("reserved_bytes.all.current", 0)


def max_memory_reserved(device=None) -> int:
    return memory_stats(device).get("reserved_bytes.all.peak", 0)


def reset_peak_memory_stats(device=None) -> None:
    """Resets the peak counters to the current values."""
    if is_initialized():
        _C._cuda_reset_peak_memory_stats(_index(device))


def mem_get_info(device=None) -> tuple:
    """The device's free and total bytes, from the driver."""
    _require()
    return _C._cuda_mem_get_info(_index(device))


def get_rng_state_all() -> list:
    return []


def set_rng_state_all(new_states) -> None:
    """Sets each device's generator state: there are no devices."""


def set_device(device) -> None:
    """Selects the current CUDA device; a negative index does nothing (as PyTorch)."""
    index = _index(device) if device is not None else -1
    if index >= 0:
        _require()
        _C._cuda_set_device(index)


def current_device() -> int:
    _require()
    return _C._cuda_current_device()


def synchronize(device=None) -> None:
    """Waits for all work queued on the device."""
    _require()
    _C._cuda_synchronize(_index(device))


class _CudaDeviceProperties:
    def __init__(self, name, major, minor, total_memory, multi_processor_count):
        self.name, self.major, self.minor = name, major, minor
        self.total_memory, self.multi_processor_count = total_memory, multi_processor_count

    def __repr__(self):
        return (f"_CudaDeviceProperties(name='{self.name}', major={self.major}, minor={self.minor}, "
                f"total_memory={self.total_memory // (1024 * 1024)}MB, "
                f"multi_processor_count={self.multi_processor_count})")


def get_device_properties(device=None) -> _CudaDeviceProperties:
    _require()
    return _CudaDeviceProperties(*_C._cuda_device_properties(_index(device)))


def get_device_name(device=None) -> str:
    return get_device_properties(device).name


def get_device_capability(device=None) -> tuple:
    p = get_device_properties(device)
    return (p.major, p.minor)


def init() -> None:
    """Initialises CUDA: raises when no device is usable."""
    _require()


def initial_seed() -> int:
    _require()
    return _C._cuda_initial_seed()


class device:
    """Context manager selecting a CUDA device; device -1 (or None) selects nothing."""

    def __init__(self, device) -> None:
        self.idx = -1 if device is None else (
            _C.device(device).index if isinstance(device, (str, _C.device)) else builtins.int(device))
        if self.idx is None:
            self.idx = 0
        self.prev_idx = -1

    def __enter__(self) -> None:
        if self.idx >= 0:
            _require()
            self.prev_idx = _C._cuda_current_device()
            _C._cuda_set_device(self.idx)

    def __exit__(self, *exc) -> bool:
        if self.prev_idx >= 0:
            _C._cuda_set_device(self.prev_idx)
        return False


class device_of(device):
    """Context manager selecting the device of a tensor: nothing for a CPU tensor."""

    def __init__(self, obj) -> None:
        super().__init__(obj.get_device() if obj.is_cuda else -1)


class Stream:
    """A CUDA stream (torch.cuda.Stream): a new one on the device, of priority 0 (normal) or
    negative (high); Stream(stream_ptr=...) wraps an existing handle."""

    def __new__(cls, device=None, priority=0, *, _handle=None, **kwargs):
        _require()
        self = super().__new__(cls)
        index = _index(device)
        if _handle is None:
            index, _handle = _C._cuda_stream_create(index, builtins.int(priority))
        self.device_index, self.cuda_stream = index, _handle
        return self

    def __init__(self, *args, **kwargs) -> None:
        pass

    @property
    def device(self):
        return _C.device("cuda", self.device_index)

    def query(self) -> bool:
        return _C._cuda_stream_query(self.device_index, self.cuda_stream)

    def synchronize(self) -> None:
        _C._cuda_stream_synchronize(self.device_index, self.cuda_stream)

    def wait_event(self, event) -> None:
        event.wait(self)

    def wait_stream(self, stream) -> None:
        self.wait_event(stream.record_event())

    def record_event(self, event=None):
        event = Event() if event is None else event
        event.record(self)
        return event

    def __eq__(self, other) -> bool:
        return isinstance(other, Stream) and (self.device_index, self.cuda_stream) == (
            other.device_index, other.cuda_stream)

    def __hash__(self) -> int:
        return hash((self.device_index, self.cuda_stream))

    def __repr__(self) -> str:
        return f"<ember.cuda.Stream device=cuda:{self.device_index} cuda_stream={self.cuda_stream:#x}>"


def _stream(pair) -> Stream:
    return Stream(device=pair[0], _handle=pair[1])


def current_stream(device=None) -> Stream:
    _require()
    return _stream(_C._cuda_current_stream(_index(device)))


def default_stream(device=None) -> Stream:
    _require()
    return _stream(_C._cuda_default_stream(_index(device)))


def set_stream(stream: Stream) -> None:
    if stream is not None:
        _C._cuda_set_stream(stream.device_index, stream.cuda_stream)


@contextlib.contextmanager
def stream(stream):
    """Makes stream the current stream of its device for the block (None: no change)."""
    if stream is None:
        yield
        return
    previous = _C._cuda_current_stream(stream.device_index)
    _C._cuda_set_stream(stream.device_index, stream.cuda_stream)
    try:
        yield
    finally:
        _C._cuda_set_stream(*previous)


class Event:
    """A CUDA event (torch.cuda.Event): a point in a stream's work to wait for or time."""

    def __init__(self, enable_timing=False, blocking=False, interprocess=False) -> None:
        _require()
        if interprocess:
            raise NotImplementedError("Event(interprocess=True) is not supported by Ember")
        self._handle = _C._cuda_event_create(builtins.bool(enable_timing), builtins.bool(blocking))

    def __del__(self) -> None:
        h = getattr(self, "_handle", None)
        if h is not None:
            _C._cuda_event_destroy(h)

    def record(self, stream=None) -> None:
        s = current_stream() if stream is None else stream
        _C._cuda_event_record(self._handle, s.device_index, s.cuda_stream)

    def wait(self, stream=None) -> None:
        s = current_stream() if stream is None else stream
        _C._cuda_event_wait(self._handle, s.device_index, s.cuda_stream)

    def query(self) -> bool:
        return _C._cuda_event_query(self._handle)

    def synchronize(self) -> None:
        _C._cuda_event_synchronize(self._handle)

    def elapsed_time(self, end_event) -> float:
        return _C._cuda_event_elapsed_ms(self._handle, end_event._handle)


def _no_generator(*args, **kwargs):
    """The CUDA generator's state as a tensor: not yet in Ember."""
    _require()
    raise NotImplementedError("ember.cuda: the CUDA generator's state cannot be saved or restored yet")


get_rng_state = set_rng_state = _no_generator


def ipc_collect() -> None:
    """Frees memory shared with other processes: Ember shares none."""
    _require()
