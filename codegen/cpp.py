"""C++ spellings of schema types and defaults, shared by every generated file.

Kernels and entry points use the canonical calling convention of
c10/dispatch/CppSignature.h (Note [Canonical calling convention]); mutable tensor
arguments are `Tensor&` in kernel declarations, as PyTorch writes them.
"""
from __future__ import annotations

import re

from model import Argument, NativeFunction, Schema, Type


class CppError(Exception):
    pass


_SCALAR = {
    "int": "int64_t", "SymInt": "int64_t", "float": "double", "bool": "bool",
    "str": "std::string_view", "ScalarType": "ScalarType", "Device": "Device",
    "Layout": "Layout", "MemoryFormat": "MemoryFormat", "complex": "std::complex<double>",
}


def arg_type(t: Type, kernel: bool = False, public: bool = False) -> str:
    """The C++ parameter type of a schema type; `public` gives the spelling of entry points
    users call (ember::sum, Tensor::sum), where `int[]?` is an OptionalIntArrayRef (Note
    [Optional array refs] in c10/util/OptionalArrayRef.h)."""
    if t.is_tensor:
        if t.is_list:
            if t.elem_optional or t.optional:
                raise CppError(f"type {t} has no C++ binding yet")
            return "TensorList"
        if t.optional:
            return "const std::optional<Tensor>&"
        return "Tensor&" if kernel and t.is_mutable else "const Tensor&"
    if t.is_list:
        if t.base == "bool" and t.size and not t.optional:
            return f"std::array<bool, {t.size}>"
        elem = {"int": "IntArrayRef", "SymInt": "IntArrayRef", "float": "ArrayRef<double>"}.get(t.base)
        if elem is None:
            raise CppError(f"type {t} has no C++ binding yet")
        if t.optional and public:
            return "OptionalIntArrayRef" if elem == "IntArrayRef" else "OptionalArrayRef<double>"
        return f"std::optional<{elem}>" if t.optional else elem
    if t.base == "Scalar":
        return "const std::optional<Scalar>&" if t.optional else "const Scalar&"
    if t.base == "Generator":
        return "std::optional<Generator>"
    base = _SCALAR.get(t.base)
    if base is None:
        raise CppError(f"type {t} has no C++ binding yet")
    return f"std::optional<{base}>" if t.optional else base


def return_type(schema: Schema, kernel: bool = False) -> str:
    """Kernels return `Tensor&` for a `Tensor(a!)` return; entry points return Tensor."""
    rets = schema.returns
    if not rets:
        return "void"

    def one(r: Argument) -> str:
        if r.type.is_tensor and r.type.is_list:
            return "std::vector<Tensor>"
        if r.type.is_tensor:
            return "Tensor&" if kernel and r.type.is_mutable and len(rets) == 1 else "Tensor"
        return arg_type(r.type).replace("const ", "").replace("&", "")

    if len(rets) == 1:
        return one(rets[0])
    return "std::tuple<" + ", ".join(one(r) for r in rets) + ">"


def canonical_return(schema: Schema) -> str:
    return return_type(schema, kernel=False)


# The C++ enumerators of the enum-like defaults; their values (and the parser's reading of
# the same names) live in C++ only: c10/core/Reduction.h, MemoryFormat.h, Layout.h and
# ScalarType.cpp's scalar_type_names() (Note [Typed defaults] in c10/dispatch/FunctionSchema.h).
# c10/core/Tensor.h includes those headers, so every generated declaration can name them.
_REDUCTIONS = {"Mean": "Reduction::Mean", "Sum": "Reduction::Sum"}
_DTYPES = {"uint8": "Byte", "int8": "Char", "int16": "Short", "short": "Short", "int32": "Int",
           "int": "Int", "int64": "Long", "long": "Long", "float16": "Half", "half": "Half",
           "float32": "Float", "float": "Float", "float64": "Double", "double": "Double",
           "complex64": "ComplexFloat", "cfloat": "ComplexFloat", "complex128": "ComplexDouble",
           "cdouble": "ComplexDouble", "bool": "Bool", "bfloat16": "BFloat16"}
_ENUM_DEFAULTS = {
    "int": _REDUCTIONS, "SymInt": _REDUCTIONS,
    "MemoryFormat": {"contiguous_format": "MemoryFormat::Contiguous",
                     "preserve_format": "MemoryFormat::Preserve",
                     "channels_last": "MemoryFormat::ChannelsLast",
                     "channels_last_3d": "MemoryFormat::ChannelsLast3d"},
    "Layout": {"strided": "Layout::Strided", "sparse_coo": "Layout::Sparse",
               "sparse_csr": "Layout::SparseCsr", "_mkldnn": "Layout::Mkldnn",
               "sparse_csc": "Layout::SparseCsc"},
    "ScalarType": {name: f"ScalarType::{e}" for name, e in _DTYPES.items()},
}


def default_value(a: Argument) -> str:
    """The C++ default argument for a schema default."""
    d = a.default
    t = a.type
    if d is None:
        raise CppError("no default")
    if d == "None":
        return "std::nullopt"
    if d in ("True", "False"):
        return d.lower()
    if t.is_list:
        if d.startswith("["):
            items = [x.strip() for x in d[1:-1].split(",") if x.strip()]
        else:
            items = [d] * (t.size or 1)
        return "{" + ", ".join(items) + "}" if items else "{}"
    if t.base == "str":
        return '"' + d[1:-1].replace('"', '\\"') + '"'
    if d in _ENUM_DEFAULTS.get(t.base, {}):
        return _ENUM_DEFAULTS[t.base][d]
    if d in ("inf", "-inf"):
        return ("-" if d.startswith("-") else "") + "std::numeric_limits<double>::infinity()"
    if d == "nan":
        return "std::numeric_limits<double>::quiet_NaN()"
    if re.fullmatch(r"-?\d+", d) and t.base in ("float", "Scalar") :
        return d + ".0" if t.base == "float" else d
    if re.fullmatch(r"-?[\d.]+(e-?\d+)?", d):
        return d
    raise CppError(f"default '{d}' of {t} has no C++ spelling")


def params(args: tuple[Argument, ...], kernel: bool = False, defaults: bool = False,
           public: bool = False, no_defaults: tuple[str, ...] = ()) -> list[str]:
    """`type name[ = default]` for each argument; defaults only on the trailing run, which
    ends at an argument named in `no_defaults` (the entry's cpp_no_default_args)."""
    out = []
    first_default = len(args)
    if defaults:
        for i in range(len(args) - 1, -1, -1):
            if args[i].default is None or args[i].name in no_defaults:
                break
            try:
                default_value(args[i])
            except CppError:
                break
            first_default = i
    for i, a in enumerate(args):
        s = f"{arg_type(a.type, kernel, public)} {a.name}"
        if defaults and i >= first_default:
            s += f" = {default_value(a)}"
        out.append(s)
    return out


def sig_types(schema: Schema) -> str:
    """The C++ function type of the op's typed handle: `Tensor(const Tensor&, ...)`."""
    return f"{canonical_return(schema)}({', '.join(arg_type(a.type) for a in schema.arguments)})"


def struct_name(f: NativeFunction) -> str:
    """ops::<name>_<overload>: the per-overload struct holding the cached handle."""
    s = f.schema
    name = s.name + (f"_{s.overload}" if s.overload else "")
    # A struct named `std` (the op std) would hide namespace std in generated code.
    return name + "_" if name == "std" else name


def free_function_name(f: NativeFunction) -> str:
    """ember::<name>: the op's name, `<name>_out` for an out= overload."""
    s = f.schema
    return s.name + "_out" if s.is_out else s.name


_CALLED = re.compile(r"(?<![\w.>:])([A-Za-z_]\w*)\s*\(")
_OPS_STRUCT = re.compile(r"\bops::(\w+)::")


def groups_used(code: str, fs: list[NativeFunction]) -> set[str]:
    """The op groups (ops/<name>.h) that generated code calls: by free function, called
    plain or as ember::<name>, or through ops::<struct>:: (Note [Per-op headers], gen.py).
    A local function of the same name only adds an include."""
    by_call: dict[str, str] = {}
    by_struct: dict[str, str] = {}
    for f in fs:
        by_struct[struct_name(f)] = f.schema.name
        if "function" in f.variants:
            by_call[free_function_name(f)] = f.schema.name
    plain = code.replace("ember::", "")
    found = {by_call[n] for n in _CALLED.findall(plain) if n in by_call}
    return found | {by_struct[n] for n in _OPS_STRUCT.findall(code) if n in by_struct}


OPTIONS_GROUP = ("dtype", "layout", "device", "pin_memory")


def options_group(args: tuple[Argument, ...]) -> int | None:
    """Index of a `ScalarType? dtype, Layout? layout, Device? device, bool? pin_memory` run."""
    names = [a.name for a in args]
    for i in range(len(names) - 3):
        if tuple(names[i:i + 4]) == OPTIONS_GROUP:
            return i
    return None
