"""The size budget of ../shared/STYLE.md, enforced: every tracked source stays under its hard
limit (a file over it splits by sub-family). Soft limits are for review, not for CI."""
from __future__ import annotations

from pathlib import Path

import pytest

from source_tree import ROOT, tracked_files

# (what, test on the repository path, hard limit in lines), first match wins.
LIMITS = [
    ("test", lambda p: p.startswith("test/"), 1500),
    ("codegen module", lambda p: p.startswith("codegen/") and p.endswith(".py"), 800),
    ("header", lambda p: p.endswith((".h", ".cuh")), 500),
    ("source", lambda p: p.endswith((".cpp", ".cu", ".py")), 1000),
]


def limit_of(path: str) -> tuple[str, int] | None:
    for what, matches, limit in LIMITS:
        if matches(path):
            return what, limit
    return None


def over_limit(paths: list[str], root: Path) -> list[str]:
    found = []
    for p in paths:
        kind = limit_of(p)
        if kind is None:
            continue
        what, limit = kind
        n = len((root / p).read_text(errors="replace").splitlines())
        if n > limit:
            found.append(f"{p}: {n} lines, over the {limit}-line limit of a {what}")
    return found


def test_tracked_sources_are_within_their_limits():
    problems = over_limit(tracked_files(), ROOT)
    assert not problems, "split these by sub-family (STYLE.md, Layout rules):\n" + "\n".join(problems)


def test_the_check_finds_a_file_over_its_limit(tmp_path):
    (tmp_path / "aten").mkdir()
    (tmp_path / "aten" / "big.h").write_text("//\n" * 501)
    (tmp_path / "aten" / "ok.cpp").write_text("//\n" * 1000)
    (tmp_path / "test").mkdir()
    (tmp_path / "test" / "big_test.cpp").write_text("//\n" * 1200)
    problems = over_limit(["aten/big.h", "aten/ok.cpp", "test/big_test.cpp"], tmp_path)
    assert problems == ["aten/big.h: 501 lines, over the 500-line limit of a header"]
