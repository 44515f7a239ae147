"""The operator generator (codegen/): model round trips, determinism, speed, and the
errors a bad native_functions.yaml entry gets ("native_functions.yaml:<line>: <reason>")."""
from __future__ import annotations

import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "codegen"))

import model  # noqa: E402

GEN = ROOT / "codegen" / "gen.py"


def run_gen(tmp_path: Path, yaml_text: str, *extra: str) -> subprocess.CompletedProcess:
    y = tmp_path / "native_functions.yaml"
    y.write_text(textwrap.dedent(yaml_text))
    return subprocess.run([sys.executable, str(GEN), "--yaml", str(y), "--out", str(tmp_path / "out"), *extra],
                          capture_output=True, text=True)


def test_every_schema_round_trips():
    schemas = [f.schema for f in model.load([ROOT / "native_functions.yaml"])]
    fixture = (ROOT / "test/cpp/c10/pytorch_schemas.txt").read_text().splitlines()
    for text in [str(s) for s in schemas] + [line for line in fixture if line]:
        assert str(model.Schema.parse(text)) == text


def test_schema_model_fields():
    s = model.Schema.parse("add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)")
    assert (s.name, s.overload, s.is_out, s.is_inplace) == ("add", "out", True, False)
    assert [a.name for a in s.out_arguments] == ["out"]
    assert s.arguments[2].default == "1" and s.arguments[2].kwarg_only
    t = model.Type.parse("Tensor(a -> *)[]")
    assert t.is_list and t.alias == "a -> *" and not t.is_mutable
    assert model.Type.parse("int[2]").size == 2
    assert model.Type.parse("Tensor?[]").elem_optional


def test_generation_is_deterministic_fast_and_writes_only_changes(tmp_path):
    out = tmp_path / "out"
    cmd = [sys.executable, str(GEN), "--yaml", str(ROOT / "native_functions.yaml"), "--out", str(out)]
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True)
    elapsed = time.perf_counter() - t0
    assert elapsed < 3.0, f"generation took {elapsed:.2f} s"
    files = sorted(p for p in out.rglob("*") if p.is_file())
    assert any(p.name == "Functions.h" for p in files) and any(p.parent.name == "ops" for p in files)
    before = {p: (p.read_text(), p.stat().st_mtime_ns) for p in files}
    subprocess.run(cmd, check=True)
    after = {p: (p.read_text(), p.stat().st_mtime_ns) for p in files}
    assert before == after, "an unchanged YAML must leave every file untouched"


def test_one_entry_edit_rewrites_only_its_files(tmp_path):
    base = """\
    - func: alpha(Tensor self) -> Tensor
      dispatch:
        CPU: alpha_cpu
      autograd:
        self: grad
    - func: beta(Tensor self) -> Tensor
      dispatch:
        CPU: beta_cpu
      autograd: non_differentiable
    """
    out = tmp_path / "out"

    def rewritten(yaml_text: str) -> set[str]:
        """The files an edit of `base` into yaml_text rewrites."""
        assert run_gen(tmp_path, base).returncode == 0
        stamp = {p: p.stat().st_mtime_ns for p in out.rglob("*") if p.is_file()}
        time.sleep(0.01)
        assert run_gen(tmp_path, yaml_text).returncode == 0
        return {p.relative_to(out).as_posix() for p in out.rglob("*")
                if p.is_file() and p.stat().st_mtime_ns != stamp.get(p)}

    # Note [Per-op headers]: the umbrellas only include, so they stay as they are.
    changed = rewritten(base.replace("beta(Tensor self)", "beta(Tensor self, int n=1)"))
    assert {p for p in changed if p.endswith(".h")} == {"ops/beta.h", "ops/beta_native.h"}
    assert "ops/alpha.h" not in changed and "TensorMethods.cpp" not in changed
    # A doc line: the op's header and the tables, no .cpp.
    changed = rewritten(base.replace("      autograd: non_differentiable",
                                     "      doc: Beta.\n      autograd: non_differentiable"))
    assert changed == {"ops/beta.h", "ops.md", "summary.json"}
    # A formula: one autograd shard.
    changed = rewritten(base.replace("self: grad", "self: grad * 2"))
    code = [p for p in changed if not p.endswith((".md", ".json"))]
    assert len(code) == 1 and code[0].startswith("AutogradKernels_"), code
    # A method's doc stays out of class Tensor (TensorMethods.h), which everything includes.
    method = base.replace("      autograd: non_differentiable",
                          "      variants: function, method\n      autograd: non_differentiable")
    assert run_gen(tmp_path, method).returncode == 0
    stamp = (out / "TensorMethods.h").stat().st_mtime_ns
    time.sleep(0.01)
    assert run_gen(tmp_path, method.replace("variants: function, method",
                                            "variants: function, method\n      doc: Beta.")).returncode == 0
    assert (out / "TensorMethods.h").stat().st_mtime_ns == stamp
    assert "Beta." in (out / "ops/beta.h").read_text()
    # An op that is gone takes its headers along (a stale include fails to compile).
    assert run_gen(tmp_path, base.split("    - func: beta")[0]).returncode == 0
    assert not (out / "ops/beta.h").exists() and not (out / "ops/beta_native.h").exists()


def test_structured_entries_generate_all_three_forms(tmp_path):
    r = run_gen(tmp_path, """\
    - func: axpy.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)
      structured: True
      dispatch:
        CPU: axpy_out_cpu
    - func: axpy(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
      structured_delegate: axpy.out
      autograd:
        self: grad
        other: grad * alpha
    - func: axpy_(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)
      variants: method
      structured_delegate: axpy.out
    """)
    assert r.returncode == 0, r.stderr
    out = tmp_path / "out"
    cpu = (out / "RegisterCPU.cpp").read_text()
    meta = (out / "RegisterMeta.cpp").read_text()
    for name in ('"axpy.out"', '"axpy"', '"axpy_"'):
        assert name in cpu and name in meta
    decls = (out / "ops" / "axpy_native.h").read_text()
    assert '#include "ember/generated/ops/axpy_native.h"' in (out / "NativeFunctions.h").read_text()
    assert "TensorMeta axpy_meta(const Tensor& self, const Tensor& other, const Scalar& alpha);" in decls
    assert "void axpy_out_cpu(const Tensor& self, const Tensor& other, const Scalar& alpha, const Tensor& out);" in decls
    assert "native::axpy_out_cpu" not in meta  # Meta runs the meta function only


def test_factories_get_backend_select_and_tensor_options(tmp_path):
    r = run_gen(tmp_path, """\
    - func: make(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor
      dispatch:
        CPU: make_cpu
    """)
    assert r.returncode == 0, r.stderr
    out = tmp_path / "out"
    assert "select_backend_key(device.value_or" in (out / "RegisterBackendSelect.cpp").read_text()
    assert "TensorOptions options = {}" in (out / "ops" / "make.h").read_text()


def test_optional_lists_and_cpp_no_default_args_in_public_signatures(tmp_path):
    # Note [Optional array refs]: public entry points take `int[]?` as OptionalIntArrayRef
    # (an int binds without dangling); kernels and handles keep std::optional<IntArrayRef>.
    r = run_gen(tmp_path, """\
    - func: red(Tensor self, bool unbiased=True) -> Tensor
      variants: function
      cpp_no_default_args: [unbiased]
      dispatch:
        CPU: red_cpu
      autograd: non_differentiable
    - func: red.dims(Tensor self, int[1]? dim=None, float[]? scales=None, bool keepdim=False) -> Tensor
      variants: function
      cpp_no_default_args: [dim]
      dispatch:
        CPU: red_dims_cpu
      autograd: non_differentiable
    """)
    assert r.returncode == 0, r.stderr
    header = (tmp_path / "out" / "ops" / "red.h").read_text()
    assert "inline Tensor red(const Tensor& self, bool unbiased) {" in header
    assert ("inline Tensor red(const Tensor& self, OptionalIntArrayRef dim, OptionalArrayRef<double> "
            "scales = std::nullopt, bool keepdim = false)") in header
    assert "static Tensor call(const Tensor& self, std::optional<IntArrayRef> dim" in header


def test_autograd_entries_generate_nodes_kernels_and_a_report(tmp_path):
    r = run_gen(tmp_path, """\
    - func: scale(Tensor self, float s) -> Tensor
      dispatch:
        CPU: scale_cpu
      autograd:
        self: grad * s
    - func: scale_(Tensor(a!) self, float s) -> Tensor(a!)
      variants: method
      dispatch:
        CPU: scale_inplace_cpu
    - func: odd(Tensor self) -> Tensor
      dispatch:
        CPU: odd_cpu
      autograd: not_implemented
    - func: flag(Tensor self) -> Tensor
      dispatch:
        CPU: flag_cpu
      autograd: non_differentiable
    """)
    assert r.returncode == 0, r.stderr
    out = tmp_path / "out"
    kernels = "".join(p.read_text() for p in out.glob("AutogradKernels_*.cpp"))
    assert "struct ScaleBackward0 final : Node" in kernels
    assert "grad_inputs[0] = any_grad_defined ? Tensor(grad * s) : Tensor();" in kernels
    assert 'check_inplace(self, "scale_")' in kernels and "rebase_history(self, grad_fn)" in kernels
    assert 'NotImplementedNode>("odd")' in kernels
    assert '"flag"' not in kernels  # non-differentiable: no kernel, the autograd keys fall through
    report = (out / "autograd.md").read_text()
    assert "1 ops marked `autograd: not_implemented`: `odd`" in report


def test_no_dispatch_means_composite_implicit(tmp_path):
    r = run_gen(tmp_path, """\
    - func: twice(Tensor self) -> Tensor
    """)
    assert r.returncode == 0, r.stderr
    text = (tmp_path / "out" / "RegisterCompositeImplicitAutograd.cpp").read_text()
    assert "native::twice" in text


BAD = [
    ("unknown key", "- func: f(Tensor self) -> Tensor\n  dispatchh:\n    CPU: f_cpu\n", 1, "unknown key 'dispatchh'"),
    ("bad schema", "- func: f(Tensor self -> Tensor\n", 1, "bad schema"),
    ("unknown type", "- func: f(Tenzor self) -> Tensor\n", 1, "unknown type 'Tenzor'"),
    ("non-canonical", "- func: f(Tensor  self) -> Tensor\n", 1, "canonical form"),
    ("unknown dispatch key", "- func: f(Tensor self) -> Tensor\n  dispatch:\n    GPU: f_gpu\n", 1,
     "dispatch to unknown key 'GPU'"),
    ("duplicate overload", "- func: f(Tensor self) -> Tensor\n- func: f(Tensor self) -> Tensor\n", 2,
     "duplicate overload 'f' (first at native_functions.yaml:1)"),
    ("delegate to missing op", "- func: f(Tensor self) -> Tensor\n  structured_delegate: f.out\n", 1,
     "structured_delegate 'f.out' names no operator"),
    ("delegate to unstructured op",
     "- func: f.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)\n  dispatch:\n    CPU: k\n"
     "- func: f(Tensor self) -> Tensor\n  structured_delegate: f.out\n", 4, "is not marked structured"),
    ("out= without (a!)", "- func: f.out(Tensor self, *, Tensor out) -> Tensor\n  dispatch:\n    CPU: k\n", 1,
     "must be annotated Tensor(a!)"),
    ("structured without out", "- func: f(Tensor self) -> Tensor\n  structured: True\n  dispatch:\n    CPU: k\n", 1,
     "a structured kernel is the out= overload"),
    ("structured and delegate",
     "- func: f.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)\n  structured: True\n  structured_delegate: g\n", 1,
     "either structured or a structured_delegate"),
    ("delegate with dispatch",
     "- func: f.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)\n  structured: True\n  dispatch:\n    CPU: k\n"
     "- func: f(Tensor self) -> Tensor\n  structured_delegate: f.out\n  dispatch:\n    CPU: k2\n", 5,
     "only the layout keys (SparseCPU, SparseCsrCPU, MkldnnCPU) may name kernels of their own"),
    ("unknown variant", "- func: f(Tensor self) -> Tensor\n  variants: function, methd\n", 1, "unknown variant 'methd'"),
    ("method without self", "- func: f(Tensor x) -> Tensor\n  variants: method\n", 1,
     "a method variant needs an argument named 'self'"),
    ("kernel name", "- func: f(Tensor self) -> Tensor\n  dispatch:\n    CPU: f-cpu\n", 1, "is not a C++ identifier"),
    ("dispatch not a mapping", "- func: f(Tensor self) -> Tensor\n  dispatch: f_cpu\n", 1,
     "'dispatch' must map dispatch keys to kernel names"),
    ("entry without func", "- variants: function\n", 1, "every entry needs a 'func:' schema"),
    ("not a list", "func: f(Tensor self) -> Tensor\n", 1, "expected a list of operator entries"),
    ("out overload without out argument", "- func: f.out(Tensor self) -> Tensor\n  dispatch:\n    CPU: k\n", 1,
     "needs a keyword-only 'Tensor(a!) out' argument"),
    ("autograd not a mapping", "- func: f(Tensor self) -> Tensor\n  autograd: grad\n", 1,
     "'autograd: grad' is not a marker"),
    ("autograd entry missing", "- func: f(Tensor self) -> Tensor\n  dispatch:\n    CPU: k\n", 1,
     "'f' needs an autograd entry (formulas, not_implemented or non_differentiable)"),
    ("formula on a composite op", "- func: f(Tensor self) -> Tensor\n  autograd:\n    self: grad\n", 1,
     "CompositeImplicitAutograd ops are differentiated through the ops they call"),
    ("formula for a non-argument", "- func: f(Tensor self) -> Tensor\n  dispatch:\n    CPU: k\n"
     "  autograd:\n    other: grad\n", 1, "autograd formula for 'other', which is not an argument"),
    ("formula on an out= op", "- func: f.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)\n  dispatch:\n"
     "    CPU: k\n  autograd:\n    self: grad\n", 1, "out= forms are not differentiable"),
    ("type without C++ binding", "- func: f(Tensor?[] indices) -> Tensor\n  dispatch:\n    CPU: k\n", 1,
     "has no C++ binding yet"),
    ("duplicate argument", "- func: f(Tensor self, int self) -> Tensor\n", 1, "duplicate argument names"),
    ("unknown python_module", "- func: f(Tensor self) -> Tensor\n  python_module: fft\n", 1,
     "unknown python_module 'fft'"),
    ("cpp_no_default_args names a non-argument",
     "- func: f(Tensor self, int dim=0) -> Tensor\n  cpp_no_default_args: [dims]\n", 1,
     "cpp_no_default_args names 'dims', which is not an argument of 'f'"),
    ("cpp_no_default_args not a list", "- func: f(Tensor self, int dim=0) -> Tensor\n"
     "  cpp_no_default_args: dim\n", 1, "'cpp_no_default_args' must be a list of argument names"),
    ("unknown sparse mode", "- func: f(Tensor self) -> Tensor\n  sparse: value\n", 1,
     "'sparse: value' is not a sparse mode; expected one of values, dense, probe"),
    ("sparse: values on a binary op", "- func: f(Tensor self, Tensor other) -> Tensor\n  sparse: values\n", 1,
     "'sparse: values' needs `self` as the only tensor argument"),
    ("sparse: dense on an out= op", "- func: f.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)\n"
     "  sparse: dense\n  dispatch:\n    CPU: k\n", 1, "(not an out= overload)"),
    ("sparse: dense on an in-place op", "- func: f_(Tensor(a!) self) -> Tensor(a!)\n  sparse: dense\n"
     "  dispatch:\n    CPU: k\n", 1, "'sparse: dense' can give a strided result"),
    ("sparse: probe on a binary op", "- func: f(Tensor self, Tensor other) -> Tensor\n  sparse: probe\n", 1,
     "'sparse: probe' needs `self` as the only tensor argument"),
]


@pytest.mark.parametrize("name,text,line,reason", BAD, ids=[b[0] for b in BAD])
def test_bad_entries_stop_generation_with_file_line_and_reason(tmp_path, name, text, line, reason):
    r = run_gen(tmp_path, text)
    assert r.returncode != 0, f"{name}: generation should fail"
    assert reason in r.stderr, r.stderr
    if line:
        assert f"native_functions.yaml:{line}: " in r.stderr, r.stderr
    assert not (tmp_path / "out" / "Functions.h").exists(), "nothing is written for a bad YAML"


def test_invalid_yaml_syntax(tmp_path):
    r = run_gen(tmp_path, "- func: [unclosed\n")
    assert r.returncode != 0 and "invalid YAML" in r.stderr


GEN_PY = ROOT / "codegen" / "gen_python.py"


def run_gen_python(tmp_path: Path, yaml_text: str, *extra: str) -> subprocess.CompletedProcess:
    y = tmp_path / "ops.yaml"
    y.write_text(textwrap.dedent(yaml_text))
    return subprocess.run([sys.executable, str(GEN_PY), "--yaml", str(y), "--out", str(tmp_path / "py"),
                           "--stub", str(tmp_path / "ops.pyi"), *extra], capture_output=True, text=True)


def test_python_bindings_merge_out_and_route_modules(tmp_path):
    r = run_gen_python(tmp_path, """
        - func: twice(Tensor self, *, Scalar alpha=1) -> Tensor
          variants: function, method
          doc: Doubles self.
        - func: twice.out(Tensor self, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)
          dispatch:
            CPU: twice_out
        - func: linalg_thing(Tensor self) -> Tensor
          python_module: linalg
        - func: relu6(Tensor self) -> Tensor
          python_module: nn
        - func: make(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor
    """, "--module", "_mylib", "--entry", "mylib_bindings")
    assert r.returncode == 0, r.stderr
    cpp_text = "".join(f.read_text() for f in sorted((tmp_path / "py").glob("python_bindings*.cpp")))
    # out= merged into the functional signature; the method has no out=.
    assert '"twice(Tensor input, *, Scalar alpha=1, Tensor? out=None)"' in cpp_text
    assert '"twice(*, Scalar alpha=1)"' in cpp_text
    assert "ember::ops::twice_out::call" in cpp_text
    # python_module: linalg drops the prefix; nn goes to its own table.
    assert 'table_linalg[] = {\n    {"thing"' in cpp_text and 'table_nn[] = {\n    {"relu6"' in cpp_text
    # factories take requires_grad=; the GIL is released by work; a library gets PyInit.
    assert "bool requires_grad=False" in cpp_text and "wrap_requires_grad" in cpp_text
    assert "GilRelease nogil(r.work())" in cpp_text
    assert 'PyInit__mylib()' in cpp_text and "mylib_bindings()" in cpp_text
    stub = (tmp_path / "ops.pyi").read_text()
    assert "def twice(input: Tensor, *, alpha: Number = ..., out: Tensor | None = ...) -> Tensor:" in stub
    assert '"""Doubles self."""' in stub


def test_python_binding_shards(tmp_path):
    # Note [Binding shards]: each function is defined in one shard, which includes the op
    # headers it calls; the tables file holds the docs and no op header, so a doc edit
    # changes it alone.
    ops = """
        - func: alpha(Tensor self) -> Tensor
          doc: First.
        - func: beta(Tensor self) -> Tensor
        - func: gamma(Tensor self) -> Tensor
          variants: function, method
        - func: delta(Tensor self, Tensor other) -> Tensor
    """
    r = run_gen_python(tmp_path, ops, "--shards", "3")
    assert r.returncode == 0, r.stderr
    out = tmp_path / "py"
    tables = (out / "python_bindings.cpp").read_text()
    shards = [(out / f"python_bindings_{k}.cpp").read_text() for k in range(3)]
    assert "/ops/" not in tables and '"First."' in tables
    for cname in ("fn_ember_alpha", "fn_ember_beta", "fn_ember_gamma", "fn_ember_delta", "method_gamma"):
        assert f"PyObject* {cname}(" in tables
        defining = [t for t in shards if f"PyObject* {cname}(PyObject*" in t and "EMBER_PY_BEGIN" in t]
        assert len(defining) == 1, cname
    for name in ("alpha", "beta", "gamma", "delta"):
        has_header = [t for t in shards if f'/ops/{name}.h"' in t]
        assert len(has_header) == 1, name
    before = {f.name: f.read_bytes() for f in out.glob("python_bindings*.cpp")}
    r = run_gen_python(tmp_path, ops.replace("First.", "First, edited."), "--shards", "3")
    assert r.returncode == 0, r.stderr
    changed = sorted(f.name for f in out.glob("python_bindings*.cpp") if f.read_bytes() != before[f.name])
    assert changed == ["python_bindings.cpp"]


def test_python_bindings_reject_unbindable_types(tmp_path):
    r = run_gen_python(tmp_path, "- func: f(Tensor self, Dimname d) -> Tensor\n")
    assert r.returncode == 1 and "has no Python binding yet" in r.stderr


def test_python_bindings_take_several_outs_as_one_tuple(tmp_path):
    r = run_gen_python(tmp_path, """
        - func: runmax(Tensor self, int dim) -> (Tensor values, Tensor indices)
          doc: Running maxima.
        - func: runmax.out(Tensor self, int dim, *, Tensor(a!) values, Tensor(b!) indices) -> (Tensor(a!) values, Tensor(b!) indices)
    """)
    assert r.returncode == 0, r.stderr
    cpp_text = "".join(f.read_text() for f in sorted((tmp_path / "py").glob("python_bindings*.cpp")))
    # As PyTorch's out=(values, indices): one parameter, unpacked into the overload's outs.
    assert '"runmax(Tensor input, int dim, *, Tensor[2]? out=None)"' in cpp_text
    assert "ember::ops::runmax_out::call(a0, a1, outs[0], outs[1])" in cpp_text
    assert "expected 'out' to be a tuple of 2 tensors" in cpp_text
    assert "return wrap_tuple({std::get<0>(result), std::get<1>(result)});" in cpp_text
