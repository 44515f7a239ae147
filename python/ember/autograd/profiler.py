"""torch.autograd.profiler: the operator profiler's context managers. Ember times every
operator call on the profiling thread at the dispatcher's Profiler key (aten/profiler/),
and user ranges marked with record_function."""
from __future__ import annotations

import enum
import functools
import warnings

from ember import _C
from ember.autograd.profiler_util import EventList, FunctionEvent, FunctionEventAvg, build_events

__all__ = ["profile", "record_function", "emit_nvtx", "emit_itt", "EventList", "FunctionEvent",
           "FunctionEventAvg", "ProfilerActivity", "DeviceType", "ProfilerState", "ProfilerConfig",
           "kineto_available"]


class ProfilerActivity(enum.Enum):
    """Where events are collected: Ember collects CPU (operator) events."""
    CPU = 0
    XPU = 1
    MTIA = 2
    CUDA = 3
    HPU = 4
    PrivateUse1 = 5


class DeviceType(enum.Enum):
    CPU = 0
    CUDA = 1


class ProfilerState(enum.Enum):
    Disabled = 0
    CPU = 1
    CUDA = 2


class ProfilerConfig:
    def __init__(self, state=ProfilerState.CPU, report_input_shapes=False, profile_memory=False,
                 with_stack=False, with_flops=False, with_modules=False):
        self.state = state
        self.report_input_shapes = report_input_shapes
        self.profile_memory = profile_memory
        self.with_stack = with_stack
        self.with_flops = with_flops
        self.with_modules = with_modules


def kineto_available() -> bool:
    """Whether the Kineto tracer is present: never, in Ember (its own profiler serves)."""
    return False


class profile:
    """Times the operators run inside the block (legacy torch.autograd.profiler.profile):
    `prof.key_averages().table()`, `prof.function_events`, `prof.export_chrome_trace()`."""

    def __init__(self, enabled: bool = True, *, use_cuda: bool = False, use_device=None,
                 record_shapes: bool = False, with_flops: bool = False, profile_memory: bool = False,
                 with_stack: bool = False, with_modules: bool = False, use_kineto: bool = False,
                 use_cpu: bool = True, experimental_config=None, acc_events: bool = False,
                 custom_trace_id_callback=None):
        if use_cuda or (use_device not in (None, "cpu")):
            warnings.warn("profile(): this build has no CUDA or other device; only CPU "
                          "operators are profiled", stacklevel=2)
        self.enabled = enabled
        self.record_shapes = record_shapes
        self.function_events: EventList | None = None
        self._entered = False
        self._acc = acc_events
        self._all: list = []

    def _start(self):
        _C._profiler_enable(self.record_shapes)
        self._entered = True

    def _stop(self):
        raw = _C._profiler_disable()
        self._entered = False
        if self._acc:
            self._all.extend(raw)
            raw = self._all
        self.function_events = build_events(raw)
        self.function_events._with_shapes = False

    def __enter__(self):
        if not self.enabled:
            return None   # as torch's: `with profile(enabled=False) as prof` binds None
        if self._entered:
            raise RuntimeError("profile(): the profiler is already running (its context was "
                               "entered twice)")
        self._start()
        return self

    def __exit__(self, *exc):
        if self.enabled and self._entered:
            self._stop()
        return False

    def _check_finished(self):
        if self.function_events is None:
            raise RuntimeError("profile(): the profiler has not finished running (read its "
                               "results after the `with` block)")

    def table(self, sort_by=None, row_limit=100, max_src_column_width=75, max_name_column_width=55,
              max_shapes_column_width=80, header=None, top_level_events_only=False):
        self._check_finished()
        return self.function_events.table(sort_by=sort_by, row_limit=row_limit, header=header,
                                          max_name_column_width=max_name_column_width,
                                          max_shapes_column_width=max_shapes_column_width,
                                          top_level_events_only=top_level_events_only)

    def key_averages(self, group_by_input_shape: bool = False, group_by_stack_n: int = 0,
                     group_by_overload_name: bool = False):
        self._check_finished()
        if group_by_input_shape and not self.record_shapes:
            raise RuntimeError("key_averages(group_by_input_shape=True) needs the profiler to "
                               "run with record_shapes=True")
        return self.function_events.key_averages(group_by_input_shape, group_by_stack_n,
                                                 group_by_overload_name)

    def total_average(self):
        self._check_finished()
        return self.function_events.total_average()

    def export_chrome_trace(self, path: str):
        self._check_finished()
        self.function_events.export_chrome_trace(path)

    def events(self):
        self._check_finished()
        return self.function_events

    @property
    def self_cpu_time_total(self) -> float:
        self._check_finished()
        return self.function_events.self_cpu_time_total

    def __str__(self):
        return self.table() if self.function_events is not None else "<unfinished profile>"


class record_function:
    """Marks a user range in the profile (`with record_function("step"):` or as a decorator).
    Outside a profiling session it costs almost nothing."""

    def __init__(self, name: str, args: str | None = None):
        if not isinstance(name, str):
            raise TypeError(f"record_function(): name must be a str, got {type(name).__name__}")
        self.name = name if args is None else f"{name}({args})"
        self._range = None

    def __enter__(self):
        self._range = _C._RecordFunction(self.name)
        return self

    def __exit__(self, *exc):
        self._range = None
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with record_function(self.name):
                return fn(*args, **kwargs)
        return wrapper


class emit_nvtx:
    """NVTX ranges for nvprof: a no-op context without CUDA."""

    def __init__(self, enabled: bool = True, record_shapes: bool = False):
        self.enabled = enabled

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


class emit_itt(emit_nvtx):
    """ITT ranges for VTune: a no-op context in this build (no ITT library)."""
