"""Shared pytest setup for test/python.

The suites import `ember` from the PYTHONPATH scripts/run_tests sets (python/, or a sanitizer
build's own package folder); python/ is only a fallback, after it, so a sanitizer run never
picks up the plain module built into python/. A build tree
without the Python module (the sanitizer build: EMBER_PYTHON_MODULE=absent) skips the
suites that need it; anywhere else a failing `import ember` fails them.
"""
import os
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
if str(REPO / "python") not in sys.path:
    sys.path.append(str(REPO / "python"))

# Suites that do not import ember.
_WITHOUT_MODULE = {"test_codegen.py", "test_bench_runner.py"}

collect_ignore = []
if os.environ.get("EMBER_PYTHON_MODULE") == "absent":
    collect_ignore = [p.name for p in Path(__file__).parent.glob("test_*.py")
                      if p.name not in _WITHOUT_MODULE]


def pytest_terminal_summary(terminalreporter):
    """Prints the op table's coverage per operator (and writes it to
    build/op_table_coverage.md) when test_op_table.py ran."""
    op_table = sys.modules.get("op_table")
    if op_table is None or not op_table.COVERAGE:
        return
    lines = op_table.coverage_lines(list(op_table.load_ops()))
    path = REPO / "build" / "op_table_coverage.md"
    path.parent.mkdir(exist_ok=True)
    path.write_text("# Op table coverage\n\n" + "\n".join(lines) + "\n")
    terminalreporter.section("op table coverage (build/op_table_coverage.md)")
    for line in lines:
        terminalreporter.write_line(line)
