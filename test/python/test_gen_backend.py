"""codegen/gen_backend.py (Note [Backend YAML]): a backend's kernel YAML becomes typed
declarations of ember::<ns>::Kernels and register_kernels(). A kernel defined with another
signature than its operator's does not compile; bad YAML is refused naming the entry."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
GEN = ROOT / "codegen" / "gen_backend.py"
NATIVE = ROOT / "native_functions.yaml"
BUILD = os.environ.get("EMBER_BUILD_DIR")
CXX = shutil.which(os.environ.get("CXX", "c++")) or shutil.which("g++")


def gen(tmp_path: Path, text: str) -> subprocess.CompletedProcess:
    y = tmp_path / "kernels.yaml"
    y.write_text(textwrap.dedent(text))
    return subprocess.run([sys.executable, str(GEN), "--native", str(NATIVE), "--yaml", str(y),
                           "--out", str(tmp_path / "gen")], capture_output=True, text=True)


GOOD = """\
    backend: demo
    namespace: demo
    kernels:
      mm: mm
      add.Tensor: add
      uniform_: uniform_
    autograd_kernels:
      relu: relu_with_grad
    """


def test_declarations_are_typed_from_the_schemas(tmp_path):
    r = gen(tmp_path, GOOD)
    assert r.returncode == 0, r.stderr
    h = (tmp_path / "gen" / "Kernels.h").read_text()
    assert "namespace ember::demo {" in h and "struct Kernels {" in h
    assert "static Tensor mm(const Tensor& self, const Tensor& mat2);" in h
    assert "static Tensor add(const Tensor& self, const Tensor& other, const Scalar& alpha);" in h
    assert ("static Tensor& uniform_(Tensor& self, double from, double to, std::optional<Generator> generator);"
            in h)
    cpp = (tmp_path / "gen" / "RegisterKernels.cpp").read_text()
    assert 'r.kernels("aten")' in cpp and '.impl("mm", static_cast<Tensor (*)(const Tensor&, const Tensor&)>' in cpp
    assert 'r.autograd_kernels("aten")' in cpp and '.impl("relu"' in cpp
    # Deterministic: a second run leaves the files as they were.
    before = {p.name: p.read_text() for p in (tmp_path / "gen").iterdir()}
    assert gen(tmp_path, GOOD).returncode == 0
    assert {p.name: p.read_text() for p in (tmp_path / "gen").iterdir()} == before


@pytest.mark.parametrize("text,message", [
    ("backend: demo\nnamespace: demo\nkernels:\n  mmm: mm\n", r"'mmm' is not an Ember operator"),
    ("backend: demo\nnamespace: demo\nkernels:\n  add.Tensr: add\n",
     r"'add.Tensr' is not an Ember operator \(name.overload\); its overloads are \['add.Scalar'"),
    ("backend: demo\nnamespace: demo\nkernels:\n  relu: relu\n",
     r"'relu' is CompositeImplicitAutograd .* a backend kernel for it would run without autograd"),
    ("backend: demo\nnamespace: demo\nkernels:\n  mm: 2mm\n", r"mm: the kernel name must be a C\+\+ identifier"),
    ("backend: demo\nnamespace: de-mo\nkernels:\n  mm: mm\n", r"'namespace' must be a C\+\+ identifier"),
    ("backend: demo\nnamespace: demo\nkernel:\n  mm: mm\n", r"unknown keys \['kernel'\]"),
    ("backend: demo\nnamespace: demo\nkernels: {}\n", r"'kernels' lists no operator"),
    ("backend: demo\nnamespace: demo\nkernels:\n  mul.Tensor: f\n  div.Tensor: f\n",
     r"kernels 'f' of mul.Tensor and div.Tensor have one signature"),
    ("- func: mm\n", r"expected a mapping"),
])
def test_bad_yaml_is_refused_naming_the_entry(tmp_path, text, message):
    import re
    r = gen(tmp_path, text)
    assert r.returncode == 1
    assert r.stderr.startswith("gen_backend: error: kernels.yaml")
    assert re.search(message, r.stderr), r.stderr


def compile_kernel(tmp_path: Path, body: str) -> subprocess.CompletedProcess:
    src = tmp_path / "kernels.cpp"
    src.write_text('#include "Kernels.h"\nnamespace ember::demo {\n' + textwrap.dedent(body) + "}\n")
    flags = ["-std=c++20", "-fsyntax-only", f"-I{ROOT}", f"-I{ROOT / 'include'}",
             f"-I{Path(BUILD).resolve() / 'generated'}", f"-I{tmp_path / 'gen'}"]
    return subprocess.run([CXX, *flags, str(src)], capture_output=True, text=True)


@pytest.mark.skipif(not BUILD or not CXX, reason="needs EMBER_BUILD_DIR (generated headers) and a C++ compiler")
def test_a_kernel_with_the_wrong_signature_does_not_compile(tmp_path):
    assert gen(tmp_path, GOOD).returncode == 0
    ok = compile_kernel(tmp_path, """\
        Tensor Kernels::mm(const Tensor& self, const Tensor& mat2) { return self; }
        Tensor& Kernels::uniform_(Tensor& self, double, double, std::optional<Generator>) { return self; }
        """)
    assert ok.returncode == 0, ok.stderr
    wrong = compile_kernel(tmp_path, """\
        Tensor Kernels::mm(const Tensor& self, const Tensor& mat2, bool transpose) { return self; }
        """)
    assert wrong.returncode != 0
    assert "no declaration matches" in wrong.stderr or "does not match any declaration" in wrong.stderr, wrong.stderr
    wrong_type = compile_kernel(tmp_path, """\
        Tensor& Kernels::uniform_(Tensor& self, float from, float to, std::optional<Generator>) { return self; }
        """)
    assert wrong_type.returncode != 0 and "uniform_" in wrong_type.stderr
