"""Per-op headers (Note [Per-op headers] in codegen/gen.py), enforced on the tracked tree:
no file in aten/ or python/csrc/ includes the umbrellas ember/generated/Functions.h or
NativeFunctions.h (every op's header), so an edit of one YAML entry rebuilds only the
files that use that op. They include ember/generated/ops/<name>.h (entry points) and
ops/<name>_native.h (kernel and meta declarations) for each op they use instead.
"""
from __future__ import annotations

import re
from pathlib import Path

from source_tree import ROOT, tracked_files

UMBRELLA = re.compile(r'^\s*#\s*include\s*[<"]ember/generated/(Functions|NativeFunctions)\.h[">]', re.M)
CHECKED = re.compile(r"(aten|python/csrc)/.+\.(cpp|h|cu|cuh)")

# Files that need every op, and why (include/ember/ember.h, the public umbrella, is not
# checked: out-of-tree code gets everything from it).
EXCEPTIONS: dict[str, str] = {}


def umbrella_includes(paths: list[str], root: Path) -> dict[str, str]:
    """Checked files that include an umbrella header, with the header's name."""
    found = {}
    for p in paths:
        if CHECKED.fullmatch(p):
            m = UMBRELLA.search((root / p).read_text(errors="replace"))
            if m:
                found[p] = m.group(1) + ".h"
    return found


def test_no_file_includes_every_op():
    found = umbrella_includes(tracked_files(), ROOT)
    stray = {p: h for p, h in found.items() if p not in EXCEPTIONS}
    assert not stray, ("include ember/generated/ops/<name>.h or ops/<name>_native.h for each op used, "
                       "not the umbrella (or name the file in EXCEPTIONS with its reason): " +
                       ", ".join(f"{p} ({h})" for p, h in sorted(stray.items())))


def test_every_exception_is_still_needed():
    found = umbrella_includes(tracked_files(), ROOT)
    assert not set(EXCEPTIONS) - set(found), f"no longer needed: {sorted(set(EXCEPTIONS) - set(found))}"


def test_the_check_catches_an_umbrella(tmp_path):
    (tmp_path / "aten/native").mkdir(parents=True)
    (tmp_path / "aten/native/ok.cpp").write_text('#include "ember/generated/ops/add.h"\n'
                                                 '// ember/generated/Functions.h in a comment\n')
    (tmp_path / "aten/native/bad.cpp").write_text('#include "c10/core/Tensor.h"\n'
                                                  '#include "ember/generated/NativeFunctions.h"\n')
    (tmp_path / "include").mkdir()
    (tmp_path / "include/api.h").write_text('#include "ember/generated/Functions.h"\n')
    paths = ["aten/native/ok.cpp", "aten/native/bad.cpp", "include/api.h"]
    assert umbrella_includes(paths, tmp_path) == {"aten/native/bad.cpp": "NativeFunctions.h"}
