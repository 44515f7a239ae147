"""The op table's machinery: cases generated from native_functions.yaml schemas, run through
Ember and PyTorch alike, and compared (test_op_table.py holds the rows and the tests).

A case names its arguments abstractly (TensorSpec, Dt, Gen, ...); `build_inputs` turns one
into the same numbers, sizes, strides and storage offsets in both libraries, so a result's
values, dtype, shape, strides and aliasing can be compared field by field.
"""
from __future__ import annotations

import math
import sys
import warnings
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import torch
import yaml

import ember

ROOT = Path(__file__).resolve().parents[2]
YAML_PATH = ROOT / "native_functions.yaml"
sys.path.insert(0, str(ROOT / "codegen"))

from model import Argument, Schema  # noqa: E402

FLOATS = ("float32", "float64", "float16", "bfloat16")
INTS = ("int64", "int32", "int16", "int8", "uint8")
COMPLEX = ("complex64", "complex128")
ALL = FLOATS + INTS + ("bool",) + COMPLEX

# Tensor layouts of an input: contiguous, transposed (reversed strides), broadcast (stride 0
# in dim 0), sliced with steps ([::2, 1::3]), 0-d, and empty (a zero-size dim 0).
LAYOUTS = ("contiguous", "transposed", "broadcast", "sliced", "0-d", "empty")

# PyTorch's default (rtol, atol) per dtype, as torch.testing.assert_close uses them.
TOLERANCES = {"float16": (1e-3, 1e-5), "bfloat16": (1.6e-2, 1e-5), "float32": (1.3e-6, 1e-5),
              "float64": (1e-7, 1e-7), "complex64": (1.3e-6, 1e-5), "complex128": (1e-7, 1e-7)}

# The builtin class a raised exception counts as; NotImplementedError before RuntimeError,
# its base class.
EXCEPTION_CLASSES = (TypeError, IndexError, ValueError, NotImplementedError, RuntimeError)


# ---- the YAML --------------------------------------------------------------------------

@dataclass(frozen=True)
class OpInfo:
    """One YAML entry: its overload key, parsed schema, variants and Python module."""
    key: str
    schema: Schema
    variants: tuple[str, ...]
    python_module: str | None = None  # ember.<module>.<name without "<module>_">

    @property
    def name(self) -> str:
        return self.schema.name

    @property
    def inputs(self) -> tuple[Argument, ...]:
        return self.schema.non_out_arguments


def load_ops() -> dict[str, OpInfo]:
    """Every entry of native_functions.yaml by overload key ("arange.start_step")."""
    ops = {}
    for entry in yaml.safe_load(YAML_PATH.read_text()):
        schema = Schema.parse(entry["func"])
        variants = tuple(v.strip() for v in str(entry.get("variants", "function")).split(","))
        ops[schema.full_name] = OpInfo(schema.full_name, schema, variants, entry.get("python_module"))
    return ops


# ---- abstract argument values ------------------------------------------------------------

@dataclass(frozen=True)
class Dt:
    """A dtype, ember.<name> or torch.<name>."""
    name: str

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True)
class Fmt:
    """A memory format: contiguous_format, preserve_format, channels_last."""
    name: str

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True)
class Lay:
    """A layout: strided."""
    name: str

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True)
class Dev:
    """A device, given as a string or (as_object) a device object."""
    name: str
    as_object: bool = False

    def __str__(self) -> str:
        return f"device('{self.name}')" if self.as_object else repr(self.name)


@dataclass(frozen=True)
class Gen:
    """A fresh Generator of the library, manual_seed(seed)."""
    seed: int

    def __str__(self) -> str:
        return f"Generator({self.seed})"


@dataclass(frozen=True)
class TensorSpec:
    """A tensor argument: dtype, layout, logical shape and value kind. shape None (out=
    only) means the shape of PyTorch's functional result."""
    dtype: str
    layout: str = "contiguous"
    shape: tuple[int, ...] | None = (3, 4)
    values: str = "any"  # any, prob, unit, edge, badprob, weights, negweights, nonzero, zero, special, ties, nan, positive

    def __str__(self) -> str:
        shape = "" if self.shape in ((3, 4), None) else "x".join(map(str, self.shape)) or "()"
        kind = "" if self.values == "any" else f":{self.values}"
        return f"{self.dtype}:{self.layout}" + (f":{shape}" if shape else "") + kind


def describe(value: Any) -> str:
    """The value as it appears in a case id."""
    if isinstance(value, tuple):
        return "(" + ",".join(map(describe, value)) + ("," if len(value) == 1 else "") + ")"
    if isinstance(value, float) and math.isfinite(value) and value == int(value):
        return f"{value:.1f}"
    return str(value) if not isinstance(value, str) else repr(value)


def lib_value(value: Any, lib) -> Any:
    """A non-tensor abstract value as the object of lib (ember or torch)."""
    if isinstance(value, (Dt, Fmt, Lay)):
        return getattr(lib, value.name)
    if isinstance(value, Dev):
        return lib.device(value.name) if value.as_object else value.name
    if isinstance(value, Gen):
        return lib.Generator().manual_seed(value.seed)
    return value


# ---- tensors -----------------------------------------------------------------------------

def _layout_plan(layout: str, shape: tuple[int, ...]):
    """(base shape, base -> view) for a layout over a logical shape."""
    if layout == "contiguous" or (not shape and layout != "empty"):  # a 0-d shape has one layout
        return shape, lambda a: a
    if layout == "transposed":
        return shape[::-1], lambda a: a.T
    if layout == "broadcast":
        return (1,) + shape[1:], lambda a: np.lib.stride_tricks.as_strided(
            a, shape, (0,) + a.strides[1:])
    if layout == "sliced":
        if len(shape) == 1:
            return (2 * shape[0] + 1,), lambda a: a[1::2]
        return (2 * shape[0], 3 * shape[1] + 1) + shape[2:], lambda a: a[::2, 1::3]
    if layout == "0-d":
        return (), lambda a: a
    if layout == "empty":
        return (0,) + shape[1:], lambda a: a
    raise ValueError(f"unknown layout {layout}")


def layout_applies(layout: str, shape: tuple[int, ...]) -> bool:
    """Whether the layout exists for the shape (a transpose needs two dimensions)."""
    return layout != "transposed" or len(shape) >= 2


def _special_pool(dtype: str) -> list:
    """Boundary values of a dtype: infinities, NaN and signed zeros for floats; the extremes
    for integers (not the minimum of int32/int64, whose division by -1 traps in PyTorch)."""
    if dtype in FLOATS or dtype in COMPLEX:
        return [math.inf, -math.inf, math.nan, 0.0, -0.0, 1.0, -1.0, 2.5, -2.5, 0.5, 3.0, -7.0]
    info = np.iinfo(dtype)
    if info.min == 0:
        return [0, 1, 2, 7, 128, 254, int(info.max)]
    low = [int(info.min)] if dtype in ("int8", "int16") else []
    return low + [int(info.min) + 1, int(info.max), -1, 0, 1, 2, 7, -7]


def numpy_values(dtype: str, shape: tuple[int, ...], kind: str, seed: int) -> np.ndarray:
    """Seeded values exact in every dtype (multiples of 1/4, small integers); "nonzero":
    no zeros (divisors); "zero": all zeros; "special": boundary values (_special_pool)."""
    rng = np.random.default_rng(seed)
    if kind == "zero":
        return np.zeros(shape, dtype=np.float32 if dtype == "bfloat16" else np.dtype(dtype))
    if kind == "nonzero" and dtype == "bool":
        return np.ones(shape, dtype=bool)
    if kind == "special" and dtype != "bool":
        pool = _special_pool(dtype)
        a = np.asarray(pool, dtype=np.float64 if dtype in FLOATS + COMPLEX else np.int64)[
            rng.integers(0, len(pool), shape)]
        if dtype in COMPLEX:
            a = a + 1j * np.asarray(pool)[rng.integers(0, len(pool), shape)]
        np_dtype = np.float32 if dtype == "bfloat16" else np.dtype(dtype)
        return np.asarray(a).astype(np_dtype)
    if kind == "nonzero":
        a = rng.integers(1, 6, shape) * (1 if dtype == "uint8" else rng.choice([-1, 1], shape))
        if dtype in FLOATS or dtype in COMPLEX:
            a = a / 2.0
        np_dtype = np.float32 if dtype == "bfloat16" else np.dtype(dtype)
        return np.asarray(a).astype(np_dtype)
    if kind in ("prob", "badprob"):
        a = rng.integers(0, 9, shape) / 8.0
    elif kind == "unit":  # [-1, 1], both ends included
        a = rng.integers(-8, 9, shape) / 8.0
    elif kind == "ties":  # few distinct values: repeated maxima and minima
        a = rng.integers(0, 3, shape)
    elif kind == "sign":  # -1 or 1 (cosine_embedding_loss targets)
        a = rng.choice([-1, 1], shape)
    elif kind == "index3":  # valid indices into a dimension of size 3 or more
        a = rng.integers(0, 3, shape)
    elif kind == "counts":  # repeat counts
        a = rng.integers(0, 4, shape)
    elif kind == "big":  # indices past the end of a dimension of size 3 or 4
        a = rng.integers(5, 9, shape)
    elif kind == "huge":  # indices past the end of 12 elements (either side)
        a = rng.choice([-20, -13, 12, 15], shape)
    elif kind == "wrap":  # indices from the end too
        a = rng.integers(-3, 3, shape)
    elif kind == "sorted":  # ascending along the last dim, with repeats
        a = np.sort(rng.integers(-4, 5, shape), axis=-1) if len(shape) else rng.integers(-4, 5, shape)
    elif kind == "perm":  # a permutation of -2..n-3 (sorted by the "argsort" index kind)
        a = np.asarray([3, -1, 0, 2, -2][:int(np.prod(shape))]).reshape(shape)
    elif kind == "argsort":  # the order that sorts "perm"
        a = np.argsort(np.asarray([3, -1, 0, 2, -2][:int(np.prod(shape))])).reshape(shape)
    elif kind == "positive":  # [2.25, 6], multiples of 1/4 (mvlgamma's domain for p <= 5)
        a = rng.integers(9, 25, shape) / 4.0
    elif kind == "grid":  # grid_sampler coordinates in [-1.25, 1.25], multiples of 1/8
        a = rng.integers(-10, 11, shape) / 8.0
    elif kind == "labels":  # CTC targets: classes 1..3 (0 is the blank)
        a = rng.integers(1, 4, shape)
    elif kind == "pivots":  # LAPACK's 1-based row interchanges: pivots[..., i] in [i + 1, k]
        k = shape[-1] if len(shape) else 1
        a = np.arange(1, k + 1) + rng.integers(0, k - np.arange(k), shape) if k else np.zeros(shape)
    elif kind == "distinct":  # no index twice (writes whose order would matter)
        a = rng.permutation(int(np.prod(shape))).reshape(shape)
    elif kind in ("weights", "negweights"):
        a = rng.integers(0, 4, shape).astype(np.float64)
    elif kind in ("wellcond", "spd", "sym") and len(shape) >= 2 and shape[-1] == shape[-2]:
        a = _square_matrices(kind, shape, rng)  # LAPACK rows: solvable, positive-definite, symmetric
    elif dtype == "bool":
        return np.asarray(rng.random(shape) < 0.5)
    elif dtype == "uint8":
        a = rng.integers(0, 11, shape)
    elif dtype in INTS:
        a = rng.integers(-5, 6, shape)
    else:
        a = rng.integers(-8, 9, shape) / 4.0
        if dtype in COMPLEX:
            a = a + 1j * rng.integers(-8, 9, shape) / 4.0
    np_dtype = np.float32 if dtype == "bfloat16" else np.dtype(dtype)
    return np.asarray(a).astype(np_dtype)


def _square_matrices(kind: str, shape: tuple[int, ...], rng) -> np.ndarray:
    """Square matrices in the last two dims, multiples of 1/4: "wellcond" with n added to the
    diagonal (far from singular); "spd" M M^T + n I; "sym" symmetric with eigenvalues apart."""
    n = shape[-1]
    m = rng.integers(-4, 5, shape) / 4.0
    if kind == "wellcond":
        return m + n * np.eye(n)
    if kind == "spd":
        return m @ np.swapaxes(m, -1, -2) + n * np.eye(n)
    return (m + np.swapaxes(m, -1, -2)) / 2 + np.diag(np.arange(n) * 2.0)


def _patch(view: np.ndarray, kind: str) -> None:
    """Fixes values the kind needs at logical positions (writing through the view)."""
    if view.size == 0:
        return
    if kind == "badprob":
        view.flat[0] = 1.5
    elif kind == "edge" and view.dtype.kind in "fc":
        # inf, -inf, NaN and -0.0 first (as many as fit); the rest stay ordinary values.
        for i, v in enumerate((np.inf, -np.inf, np.nan, -0.0)[:view.size]):
            view.flat[i] = v
    elif kind == "nan" and view.dtype.kind in "fc":  # NaN in some rows and columns, not all
        view.flat[[1, min(6, view.size - 1)]] = np.nan
    elif kind in ("weights", "negweights") and view.ndim:
        view[..., 0] = 1.0  # every row has a positive weight
        if kind == "negweights":
            view.flat[-1] = -1.0


def _torch_bfloat16(view: np.ndarray) -> torch.Tensor:
    """A bfloat16 torch tensor with view's element strides and storage offset 0."""
    strides = tuple(s // view.itemsize for s in view.strides)
    extent = 0 if view.size == 0 else 1 + sum((n - 1) * s for n, s in zip(view.shape, strides))
    flat = np.lib.stride_tricks.as_strided(view, (extent,), (view.itemsize,)).copy()
    return torch.from_numpy(flat).to(torch.bfloat16).as_strided(view.shape, strides)


def build_tensor(spec: TensorSpec, seed: int, shape: tuple[int, ...] | None = None):
    """(ember tensor, torch tensor) of spec: equal values, sizes, strides, storage offset 0,
    each over its own memory. Ember's comes from ember.from_numpy of a numpy view
    (bfloat16, which numpy lacks: ember.from_dlpack of a torch tensor)."""
    base_shape, view_of = _layout_plan(spec.layout, shape or spec.shape)
    base = numpy_values(spec.dtype, base_shape, spec.values, seed)
    _patch(view_of(base), spec.values)
    views = [view_of(base.copy()) for _ in range(2)]
    if spec.dtype == "bfloat16":
        return ember.from_dlpack(_torch_bfloat16(views[0])), _torch_bfloat16(views[1])
    return ember.from_numpy(views[0]), torch.from_numpy(views[1])


def dtype_name(dtype) -> str:
    """"float32" for ember.float32 and torch.float32 alike."""
    return str(dtype).split(".")[1]


def to_numpy(t) -> np.ndarray:
    """The elements of an Ember or PyTorch tensor as an array (bfloat16 as float32)."""
    name = dtype_name(t.dtype)
    if t.numel() == 0:  # nothing to read (and .float() of an empty Ember tensor may raise)
        return np.zeros(tuple(t.shape), np.float32 if name == "bfloat16" else np.dtype(name))
    if name == "bfloat16":
        t = t.float()
    return np.asarray(t.numpy())


def memory_span(t) -> tuple[int, int] | None:
    """[first byte, past last byte) of t's elements; None when it has none to address."""
    if t.numel() == 0 or t.device.type == "meta":
        return None
    extent = sum((n - 1) * s for n, s in zip(t.shape, t.stride()))
    return t.data_ptr(), t.data_ptr() + (extent + 1) * t.element_size()


def overlaps(a, b) -> bool:
    """Whether two tensors address a common byte."""
    sa, sb = memory_span(a), memory_span(b)
    return sa is not None and sb is not None and sa[0] < sb[1] and sb[0] < sa[1]


def exception_class(e: BaseException) -> type:
    """The builtin class a caller would catch: the first of EXCEPTION_CLASSES e is."""
    return next((cls for cls in EXCEPTION_CLASSES if isinstance(e, cls)), type(e))


# ---- cases -------------------------------------------------------------------------------

@dataclass(frozen=True)
class Case:
    """One call of a row's op: the arguments given (the rest take their defaults), the
    calling form, and what is expected ("same": what PyTorch does; "TypeError": a wrong
    argument type; "raises": an invalid value, the class PyTorch raises)."""
    key: str
    values: tuple[tuple[str, Any], ...]
    form: str = "function"  # function, method, unbound (Tensor.op(self, ...))
    expect: str = "same"
    varargs: bool = False  # the int[] size spread as positional arguments
    keywords: bool = False  # every argument by keyword (a function's self as input=)
    unknown_keyword: bool = False

    @property
    def args(self) -> dict[str, Any]:
        return dict(self.values)

    @property
    def id(self) -> str:
        parts = [f"{n}={describe(v)}" for n, v in self.values]
        flags = [f for f in ("varargs", "keywords") if getattr(self, f)]
        flags += ["bogus=1"] if self.unknown_keyword else []
        return f"{self.key}|{self.form}|{';'.join(parts + flags)}"


# Values an argument takes by schema type (and name, where the name fixes the meaning),
# before a row's own pools.
NAME_POOLS: dict[str, list] = {
    "size": [(2, 3), (4,), (), (0, 3)], "stride": [(1, 2)], "n": [3, 1, 0], "m": [4, 0],
    "steps": [5, 1, 0], "num_samples": [2], "high": [10], "low": [-3], "dim": [0, 1, -1],
    "index": [0, 2, -1], "from": [2, -3], "to": [10], "end": [5, 7.5, 0],
    "start": [0, -2, 1.5], "step": [1, 2, 0.5], "fill_value": [2, -1.5, True, 1 + 2j],
    "s": [1.5, 3, True, -2], "value": [2, -1.5, True, 0.25], "p": [0.5, 0.0, 1.0],
    "mean": [2.0], "std": [0.5], "base": [2.0, 0.5],
}
TYPE_POOLS: dict[str, list] = {
    "Tensor": [], "Scalar": [2, -1.5, True], "int": [2], "SymInt": [2], "float": [0.5],
    "int?": [None], "SymInt?": [None], "str?": [None], "Tensor?": [None], "bool": [False, True], "int[]": [(2, 3)], "SymInt[]": [(2, 3)],
    "Layout?": [Lay("strided")],
    "Device?": [Dev("cpu"), Dev("cpu", as_object=True), Dev("meta")], "bool?": [False],
    "MemoryFormat?": [Fmt("contiguous_format"), Fmt("preserve_format")],
    "MemoryFormat": [Fmt("contiguous_format")], "Generator?": [Gen(5)],
}
# A value of the wrong type for each schema type (a string where nothing takes one).
WRONG_TYPE: dict[str, Any] = {"ScalarType": (1,), "Device": 2.5, "Generator": 5, "str": 5}
# Invalid values any op taking the type must reject.
BAD_VALUES: dict[str, list] = {"SymInt[]": [(2, -2)], "int[]": [(2, -2)],
                               "MemoryFormat?": [Fmt("channels_last")]}


def type_key(a: Argument) -> str:
    """The key of TYPE_POOLS for an argument: "int[]", "MemoryFormat?"."""
    t = a.type
    return t.base + ("[]" if t.is_list else "") + ("?" if t.optional else "")


def parse_default(a: Argument) -> Any:
    """A schema default as an abstract value: None, True, 1, 0.5, 'none', contiguous_format, long."""
    simple = {"None": None, "True": True, "False": False, "long": Dt("int64"),
              "contiguous_format": Fmt("contiguous_format")}
    if a.default in simple:
        return simple[a.default]
    if a.default.startswith("["):  # a list: "[]", "[0, 1]"
        return tuple(int(x) for x in a.default[1:-1].split(",") if x.strip())
    if a.default[0] in "'\"":
        return a.default[1:-1]  # a str default
    if a.type.base == "int" and a.default.lower() in ember._C._reductions:
        return ember._C._reductions[a.default.lower()]  # reduction=Mean (c10/core/Reduction.h)
    if a.type.base == "float" or not a.default.lstrip("-").isdigit():
        return float(a.default)  # a float, or a Scalar written as one (alpha=1.0)
    return int(a.default)


def dtype_pool(row) -> list:
    """The row's dtypes as dtype= values."""
    return [Dt(d) for d in row.dtypes]


def arg_pool(row, a: Argument) -> list:
    """The sample values of a non-tensor argument: the row's pool, else by name, else by type;
    the schema default comes first when there is one."""
    if a.name in row.pools:
        pool = list(row.pools[a.name])
    elif a.type.base == "ScalarType":
        pool = dtype_pool(row)
    elif a.name in NAME_POOLS and not a.type.base.startswith(("bool", "Generator")):
        pool = list(NAME_POOLS[a.name])
    else:
        pool = list(TYPE_POOLS[type_key(a)])
    if a.type.base == "Generator" and a.default is None:
        pool = pool + [None]  # a required generator= may be None (the default generator)
    return pool


def _tensor_spec(row, a: Argument, dtype: str, layout: str) -> TensorSpec:
    shape = row.shapes.get(a.name, row.shape)
    return TensorSpec(dtype, layout, shape, row.values.get(a.name, "any"))


def ordered(op: OpInfo, values: dict[str, Any]) -> tuple[tuple[str, Any], ...]:
    """The given arguments as (name, value) pairs in schema order."""
    return tuple((a.name, values[a.name]) for a in op.schema.arguments if a.name in values)


def base_values(row, op: OpInfo) -> dict[str, Any]:
    """The required arguments: tensors contiguous in the row's first dtype, the rest the
    first value of their pool."""
    values = {}
    for a in op.schema.arguments:
        if a.type.is_tensor and a.type.is_list:  # Tensor[]: tuples of TensorSpec in the row's pool
            values[a.name] = arg_pool(row, a)[0]
        elif a.type.is_tensor and a.type.is_mutable and a.kwarg_only:
            values[a.name] = TensorSpec(row.out_dtypes[0], "empty", (0,))
        elif a.type.is_tensor:
            values[a.name] = _tensor_spec(row, a, row.tensor_dtypes(a.name)[0], "contiguous")
        elif a.default is None:  # required; a required generator= gets a seeded one
            values[a.name] = Gen(5) if a.type.base == "Generator" else arg_pool(row, a)[0]
    return values


def main_form(op: OpInfo) -> str:
    """How the op is called by default: as ember.<op> where it is a function."""
    return "function" if "function" in op.variants else "method"


def good_cases(row, op: OpInfo) -> list[Case]:
    """The row's cases: the base call; each tensor argument over dtypes x layouts (in both
    variants); each out= tensor over layouts and dtypes; each other argument over its pool
    and its explicit default; the size as varargs; every argument by keyword; row extras."""
    base = base_values(row, op)
    form = main_form(op)
    overrides: list[tuple[dict, str]] = [({}, form)]
    for a in op.inputs:
        if a.type.is_tensor and not a.type.is_list:
            forms = [form]
            if a.name == "self":
                forms = [f for f in ("function", "method") if f in op.variants]
            for dtype in row.tensor_dtypes(a.name):
                for layout in row.layouts:
                    shape = row.shapes.get(a.name, row.shape)
                    if layout_applies(layout, shape):
                        spec = _tensor_spec(row, a, dtype, layout)
                        overrides += [({a.name: spec}, f) for f in forms]
        else:
            pool = arg_pool(row, a)
            if a.default is not None:
                pool = [parse_default(a)] + pool
            overrides += [({a.name: v}, form) for v in pool]
    for a in op.schema.out_arguments:
        for dtype in row.out_dtypes:
            overrides.append(({a.name: TensorSpec(dtype, "contiguous", None)}, form))
        for layout in row.out_layouts:
            shape = (0,) if layout == "empty" else None
            overrides.append(({a.name: TensorSpec(row.out_dtypes[0], layout, shape)}, form))
    overrides += [(extra, form) for extra in row.extra]
    cases = [Case(row.key, ordered(op, {**base, **o}), f) for o, f in overrides]
    size = next((a for a in op.inputs if a.type.is_list and a.type.base in ("int", "SymInt")), None)
    positional = [a for a in op.inputs if not a.kwarg_only and a.name != "self"]
    if size is not None and positional == [size]:
        spread = "method" if "self" in base and "method" in op.variants else form
        cases.append(Case(row.key, ordered(op, base), spread, varargs=True))
    if getattr(row, "keywords", True) and (positional or (form == "function" and "self" in base)):
        cases.append(Case(row.key, ordered(op, base), form, keywords=True))
    unique = {c.id: c for c in cases}
    return list(unique.values())


def bad_cases(row, op: OpInfo) -> list[Case]:
    """The row's bad calls: each argument of the wrong type, an unknown keyword, the invalid
    values every op taking that type must reject, and the row's own invalid values."""
    base = base_values(row, op)
    form = main_form(op)
    cases = []
    for a in op.schema.arguments:
        wrong = WRONG_TYPE.get(a.type.base, "x")
        f = form
        if a.name == "self" and form == "method":
            f = "unbound"  # a wrong self can only reach the op through Tensor.op(self, ...)
        cases.append(Case(row.key, ordered(op, {**base, a.name: wrong}), f, expect="TypeError"))
        for bad in BAD_VALUES.get(type_key(a), []) if getattr(row, "generic_bad", True) else []:
            cases.append(Case(row.key, ordered(op, {**base, a.name: bad}), form, expect="raises"))
    cases.append(Case(row.key, ordered(op, base), form, expect="TypeError", unknown_keyword=True))
    cases += [Case(row.key, ordered(op, {**base, **b}), form, expect="raises") for b in row.bad]
    return cases


# ---- calling -----------------------------------------------------------------------------

def build_inputs(case: Case, op: OpInfo, row, seed: int = 0):
    """(ember values, torch values) of the case's arguments, tensors built alike."""
    ember_values, torch_values = {}, {}
    for i, (name, v) in enumerate(case.values):
        if isinstance(v, tuple) and v and all(isinstance(x, TensorSpec) for x in v):
            built = [build_tensor(x, seed + 7919 * i + 31 * k, x.shape) for k, x in enumerate(v)]
            ember_values[name] = [e for e, _ in built]
            torch_values[name] = [t for _, t in built]
        elif isinstance(v, TensorSpec):
            shape = v.shape
            if shape is None:  # out= sized like PyTorch's functional result
                functional = replace(case, values=tuple(x for x in case.values if x[0] != name))
                torch_values_of = build_inputs(functional, op, row)[1]
                try:
                    shape = tuple(call(functional, op, row, torch, torch_values_of).shape)
                except Exception:  # noqa: BLE001 - the case raises; its out= takes the row's shape
                    shape = row.shape
            ember_values[name], torch_values[name] = build_tensor(v, seed + 7919 * i, shape)
        else:
            ember_values[name], torch_values[name] = lib_value(v, ember), lib_value(v, torch)
    return ember_values, torch_values


def call(case: Case, op: OpInfo, row, lib, values: dict[str, Any]):
    """Calls the op the way a user would: positional arguments in schema order (keywords
    after a skipped default), kwarg-only ones by keyword."""
    args, kwargs, skipped = [], {}, False
    for a in op.inputs:
        if a.name == "self" and case.form in ("method", "unbound"):
            continue
        if a.name not in values:
            skipped = True
        elif case.keywords and a.name == "self":
            kwargs[row.self_keyword] = values[a.name]
        elif case.keywords:
            kwargs[row.keyword_names.get(a.name, a.name)] = values[a.name]
        elif a.kwarg_only or skipped:
            kwargs[a.name] = values[a.name]
        elif case.varargs and a.type.is_list:
            args += list(values[a.name])
        else:
            args.append(values[a.name])
    for a in op.schema.out_arguments:
        if a.name in values:
            kwargs[a.name] = values[a.name]
    if case.unknown_keyword:
        kwargs["bogus"] = 1
    if lib is ember and getattr(row, "ember_function", None) is not None:
        # Ember's schema-shaped binding, where ember.<op> is a Python wrapper with PyTorch's
        # Python signature (tensordot's dims=).
        fn = row.ember_function
        if case.form != "function":
            args.insert(0, values["self"])
        elif row.self_keyword in kwargs:
            args.insert(0, kwargs.pop(row.self_keyword))
    elif lib is torch and row.torch_function is not None:
        # PyTorch's spelling of the op (self first, by position), where torch.<op> is not it.
        fn = row.torch_function
        if case.form != "function":
            args.insert(0, values["self"])
        elif row.self_keyword in kwargs:
            args.insert(0, kwargs.pop(row.self_keyword))
    elif case.form == "function" and op.python_module is not None:
        module = op.python_module
        fn = getattr(python_module(lib, module), op.name if module == "nn" else op.name.removeprefix(module + "_"))
    elif case.form == "method":
        fn = getattr(values["self"], op.name)
    elif case.form == "unbound":
        fn = getattr(lib.Tensor, op.name)
        args.insert(0, values["self"])
    elif op.python_module:
        fn = getattr(getattr(lib, op.python_module), op.name.removeprefix(op.python_module + "_"))
    else:
        fn = getattr(lib, op.name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


def python_module(lib, name: str):
    """Where lib binds the functions the YAML puts in python_module `name`: for nn, the C
    namespace (`_C._nn`) that both libraries' nn.functional draws on, whose signatures are
    the schema's."""
    return lib._C._nn if name == "nn" else getattr(lib, name)


@dataclass
class Outcome:
    """What one library did with a case: its inputs (after the call) and result or error."""
    inputs: dict[str, Any]
    result: Any = None
    error: BaseException | None = None


def run(case: Case, op: OpInfo, row, lib, inputs: dict[str, Any], seed: int | None = None) -> Outcome:
    """Calls the op in lib (after manual_seed(seed) when given), catching its error."""
    if seed is not None:
        lib.manual_seed(seed)
    try:
        return Outcome(inputs, call(case, op, row, lib, inputs))
    except Exception as e:  # noqa: BLE001 - every error class is compared with PyTorch's
        return Outcome(inputs, error=e)


# ---- comparing ---------------------------------------------------------------------------

def values_close(actual: np.ndarray, expected: np.ndarray, dtype: str) -> str | None:
    """None when close (exact for integers and bool), else a message."""
    if actual.shape != expected.shape:
        return f"value shapes differ: {actual.shape} vs {expected.shape}"
    if dtype not in TOLERANCES:
        if np.array_equal(actual, expected):
            return None
        bad = np.argwhere(actual != expected)[:3].tolist()
        return f"values differ at {bad}: {actual.ravel()[:6]} vs {expected.ravel()[:6]}"
    rtol, atol = TOLERANCES[dtype]
    a, e = actual.astype(np.complex128), expected.astype(np.complex128)
    # Real and imaginary parts separately: NaN where the other has NaN, an infinity of the
    # same sign where the other has one, else within the tolerance.
    ok = np.ones(a.shape, dtype=bool)
    for pa, pe in ((a.real, e.real), (a.imag, e.imag)):
        nan = np.isnan(pa) | np.isnan(pe)
        inf = np.isinf(pa) | np.isinf(pe)
        with np.errstate(invalid="ignore"):
            near = np.abs(pa - pe) <= atol + rtol * np.abs(pe)
        ok &= np.where(nan, np.isnan(pa) & np.isnan(pe), np.where(inf, pa == pe, near))
    if ok.all():
        return None
    return (f"values differ beyond rtol={rtol}, atol={atol}: {actual.ravel()[:6]} vs "
            f"{expected.ravel()[:6]}")


def compare_tensor(e, t, what: str, values: bool) -> list[str]:
    """Differences between an Ember and a PyTorch tensor: dtype, shape, strides, storage
    offset, device and (when values) elements."""
    out = []
    if dtype_name(e.dtype) != dtype_name(t.dtype):
        return [f"{what}: dtype {e.dtype} vs {t.dtype}"]
    if tuple(e.shape) != tuple(t.shape):
        return [f"{what}: shape {tuple(e.shape)} vs {tuple(t.shape)}"]
    if e.stride() != t.stride():
        out.append(f"{what}: strides {e.stride()} vs {t.stride()}")
    if e.storage_offset() != t.storage_offset():
        out.append(f"{what}: storage_offset {e.storage_offset()} vs {t.storage_offset()}")
    if e.device.type != t.device.type:
        out.append(f"{what}: device {e.device} vs {t.device}")
    if values and t.device.type != "meta" and not out:
        diff = values_close(to_numpy(e), to_numpy(t), dtype_name(t.dtype))
        if diff:
            out.append(f"{what}: {diff}")
    return out


def alias_pattern(result, inputs: dict[str, Any]) -> dict[str, tuple]:
    """For each tensor input: (result is it, result's memory overlaps it, byte distance)."""
    pattern = {}
    for name, x in inputs.items():
        if isinstance(x, (ember.Tensor, torch.Tensor)):
            shared = overlaps(result, x)
            pattern[name] = (result is x, shared, result.data_ptr() - x.data_ptr() if shared else None)
    return pattern


def compare(case: Case, row, e: Outcome, t: Outcome) -> list[str]:
    """Every difference between Ember's and PyTorch's outcome of a good case."""
    if t.error is not None or e.error is not None:
        return check_raises(case, row, e, t)
    comparable = row.not_comparable is None
    problems = []
    if isinstance(t.result, tuple) and all(isinstance(x, torch.Tensor) or x is None for x in t.result):
        # Several results (PyTorch's torch.return_types.* are tuples): compared one by one;
        # a backward op's masked-out gradients are None in both.
        if not isinstance(e.result, tuple) or len(e.result) != len(t.result):
            return [f"result: Ember returned {type(e.result).__name__}, PyTorch a tuple of "
                    f"{len(t.result)} tensors"]
        for i, (ei, ti) in enumerate(zip(e.result, t.result)):
            if ti is None or ei is None:
                if (ti is None) != (ei is None):
                    problems.append(f"result[{i}]: Ember {type(ei).__name__}, PyTorch {type(ti).__name__}")
                continue
            problems += compare_tensor(ei, ti, f"result[{i}]", comparable)
    elif isinstance(t.result, torch.Tensor):
        if not isinstance(e.result, ember.Tensor):
            return [f"result: Ember returned {type(e.result).__name__}, PyTorch a Tensor"]
        problems += compare_tensor(e.result, t.result, "result", comparable)
        pe, pt = alias_pattern(e.result, e.inputs), alias_pattern(t.result, t.inputs)
        if pe != pt:
            problems.append(f"aliasing (is, shares memory, byte offset) per input: {pe} vs {pt}")
    else:
        if type(e.result) is not type(t.result):
            problems.append(f"result type {type(e.result).__name__} vs {type(t.result).__name__}")
        elif comparable and not same_values(e.result, t.result):
            problems.append(f"result {e.result!r} vs {t.result!r}")
    for name, x in t.inputs.items():
        if isinstance(x, torch.Tensor):
            problems += compare_tensor(e.inputs[name], x, f"input '{name}' after the call", comparable)
    return problems


def check_raises(case: Case, row, e: Outcome, t: Outcome) -> list[str]:
    """Where PyTorch raises, Ember must raise an instance of the builtin class PyTorch's error
    is (so `except` clauses written for PyTorch catch it); a wrong argument type must be a
    TypeError. A bad case PyTorch accepts is a mistake in the table."""
    ember_error = "" if e.error is None else f"{type(e.error).__name__} ({str(e.error)[:200]!r})"
    if t.error is None:
        if case.expect != "same":
            return [f"PyTorch accepts this call (returned {type(t.result).__name__}); not a bad input"]
        return [f"Ember raised {ember_error}; PyTorch returned {type(t.result).__name__}"]
    tc = exception_class(t.error)
    torch_error = f"PyTorch {tc.__name__} ({str(t.error)[:200]!r})"
    if e.error is None:
        return [f"Ember returned {type(e.result).__name__}; {torch_error}"]
    if case.expect == "TypeError":
        if not isinstance(e.error, TypeError):
            return [f"wrong argument type: Ember raised {ember_error}, expected TypeError "
                    f"({torch_error})"]
        if row.torch_ops:
            return []  # torch.ops reports schema mismatches as RuntimeError, not TypeError
    if not isinstance(e.error, tc):
        return [f"Ember raised {ember_error}, {torch_error}"]
    return []


def same_values(a, b) -> bool:
    """Exact equality of two results, tensors or scalars (NaN equal to NaN)."""
    if isinstance(a, ember.Tensor):
        if a.device.type == "meta":
            return tuple(a.shape) == tuple(b.shape)
        inexact = a.is_floating_point() or a.is_complex()
        return np.array_equal(to_numpy(a), to_numpy(b), equal_nan=inexact)
    return a == b or (a != a and b != b)


# ---- coverage ----------------------------------------------------------------------------

@dataclass
class Coverage:
    """What ran for one row."""
    cases: int = 0
    bad: int = 0
    xfailed: int = 0
    layouts: set = field(default_factory=set)
    dtypes: set = field(default_factory=set)
    not_comparable: str | None = None


COVERAGE: dict[str, Coverage] = {}


def record(row, case: Case, xfailed: bool = False) -> None:
    """Counts a case that ran in its row's coverage."""
    cov = COVERAGE.setdefault(row.key, Coverage(not_comparable=row.not_comparable))
    cov.cases += 1
    cov.bad += case.expect != "same"
    cov.xfailed += xfailed
    if case.expect == "same":
        for v in case.args.values():
            if isinstance(v, TensorSpec):
                cov.layouts.add(v.layout)
                cov.dtypes.add(v.dtype)
            elif isinstance(v, Dt):
                cov.dtypes.add(v.name)


def coverage_lines(order: list[str]) -> list[str]:
    """One markdown table line per row that ran, in YAML order."""
    lines = ["| op | cases | bad calls | xfail | layouts | dtypes | note |",
             "| --- | --- | --- | --- | --- | --- | --- |"]
    for key in order:
        cov = COVERAGE.get(key)
        if cov is None:
            continue
        layouts = ",".join(sorted(cov.layouts, key=lambda x: LAYOUTS.index(x))) or "-"
        dtypes = ",".join(sorted(cov.dtypes, key=lambda x: ALL.index(x))) or "-"
        note = f"not comparable: {cov.not_comparable}" if cov.not_comparable else ""
        lines.append(f"| {key} | {cov.cases} | {cov.bad} | {cov.xfailed} | {layouts} | {dtypes} "
                     f"| {note} |")
    return lines


def moments(x: np.ndarray) -> tuple[float, float]:
    """Mean and standard deviation of a sample."""
    x = x.astype(np.float64).ravel()
    return float(x.mean()), float(x.std())


def moments_close(e: np.ndarray, t: np.ndarray) -> str | None:
    """None when two samples of one distribution have matching mean and spread (6 sigma)."""
    (me, se), (mt, st) = moments(e), moments(t)
    n = min(e.size, t.size)
    scale = max(se, st, 1e-12)
    if abs(me - mt) > 6 * scale * math.sqrt(2.0 / n) + 1e-9 or abs(se - st) > 0.05 * scale + 1e-9:
        return f"mean/std {me:.4g}/{se:.4g} vs PyTorch's {mt:.4g}/{st:.4g} over {n} samples"
    return None

