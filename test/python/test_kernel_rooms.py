"""The layout of the kernels (DESIGN.md, "Kernel rooms"), enforced on the tracked tree:

- every loop over tensor memory lives in a backend's room (aten/native/cpu/, later cuda/):
  no file directly in aten/native/ reads an element pointer, except the named exceptions;
- adding an op is the YAML entry, one functor or kernel in one file, and one op-table row:
  the ops added that way (logaddexp, deg2rad, rad2deg, frobenius_norm) are named in no other
  code (docs may).
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from source_tree import ROOT, tracked_files

# What reads a tensor's memory: Tensor::data_ptr (and the const/mutable spellings), the
# impl's data(), and typed data<T>().
RAW_POINTER = re.compile(r"\b(?:const_|mutable_)?data_ptr\b|impl\(\)->data\(\)|\.data<")

# Files directly in aten/native/ allowed to take an element pointer, and why.
EXCEPTIONS = {
    "aten/native/TensorIterator.cpp": "the iterator itself: it hands each loop its operands' base "
                                      "pointers and compares byte ranges for overlap, walking no elements",
}

# The ops added through the one-place path, and the only tracked files that may name them.
ADDED_OPS = {
    "logaddexp": {"native_functions.yaml", "aten/native/cpu/binary.cpp", "test/python/op_rows_tensor.py"},
    # A float-family op with a CUDA kernel: its maths in the shared functor list (UnaryOps.h),
    # which the CUDA file expands without naming it; the CPU line adds the vector form.
    "deg2rad": {"native_functions.yaml", "aten/native/UnaryOps.h", "aten/native/cpu/unary.cpp",
                "test/python/op_rows.py"},
    "rad2deg": {"native_functions.yaml", "aten/native/UnaryOps.h", "aten/native/cpu/unary.cpp",
                "test/python/op_rows.py"},
    "frobenius_norm": {"native_functions.yaml", "aten/native/cpu/reduce.cpp", "test/python/op_rows_tensor.py"},
}


def raw_pointer_files(paths: list[str], root: Path) -> dict[str, int]:
    """Files directly in aten/native/ that take an element pointer, with the first line."""
    found = {}
    for p in paths:
        if not re.fullmatch(r"aten/native/[^/]+\.(cpp|h)", p):
            continue
        for n, line in enumerate((root / p).read_text(errors="replace").splitlines(), 1):
            if RAW_POINTER.search(line.split("//")[0]):
                found[p] = n
                break
    return found


def test_no_raw_loops_in_the_shared_room():
    found = raw_pointer_files(tracked_files(), ROOT)
    stray = {p: n for p, n in found.items() if p not in EXCEPTIONS}
    assert not stray, ("element pointers in aten/native/ (move the loop to aten/native/cpu/<family>.cpp, "
                       "or name the file in EXCEPTIONS with its reason): " +
                       ", ".join(f"{p}:{n}" for p, n in sorted(stray.items())))


def test_every_exception_is_still_needed():
    found = raw_pointer_files(tracked_files(), ROOT)
    assert not set(EXCEPTIONS) - set(found), f"no longer needed: {sorted(set(EXCEPTIONS) - set(found))}"


def test_the_check_catches_a_loop(tmp_path):
    (tmp_path / "aten/native").mkdir(parents=True)
    (tmp_path / "aten/native/new_family.cpp").write_text(
        "void f(const Tensor& t) {\n  // data_ptr in a comment is fine\n"
        "  const float* p = t.const_data_ptr<float>();\n}\n")
    (tmp_path / "aten/native/cpu").mkdir()
    (tmp_path / "aten/native/cpu/new_family.cpp").write_text("float* p = t.data_ptr<float>();\n")
    assert raw_pointer_files(["aten/native/new_family.cpp", "aten/native/cpu/new_family.cpp"], tmp_path) == {
        "aten/native/new_family.cpp": 3}


@pytest.mark.parametrize("op", sorted(ADDED_OPS))
def test_an_added_op_lives_in_three_places(op):
    word = re.compile(rf"\b{op}(?:_out_cpu)?\b")
    named = {p for p in tracked_files()
             if not p.endswith((".png", ".json", ".md")) and p != "test/python/test_kernel_rooms.py"
             and word.search((ROOT / p).read_text(errors="replace"))}
    assert named == ADDED_OPS[op], (f"{op} is named in {sorted(named)}; adding an op should take its YAML "
                                    f"entry, one functor or kernel and one op-table row (README, "
                                    f"'How to add an operator')")
