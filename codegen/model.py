"""The data model of native_functions.yaml: schemas and entries as frozen dataclasses.

`Schema.parse(s)` round-trips: `str(Schema.parse(s)) == s` for canonical schemas (the C++
parser in c10/dispatch/FunctionSchema.cpp is the reference grammar; this one covers what
the generator needs and is checked against the YAML on every run).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import yaml

BASE_TYPES = ("Tensor", "int", "SymInt", "float", "bool", "str", "Scalar", "ScalarType",
              "Device", "Layout", "MemoryFormat", "Generator", "Dimname", "Storage", "Stream",
              "complex", "Any")

# Runtime and alias dispatch keys a YAML entry may name (c10/core/DispatchKey.h).
DISPATCH_KEYS = ("CPU", "CUDA", "Meta", "PrivateUse1", "PrivateUse2", "PrivateUse3", "PrivateUse4",
                 "MkldnnCPU", "SparseCPU", "SparseCUDA",
                 "SparseCsrCPU", "SparseCsrCUDA", "BackendSelect", "ADInplaceOrView",
                 "AutogradOther", "AutogradCPU", "AutogradCUDA", "AutogradPrivateUse1",
                 "AutogradPrivateUse2", "AutogradPrivateUse3", "AutogradPrivateUse4", "Tracer",
                 "AutocastCPU", "Autograd", "CompositeExplicitAutograd", "CompositeImplicitAutograd")

# The backend keys of the non-strided layouts (Note [Layout keys], c10/core/DispatchKey.h).
LAYOUT_KEYS = ("SparseCPU", "SparseCsrCPU", "MkldnnCPU")

KNOWN_KEYS = ("func", "variants", "dispatch", "structured", "structured_delegate", "meta", "doc",
              "autograd", "device_check", "python_module", "cpp_no_default_args", "sparse")

# Note [Sparse on values]: `sparse: values` declares an op zero-preserving in `self` (f(0) == 0,
# elementwise, self the only tensor): on a sparse COO self it is the op applied to the
# coalesced values, on the same pattern. Codegen registers one generic boxed kernel for it
# at SparseCPU (aten/native/sparse/SparseOnValues.cpp), so no op has a sparse copy of its own.
# `sparse: dense` declares one that is not (exp(0) == 1): on sparse arguments it is the op on
# their dense forms, and the result is strided (also one generic kernel; any tensor arguments,
# so comparisons of two tensors, where and masked_fill take it too). `sparse: probe` declares
# an op whose zero-preservation depends on its other arguments (gt(x, 0.5), pow(x, 2),
# clamp): the kernel runs it on a zero of self's dtype first and acts on the values when
# the result is zero, on the dense form otherwise. The same kernels serve every sparse
# layout (SparseCPU and SparseCsrCPU).
SPARSE_MODES = ("values", "dense", "probe")

# `autograd: not_implemented` (recorded; backward raises) and `autograd: non_differentiable`
# (outputs never require grad) stand in for formulas; stored as {AUTOGRAD_MARKER_KEY: marker}.
AUTOGRAD_MARKERS = ("not_implemented", "non_differentiable")
AUTOGRAD_MARKER_KEY = "__marker__"

# Where a function appears in Python besides methods: ember.<op> by default, else
# ember.nn.functional, ember.linalg (name without "linalg_"), ember.special ("special_").
PYTHON_MODULES = ("nn", "linalg", "special")


class ModelError(Exception):
    """A bad entry; str() is "file:line: reason"."""


@dataclass(frozen=True)
class Type:
    base: str
    alias: str | None = None  # the annotation text inside the parentheses: "a!", "a -> *"
    elem_optional: bool = False
    is_list: bool = False
    size: int | None = None
    optional: bool = False

    @staticmethod
    def parse(text: str) -> "Type":
        m = re.fullmatch(r"(\w+)(?:\(([^)]*)\))?(\?)?(?:\[(\d*)\])?(\?)?", text)
        if not m or m.group(1) not in BASE_TYPES:
            raise ValueError(f"unknown type '{text}'")
        base, alias, q1, size, q2 = m.groups()
        is_list = size is not None
        return Type(base=base, alias=alias, elem_optional=bool(q1) and is_list,
                    is_list=is_list, size=int(size) if size else None,
                    optional=bool(q2) or (bool(q1) and not is_list))

    def __str__(self) -> str:
        s = self.base + (f"({self.alias})" if self.alias is not None else "")
        if self.is_list:
            s += ("?" if self.elem_optional else "") + f"[{self.size or ''}]"
        return s + ("?" if self.optional else "")

    @property
    def is_tensor(self) -> bool:
        return self.base == "Tensor"

    @property
    def is_mutable(self) -> bool:
        return self.alias is not None and "!" in self.alias.split("->")[0]


@dataclass(frozen=True)
class Argument:
    name: str
    type: Type
    default: str | None = None
    kwarg_only: bool = False

    def __str__(self) -> str:
        s = f"{self.type} {self.name}".rstrip()
        return s + (f"={self.default}" if self.default is not None else "")


@dataclass(frozen=True)
class Schema:
    name: str
    overload: str
    arguments: tuple[Argument, ...]
    returns: tuple[Argument, ...]
    returns_parenthesized: bool

    @staticmethod
    def parse(text: str) -> "Schema":
        m = re.fullmatch(r"([\w]+)(?:\.(\w+))?\((.*)\) -> (.*)", text.strip())
        if not m:
            raise ValueError("expected 'name[.overload](arguments) -> returns'")
        name, overload, args_text, ret_text = m.groups()
        args = []
        kwarg_only = False
        for part in split_top(args_text):
            if part == "*":
                kwarg_only = True
                continue
            args.append(parse_argument(part, kwarg_only, is_return=False))
        paren = ret_text.startswith("(")
        ret_inner = ret_text[1:-1] if paren else ret_text
        rets = tuple(parse_argument(p, False, is_return=True) for p in split_top(ret_inner))
        names = [a.name for a in args]
        if len(set(names)) != len(names):
            raise ValueError("duplicate argument names")
        return Schema(name, overload or "", tuple(args), rets, paren)

    def __str__(self) -> str:
        parts, star = [], False
        for a in self.arguments:
            if a.kwarg_only and not star:
                parts.append("*")
                star = True
            parts.append(str(a))
        rets = ", ".join(str(r) for r in self.returns)
        if self.returns_parenthesized or len(self.returns) != 1:
            rets = f"({rets})"
        name = self.name + (f".{self.overload}" if self.overload else "")
        return f"{name}({', '.join(parts)}) -> {rets}"

    @property
    def full_name(self) -> str:
        return self.name + (f".{self.overload}" if self.overload else "")

    @property
    def is_out(self) -> bool:
        return any(a.kwarg_only and a.type.is_mutable for a in self.arguments)

    @property
    def is_inplace(self) -> bool:
        return self.name.endswith("_") and not self.name.endswith("__")

    @property
    def base_name(self) -> str:
        return self.name[:-1] if self.is_inplace else self.name

    @property
    def out_arguments(self) -> tuple[Argument, ...]:
        return tuple(a for a in self.arguments if a.kwarg_only and a.type.is_mutable)

    @property
    def non_out_arguments(self) -> tuple[Argument, ...]:
        return tuple(a for a in self.arguments if not (a.kwarg_only and a.type.is_mutable))


def split_top(text: str) -> list[str]:
    """Splits on commas outside brackets, parentheses and quotes."""
    parts, depth, quote, cur = [], 0, None, ""
    for ch in text:
        if quote:
            quote = None if ch == quote else quote
        elif ch in "\"'":
            quote = ch
        elif ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
            continue
        cur += ch
    if cur.strip():
        parts.append(cur.strip())
    return parts


def parse_argument(text: str, kwarg_only: bool, is_return: bool) -> Argument:
    default = None
    eq = _top_level_eq(text)
    if eq >= 0:
        text, default = text[:eq], text[eq + 1:]
    # The type may contain a space inside an alias annotation: "Tensor(a -> *)[] self".
    m = re.fullmatch(r"(\S+(?:\([^)]*\)[^\s]*)?)(?:\s+(\w+))?", text.strip())
    if not m:
        raise ValueError(f"cannot parse argument '{text}'")
    type_text, name = m.group(1), m.group(2) or ""
    if not name and not is_return:
        raise ValueError(f"argument '{text}' has no name")
    return Argument(name=name, type=Type.parse(type_text), default=default, kwarg_only=kwarg_only)


def _top_level_eq(text: str) -> int:
    depth = 0
    for i, ch in enumerate(text):
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        elif ch == "=" and depth == 0:
            return i
    return -1


@dataclass(frozen=True)
class NativeFunction:
    """One YAML entry."""
    schema: Schema
    variants: tuple[str, ...]
    dispatch: tuple[tuple[str, str], ...]  # (key, kernel name), in YAML order
    structured: bool
    structured_delegate: str | None
    doc: str
    autograd: tuple[tuple[str, object], ...]  # (inputs, formula) and output_differentiability
    loc: str  # "file:line"
    python_module: str | None = None
    # Note [Shared meta helpers]: a structured entry's `meta: <helper>` names a function of
    # the family's shared room, `TensorMeta <helper>(const char* op, <the entry's non-out
    # arguments>)`; codegen declares it and defines the entry's meta function as a call to
    # it with the op's name, so an op whose meta is a family rule has no meta code of its own.
    meta: str | None = None
    # Arguments whose schema default the C++ entry points leave out, as PyTorch's key of the
    # same name: `all.dims` keeps `dim=None` in Python, but a C++ `t.all()` must pick `all`,
    # and `t.std(true)` must not pick `std.dim` (see codegen/cpp.py params()).
    cpp_no_default_args: tuple[str, ...] = ()
    # Note [Sparse on values]: "values" when the op acts on a sparse self's values, "dense"
    # when it acts on its dense form.
    sparse: str | None = None

    @property
    def name(self) -> str:
        return self.schema.full_name

    @property
    def dispatch_keys(self) -> tuple[str, ...]:
        return tuple(k for k, _ in self.dispatch)


class _LineLoader(yaml.SafeLoader):
    """Records each mapping's 1-based line as "__line__" so errors cite file:line."""

    def construct_mapping(self, node, deep=False):
        mapping = super().construct_mapping(node, deep=deep)
        mapping["__line__"] = node.start_mark.line + 1
        return mapping


def load(paths: list[Path]) -> list[NativeFunction]:
    """Parses and validates the YAML files (the main file, then fragments)."""
    functions: list[NativeFunction] = []
    for path in paths:
        try:
            data = yaml.load(path.read_text(), Loader=_LineLoader)
        except yaml.YAMLError as e:
            raise ModelError(f"{path}:{getattr(getattr(e, 'problem_mark', None), 'line', -1) + 1}: "
                             f"invalid YAML: {e}")
        if data is None:
            continue
        if not isinstance(data, list):
            raise ModelError(f"{path}:1: expected a list of operator entries")
        for item in data:
            functions.append(_entry(path, item))
    _validate(functions)
    return functions


def _entry(path: Path, item) -> NativeFunction:
    line = item.get("__line__", 0) if isinstance(item, dict) else 0
    loc = f"{path.name}:{line}"
    if not isinstance(item, dict) or "func" not in item:
        raise ModelError(f"{loc}: every entry needs a 'func:' schema")
    unknown = sorted(set(item) - set(KNOWN_KEYS) - {"__line__"})
    if unknown:
        raise ModelError(f"{loc}: unknown key '{unknown[0]}'; an entry may have "
                         f"{', '.join(KNOWN_KEYS)}")
    func = str(item["func"]).strip()
    try:
        schema = Schema.parse(func)
    except ValueError as e:
        raise ModelError(f"{loc}: bad schema '{func}': {e}")
    if str(schema) != func:
        raise ModelError(f"{loc}: schema is not in canonical form; write it as '{schema}'")
    variants = tuple(v.strip() for v in str(item.get("variants", "function")).split(","))
    for v in variants:
        if v not in ("function", "method"):
            raise ModelError(f"{loc}: unknown variant '{v}'; expected function and/or method")
    dispatch_raw = item.get("dispatch") or {}
    if not isinstance(dispatch_raw, dict):
        raise ModelError(f"{loc}: 'dispatch' must map dispatch keys to kernel names")
    dispatch = []
    for keys, kernel in dispatch_raw.items():
        if keys == "__line__":
            continue
        for key in (k.strip() for k in str(keys).split(",")):
            if key not in DISPATCH_KEYS:
                raise ModelError(f"{loc}: dispatch to unknown key '{key}'; known keys: "
                                 f"{', '.join(DISPATCH_KEYS)}")
            if not re.fullmatch(r"[A-Za-z_]\w*", str(kernel)):
                raise ModelError(f"{loc}: kernel name '{kernel}' is not a C++ identifier")
            dispatch.append((key, str(kernel)))
    structured = bool(item.get("structured", False))
    delegate = item.get("structured_delegate")
    if structured and delegate:
        raise ModelError(f"{loc}: an entry is either structured or a structured_delegate")
    if structured and not schema.is_out:
        raise ModelError(f"{loc}: a structured kernel is the out= overload; its schema needs a "
                         f"keyword-only 'Tensor(a!) out'")
    if delegate and any(k not in LAYOUT_KEYS for k, _ in dispatch):
        # The layout keys' kernels are not structured (a sparse result has no meta function).
        raise ModelError(f"{loc}: a structured_delegate takes its kernels from '{delegate}'; only the "
                         f"layout keys ({', '.join(LAYOUT_KEYS)}) may name kernels of their own")
    for a in schema.arguments:
        if a.kwarg_only and a.type.is_tensor and a.name.startswith("out") and not a.type.is_mutable:
            raise ModelError(f"{loc}: out= argument '{a.name}' must be annotated Tensor(a!)")
    if schema.name.endswith("_out") or (schema.overload == "out" and not schema.is_out):
        raise ModelError(f"{loc}: out= overload '{schema.full_name}' needs a keyword-only "
                         f"'Tensor(a!) out' argument")
    autograd = item.get("autograd") or {}
    if isinstance(autograd, str):
        if autograd not in AUTOGRAD_MARKERS:
            raise ModelError(f"{loc}: 'autograd: {autograd}' is not a marker; expected formulas or "
                             f"one of {', '.join(AUTOGRAD_MARKERS)}")
        autograd = {AUTOGRAD_MARKER_KEY: autograd}
    elif not isinstance(autograd, dict):
        raise ModelError(f"{loc}: 'autograd' must map inputs to formulas, or be one of "
                         f"{', '.join(AUTOGRAD_MARKERS)}")
    meta = item.get("meta")
    if meta is not None:
        if not structured:
            raise ModelError(f"{loc}: 'meta: {meta}' names the meta helper of a structured entry; "
                             f"add 'structured: True' or remove it")
        if not re.fullmatch(r"[A-Za-z_]\w*", str(meta)):
            raise ModelError(f"{loc}: meta helper '{meta}' is not a C++ identifier")
        if len(schema.out_arguments) != 1:
            raise ModelError(f"{loc}: a meta helper returns one TensorMeta; '{schema.full_name}' has "
                             f"{len(schema.out_arguments)} out= arguments")
    python_module = item.get("python_module")
    if python_module is not None and python_module not in PYTHON_MODULES:
        raise ModelError(f"{loc}: unknown python_module '{python_module}'; expected one of "
                         f"{', '.join(PYTHON_MODULES)}")
    no_defaults = item.get("cpp_no_default_args") or []
    if not isinstance(no_defaults, list) or not all(isinstance(n, str) for n in no_defaults):
        raise ModelError(f"{loc}: 'cpp_no_default_args' must be a list of argument names")
    arg_names = {a.name for a in schema.arguments}
    for n in no_defaults:
        if n not in arg_names:
            raise ModelError(f"{loc}: cpp_no_default_args names '{n}', which is not an argument "
                             f"of '{schema.full_name}'")
    sparse = item.get("sparse")
    if sparse is not None:
        if sparse not in SPARSE_MODES:
            raise ModelError(f"{loc}: 'sparse: {sparse}' is not a sparse mode; expected one of "
                             f"{', '.join(SPARSE_MODES)}")
        tensors = [a for a in schema.arguments if a.type.is_tensor]
        self_only = sparse == "dense" or len(tensors) == 1  # dense: every tensor argument densified
        if (schema.is_out or not schema.arguments or not self_only
                or (sparse != "dense" and schema.arguments[0].name != "self")
                or len(schema.returns) != 1 or not schema.returns[0].type.is_tensor):
            raise ModelError(f"{loc}: 'sparse: {sparse}' needs `self` as the only tensor argument and one "
                             f"tensor return (not an out= overload); '{schema.full_name}' has neither")
        if sparse in ("dense", "probe") and any(a.type.is_mutable for a in schema.arguments):
            raise ModelError(f"{loc}: 'sparse: {sparse}' can give a strided result, which cannot be written "
                             f"into a sparse self; declare it on the out-of-place form only")
    if not dispatch and not delegate:
        # As in PyTorch: no dispatch means a CompositeImplicitAutograd kernel named after the op.
        dispatch = [("CompositeImplicitAutograd", schema.name)]
    return NativeFunction(
        schema=schema, variants=variants, dispatch=tuple(dispatch), structured=structured,
        structured_delegate=str(delegate) if delegate else None,
        doc=str(item.get("doc", "")).strip(),
        autograd=tuple((str(k), v if isinstance(v, list) else str(v))
                       for k, v in autograd.items() if k != "__line__"),
        loc=loc, python_module=python_module, meta=str(meta) if meta is not None else None,
        cpp_no_default_args=tuple(no_defaults), sparse=str(sparse) if sparse is not None else None)


def _validate(functions: list[NativeFunction]) -> None:
    seen: dict[str, NativeFunction] = {}
    for f in functions:
        if f.name in seen:
            raise ModelError(f"{f.loc}: duplicate overload '{f.name}' (first at {seen[f.name].loc})")
        seen[f.name] = f
    for f in functions:
        if f.structured_delegate:
            target = seen.get(f.structured_delegate)
            if target is None:
                raise ModelError(f"{f.loc}: structured_delegate '{f.structured_delegate}' names "
                                 f"no operator")
            if not target.structured:
                raise ModelError(f"{f.loc}: structured_delegate '{f.structured_delegate}' is not "
                                 f"marked structured: True")
        if "method" in f.variants and not any(a.name == "self" for a in f.schema.arguments):
            raise ModelError(f"{f.loc}: a method variant needs an argument named 'self'")
