"""torch.profiler: `profile` with activities, schedules and trace handlers, `record_function`,
`schedule`, `tensorboard_trace_handler`. Built on the dispatcher's Profiler key (see
ember.autograd.profiler); CPU operator events only (this build has no device tracer)."""
from __future__ import annotations

import enum
import os
import socket
import time
import warnings

from ember.autograd import profiler
from ember.autograd.profiler import DeviceType, ProfilerActivity, kineto_available, record_function
from ember.autograd.profiler_util import EventList, build_events
from ember import _C

__all__ = ["profile", "record_function", "schedule", "tensorboard_trace_handler", "ProfilerAction",
           "ProfilerActivity", "DeviceType", "supported_activities", "kineto_available",
           "register_optimizer_step_post_hook", "KinetoStepTracker", "RecordScope",
           "ExecutionTraceObserver", "itt"]


class ProfilerAction(enum.Enum):
    """What the profiler does at a step of its schedule."""
    NONE = 0
    WARMUP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3
    DEVICE_STOPPED = 4


class RecordScope(enum.Enum):
    FUNCTION = 0
    BACKWARD_FUNCTION = 1
    TORCHSCRIPT_FUNCTION = 2
    KERNEL_FUNCTION_DTYPE = 3
    CUSTOM_CLASS = 4
    BUILD_FEATURE = 5
    LITE_INTERPRETER = 6
    USER_SCOPE = 7
    STATIC_RUNTIME_OP = 8
    STATIC_RUNTIME_MODEL = 9


def supported_activities() -> set:
    """The activities this build can profile: CPU."""
    return {ProfilerActivity.CPU}


def schedule(*, wait: int, warmup: int, active: int, repeat: int = 0, skip_first: int = 0,
             skip_first_wait: int = 0):
    """A schedule: skip `skip_first` steps, then cycles of `wait` idle, `warmup` and `active`
    recorded steps (the last one saves), `repeat` times (0: forever)."""
    for name, v in (("wait", wait), ("warmup", warmup), ("active", active), ("repeat", repeat),
                    ("skip_first", skip_first)):
        if not isinstance(v, int) or v < 0:
            raise ValueError(f"schedule(): {name} must be a non-negative int, got {v!r}")
    if active < 1:
        raise ValueError("schedule(): active must be at least 1")

    def schedule_fn(step: int) -> ProfilerAction:
        if step < skip_first:
            return ProfilerAction.NONE
        step -= skip_first
        if skip_first_wait and step < wait:
            return ProfilerAction.NONE
        cycle = wait + warmup + active
        if repeat > 0 and step // cycle >= repeat:
            return ProfilerAction.NONE
        pos = step % cycle
        if pos < wait:
            return ProfilerAction.NONE
        if pos < wait + warmup:
            return ProfilerAction.WARMUP
        return ProfilerAction.RECORD if pos < cycle - 1 else ProfilerAction.RECORD_AND_SAVE

    return schedule_fn


def _always_record(_step: int) -> ProfilerAction:
    return ProfilerAction.RECORD


def tensorboard_trace_handler(dir_name: str, worker_name: str | None = None, use_gzip: bool = False):
    """An on_trace_ready handler writing each trace as `<worker>.<time>.pt.trace.json`."""
    def handler(prof):
        os.makedirs(dir_name, exist_ok=True)
        worker = worker_name or f"{socket.gethostname()}_{os.getpid()}"
        name = f"{worker}.{time.time_ns() // 1_000_000}.pt.trace.json"
        path = os.path.join(dir_name, name)
        prof.export_chrome_trace(path)
        if use_gzip:
            import gzip
            import shutil
            with open(path, "rb") as src, gzip.open(path + ".gz", "wb") as dst:
                shutil.copyfileobj(src, dst)
            os.remove(path)
    return handler


class profile:
    """Profiles the operators run while it is active: as a context manager or start()/stop();
    with a schedule, step() advances it and on_trace_ready gets each finished recording."""

    def __init__(self, *, activities=None, schedule=None, on_trace_ready=None,
                 record_shapes: bool = False, profile_memory: bool = False, with_stack: bool = False,
                 with_flops: bool = False, with_modules: bool = False, experimental_config=None,
                 execution_trace_observer=None, acc_events: bool = False, use_cuda=None,
                 custom_trace_id_callback=None, post_processing_timeout_s=None):
        acts = set(activities) if activities is not None else supported_activities()
        for a in acts:
            if not isinstance(a, ProfilerActivity):
                raise TypeError(f"profile(): activities must be ProfilerActivity values, got {a!r}")
        if acts - supported_activities():
            warnings.warn(f"profile(): this build profiles only CPU activity; ignoring "
                          f"{sorted(a.name for a in acts - supported_activities())}", stacklevel=2)
        self.activities = acts
        self.schedule = schedule if schedule is not None else _always_record
        self.record_steps = schedule is not None   # ProfilerStep#N ranges, as torch marks them
        self._step_range = None
        self.on_trace_ready = on_trace_ready
        self.record_shapes = record_shapes
        self.acc_events = acc_events
        self.step_num = 0
        self.current_action = self.schedule(self.step_num)
        self.profiler = None  # the finished recording (an autograd.profiler.profile)
        self._running = False
        self._recording = False
        self._raw: list = []

    # ---- recording on and off ----
    def _begin(self):
        if not self._recording:
            _C._profiler_enable(self.record_shapes)
            self._recording = True

    def _end(self, save: bool):
        if self._recording:
            raw = _C._profiler_disable()
            self._recording = False
            self._raw = (self._raw + raw) if self.acc_events else raw
            done = profiler.profile(record_shapes=self.record_shapes)
            done.function_events = build_events(self._raw)
            self.profiler = done
            if save and self.on_trace_ready is not None:
                self.on_trace_ready(self)

    def _apply(self, prev: ProfilerAction, now: ProfilerAction):
        recording = (ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE)
        if prev == ProfilerAction.RECORD_AND_SAVE or (prev in recording and now not in recording):
            self._end(save=prev == ProfilerAction.RECORD_AND_SAVE)
        if now in recording:
            self._begin()

    def start(self):
        if self._running:
            raise RuntimeError("profile.start(): the profiler is already running")
        self._running = True
        self._apply(ProfilerAction.NONE, self.current_action)
        self._open_step()

    def _open_step(self):
        if self.record_steps:
            self._step_range = record_function(f"ProfilerStep#{self.step_num}")
            self._step_range.__enter__()

    def _close_step(self):
        if self._step_range is not None:
            self._step_range.__exit__(None, None, None)
            self._step_range = None

    def stop(self):
        if not self._running:
            return
        self._running = False
        self._close_step()
        if self._recording:
            self._end(save=self.on_trace_ready is not None)

    def step(self):
        """Marks the end of a training step: advances the schedule."""
        prev = self.current_action
        self._close_step()
        self.step_num += 1
        self.current_action = self.schedule(self.step_num)
        if self._running:
            self._apply(prev, self.current_action)
            self._open_step()

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc):
        self.stop()
        return False

    # ---- results ----
    def _finished(self):
        if self.profiler is None:
            raise RuntimeError("profile: no recording has finished yet (results are read after "
                               "the block, or in on_trace_ready)")
        return self.profiler

    def events(self) -> EventList:
        return self._finished().function_events

    def key_averages(self, group_by_input_shape: bool = False, group_by_stack_n: int = 0,
                     group_by_overload_name: bool = False) -> EventList:
        return self._finished().key_averages(group_by_input_shape, group_by_stack_n,
                                             group_by_overload_name)

    def export_chrome_trace(self, path: str):
        self._finished().export_chrome_trace(path)

    def add_metadata(self, key: str, value: str):
        self._metadata = getattr(self, "_metadata", {})
        self._metadata[key] = value


class KinetoStepTracker:
    """Counts optimizer steps per requester (torch's step tracker for the Kinetic profiler)."""
    _steps: dict = {}

    @classmethod
    def init_step_count(cls, requester: str):
        cls._steps[requester] = 0

    @classmethod
    def erase_step_count(cls, requester: str) -> bool:
        return cls._steps.pop(requester, None) is not None

    @classmethod
    def increment_step(cls, requester: str) -> int:
        cls._steps[requester] = cls._steps.get(requester, 0) + 1
        return max(cls._steps.values())

    @classmethod
    def current_step(cls) -> int:
        return max(cls._steps.values(), default=0)


def register_optimizer_step_post_hook(optimizer=None):
    """Counts optimizer steps for KinetoStepTracker (a post-step hook on every optimizer)."""
    from ember.optim.optimizer import register_optimizer_step_post_hook as register
    KinetoStepTracker.init_step_count("optimizer")
    return register(lambda *args, **kwargs: KinetoStepTracker.increment_step("optimizer"))


class ExecutionTraceObserver:
    """torch's execution-trace observer; not available in this build."""

    def __init__(self, *args, **kwargs):
        raise RuntimeError("ExecutionTraceObserver: execution traces are not available in Ember; "
                           "use profile(...).export_chrome_trace()")


class _Itt:
    """torch.profiler.itt: Intel ITT ranges; no ITT library in this build, so no-ops."""

    @staticmethod
    def is_available() -> bool:
        return False

    @staticmethod
    def range_push(msg: str):
        return None

    @staticmethod
    def range_pop():
        return None

    @staticmethod
    def mark(msg: str):
        return None


itt = _Itt()
