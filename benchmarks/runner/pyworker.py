"""A worker process timing Python cases on one library at one thread count.

  python benchmarks/runner/pyworker.py LIB THREADS

Each library runs in its own process (torch carries its own OpenMP runtime: two thread
pools in one process fight for the cores), kept alive across cases so the runner can
alternate libraries trial by trial without paying an import each time. Requests and
replies are JSON lines on stdin and on the original stdout; anything the libraries print
goes to stderr.

Requests: {"op": "info"}, {"op": "setup", "case": NAME, "quick": BOOL}, {"op": "trial",
"warmup_s": S, "repeats": R, "min_sample_s": S}, {"op": "drop"}, {"op": "exit"}. Replies
carry "error" when the request failed.
"""

from __future__ import annotations

import gc
import json
import math
import os
import sys
import time
import traceback
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def import_lib(lib: str, threads: int):
    if lib == "torch":
        import torch
        torch.set_num_threads(threads)
        return torch
    if lib == "numpy":
        import numpy
        return numpy
    if lib == "scipy":
        import scipy.sparse
        return scipy.sparse
    if lib == "ember":
        import ember
        if hasattr(ember, "set_num_threads"):
            ember.set_num_threads(threads)
        return ember
    raise ValueError(f"unknown library {lib}")


def info(lib: str, mod) -> dict:
    out = {"lib": lib, "version": getattr(mod, "__version__", "?"), "pid": os.getpid()}
    if lib == "torch":
        out.update(threads=mod.get_num_threads(), capability=mod.backends.cpu.get_cpu_capability(),
                   config=mod.__config__.show(), parallel=mod.__config__.parallel_info())
    elif lib == "numpy":
        try:
            blas = mod.show_config(mode="dicts")["Build Dependencies"]["blas"]
            out["config"] = f"BLAS: {blas.get('name')} {blas.get('version', '')}".strip()
        except Exception:  # noqa: BLE001 - only a description for the report
            out["config"] = ""
    elif hasattr(mod, "get_num_threads"):
        out["threads"] = mod.get_num_threads()
    return out


def trial(fn, warmup_s: float, repeats: int, min_sample_s: float) -> dict:
    """Warms up for warmup_s (one call at least), then times `repeats` samples of
    `number` calls each, number chosen so that a sample lasts min_sample_s."""
    t0 = time.perf_counter()
    calls = 0
    while True:
        fn()
        calls += 1
        elapsed = time.perf_counter() - t0
        if elapsed >= warmup_s:
            break
    number = max(1, math.ceil(min_sample_s / (elapsed / calls)))
    samples = []
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        for _ in range(repeats):
            t = time.perf_counter()
            for _ in range(number):
                fn()
            samples.append((time.perf_counter() - t) / number)
    finally:
        if gc_was_enabled:
            gc.enable()
    return {"samples": samples, "number": number}


def main() -> int:
    lib, threads = sys.argv[1], int(sys.argv[2])
    proto = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)  # library chatter goes to stderr, never into the protocol
    sys.stdout = sys.stderr

    def reply(obj):
        proto.write(json.dumps(obj) + "\n")

    try:
        mod = import_lib(lib, threads)
    except Exception as e:  # noqa: BLE001 - reported to the runner, which skips the library
        mod, import_error = None, f"{type(e).__name__}: {e}"
    else:
        import_error = None
    from cases import PY_CASES_BY_NAME  # noqa: E402 (after sys.path and the library)

    fn = None
    for line in sys.stdin:
        req = json.loads(line)
        op = req["op"]
        try:
            if op == "exit":
                reply({"ok": True})
                return 0
            if import_error is not None:
                reply({"error": f"import {lib} failed: {import_error}", "import_error": True})
                continue
            if op == "info":
                reply(info(lib, mod))
            elif op == "setup":
                fn = None
                gc.collect()
                fn = PY_CASES_BY_NAME[req["case"]].setup(lib, mod, bool(req["quick"]))
                fn()  # fail here, not inside a timed trial
                reply({"ok": True})
            elif op == "trial":
                if fn is None:
                    raise RuntimeError("trial before setup")
                reply(trial(fn, float(req["warmup_s"]), int(req["repeats"]),
                            float(req["min_sample_s"])))
            elif op == "drop":
                fn = None
                gc.collect()
                reply({"ok": True})
            else:
                raise ValueError(f"unknown request {op}")
        except Exception as e:  # noqa: BLE001 - the runner reports it on the row
            fn = None if op == "setup" else fn
            reply({"error": f"{type(e).__name__}: {e}",
                   "traceback": traceback.format_exc(limit=4)})
    return 0


if __name__ == "__main__":
    sys.exit(main())
