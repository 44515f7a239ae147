"""The profiler's events and their tables (torch.autograd.profiler_util): FunctionEvent (one
timed call), FunctionEventAvg (calls grouped by name), EventList (a list of either, with
table(), key_averages(), total_average(), export_chrome_trace())."""
from __future__ import annotations

import json
from collections import defaultdict

__all__ = ["Interval", "FunctionEvent", "FunctionEventAvg", "EventList"]


def _format_time(us: float) -> str:
    if us >= 1e6:
        return f"{us / 1e6:.3f}s"
    if us >= 1e3:
        return f"{us / 1e3:.3f}ms"
    return f"{us:.3f}us"


def _format_percent(part: float, whole: float) -> str:
    return f"{100.0 * part / whole:.2f}%" if whole > 0 else "0.00%"


class Interval:
    """A time range in microseconds."""

    def __init__(self, start: float, end: float):
        self.start = start
        self.end = end

    def elapsed_us(self) -> float:
        return self.end - self.start

    def __repr__(self):
        return f"Interval(start={self.start:.3f}, end={self.end:.3f})"


class FunctionEvent:
    """One timed operator call or user range; times in microseconds."""

    def __init__(self, id, name, thread, start_us, end_us, input_shapes=None, overload_name="",
                 is_user_annotation=False, depth=0):
        self.id = id
        self.name = name
        self.overload_name = overload_name
        self.thread = thread
        self.time_range = Interval(start_us, end_us)
        self.input_shapes = input_shapes if input_shapes is not None else []
        self.is_user_annotation = is_user_annotation
        self.depth = depth
        self.cpu_children: list[FunctionEvent] = []
        self.cpu_parent: FunctionEvent | None = None
        self.count = 1
        self.device_type = "CPU"
        self.cpu_memory_usage = 0
        self.self_cpu_memory_usage = 0
        self.is_async = False
        self.is_remote = False
        self.is_legacy = False
        self.node_id = -1
        self.stack: list = []
        self.flops = None

    @property
    def key(self) -> str:
        return self.name

    @property
    def cpu_time_total(self) -> float:
        return self.time_range.elapsed_us()

    @property
    def cpu_time(self) -> float:
        return self.cpu_time_total

    @property
    def self_cpu_time_total(self) -> float:
        return self.cpu_time_total - sum(c.cpu_time_total for c in self.cpu_children)

    device_time_total = self_device_time_total = cuda_time_total = self_cuda_time_total = 0.0

    def __repr__(self):
        return (f"<FunctionEvent id={self.id} name={self.name} overload_name={self.overload_name} "
                f"cpu_time={_format_time(self.cpu_time_total)} start_us={self.time_range.start:.3f} "
                f"end_us={self.time_range.end:.3f} cpu_children={[c.id for c in self.cpu_children]} "
                f"thread={self.thread} input_shapes={self.input_shapes}>")


class FunctionEventAvg:
    """The calls of one name (and input shapes, when grouped by them), summed."""

    def __init__(self):
        self.key = None
        self.count = 0
        self.cpu_time_total = 0.0
        self.self_cpu_time_total = 0.0
        self.input_shapes = None
        self.is_user_annotation = False
        self.node_id = 0
        self.cpu_memory_usage = 0
        self.self_cpu_memory_usage = 0
        self.device_time_total = self.self_device_time_total = 0.0
        self.cuda_time_total = self.self_cuda_time_total = 0.0

    def add(self, other):
        if self.key is None:
            self.key = other.key
            self.input_shapes = other.input_shapes
            self.is_user_annotation = other.is_user_annotation
        self.count += other.count
        self.cpu_time_total += other.cpu_time_total
        self.self_cpu_time_total += other.self_cpu_time_total
        return self

    def __iadd__(self, other):
        return self.add(other)

    @property
    def cpu_time(self) -> float:
        return self.cpu_time_total / self.count if self.count else 0.0

    def __repr__(self):
        return (f"<FunctionEventAvg key={self.key} self_cpu_time={_format_time(self.self_cpu_time_total)} "
                f"cpu_time={_format_time(self.cpu_time)} input_shapes={self.input_shapes}>")


_SORT_KEYS = ("cpu_time", "cpu_time_total", "self_cpu_time_total", "count", "cpu_memory_usage",
              "self_cpu_memory_usage", "device_time", "device_time_total", "self_device_time_total",
              "cuda_time", "cuda_time_total", "self_cuda_time_total")


class EventList(list):
    """Events (or averages) with the profiler's table and aggregation methods."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args)
        self._with_shapes = kwargs.get("with_shapes", False)

    @property
    def self_cpu_time_total(self) -> float:
        return sum(e.self_cpu_time_total for e in self)

    def key_averages(self, group_by_input_shape: bool = False, group_by_stack_n: int = 0,
                     group_by_overload_name: bool = False):
        """The events grouped by name (and input shapes), in order of first appearance."""
        groups: dict = defaultdict(FunctionEventAvg)
        for e in self:
            key = (e.key,)
            if group_by_input_shape:
                key += (str(e.input_shapes),)
            if group_by_overload_name:
                key += (getattr(e, "overload_name", ""),)
            groups[key].add(e)
        return EventList(groups.values(), with_shapes=group_by_input_shape)

    def total_average(self) -> FunctionEventAvg:
        total = FunctionEventAvg()
        for e in self:
            total.count += e.count
            total.cpu_time_total += e.cpu_time_total
            total.self_cpu_time_total += e.self_cpu_time_total
        total.key = "Total"
        return total

    def table(self, sort_by: str | None = None, row_limit: int = 100, max_src_column_width: int = 75,
              max_name_column_width: int = 55, max_shapes_column_width: int = 80, header=None,
              top_level_events_only: bool = False, time_unit=None) -> str:
        """torch's profiler table: self and total CPU time per row, their shares, calls."""
        if sort_by is not None and sort_by not in _SORT_KEYS:
            raise AttributeError(f"table(): sort_by must be one of {', '.join(_SORT_KEYS)}; "
                                 f"got '{sort_by}'")
        rows = list(self)
        if top_level_events_only:
            rows = [e for e in rows if getattr(e, "cpu_parent", None) is None]
        if sort_by is not None:
            rows.sort(key=lambda e: getattr(e, sort_by, 0.0), reverse=True)
        if row_limit is not None and row_limit >= 0:
            rows = rows[:row_limit]
        self_total = self.self_cpu_time_total
        width = max([len(e.key) for e in rows] + [4])
        width = min(width, max_name_column_width)
        cols = [("Name", width, ">"), ("Self CPU %", 12, ">"), ("Self CPU", 12, ">"),
                ("CPU total %", 12, ">"), ("CPU total", 12, ">"), ("CPU time avg", 12, ">"),
                ("# of Calls", 12, ">")]
        if self._with_shapes:
            cols.append(("Input Shapes", min(max([len(str(e.input_shapes)) for e in rows] + [12]),
                                             max_shapes_column_width), ">"))
        line = "  ".join("-" * w for _, w, _ in cols) + "  "

        def fmt(values):
            return "  ".join(f"{str(v)[:w]:{a}{w}}" for v, (_, w, a) in zip(values, cols)) + "  "

        out = []
        if header:
            out += ["=" * len(line), header]
        out += [line, fmt([c[0] for c in cols]), line]
        for e in rows:
            name = e.key if len(e.key) <= width else e.key[:width - 3] + "..."
            avg = e.cpu_time_total / e.count if e.count else 0.0
            values = [name, _format_percent(e.self_cpu_time_total, self_total),
                      _format_time(e.self_cpu_time_total),
                      _format_percent(e.cpu_time_total, self_total),
                      _format_time(e.cpu_time_total), _format_time(avg), e.count]
            if self._with_shapes:
                values.append(str(e.input_shapes))
            out.append(fmt(values))
        out += [line, f"Self CPU time total: {_format_time(self_total)}", ""]
        return "\n".join(out)

    def export_chrome_trace(self, path: str) -> None:
        """Writes the events as a Chrome trace (chrome://tracing, Perfetto)."""
        events = []
        for e in self:
            if not isinstance(e, FunctionEvent):
                raise RuntimeError("export_chrome_trace(): needs the events, not their averages")
            events.append({"ph": "X", "cat": "user_annotation" if e.is_user_annotation else "cpu_op",
                           "name": e.name, "pid": 0, "tid": e.thread, "ts": e.time_range.start,
                           "dur": e.cpu_time_total,
                           "args": {"Input Dims": e.input_shapes} if e.input_shapes else {}})
        with open(path, "w") as f:
            json.dump({"traceEvents": events, "displayTimeUnit": "ms"}, f)

    def __str__(self):
        return self.table()


def build_events(raw) -> EventList:
    """FunctionEvents, with parents and children, from _C._profiler_disable()'s tuples."""
    events = []
    for i, (name, start, end, thread, depth, user, shapes) in enumerate(
            sorted(raw, key=lambda r: (r[3], r[1], r[4]))):
        base, _, overload = name.partition(".") if not user else (name, "", "")
        events.append(FunctionEvent(i + 1, base, thread + 1, start / 1e3, end / 1e3,
                                    [list(s) for s in shapes], overload, user, depth))
    # Parents: on each thread, the innermost open event that encloses this one.
    stacks: dict = defaultdict(list)
    for e in events:
        stack = stacks[e.thread]
        while stack and stack[-1].time_range.end < e.time_range.end:
            stack.pop()
        if stack:
            e.cpu_parent = stack[-1]
            stack[-1].cpu_children.append(e)
        stack.append(e)
    return EventList(events)
