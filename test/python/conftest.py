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


# A watchdog per test (CI timed out once, 2026-12-07, with no word of where): a test still
# running after EMBER_TEST_TIMEOUT seconds (300) fails with a TimeoutError raised in it,
# after every thread's stack is written to stderr; one that cannot be interrupted (blocked
# in C++) ends the run a minute later with the stacks, so the log names it either way.
import faulthandler
import signal

import pytest

_TIMEOUT = float(os.environ.get("EMBER_TEST_TIMEOUT", "300"))


class _Timeout(BaseException):
    """Raised in a test that overran; a BaseException, so `except Exception` in it cannot
    swallow it (pytest reports it as the test's failure)."""


def _on_alarm(signum, frame):
    faulthandler.dump_traceback(all_threads=True)
    raise _Timeout(f"the test ran longer than {_TIMEOUT:.0f} s (EMBER_TEST_TIMEOUT)")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    usable = _TIMEOUT > 0 and hasattr(signal, "setitimer")
    if usable:
        old = signal.signal(signal.SIGALRM, _on_alarm)
        signal.setitimer(signal.ITIMER_REAL, _TIMEOUT)
        faulthandler.dump_traceback_later(_TIMEOUT + 60, exit=True)
    try:
        yield
    finally:
        if usable:
            signal.setitimer(signal.ITIMER_REAL, 0)
            faulthandler.cancel_dump_traceback_later()
            signal.signal(signal.SIGALRM, old)



# Under a sanitizer build (LD_PRELOAD has libasan), the process ends with os._exit once pytest
# is done (summary and junit written): onnxruntime's worker threads race the interpreter's
# exit handlers (a heap-use-after-free inside onnxruntime, seen after every test had passed),
# and that exit-time report would fail the run for code that is not Ember's.
_EXIT_STATUS = [0]


def pytest_sessionfinish(session, exitstatus):
    _EXIT_STATUS[0] = int(exitstatus)


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config):
    if "libasan" in os.environ.get("LD_PRELOAD", ""):
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(_EXIT_STATUS[0])
