#!/usr/bin/env python3
"""Per-call dispatcher overhead of Ember against libtorch, case for case.

Runs <build>/benchmarks/cpp/ember_dispatch_bench (built with -DEMBER_BUILD_BENCHMARKS=ON)
and the libtorch build of the same cases (benchmarks/libtorch/, built here into
<build>/bench-libtorch against the torch wheel of this interpreter), alternating the two
for several rounds so that machine noise hits both, and prints ember/libtorch ratios
against the goal. Writes <build>/bench/dispatch.json.

  .venv/bin/python benchmarks/dispatch_bench.py --build build [--quick]

Exits 0 when goals are missed (this is a report); non-zero only when building or running
a benchmark fails.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
LIBTORCH_SRC = REPO / "benchmarks" / "libtorch"
CASES = ("noop_unboxed", "noop_boxed", "noop_void_unboxed", "noop_void_boxed", "key_extraction",
         "empty_4", "view")
# libtorch-only figures printed for the record (Ember's rows come with its kernels).
REFERENCE_ONLY = ("ref_add", "ref_add_out", "ref_add_autograd")
GOAL = 0.5  # Ember's time per call at most half of libtorch's.
NOTES = (
    "times are per call, single thread (OMP_NUM_THREADS=1), the median over rounds of "
    "each run's median CPU time",
    "libtorch: bench::noop has a CPU kernel and an Autograd fallthrough (Ember's autograd "
    "keys fall through), so both dispatch straight to the CPU kernel",
    "libtorch: at::empty and view run through its Autograd and ADInplaceOrView layers, as "
    "for any user without InferenceMode; Ember has no autograd layer yet",
    "libtorch: key_extraction times DispatchKeyExtractor::getDispatchKeySetUnboxed on an "
    "extractor rebuilt from the op's schema and fallthrough keys (no public accessor to "
    "the op's own; see Note [libtorch key extraction])",
)


class BenchError(Exception):
    """A build or benchmark run failed."""


def run(cmd: list[str], **kwargs) -> subprocess.CompletedProcess:
    proc = subprocess.run(cmd, capture_output=True, text=True, **kwargs)
    if proc.returncode != 0:
        raise BenchError(
            f"command failed (exit {proc.returncode}): {' '.join(map(str, cmd))}\n"
            f"{proc.stdout[-4000:]}{proc.stderr[-4000:]}")
    return proc


def torch_dir() -> Path:
    spec = importlib.util.find_spec("torch")
    if spec is None or not spec.submodule_search_locations:
        raise BenchError(f"torch is not installed for {sys.executable}; run `make bootstrap`")
    return Path(spec.submodule_search_locations[0])


def build_libtorch_bench(build: Path, jobs: int) -> Path:
    """Configures (once, or when the wheel moved) and builds the libtorch benchmark."""
    out = build / "bench-libtorch"
    cmake_dir = torch_dir() / "share" / "cmake" / "Torch"
    cache = out / "CMakeCache.txt"
    configured = cache.is_file() and re.search(
        rf"^Torch_DIR:\w+={re.escape(str(cmake_dir))}$", cache.read_text(), re.MULTILINE)
    if not configured:
        # Importing torch is slow; only configuring needs its ABI flag.
        abi = run([sys.executable, "-c",
                   "import torch; print(int(torch.compiled_with_cxx11_abi()))"]).stdout.strip()
        print(f"configuring the libtorch benchmark in {out} (CXX11 ABI = {abi})", flush=True)
        run(["cmake", "-S", str(LIBTORCH_SRC), "-B", str(out), "-G", "Ninja",
             f"-DTorch_DIR={cmake_dir}", f"-DEMBER_TORCH_CXX11_ABI={abi}",
             "-DCMAKE_BUILD_TYPE=Release"])
    run(["cmake", "--build", str(out), "-j", str(jobs)])  # a no-op when up to date
    return out / "torch_dispatch_bench"


def run_bench(exe: Path, repetitions: int, min_time: float | None) -> dict:
    """One run of a benchmark executable: {case: median CPU seconds per call}, context."""
    cmd = [str(exe), "--benchmark_format=json", f"--benchmark_repetitions={repetitions}",
           "--benchmark_report_aggregates_only=true"]
    if min_time is not None:
        cmd.append(f"--benchmark_min_time={min_time}")  # seconds (Google Benchmark 1.7)
    env = dict(os.environ, OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    report = json.loads(run(cmd, env=env).stdout)
    scale = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
    medians = {}
    for b in report["benchmarks"]:
        if b.get("aggregate_name") == "median":
            medians[b["run_name"]] = b["cpu_time"] * scale[b["time_unit"]]
    expected = CASES + ("tensor_copy",) + (REFERENCE_ONLY if "torch" in exe.name else ())
    missing = [c for c in expected if c not in medians]
    if missing:
        raise BenchError(f"{exe.name} reported no median for {', '.join(missing)}")
    return {"medians": medians, "context": report.get("context", {})}


def format_table(rows: list[dict], reference: str) -> str:
    head = ("case", "ember ns", f"{reference} ns", "ratio", "goal", "")
    lines = [head]
    for r in rows:
        lines.append((r["name"], f"{r['ember_s'] * 1e9:.1f}", f"{r['reference_s'] * 1e9:.1f}",
                      f"{r['ratio']:.2f}", f"<= {r['goal']}",
                      "met" if r["ratio"] <= r["goal"] else "missed"))
    widths = [max(len(line[i]) for line in lines) for i in range(len(head))]
    fmt = lambda line: "  ".join(  # noqa: E731
        cell.ljust(w) if i == 0 else cell.rjust(w) for i, (cell, w) in enumerate(zip(line, widths)))
    out = [fmt(lines[0]), "  ".join("-" * w for w in widths)]
    out += [fmt(line) for line in lines[1:]]
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default="build", type=Path, help="Ember build tree")
    ap.add_argument("--quick", action="store_true",
                    help="3 repetitions of 0.05 s per run instead of 10 of 0.5 s")
    ap.add_argument("--rounds", type=int, default=None,
                    help="times each executable runs, alternating (default 3)")
    ap.add_argument("--jobs", type=int, default=2, help="parallel jobs for the libtorch build")
    args = ap.parse_args(argv)

    build = args.build.resolve()
    repetitions, min_time = (3, 0.05) if args.quick else (10, None)
    rounds = args.rounds or 3
    try:
        ember_exe = build / "benchmarks" / "cpp" / "ember_dispatch_bench"
        if not ember_exe.is_file():
            raise BenchError(f"{ember_exe} is missing: configure with -DEMBER_BUILD_BENCHMARKS=ON "
                             "and build (or run `make bench`)")
        if shutil.which("cmake") is None:
            raise BenchError("cmake is not on PATH")
        torch_exe = build_libtorch_bench(build, args.jobs)

        runs: dict[str, list[dict]] = {"ember": [], "libtorch": []}
        exes = [("ember", ember_exe), ("libtorch", torch_exe)]
        for i in range(rounds):
            # Alternate which goes first, so drift in machine load hits both alike.
            for name, exe in exes if i % 2 == 0 else exes[::-1]:
                print(f"round {i + 1}/{rounds}: {name}", file=sys.stderr, flush=True)
                runs[name].append(run_bench(exe, repetitions, min_time))
    except BenchError as e:
        print(f"dispatch_bench: {e}", file=sys.stderr)
        return 1

    version = runs["libtorch"][0]["context"].get("torch_version", "")
    reference = "libtorch " + ".".join(version.split(".")[:2]) if version else "libtorch"
    rows = []
    for case in CASES:
        ember_s = statistics.median(r["medians"][case] for r in runs["ember"])
        ref_s = statistics.median(r["medians"][case] for r in runs["libtorch"])
        rows.append({"name": case, "threads": 1, "ember_s": ember_s, "reference": reference,
                     "reference_s": ref_s, "ratio": ember_s / ref_s, "goal": GOAL})

    print(f"\nDispatch overhead, Ember vs {reference} ({rounds} rounds x {repetitions} "
          f"repetitions{', quick' if args.quick else ''})\n")
    print(format_table(rows, reference))
    print()
    for note in NOTES:
        print(f"note: {note}")
    floor = [statistics.median(r["medians"]["tensor_copy"] for r in runs[n]) * 1e9
             for n in ("ember", "libtorch")]
    print(f"\nfloor: copying and dropping a tensor handle (one atomic increment and decrement) "
          f"costs {floor[0]:.1f} ns in Ember and {floor[1]:.1f} ns in {reference}; noop_unboxed "
          f"pays it once, the boxed cases two or three times, on both sides")
    print(f"\n{reference} alone, for the record (ns per call):")
    for case in REFERENCE_ONLY:
        ref_s = statistics.median(r["medians"][case] for r in runs["libtorch"])
        print(f"  {case:<18} {ref_s * 1e9:8.1f}")
    missed = [r["name"] for r in rows if r["ratio"] > r["goal"]]
    print(f"\n{len(rows) - len(missed)}/{len(rows)} goals met"
          + (f"; missed: {', '.join(missed)}" if missed else ""))

    out = build / "bench" / "dispatch.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(rows, indent=2) + "\n")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
