#!/usr/bin/env python3
"""Ember's benchmarks beside libtorch, PyTorch and numpy, with a report: `make bench`.

  .venv/bin/python benchmarks/run.py [--build build] [--quick] [--filter REGEX] [--threads 1,2]

Builds what it runs (Ember's benchmark executables and the stream program in the build
tree, configured with -DEMBER_BUILD_BENCHMARKS=ON; the libtorch twins in
<build>/bench-libtorch), measures each reference under each candidate setting once and
keeps the faster, measures this machine's memory bandwidth (stream), then runs every case
selected, each at each thread count: Ember and its references alternate trial by trial,
each in its own process, and a trial during which other processes used the CPU is
retried. Writes <build>/bench/results.json, results.md and ratios.png (--out to change where).

Exits 0 when goals are missed (this is a report); non-zero when a build or a run fails.
See benchmarks/README.md for adding a case and reading the report.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from cases import CPP_SUITES, PY_CASES  # noqa: E402
from runner import cpp, report  # noqa: E402
from runner.cpp import BenchError  # noqa: E402
from runner.measure import Sampler, Worker, WorkerError, base_env, median  # noqa: E402
from runner.registry import CppCase, CppSuite, PyCase  # noqa: E402


@dataclass(frozen=True)
class Mode:
    """How long to measure: the full run, or the quick smoke pass."""

    name: str
    rounds: int  # trials per library per row, alternating
    cpp_reps: int  # Google Benchmark repetitions per trial (median taken)
    cpp_min_time: float  # seconds per repetition
    cpp_warmup: float
    py_warmup: float
    py_repeats: int  # samples per trial (median taken)
    py_min_sample: float  # seconds per sample
    cal_cpp_min_time: float  # calibration: one short trial per candidate setting
    cal_py_repeats: int
    cal_py_min_sample: float
    stream_n: int
    stream_reps: int
    retries: int  # of a noisy trial
    quiet_wait_s: float  # before a trial, wait at most this long for a quiet machine
    noise_budget_s: float  # waiting and retries, whole run


FULL = Mode("full", rounds=5, cpp_reps=5, cpp_min_time=0.1, cpp_warmup=0.05, py_warmup=0.2,
            py_repeats=7, py_min_sample=0.05, cal_cpp_min_time=0.05, cal_py_repeats=3,
            cal_py_min_sample=0.03, stream_n=64 << 20, stream_reps=10, retries=3, quiet_wait_s=3.0,
            noise_budget_s=300.0)
QUICK = Mode("quick", rounds=2, cpp_reps=2, cpp_min_time=0.01, cpp_warmup=0.0, py_warmup=0.02,
             py_repeats=3, py_min_sample=0.005, cal_cpp_min_time=0.01, cal_py_repeats=2,
             cal_py_min_sample=0.005, stream_n=4 << 20, stream_reps=3, retries=1, quiet_wait_s=0.5,
             noise_budget_s=5.0)


# A calibration trial only ranks settings (by 10% and more, typically): one retry at most,
# and no more than a quarter of the noise budget, so a busy machine spends it on the rows.
CALIBRATION_RETRIES = 1
CALIBRATION_BUDGET_SHARE = 0.25


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def cpu_flags() -> set[str]:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("flags"):
                return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


def candidates(reference: str) -> list[dict[str, str]]:
    """The settings a reference is measured under once each; the faster is kept.

    torch (and libtorch) pick their SIMD kernels at start-up (ATEN_CPU_CAPABILITY; some
    builds pick AVX2 on AVX-512 machines), and their OpenMP threads spin after each
    parallel region unless OMP_WAIT_POLICY=PASSIVE (spinning fought MKL's own pool here).
    Thread counts are always set explicitly (base_env, torch.set_num_threads)."""
    if reference not in ("torch", "libtorch"):
        return [{}]
    caps = ["avx2"] + (["avx512"] if "avx512f" in cpu_flags() else [])
    return [{"ATEN_CPU_CAPABILITY": c, **({"OMP_WAIT_POLICY": w} if w else {})}
            for c in caps for w in (None, "PASSIVE")]


def setting_label(setting: dict[str, str]) -> str:
    return " ".join(f"{k}={v}" for k, v in setting.items()) or "defaults"


def torch_info() -> dict:
    """torch's version and build configuration, from a short-lived process."""
    code = ("import json, torch; print(json.dumps({'lib': 'torch', 'version': torch.__version__, "
            "'config': torch.__config__.show(), 'parallel': torch.__config__.parallel_info()}))")
    return json.loads(cpp.run([sys.executable, "-c", code]).stdout)


def geomean(xs: list[float]) -> float:
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


class Runner:
    def __init__(self, args, mode: Mode):
        self.args, self.mode = args, mode
        self.build = args.build.resolve()
        self.out = (args.out or self.build / "bench").resolve()
        self.sampler = Sampler(args.max_other_cpu,
                               mode.retries if args.retries is None else args.retries,
                               mode.quiet_wait_s,
                               mode.noise_budget_s if args.noise_budget is None else args.noise_budget,
                               log)
        self.workers: dict[tuple[str, int], Worker] = {}  # (lib, threads) -> chosen worker
        self.ember_missing: str | None = None
        self.calibrations: list[dict] = []
        self.stream: dict[int, dict] = {}
        self.libtorch_context: dict[str, dict] = {}  # suite -> context under the kept setting
        self.rows: list[dict] = []
        self.step = 0
        self.steps = 0

    # --- selection --------------------------------------------------------------------
    def select(self):
        pat = re.compile(self.args.filter) if self.args.filter else None
        threads = self.args.threads

        def keep(name):
            return pat is None or pat.search(name)

        self.cpp_units = [(s, c, t) for s in CPP_SUITES for c in s.cases if keep(c.name)
                          for t in c.threads if t in threads]
        self.py_units = [(c, t) for c in PY_CASES if keep(c.name) for t in c.threads if t in threads]
        if not self.cpp_units and not self.py_units:
            raise BenchError(f"no case matches --filter {self.args.filter!r} at threads {threads}")
        self.threads = sorted({t for *_, t in self.cpp_units} | {t for _, t in self.py_units}
                              | set(threads))

    # --- building ---------------------------------------------------------------------
    def build_all(self):
        suites = sorted({s.name: s for s, _, _ in self.cpp_units}.values(), key=lambda s: s.name)
        log(f"building the benchmarks in {self.build} (-j{self.args.jobs})")
        cpp.build_ember(self.build, [s.ember_target for s in suites] + [cpp.STREAM_TARGET],
                        self.args.jobs)
        self.stream_exe = self.build / "benchmarks" / "cpp" / cpp.STREAM_TARGET
        self.exes: dict[tuple[str, str], Path] = {}
        if suites:
            lt = cpp.build_libtorch(self.build, [s.reference_target for s in suites], self.args.jobs)
            for s in suites:
                self.exes[(s.name, "ember")] = self.build / "benchmarks" / "cpp" / s.ember_target
                self.exes[(s.name, "reference")] = lt / s.reference_target

    # --- Python workers and reference calibration -------------------------------------
    def worker_log(self, lib, threads, i):
        return self.out / "logs" / f"{lib}-t{threads}-{i}.log"

    def start_python(self):
        """Starts every Python worker at once (their imports overlap), then calibrates."""
        need: dict[tuple[str, int], list[PyCase]] = {}
        for c, t in self.py_units:
            for lib in c.libs:
                need.setdefault((lib, t), []).append(c)
        pending: dict[tuple[str, int], list[tuple[dict, Worker]]] = {}
        for (lib, t) in need:
            env = base_env(t)
            if lib == "ember":  # where the module will be built (a later issue)
                paths = [str(p) for p in (self.build / "python", cpp.REPO / "python") if p.is_dir()]
                env["PYTHONPATH"] = ":".join(paths + [env.get("PYTHONPATH", "")]).strip(":")
            pending[(lib, t)] = [
                (s, Worker(lib, t, {**env, **s}, setting_label(s), self.worker_log(lib, t, i)))
                for i, s in enumerate(candidates(lib))]
        for ws in pending.values():
            for _, w in ws:
                w.start()
        for (lib, t), ws in sorted(pending.items(), key=lambda kv: (kv[0][1], kv[0][0])):
            broken = [w for _, w in ws if w.import_error]
            if broken:
                if lib == "ember":
                    self.ember_missing = broken[0].import_error
                else:
                    raise BenchError(f"{lib} cannot be imported: {broken[0].import_error}")
                for _, w in ws:
                    w.close()
                continue
            if len(ws) == 1:
                self.workers[(lib, t)] = ws[0][1]
                continue
            self.workers[(lib, t)] = self.calibrate_python(lib, t, ws, need[(lib, t)])
        if self.ember_missing:
            log(f"ember: not available yet ({self.ember_missing}); its rows report the "
                "references alone")

    def calibrate_python(self, lib, t, ws, cases_: list[PyCase]) -> Worker:
        self.progress(f"calibrating {lib} at {t} thread(s): {len(ws)} settings x "
                      f"{len(cases_)} case(s)")
        times: dict[int, list[float]] = {i: [] for i in range(len(ws))}
        others: dict[int, list[float]] = {i: [] for i in range(len(ws))}
        m = self.mode
        for k, c in enumerate(cases_):
            order = list(range(len(ws)))
            for i in order if k % 2 == 0 else order[::-1]:
                w = ws[i][1]
                w.request(op="setup", case=c.name, quick=self.args.quick)
                trial, value = self.sampler.measure(
                    f"calibrate {lib} {c.name} t={t} {w.setting}",
                    lambda: w.trial(m.py_warmup / 2, m.cal_py_repeats, m.cal_py_min_sample),
                    (w.pid,), retries=CALIBRATION_RETRIES,
                    share=CALIBRATION_BUDGET_SHARE)
                w.request(op="drop")
                times[i].append(value)
                others[i].append(trial.other_cores)
        chosen = self.record_calibration(lib, t, [c.name for c in cases_],
                                         [(s, w.setting, w.info) for s, w in ws], times, others)
        for i, (_, w) in enumerate(ws):
            if i != chosen:
                w.close()
        return ws[chosen][1]

    def record_calibration(self, ref, t, case_names, cands, times, others) -> int:
        scores = [geomean(times[i]) for i in range(len(cands))]
        best = min(range(len(cands)), key=scores.__getitem__)
        self.calibrations.append({
            "reference": ref, "threads": t, "cases": case_names,
            "candidates": [{"setting": label, "env": s, "score_s": scores[i],
                            "relative": scores[i] / scores[best], "chosen": i == best,
                            "other_cpu": max(others[i]),
                            "capability": (info or {}).get("capability") or (info or {}).get("cpu_capability")}
                           for i, (s, label, info) in enumerate(cands)]})
        log(f"    {ref} t={t}: keeping {cands[best][1]} ("
            + ", ".join(f"{cands[i][1]}: {scores[i] / scores[best]:.2f}x"
                        for i in range(len(cands)) if i != best) + ")")
        return best

    def calibrate_libtorch(self):
        """Per suite and thread count: the reference executable under each setting."""
        self.libtorch_env: dict[tuple[str, int], tuple[dict, str]] = {}
        groups: dict[tuple[str, int], list[CppCase]] = {}
        suites = {}
        for s, c, t in self.cpp_units:
            groups.setdefault((s.name, t), []).append(c)
            suites[s.name] = s
        m = self.mode
        for (sname, t), cs in groups.items():
            s = suites[sname]
            exe = self.exes[(sname, "reference")]
            cands = candidates(s.reference)
            self.progress(f"calibrating {s.reference} ({sname}) at {t} thread(s): "
                          f"{len(cands)} settings x {len(cs)} case(s)")
            times, others, infos = {}, {}, []
            for i, setting in enumerate(cands):
                env = {**base_env(t), **setting}
                trial, (medians, ctx) = self.sampler.measure(
                    f"calibrate {s.reference} t={t} {setting_label(setting)}",
                    lambda: cpp.run_gbench(exe, [c.name for c in cs], env, 1, m.cal_cpp_min_time,
                                           m.cpp_warmup, self.timers(cs, t)),
                    retries=CALIBRATION_RETRIES,
                    share=CALIBRATION_BUDGET_SHARE)
                times[i] = [medians[c.name] for c in cs]
                others[i] = [trial.other_cores]
                infos.append((setting, setting_label(setting), ctx))
            best = self.record_calibration(s.reference, t, [c.name for c in cs], infos, times,
                                           others)
            self.libtorch_context.setdefault(sname, infos[best][2])
            self.libtorch_env[(sname, t)] = (cands[best], setting_label(cands[best]))

    @staticmethod
    def timers(cs: list[CppCase], t: int) -> dict[str, str]:
        return {c.name: ("real" if t > 1 else c.timer) for c in cs}

    # --- stream -------------------------------------------------------------------------
    def measure_stream(self):
        self.progress(f"stream: copy and triad bandwidth at {', '.join(map(str, self.threads))} "
                      f"thread(s), {self.mode.stream_n >> 20}M float32 arrays")
        runs: dict[int, list[dict]] = {t: [] for t in self.threads}
        others: dict[int, list[float]] = {t: [] for t in self.threads}
        for r in range(self.mode.rounds):
            for t in self.threads if r % 2 == 0 else self.threads[::-1]:
                trial, res = self.sampler.measure(
                    f"stream t={t}",
                    lambda: cpp.run_stream(self.stream_exe, self.mode.stream_n, t, self.mode.stream_reps))
                runs[t].append(res)
                others[t].append(trial.other_cores)
        for t in self.threads:
            self.stream[t] = {
                "n": self.mode.stream_n,
                **{k: {"GBps": median([x[k]["GBps"] for x in runs[t]]),
                       "best_GBps": max(x[k]["best_GBps"] for x in runs[t])} for k in ("copy", "triad")},
                "other_cpu": max(others[t])}
            log(f"    t={t}: copy {self.stream[t]['copy']['GBps']:.1f} GB/s, "
                f"triad {self.stream[t]['triad']['GBps']:.1f} GB/s")

    # --- cases --------------------------------------------------------------------------
    def progress(self, msg: str):
        self.step += 1
        log(f"[{self.step}/{self.steps} {time.time() - self.t0:4.0f}s] {msg}")

    def run_cpp_unit(self, s: CppSuite, c: CppCase, t: int):
        m = self.mode
        ref_env, ref_label = self.libtorch_env[(s.name, t)]
        sides = [("reference", self.exes[(s.name, "reference")], {**base_env(t), **ref_env})]
        if not c.reference_only:
            sides.insert(0, ("ember", self.exes[(s.name, "ember")], base_env(t)))
        self.progress(f"{c.name} t={t}: {' vs '.join('ember' if k == 'ember' else s.reference for k, *_ in sides)}, "
                      f"{m.rounds} rounds")
        times: dict[str, list[float]] = {k: [] for k, *_ in sides}
        trials = []
        timer = self.timers([c], t)
        for r in range(m.rounds):
            for side, exe, env in sides if r % 2 == 0 else sides[::-1]:
                trial, (medians, _) = self.sampler.measure(
                    f"{c.name} t={t} {side} round {r + 1}",
                    lambda: cpp.run_gbench(exe, [c.name], env, m.cpp_reps, m.cpp_min_time,
                                           m.cpp_warmup, timer))
                times[side].append(medians[c.name])
                trials.append(trial)
        ember_s = median(times["ember"]) if "ember" in times else None
        ref_s = median(times["reference"])
        note = c.note
        if c.reference_only:
            note = "reference only (Ember's side comes with its kernels)" + (f"; {note}" if note else "")
        self.add_row(c.name, t, "cpp", ember_s, s.reference, ref_s, c.goal, trials, note,
                     suite=s.name, setting=ref_label)

    def run_py_unit(self, c: PyCase, t: int):
        m = self.mode
        libs = [lib for lib in c.libs if (lib, t) in self.workers]
        size = c.quick_size if self.args.quick else c.size
        self.progress(f"{c.name} t={t}: {' vs '.join(libs)}, {size}, {m.rounds} rounds")
        errors = {}
        for lib in libs:
            try:
                self.workers[(lib, t)].request(op="setup", case=c.name, quick=self.args.quick)
            except WorkerError as e:
                errors[lib] = str(e)
                log(f"    {lib}: setup failed: {e}")
        libs = [lib for lib in libs if lib not in errors]
        times: dict[str, list[float]] = {lib: [] for lib in libs}
        trials = []
        for r in range(m.rounds):
            for lib in libs if r % 2 == 0 else libs[::-1]:
                w = self.workers[(lib, t)]
                trial, value = self.sampler.measure(
                    f"{c.name} t={t} {lib} round {r + 1}",
                    lambda: w.trial(m.py_warmup, m.py_repeats, m.py_min_sample), (w.pid,))
                times[lib].append(value)
                trials.append(trial)
        for lib in libs:
            self.workers[(lib, t)].request(op="drop")
        med = {lib: median(v) for lib, v in times.items()}
        notes = [c.note] if c.note else []
        if "ember" not in med:
            notes.append("ember: not available yet" if self.ember_missing
                         else f"ember: {errors.get('ember', 'not run')}")
        notes += [f"{lib}: {e}" for lib, e in errors.items() if lib != "ember"]
        extra = {"times": med, "size": size}
        stream_s = None
        if c.stream:
            gbps = self.stream[t][c.stream]["GBps"]
            stream_s = c.bytes_moved(self.args.quick) / (gbps * 1e9)
            extra["stream_GBps"] = gbps
            extra["fraction_of_stream"] = {lib: stream_s / s for lib, s in med.items()}
        for ref, goal in c.goals.items():
            ref_s = stream_s if ref == "stream" else med.get(ref)
            self.add_row(c.name, t, "python", med.get("ember"), ref, ref_s, goal, trials,
                         "; ".join(notes), setting=self.workers[(ref, t)].setting
                         if (ref, t) in self.workers else "", **extra)

    def add_row(self, name, t, kind, ember_s, ref, ref_s, goal, trials, note, **extra):
        ratio = ember_s / ref_s if ember_s is not None and ref_s else None
        row = {"name": name, "threads": t, "ember_s": ember_s, "reference": ref,
               "reference_s": ref_s, "ratio": ratio, "goal": goal,
               "met": None if ratio is None or goal is None else ratio <= goal,
               "kind": kind,
               "other_cpu": round(max(x.other_cores for x in trials), 3),
               "other_cpu_mean": round(sum(x.other_cores for x in trials) / len(trials), 3),
               "retries": sum(x.retries for x in trials),
               "noisy_trials": sum(x.noisy for x in trials),
               "note": note, **extra}
        self.rows.append(row)
        log("    " + report.row_line(row))

    # --- all ----------------------------------------------------------------------------
    def run(self) -> int:
        self.t0 = t0 = time.time()
        self.select()
        calib_cpp = len({(s.name, t) for s, _, t in self.cpp_units})
        calib_py = len({(lib, t) for c, t in self.py_units for lib in c.libs
                        if len(candidates(lib)) > 1})
        self.steps = calib_cpp + calib_py + 1 + len(self.cpp_units) + len(self.py_units)
        log(f"{self.mode.name} run: {len(self.cpp_units)} C++ and {len(self.py_units)} Python "
            f"case x thread rows, threads {self.threads}"
            + (f", filter {self.args.filter!r}" if self.args.filter else ""))
        self.build_all()
        log(f"built in {time.time() - t0:.0f} s")
        self.out.mkdir(parents=True, exist_ok=True)
        try:
            self.start_python()
            if self.cpp_units:
                self.calibrate_libtorch()
            self.measure_stream()
            for s, c, t in self.cpp_units:
                self.run_cpp_unit(s, c, t)
            for c, t in self.py_units:
                self.run_py_unit(c, t)
            infos = {f"{lib} at {t} thread(s)": w.info
                     for (lib, t), w in sorted(self.workers.items()) if w.info}
            if not any(i["lib"] == "torch" for i in infos.values()):
                infos["torch (for its configuration)"] = torch_info()
        finally:
            for w in self.workers.values():
                w.close()
        ctx = {
            "mode": self.mode, "quick": self.args.quick, "filter": self.args.filter,
            "threads": self.threads, "max_other_cpu": self.args.max_other_cpu,
            "noise": self.sampler.stats, "retries": self.sampler.retries,
            "stream": self.stream, "calibrations": self.calibrations, "infos": infos,
            "libtorch": self.libtorch_context, "ember_missing": self.ember_missing,
            "suites": sorted({s.name: s for s, _, _ in self.cpp_units}.values(), key=lambda s: s.name),
            "py_cases": sorted({c.name: c for c, _ in self.py_units}.values(), key=lambda c: c.name),
            "elapsed_s": time.time() - t0, "build": self.build,
        }
        paths = report.write_all(self.out, self.rows, ctx)
        print(report.console_table(self.rows))
        s = self.sampler.stats
        print(f"\n{s.trials} trials, {s.retries} retried for noise, {s.noisy_kept} kept noisy; "
              f"{time.time() - t0:.0f} s")
        for p in paths:
            print(f"wrote {p}")
        return 0


def parse_threads(s: str) -> list[int]:
    try:
        ts = sorted({int(x) for x in s.split(",") if x.strip()})
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected thread counts like 1,2, got {s!r}")
    if not ts or min(ts) < 1:
        raise argparse.ArgumentTypeError(f"expected thread counts like 1,2, got {s!r}")
    return ts


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default="build", type=Path, help="Ember build tree (default build)")
    ap.add_argument("--quick", action="store_true",
                    help="smoke pass: 2 rounds, short trials, smaller memory-bound sizes")
    ap.add_argument("--filter", default="", help="regex on case names (re.search)")
    ap.add_argument("--threads", default=[1, 2], type=parse_threads,
                    help="thread counts to run, e.g. 1,2 (default); a case runs at those it lists")
    ap.add_argument("--out", type=Path, default=None,
                    help="where the report goes (default BUILD/bench)")
    ap.add_argument("--jobs", type=int, default=2, help="parallel build jobs (default 2)")
    ap.add_argument("--max-other-cpu", type=float, default=0.2,
                    help="cores other processes may use during a trial before it is retried")
    ap.add_argument("--retries", type=int, default=None,
                    help="retries of a noisy trial (default 3, quick 1)")
    ap.add_argument("--noise-budget", type=float, default=None,
                    help="seconds the whole run may spend waiting for quiet and retrying "
                         "(default 300, quick 5)")
    args = ap.parse_args(argv)
    try:
        return Runner(args, QUICK if args.quick else FULL).run()
    except (BenchError, WorkerError, re.error) as e:
        print(f"run.py: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
