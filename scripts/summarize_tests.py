#!/usr/bin/env python3
"""Reads JUnit XML files (ctest's, pytest's) and prints "N passed, N failed, N skipped".

Exits non-zero when a test failed or no test ran at all.
"""
import sys
import xml.etree.ElementTree as ET
from pathlib import Path


def count(path: Path) -> tuple[int, int, int]:
    passed = failed = skipped = 0
    for case in ET.parse(path).getroot().iter("testcase"):
        status = case.get("status", "")
        if case.find("failure") is not None or case.find("error") is not None or status == "fail":
            failed += 1
        elif case.find("skipped") is not None or status in ("notrun", "disabled", "skipped"):
            skipped += 1
        else:
            passed += 1
    return passed, failed, skipped


def main(paths: list[str]) -> int:
    totals = [0, 0, 0]
    for p in paths:
        path = Path(p)
        if not path.exists():
            print(f"missing test report {path}: the suite did not run", file=sys.stderr)
            totals[1] += 1
            continue
        for i, n in enumerate(count(path)):
            totals[i] += n
    passed, failed, skipped = totals
    print(f"{passed} passed, {failed} failed, {skipped} skipped")
    return 1 if failed or passed == 0 else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
