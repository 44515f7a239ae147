"""How much CPU other processes use while a trial runs, from /proc/stat.

A trial's window: the machine's busy time (all CPUs, from /proc/stat, steal included:
time the hypervisor gave to someone else is lost to us too) minus the CPU time of our own
processes (this one, the children it has waited for, and the worker running the trial),
divided by the wall time. The result is in cores: 0.5 means other processes kept half a
core busy on average during the trial.
"""

from __future__ import annotations

import os
import resource
import time
from dataclasses import dataclass

TICK = 1.0 / os.sysconf("SC_CLK_TCK")


def machine_busy_s() -> float:
    """Seconds of CPU time spent busy since boot, all CPUs together."""
    with open("/proc/stat") as f:
        fields = f.readline().split()
    # cpu user nice system idle iowait irq softirq steal guest guest_nice (guest is in user)
    user, nice, system, idle, iowait, irq, softirq, steal = map(int, fields[1:9])
    return (user + nice + system + irq + softirq + steal) * TICK


def process_cpu_s(pid: int) -> float:
    """CPU seconds (user + system, all threads) of a live process; 0 when it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            stat = f.read()
    except OSError:
        return 0.0
    # Fields after the command name (which may hold spaces), from field 3 on.
    rest = stat[stat.rindex(")") + 2:].split()
    return (int(rest[11]) + int(rest[12])) * TICK


def own_cpu_s(pids: tuple[int, ...]) -> float:
    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime
            + sum(process_cpu_s(p) for p in pids))


@dataclass
class Window:
    wall_s: float
    other_cores: float


class CpuMeter:
    """Measures one window: `with CpuMeter(worker_pids) as m: ...; m.window.other_cores`."""

    def __init__(self, pids: tuple[int, ...] = ()):
        self.pids = tuple(pids)
        self.window: Window | None = None

    def __enter__(self):
        self._t0 = time.perf_counter()
        self._busy0 = machine_busy_s()
        self._own0 = own_cpu_s(self.pids)
        return self

    def __exit__(self, *exc):
        own = own_cpu_s(self.pids) - self._own0
        busy = machine_busy_s() - self._busy0
        wall = time.perf_counter() - self._t0
        # Tick granularity can make `own` exceed `busy` by a tick or two.
        self.window = Window(wall, max(0.0, busy - own) / wall if wall > 0 else 0.0)
        return False
