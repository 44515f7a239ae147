"""Trials: a measurement taken while other processes stay quiet, retried when they do not;
and the handles on the Python worker processes that run them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from .cpumeter import CpuMeter

WORKER = Path(__file__).resolve().parent / "pyworker.py"


@dataclass
class Trial:
    other_cores: float  # CPU other processes used during the kept attempt
    retries: int  # attempts thrown away as noisy
    noisy: bool  # kept although over the limit (every attempt was)


@dataclass
class NoiseStats:
    trials: int = 0
    retries: int = 0
    noisy_kept: int = 0
    waited_s: float = 0.0  # waiting for quiet plus retried attempts
    budget_spent: bool = False


@dataclass
class Sampler:
    """Runs a measurement inside a CpuMeter window, the machine quiet.

    After a noisy attempt, it waits (at most quiet_wait_s) for a 0.2 s window in which other
    processes use at most `max_other` cores before the next; when they used more during an
    attempt,
    it tries again, at most `retries` times, then keeps the quietest attempt and flags it.
    Waiting and retried attempts draw on one budget for the whole run (budget_s): on a
    machine that stays busy the run ends anyway, its rows flagged, instead of stalling."""

    max_other: float
    retries: int
    quiet_wait_s: float
    budget_s: float
    log: Callable[[str], None]
    stats: NoiseStats = field(default_factory=NoiseStats)
    quiet: bool = True  # the last attempt was quiet: the next needs no wait

    def _budget_left(self, share: float = 1.0) -> bool:
        if self.stats.waited_s < self.budget_s * share:
            return True
        if share < 1.0:
            return False
        if not self.stats.budget_spent:
            self.stats.budget_spent = True
            self.log(f"    noise budget ({self.budget_s:g} s of waiting and retries) spent: "
                     "from now on noisy trials are kept and flagged")
        return False

    def wait_quiet(self, share: float = 1.0) -> None:
        t0 = time.perf_counter()
        while time.perf_counter() - t0 < self.quiet_wait_s and self._budget_left(share):
            with CpuMeter() as meter:
                time.sleep(0.2)
            self.stats.waited_s += meter.window.wall_s
            if meter.window.other_cores <= self.max_other:
                return

    def measure(self, label: str, fn: Callable[[], object], pids: tuple[int, ...] = (),
                retries: int | None = None, share: float = 1.0) -> tuple[Trial, object]:
        """(Trial, fn's result) of the kept attempt. `retries` lowers the retries allowed;
        `share`: waiting stops once the run has spent that share of the noise budget."""
        best = None
        self.stats.trials += 1
        retries = self.retries if retries is None else min(retries, self.retries)
        for attempt in range(retries + 1):
            if not self.quiet:
                self.wait_quiet(share)
            with CpuMeter(pids) as meter:
                result = fn()
            other = meter.window.other_cores
            self.quiet = other <= self.max_other
            if best is None or other < best[0]:
                best = (other, result, attempt)
            if other <= self.max_other:
                return Trial(other, attempt, False), result
            if attempt < retries and self._budget_left(share):
                self.stats.waited_s += meter.window.wall_s
                self.stats.retries += 1
                self.log(f"    {label}: other processes used {other:.2f} cores "
                         f"(limit {self.max_other}); measuring again")
            else:
                break
        self.stats.noisy_kept += 1
        if attempt > 0:  # once the budget is spent, the row's summary says it
            self.log(f"    {label}: noisy; keeping the quietest of {attempt + 1} attempts "
                     f"({best[0]:.2f} cores)")
        return Trial(best[0], attempt, True), best[1]


class WorkerError(Exception):
    """A request to a Python worker failed; the message says why."""


class Worker:
    """One Python worker process: a library at a thread count under one environment."""

    def __init__(self, lib: str, threads: int, env: dict[str, str], setting: str, log: Path):
        self.lib, self.threads, self.setting, self.log = lib, threads, setting, log
        log.parent.mkdir(parents=True, exist_ok=True)
        # stderr to a file: a pipe nobody reads would block a chatty worker.
        with open(log, "w") as err:
            self.proc = subprocess.Popen(
                [sys.executable, str(WORKER), lib, str(threads)], env=env, text=True,
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err)
        self.info: dict | None = None
        self.import_error: str | None = None

    @property
    def pid(self) -> int:
        return self.proc.pid

    def request(self, **req) -> dict:
        try:
            self.proc.stdin.write(json.dumps(req) + "\n")
            self.proc.stdin.flush()
            line = self.proc.stdout.readline()
        except (BrokenPipeError, OSError):
            line = ""
        if not line:
            self.proc.wait()
            err = self.log.read_text(errors="replace")[-2000:] if self.log.is_file() else ""
            raise WorkerError(f"{self.lib} worker died (exit {self.proc.returncode}; log "
                              f"{self.log}): {err}")
        reply = json.loads(line)
        if "error" in reply:
            if reply.get("import_error"):
                self.import_error = reply["error"]
            raise WorkerError(reply["error"])
        return reply

    def start(self) -> "Worker":
        """Waits for the import; records info, or import_error when the library is missing."""
        try:
            self.info = self.request(op="info")
        except WorkerError as e:
            self.import_error = self.import_error or str(e)
        return self

    def trial(self, warmup_s: float, repeats: int, min_sample_s: float) -> float:
        samples = self.request(op="trial", warmup_s=warmup_s, repeats=repeats,
                               min_sample_s=min_sample_s)["samples"]
        samples.sort()
        m = len(samples) // 2
        return samples[m] if len(samples) % 2 else 0.5 * (samples[m - 1] + samples[m])

    def close(self) -> None:
        if self.proc.poll() is None:
            try:
                self.request(op="exit")
            except WorkerError:
                pass
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        for f in (self.proc.stdin, self.proc.stdout):
            f.close()


def median(xs: list[float]) -> float:
    xs = sorted(xs)
    m = len(xs) // 2
    return xs[m] if len(xs) % 2 else 0.5 * (xs[m - 1] + xs[m])


def base_env(threads: int) -> dict[str, str]:
    """The environment of every benchmark process at `threads` threads: thread counts set
    explicitly, reference knobs (set per reference by the calibration) cleared."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("ATEN_CPU_CAPABILITY", "OMP_WAIT_POLICY", "GOMP_SPINCOUNT", "KMP_BLOCKTIME")}
    for k in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "EMBER_NUM_THREADS"):
        env[k] = str(threads)
    return env
