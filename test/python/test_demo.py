"""The `make demo` script (examples/train_digits.py) in its quick mode: one epoch on Ember."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "examples" / "train_digits.py"


def test_demo_quick(tmp_path):
    pytest.importorskip("sklearn", reason="the demo's dataset needs scikit-learn")
    # The same environment as this suite (PYTHONPATH, EMBER_BUILD_DIR from scripts/run_tests),
    # with python/ as the fallback conftest.py also uses.
    env = dict(os.environ)
    paths = [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
    env["PYTHONPATH"] = os.pathsep.join(paths + [str(REPO / "python")])
    proc = subprocess.run([sys.executable, str(SCRIPT), "--quick", "--out", str(tmp_path)],
                          env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-4000:]

    out = tmp_path / "ember"
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["epochs"] == 1
    assert metrics["test_acc"] > 0.80, proc.stdout
    assert (out / "model.pt").stat().st_size > 0
    assert (out / "training.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert metrics["reload_same"] and metrics["reloaded_test_acc"] == metrics["test_acc"]
    assert "reloaded model.pt" in proc.stdout and "same as trained" in proc.stdout
