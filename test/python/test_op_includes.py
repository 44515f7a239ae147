"""Per-op headers (Note [Per-op headers] in codegen/gen.py), enforced on the tracked tree:
no file in aten/, frontend/, python/csrc/ or test/cpp/ includes the umbrellas ember/generated/Functions.h
or NativeFunctions.h (every op's header), nor, in test/cpp/, the public ember/ember.h that
includes them, so an edit of one YAML entry rebuilds only the files that use that op. They
include ember/generated/ops/<name>.h (entry points) and ops/<name>_native.h (kernel and
meta declarations) for each op they use instead; the tests take the rest of the public API
from test/cpp/ember_api.h.
"""
from __future__ import annotations

import re
from pathlib import Path

from source_tree import ROOT, tracked_files

UMBRELLA = re.compile(r'^\s*#\s*include\s*[<"](ember/generated/(?:Functions|NativeFunctions)\.h|ember/ember\.h)[">]',
                      re.M)
CHECKED = re.compile(r"(aten|frontend|python/csrc|test/cpp)/.+\.(cpp|h|cu|cuh)")

# Files that need every op, and why (include/ember/ember.h, the public umbrella, and the
# examples are not checked: out-of-tree code gets everything from ember.h).
EXCEPTIONS = {
    "test/cpp/codegen/generated_api_test.cpp": "tests the public umbrella ember/ember.h itself",
    "test/cpp/api/api_test_util.h": "libtorch-idiom programs include the public umbrella, as "
                                    "libtorch programs include torch/torch.h",
}


def umbrella_includes(paths: list[str], root: Path) -> dict[str, str]:
    """Checked files that include an umbrella header, with the header."""
    found = {}
    for p in paths:
        if CHECKED.fullmatch(p):
            m = UMBRELLA.search((root / p).read_text(errors="replace"))
            if m and (p.startswith("test/") or m.group(1) != "ember/ember.h"):
                found[p] = m.group(1)
    return found


def includes_of(path: Path) -> list[str]:
    return re.findall(r'^#include "([^"]+)"', path.read_text(), re.M)


def test_no_file_includes_every_op():
    found = umbrella_includes(tracked_files(), ROOT)
    stray = {p: h for p, h in found.items() if p not in EXCEPTIONS}
    assert not stray, ("include ember/generated/ops/<name>.h or ops/<name>_native.h for each op used "
                       "(tests: and test/cpp/ember_api.h), not the umbrella, or name the file in "
                       "EXCEPTIONS with its reason: " + ", ".join(f"{p} ({h})" for p, h in sorted(stray.items())))


def test_every_exception_is_still_needed():
    found = umbrella_includes(tracked_files(), ROOT)
    assert not set(EXCEPTIONS) - set(found), f"no longer needed: {sorted(set(EXCEPTIONS) - set(found))}"


def test_the_tests_api_is_ember_h_without_the_ops():
    public = set(includes_of(ROOT / "include/ember/ember.h")) - {"ember/generated/Functions.h"}
    assert set(includes_of(ROOT / "test/cpp/ember_api.h")) == public


def test_the_check_catches_an_umbrella(tmp_path):
    files = {
        "aten/native/ok.cpp": '#include "ember/generated/ops/add.h"\n// ember/generated/Functions.h\n',
        "aten/native/bad.cpp": '#include "c10/core/Tensor.h"\n#include "ember/generated/NativeFunctions.h"\n',
        "test/cpp/bad_test.cpp": "#include <ember/ember.h>\n",
        "include/api.h": '#include "ember/generated/Functions.h"\n',
    }
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    assert umbrella_includes(list(files), tmp_path) == {
        "aten/native/bad.cpp": "ember/generated/NativeFunctions.h", "test/cpp/bad_test.cpp": "ember/ember.h"}
