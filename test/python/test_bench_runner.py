"""The benchmark runner (benchmarks/run.py) works end to end: a quick pass over one C++
case (Ember against libtorch) and one Python case (torch and numpy, ember when it exists),
at 1 and 2 threads, writes results.json, results.md and ratios.png, well formed.

It builds what it runs in the build tree under test (EMBER_BUILD_DIR, default build):
the first time, configuring it with -DEMBER_BUILD_BENCHMARKS=ON and building the libtorch
twin take a minute or so; after that the pass takes seconds (more on a busy machine: the
runner waits for quiet, within its quick-mode budget).
"""

import json
import math
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
BUILD = (REPO / os.environ.get("EMBER_BUILD_DIR", "build")).resolve()
CASES = ("noop_unboxed", "py_add_1k")
REQUIRED = {"name": str, "threads": int, "reference": str}
NUMBER_OR_NULL = ("ember_s", "reference_s", "ratio", "goal")


def cmake_cache_value(key: str) -> str:
    cache = BUILD / "CMakeCache.txt"
    if not cache.is_file():
        return ""
    m = re.search(rf"^{key}:\w+=(.*)$", cache.read_text(), re.MULTILINE)
    return m.group(1) if m else ""


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    if cmake_cache_value("EMBER_SANITIZE"):
        pytest.skip(f"{BUILD} is a sanitizer build: benchmarks are not run there")
    out = tmp_path_factory.mktemp("bench")
    cmd = [sys.executable, str(REPO / "benchmarks" / "run.py"), "--build", str(BUILD), "--quick",
           "--filter", "^(" + "|".join(CASES) + ")$", "--threads", "1,2", "--out", str(out)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, f"{' '.join(cmd)} failed:\n{proc.stdout}\n{proc.stderr[-6000:]}"
    return out, proc


def test_results_json(report):
    out, _ = report
    rows = json.loads((out / "results.json").read_text())
    assert isinstance(rows, list) and rows
    for row in rows:
        for key, typ in REQUIRED.items():
            assert isinstance(row[key], typ), (key, row)
        for key in NUMBER_OR_NULL:
            assert row[key] is None or (isinstance(row[key], (int, float)) and row[key] > 0), (key, row)
        if row["ember_s"] is not None and row["reference_s"] is not None:
            assert math.isclose(row["ratio"], row["ember_s"] / row["reference_s"], rel_tol=1e-9)
        else:
            assert row["ratio"] is None and row["note"], row
        assert row["other_cpu"] >= 0
    seen = {(r["name"], r["threads"], r["reference"]) for r in rows}
    # The dispatch case: single thread, Ember against libtorch, with its goal.
    noop = [r for r in rows if r["name"] == "noop_unboxed"]
    assert [(r["threads"], r["reference"], r["goal"]) for r in noop] == [(1, "libtorch", 0.5)]
    assert noop[0]["ratio"] is not None
    # The Python case: both thread counts, against torch and numpy, each timed.
    for t in (1, 2):
        for ref in ("torch", "numpy"):
            assert ("py_add_1k", t, ref) in seen
    for r in rows:
        if r["name"] == "py_add_1k":
            assert r["reference_s"] is not None and set(r["times"]) >= {"torch", "numpy"}


def test_results_md(report):
    out, proc = report
    md = (out / "results.md").read_text()
    assert md.startswith("# Ember benchmarks")
    assert "QUICK run" in md
    assert "| case | threads | ember | reference |" in md
    for name in CASES:
        assert f"| {name} |" in md
    for section in ("## Memory bandwidth (stream)", "## Reference settings",
                    "## torch.__config__.show()"):
        assert section in md
    assert "**kept**" in md  # a reference setting was chosen by measurement
    assert "wrote" in proc.stdout


def test_ratios_png(report):
    out, _ = report
    png = out / "ratios.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    import matplotlib.image
    img = matplotlib.image.imread(png)
    assert img.shape[0] > 100 and img.shape[1] > 100
