"""torch.profiler and torch.autograd.profiler on Ember's Profiler dispatch key: which
operators are recorded (names and overloads as torch spells them), nesting and self time,
shapes, record_function ranges, key_averages and the table, schedules with step(), trace
handlers and the Chrome trace, and the errors."""
import json

import pytest

import ember
import ember.profiler as EP
from ember.autograd import profiler as legacy

torch = pytest.importorskip("torch")


def workload(lib):
    a = lib.ones(8, 8)
    b = (a * 2).relu()
    return lib.mm(b, a).sum()


def names(events):
    return [e.name for e in events]


def test_operators_recorded_like_torch():
    with EP.profile(activities=[EP.ProfilerActivity.CPU]) as ep:
        workload(ember)
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]) as tp:
        workload(torch)
    ours = set(names(ep.events()))
    theirs = set(names(tp.events()))
    # the top-level operators torch records are recorded with the same names
    for op in ("aten::ones", "aten::mul", "aten::relu", "aten::mm", "aten::sum"):
        assert op in theirs
        assert op in ours, (op, sorted(ours))


def test_nesting_self_time_and_counts():
    with legacy.profile() as prof:
        with legacy.record_function("outer"):
            x = ember.ones(4, 4)
            for _ in range(3):
                x = x.relu()
    evs = prof.function_events
    outer = [e for e in evs if e.name == "outer"]
    assert len(outer) == 1
    outer = outer[0]
    relus = [e for e in evs if e.name == "aten::relu"]
    assert len(relus) == 3
    for r in relus:
        assert outer.time_range.start <= r.time_range.start <= r.time_range.end <= outer.time_range.end
        assert r.cpu_time_total >= r.self_cpu_time_total >= 0
    assert outer.self_cpu_time_total <= outer.cpu_time_total
    avg = {a.key: a for a in prof.key_averages()}
    assert avg["aten::relu"].count == 3
    assert abs(avg["aten::relu"].cpu_time_total - sum(r.cpu_time_total for r in relus)) < 1e-6
    table = prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=10)
    for col in ("Name", "Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg",
                "# of Calls"):
        assert col in table
    assert "aten::relu" in table and "Self CPU time total:" in table


def test_record_shapes_and_group_by_shape():
    with legacy.profile(record_shapes=True) as prof:
        ember.ones(2, 3).add(ember.ones(2, 3))
        ember.ones(5).add(ember.ones(5))
    adds = [e for e in prof.function_events if e.name == "aten::add"]
    assert sorted(map(str, (e.input_shapes for e in adds))) == sorted(
        map(str, ([[2, 3], [2, 3], []], [[5], [5], []])))
    grouped = [a for a in prof.key_averages(group_by_input_shape=True) if a.key == "aten::add"]
    assert len(grouped) == 2
    assert "Input Shapes" in prof.key_averages(group_by_input_shape=True).table()


def test_backward_ops_are_recorded():
    x = ember.ones(3, requires_grad=True)
    with legacy.profile() as prof:
        (x * x).sum().backward()
    got = set(names(prof.function_events))
    assert "aten::mul" in got and "aten::sum" in got


def test_record_function_decorator_and_outside_session():
    @legacy.record_function("my_fn")
    def f(t):
        return t + 1

    assert f(ember.ones(1)).item() == 2.0   # no session: just runs
    with legacy.profile() as prof:
        f(ember.ones(1))
    assert "my_fn" in names(prof.function_events)
    with pytest.raises(TypeError, match="name must be a str"):
        legacy.record_function(3)


def test_schedule_steps_and_trace_ready(tmp_path):
    sched = EP.schedule(wait=1, warmup=1, active=2, repeat=1)
    assert [sched(i) for i in range(6)] == [
        EP.ProfilerAction.NONE, EP.ProfilerAction.WARMUP, EP.ProfilerAction.RECORD,
        EP.ProfilerAction.RECORD_AND_SAVE, EP.ProfilerAction.NONE, EP.ProfilerAction.NONE]
    tsched = torch.profiler.schedule(wait=1, warmup=1, active=2, repeat=1)
    assert [sched(i).name for i in range(6)] == [tsched(i).name for i in range(6)]
    ready = []
    with EP.profile(schedule=sched, on_trace_ready=lambda p: ready.append(
            sorted({e.name for e in p.events() if e.name.startswith("ProfilerStep")}))) as p:
        for step in range(6):
            ember.full((2,), float(step)).neg()
            p.step()
    assert ready == [["ProfilerStep#2", "ProfilerStep#3"]]
    negs = [e for e in p.events() if e.name == "aten::neg"]
    assert len(negs) == 2   # steps 2 and 3 only
    handler = EP.tensorboard_trace_handler(str(tmp_path), worker_name="w")
    with EP.profile(schedule=EP.schedule(wait=0, warmup=0, active=1, repeat=1),
                    on_trace_ready=handler) as p:
        ember.ones(3).exp()
        p.step()
    files = list(tmp_path.glob("w.*.pt.trace.json"))
    assert len(files) == 1
    trace = json.loads(files[0].read_text())
    assert any(ev["name"] == "aten::exp" for ev in trace["traceEvents"])


def test_chrome_trace_format(tmp_path):
    with EP.profile() as p:
        ember.ones(4).sin()
    path = tmp_path / "t.json"
    p.export_chrome_trace(str(path))
    trace = json.loads(path.read_text())
    evs = [e for e in trace["traceEvents"] if e.get("ph") == "X"]
    assert evs and all({"name", "ts", "dur", "pid", "tid"} <= set(e) for e in evs)
    assert any(e["name"] == "aten::sin" for e in evs)


def test_errors():
    p = EP.profile()
    with pytest.raises(RuntimeError, match="no recording has finished"):
        p.key_averages()
    with p:
        with pytest.raises(RuntimeError, match="already running"):
            p.start()
    with pytest.raises(TypeError, match="ProfilerActivity"):
        EP.profile(activities=["cpu"])
    with pytest.raises(ValueError, match="active"):
        EP.schedule(wait=0, warmup=0, active=0)
    with pytest.warns(UserWarning, match="only CPU"):
        EP.profile(activities=[EP.ProfilerActivity.CPU, EP.ProfilerActivity.CUDA])
    with legacy.profile():
        with pytest.raises(RuntimeError):
            with legacy.profile():
                pass
    assert not ember._C._profiler_is_enabled()


def test_nothing_recorded_when_disabled():
    with legacy.profile(enabled=False) as prof:
        ember.ones(2).relu()
    with torch.autograd.profiler.profile(enabled=False) as tprof:
        torch.ones(2).relu()
    assert prof is None and tprof is None
    with legacy.profile() as prof:
        pass
    ember.ones(2).relu()
    assert "aten::relu" not in names(prof.function_events)
