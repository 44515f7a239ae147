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
    value: float  # seconds per call (or whatever the measurement returns)
    other_cores: float  # CPU other processes used during the kept attempt
    retries: int  # attempts thrown away as noisy
    noisy: bool  # kept although over the limit (every attempt was)


@dataclass
class NoiseStats:
    trials: int = 0
    retries: int = 0
    noisy_kept: int = 0


@dataclass
class Sampler:
    """Runs a measurement inside a CpuMeter window; when other processes used more than
    `max_other` cores during it, waits (backoff, doubling) and measures again, at most
    `retries` times, then keeps the quietest attempt and flags it."""

    max_other: float
    retries: int
    backoff_s: float
    log: Callable[[str], None]
    stats: NoiseStats = field(default_factory=NoiseStats)

    def measure(self, label: str, fn: Callable[[], object], pids: tuple[int, ...] = ()) -> tuple[Trial, object]:
        best = None
        for attempt in range(self.retries + 1):
            with CpuMeter(pids) as meter:
                result = fn()
            other = meter.window.other_cores
            if best is None or other < best[0]:
                best = (other, result)
            if other <= self.max_other:
                self.stats.trials += 1
                self.stats.retries += attempt
                return Trial(_value(result), other, attempt, False), result
            if attempt < self.retries:
                wait = self.backoff_s * 2 ** attempt
                self.log(f"    {label}: other processes used {other:.2f} cores "
                         f"(limit {self.max_other}); retrying in {wait:g} s")
                time.sleep(wait)
        self.stats.trials += 1
        self.stats.retries += self.retries
        self.stats.noisy_kept += 1
        self.log(f"    {label}: still noisy after {self.retries} retries; keeping the quietest "
                 f"attempt ({best[0]:.2f} cores)")
        return Trial(_value(best[1]), best[0], self.retries, True), best[1]


def _value(result) -> float:
    return result[0] if isinstance(result, tuple) else result


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
