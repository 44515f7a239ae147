#!/usr/bin/env python3
"""Generates the Python bindings of the operators in native_functions.yaml (or a fragment).

  gen_python.py --yaml native_functions.yaml --out DIR --entry native_bindings
                [--include-prefix ember/generated] [--module NAME] [--stub FILE]

Writes DIR/python_bindings.cpp (the tables) and DIR/python_bindings_K.cpp, K < --shards
(Note [Binding shards]): one vectorcall function per Python name (ember.<op>,
ember.nn.functional.<op>, ember.linalg.<op>, ember.special.<op>) and per Tensor method,
each with one static ArgParser over the op's overloads (python/csrc/ArgParser.h, Note
[Python signatures]); `out=` overloads merge into their functional form as PyTorch's
bindings do (several out= tensors as one tuple: `out=(values, indices)`); factories take
`requires_grad=`. The tables come out of the C++ function `--entry`; with `--module`, the
file also defines PyInit_<module>, which installs the functions and methods into the
`ember` package (an operator library's Python face).
`--stub` writes a .pyi with the signatures and each overload's doc.
"""
from __future__ import annotations

import argparse
import keyword
import sys
import zlib
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import cpp  # noqa: E402
from gen import HEADER, Writer  # noqa: E402
from model import Argument, ModelError, NativeFunction, Type, load  # noqa: E402

OPTIONS = ("dtype", "layout", "device", "pin_memory")
MODULE_PREFIX = {"linalg": "linalg_", "special": "special_"}


def py_type(t: Type) -> str:
    """The schema type without alias annotations, SymInt spelled int."""
    base = "int" if t.base == "SymInt" else t.base
    s = base
    if t.is_list:
        s += f"[{t.size or ''}]"
    return s + ("?" if t.optional else "")


def py_name(name: str) -> str:
    """A Python keyword (`from`) cannot be a keyword argument: it is spelt `from_`."""
    return name + "_" if keyword.iskeyword(name) else name


def py_param(a: Argument) -> str:
    s = f"{py_type(a.type)} {py_name(a.name)}"
    return s + (f"={a.default}" if a.default is not None else "")


@dataclass
class Binding:
    """One signature of a Python name: the overload it calls, and its out= partner."""
    f: NativeFunction
    out: NativeFunction | None
    method: bool

    @property
    def params(self) -> list[Argument]:
        # As PyTorch's bindings: a function's tensor `self` is `input` (ember.clone(input=t));
        # a number `self` keeps its name (ember.pow(self=2, exponent=t)).
        args = [Argument("input", a.type, a.default, a.kwarg_only)
                if a.name == "self" and a.type.is_tensor else a
                for a in self.f.schema.arguments if not (self.method and a.name == "self")]
        if self.out is not None:
            # Several out= tensors come as one tuple, as PyTorch's `out=(values, indices)`.
            n = len(self.out.schema.out_arguments)
            args.append(Argument("out", Type.parse("Tensor?" if n == 1 else f"Tensor[{n}]?"), "None",
                                 kwarg_only=True))
        return args

    @property
    def is_factory(self) -> bool:
        names = [a.name for a in self.f.schema.arguments]
        return all(n in names for n in OPTIONS)

    def signature(self, name: str) -> str:
        parts, star = [], False
        for a in self.params:
            if a.kwarg_only and not star:
                parts.append("*")
                star = True
            parts.append(py_param(a))
        if self.is_factory:
            if not star:
                parts.append("*")
            parts.append("bool requires_grad=False")
        return f"{name}({', '.join(parts)})"


# Note [Deprecated signatures]: torch still takes the argument orders of its early releases
# for a few ops, and old programs use them: `p.data.add_(-lr, grad)`,
# `v.addcmul_(1 - beta, g, g)`, `torch.addmm(beta, M, alpha, m1, m2)`. Each row names an
# overload and a positional order of its arguments (its other arguments stay keywords with
# their defaults). They are tried after the current signatures, so they take only calls that
# match nothing else, as torch's deprecated.yaml does.
_ALPHA = [("self", "alpha", "other")]
_VALUE = [("self", "value", "tensor1", "tensor2")]


def _beta_alpha(a: str, b: str) -> list[tuple[str, ...]]:
    return [("beta", "self", "alpha", a, b), ("beta", "self", a, b)]


DEPRECATED = {
    "add.Tensor": _ALPHA, "add_.Tensor": _ALPHA, "sub.Tensor": _ALPHA, "sub_.Tensor": _ALPHA,
    "addcmul": _VALUE, "addcmul_": _VALUE, "addcdiv": _VALUE, "addcdiv_": _VALUE,
    "addmm": _beta_alpha("mat1", "mat2"), "addmm_": _beta_alpha("mat1", "mat2"),
    "addmv": _beta_alpha("mat", "vec"), "addmv_": _beta_alpha("mat", "vec"),
    "addr": _beta_alpha("vec1", "vec2"), "addr_": _beta_alpha("vec1", "vec2"),
    "baddbmm": _beta_alpha("batch1", "batch2"), "baddbmm_": _beta_alpha("batch1", "batch2"),
    "addbmm": _beta_alpha("batch1", "batch2"), "addbmm_": _beta_alpha("batch1", "batch2"),
}


@dataclass
class DeprecatedBinding(Binding):
    """A deprecated signature of overload f (Note [Deprecated signatures])."""
    order: tuple[str, ...] = ()

    @property
    def params(self) -> list[Argument]:
        by_name = {a.name: a for a in self.f.schema.arguments}
        args = []
        for n in self.order:
            if self.method and n == "self":
                continue
            a = by_name[n]
            args.append(Argument("input" if n == "self" else n, a.type, None, False))
        args += [Argument(a.name, a.type, a.default, True) for a in self.f.schema.arguments
                 if a.name not in self.order]
        return args


def _key(a: Argument) -> tuple:
    return (a.name, py_type(a.type))


def bindings_of(overloads: list[NativeFunction], method: bool) -> list[Binding]:
    """Pairs each functional overload with an out= overload taking the same arguments (the
    tensor options aside), as PyTorch's bindings do; unpaired out= overloads stand alone."""
    outs = [f for f in overloads if f.schema.is_out]
    used: set[str] = set()
    result = []
    for f in overloads:
        if f.schema.is_out:
            continue
        mine = [_key(a) for a in f.schema.arguments if a.name not in OPTIONS]
        partner = None
        if not method:
            for o in outs:
                if o.name not in used and [_key(a) for a in o.schema.non_out_arguments] == mine:
                    partner = o
                    used.add(o.name)
                    break
        result.append(Binding(f, partner, method))
    for o in outs:
        if o.name not in used and not method:
            result.append(Binding(o, None, method))
    for f in overloads:
        for order in DEPRECATED.get(f.name, ()):   # a method drops self wherever it stands
            result.append(DeprecatedBinding(f, None, method, order))
    return result


def accessor(a: Argument, i: int) -> tuple[str, str]:
    """(declaration of a local holding the argument, expression passed to the C++ call)."""
    t = a.type
    var = f"a{i}"
    if t.is_tensor:
        if t.is_list:
            return f"auto {var} = r.tensor_list({i});", f"TensorList({var})"
        if t.optional:
            return f"auto {var} = r.optional_tensor({i});", var
        return f"const Tensor& {var} = r.tensor({i});", var
    if t.is_list:
        if t.base in ("int", "SymInt"):
            if t.optional:
                return f"auto {var} = r.optional_int_list({i});", f"as_ref({var})"
            return f"auto {var} = r.int_list({i});", f"IntArrayRef({var})"
        if t.base == "float":
            return f"auto {var} = r.double_list({i});", f"ArrayRef<double>({var})"
        if t.base == "bool" and t.size and not t.optional:
            return f"auto {var} = r.bool_array<{t.size}>({i});", var
        raise cpp.CppError(f"type {t} has no Python binding yet")
    fn = {"Scalar": "scalar", "int": "int", "SymInt": "int", "float": "double", "bool": "bool",
          "ScalarType": "scalar_type", "Layout": "layout", "Device": "device",
          "MemoryFormat": "memory_format", "Generator": "generator", "str": "string"}.get(t.base)
    if fn is None:
        raise cpp.CppError(f"type {t} has no Python binding yet")
    if t.optional or t.base == "Generator":
        return f"auto {var} = r.optional_{fn}({i});", var
    plain = {"int": "to_int", "double": "to_double", "bool": "to_bool"}.get(fn, fn)
    return f"auto {var} = r.{plain}({i});", var


def wrap_result(b: Binding, expr_var: str, requires_grad_index: int | None) -> str:
    rets = b.f.schema.returns
    if not rets:
        return "Py_RETURN_NONE;"
    if len(rets) == 1:
        t = rets[0].type
        if t.is_tensor and t.is_list:
            return f"return wrap_list({expr_var});"
        if t.is_tensor:
            if requires_grad_index is not None:
                return f"return wrap_requires_grad(std::move({expr_var}), r.to_bool({requires_grad_index}));"
            return f"return wrap(std::move({expr_var}));"
        if t.base == "Scalar":
            return f"return wrap({expr_var});"
        if t.base == "bool":
            return f"return PyBool_FromLong({expr_var});"
        if t.base in ("int", "SymInt"):
            return f"return PyLong_FromLongLong({expr_var});"
        if t.base == "float":
            return f"return PyFloat_FromDouble({expr_var});"
        raise cpp.CppError(f"return type {t} has no Python binding yet")
    if all(r.type.is_tensor and not r.type.is_list for r in rets):
        items = ", ".join(f"std::get<{k}>({expr_var})" for k in range(len(rets)))
        return f"return wrap_tuple({{{items}}});"
    raise cpp.CppError(f"returns {b.f.schema.returns} have no Python binding yet")


def call_block(b: Binding, f: NativeFunction, method: bool, out_index: int | None) -> list[str]:
    """Converts the arguments of signature b, then calls overload f (b.f or its out= partner)."""
    params = b.params
    index = {a.name: i for i, a in enumerate(params)}
    lines = []
    passed = []
    outs = f.schema.out_arguments if f is not b.f else ()
    for a in f.schema.arguments:
        if method and a.name == "self":
            passed.append("self_")
            continue
        if len(outs) > 1 and a in outs:
            # The out= tuple, unpacked once into the overload's out arguments.
            if a is outs[0]:
                lines += [f"auto outs = r.tensor_list({index['out']});",
                          f"EMBER_CHECK_TYPE(outs.size() == {len(outs)}, \"{f.schema.name}(): expected "
                          f"'out' to be a tuple of {len(outs)} tensors, but got \", outs.size());"]
            passed.append(f"outs[{outs.index(a)}]")
            continue
        name = "out" if (a.kwarg_only and a.type.is_mutable and f is not b.f) else a.name
        i = index["input" if name == "self" and a.type.is_tensor else name]
        decl_type = a.type if name != "out" else Type.parse("Tensor")
        decl, expr = accessor(Argument(a.name, decl_type, a.default, a.kwarg_only), i)
        lines.append(decl)
        passed.append(expr)
    ret = cpp.canonical_return(f.schema)
    work = "r.work() + self_.numel()" if method else "r.work()"
    call = f"ember::ops::{cpp.struct_name(f)}::call({', '.join(passed)})"
    rg = len(params) if b.is_factory and f is b.f else None
    if ret == "void":
        lines += ["{", f"  GilRelease nogil({work});", f"  {call};", "}", "Py_RETURN_NONE;"]
        return lines
    lines += [f"{ret} result;", "{", f"  GilRelease nogil({work});", f"  result = {call};", "}"]
    if f is not b.f and len(outs) > 1:
        items = ", ".join(f"std::get<{k}>(result)" for k in range(len(outs)))
        lines.append(f"return wrap_tuple({{{items}}});")
    elif f is not b.f:
        lines.append("return wrap(std::move(result));")
    else:
        lines.append(wrap_result(b, "result", rg))
    return lines


def binding_function(cname: str, pyname: str, bs: list[Binding], method: bool) -> str:
    sigs = ",\n      ".join('"' + b.signature(pyname).replace('"', '\\"') + '"' for b in bs)
    self_param = "PyObject* self" if method else "PyObject*"
    out = [f"PyObject* {cname}({self_param}, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {{",
           "  EMBER_PY_BEGIN",
           f"  static const ArgParser parser({{\n      {sigs}}});",
           "  ParsedArgs r;",
           "  parser.parse(args, nargs, kwnames, r);"]
    if method:
        out.append("  const Tensor& self_ = unpack(self);")
    out.append("  switch (r.index) {")
    for k, b in enumerate(bs):
        out.append(f"    case {k}: {{")
        body = []
        if b.out is not None:
            out_i = len(b.params) - 1
            body.append(f"if (r.is_none({out_i})) {{")
            body += ["  " + x for x in call_block(b, b.f, method, None)]
            body.append("}")
            body += call_block(b, b.out, method, out_i)
        else:
            body += call_block(b, b.f, method, None)
        out += ["      " + x for x in body]
        out.append("    }")
    out += ["  }", "  Py_RETURN_NONE;", "  EMBER_PY_END(nullptr)", "}", ""]
    return "\n".join(out)


def python_groups(fs: list[NativeFunction]):
    """{(module, python name): overloads} for functions, {name: overloads} for methods."""
    functions: dict[tuple[str, str], list[NativeFunction]] = defaultdict(list)
    methods: dict[str, list[NativeFunction]] = defaultdict(list)
    for f in fs:
        name = f.schema.name
        module = f.python_module or "ember"
        if f.python_module in MODULE_PREFIX and name.startswith(MODULE_PREFIX[f.python_module]):
            name = name[len(MODULE_PREFIX[f.python_module]):]
        if "function" in f.variants:
            functions[(module, name)].append(f)
        if "method" in f.variants:
            methods[f.schema.name].append(f)
    return functions, methods


def doc_of(fs: list[NativeFunction]) -> str:
    return " ".join(dict.fromkeys(f.doc for f in fs if f.doc)).replace('"', '\\"')


# Note [Binding shards]: the binding functions are spread over `shards` files by a hash of
# their name (stable when other ops come and go), each including only the op headers its
# functions call; python_bindings.cpp holds the tables (names, flags, docs) and declares
# the functions. So a doc edit rebuilds the tables alone, an op's edit one shard, and a
# clean build compiles the shards in parallel (one file was the longest compile of the tree).
def shard_of(cname: str, shards: int) -> int:
    return zlib.crc32(cname.encode()) % shards


def generate_cpp(fs: list[NativeFunction], prefix: str, entry: str, module: str | None,
                 shards: int = 1) -> dict[str, str]:
    """{file name: text}: python_bindings.cpp (tables and entry) and python_bindings_K.cpp."""
    functions, methods = python_groups(fs)
    fn_sig = "(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames)"
    bodies: list[list[str]] = [[] for _ in range(shards)]
    called: list[set[str]] = [set() for _ in range(shards)]
    decls: list[str] = []
    tables: dict[str, list[str]] = {"ember": [], "nn": [], "linalg": [], "special": [], "methods": []}

    def add(cname: str, pyname: str, group: list[NativeFunction], method: bool, key: str) -> None:
        k = shard_of(cname, shards)
        bodies[k].append(binding_function(cname, pyname, bindings_of(group, method), method))
        called[k].update(f.schema.name for f in group)
        decls.append(f"PyObject* {cname}{fn_sig};\n")
        tables[key].append(f'    {{"{pyname}", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>({cname})), '
                           f'METH_FASTCALL | METH_KEYWORDS, "{doc_of(group)}"}},')

    for (mod, name), group in sorted(functions.items()):
        add(f"fn_{mod}_{name}", name, group, False, mod)
    for name, group in sorted(methods.items()):
        add(f"method_{name}", name, group, True, "methods")
    files = {}
    for k in range(shards):
        # The op headers of the overloads the bindings call (Note [Per-op headers], gen.py).
        files[f"python_bindings_{k}.cpp"] = "".join([
            HEADER, "#include <tuple>\n#include <vector>\n\n",
            "".join(f'#include "{prefix}/ops/{n}.h"\n' for n in sorted(called[k])),
            '#include "python/csrc/ArgParser.h"\n#include "python/csrc/Bindings.h"\n'
            '#include "python/csrc/Exceptions.h"\n\n',
            f"namespace ember::python::{entry}_fns {{\n\n", *bodies[k],
            f"}}  // namespace ember::python::{entry}_fns\n"])
    parts = [HEADER, '#include "python/csrc/Bindings.h"\n\n',
             f"namespace ember::python {{\nnamespace {entry}_fns {{\n", *decls,
             f"}}  // namespace {entry}_fns\n\nnamespace {{\nusing namespace {entry}_fns;\n\n"]
    for key, rows in tables.items():
        parts.append(f"PyMethodDef table_{key}[] = {{\n" + "".join(r + "\n" for r in rows)
                     + "    {nullptr, nullptr, 0, nullptr}};\n")
    parts.append("\n}  // namespace\n\n")
    parts.append(f"BindingTables {entry}() {{\n  return {{table_ember, table_nn, table_linalg, "
                 f"table_special, table_methods}};\n}}\n\n}}  // namespace ember::python\n")
    if module:
        parts.append(f"\nPyMODINIT_FUNC PyInit_{module}() {{\n"
                     f"  return ember::python::make_library_module(\"{module}\", "
                     f"ember::python::{entry}());\n}}\n")
    files["python_bindings.cpp"] = "".join(parts)
    return files


PYI_TYPES = {"Tensor": "Tensor", "Scalar": "Number", "int": "int", "SymInt": "int",
             "float": "float", "bool": "bool", "str": "str", "ScalarType": "dtype",
             "Layout": "layout", "Device": "Device", "MemoryFormat": "memory_format",
             "Generator": "Generator"}


def pyi_type(t: Type) -> str:
    base = PYI_TYPES.get(t.base, "Any")
    if t.is_list:
        base = f"Sequence[{base}]" if t.base not in ("int", "SymInt") else "_size"
    return f"{base} | None" if t.optional else base


def pyi_return(b: Binding) -> str:
    rets = b.f.schema.returns
    if not rets:
        return "None"
    if len(rets) == 1:
        t = rets[0].type
        if t.is_tensor:
            return "tuple[Tensor, ...]" if t.is_list else "Tensor"
        return {"Scalar": "Number", "bool": "bool", "int": "int", "float": "float"}.get(t.base, "Any")
    return "tuple[" + ", ".join("Tensor" for _ in rets) + "]"


def pyi_def(name: str, b: Binding, method: bool, overload: bool) -> str:
    parts = ["self"] if method else []
    star = False
    for a in b.params:
        if a.kwarg_only and not star:
            parts.append("*")
            star = True
        s = f"{py_name(a.name)}: {pyi_type(a.type)}"
        if a.default is not None:
            s += " = ..."
        parts.append(s)
    if b.is_factory:
        if not star:
            parts.append("*")
        parts.append("requires_grad: bool = ...")
    deco = "@overload\n" if overload else ""
    doc = (b.f.doc or b.f.name).replace('"""', "'''")
    return f'{deco}def {name}({", ".join(parts)}) -> {pyi_return(b)}:\n    """{doc}"""\n    ...\n'


def generate_stub(fs: list[NativeFunction]) -> str:
    functions, methods = python_groups(fs)
    out = ["# Generated by codegen/gen_python.py from native_functions.yaml. Do not edit.\n",
           "from typing import Any, Sequence, overload\n",
           "from ember import Tensor, dtype, layout, memory_format, Generator\n",
           "from ember._C import device as Device\n\n",
           "Number = int | float | bool | complex\n_size = Sequence[int] | int\n\n"]
    for (mod, name), group in sorted(functions.items()):
        if mod != "ember":
            continue
        bs = bindings_of(group, False)
        out += [pyi_def(name, b, False, len(bs) > 1) for b in bs]
    out.append("\nclass _TensorMethods:\n")
    for name, group in sorted(methods.items()):
        bs = bindings_of(group, True)
        for b in bs:
            out.append("    " + pyi_def(name, b, True, len(bs) > 1).replace("\n", "\n    ").rstrip() + "\n")
    return "".join(out)


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--yaml", action="append", required=True, type=Path)
    ap.add_argument("--out", required=True, type=Path)
    ap.add_argument("--include-prefix", default="ember/generated")
    ap.add_argument("--entry", default="native_bindings",
                    help="the C++ function (in ember::python) returning the tables")
    ap.add_argument("--module", help="also define PyInit_<module> for an operator library")
    ap.add_argument("--stub", type=Path, help="write a .pyi stub here")
    ap.add_argument("--shards", type=int, default=1,
                    help="binding functions in python_bindings_0..N-1.cpp (Note [Binding shards])")
    ap.add_argument("--stamp", type=Path)
    args = ap.parse_args(argv)
    try:
        fs = load(args.yaml)
        w = Writer(args.out)
        for name, text in generate_cpp(fs, args.include_prefix, args.entry, args.module,
                                       args.shards).items():
            w.write(name, text)
        if args.stub:
            stub = Writer(args.stub.parent)
            stub.write(args.stub.name, generate_stub(fs))
            stub.flush()
        w.flush()
    except (ModelError, cpp.CppError) as e:
        print(f"gen_python: error: {e}", file=sys.stderr)
        return 1
    if args.stamp:
        args.stamp.parent.mkdir(parents=True, exist_ok=True)
        args.stamp.write_text("")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
