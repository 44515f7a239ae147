"""Building and running the C++ benchmark executables: Ember's Google Benchmark suites and
the stream program (Ember's build tree, -DEMBER_BUILD_BENCHMARKS=ON), and their libtorch
twins (benchmarks/libtorch/, a separate CMake project built into <build>/bench-libtorch
against the torch wheel of this interpreter)."""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
LIBTORCH_SRC = REPO / "benchmarks" / "libtorch"
STREAM_TARGET = "ember_stream"
SCALE = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}


class BenchError(Exception):
    """A build or a benchmark run failed."""


def run(cmd: list, **kwargs) -> subprocess.CompletedProcess:
    proc = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, **kwargs)
    if proc.returncode != 0:
        raise BenchError(
            f"command failed (exit {proc.returncode}): {' '.join(map(str, cmd))}\n"
            f"{proc.stdout[-4000:]}{proc.stderr[-4000:]}")
    return proc


def cmake_cache(build: Path) -> dict[str, str]:
    cache = build / "CMakeCache.txt"
    if not cache.is_file():
        return {}
    out = {}
    for line in cache.read_text().splitlines():
        m = re.match(r"^([A-Za-z_0-9]+):\w+=(.*)$", line)
        if m:
            out[m.group(1)] = m.group(2)
    return out


def build_ember(build: Path, targets: list[str], jobs: int) -> None:
    """Configures `build` with the benchmarks on (once) and builds `targets`."""
    if cmake_cache(build).get("EMBER_BUILD_BENCHMARKS", "OFF").upper() not in ("ON", "1", "TRUE"):
        print(f"configuring {build} with -DEMBER_BUILD_BENCHMARKS=ON", file=sys.stderr, flush=True)
        run([REPO / "scripts" / "configure", build, "-DEMBER_BUILD_BENCHMARKS=ON"])
    run(["cmake", "--build", build, "-j", str(jobs), "--target", *targets])


def torch_dir() -> Path:
    spec = importlib.util.find_spec("torch")
    if spec is None or not spec.submodule_search_locations:
        raise BenchError(f"torch is not installed for {sys.executable}; run `make bootstrap`")
    return Path(spec.submodule_search_locations[0])


def build_libtorch(build: Path, targets: list[str], jobs: int) -> Path:
    """Configures (once, or when the wheel moved) and builds the libtorch benchmarks."""
    out = build / "bench-libtorch"
    cmake_dir = torch_dir() / "share" / "cmake" / "Torch"
    if cmake_cache(out).get("Torch_DIR") != str(cmake_dir):
        # Importing torch is slow; only configuring needs its ABI flag.
        abi = run([sys.executable, "-c",
                   "import torch; print(int(torch.compiled_with_cxx11_abi()))"]).stdout.strip()
        print(f"configuring the libtorch benchmarks in {out} (CXX11 ABI = {abi})",
              file=sys.stderr, flush=True)
        baseline = cmake_cache(build).get("EMBER_CPU_BASELINE", "OFF")
        run(["cmake", "-S", LIBTORCH_SRC, "-B", out, "-G", "Ninja", f"-DTorch_DIR={cmake_dir}",
             f"-DEMBER_TORCH_CXX11_ABI={abi}", f"-DEMBER_CPU_BASELINE={baseline}",
             "-DCMAKE_BUILD_TYPE=Release"])
    run(["cmake", "--build", out, "-j", str(jobs), "--target", *targets])  # no-op when up to date
    return out


def run_gbench(exe: Path, cases: list[str], env: dict, repetitions: int, min_time: float,
               warmup_s: float, timers: dict[str, str]) -> tuple[dict[str, float], dict]:
    """One run of a Google Benchmark executable on `cases`: ({case: median seconds per
    iteration over the repetitions}, the run's context). timers[case] is "cpu" (the
    benchmark thread's CPU time) or "real" (wall time)."""
    pattern = "^(" + "|".join(re.escape(c) for c in cases) + ")$"
    cmd = [exe, f"--benchmark_filter={pattern}", "--benchmark_format=json",
           f"--benchmark_repetitions={repetitions}", "--benchmark_report_aggregates_only=true",
           f"--benchmark_min_time={min_time}", f"--benchmark_min_warmup_time={warmup_s}"]
    report = json.loads(run(cmd, env=env).stdout)
    medians = {}
    for b in report["benchmarks"]:
        # With one repetition Google Benchmark reports the run itself, no aggregates.
        if b.get("aggregate_name") == "median" or (repetitions == 1 and b.get("run_type") == "iteration"):
            key = "cpu_time" if timers.get(b["run_name"]) == "cpu" else "real_time"
            medians[b["run_name"]] = b[key] * SCALE[b["time_unit"]]
    missing = [c for c in cases if c not in medians]
    if missing:
        raise BenchError(f"{exe.name} reported no median for {', '.join(missing)}")
    return medians, report.get("context", {})


def list_gbench(exe: Path) -> list[str]:
    return run([exe, "--benchmark_list_tests=true"]).stdout.split()


def run_stream(exe: Path, n: int, threads: int, reps: int) -> dict:
    """One run of the stream program: {"copy": {...,"GBps"}, "triad": {...}}."""
    return json.loads(run([exe, "--n", n, "--threads", threads, "--reps", reps]).stdout)
