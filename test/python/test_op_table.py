"""The op table: one row per operator overload of native_functions.yaml, each compared with
PyTorch through the Python API on cases generated from its schema (op_table.py).

A row says what its op needs beyond the schema: dtypes, sample values, extra and invalid
calls, and, where values cannot match PyTorch's (uninitialised or random), why, and what is
checked instead. The coverage per row is printed at the end of the session (conftest.py)
and written to build/op_table_coverage.md.
"""
from __future__ import annotations

import re
import zlib
from dataclasses import dataclass, field
from typing import Callable

import numpy as np
import pytest
import torch

import ember
import op_table as ot
from op_table import ALL, COMPLEX, FLOATS, INTS, Case, Dt, Fmt, Gen, TensorSpec

UNINITIALISED = "values are uninitialised (shape, dtype, strides and device are compared)"
RANDOM = "random: Ember's generator is not PyTorch's (ranges, moments and seeding are checked)"
OUT_LAYOUTS = ("empty", "contiguous", "sliced", "broadcast", "0-d")


UNARY = ("exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt", "rsqrt", "sin", "cos",
         "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh",
         "sigmoid", "erf", "erfc", "reciprocal", "abs", "neg", "sign", "floor", "ceil", "trunc",
         "frac", "round")
MIXED = ("float32", "float64", "int64", "int32", "bool", "float16", "complex64")
# Inputs holding inf, -inf, NaN and -0.0, per floating dtype (complex: in the real part).
EDGE = [{"self": TensorSpec(d, values="edge")} for d in FLOATS + ("complex64",)]

# Reductions: dim pools by schema type, large inputs that take the kernels' other paths
# (vertical and split reductions, several threads), NaN and tie inputs, and bad dims.
DIMS_OPT = [0, 1, -1, None, (0, 1), (), (-1, 0)]  # int[1]?
DIMS_LIST = [0, 1, -1, (0, 1), (), (-1, 0)]  # int[1]
DIMS_INT = [0, 1, -1]  # int
DIMS_OPT_INT = [0, 1, -1, None]  # int?
ORDERED = tuple(d for d in ALL if not d.startswith("complex"))
INEXACT = FLOATS + ("complex64", "complex128")
NORM_ORDS = [2, 1, 0, 3.5, -1, float("inf"), float("-inf")]
REDUCE_EXTRA = [{"self": TensorSpec("float32", "contiguous", (300, 500))},
                {"self": TensorSpec("float32", "transposed", (300, 500))},
                {"self": TensorSpec("float64", "sliced", (64, 300))},
                {"self": TensorSpec("float32", "contiguous", (2, 3, 5))}]
NAN_INPUT = TensorSpec("float32", values="nan")
TIES = TensorSpec("int64", values="ties")
BAD_DIM = [{"dim": 2}, {"dim": -3}]
BAD_DIMS = BAD_DIM + [{"dim": (0, 0)}, {"dim": (1, -1)}]
# PyTorch's sum/mean/prod/var/std/norm write into a stride-0 out= (elements overwrite each
# other in its loop order); Ember refuses such an out, as PyTorch's logsumexp and amax do.
NO_BROADCAST_OUT = tuple(x for x in OUT_LAYOUTS if x != "broadcast")
# PyTorch's tril_/triu_ write through a stride-0 self (elements overwrite each other); Ember refuses.
INPLACE_LAYOUTS = tuple(x for x in ot.LAYOUTS if x != "broadcast")


# Tensor lists for cat, stack and friends.
CAT_2 = (TensorSpec("float32"), TensorSpec("float32", "transposed"))
CAT_MIXED = (TensorSpec("int64"), TensorSpec("float64", "sliced"), TensorSpec("bool"))
CAT_EMPTY_1D = (TensorSpec("float32", "contiguous", (0,)), TensorSpec("float32"),
                TensorSpec("int32", "contiguous", (0,)))
CAT_ONE = (TensorSpec("float32", "broadcast"),)
CAT_STRIDED = (TensorSpec("float32", "sliced"), TensorSpec("float32", "broadcast"),
               TensorSpec("complex64", "transposed"))
CAT_3D = (TensorSpec("float32", shape=(2, 3, 4)), TensorSpec("float32", "sliced", (2, 3, 4)))
STACK_1D = (TensorSpec("float32", shape=(4,)), TensorSpec("int64", shape=(4,)))
STACK_0D = (TensorSpec("float32", "0-d", ()), TensorSpec("float32", "0-d", ()))
CAT_BAD_SIZES = (TensorSpec("float32"), TensorSpec("float32", shape=(4, 5)))
CAT_BAD_SIZES3 = (TensorSpec("float32", shape=(3, 4)), TensorSpec("float32", shape=(5, 6)))
CAT_BAD_DIMS = (TensorSpec("float32"), TensorSpec("float32", shape=(3, 4, 1)))


# Matrix products: every dtype but bool and complex (Ember's BLAS path is real; bool raises
# NotImplementedError in both), the layouts a matrix can take, large and odd shapes that
# take the BLAS and its transposed/copied operand paths.
def torch_einsum(equation, tensors, path=None):
    """torch.einsum with the schema's path= (PyTorch's Python einsum takes no such keyword)."""
    if path is not None and not (isinstance(path, (list, tuple)) and all(isinstance(p, int) for p in path)):
        raise TypeError(f"einsum(): argument 'path' must be a list of ints, not {type(path).__name__}")
    return torch.einsum(equation, tensors)


def _lstm_tensor_args(op, named, g):
    """The LSTM references' common checks: every (name, value) a tensor, g float32/float64."""
    for name, t in named:
        if not isinstance(t, torch.Tensor):
            raise TypeError(f"{op}(): argument '{name}' must be Tensor, not {type(t).__name__}")
    if g.dtype not in (torch.float32, torch.float64):
        raise NotImplementedError(f"{op}(): not implemented for {g.dtype}")


def _lstm_shapes(op, gates_like, states):
    """The fused LSTM cell's argument checks, for the references below."""
    name, g = gates_like
    _lstm_tensor_args(op, [gates_like] + states, g)
    if g.dim() != 2 or g.shape[1] % 4:
        raise RuntimeError(f"{op}(): {name} must be (batch, 4 * hidden)")
    for sname, t in states:
        if t.shape != (g.shape[0], g.shape[1] // 4) or t.dtype != g.dtype:
            raise RuntimeError(f"{op}(): {sname} must be (batch, hidden) of {name}'s dtype")


def torch_fused_lstm_cell(gates, cx):
    """ember._fused_lstm_cell written with PyTorch ops: (hy, cy, activated gates)."""
    _lstm_shapes("_fused_lstm_cell", ("gates", gates), [("cx", cx)])
    i, f, g, o = gates.chunk(4, 1)
    i, f, g, o = i.sigmoid(), f.sigmoid(), g.tanh(), o.sigmoid()
    cy = f * cx + i * g
    # Ember's kernel writes contiguous results whatever the inputs' layouts.
    return (o * cy.tanh()).contiguous(), cy.contiguous(), torch.cat([i, f, g, o], 1).contiguous()


def torch_fused_lstm_cell_backward(grad_hy, grad_cy, cx, cy, workspace, output_mask):
    """The LSTM cell's gradients by the chain rule, from the activated gates (PyTorch ops)."""
    states = [("cx", cx), ("cy", cy)] + [(n, t) for n, t in (("grad_hy", grad_hy), ("grad_cy", grad_cy))
                                         if t is not None]
    if not (isinstance(output_mask, (tuple, list)) and len(output_mask) == 2
            and all(isinstance(m, bool) for m in output_mask)):
        raise TypeError("_fused_lstm_cell_backward(): argument 'output_mask' must be a tuple of 2 bools")
    _lstm_shapes("_fused_lstm_cell_backward", ("workspace", workspace), states)
    i, f, g, o = workspace.chunk(4, 1)
    tc = cy.tanh()
    dh = torch.zeros_like(cy) if grad_hy is None else grad_hy
    dc = (torch.zeros_like(cy) if grad_cy is None else grad_cy) + dh * o * (1 - tc * tc)
    d_gates = torch.cat([dc * g * i * (1 - i), dc * cx * f * (1 - f), dc * i * (1 - g * g),
                         dh * tc * o * (1 - o)], 1)
    return (d_gates.contiguous() if output_mask[0] else None), ((dc * f).contiguous() if output_mask[1] else None)


def _check_lstm_layer(op, gates_like, states, seqs, weight_hh, flags):
    """_lstm_layer's argument checks, for the references below."""
    for name, f in flags:
        if not isinstance(f, bool):
            raise TypeError(f"{op}(): argument '{name}' must be bool, not {type(f).__name__}")
    name, g = gates_like
    _lstm_tensor_args(op, [gates_like, ("weight_hh", weight_hh)] + states + seqs, g)
    if g.dim() != 3 or g.shape[2] % 4:
        raise RuntimeError(f"{op}(): {name} must be (seq_len, batch, 4 * hidden)")
    T, B, H = g.shape[0], g.shape[1], g.shape[2] // 4
    expect = [(n, t, (B, H)) for n, t in states] + [(n, t, (T, B, H)) for n, t in seqs] + \
        [("weight_hh", weight_hh, (4 * H, H))]
    for n, t, shape in expect:
        if tuple(t.shape) != shape or t.dtype != g.dtype:
            raise RuntimeError(f"{op}(): {n} must be {shape} of {name}'s dtype")


def _lstm_order(T, reverse):
    return range(T - 1, -1, -1) if reverse else range(T)


def torch_lstm_layer(input_gates, h0, c0, weight_hh, reverse=False):
    """ember._lstm_layer written as a step loop of PyTorch ops over torch_fused_lstm_cell."""
    _check_lstm_layer("_lstm_layer", ("input_gates", input_gates), [("h0", h0), ("c0", c0)], [], weight_hh,
                      [("reverse", reverse)])
    T, B, H = input_gates.shape[0], input_gates.shape[1], input_gates.shape[2] // 4
    outs, ws, cs = [None] * T, [None] * T, [None] * T
    h, c = h0, c0
    for t in _lstm_order(T, reverse):
        h, c, ws[t] = torch_fused_lstm_cell(input_gates[t] + h @ weight_hh.t(), c)
        outs[t], cs[t] = h, c

    def stack(xs, width):  # with no steps, an empty slice of input_gates (in the graph, as Ember's)
        return torch.stack(xs) if T else input_gates[:, :, :width].contiguous() + input_gates.new_zeros((0, B, width))
    return stack(outs, H), h.clone(), c.clone(), stack(ws, 4 * H), stack(cs, H)


def torch_lstm_layer_backward(grad_output, grad_hn, grad_cn, h0, c0, weight_hh, output, workspace, cells,
                              reverse, output_mask):
    """_lstm_layer's gradients by backpropagation through time, with torch_fused_lstm_cell_backward."""
    optional = [(n, t) for n, t in (("grad_hn", grad_hn), ("grad_cn", grad_cn)) if t is not None]
    seqs = [("output", output), ("cells", cells)] + ([("grad_output", grad_output)] if grad_output is not None else [])
    if not (isinstance(output_mask, (tuple, list)) and len(output_mask) == 4
            and all(isinstance(m, bool) for m in output_mask)):
        raise TypeError("_lstm_layer_backward(): argument 'output_mask' must be a tuple of 4 bools")
    _check_lstm_layer("_lstm_layer_backward", ("workspace", workspace), [("h0", h0), ("c0", c0)] + optional,
                      seqs, weight_hh, [("reverse", reverse)])
    T = workspace.shape[0]
    dh = torch.zeros_like(h0) if grad_hn is None else grad_hn
    dc = torch.zeros_like(c0) if grad_cn is None else grad_cn
    dgates = [None] * T
    order = list(_lstm_order(T, reverse))
    for s in range(T - 1, -1, -1):
        t = order[s]
        if grad_output is not None:
            dh = dh + grad_output[t]
        c_prev = c0 if s == 0 else cells[order[s - 1]]
        dgates[t], dc = torch_fused_lstm_cell_backward(dh, dc, c_prev, cells[t], workspace[t], (True, True))
        dh = dgates[t] @ weight_hh
    d_weight = torch.zeros_like(weight_hh)
    for s, t in enumerate(order):
        h_prev = h0 if s == 0 else output[order[s - 1]]
        d_weight = d_weight + dgates[t].t() @ h_prev
    d_gates = torch.stack(dgates) if T else workspace.new_empty(workspace.shape)
    # With no steps weight_hh is unused: no gradient (None), as autograd gives.
    results = (d_gates.contiguous(), dh.contiguous(), dc.contiguous(), d_weight.contiguous() if T else None)
    return tuple(r if m else None for r, m in zip(results, output_mask))


def mean_by_default(fn, position):
    """PyTorch's torch._C._nn loss binding with reduction=1 (mean) when the call leaves it
    out: that binding reads a missing `int reduction=Mean` as 0 (none), unlike the schema
    and torch.nn.functional."""
    def call(*args, **kwargs):
        if len(args) <= position and "reduction" not in kwargs:
            kwargs["reduction"] = 1
        return fn(*args, **kwargs)
    return call


MM_DTYPES = ("float32", "float64", "float16", "bfloat16", "int64", "int32", "int8", "uint8", "bool")
BMM_LAYOUTS = ("contiguous", "broadcast", "sliced", "empty")
MM_EXTRA = [{"self": TensorSpec("float32", "transposed", (300, 200)), "mat2": TensorSpec("float32", "sliced", (200, 100))},
            {"self": TensorSpec("float64", "contiguous", (1, 7)), "mat2": TensorSpec("float64", "transposed", (7, 1))},
            {"self": TensorSpec("float32", "contiguous", (3, 0)), "mat2": TensorSpec("float32", "contiguous", (0, 5))},
            {"self": TensorSpec("float32", "broadcast", (3, 4)), "mat2": TensorSpec("float32", "broadcast", (4, 5))}]
MM_BAD = [{"mat2": TensorSpec("float32", shape=(5, 6))}, {"mat2": TensorSpec("float64", shape=(4, 5))},
          {"self": TensorSpec("float32", shape=(3,))}]
BMM_EXTRA = [{"self": TensorSpec("float32", "contiguous", (64, 32, 48)), "mat2": TensorSpec("float32", "contiguous", (64, 48, 40))},
             {"self": TensorSpec("float64", "contiguous", (3, 0, 4)), "mat2": TensorSpec("float64", "contiguous", (3, 4, 5))}]
# (self, other) shapes of matmul: every rank pair, folded and broadcast batches.
MATMUL_SHAPES = [((4,), (4,)), ((4,), (4, 5)), ((3, 4), (4,)), ((2, 3, 4), (4,)), ((2, 3, 4), (4, 5)),
                 ((4,), (2, 4, 5)), ((3, 4), (2, 4, 5)), ((2, 1, 3, 4), (5, 4, 2)), ((2, 3, 4), (2, 4, 5)),
                 ((1, 3, 4), (6, 4, 2)), ((0, 3, 4), (4, 2)), ((7, 1, 2, 3), (1, 5, 3, 4))]
SOFTMAX_EXTRA = [{"self": TensorSpec("float32", "contiguous", (64, 1000)), "dim": 1},
                 {"self": TensorSpec("float64", "sliced", (40, 300)), "dim": 0},
                 {"self": TensorSpec("float32", "contiguous", (3, 300, 5)), "dim": 1},
                 {"self": TensorSpec("float32", values="edge"), "dim": 1},
                 {"self": TensorSpec("float32", "contiguous", (2, 3, 600)), "dim": 1}]
ND_TARGET = {"self": TensorSpec("float32", shape=(2, 4, 3, 2)), "target": TensorSpec("int64", shape=(2, 3, 2), values="index3")}
# nll_loss_forward and torch._C._nn.nll_loss take 1-d and 2-d inputs (N-d: nll_loss2d, or
# Ember's nll_loss, tested through F.nll_loss in test_linalg_nn.py).
NLL_EXTRA = [{"self": TensorSpec("float32", shape=(4,)), "target": TensorSpec("int64", "0-d", (), "index3")},
             {"self": TensorSpec("float64", "empty", (0, 4)), "target": TensorSpec("int64", "empty", (0,), "index3")},
             {"self": TensorSpec("float32", shape=(64, 100)), "target": TensorSpec("int64", shape=(64,), values="index3")}]
# Every tensor float64 (the gradcheck cases: a float32 weight would not match).
NLL_F64 = {"self": TensorSpec("float64"), "weight": TensorSpec("float64", shape=(4,), values="weights")}
NLL_BAD = [{"target": TensorSpec("int64", shape=(3,), values="big")}, {"target": TensorSpec("int64", shape=(2,), values="index3")},
           {"target": TensorSpec("float32", shape=(3,), values="index3")},
           {"weight": TensorSpec("float32", shape=(3,), values="weights")}]


@dataclass(frozen=True)
class Row:
    """What one op overload needs beyond its schema."""
    key: str
    dtypes: tuple[str, ...] = ALL  # of tensor inputs, dtype= and out=
    pools: dict[str, list] = field(default_factory=dict)  # sample values per argument
    extra: list[dict] = field(default_factory=list)  # more calls (overrides of the base call)
    bad: list[dict] = field(default_factory=list)  # invalid values PyTorch rejects
    shape: tuple[int, ...] = (3, 4)  # of tensor inputs
    shapes: dict[str, tuple] = field(default_factory=dict)  # per tensor argument
    values: dict[str, str] = field(default_factory=dict)  # value kind per tensor argument
    arg_dtypes: dict[str, tuple] = field(default_factory=dict)  # dtypes per tensor argument
    layouts: tuple[str, ...] = ot.LAYOUTS
    out_layouts: tuple[str, ...] = OUT_LAYOUTS
    not_comparable: str | None = None
    random: bool = False
    check: Callable | None = None  # (result array, dtype, args, input arrays) -> problem
    stats: dict | None = None  # overrides giving a large sample for the moments test
    torch_function: Callable | None = None  # PyTorch's op where torch.<name> is not it
    torch_ops: bool = False  # torch_function is a torch.ops overload (errors are RuntimeError)
    ember_function: Callable | None = None  # Ember's op where ember.<name> is a Python wrapper
    self_keyword: str = "input"  # PyTorch's keyword for a function's self
    keyword_names: dict[str, str] = field(default_factory=dict)  # PyTorch's, where not the schema's
    outs: tuple[str, ...] | None = None  # dtypes of out= tensors, where not `dtypes`
    generic_bad: bool = True  # the type's BAD_VALUES are invalid here (not where -2 is a dim)
    keywords: bool = True  # PyTorch takes every argument by keyword (not *tensors functions)

    @property
    def out_dtypes(self) -> tuple[str, ...]:
        return self.outs or self.dtypes

    def tensor_dtypes(self, name: str) -> tuple[str, ...]:
        return self.arg_dtypes.get(name, self.dtypes)


def _rand_row(key: str, check, stats: dict, dtypes=FLOATS + ("int64",), **kw) -> Row:
    """A random op's row: values not comparable, checked by check and the stats sample."""
    return Row(key, dtypes=dtypes, not_comparable=RANDOM, random=True, check=check, stats=stats, **kw)


# ---- value checks of rows whose values differ from PyTorch's ----------------------------

def in_range(lo_arg: str | None, lo_default, hi_arg: str | None, hi_default, closed: bool):
    """Values in [lo, hi) (closed: [lo, hi], for floats rounded up to hi), real and imaginary."""
    def check(r, dtype, args, arrays):
        lo = args.get(lo_arg, lo_default) if lo_arg else lo_default
        hi = args.get(hi_arg, hi_default) if hi_arg else hi_default
        for part in ((r.real, r.imag) if np.iscomplexobj(r) else (r,)):
            if part.size and (part.min() < lo or (part.max() > hi if closed else part.max() >= hi)):
                return f"values {part.min()}..{part.max()} outside [{lo}, {hi}{']' if closed else ')'}"
        return None
    return check


def finite(r, dtype, args, arrays):
    """No NaN or infinity."""
    return None if np.isfinite(r).all() else f"non-finite values {r.ravel()[:6]}"


def random_bound(r, dtype, args, arrays):
    """random_(): [0, 2^digits] for floats, [0, max] for integers (args "from"/"to" if given)."""
    digits = {"float32": 24, "float64": 53, "float16": 11, "bfloat16": 8}
    lo = args.get("from", 0)
    hi = args.get("to")
    if hi is None and dtype in digits:
        hi = 2 ** digits[dtype] + 1
    elif hi is None:
        hi = 2 if dtype == "bool" else int(np.iinfo(r.dtype).max) + 1
    if r.size and (r.min() < lo or r.max() >= hi):
        return f"values {r.min()}..{r.max()} outside [{lo}, {hi})"
    return None


def bernoulli_check(p_of):
    """0/1 values, 0 where p is 0 and 1 where p is 1."""
    def check(r, dtype, args, arrays):
        p = np.broadcast_to(p_of(args, arrays), r.shape).astype(np.float64)
        if not np.isin(r, (0, 1)).all():
            return f"values other than 0 and 1: {np.unique(r)[:6]}"
        if (r[p == 0] != 0).any() or (r[p == 1] != 1).any():
            return "a 1 where p is 0 or a 0 where p is 1"
        return None
    return check


def multinomial_check(r, dtype, args, arrays):
    """Indices in range; without replacement no repeats, and a zero-weight category only once
    every positive one is drawn; with replacement never a zero-weight one."""
    w = arrays["self"].astype(np.float64)
    if r.size and (r.min() < 0 or r.max() >= w.shape[-1]):
        return f"indices {r.min()}..{r.max()} outside [0, {w.shape[-1]})"
    replacement = args.get("replacement", False)
    for weights, picks in zip(w.reshape(-1, w.shape[-1]), r.reshape(-1, r.shape[-1])):
        positive = set(np.flatnonzero(weights > 0).tolist())
        if not replacement and len(set(picks.tolist())) != len(picks):
            return f"repeated categories without replacement: {picks}"
        for i, pick in enumerate(picks.tolist()):
            if weights[pick] <= 0 and (replacement or not positive <= set(picks[:i].tolist())):
                return f"zero-weight category {pick} drawn early: weights {weights}, picks {picks}"
    return None


def permutation_check(r, dtype, args, arrays):
    """A permutation of 0 .. n - 1."""
    n = args.get("n")
    return None if np.array_equal(np.sort(r), np.arange(n)) else f"not a permutation of 0..{n - 1}: {r}"


def big(dtype="float32", values="any", shape=(20000,)) -> TensorSpec:
    """A large contiguous input for the moments test."""
    return TensorSpec(dtype, "contiguous", shape, values)


UNIT = in_range(None, 0, None, 1, closed=True)
RANDINT = in_range(None, 0, "high", None, closed=False)
RANDINT_LOW = in_range("low", 0, "high", None, closed=False)
RANDINT_DTYPES = INTS + ("float32", "float64")

ROW_LIST: list[Row] = [
    # ---- factories ----
    Row("empty.memory_format", not_comparable=UNINITIALISED,
        extra=[{"size": (2, 3, 4, 5), "memory_format": Fmt("channels_last")}]),
    Row("empty_strided", not_comparable=UNINITIALISED,
        pools={"size": [(2, 3), (0, 3), (3,)], "stride": [(1, 2), (3, 1), (0, 1), (5, 2)]},
        extra=[{"size": (), "stride": ()}], bad=[{"stride": (-1, 1)}, {"stride": (1,)}]),
    Row("empty_like", not_comparable=UNINITIALISED),
    Row("zeros"),
    Row("ones"),
    Row("full", pools={"fill_value": [2, -1.5, True, 1 + 2j]},
        bad=[{"fill_value": 1000, "dtype": Dt("int8")}]),
    Row("zeros_like"),
    Row("ones_like"),
    Row("full_like", pools={"fill_value": [2, -1.5, True]}),
    Row("scalar_tensor", pools={"s": [1.5, 3, True, -2, 1 + 2j]},
        bad=[{"s": 1000, "dtype": Dt("uint8")}]),
    Row("arange", pools={"end": [5, 7.5, 0, 1]}, bad=[{"end": -1}]),
    Row("arange.start", pools={"start": [0, -2, 1.5], "end": [5, 7.5]},
        bad=[{"start": 5, "end": 0}]),
    Row("arange.start_step", pools={"start": [0, -2, 1.5], "end": [5, 7.5], "step": [1, 2, 0.5]},
        extra=[{"start": 5, "end": 0, "step": -1}, {"start": 1, "end": 2, "step": 0.25}],
        bad=[{"step": 0}, {"step": -1}]),
    Row("arange.out", pools={"end": [5, 7.5, 0]}, bad=[{"end": -1}]),
    Row("arange.start_out", pools={"start": [0, -2, 1.5], "end": [5, 7.5], "step": [1, 2, 0.5]},
        extra=[{"start": 5, "end": 0, "step": -1}], bad=[{"step": 0}]),
    Row("linspace", pools={"start": [0, -2, 1.5], "end": [5, 7.5], "steps": [5, 1, 0, 7]},
        bad=[{"steps": -1}]),
    Row("linspace.out", pools={"start": [0, -2], "end": [5, 7.5], "steps": [5, 1, 0]},
        bad=[{"steps": -1}]),
    Row("logspace", pools={"start": [0, -2, 1.5], "end": [2, 3.5], "steps": [5, 1, 0],
                           "base": [2.0, 0.5]}, bad=[{"steps": -1}]),
    Row("logspace.out", pools={"start": [0, -2], "end": [2, 3.5], "steps": [5, 1, 0],
                               "base": [2.0]}, bad=[{"steps": -1}]),
    Row("eye", bad=[{"n": -1}]),
    Row("eye.m", bad=[{"m": -1}]),
    Row("eye.out", bad=[{"n": -1}], out_layouts=OUT_LAYOUTS + ("transposed",)),
    Row("eye.m_out", bad=[{"m": -1}], out_layouts=OUT_LAYOUTS + ("transposed",)),
    # ---- copy and conversion ----
    Row("fill_.Scalar", pools={"value": [2, -1.5, True, 0.25, 1 + 2j]},
        bad=[{"self": TensorSpec("int8"), "value": 1000}]),
    Row("zero_"),
    Row("copy_", keyword_names={"src": "other"},
        extra=[{"src": TensorSpec("float32", "contiguous", (4,))},
               {"src": TensorSpec("int64", "0-d")}],
        bad=[{"src": TensorSpec("float32", "contiguous", (5,))}]),
    Row("clone"),
    Row("contiguous"),
    Row("to.dtype"),
    Row("item", shape=(1, 1), bad=[{"self": TensorSpec("float32")}]),
    Row("_local_scalar_dense", shape=(1, 1),
        extra=[{"self": TensorSpec("float32")}, {"self": TensorSpec("int64")}],
        bad=[{"self": TensorSpec("float32", "empty", (0,))}],
        torch_function=torch.ops.aten._local_scalar_dense, torch_ops=True),
    # ---- random ----
    _rand_row("uniform_", in_range("from", 0, "to", 1, closed=True),
              {"self": big(), "from": -2.0, "to": 3.0}, dtypes=FLOATS + ("int64", "complex64"),
              pools={"from": [-2.0], "to": [3.0]}, bad=[{"from": 2.0, "to": 1.0}]),
    _rand_row("normal_", finite, {"self": big(), "mean": 2.0, "std": 0.5},
              dtypes=FLOATS + ("int64", "complex64"), pools={"mean": [2.0], "std": [0.5, 0.0]},
              bad=[{"std": -1.0}]),
    _rand_row("random_.from", random_bound, {"self": big("int64"), "from": -3, "to": 10},
              dtypes=FLOATS + INTS + ("bool",), pools={"from": [2, -3], "to": [10, None]},
              bad=[{"from": 5, "to": 5}]),
    _rand_row("random_.to", random_bound, {"self": big("int64"), "to": 10},
              dtypes=FLOATS + INTS + ("bool",), pools={"to": [10, 1]}, bad=[{"to": 0}]),
    _rand_row("random_", random_bound, {"self": big("int8")}, dtypes=FLOATS + INTS + ("bool",)),
    _rand_row("bernoulli_.Tensor", bernoulli_check(lambda args, arrays: arrays["p"]),
              {"self": big(), "p": big(values="prob")}, dtypes=FLOATS + ("int64", "bool"),
              arg_dtypes={"p": FLOATS}, values={"p": "prob"},
              extra=[{"p": TensorSpec("float32", "contiguous", (4,), "prob")}],
              bad=[{"p": TensorSpec("float32", values="badprob")}]),
    _rand_row("bernoulli_.float", bernoulli_check(lambda args, arrays: args.get("p", 0.5)),
              {"self": big(), "p": 0.3}, dtypes=FLOATS + ("int64", "bool"), bad=[{"p": 1.5}]),
    _rand_row("bernoulli", bernoulli_check(lambda args, arrays: arrays["self"]),
              {"self": big(values="prob")}, values={"self": "prob"},
              bad=[{"self": TensorSpec("float32", values="badprob")}]),
    _rand_row("bernoulli.p", bernoulli_check(lambda args, arrays: args["p"]),
              {"self": big(), "p": 0.3}, bad=[{"p": -0.5}]),
    _rand_row("multinomial", multinomial_check,
              {"self": big(values="weights", shape=(5,)), "num_samples": 20000, "replacement": True},
              dtypes=FLOATS, values={"self": "weights"},
              pools={"num_samples": [2, 1, 4], "replacement": [True]},
              bad=[{"num_samples": 5}, {"num_samples": 0},
                   {"self": TensorSpec("float32", values="negweights")}]),
    _rand_row("rand", UNIT, {"size": (20000,)}, dtypes=FLOATS + ("complex64", "int64")),
    _rand_row("rand.generator", UNIT, {"size": (20000,)}, dtypes=FLOATS + ("complex64", "int64")),
    _rand_row("randn", finite, {"size": (20000,)}, dtypes=FLOATS + ("complex64", "int64")),
    _rand_row("randn.generator", finite, {"size": (20000,)}, dtypes=FLOATS + ("complex64", "int64")),
    _rand_row("randint", RANDINT, {"size": (20000,)}, dtypes=RANDINT_DTYPES,
              pools={"high": [10, 1]}, bad=[{"high": 0}]),
    _rand_row("randint.generator", RANDINT, {"size": (20000,)}, dtypes=RANDINT_DTYPES,
              pools={"high": [10, 1]}, bad=[{"high": 0}]),
    _rand_row("randint.low", RANDINT_LOW, {"size": (20000,)}, dtypes=RANDINT_DTYPES,
              pools={"low": [-3, 0]}, bad=[{"low": 5, "high": 5}]),
    _rand_row("randint.low_generator", RANDINT_LOW, {"size": (20000,)}, dtypes=RANDINT_DTYPES,
              pools={"low": [-3, 0]}, bad=[{"low": 5, "high": 5}]),
    _rand_row("randperm", permutation_check, {"n": 20000}, dtypes=RANDINT_DTYPES,
              pools={"n": [5, 1, 0]}, bad=[{"n": -1}]),
    _rand_row("randperm.generator", permutation_check, {"n": 20000}, dtypes=RANDINT_DTYPES,
              pools={"n": [5, 1, 0]}, bad=[{"n": -1}]),
    _rand_row("rand_like", UNIT, {"self": big()}, dtypes=FLOATS + ("complex64", "int64")),
    _rand_row("rand_like.generator", UNIT, {"self": big()}, dtypes=FLOATS + ("complex64", "int64")),
    _rand_row("randn_like", finite, {"self": big()}, dtypes=FLOATS + ("complex64", "int64")),
    _rand_row("randn_like.generator", finite, {"self": big()}, dtypes=FLOATS + ("complex64", "int64")),
    _rand_row("randint_like", RANDINT, {"self": big()}, dtypes=RANDINT_DTYPES, bad=[{"high": 0}]),
    _rand_row("randint_like.generator", RANDINT, {"self": big()}, dtypes=RANDINT_DTYPES,
              bad=[{"high": 0}]),
    _rand_row("randint_like.low_dtype", RANDINT_LOW, {"self": big()}, dtypes=RANDINT_DTYPES,
              bad=[{"low": 5, "high": 5}]),
    _rand_row("randint_like.low_generator_dtype", RANDINT_LOW, {"self": big()},
              dtypes=RANDINT_DTYPES, bad=[{"low": 5, "high": 5}]),
    # ---- views ----
    Row("view", torch_function=torch.Tensor.view,
        pools={"size": [(-1,), (4, 3), (2, -1), (12,), (2, 2, 3), (3, 4)]},
        bad=[{"size": (5,)}, {"size": (-1, -1)}]),
    Row("select.int", bad=[{"index": 3}, {"index": -4}, {"dim": 2}]),
    Row("transpose.int", pools={"dim0": [0, -1, 1], "dim1": [1, 0, -2]},
        bad=[{"dim0": 2}, {"dim1": -3}]),
    Row("t", bad=[{"self": TensorSpec("float32", "contiguous", (2, 3, 4))}]),
    Row("expand", torch_function=torch.Tensor.expand, shape=(3, 1),
        pools={"size": [(3, 4), (2, 3, 4), (-1, 5), (3, 1), (0, 3, 1), (2, -1, -1)]},
        bad=[{"size": (4, 4)}, {"size": (4,)}, {"size": (-1, 3, 4)}]),
    Row("unsqueeze", pools={"dim": [0, 1, 2, -1, -3]}, bad=[{"dim": 3}, {"dim": -4}]),
    # ---- views and shape ops (issue 8) ----
    Row("as_strided", torch_function=torch.as_strided,
        pools={"size": [(2, 2), (3, 1), (0, 2)], "stride": [(1, 2), (4, 1), (0, 1)],
               "storage_offset": [None, 1, 2]},
        bad=[{"size": (2, 2, 2)}, {"stride": (-1, 1)}, {"size": (40, 40)}, {"storage_offset": -1}]),
    Row("permute", pools={"dims": [(1, 0), (0, 1), (-1, 0)]},
        bad=[{"dims": (0,)}, {"dims": (0, 0)}, {"dims": (0, 2)}]),
    Row("squeeze", shape=(3, 1, 4)),
    Row("squeeze.dim", shape=(3, 1, 4), pools={"dim": [1, 0, -2, -1]}, bad=[{"dim": 3}]),
    Row("squeeze.dims", shape=(3, 1, 4), pools={"dim": [(1,), (0, 1), (), (-2, 2)]},
        generic_bad=False, bad=[{"dim": (3,)}, {"dim": (1, 1)}]),
    Row("slice.Tensor", torch_function=lambda self, *a, **k: torch.ops.aten.slice.Tensor(self, *a, **k),
        torch_ops=True,
        pools={"dim": [0, 1, -1], "start": [None, 1, -2, -10, 10], "end": [None, 3, -1, 100, 0],
               "step": [1, 2, 3]},
        bad=[{"step": 0}, {"dim": 2}]),
    Row("diagonal", shape=(3, 4, 5), pools={"offset": [0, 1, -2, 7], "dim1": [0, 1, -1],
                                               "dim2": [1, 2, -3]},
        bad=[{"dim1": 1, "dim2": 1}, {"dim1": 3}]),
    Row("unfold", pools={"dimension": [0, 1, -1], "size": [2, 3, 1, 0], "step": [1, 2, 5]},
        bad=[{"size": 5}, {"step": 0}, {"dimension": 2}]),
    Row("alias", torch_function=lambda self: torch.ops.aten.alias(self), torch_ops=True),
    Row("view_as_real", dtypes=COMPLEX, layouts=("contiguous", "sliced", "0-d", "empty", "transposed"),
        bad=[{"self": TensorSpec("float32")}]),
    Row("view_as_complex", dtypes=("float32", "float64"), shape=(3, 2),
        layouts=("contiguous", "0-d", "empty"),
        bad=[{"self": TensorSpec("float32", shape=(3, 4))},
             {"self": TensorSpec("float32", "transposed", (2, 2))},
             {"self": TensorSpec("int64", shape=(3, 2))}]),
    Row("reshape", pools={"shape": [(-1,), (4, 3), (2, -1), (2, 2, 3), (12, 1)]},
        bad=[{"shape": (5,)}, {"shape": (-1, -1)}]),
    Row("view_as", shapes={"other": (2, 6)}, bad=[{"other": TensorSpec("float32", shape=(5,))}]),
    Row("reshape_as", shapes={"other": (2, 6)}, bad=[{"other": TensorSpec("float32", shape=(5,))}]),
    Row("flatten.using_ints", shape=(2, 3, 4), pools={"start_dim": [0, 1, -2], "end_dim": [-1, 1, 2]},
        bad=[{"start_dim": 2, "end_dim": 1}, {"start_dim": 3}]),
    Row("unflatten.int", pools={"dim": [1, 0, -1], "sizes": [(2, 2), (-1, 2), (1, 4, 1)]},
        bad=[{"sizes": (3, 3)}, {"sizes": (-1, -1)}, {"dim": 2}]),
    Row("narrow", pools={"dim": [0, 1, -1], "start": [0, 1, -2], "length": [1, 2, 0]},
        bad=[{"start": 5}, {"length": 5}, {"start": 2, "length": 3}]),
    *[Row(f"{name}.intlist", shape=(2, 3, 4),
          pools={"source": [(0,), (0, 1), (-1, 0)], "destination": [(2,), (1, 0), (0, 2)]},
          bad=[{"source": (0, 0), "destination": (1, 2)}, {"source": (3,), "destination": (0,)},
               {"source": (0, 1), "destination": (0,)}])
      for name in ("movedim", "moveaxis")],
    *[Row(f"{name}.int", shape=(2, 3, 4), pools={"source": [0, -1, 2], "destination": [2, 0, -2]},
          bad=[{"source": 3}, {"destination": -4}])
      for name in ("movedim", "moveaxis")],
    Row("swapaxes", pools={"axis0": [0, -1], "axis1": [1, 0]}, bad=[{"axis0": 2}]),
    Row("swapdims", pools={"dim0": [0, -1], "dim1": [1, 0]}, bad=[{"dim0": 2}]),
    Row("expand_as", shape=(3, 1), shapes={"other": (2, 3, 4)},
        bad=[{"other": TensorSpec("float32", shape=(4, 4))}]),
    Row("broadcast_to", shape=(3, 1), pools={"size": [(3, 4), (2, 3, 4), (-1, 5)]},
        bad=[{"size": (4, 4)}, {"size": (4,)}]),
    Row("unbind.int", pools={"dim": [0, 1, -1]}, bad=[{"dim": 2}]),
    Row("split.Tensor", self_keyword="tensor", keyword_names={"split_size": "split_size_or_sections"},
        pools={"split_size": [2, 1, 3, 4, 5], "dim": [0, 1, -1]},
        bad=[{"split_size": -1}, {"dim": 2}]),
    Row("split_with_sizes", pools={"split_sizes": [(1, 2), (3,), (0, 3), (1, 1, 1)], "dim": [0, -2]},
        bad=[{"split_sizes": (1, 1)}, {"split_sizes": (4, -1)}]),
    Row("chunk", pools={"chunks": [2, 1, 3, 5], "dim": [0, 1, -1]}, bad=[{"chunks": 0}, {"dim": 2}]),
    Row("tensor_split.sections", pools={"sections": [2, 1, 3, 5], "dim": [0, 1, -1]},
        bad=[{"sections": 0}, {"dim": 2}]),
    Row("tensor_split.indices", pools={"indices": [(1,), (1, 2), (), (0, 5), (-1,), (2, 1)], "dim": [0, 1]},
        generic_bad=False, bad=[{"dim": 2}]),
    Row("cat", pools={"tensors": [CAT_2, CAT_MIXED, CAT_EMPTY_1D, CAT_ONE, CAT_STRIDED],
                      "dim": [0, 1, -1, -2]},
        bad=[{"tensors": CAT_BAD_SIZES}, {"tensors": CAT_BAD_DIMS}, {"tensors": ()},
             {"tensors": (TensorSpec("float32", "0-d"),)}, {"dim": 2}]),
    Row("cat.out", pools={"tensors": [CAT_2, CAT_MIXED, CAT_EMPTY_1D], "dim": [0, 1, -1]},
        outs=("float32", "float64", "complex64"),
        bad=[{"tensors": CAT_BAD_SIZES}, {"tensors": CAT_2, "out": TensorSpec("int64", shape=(0,))}]),
    Row("concat", pools={"tensors": [CAT_2, CAT_MIXED], "dim": [0, 1]}, bad=[{"tensors": CAT_BAD_SIZES}]),
    Row("concatenate", pools={"tensors": [CAT_2, CAT_MIXED], "dim": [0, 1]},
        bad=[{"tensors": CAT_BAD_SIZES}]),
    Row("stack", pools={"tensors": [CAT_2, CAT_ONE, (TensorSpec("int64", shape=(3, 4)),) * 3,
                                    (TensorSpec("float32", "0-d"),) * 2], "dim": [0, 1, 2, -1]},
        bad=[{"tensors": CAT_BAD_SIZES}, {"tensors": ()}, {"dim": 3}]),
    *[Row(name, pools={"tensors": [CAT_2, CAT_ONE, STACK_1D, STACK_0D, CAT_3D]},
          bad=[{"tensors": ()}, {"tensors": CAT_BAD_SIZES3}])
      for name in ("hstack", "vstack", "dstack")],
    *[Row(name, keywords=False, extra=[{"self": TensorSpec("float32", "contiguous", (2, 3, 4))},
                       {"self": TensorSpec("float32", "contiguous", (5,))}])
      for name in ("atleast_1d", "atleast_2d", "atleast_3d")],
    Row("flip", pools={"dims": [(0,), (1,), (0, 1), (), (-1,)]}, bad=[{"dims": (0, 0)}, {"dims": (2,)}]),
    Row("fliplr", bad=[{"self": TensorSpec("float32", shape=(4,))}]),
    Row("flipud", bad=[{"self": TensorSpec("float32", "0-d")}]),
    Row("roll", pools={"shifts": [(1,), (-1,), (5,), (1, 2), (0,)], "dims": [(), (0,), (1,), (0, 1), (-1,)]},
        extra=[{"shifts": (1, -7), "dims": (0, 1)}, {"shifts": (13,), "dims": ()}],
        bad=[{"shifts": (1, 2), "dims": (0,)}, {"shifts": (), "dims": ()}, {"dims": (2,)}]),
    Row("rot90", pools={"k": [1, 2, 3, 0, -1, 5], "dims": [(0, 1), (1, 0), (-1, 0)]},
        bad=[{"dims": (0,)}, {"dims": (0, 0)}, {"self": TensorSpec("float32", shape=(4,))}]),
    Row("repeat", pools={"repeats": [(2, 3), (1, 1), (2, 1, 2), (0, 2), (1, 2, 1, 2)]},
        bad=[{"repeats": (2,)}, {"repeats": (2, -1)}]),
    Row("tile", pools={"dims": [(2, 3), (2,), (2, 1, 2), (0, 2), ()]}, bad=[{"dims": (2, -1)}]),
    Row("repeat_interleave.self_int", pools={"repeats": [2, 0, 1], "dim": [None, 0, 1, -1]},
        bad=[{"repeats": -1}, {"dim": 2}]),
    Row("repeat_interleave.self_Tensor", arg_dtypes={"repeats": ("int64", "int32")},
        shapes={"repeats": (3,)}, values={"repeats": "counts"}, pools={"dim": [0, None]},
        layouts=("contiguous", "0-d"), extra=[{"repeats": TensorSpec("int64", "0-d", (), "counts")}],
        bad=[{"repeats": TensorSpec("int64", shape=(5,), values="counts")},
             {"repeats": TensorSpec("float32", shape=(3,), values="counts")}]),
    Row("repeat_interleave.Tensor", dtypes=("int64", "int32"), shape=(4,), values={"repeats": "counts"},
        layouts=("contiguous", "sliced", "empty"),
        bad=[{"repeats": TensorSpec("int64", shape=(2, 2), values="counts")},
             {"repeats": TensorSpec("float32", shape=(4,), values="counts")}]),
    *[Row(name, pools={"diagonal": [0, 1, -1, 5, -5]}, extra=[{"self": TensorSpec("float32", "contiguous", (2, 3, 4))}],
          bad=[{"self": TensorSpec("float32", shape=(4,))}],
          layouts=ot.LAYOUTS if name in ("tril", "triu") else INPLACE_LAYOUTS)
      for name in ("tril", "tril_", "triu", "triu_")],
    Row("diag_embed", pools={"offset": [0, 1, -2], "dim1": [-2, 0, 2], "dim2": [-1, 1, 0]},
        bad=[{"dim1": 0, "dim2": 0}, {"dim1": 3}, {"self": TensorSpec("float32", "0-d")}]),
    Row("diag", pools={"diagonal": [0, 1, -1, 4, -6]},
        extra=[{"self": TensorSpec("float32", "contiguous", (4,))},
               {"self": TensorSpec("int64", "sliced", (7,)), "diagonal": -2}],
        bad=[{"self": TensorSpec("float32", shape=(2, 3, 4))}, {"self": TensorSpec("float32", "0-d")}]),
    *[Row(name, dtypes=("int64", "int32"), pools={"row": [4, 0, 1], "col": [3, 0, 6], "offset": [0, 1, -2, 9]},
          bad=[{"row": -1}, {"dtype": Dt("float32")}])
      for name in ("tril_indices", "triu_indices")],
    Row("index_select", arg_dtypes={"index": ("int64", "int32")}, shapes={"index": (5,)},
        values={"index": "index3"}, pools={"dim": [0, 1, -1]},
        extra=[{"index": TensorSpec("int64", "0-d", (), "index3")},
               {"index": TensorSpec("int64", "contiguous", (0,), "index3")},
               {"self": TensorSpec("float32", "0-d", ()), "dim": 0, "index": TensorSpec("int64", "0-d", (), "zero")},
               {"self": TensorSpec("float64", "contiguous", (300, 40)), "dim": 1}],
        bad=[{"index": TensorSpec("float32", shape=(2,), values="index3")},
             {"index": TensorSpec("int64", shape=(2, 2), values="index3")},
             {"index": TensorSpec("int64", shape=(2,), values="big")}, {"dim": 2}]),
    Row("index_select.out", arg_dtypes={"index": ("int64",)}, shapes={"index": (5,)},
        values={"index": "index3"}, pools={"dim": [0, 1]}, dtypes=("float32", "int64", "bool"),
        bad=[{"out": TensorSpec("float64", "empty", (0,))}]),
    *[Row(name, arg_dtypes={"index": ("int64", "int32")}, shapes={"index": (5,), "source": (5, 4)},
          values={"index": "index3"}, pools={"dim": [0], "alpha": [1, 2, -0.5]},
          dtypes=("float32", "float64", "int64", "int32", "bool", "complex64", "float16"),
          layouts=("contiguous", "transposed", "sliced"),
          extra=[{"dim": 1, "source": TensorSpec("float32", shape=(3, 5)), "index": TensorSpec("int64", shape=(5,), values="index3")}],
          bad=[{"index": TensorSpec("int64", shape=(5,), values="big")},
               {"source": TensorSpec("float32", shape=(4, 4))}, {"dim": 2}])
      for name in ("index_add", "index_add_")],
    *[Row(name, arg_dtypes={"index": ("int64",)}, shapes={"index": (2,), "source": (2, 4)},
          values={"index": "distinct"}, pools={"dim": [0]},
          dtypes=("float32", "float64", "int64", "bool", "complex64", "float16"),
          layouts=("contiguous", "transposed", "sliced"),
          extra=[{"dim": 1, "source": TensorSpec("float32", shape=(3, 2)),
                  "index": TensorSpec("int64", shape=(2,), values="distinct")}],
          bad=[{"index": TensorSpec("int64", shape=(2,), values="big")},
               {"source": TensorSpec("float32", shape=(4, 4))}, {"dim": 2},
               {"index": TensorSpec("int32", shape=(2,), values="distinct")}])
      for name in ("index_copy", "index_copy_")],
    *[Row(name, values={"index": "index3"},
          pools={"dim": [0, 1, -1], "value": [2, -1.5, True]} if name.endswith("Scalar") else {"dim": [0, 1, -1]},
          dtypes=("float32", "float64", "int64", "bool", "complex64", "float16"),
          shapes={"index": (2,)} if name.endswith("Scalar") else {"index": (2,), "value": ()},
          arg_dtypes={"index": ("int64",)} if name.endswith("Scalar") else
          {"index": ("int64",), "value": ("float32", "float64")},
          layouts=("contiguous", "transposed", "sliced", "0-d"),
          bad=[{"index": TensorSpec("int64", shape=(2,), values="big")}, {"dim": 2}])
      for name in ("index_fill.int_Scalar", "index_fill_.int_Scalar", "index_fill.int_Tensor",
                   "index_fill_.int_Tensor")],
    Row("gather", arg_dtypes={"index": ("int64",)}, values={"index": "index3"}, pools={"dim": [0, 1, -1]},
        extra=[{"index": TensorSpec("int64", "contiguous", (2, 3), "index3")},
               {"index": TensorSpec("int32", "contiguous", (2, 3), "index3")},
               {"self": TensorSpec("float64", "contiguous", (300, 200)),
                "index": TensorSpec("int64", "transposed", (300, 100), "index3"), "dim": 1}],
        bad=[{"index": TensorSpec("int64", values="big")}, {"index": TensorSpec("float32", values="index3")},
             {"index": TensorSpec("int64", shape=(4, 5), values="index3"), "dim": 0},
             {"index": TensorSpec("int64", shape=(12,), values="index3")}, {"dim": 2}]),
    Row("gather.out", arg_dtypes={"index": ("int64",)}, values={"index": "index3"}, pools={"dim": [0, 1]},
        dtypes=("float32", "int64", "bool"), bad=[{"out": TensorSpec("float64", "empty", (0,))}]),
    *[Row(name, arg_dtypes={"index": ("int64",)}, shapes={"index": (1, 4), "src": (1, 4)},
          values={"index": "index3"}, pools={"dim": [0]},
          extra=[{"dim": 1, "index": TensorSpec("int64", shape=(3, 1), values="index3"),
                  "src": TensorSpec("float32", shape=(3, 2))}],
          layouts=ot.LAYOUTS if "_" not in name.split(".")[0] else INPLACE_LAYOUTS,
          bad=[{"index": TensorSpec("int64", shape=(1, 4), values="big")}, {"dim": 2},
               {"src": TensorSpec("float32", "0-d", ())}])
      for name in ("scatter.src", "scatter_.src")],
    *[Row(name, arg_dtypes={"index": ("int64",)}, shapes={"index": (1, 4)}, values={"index": "index3"},
          pools={"dim": [0], "value": [2, -1.5, True]},
          extra=[{"dim": 1, "index": TensorSpec("int64", shape=(3, 1), values="index3")}],
          layouts=ot.LAYOUTS if "_" not in name.split(".")[0] else INPLACE_LAYOUTS,
          bad=[{"index": TensorSpec("int64", shape=(1, 4), values="big")}, {"dim": 2}])
      for name in ("scatter.value", "scatter_.value")],
    *[Row(name, arg_dtypes={"index": ("int64",)}, shapes={"index": (3, 4), "src": (3, 4)},
          values={"index": "index3"}, pools={"dim": [0, 1, -1]},
          layouts=ot.LAYOUTS if not name.endswith("_") else INPLACE_LAYOUTS,
          extra=[{"index": TensorSpec("int64", shape=(2, 3), values="index3")}],
          bad=[{"index": TensorSpec("int64", values="big")}, {"dim": 2},
               {"src": TensorSpec("float32", shape=(2, 2))}])
      for name in ("scatter_add", "scatter_add_")],
    *[Row(name, arg_dtypes={"index": ("int64",)}, shapes={"index": (3, 4), "src": (3, 4)},
          values={"index": "index3"}, pools={"dim": [0, 1], "reduce": ["sum", "prod", "mean", "amax", "amin"],
                                             "include_self": [True, False]},
          dtypes=("float32", "float64", "int64", "int32", "bool", "float16"),
          layouts=ot.LAYOUTS if not name.endswith("_") else INPLACE_LAYOUTS,
          extra=[{"reduce": r, "include_self": i, "dim": d}
                 for r in ("sum", "prod", "mean", "amax", "amin") for i in (True, False) for d in (0, 1)],
          bad=[{"reduce": "foo"}, {"index": TensorSpec("int64", values="big")}, {"dim": 2}])
      for name in ("scatter_reduce.two", "scatter_reduce_.two")],
    Row("take", arg_dtypes={"index": ("int64",)}, shapes={"index": (2, 3)}, values={"index": "wrap"},
        extra=[{"index": TensorSpec("int64", "contiguous", (0,), "wrap")}],
        bad=[{"index": TensorSpec("int64", shape=(2,), values="huge")},
             {"index": TensorSpec("int32", shape=(2,), values="wrap")}]),
    *[Row(name, arg_dtypes={"index": ("int64",)}, shapes={"index": (4,), "source": (4,)},
          values={"index": "distinct"}, pools={"accumulate": [False, True]},
          layouts=ot.LAYOUTS if not name.endswith("_") else INPLACE_LAYOUTS,
          bad=[{"index": TensorSpec("int64", shape=(4,), values="huge")},
               {"source": TensorSpec("float32", shape=(3,))}])
      for name in ("put", "put_")],
    Row("take_along_dim", arg_dtypes={"indices": ("int64",)}, values={"indices": "index3"},
        pools={"dim": [None, 0, 1, -1]},
        extra=[{"indices": TensorSpec("int64", shape=(3, 1), values="index3"), "dim": 1},
               {"indices": TensorSpec("int64", shape=(1, 2), values="index3"), "dim": 0}],
        bad=[{"indices": TensorSpec("int32", values="index3"), "dim": 0},
             {"indices": TensorSpec("int64", shape=(3,), values="index3"), "dim": 0}]),
    *[Row(name, arg_dtypes={"mask": ("bool",), **({} if "Scalar" in name else {"value": ("float32", "int64", "bool")})},
          shapes={"mask": (4,), **({} if "Scalar" in name else {"value": ()})},
          pools={"value": [2, -1.5, True]} if "Scalar" in name else {},
          dtypes=("float32", "float64", "int64", "int32", "bool", "complex64", "float16", "bfloat16"),
          layouts=ot.LAYOUTS if "fill_" not in name else INPLACE_LAYOUTS,
          extra=[{"mask": TensorSpec("bool", "contiguous", (3, 4))}, {"mask": TensorSpec("bool", "transposed", (3, 4))}],
          bad=[{"mask": TensorSpec("float32", shape=(4,))}, {"mask": TensorSpec("bool", shape=(5,))}]
              + ([] if "Scalar" in name else [{"value": TensorSpec("float32", shape=(2,))}]))
      for name in ("masked_fill.Scalar", "masked_fill_.Scalar", "masked_fill.Tensor", "masked_fill_.Tensor")],
    Row("masked_select", arg_dtypes={"mask": ("bool",)}, shapes={"mask": (4,)},
        extra=[{"mask": TensorSpec("bool", "contiguous", (3, 4))}, {"mask": TensorSpec("bool", "transposed", (2, 3, 4))},
               {"self": TensorSpec("float32", "contiguous", (400, 300)), "mask": TensorSpec("bool", "contiguous", (400, 300))}],
        bad=[{"mask": TensorSpec("float32", shape=(4,))}, {"mask": TensorSpec("bool", shape=(5,))}]),
    Row("masked_select.out", arg_dtypes={"mask": ("bool",)}, shapes={"mask": (4,)}, dtypes=("float32", "int64", "bool"),
        bad=[{"out": TensorSpec("float64", "empty", (0,))}]),
    *[Row(name, arg_dtypes={"mask": ("bool",)}, shapes={"mask": (4,), "source": (12,)},
          layouts=ot.LAYOUTS if not name.endswith("_") else INPLACE_LAYOUTS,
          extra=[{"mask": TensorSpec("bool", "transposed", (3, 4)), "source": TensorSpec("float32", "contiguous", (3, 5))}],
          bad=[{"mask": TensorSpec("float32", shape=(4,))}, {"source": TensorSpec("float32", shape=(2,))},
               {"mask": TensorSpec("bool", shape=(5,))}])
      for name in ("masked_scatter", "masked_scatter_")],
    Row("nonzero", extra=[{"self": TensorSpec("float32", "contiguous", (2, 3, 4))},
                          {"self": TensorSpec("bool", "contiguous", (500, 300))}]),
    Row("nonzero.out", dtypes=("float32", "bool", "int64"), outs=("int64",),
        bad=[{"out": TensorSpec("float32", "empty", (0,))}]),
    Row("argwhere"),
    Row("index.Tensor", torch_function=lambda self, indices: torch.ops.aten.index.Tensor(self, indices),
        torch_ops=True,
        pools={"indices": [(TensorSpec("int64", shape=(5,), values="index3"),),
                           (TensorSpec("int64", shape=(2, 1), values="index3"), TensorSpec("int64", shape=(3,), values="index3")),
                           (TensorSpec("int32", shape=(2,), values="wrap"), TensorSpec("int64", "0-d", (), values="index3")),
                           (TensorSpec("bool", shape=(3, 4)),), (TensorSpec("bool", shape=(3,)),),
                           (TensorSpec("bool", "transposed", (3,)), TensorSpec("int64", shape=(1,), values="index3")),
                           (TensorSpec("int64", "contiguous", (0,), values="index3"),),
                           (TensorSpec("uint8", shape=(3,), values="prob"),)]},
        bad=[{"indices": (TensorSpec("float32", shape=(2,)),)},
             {"indices": (TensorSpec("int64", shape=(2,), values="big"),)},
             {"indices": (TensorSpec("bool", shape=(4,)),)},
             {"indices": (TensorSpec("int64", shape=(2,), values="index3"),) * 3},
             {"indices": (TensorSpec("int64", shape=(2,), values="index3"), TensorSpec("int64", shape=(3,), values="index3"))}]),
    *[Row(name, torch_function=getattr(torch.Tensor, name), shapes={"values": (4,)},
          arg_dtypes={"values": ALL},
          pools={"indices": [(TensorSpec("int64", shape=(2,), values="distinct"),),
                             (TensorSpec("bool", shape=(3,)),),
                             (TensorSpec("bool", shape=(3, 4)),)],
                 "accumulate": [False, True]},
          layouts=ot.LAYOUTS if not name.endswith("_") else INPLACE_LAYOUTS,
          extra=[{"values": TensorSpec("float32", "0-d", ())},
                 {"indices": (TensorSpec("int64", shape=(3,), values="index3"),), "accumulate": True,
                  "values": TensorSpec("float32", shape=(3, 4))}],
          bad=[{"values": TensorSpec("float32", shape=(5,))},
               {"indices": (TensorSpec("int64", shape=(2,), values="big"),)}])
      for name in ("index_put_", "index_put")],
    Row("sort.stable", pools={"stable": [True, False, None], "dim": [0, 1, -1], "descending": [False, True]},
        values={"self": "ties"}, dtypes=ORDERED + ("complex64",),
        extra=[{"self": TensorSpec("float32", values="edge"), "stable": True},
               {"self": TensorSpec("float32", values="edge"), "stable": True, "descending": True},
               {"self": TensorSpec("float32", "contiguous", (70000,)), "stable": True}],
        bad=[{"dim": 2}]),
    Row("sort", pools={"dim": [0, 1, -1], "descending": [False, True]}, values={"self": "distinct"},
        dtypes=ORDERED, bad=[{"dim": 2}]),
    Row("argsort", pools={"dim": [0, 1, -1], "descending": [False, True]}, values={"self": "distinct"},
        dtypes=ORDERED, bad=[{"dim": 2}]),
    Row("argsort.stable", pools={"stable": [True], "dim": [0, -1], "descending": [False, True]},
        values={"self": "ties"}, dtypes=ORDERED, bad=[{"dim": 2}]),
    Row("msort", values={"self": "distinct"}, dtypes=ORDERED),
    Row("topk", pools={"k": [2, 0, 3, 1], "dim": [0, 1, -1], "largest": [True, False], "sorted": [True]},
        values={"self": "distinct"}, dtypes=ORDERED + ("complex64",),
        extra=[{"self": TensorSpec("float32", values="edge"), "k": 3},
               {"self": TensorSpec("float64", "contiguous", (200, 300), "distinct"), "k": 10}],
        bad=[{"k": 5}, {"k": -1}, {"dim": 2}]),
    Row("kthvalue", pools={"k": [1, 2, 3], "dim": [0, 1, -1], "keepdim": [False, True]},
        values={"self": "distinct"}, dtypes=ORDERED, bad=[{"k": 0}, {"k": 5}, {"dim": 2}]),
    Row("median", values={"self": "distinct"}, dtypes=ORDERED,
        extra=[{"self": TensorSpec("float32", values="nan")}, {"self": TensorSpec("float64", values="edge")}]),
    # PyTorch's median.dim reads garbage from a stride-0 (broadcast) input: that layout is left out.
    Row("median.dim", pools={"dim": [0, 1, -1], "keepdim": [False, True]}, values={"self": "distinct"},
        layouts=tuple(x for x in ot.LAYOUTS if x != "broadcast"),
        dtypes=ORDERED, extra=[{"self": TensorSpec("float32", values="nan"), "dim": 1}], bad=[{"dim": 2}]),
    Row("nanmedian", values={"self": "distinct"}, dtypes=FLOATS,
        extra=[{"self": TensorSpec("float32", values="nan")}, {"self": TensorSpec("float64", values="edge")}]),
    Row("mode", pools={"dim": [0, 1, -1], "keepdim": [False, True]}, values={"self": "ties"},
        dtypes=ORDERED, bad=[{"dim": 2}]),
    Row("_unique2", torch_function=torch._unique2, pools={"sorted": [True], "return_inverse": [False, True],
                                                         "return_counts": [False, True]},
        values={"self": "ties"}, dtypes=ORDERED),
    Row("unique_dim", torch_function=torch.ops.aten.unique_dim, torch_ops=True, shape=(4, 3), values={"self": "ties"},
        pools={"dim": [0, 1, -1], "sorted": [True], "return_inverse": [False, True], "return_counts": [False, True]},
        dtypes=("float32", "int64", "bool"), bad=[{"dim": 2}]),
    Row("unique_consecutive", pools={"return_inverse": [False, True], "return_counts": [False, True],
                                     "dim": [None, 0, 1]},
        values={"self": "ties"}, dtypes=ORDERED, keywords=False,
        torch_function=lambda input, return_inverse=False, return_counts=False, dim=None: torch.unique_consecutive(
            input, return_inverse=return_inverse, return_counts=return_counts, dim=dim),
        bad=[{"dim": 2}]),
    Row("searchsorted.Tensor", shapes={"sorted_sequence": (5,), "self": (3, 4)},
        values={"sorted_sequence": "sorted"}, dtypes=("float32", "float64", "int64", "int32"),
        layouts=("contiguous", "transposed", "0-d", "empty"),
        pools={"out_int32": [False, True], "right": [False, True], "side": [None, "left", "right"]},
        extra=[{"sorted_sequence": TensorSpec("float32", shape=(3, 5), values="sorted")},
               {"sorted_sequence": TensorSpec("float32", shape=(5,), values="perm"),
                "sorter": TensorSpec("int64", shape=(5,), values="argsort")}],
        bad=[{"side": "middle"}, {"side": "left", "right": True},
             {"sorted_sequence": TensorSpec("float32", shape=(2, 5), values="sorted")},
             {"sorted_sequence": TensorSpec("float32", "0-d", ())}]),
    Row("searchsorted.Scalar", shapes={"sorted_sequence": (5,)}, values={"sorted_sequence": "sorted"},
        dtypes=("float32", "float64", "int64"), layouts=("contiguous", "empty"),
        pools={"self": [0.5, 2, -3, 10], "right": [False, True]},
        bad=[{"sorted_sequence": TensorSpec("float32", shape=(2, 5), values="sorted")}]),
    Row("bucketize.Tensor", shapes={"boundaries": (5,)}, values={"boundaries": "sorted"},
        dtypes=("float32", "float64", "int64", "int32"), layouts=("contiguous", "transposed", "0-d", "empty"),
        pools={"out_int32": [False, True], "right": [False, True]},
        bad=[{"boundaries": TensorSpec("float32", shape=(2, 5), values="sorted")}]),
    Row("bucketize.Scalar", shapes={"boundaries": (5,)}, values={"boundaries": "sorted"},
        dtypes=("float32", "int64"), layouts=("contiguous", "empty"),
        pools={"self": [0.5, 2, -3, 10], "right": [False, True]},
        bad=[{"boundaries": TensorSpec("float32", shape=(2, 5), values="sorted")}]),
    Row("histc", dtypes=("float32", "float64", "int64"), pools={"bins": [100, 4, 1], "min": [0, -1], "max": [0, 1]},
        extra=[{"bins": 5, "min": -2, "max": 2}, {"bins": 7, "min": -1.5, "max": 0.25}],
        bad=[{"bins": 0}, {"min": 2, "max": 1}]),
    Row("bincount", dtypes=("int64", "int32", "uint8"), shape=(6,), values={"self": "counts"},
        arg_dtypes={"weights": ("float32", "float64", "int64")}, shapes={"weights": (6,)},
        layouts=("contiguous", "sliced", "empty"), pools={"minlength": [0, 2, 9]},
        bad=[{"self": TensorSpec("int64", shape=(2, 3), values="counts")}, {"minlength": -1},
             {"self": TensorSpec("float32", shape=(6,), values="counts")},
             {"self": TensorSpec("int64", shape=(6,), values="wrap")}]),
    Row("meshgrid.indexing", torch_function=lambda tensors, indexing: torch.meshgrid(*tensors, indexing=indexing),
        keywords=False,
        pools={"tensors": [(TensorSpec("float32", shape=(3,)), TensorSpec("float32", shape=(2,))),
                           (TensorSpec("int64", shape=(3,)), TensorSpec("int64", "0-d", ()), TensorSpec("int64", shape=(4,))),
                           (TensorSpec("float32", shape=(5,)),)],
               "indexing": ["ij", "xy"]},
        bad=[{"indexing": "yx"}, {"tensors": (TensorSpec("float32", shape=(2, 2)),)}]),
    Row("cartesian_prod", keywords=False, torch_function=lambda tensors: torch.cartesian_prod(*tensors),
        pools={"tensors": [(TensorSpec("float32", shape=(3,)), TensorSpec("float32", shape=(2,))),
                           (TensorSpec("int64", shape=(3,)),),
                           (TensorSpec("int64", shape=(2,)), TensorSpec("int64", shape=(2,)), TensorSpec("int64", shape=(3,)))]},
        bad=[{"tensors": (TensorSpec("float32", shape=(2, 2)),)}]),
    Row("combinations", shape=(4,), layouts=("contiguous", "sliced", "empty"),
        pools={"r": [2, 0, 1, 3, 5], "with_replacement": [False, True]},
        bad=[{"r": -1}, {"self": TensorSpec("float32", shape=(2, 2))}]),
    # ---- binary arithmetic ----
    *[Row(f"{op}{form}", pools={"alpha": [1, 2, -0.5]} if op in ("add", "sub") else {},
          shapes={"other": (4,)}, arg_dtypes={"other": MIXED},
          bad=[{"other": TensorSpec("float32", "contiguous", (2,))}])
      for op in ("add", "sub", "mul", "div") for form in (".out", ".Tensor")],
    *[Row(f"{op}_.Tensor", pools={"alpha": [1, 2]} if op in ("add", "sub") else {},
          shapes={"other": (4,)}, bad=[{"other": TensorSpec("float32", "contiguous", (3, 1, 4))}])
      for op in ("add", "sub", "mul", "div")],
    *[Row(f"{op}{form}", pools={
          "other": [2, -1.5, True, 1 + 2j, 0], **({"alpha": [1, 3]} if op in ("add", "sub") else {})})
      for op in ("add", "sub", "mul", "div") for form in (".Scalar", "_.Scalar")],
    # ---- unary elementwise ----
    *[Row(f"{op}{form}", extra=EDGE if op == "abs" else [])
      for op in UNARY for form in (".out", "", "_")],
    *[Row(op) for op in ("isnan", "isinf", "isfinite", "signbit")],
    # ---- comparisons ----
    *[Row(f"{op}{form}", shapes={"other": (4,)}, arg_dtypes={"other": MIXED},
          pools={"other": [2, -1.5, True, 0]} if form == ".Scalar" else {})
      for op in ("eq", "ne", "lt", "le", "gt", "ge") for form in (".Tensor_out", ".Tensor", ".Scalar")],
    # ---- binary: rounding division, powers, min/max, bitwise and logical ----
    # Tensor-Tensor families (out=, functional, in-place): the second operand broadcasts from
    # (4,) over MIXED dtypes; divisions take nonzero divisors, with zero divisors as bad calls
    # for integers (ZeroDivisionError) and as extras for floats (inf/nan); boundary values
    # (inf, nan, -0.0, integer extremes) in every dtype as extras.
    *[Row(key, dtypes=ALL if not bitwise else INTS + ("bool",) + FLOATS + ot.COMPLEX,
          pools={"rounding_mode": ["trunc", "floor", None]},
          shapes={arg: (4,)},
          arg_dtypes={arg: (("int64", "int32", "int16", "int8", "uint8", "bool", "float32")
                            if bitwise else MIXED)} if not inplace else {},
          values={arg: "nonzero"} if dividing else {},
          extra=[{"self": TensorSpec(d, "contiguous", (3, 4), "special"),
                  arg: TensorSpec(d, "contiguous", (4,), "nonzero" if dividing else "special"),
                  **({"rounding_mode": mode} if key.startswith("div") else {})}
                 for d in INTS + FLOATS + ("bool",) for mode in ("trunc", "floor")
                 if mode == "trunc" or key.startswith("div")]
                + [{"self": TensorSpec(d, "contiguous", (3, 4), "special"),
                    arg: TensorSpec(d, "contiguous", (3, 4), "special")} for d in FLOATS]
                + ([{arg: TensorSpec(d, "contiguous", (4,), "zero")} for d in FLOATS]
                   if dividing else []),
          bad=([{arg: TensorSpec("float32", "contiguous", (3, 1, 4) if inplace else (2,))}]
               + ([{"self": TensorSpec(d), arg: TensorSpec(d, "contiguous", (4,), "zero")}
                   for d in ("int64", "int32", "uint8")] if dividing else [])
               + ([{"rounding_mode": "round"}] if key.startswith("div") else [])))
      for family, arg in (
          (("div.out_mode", "div.Tensor_mode", "div_.Tensor_mode"), "other"),
          (("floor_divide.out", "floor_divide", "floor_divide_.Tensor"), "other"),
          (("remainder.Tensor_out", "remainder.Tensor", "remainder_.Tensor"), "other"),
          (("fmod.Tensor_out", "fmod.Tensor", "fmod_.Tensor"), "other"),
          (("pow.Tensor_Tensor_out", "pow.Tensor_Tensor", "pow_.Tensor"), "exponent"),
          (("maximum.out", "maximum", "minimum.out", "minimum", "fmax.out", "fmax", "fmin.out",
            "fmin"), "other"),
          (("atan2.out", "atan2", "atan2_", "arctan2.out", "arctan2", "arctan2_", "hypot.out",
            "hypot", "hypot_", "copysign.out", "copysign.Tensor", "copysign_.Tensor"), "other"),
          (tuple(f"bitwise_{op}{form}" for op in ("and", "or", "xor", "left_shift", "right_shift")
                 for form in (".Tensor_out", ".Tensor", "_.Tensor")), "other"),
          (tuple(f"logical_{op}{form}" for op in ("and", "or", "xor")
                 for form in (".out", "", "_")), "other"))
      for key in family
      for inplace in ["_." in key or key.endswith("_")]
      for dividing in [key.split("_.")[0].split(".")[0] in ("div", "floor_divide", "remainder", "fmod")]
      for bitwise in [key.startswith("bitwise")]],
    # Number operands (self a tensor): the number over ints, floats, bool, zero and complex.
    *[Row(key, dtypes=INTS + ("bool",) + FLOATS + ot.COMPLEX if key.startswith("bitwise") else ALL,
          pools={"rounding_mode": ["trunc", "floor", None],
                 arg: ([2, -3, True, 1000, -1, 0, 1.5, 1 + 2j] if key.startswith("bitwise")
                       else [2, 3, 0.5, -0.5, -1, -2, 0, 1, 2.5, True, 1 + 2j, -3]
                       if arg == "exponent" else [2, -1.5, True, 0, -3, 0.25, 1 + 2j])},
          extra=[{"self": TensorSpec(d, "contiguous", (3, 4), "special"), arg: v,
                  **({"rounding_mode": "floor"} if key.startswith("div") else {})}
                 for d in INTS + FLOATS for v in (2, -3, 0.5)
                 if not (arg == "exponent" and v == -3 and d in INTS)],
          bad=[{"self": TensorSpec("int64"), arg: -2} if arg == "exponent" else
               {"self": TensorSpec("float32"), arg: 1} if key.startswith("bitwise") else
               {arg: 1 + 2j} if key.startswith("copysign") else
               {"self": TensorSpec("int64"), arg: 0}]
              + ([{"rounding_mode": "round"}] if key.startswith("div") else []))
      for key, arg in (
          *[(k, "other") for k in ("div.Scalar_mode_out", "div.Scalar_mode", "div_.Scalar_mode")],
          *[(f"{op}{form}", "other") for op in ("floor_divide", "remainder", "fmod", "copysign")
            for form in (".Scalar_out", ".Scalar", "_.Scalar")],
          *[(f"bitwise_{op}{form}", "other") for op in ("and", "or", "xor")
            for form in (".Scalar_out", ".Scalar", "_.Scalar")],
          *[(f"bitwise_{op}_shift{form}", "other") for op in ("left", "right")
            for form in (".Tensor_Scalar_out", ".Tensor_Scalar", "_.Tensor_Scalar")],
          *[(k, "exponent") for k in ("pow.Tensor_Scalar_out", "pow.Tensor_Scalar", "pow_.Scalar")])],
    # A number first: self a number, the tensor second.
    *[Row(key, dtypes=INTS + ("bool",) + FLOATS + ot.COMPLEX if key.startswith("bitwise") else ALL,
          self_keyword="self", values={arg: "nonzero"} if key.startswith("remainder") else {},
          pools={"self": ([2, -3, True, 1000, 1.5] if key.startswith("bitwise")
                          else [2, -1.5, True, 1, 0, 7, 2.5 + 1j])},
          extra=[{"self": v, arg: TensorSpec(d, "contiguous", (3, 4), "special")}
                 for d in INTS + FLOATS for v in (3, -2, 0.5)],
          bad=[{"self": 2, arg: TensorSpec("int64", "contiguous", (3, 4), "zero")}
               if key.startswith("remainder") else
               {"self": True, arg: TensorSpec("bool")} if key.startswith("pow") else
               {"self": 2, arg: TensorSpec("float32")}])
      for key, arg in (("remainder.Scalar_Tensor", "other"), ("pow.Scalar", "exponent"),
                       ("pow.Scalar_out", "exponent"),
                       *[(f"bitwise_{op}.Scalar_Tensor", "other")
                         for op in ("and", "or", "xor", "left_shift", "right_shift")])],
    # Unary: bitwise_not (integers and bool) and logical_not (any dtype, bool result).
    *[Row(key, dtypes=INTS + ("bool",) + FLOATS + ot.COMPLEX if key.startswith("bitwise") else ALL,
          extra=[{"self": TensorSpec(d, "contiguous", (3, 4), "special")} for d in INTS + FLOATS])
      for key in ("bitwise_not.out", "bitwise_not", "bitwise_not_", "logical_not.out",
                  "logical_not", "logical_not_")],

    # ---- (section end) ----
    # ---- unary: activations and special functions ----
    *[Row(f"{op}{form}", extra=EDGE) for op in ("sgn", "square", "lgamma", "digamma")
      for form in (".out", "", "_")],
    *[Row(f"erfinv{form}", values={"self": "unit"}, extra=EDGE) for form in (".out", "", "_")],
    *[Row(f"logit{form}", values={"self": "prob"}, pools={"eps": [0.25, -1.0, 0.0]}, extra=EDGE)
      for form in (".out", "", "_")],
    *[Row(f"round{form}", pools={"decimals": [1, 0, 2, -1]}, extra=EDGE)
      for form in (".decimals_out", ".decimals", "_.decimals")],
    *[Row(f"nan_to_num{form}", pools={"nan": [1.5], "posinf": [100.0, 1e300], "neginf": [-100.0]},
          extra=EDGE + [{"self": TensorSpec("float16", values="edge"), "posinf": 1e300}])
      for form in (".out", "", "_")],
    *[Row(op, extra=EDGE) for op in ("relu", "relu_", "relu6", "relu6_", "selu", "selu_")],
    *[Row(op, pools={"alpha": [0.5, 2, True]}, extra=EDGE, bad=[{"alpha": 0}])
      for op in ("celu", "celu_")],
    *[Row(f"hardtanh{form}", pools={"min_val": [-0.5, 0, -2], "max_val": [2.5, 1]},
          extra=EDGE + [{"min_val": 2, "max_val": 1}, {"min_val": 0.5, "max_val": 1.5}],
          bad=[{"self": TensorSpec("uint8"), "min_val": -1}])
      for form in (".out", "", "_")],
    *[Row(f"leaky_relu{form}", pools={"negative_slope": [0.2, 2, True]}, extra=EDGE,
          bad=[{"negative_slope": 1j}]) for form in (".out", "", "_")],
    *[Row(f"elu{form}", pools={"alpha": [0.5, 2], "scale": [1.5], "input_scale": [2, 0.5]},
          extra=EDGE, bad=[{"alpha": 1j}]) for form in (".out", "", "_")],
    *[Row(f"gelu{form}", pools={"approximate": ["tanh", "none"]}, extra=EDGE,
          bad=[{"approximate": "fast"}]) for form in (".out", "", "_")],
    *[Row(f"{op}{form}", extra=EDGE) for op in ("silu", "mish", "hardswish", "hardsigmoid")
      for form in (".out", "", "_")],
    *[Row(f"softplus{form}", pools={"beta": [2, 0.5], "threshold": [1, 0.5]}, extra=EDGE)
      for form in (".out", "")],
    # ---- (section end) ----
    # ---- pointwise with several inputs ----
    *[Row(f"where{form}", shapes={"other": (4,), "condition": (3, 1)},
          arg_dtypes={"condition": ("bool", "uint8", "float32"), "other": MIXED},
          extra=[{"condition": TensorSpec("bool", "contiguous", (3, 4))}],
          bad=[{"other": TensorSpec("float32", "contiguous", (2,))}])
      for form in (".self_out", ".self")],
    *[Row(key, shapes={"condition": (3, 4)}, arg_dtypes={"condition": ("bool", "uint8", "float32")},
          pools={"self": [2, -1.5, True, 1 + 2j], "other": [3, 0.5, False]},
          bad=[{"condition": TensorSpec("int64")}], self_keyword="self")
      for key in ("where.ScalarSelf", "where.Scalar")],
    Row("where.ScalarOther", shapes={"condition": (3, 4)},
        arg_dtypes={"condition": ("bool", "uint8", "float32")}, pools={"other": [2, -1.5, True, 1 + 2j]},
        bad=[{"self": TensorSpec("int8"), "other": 1000}]),
    *[Row(f"{op}{form}", pools={"min": [-1, 0.5, True, None], "max": [1, 2.5, None]},
          extra=EDGE + [{"min": 1, "max": -1}, {"min": float("nan")}, {"max": float("nan")}],
          bad=[{"self": TensorSpec("int8"), "min": 1000}, {"self": TensorSpec("float16"), "min": 1e6}])
      for op in ("clamp", "clip") for form in (".out", "", "_")],
    *[Row(f"{op}{form}", shapes={"min": (4,), "max": (3, 1)}, arg_dtypes={"min": MIXED, "max": MIXED},
          extra=[{"min": None}, {"max": None}, {"min": TensorSpec("float32", "0-d")},
                 {"self": TensorSpec("float32", values="edge"), "min": TensorSpec("float32", values="edge")}],
          bad=[{"min": TensorSpec("float32", "contiguous", (2,))}])
      for op in ("clamp", "clip") for form in (".Tensor_out", ".Tensor", "_.Tensor")],
    *[Row(f"{op}{form}", pools={arg: [-1, 0.5, True, 1000]}, extra=EDGE + [{arg: float("nan")}],
          bad=[{"self": TensorSpec("int8"), arg: 1000}])
      for op, arg in (("clamp_min", "min"), ("clamp_max", "max")) for form in (".out", "", "_")],
    *[Row(f"{op}{form}", shapes={arg: (4,)}, arg_dtypes={arg: MIXED},
          extra=[{arg: TensorSpec("float64", "0-d")}], bad=[{arg: TensorSpec("float32", "contiguous", (2,))}])
      for op, arg in (("clamp_min", "min"), ("clamp_max", "max"))
      for form in (".Tensor_out", ".Tensor", "_.Tensor")],
    *[Row(f"lerp{form}", shapes={"end": (4,)}, pools={"weight": [0.5, 0.75, 2, True, -1.5]},
          extra=[{"self": TensorSpec(d, values="edge")} for d in ("float32", "float64")],
          bad=[{"weight": 1e300}, {"end": TensorSpec("float64")}])
      for form in (".Scalar_out", ".Scalar", "_.Scalar")],
    *[Row(f"lerp{form}", shapes={"end": (4,), "weight": (3, 1)},
          extra=[{"weight": TensorSpec(d, "0-d")} for d in ("float64", "int64", "float32")],
          bad=[{"weight": TensorSpec("float64")}, {"end": TensorSpec("float64")}])
      for form in (".Tensor_out", ".Tensor", "_.Tensor")],
    *[Row(f"{op}{form}", shapes={"tensor1": (4,), "tensor2": (3, 1)},
          arg_dtypes={"tensor1": MIXED, "tensor2": MIXED}, pools={"value": [2, -1.5, True, 0.5]},
          extra=[{"self": TensorSpec("float32", values="edge")}],
          bad=[{"value": 1j}, {"tensor1": TensorSpec("float32", "contiguous", (2,))}])
      for op in ("addcmul", "addcdiv") for form in (".out", "", "_")],
    Row("isclose", shapes={"other": (4,)}, pools={"rtol": [0.1, 0.0], "atol": [0.3, 0.0],
                                                   "equal_nan": [True]},
        extra=[{"self": TensorSpec(d, values="edge"), "other": TensorSpec(d, values="edge", shape=(4,)),
                "equal_nan": nan} for d in FLOATS for nan in (False, True)],
        bad=[{"rtol": -1.0}, {"atol": -0.5}, {"other": TensorSpec("float64", "contiguous", (4,))}]),
    # ---- (section end) ----
    # ---- reductions ----
    *[Row(key, pools={"dim": DIMS_OPT}, extra=REDUCE_EXTRA, bad=BAD_DIMS,
          out_layouts=NO_BROADCAST_OUT)
      for key in ("sum.dim_IntList", "sum.IntList_out", "nansum", "nansum.out")],
    Row("sum", extra=REDUCE_EXTRA),
    *[Row(key, dtypes=FLOATS + ("complex64", "complex128", "int64"), pools={"dim": DIMS_OPT},
          extra=REDUCE_EXTRA, bad=BAD_DIMS + [{"self": TensorSpec("int64")}],
          out_layouts=NO_BROADCAST_OUT)
      for key in ("mean.dim", "mean.out", "nanmean", "nanmean.out")],
    Row("mean", dtypes=FLOATS + ("complex64", "int64"), extra=REDUCE_EXTRA,
        bad=[{"self": TensorSpec("int64")}]),
    Row("prod", extra=REDUCE_EXTRA),
    *[Row(key, pools={"dim": DIMS_INT}, extra=REDUCE_EXTRA, bad=BAD_DIM,
          out_layouts=NO_BROADCAST_OUT)
      for key in ("prod.dim_int", "prod.int_out")],
    *[Row(f"{op}{form}", dtypes=ORDERED, extra=REDUCE_EXTRA + [{"self": NAN_INPUT}],
          bad=[{"self": TensorSpec("float32", "empty", (0, 4))}])
      for op in ("max", "min") for form in ("", ".unary_out")],
    *[Row(f"{op}.dim", dtypes=ORDERED, pools={"dim": DIMS_INT},
          extra=REDUCE_EXTRA + [{"self": NAN_INPUT}, {"self": TIES}],
          bad=BAD_DIM + [{"self": TensorSpec("float32", "empty", (0, 4)), "dim": 0}])
      for op in ("max", "min")],
    *[Row(f"{op}{form}", dtypes=ORDERED, pools={"dim": DIMS_LIST},
          extra=REDUCE_EXTRA + [{"self": NAN_INPUT}],
          bad=BAD_DIMS + [{"self": TensorSpec("float32", "empty", (0, 4)), "dim": 0}])
      for op in ("amax", "amin") for form in ("", ".out")],
    *[Row(f"{op}{form}", dtypes=ORDERED, pools={"dim": DIMS_OPT_INT},
          extra=REDUCE_EXTRA + [{"self": NAN_INPUT}, {"self": TIES}, {"self": TIES, "dim": 1}],
          bad=BAD_DIM + [{"self": TensorSpec("float32", "empty", (0, 4))}],
          outs=("int64", "int32", "float32"))
      for op in ("argmax", "argmin") for form in ("", ".out")],
    Row("aminmax", dtypes=ORDERED, pools={"dim": DIMS_OPT_INT},
        extra=REDUCE_EXTRA + [{"self": NAN_INPUT}],
        bad=BAD_DIM + [{"self": TensorSpec("float32", "empty", (0, 4))}]),
    *[Row(f"{op}{form}", extra=REDUCE_EXTRA, **kw)
      for op in ("all", "any")
      for form, kw in (("", {}), (".all_out", {}),
                       (".dim", {"pools": {"dim": DIMS_INT}, "bad": BAD_DIM}),
                       (".out", {"pools": {"dim": DIMS_INT}, "bad": BAD_DIM}),
                       (".dims", {"pools": {"dim": DIMS_OPT}, "bad": BAD_DIMS}),
                       (".dims_out", {"pools": {"dim": DIMS_OPT}, "bad": BAD_DIMS}))],
    Row("count_nonzero.dim_IntList", pools={"dim": DIMS_LIST}, extra=REDUCE_EXTRA, bad=BAD_DIMS),
    Row("count_nonzero", pools={"dim": DIMS_OPT_INT}, extra=REDUCE_EXTRA, bad=BAD_DIM),
    *[Row(f"{op}{form}", dtypes=INEXACT, pools={"dim": DIMS_OPT, "correction": [None, 0, 1, 2.5]},
          extra=REDUCE_EXTRA + [{"self": TensorSpec("float32", "contiguous", (1, 4))}],
          bad=(BAD_DIMS if form else []) + [{"self": TensorSpec("int64")}],
          out_layouts=NO_BROADCAST_OUT)
      for op in ("var", "std", "var_mean", "std_mean")
      for form in ("", ".dim", ".correction", ".out", ".correction_out")
      if not (op.endswith("_mean") and form.endswith("out"))],
    # torch.norm is a Python function with its own argument handling: the ATen overloads.
    Row("norm.Scalar", dtypes=INEXACT, pools={"p": NORM_ORDS}, extra=REDUCE_EXTRA,
        bad=[{"self": TensorSpec("int64")}], torch_function=torch.ops.aten.norm.Scalar,
        torch_ops=True),
    *[Row(f"norm{form}", dtypes=INEXACT, pools={"p": NORM_ORDS + [None], "dim": DIMS_LIST},
          extra=REDUCE_EXTRA, bad=BAD_DIMS + [{"self": TensorSpec("int64")}],
          torch_function=getattr(torch.ops.aten.norm, form[1:]), torch_ops=True,
          out_layouts=NO_BROADCAST_OUT)
      for form in (".ScalarOpt_dim", ".out")],
    *[Row(f"linalg_vector_norm{form}", dtypes=INEXACT, pools={"ord": NORM_ORDS, "dim": DIMS_OPT},
          torch_function=torch.linalg.vector_norm, extra=REDUCE_EXTRA + [
              {"self": TensorSpec("float32", "empty", (0, 4)), "ord": float("inf"), "dim": 1},
              {"self": TensorSpec("float16"), "dtype": Dt("float32")}],
          bad=BAD_DIMS + [{"self": TensorSpec("int64")},
                          {"self": TensorSpec("float32", "empty", (0, 4)), "ord": float("inf")},
                          {"self": TensorSpec("float32", "empty", (0, 4)), "ord": -1, "dim": 0}])
      for form in ("", ".out")],
    *[Row(f"logsumexp{form}", dtypes=FLOATS + INTS + ("bool",),
          pools={"dim": [0, 1, -1, (0, 1), (-1, 0)]},
          extra=REDUCE_EXTRA + [{"self": TensorSpec("float32", "empty", (0, 4)), "dim": 0}],
          bad=BAD_DIMS)
      for form in ("", ".out")],


    # ---- (section end) ----
    # ---- scans ----


    # ---- (section end) ----

    # ---- matrix products ----
    *[Row(f"mm{form}", dtypes=MM_DTYPES, shapes={"self": (3, 4), "mat2": (4, 5)}, extra=MM_EXTRA,
          bad=MM_BAD + [{"mat2": TensorSpec("float32", shape=(4,))}])
      for form in ("", ".out")],
    *[Row(f"bmm{form}", dtypes=MM_DTYPES, shapes={"self": (2, 3, 4), "mat2": (2, 4, 5)},
          layouts=BMM_LAYOUTS, extra=BMM_EXTRA, out_layouts=NO_BROADCAST_OUT,
          bad=[{"mat2": TensorSpec("float32", shape=(3, 4, 5))},
               {"mat2": TensorSpec("float32", shape=(2, 5, 5))},
               {"mat2": TensorSpec("float64", shape=(2, 4, 5))},
               {"self": TensorSpec("float32", shape=(3, 4))}])
      for form in ("", ".out")],
    *[Row(f"addmm{form}", dtypes=MM_DTYPES, shapes={"self": (3, 5), "mat1": (3, 4), "mat2": (4, 5)},
          pools={"beta": [0, 0.5, 2], "alpha": [0, -1.5, 2]},
          extra=[{"self": TensorSpec("float32", shape=(5,))},
                 {"self": TensorSpec("float32", values="nan", shape=(3, 5)), "beta": 0},
                 {"self": TensorSpec("float64", shape=(300, 100)), "mat1": TensorSpec("float64", "transposed", (300, 200)),
                  "mat2": TensorSpec("float64", shape=(200, 100))}],
          bad=[{"mat2": TensorSpec("float32", shape=(5, 5))}, {"self": TensorSpec("float32", shape=(4,))},
               {"self": TensorSpec("float64", shape=(3, 5))}])
      for form in ("", ".out")],
    Row("addmm_", dtypes=("float32", "float64", "int64"), shapes={"self": (3, 5), "mat1": (3, 4), "mat2": (4, 5)},
        layouts=INPLACE_LAYOUTS, pools={"beta": [0, 2], "alpha": [0, -1.5]},
        bad=[{"self": TensorSpec("float32", shape=(5,))}]),
    *[Row(f"baddbmm{form}", dtypes=MM_DTYPES, shapes={"self": (2, 3, 5), "batch1": (2, 3, 4), "batch2": (2, 4, 5)},
          layouts=BMM_LAYOUTS, pools={"beta": [0, 0.5], "alpha": [-1.5, 2]},
          extra=[{"self": TensorSpec("float32", shape=(3, 1))}],
          bad=[{"batch2": TensorSpec("float32", shape=(3, 4, 5))}, {"self": TensorSpec("float32", shape=(4, 5))}])
      for form in ("", ".out")],
    Row("baddbmm_", dtypes=("float32", "float64"), shapes={"self": (2, 3, 5), "batch1": (2, 3, 4), "batch2": (2, 4, 5)},
        layouts=("contiguous", "sliced"), pools={"beta": [0, 2], "alpha": [-1.5]}),
    Row("addbmm", dtypes=MM_DTYPES, shapes={"self": (3, 5), "batch1": (2, 3, 4), "batch2": (2, 4, 5)},
        layouts=BMM_LAYOUTS, pools={"beta": [0, 0.5], "alpha": [-1.5, 2]},
        bad=[{"batch2": TensorSpec("float32", shape=(3, 4, 5))}]),
    *[Row(f"mv{form}", dtypes=MM_DTYPES, shapes={"self": (3, 4), "vec": (4,)}, out_layouts=NO_BROADCAST_OUT,
          extra=[{"self": TensorSpec("float32", shape=(300, 200)), "vec": TensorSpec("float32", "sliced", (200,))}],
          bad=[{"vec": TensorSpec("float32", shape=(5,))}, {"vec": TensorSpec("float32", shape=(4, 1))},
               {"vec": TensorSpec("float64", shape=(4,))}])
      for form in ("", ".out")],
    *[Row(f"addmv{form}", dtypes=MM_DTYPES, shapes={"self": (3,), "mat": (3, 4), "vec": (4,)},
          pools={"beta": [0, 0.5], "alpha": [-1.5, 2]},
          bad=[{"vec": TensorSpec("float32", shape=(5,))}, {"self": TensorSpec("float32", shape=(4,))}])
      for form in ("", ".out")],
    *[Row(op, dtypes=MM_DTYPES, shape=(5,),
          extra=[{"self": TensorSpec("float64", "sliced", (300,)), "tensor" if op == "dot" else "other":
                  TensorSpec("float64", shape=(300,))}],
          bad=[{"self": TensorSpec("float32", shape=(4,))}, {"self": TensorSpec("float32", shape=(5, 1))},
               {"self": TensorSpec("float64", shape=(5,))}])
      for op in ("dot", "vdot")],
    *[Row(op, dtypes=("float32", "float64", "int64", "bool", "complex64"), shapes={"self": (3,), "vec2": (4,)},
          bad=[{"self": TensorSpec("float32", shape=(3, 1))}])
      for op in ("outer", "ger")],
    Row("matmul", dtypes=MM_DTYPES, shapes={"self": (3, 4), "other": (4, 5)},
        layouts=("contiguous", "transposed", "sliced", "empty"),
        extra=[{"self": TensorSpec("float32", shape=s1), "other": TensorSpec("float32", shape=s2)}
               for s1, s2 in MATMUL_SHAPES],
        bad=[{"other": TensorSpec("float32", shape=(5, 5))}, {"self": TensorSpec("float32", "0-d", ())},
             {"self": TensorSpec("float32", shape=(2, 3, 4)), "other": TensorSpec("float32", shape=(3, 4, 5))}]),
    Row("linear", dtypes=("float32", "float64"), shapes={"input": (3, 4), "weight": (5, 4), "bias": (5,)},
        layouts=("contiguous", "transposed", "sliced"),
        extra=[{"bias": None}, {"input": TensorSpec("float32", shape=(2, 3, 4))},
               {"input": TensorSpec("float32", shape=(4,)), "weight": TensorSpec("float32", shape=(4,)), "bias": None}],
        bad=[{"weight": TensorSpec("float32", shape=(5, 3))}]),
    # tensordot's schema form; PyTorch's Python signature (dims=) is tested in test_linalg_nn.py.
    Row("tensordot", dtypes=("float32", "float64", "int64"), shapes={"self": (3, 4, 2), "other": (4, 3, 5)},
        layouts=("contiguous", "transposed", "sliced"),
        pools={"dims_self": [(0, 1)], "dims_other": [(1, 0)]},
        extra=[{"dims_self": (), "dims_other": ()}, {"dims_self": (1, -3), "dims_other": (0, 1)}],
        bad=[{"dims_self": (0,), "dims_other": (0,)}, {"dims_self": (0, 1), "dims_other": (1,)},
             {"dims_self": (0, 0), "dims_other": (1, 0)}],
        torch_function=torch.ops.aten.tensordot, torch_ops=True, keywords=False, generic_bad=False,
        ember_function=lambda *a, **k: ember._C._functions.tensordot(*a, **k)),
    Row("einsum", dtypes=("float32", "float64", "int64"), keywords=False, generic_bad=False,
        pools={"equation": ["ij,jk->ik", "ij,jk", "ij,ij->i", "ii,ij->j", "ij,kj->ik"],
               "tensors": [(TensorSpec("float32", shape=(3, 3)), TensorSpec("float32", shape=(3, 3))),
                           (TensorSpec("float64", "transposed", (3, 3)), TensorSpec("float64", "sliced", (3, 3)))],
               "path": [None]},
        extra=[*[{"equation": eq, "tensors": (TensorSpec("float32", shape=(3, 3)),)}
                 for eq in ("ij->ji", "ii->i", "ii", "i...->...", "ij->")],
               {"equation": "bij,bjk->bik", "tensors": (TensorSpec("float32", shape=(2, 3, 4)), TensorSpec("float32", shape=(2, 4, 5)))},
               {"equation": "i,i->", "tensors": (TensorSpec("int64", shape=(4,)), TensorSpec("int64", shape=(4,)))},
               {"equation": "...ij,...jk", "tensors": (TensorSpec("float32", shape=(2, 3, 4)), TensorSpec("float32", shape=(4, 2)))},
               {"equation": "ij,jk,kl->il", "tensors": (TensorSpec("float32", shape=(2, 3)), TensorSpec("float32", shape=(3, 4)),
                                                         TensorSpec("float32", shape=(4, 2)))}],
        torch_function=torch_einsum,
        bad=[{"equation": "ij,jk->ik", "tensors": (TensorSpec("float32", shape=(3, 3)),)},
             {"equation": "ijk,jk->ik"}, {"equation": "ij->k"}, {"equation": "i1,jk"}]),
    Row("kron", dtypes=("float32", "float64", "int64", "bool"), shapes={"self": (2, 3), "other": (3, 2)},
        extra=[{"other": TensorSpec("float32", shape=(2, 2, 2))}]),
    # ---- (section end) ----
    # ---- softmax ----
    *[Row(f"{op}", dtypes=FLOATS, pools={"dim": [0, 1, -1], "half_to_float": [False]},
          extra=SOFTMAX_EXTRA, bad=[{"dim": 2}, {"self": TensorSpec("int64")}, {"half_to_float": True}],
          torch_function=getattr(torch.ops.aten, op), torch_ops=True)
      for op in ("_softmax", "_log_softmax")],
    *[Row(f"{op}.int", dtypes=FLOATS, pools={"dim": [0, 1, -1], "dtype": [Dt("float64")]},
          extra=SOFTMAX_EXTRA + [{"self": TensorSpec("int64"), "dtype": Dt("float32")}],
          bad=[{"dim": 2}, {"self": TensorSpec("int64")}])
      for op in ("softmax", "log_softmax")],
    *[Row(f"{op}", dtypes=("float32", "float64"), pools={"dim": [0, 1, -1], "input_dtype": [Dt("float64"), Dt("float32")]},
          values={"output": "prob"},
          extra=[{"grad_output": TensorSpec("float32", shape=(64, 300)), "output": TensorSpec("float32", shape=(64, 300), values="prob"), "dim": 1},
                 {"grad_output": TensorSpec("float64", shape=(2, 3, 5)), "output": TensorSpec("float64", shape=(2, 3, 5), values="prob"), "dim": 1}],
          # PyTorch does not check that grad_output and output agree (mismatched shapes crash
          # it with SIGFPE); Ember refuses them (test_linalg_nn.py).
          layouts=("contiguous", "transposed", "sliced"),
          bad=[{"dim": 2}], torch_function=getattr(torch.ops.aten, op), torch_ops=True, generic_bad=False)
      for op in ("_softmax_backward_data", "_log_softmax_backward_data")],
    # ---- (section end) ----
    # ---- nn composites ----
    Row("embedding", dtypes=("float32", "float64", "int64"), shapes={"weight": (5, 3), "indices": (2, 3)},
        arg_dtypes={"indices": ("int64", "int32")}, values={"indices": "index3"},
        layouts=("contiguous", "transposed", "sliced", "0-d", "empty"),
        pools={"padding_idx": [1], "scale_grad_by_freq": [True]},
        bad=[{"indices": TensorSpec("float32", shape=(2, 3), values="index3")},
             {"indices": TensorSpec("int64", shape=(2, 3), values="big")},
             {"weight": TensorSpec("float32", shape=(5,))}], self_keyword="weight", generic_bad=False),
    Row("embedding_dense_backward", dtypes=("float32", "float64"),
        shapes={"grad_output": (2, 3, 4), "indices": (2, 3)}, arg_dtypes={"indices": ("int64",)},
        values={"indices": "index3"}, layouts=("contiguous", "transposed", "sliced"),
        pools={"num_weights": [5], "padding_idx": [-1, 1], "scale_grad_by_freq": [False, True]},
        torch_function=torch.ops.aten.embedding_dense_backward, torch_ops=True, keywords=False, generic_bad=False),
    Row("one_hot", dtypes=("int64",), values={"self": "index3"}, pools={"num_classes": [4, 3]},
        layouts=("contiguous", "transposed", "sliced", "0-d"),
        bad=[{"self": TensorSpec("int64", values="big"), "num_classes": 4}, {"self": TensorSpec("int32", values="index3")},
             {"self": TensorSpec("int64", "empty", (0, 4))}], generic_bad=False),
    *[Row(op, dtypes=("float32", "float64"), pools={"p": [0.0, 1.0], "train": [False, True]},
          layouts=INPLACE_LAYOUTS if op.endswith("_") and "feature" not in op else
          ("contiguous", "transposed", "sliced") + (() if "feature" in op else ("0-d", "empty")),
          bad=[{"p": 1.5}, {"p": -0.5, "train": True}], generic_bad=False)
      for op in ("dropout", "dropout_", "feature_dropout", "feature_dropout_", "alpha_dropout", "alpha_dropout_",
                 "feature_alpha_dropout")],
    Row("pixel_shuffle", dtypes=("float32", "int64", "bool"), shape=(2, 8, 2, 3), pools={"upscale_factor": [2, 1]},
        layouts=("contiguous", "sliced"), bad=[{"upscale_factor": 3}, {"self": TensorSpec("float32", shape=(3, 4))}],
        generic_bad=False),
    Row("pixel_unshuffle", dtypes=("float32", "int64", "bool"), shape=(2, 2, 4, 6), pools={"downscale_factor": [2, 1]},
        layouts=("contiguous", "sliced"), bad=[{"downscale_factor": 3}, {"self": TensorSpec("float32", shape=(3, 4))}],
        generic_bad=False),
    Row("cosine_similarity", dtypes=("float32", "float64"), pools={"dim": [1, 0, -1], "eps": [1e-8, 0.5]},
        layouts=("contiguous", "transposed", "sliced", "broadcast"), values={"x1": "nonzero", "x2": "nonzero"},
        extra=[{"x2": TensorSpec("float32", shape=(4,), values="nonzero")}], bad=[{"dim": 2}], generic_bad=False),
    Row("pairwise_distance", dtypes=("float32", "float64"), pools={"p": [2.0, 1.0, 3.0], "eps": [1e-6, 0.0],
                                                                  "keepdim": [True]},
        layouts=("contiguous", "transposed", "sliced", "broadcast"), generic_bad=False),
    Row("cdist", dtypes=("float32", "float64"), shapes={"x1": (3, 4), "x2": (5, 4)}, pools={"p": [2.0, 1.0, 0.0, 3.0]},
        layouts=("contiguous", "transposed", "sliced"),
        extra=[{"x1": TensorSpec("float32", shape=(2, 3, 4)), "x2": TensorSpec("float32", shape=(2, 5, 4))}],
        bad=[{"x2": TensorSpec("float32", shape=(5, 3))}, {"p": -1.0}], generic_bad=False, keywords=False,
        torch_function=torch.ops.aten.cdist, torch_ops=True),
    # ---- (section end) ----
    # ---- pooling ----
    *[Row(f"max_pool{n}d_with_indices", dtypes=("float32", "float64", "bfloat16", "int64", "uint8"), shape=shape,
          layouts=("contiguous", "transposed", "sliced"), values={"self": "ties"},
          pools={"kernel_size": [2, (2,) * n], "stride": [(), 1, (2,) * n], "padding": [0, 1],
                 "dilation": [1, 2], "ceil_mode": [True]},
          extra=[{"self": TensorSpec("float32", values="nan", shape=shape)},
                 {"self": TensorSpec("float32", shape=shape[1:])}],
          bad=[{"kernel_size": 0}, {"padding": 2}, {"self": TensorSpec("bool", shape=shape)},
               {"kernel_size": 9}], generic_bad=False, keywords=False,
          torch_function=getattr(torch.ops.aten, f"max_pool{n}d_with_indices"), torch_ops=True)
      for n, shape in ((2, (2, 3, 5, 6)), (3, (1, 2, 4, 5, 3)))],
    *[Row(f"avg_pool{n}d", dtypes=("float32", "float64") + (("bfloat16",) if n == 2 else ()), shape=shape,
          layouts=("contiguous", "transposed", "sliced"),
          pools={"kernel_size": [2, (2,) * n], "stride": [(), 1], "padding": [0, 1], "ceil_mode": [True],
                 "count_include_pad": [False], "divisor_override": [3]},
          extra=[{"self": TensorSpec("float32", shape=shape[1:])},
                 {"kernel_size": 3, "stride": 2, "padding": 1, "ceil_mode": True, "count_include_pad": False}],
          bad=[{"kernel_size": 0}, {"padding": 2}, {"divisor_override": 0}], generic_bad=False, keywords=False,
          torch_function=getattr(torch.ops.aten, f"avg_pool{n}d"), torch_ops=True)
      for n, shape in ((2, (2, 3, 5, 6)), (3, (1, 2, 4, 5, 3)))],
    *[Row(f"max_pool{n}d_with_indices_backward", dtypes=("float32", "float64"),
          shapes={"grad_output": out, "self": shape, "indices": out}, arg_dtypes={"indices": ("int64",)},
          values={"indices": "index3"}, layouts=("contiguous", "transposed", "sliced"),
          pools={"kernel_size": [2], "stride": [2], "padding": [0], "dilation": [1], "ceil_mode": [False]},
          generic_bad=False, keywords=False,
          torch_function=getattr(torch.ops.aten, f"max_pool{n}d_with_indices_backward"), torch_ops=True)
      for n, shape, out in ((2, (2, 3, 5, 6), (2, 3, 2, 3)), (3, (1, 2, 4, 5, 3), (1, 2, 2, 2, 1)))],
    *[Row(f"avg_pool{n}d_backward", dtypes=("float32", "float64"),
          shapes={"grad_output": out, "self": shape}, layouts=("contiguous", "transposed", "sliced"),
          pools={"kernel_size": [2], "stride": [2], "padding": [0], "ceil_mode": [False],
                 "count_include_pad": [True, False], "divisor_override": [None, 3]},
          bad=[{"grad_output": TensorSpec("float32", shape=shape)}], generic_bad=False, keywords=False,
          torch_function=getattr(torch.ops.aten, f"avg_pool{n}d_backward"), torch_ops=True)
      for n, shape, out in ((2, (2, 3, 5, 6), (2, 3, 2, 3)), (3, (1, 2, 4, 5, 3), (1, 2, 2, 2, 1)))],
    # ---- (section end) ----
    # ---- losses ----
    Row("nll_loss_forward", dtypes=("float32", "float64"), shapes={"target": (3,), "weight": (4,)},
        arg_dtypes={"target": ("int64", "uint8")}, values={"target": "index3", "weight": "weights"},
        layouts=("contiguous", "transposed", "sliced"),
        pools={"reduction": [0, 1, 2], "ignore_index": [-100, 1]},
        extra=NLL_EXTRA + [NLL_F64], bad=NLL_BAD, torch_function=torch.ops.aten.nll_loss_forward, torch_ops=True,
        generic_bad=False),
    Row("nll_loss_backward", dtypes=("float32", "float64"),
        shapes={"grad_output": (), "target": (3,), "weight": (4,), "total_weight": ()},
        arg_dtypes={"target": ("int64",)}, values={"target": "index3", "weight": "weights", "total_weight": "nonzero"},
        layouts=("contiguous", "sliced"), pools={"reduction": [1, 2], "ignore_index": [-100, 1]},
        extra=[{"grad_output": TensorSpec("float32", shape=(3,)), "reduction": 0},
               {**NLL_F64, "grad_output": TensorSpec("float64", shape=()),
                "total_weight": TensorSpec("float64", shape=(), values="nonzero")}],
        bad=[{"grad_output": TensorSpec("float32", shape=(2,)), "reduction": 0}],
        torch_function=torch.ops.aten.nll_loss_backward, torch_ops=True, generic_bad=False, keywords=False),
    Row("nll_loss", dtypes=("float32", "float64"), shapes={"target": (3,), "weight": (4,)},
        arg_dtypes={"target": ("int64",)}, values={"target": "index3", "weight": "weights"},
        layouts=("contiguous", "sliced"), pools={"reduction": [0, 1, 2], "ignore_index": [-100, 0]},
        extra=NLL_EXTRA, bad=NLL_BAD, generic_bad=False, torch_function=mean_by_default(torch._C._nn.nll_loss, 3)),
    Row("cross_entropy_loss", dtypes=("float32", "float64"), shapes={"target": (3,), "weight": (4,)},
        arg_dtypes={"target": ("int64",)}, values={"target": "index3", "weight": "weights"},
        layouts=("contiguous", "transposed", "sliced"),
        pools={"reduction": [0, 1, 2], "ignore_index": [-100, 2], "label_smoothing": [0.0, 0.2]},
        extra=NLL_EXTRA + [ND_TARGET,
            {"target": TensorSpec("float32", shape=(3, 4), values="prob")},
            {"target": TensorSpec("float32", shape=(3, 4), values="prob"), "label_smoothing": 0.3, "reduction": 0},
            {"target": TensorSpec("float32", shape=(3, 4), values="prob"), "weight": TensorSpec("float32", shape=(4,), values="weights")},
            {"label_smoothing": 0.1, "weight": TensorSpec("float32", shape=(4,), values="weights"), "ignore_index": 1}],
        bad=NLL_BAD + [{"label_smoothing": 1.5}], generic_bad=False,
        torch_function=mean_by_default(torch._C._nn.cross_entropy_loss, 3)),
    *[Row(op, dtypes=("float32", "float64"), pools={"reduction": [0, 1, 2], **extra_pool},
          extra=[{"target": TensorSpec("float32", "broadcast")}, {"self": TensorSpec("float32", "empty", (0, 4)),
                                                                   "target": TensorSpec("float32", "empty", (0, 4))}],
          torch_function=mean_by_default(getattr(torch._C._nn, op), 2),
          bad=[{"target": TensorSpec("float32", shape=(2, 4))}] + extra_bad, generic_bad=False)
      for op, extra_pool, extra_bad in (("mse_loss", {}, []), ("l1_loss", {}, []),
                                        ("smooth_l1_loss", {"beta": [0.0, 0.5, 2.0]}, [{"beta": -1.0}]),
                                        ("huber_loss", {"delta": [0.5, 2.0]}, [{"delta": 0.0}]))],
    Row("binary_cross_entropy", dtypes=("float32", "float64"), values={"self": "prob", "target": "prob", "weight": "weights"},
        shapes={"weight": (4,)}, pools={"reduction": [0, 1, 2]}, layouts=("contiguous", "transposed", "sliced"),
        bad=[{"self": TensorSpec("float32", values="badprob")}, {"target": TensorSpec("float32", shape=(2, 4), values="prob")}],
        generic_bad=False, torch_function=mean_by_default(torch._C._nn.binary_cross_entropy, 3)),
    Row("binary_cross_entropy_with_logits", dtypes=("float32", "float64"),
        values={"target": "prob", "weight": "weights", "pos_weight": "weights"}, shapes={"weight": (4,), "pos_weight": (4,)},
        pools={"reduction": [0, 1, 2]}, layouts=("contiguous", "transposed", "sliced"),
        extra=[{"self": TensorSpec("float32", values="edge")}],
        bad=[{"target": TensorSpec("float32", shape=(2, 4), values="prob")}], generic_bad=False, torch_function=mean_by_default(torch.binary_cross_entropy_with_logits, 4)),
    Row("kl_div", dtypes=("float32", "float64"), values={"target": "prob"}, pools={"reduction": [0, 1, 2], "log_target": [True]},
        layouts=("contiguous", "transposed", "sliced"), generic_bad=False, torch_function=mean_by_default(torch.kl_div, 2)),
    Row("margin_ranking_loss", dtypes=("float32", "float64"), values={"target": "unit"},
        pools={"margin": [0.0, 0.5], "reduction": [0, 1, 2]}, layouts=("contiguous", "transposed", "sliced"),
        generic_bad=False, torch_function=mean_by_default(torch.margin_ranking_loss, 4)),
    Row("cosine_embedding_loss", dtypes=("float32", "float64"), shapes={"target": (3,)},
        values={"target": "sign"}, pools={"margin": [0.0, 0.5], "reduction": [0, 1, 2]},
        layouts=("contiguous", "transposed", "sliced"),
        extra=[{"input1": TensorSpec("float32", shape=(4,)), "input2": TensorSpec("float32", shape=(4,)),
                "target": TensorSpec("float32", "0-d", (), "sign")}],
        bad=[{"target": TensorSpec("float32", shape=(3, 4))}], generic_bad=False, torch_function=mean_by_default(torch.cosine_embedding_loss, 4)),
    Row("triplet_margin_loss", dtypes=("float32", "float64"),
        pools={"margin": [0.0, 1.0], "p": [1.0, 2.0, 3.0], "swap": [True], "reduction": [0, 1, 2]},
        layouts=("contiguous", "transposed", "sliced"),
        bad=[{"negative": TensorSpec("float32", shape=(4,))}], generic_bad=False, torch_function=mean_by_default(torch.triplet_margin_loss, 7)),
    # ---- (section end) ----
    # ---- convolution and normalization ----
    Row("convolution", dtypes=("float32", "float64"),
        shapes={"input": (2, 4, 6, 5), "weight": (6, 2, 3, 2), "bias": (6,)},
        layouts=("contiguous", "transposed", "sliced"),
        pools={"stride": [(1, 1), (2, 1)], "padding": [(0, 0), (1, 2)], "dilation": [(1, 1), (2, 1)],
               "transposed": [False], "output_padding": [(0, 0)], "groups": [2]},
        extra=[{"weight": TensorSpec("float32", shape=(6, 4, 1, 1)), "groups": 1},
               {"input": TensorSpec("float32", shape=(2, 4, 7)), "weight": TensorSpec("float32", shape=(6, 2, 3)),
                "stride": (2,), "padding": (1,), "dilation": (1,), "output_padding": (0,)},
               {"input": TensorSpec("float64", shape=(1, 4, 3, 4, 3)), "weight": TensorSpec("float64", shape=(6, 2, 2, 2, 2)),
                "bias": TensorSpec("float64", shape=(6,)), "stride": (1, 1, 1), "padding": (1, 0, 1),
                "dilation": (1, 1, 1), "output_padding": (0, 0, 0)},
               {"weight": TensorSpec("float32", shape=(4, 3, 3, 2)), "transposed": True, "stride": (2, 1),
                "output_padding": (1, 0)},
               {"weight": TensorSpec("float32", shape=(4, 3, 3, 2)), "transposed": True, "padding": (1, 0),
                "dilation": (2, 1)},
               {"input": TensorSpec("float32", shape=(0, 4, 6, 5))}],
        bad=[{"groups": 3}, {"bias": TensorSpec("float32", shape=(5,))}, {"stride": (0, 1)}, {"padding": (-1, 0)},
             {"weight": TensorSpec("float32", shape=(6, 2, 7, 2))}, {"input": TensorSpec("float32", shape=(4, 6, 5))},
             {"weight": TensorSpec("float32", shape=(4, 3, 3, 2)), "transposed": True, "output_padding": (1, 1)}],
        generic_bad=False, keywords=False, torch_function=torch.ops.aten.convolution.default, torch_ops=True),
    Row("convolution_backward", dtypes=("float32", "float64"),
        shapes={"grad_output": (2, 6, 4, 4), "input": (2, 4, 6, 5), "weight": (6, 2, 3, 2)},
        layouts=("contiguous", "transposed", "sliced"),
        pools={"bias_sizes": [(6,), None], "stride": [(1, 1)], "padding": [(0, 0)], "dilation": [(1, 1)],
               "transposed": [False], "output_padding": [(0, 0)], "groups": [2],
               "output_mask": [(True, True, True), (True, False, False), (False, True, True)]},
        extra=[{"grad_output": TensorSpec("float64", shape=(2, 6, 2, 4)), "input": TensorSpec("float64", shape=(2, 4, 6, 5)),
                "weight": TensorSpec("float64", shape=(6, 2, 3, 2)), "stride": (2, 1), "padding": (1, 0)},
               {"grad_output": TensorSpec("float32", shape=(2, 6, 8, 6)), "input": TensorSpec("float32", shape=(2, 4, 6, 5)),
                "weight": TensorSpec("float32", shape=(4, 3, 3, 2)), "transposed": True, "bias_sizes": None}],
        bad=[{"grad_output": TensorSpec("float32", shape=(2, 6, 4, 3))}, {"groups": 3}],
        generic_bad=False, keywords=False, torch_function=torch.ops.aten.convolution_backward.default, torch_ops=True),
    Row("native_batch_norm", dtypes=("float32", "float64"),
        shapes={"input": (4, 3, 5), "weight": (3,), "bias": (3,), "running_mean": (3,), "running_var": (3,)},
        values={"running_var": "prob"}, layouts=("contiguous", "transposed", "sliced"),
        pools={"training": [True, False], "momentum": [0.1, 0.5], "eps": [1e-5, 0.1]},
        extra=[{"input": TensorSpec("float32", shape=(6, 3))}, {"input": TensorSpec("float64", shape=(2, 3, 2, 2, 3)),
               "weight": TensorSpec("float64", shape=(3,)), "bias": TensorSpec("float64", shape=(3,)),
               "running_mean": TensorSpec("float64", shape=(3,)), "running_var": TensorSpec("float64", shape=(3,), values="prob")},
               {"running_mean": None, "running_var": None}, {"weight": None, "bias": None}],
        # (eval without running statistics crashes PyTorch's kernel: test_conv_norm.py checks Ember's error)
        bad=[{"weight": TensorSpec("float64", shape=(3,))}],
        generic_bad=False, keywords=False, torch_function=torch.ops.aten.native_batch_norm.default, torch_ops=True),
    Row("native_batch_norm_backward", dtypes=("float32", "float64"),
        shapes={"grad_out": (4, 3, 5), "input": (4, 3, 5), "weight": (3,), "running_mean": (3,), "running_var": (3,),
                "save_mean": (3,), "save_invstd": (3,)},
        values={"running_var": "prob", "save_invstd": "prob"}, layouts=("contiguous", "transposed", "sliced"),
        pools={"train": [True, False], "eps": [1e-5], "output_mask": [(True, True, True), (True, False, False),
                                                                      (False, True, True)]},
        extra=[{"weight": None}],
        bad=[{"weight": TensorSpec("float64", shape=(3,))}],
        generic_bad=False, keywords=False, torch_function=torch.ops.aten.native_batch_norm_backward.default, torch_ops=True),
    Row("batch_norm", dtypes=("float32", "float64"),
        shapes={"input": (4, 3, 5), "weight": (3,), "bias": (3,), "running_mean": (3,), "running_var": (3,)},
        values={"running_var": "prob"}, layouts=("contiguous", "transposed", "sliced"),
        pools={"training": [True, False], "momentum": [0.1], "eps": [1e-5], "cudnn_enabled": [False]},
        bad=[{"bias": TensorSpec("float32", shape=(2,))}], generic_bad=False, keywords=False),
    Row("instance_norm", dtypes=("float32", "float64"),
        shapes={"input": (2, 3, 5), "weight": (3,), "bias": (3,), "running_mean": (3,), "running_var": (3,)},
        values={"running_var": "prob"}, layouts=("contiguous", "transposed", "sliced"),
        pools={"use_input_stats": [True, False], "momentum": [0.1], "eps": [1e-5], "cudnn_enabled": [False]},
        arg_dtypes={"running_mean": ("float32",), "running_var": ("float32",)},
        extra=[{"running_mean": None, "running_var": None}],
        bad=[{"weight": TensorSpec("float32", shape=(2,))}], generic_bad=False, keywords=False),
    Row("native_layer_norm", dtypes=("float32", "float64"),
        shapes={"input": (2, 3, 4), "weight": (4,), "bias": (4,)}, layouts=("contiguous", "transposed", "sliced"),
        pools={"normalized_shape": [(4,)], "eps": [1e-5, 0.5]},
        extra=[{"normalized_shape": (3, 4), "weight": TensorSpec("float32", shape=(3, 4)),
                "bias": TensorSpec("float32", shape=(3, 4))}, {"weight": None, "bias": None},
               {"input": TensorSpec("float32", shape=(0, 4))}],
        bad=[{"normalized_shape": (3,)}, {"weight": TensorSpec("float32", shape=(3,))}],
        generic_bad=False, keywords=False, torch_function=torch.ops.aten.native_layer_norm.default, torch_ops=True),
    Row("native_layer_norm_backward", dtypes=("float32", "float64"),
        shapes={"grad_out": (2, 3, 4), "input": (2, 3, 4), "mean": (2, 3, 1), "rstd": (2, 3, 1), "weight": (4,),
                "bias": (4,)},
        # Contiguous statistics and weights only: PyTorch's kernel reads them ignoring strides.
        values={"rstd": "prob"}, layouts=("contiguous",),
        pools={"normalized_shape": [(4,)], "output_mask": [(True, True, True), (True, False, False), (False, True, True)]},
        extra=[{"grad_out": TensorSpec("float32", "transposed", (2, 3, 4))},
               {"input": TensorSpec("float32", "sliced", (2, 3, 4))}],
        bad=[{"weight": TensorSpec("float32", shape=(5,))}],
        generic_bad=False, keywords=False, torch_function=torch.ops.aten.native_layer_norm_backward.default, torch_ops=True),
    Row("layer_norm", dtypes=("float32", "float64"), shapes={"input": (2, 3, 4), "weight": (4,), "bias": (4,)},
        layouts=("contiguous", "transposed", "sliced"), pools={"normalized_shape": [(4,)], "eps": [1e-5]},
        bad=[{"normalized_shape": (5,)}], generic_bad=False),
    Row("native_group_norm", dtypes=("float32", "float64"),
        # Contiguous tensors only: PyTorch's kernel refuses other inputs and ignores weight strides.
        shapes={"input": (2, 4, 3), "weight": (4,), "bias": (4,)}, layouts=("contiguous",),
        pools={"N": [2], "C": [4], "HxW": [3], "group": [2, 4, 1], "eps": [1e-5]},
        extra=[{"weight": None, "bias": None}],
        bad=[{"group": 3}, {"C": 3}], generic_bad=False, keywords=False,
        torch_function=torch.ops.aten.native_group_norm.default, torch_ops=True),
    Row("native_group_norm_backward", dtypes=("float32", "float64"),
        shapes={"grad_out": (2, 4, 3), "input": (2, 4, 3), "mean": (2, 2), "rstd": (2, 2), "weight": (4,)},
        values={"rstd": "prob"}, layouts=("contiguous",),
        pools={"N": [2], "C": [4], "HxW": [3], "group": [2],
               "output_mask": [(True, True, True), (True, False, False), (False, True, True)]},
        bad=[{"group": 3}], generic_bad=False, keywords=False,
        torch_function=torch.ops.aten.native_group_norm_backward.default, torch_ops=True),
    Row("_fused_lstm_cell", dtypes=("float32", "float64"), shapes={"gates": (3, 20), "cx": (3, 5)},
        layouts=("contiguous", "transposed", "sliced"),
        extra=[{"gates": TensorSpec("float32", shape=(0, 8)), "cx": TensorSpec("float32", shape=(0, 2))},
               {"gates": TensorSpec("float64", shape=(4, 64)), "cx": TensorSpec("float64", shape=(4, 16))},
               {"gates": TensorSpec("float32", values="edge", shape=(3, 4)), "cx": TensorSpec("float32", shape=(3, 1))}],
        bad=[{"cx": TensorSpec("float32", shape=(3, 4))}, {"gates": TensorSpec("float32", shape=(3, 18))},
             {"cx": TensorSpec("float64", shape=(3, 5))}, {"gates": TensorSpec("int64", shape=(3, 20))}],
        generic_bad=False, keywords=False, torch_function=torch_fused_lstm_cell),
    Row("_fused_lstm_cell_backward", dtypes=("float32", "float64"),
        shapes={"grad_hy": (3, 5), "grad_cy": (3, 5), "cx": (3, 5), "cy": (3, 5), "workspace": (3, 20)},
        values={"workspace": "prob"}, layouts=("contiguous", "transposed", "sliced"),
        pools={"output_mask": [(True, True), (True, False), (False, True)]},
        extra=[{"grad_hy": None}, {"grad_cy": None}, {"grad_hy": None, "grad_cy": None},
               {"workspace": TensorSpec("float64", shape=(4, 64), values="prob"), "cx": TensorSpec("float64", shape=(4, 16)),
                "cy": TensorSpec("float64", shape=(4, 16)), "grad_hy": TensorSpec("float64", shape=(4, 16)),
                "grad_cy": TensorSpec("float64", shape=(4, 16))}],
        bad=[{"cy": TensorSpec("float32", shape=(3, 4))}, {"workspace": TensorSpec("float32", shape=(3, 18))},
             {"grad_hy": TensorSpec("float32", shape=(2, 5))}],
        generic_bad=False, keywords=False, torch_function=torch_fused_lstm_cell_backward),
    Row("_lstm_layer", dtypes=("float32", "float64"),
        shapes={"input_gates": (3, 2, 8), "h0": (2, 2), "c0": (2, 2), "weight_hh": (8, 2)},
        layouts=("contiguous", "transposed", "sliced"), pools={"reverse": [False, True]},
        extra=[{"input_gates": TensorSpec("float32", shape=(0, 2, 8))},
               {"input_gates": TensorSpec("float32", shape=(3, 0, 8)), "h0": TensorSpec("float32", shape=(0, 2)),
                "c0": TensorSpec("float32", shape=(0, 2))},
               {"input_gates": TensorSpec("float64", shape=(5, 3, 40)), "h0": TensorSpec("float64", shape=(3, 10)),
                "c0": TensorSpec("float64", shape=(3, 10)), "weight_hh": TensorSpec("float64", shape=(40, 10)),
                "reverse": True}],
        bad=[{"weight_hh": TensorSpec("float32", shape=(8, 3))}, {"h0": TensorSpec("float32", shape=(3, 2))},
             {"c0": TensorSpec("float64", shape=(2, 2))}, {"input_gates": TensorSpec("float32", shape=(3, 2, 7))},
             {"input_gates": TensorSpec("int64", shape=(3, 2, 8))}],
        generic_bad=False, keywords=False, torch_function=torch_lstm_layer),
    Row("_lstm_layer_backward", dtypes=("float32", "float64"),
        shapes={"grad_output": (3, 2, 2), "grad_hn": (2, 2), "grad_cn": (2, 2), "h0": (2, 2), "c0": (2, 2),
                "weight_hh": (8, 2), "output": (3, 2, 2), "workspace": (3, 2, 8), "cells": (3, 2, 2)},
        values={"workspace": "prob"}, layouts=("contiguous", "transposed", "sliced"),
        pools={"reverse": [False, True],
               "output_mask": [(True, True, True, True), (True, False, False, False), (False, False, False, True)]},
        extra=[{"grad_output": None}, {"grad_hn": None, "grad_cn": None},
               {"grad_output": None, "grad_hn": None, "grad_cn": None},
               {"grad_output": TensorSpec("float32", shape=(0, 2, 2)), "output": TensorSpec("float32", shape=(0, 2, 2)),
                "workspace": TensorSpec("float32", shape=(0, 2, 8), values="prob"),
                "cells": TensorSpec("float32", shape=(0, 2, 2))}],
        bad=[{"cells": TensorSpec("float32", shape=(2, 2, 2))}, {"weight_hh": TensorSpec("float32", shape=(8, 3))},
             {"grad_output": TensorSpec("float64", shape=(3, 2, 2))}],
        generic_bad=False, keywords=False, torch_function=torch_lstm_layer_backward),
    Row("group_norm", dtypes=("float32", "float64"), shapes={"input": (2, 4, 3), "weight": (4,), "bias": (4,)},
        layouts=("contiguous", "transposed", "sliced"), pools={"num_groups": [2, 4], "eps": [1e-5]},
        bad=[{"num_groups": 3}], generic_bad=False),
    Row("rms_norm", dtypes=("float32", "float64"), shapes={"input": (2, 3, 4), "weight": (4,)},
        layouts=("contiguous", "transposed", "sliced"), pools={"normalized_shape": [(4,)], "eps": [None, 1e-3]},
        extra=[{"weight": None}, {"normalized_shape": (3, 4), "weight": TensorSpec("float32", shape=(3, 4))}],
        bad=[{"normalized_shape": (5,)}], generic_bad=False),
    # ---- (section end) ----
    # ---- grid sampling and CTC ----
    # grid_sampler_2d(_backward): every (interpolation_mode, padding_mode, align_corners), an empty
    # batch; the backward asks for both gradients (PyTorch computes grad_grid even where
    # output_mask[1] is False, Ember leaves it undefined; a None result is not comparable here).
    *[Row(op, dtypes=("float32", "float64"), shapes=shapes, values={"grid": "grid"},
          layouts=("contiguous", "transposed", "sliced", "broadcast"),
          pools={"interpolation_mode": [0, 1, 2], "padding_mode": [0, 1, 2], **mask},
          extra=[{"interpolation_mode": m, "padding_mode": p, "align_corners": a}
                 for m in (0, 1, 2) for p in (0, 1, 2) for a in (False, True)] + extra,
          bad=[{"grid": TensorSpec("float32", shape=(2, 3, 4, 3), values="grid")},
               {"grid": TensorSpec("float32", shape=(3, 3, 4, 2), values="grid")},
               {"grid": TensorSpec("float64", shape=(2, 3, 4, 2), values="grid")},
               {"input": TensorSpec("float32", shape=(2, 3, 0, 6))},
               {"input": TensorSpec("int64", shape=(2, 3, 5, 6))}],
          generic_bad=False, keywords=False, torch_function=getattr(torch.ops.aten, op), torch_ops=True)
      for op, shapes, mask, extra in (
          ("grid_sampler_2d", {"input": (2, 3, 5, 6), "grid": (2, 3, 4, 2)}, {},
           [{"input": TensorSpec("float32", shape=(0, 3, 5, 6)), "grid": TensorSpec("float32", shape=(0, 3, 4, 2), values="grid")},
            {"input": TensorSpec("float64", "sliced", (3, 5, 9, 7)), "grid": TensorSpec("float64", "transposed", (3, 8, 6, 2), "grid"),
             "interpolation_mode": 2, "padding_mode": 2}]),
          ("grid_sampler_2d_backward", {"grad_output": (2, 3, 3, 4), "input": (2, 3, 5, 6), "grid": (2, 3, 4, 2)},
           {"output_mask": [(True, True)]},
           [{"grad_output": TensorSpec("float32", shape=(0, 3, 3, 4)), "input": TensorSpec("float32", shape=(0, 3, 5, 6)),
             "grid": TensorSpec("float32", shape=(0, 3, 4, 2), values="grid")},
            {"grad_output": TensorSpec("float32", shape=(2, 1, 3, 4)), "input": TensorSpec("float32", shape=(2, 1, 5, 6))}]))],
    # CTC: padded and concatenated targets, empty targets, an impossible alignment (T = 2 for
    # three labels: an infinite loss), a larger batch. _ctc_loss takes full lengths only:
    # PyTorch leaves log_alpha uninitialised past a sample's lengths.
    *[Row(op, dtypes=("float32", "float64"), shapes={"log_probs": (5, 2, 4), "targets": (2, 3)},
          arg_dtypes={"targets": ("int64", "int32")}, values={"targets": "labels"},
          layouts=("contiguous", "transposed", "sliced", "broadcast"), pools={**pools, "blank": [0, 3], "zero_infinity": [True]},
          extra=[{"targets": TensorSpec("int64", shape=(6,), values="labels"), "input_lengths": (5, 5), "target_lengths": (3, 3)},
                 {"targets": TensorSpec("int64", shape=(2, 0)), "target_lengths": (0, 0)},
                 {"log_probs": TensorSpec("float32", shape=(2, 2, 4)), "input_lengths": (2, 2), "target_lengths": (3, 3)},
                 {"log_probs": TensorSpec("float32", shape=(2, 2, 4)), "input_lengths": (2, 2), "target_lengths": (3, 3),
                  "zero_infinity": True},
                 {"log_probs": TensorSpec("float64", shape=(30, 16, 6)), "targets": TensorSpec("int64", shape=(16, 3), values="labels"),
                  "input_lengths": (30,) * 16, "target_lengths": (3,) * 16}] + extra,
          bad=[{"blank": 4}, {"input_lengths": (6, 5)}, {"target_lengths": (4, 3)}, {"input_lengths": (5,)},
               {"log_probs": TensorSpec("float16", shape=(5, 2, 4))},
               {"targets": TensorSpec("int64", shape=(5,), values="labels")}] +
              # (ctc_loss converts its targets to int64 first)
              ([{"targets": TensorSpec("float32", shape=(2, 3), values="labels")}] if op == "_ctc_loss" else []),
          generic_bad=False, keywords=op != "_ctc_loss", **kw)
      for op, pools, extra, kw in (
          ("_ctc_loss", {"input_lengths": [(5, 5)], "target_lengths": [(3, 3)]}, [],
           {"torch_function": torch.ops.aten._ctc_loss, "torch_ops": True}),
          ("ctc_loss.IntList", {"input_lengths": [(5, 3), (5, 0)], "target_lengths": [(3, 1), (0, 2)], "reduction": [0, 1, 2]},
           [{"log_probs": TensorSpec("float32", shape=(2, 2, 4)), "input_lengths": (2, 2), "target_lengths": (3, 3),
             "zero_infinity": True, "reduction": r} for r in (0, 1, 2)] +
           [{"log_probs": TensorSpec("float32", shape=(5, 4)), "targets": TensorSpec("int64", shape=(3,), values="labels"),
             "input_lengths": (5,), "target_lengths": (3,), "reduction": r} for r in (0, 1)],
           {"torch_function": mean_by_default(torch.ctc_loss, 5)}))],
    Row("_ctc_loss_backward", dtypes=("float32", "float64"),
        shapes={"grad": (2,), "log_probs": (5, 2, 4), "targets": (2, 3), "neg_log_likelihood": (2,), "log_alpha": (2, 5, 7)},
        arg_dtypes={"targets": ("int64",)}, values={"targets": "labels", "log_alpha": "unit"},
        layouts=("contiguous", "sliced"),
        pools={"input_lengths": [(5, 3)], "target_lengths": [(3, 1), (0, 2)], "blank": [0], "zero_infinity": [True]},
        # (PyTorch's backward trusts its arguments to the forward's checks: bad values crash it)
        generic_bad=False, keywords=False, torch_function=torch.ops.aten._ctc_loss_backward, torch_ops=True),
    Row("ctc_loss.Tensor", dtypes=("float32", "float64"),
        shapes={"log_probs": (5, 2, 4), "targets": (2, 3), "input_lengths": (2,), "target_lengths": (2,)},
        arg_dtypes={"targets": ("int64", "int32"), "input_lengths": ("int64", "int32"), "target_lengths": ("int64", "int32")},
        values={"targets": "labels", "input_lengths": "index3", "target_lengths": "index3"},
        layouts=("contiguous", "sliced", "broadcast"), pools={"reduction": [0, 1, 2], "zero_infinity": [True]},
        bad=[{"input_lengths": TensorSpec("float32", shape=(2,), values="index3")}, {"blank": 4}], generic_bad=False,
        torch_function=mean_by_default(torch.ctc_loss, 5)),
    # ---- (section end) ----
    # ---- LAPACK ----
    # Square inputs hold well-conditioned ("wellcond"), positive-definite ("spd") or symmetric
    # ("sym") values; broadcast and sliced layouts would make them singular, so the layouts
    # are contiguous and transposed, and extras cover batches, broadcasting and empty sizes.
    # Sign-ambiguous factorizations match PyTorch's signs (the same LAPACK routines); the
    # gauge-free and gradient checks are in test_linalg_lapack.py.
    Row("linalg_solve", dtypes=("float32", "float64"), shapes={"A": (3, 3), "B": (3, 2)},
        values={"A": "wellcond"}, layouts=("contiguous", "transposed"),
        extra=[{"B": TensorSpec("float32", shape=(2, 3)), "left": False},
               {"B": TensorSpec("float32", shape=(3,))},
               {"A": TensorSpec("float64", shape=(2, 3, 3), values="wellcond"), "B": TensorSpec("float64", shape=(2, 3))},
               {"A": TensorSpec("float32", shape=(2, 1, 3, 3), values="wellcond"), "B": TensorSpec("float32", shape=(4, 3, 2))},
               {"A": TensorSpec("float32", shape=(0, 3, 3)), "B": TensorSpec("float32", shape=(0, 3, 2))},
               {"A": TensorSpec("float64", shape=(0, 0)), "B": TensorSpec("float64", shape=(0, 2))},
               {"A": TensorSpec("float64", shape=(1, 1), values="nonzero"), "B": TensorSpec("float64", shape=(1,))}],
        bad=[{"A": TensorSpec("float32", shape=(3, 4))}, {"B": TensorSpec("float32", shape=(4, 2))},
             {"B": TensorSpec("float64", shape=(3, 2))}, {"A": TensorSpec("float32", shape=(3, 3), values="zero")},
             {"A": TensorSpec("int64", shape=(3, 3)), "B": TensorSpec("int64", shape=(3, 2))},
             {"A": TensorSpec("float32", shape=(2, 3, 3), values="wellcond"), "B": TensorSpec("float32", shape=(3, 3, 2))}]),
    Row("linalg_solve_triangular", dtypes=("float32", "float64"), shapes={"self": (3, 3), "B": (3, 2)},
        values={"self": "wellcond"}, layouts=("contiguous", "transposed"),
        extra=[{"B": TensorSpec("float32", shape=(2, 3)), "left": False, "upper": True},
               {"unitriangular": True, "upper": True},
               {"self": TensorSpec("float64", shape=(2, 1, 3, 3), values="wellcond"), "B": TensorSpec("float64", shape=(4, 3, 2))},
               {"self": TensorSpec("float32", shape=(0, 3, 3)), "B": TensorSpec("float32", shape=(0, 3, 2))}],
        bad=[{"B": TensorSpec("float32", shape=(3,))}, {"B": TensorSpec("float32", shape=(4, 2))},
             {"self": TensorSpec("float32", shape=(3, 4))},
             {"self": TensorSpec("int64", shape=(3, 3)), "B": TensorSpec("int64", shape=(3, 2))}]),
    Row("linalg_inv", dtypes=("float32", "float64"), shape=(3, 3), values={"A": "wellcond"},
        layouts=("contiguous", "transposed"),
        extra=[{"A": TensorSpec("float64", shape=(2, 4, 4), values="wellcond")},
               {"A": TensorSpec("float32", shape=(0, 3, 3))}, {"A": TensorSpec("float32", shape=(0, 0))}],
        bad=[{"A": TensorSpec("float32", shape=(3, 3), values="zero")}, {"A": TensorSpec("float32", shape=(3, 4))},
             {"A": TensorSpec("int64", shape=(3, 3))}]),
    *[Row(op, dtypes=("float32", "float64"), shape=(3, 3), values={"A": "wellcond"},
          layouts=("contiguous", "transposed"),
          extra=[{"A": TensorSpec("float64", shape=(2, 4, 4), values="wellcond")},
                 {"A": TensorSpec("float32", shape=(2, 1, 1), values="nonzero")},
                 {"A": TensorSpec("float32", shape=(0, 3, 3))}, {"A": TensorSpec("float64", shape=(0, 0))}],
          bad=[{"A": TensorSpec("float32", shape=(3, 4))}, {"A": TensorSpec("int64", shape=(3, 3))},
               {"A": TensorSpec("float32", shape=(3,))}])
      for op in ("linalg_slogdet", "linalg_det")],
    Row("logdet", dtypes=("float32", "float64"), shape=(3, 3), values={"self": "spd"},
        layouts=("contiguous", "transposed"),
        extra=[{"self": TensorSpec("float64", shape=(2, 3, 3), values="wellcond")},
               {"self": TensorSpec("float32", shape=(0, 3, 3))}],
        bad=[{"self": TensorSpec("float32", shape=(3, 4))}, {"self": TensorSpec("int64", shape=(3, 3))}]),
    Row("linalg_cholesky", dtypes=("float32", "float64"), shape=(3, 3), values={"self": "spd"},
        layouts=("contiguous", "transposed"),
        extra=[{"self": TensorSpec("float64", shape=(2, 4, 4), values="spd")},
               {"self": TensorSpec("float32", shape=(0, 3, 3))}, {"self": TensorSpec("float32", shape=(0, 0))}],
        bad=[{"self": TensorSpec("float32", shape=(3, 3), values="zero")}, {"self": TensorSpec("float32", shape=(3, 4))},
             {"self": TensorSpec("int64", shape=(3, 3))}]),
    # mode='r' (no Q, not differentiable) is tested in test_linalg_lapack.py.
    Row("linalg_qr", dtypes=("float32", "float64"), shape=(3, 4), layouts=("contiguous", "transposed", "sliced"),
        pools={"mode": ["reduced", "complete"]},
        extra=[{"A": TensorSpec("float64", shape=(4, 3))}, {"A": TensorSpec("float32", shape=(2, 3, 3))},
               {"A": TensorSpec("float32", shape=(0, 3))}, {"A": TensorSpec("float64", shape=(0, 4, 3))}],
        bad=[{"mode": "full"}, {"A": TensorSpec("float32", shape=(3,))}, {"A": TensorSpec("int64")}]),
    *[Row(op, dtypes=("float32", "float64"), shape=(3, 3), values={"self": "sym"},
          layouts=("contiguous", "transposed"), pools={"UPLO": ["L", "U"]},
          extra=[{"self": TensorSpec("float64", shape=(2, 4, 4), values="sym")},
                 {"self": TensorSpec("float32", shape=(0, 3, 3))}, {"self": TensorSpec("float32", shape=(0, 0))}],
          bad=[{"UPLO": "X"}, {"self": TensorSpec("float32", shape=(3, 4))}, {"self": TensorSpec("int64", shape=(3, 3))}])
      for op in ("linalg_eigh", "linalg_eigvalsh")],
    # Square by default: the extra columns of a full U or Vh have no derivative.
    Row("linalg_svd", dtypes=("float32", "float64"), shape=(3, 3), layouts=("contiguous", "transposed", "sliced"),
        extra=[{"A": TensorSpec("float64", shape=(4, 3)), "full_matrices": False},
               {"A": TensorSpec("float32", shape=(2, 3, 4)), "full_matrices": False},
               {"A": TensorSpec("float32", shape=(0, 3))}, {"A": TensorSpec("float64", shape=(3, 0))}],
        bad=[{"driver": "gesvd"}, {"A": TensorSpec("float32", shape=(3,))}, {"A": TensorSpec("int64")}]),
    Row("linalg_svdvals", dtypes=("float32", "float64"), layouts=("contiguous", "transposed", "sliced"),
        extra=[{"A": TensorSpec("float64", shape=(2, 4, 3))}, {"A": TensorSpec("float32", shape=(0, 3))}],
        bad=[{"driver": "gesvd"}, {"A": TensorSpec("float32", shape=(3,))}]),
    Row("linalg_pinv.atol_rtol_float", dtypes=("float32", "float64"), layouts=("contiguous", "transposed", "sliced"),
        pools={"atol": [None, 0.5], "rtol": [None, 0.2], "hermitian": [False]},
        extra=[{"self": TensorSpec("float64", shape=(3, 3), values="sym"), "hermitian": True},
               {"self": TensorSpec("float32", shape=(2, 4, 3))}, {"self": TensorSpec("float32", shape=(0, 3))}],
        bad=[{"self": TensorSpec("int64")}, {"self": TensorSpec("float32", shape=(3,))}]),
    Row("linalg_pinv", dtypes=("float32", "float64"), layouts=("contiguous", "transposed", "sliced"),
        pools={"rcond": [1e-15, 0.2], "hermitian": [False]},
        extra=[{"self": TensorSpec("float64", shape=(3, 3), values="sym"), "hermitian": True}],
        bad=[{"self": TensorSpec("int64")}]),
    Row("linalg_lstsq", dtypes=("float32", "float64"), shapes={"self": (5, 3), "b": (5, 2)},
        layouts=("contiguous", "transposed"), pools={"rcond": [None], "driver": [None, "gelsy", "gelsd", "gelss", "gels"]},
        extra=[{"b": TensorSpec("float32", shape=(5,))},
               {"self": TensorSpec("float64", shape=(2, 5, 3)), "b": TensorSpec("float64", shape=(1, 5, 2))},
               {"self": TensorSpec("float32", shape=(3, 5)), "b": TensorSpec("float32", shape=(3, 2))}],
        bad=[{"driver": "foo"}, {"b": TensorSpec("float32", shape=(4, 2))}, {"b": TensorSpec("float64", shape=(5, 2))}]),
    Row("linalg_matrix_norm", dtypes=("float32", "float64"), layouts=("contiguous", "transposed", "sliced"),
        pools={"ord": [1, -1, 2, -2, float("inf"), float("-inf")], "dim": [(-2, -1), (1, 0)], "keepdim": [False, True]},
        extra=[{"self": TensorSpec("float64", shape=(2, 3, 4)), "dim": (0, 2)},
               {"self": TensorSpec("float64", shape=(2, 3, 4)), "dim": (2, 0), "ord": 2, "keepdim": True}],
        bad=[{"ord": 3}, {"dim": (1, 1)}, {"self": TensorSpec("int64")}, {"self": TensorSpec("float32", shape=(3,))}]),
    Row("linalg_matrix_norm.str_ord", dtypes=("float32", "float64"), layouts=("contiguous", "transposed", "sliced"),
        pools={"ord": ["fro", "nuc"], "dim": [(-2, -1), (1, 0)], "keepdim": [False, True]},
        extra=[{"self": TensorSpec("float64", shape=(2, 3, 4)), "dim": (0, 2), "ord": "nuc", "keepdim": True}],
        bad=[{"ord": "foo"}, {"dim": (1, 1)}, {"self": TensorSpec("int64")}]),
    # ---- (section end) ----
]
ROWS = {row.key: row for row in ROW_LIST}
OPS = ot.load_ops()


@dataclass(frozen=True)
class Known:
    """A known difference from PyTorch (reported): a case whose id matches `ids` and whose
    every problem matches `problem` xfails with the reason; anything else still fails."""
    problem: str
    reason: str
    ids: str = ".*"


KNOWN_MISMATCHES = [
    Known(r"values differ", "gelu(+inf): Ember gives the limit, +inf, in every dtype; PyTorch's "
          "float32 kernel gives NaN, and its 16-bit ones +inf or NaN depending on the CPU's vector "
          "width", ids=r"^gelu_?\|.*:edge"),
    Known(r"Ember returned Tensor; PyTorch RuntimeError \(.view size is not compatible",
          "take_along_dim(dim=None): PyTorch flattens self with view(-1), which fails on a "
          "non-contiguous self; Ember flattens with reshape", ids=r"^take_along_dim\|"),
    Known(r"missing required argument 'src'",
          "Tensor.copy_ takes the schema's 'src' (PyTorch's hand-written binding: 'other')",
          ids=r"[|;]keywords$"),
    Known(r"Ember raised (TypeError|ValueError) .*PyTorch returned Tensor",
          "Ember checks dtype/broadcast on an empty tensor where PyTorch, with nothing to do, "
          "returns", ids=r"self=\w+:empty"),
    Known(r"values differ", "Ember's float32 digamma is correctly rounded; PyTorch's float kernel "
          "is off by up to ~1e-6 relative, which a float64/complex128 out= shows",
          ids=r"^digamma.*self=float32:[a-z]+;out=(float64|complex128)"),
    Known(r"PyTorch RuntimeError \(.view size is not compatible", "PyTorch's kron views its "
          "permuted inputs (fails on a transposed one); Ember reshapes", ids=r"^kron\|"),
    Known(r"values differ", "PyTorch's float32 gelu (its oneDNN path) leaves a non-contiguous "
          "out= unwritten", ids=r"^gelu.*self=float32:contiguous;out=float32:(sliced|broadcast)"),
    Known(r"wrong argument type: Ember raised RuntimeError .*PyTorch RuntimeError \(.linalg.matrix_norm: Order",
          "matrix_norm's Scalar and str overloads take each other's ord: a wrong-typed ord is a "
          "bad value of the other overload (RuntimeError in both)", ids=r"^linalg_matrix_norm"),
]
MATCHED: set[Known] = set()

GOOD = [case for row in ROW_LIST if row.key in OPS for case in ot.good_cases(row, OPS[row.key])]
BAD = [case for row in ROW_LIST if row.key in OPS for case in ot.bad_cases(row, OPS[row.key])]


def seed_of(case: Case) -> int:
    """A seed fixed by the case id, for its values and random calls."""
    return zlib.crc32(case.id.encode()) % 100_000


def known(case: Case, problem: str) -> Known | None:
    """The KNOWN_MISMATCHES entry a problem of the case is, if any."""
    return next((k for k in KNOWN_MISMATCHES
                 if re.search(k.ids, case.id) and re.search(k.problem, problem, re.S)), None)


def settle(case: Case, problems: list[str]) -> None:
    """Fails on problems, unless each is a known mismatch: then xfails with its reason."""
    matches = [known(case, p) for p in problems]
    xfailed = bool(problems) and all(matches)
    ot.record(ROWS[case.key], case, xfailed=xfailed)
    if xfailed:
        MATCHED.update(matches)
        pytest.xfail("; ".join(sorted({k.reason for k in matches})) + f": {problems[0][:300]}")
    assert not problems, "\n".join([case.id] + problems)


def row_checks(row: Row, case: Case, out: ot.Outcome) -> list[str]:
    """The row's own value checks on Ember's result (random rows)."""
    r = out.result
    if row.check is None or out.error is not None or not isinstance(r, ember.Tensor):
        return []
    if r.device.type == "meta":
        return []
    arrays = {n: ot.to_numpy(x) for n, x in out.inputs.items() if isinstance(x, ember.Tensor)}
    problem = row.check(ot.to_numpy(r), ot.dtype_name(r.dtype), case.args, arrays)
    return [f"value check: {problem}"] if problem else []


def identity(op: ot.OpInfo, out: ot.Outcome) -> list[str]:
    """An in-place form returns self, an out= form returns out: the same Python object."""
    target = "out" if op.schema.is_out else "self" if op.schema.is_inplace else None
    if target is None or out.error is not None or out.result is out.inputs[target]:
        return []
    return [f"returned {type(out.result).__name__} at {id(out.result):#x}, not the '{target}' passed"]


def determinism(row: Row, case: Case, op: ot.OpInfo, first: ot.Outcome, seed: int) -> list[str]:
    """A random op repeats its values under the same seed; with generator= it ignores the
    default generator's seed."""
    if not row.random or first.error is not None:
        return []
    own_generator = any(isinstance(v, Gen) for v in case.args.values())
    inputs, _ = ot.build_inputs(case, op, row, seed)
    again = ot.run(case, op, row, ember, inputs, seed + 1 if own_generator else seed)
    if again.error is not None or not ot.same_values(first.result, again.result):
        what = "another default seed with the same generator=" if own_generator else "the same seed"
        return [f"not reproducible under {what}"]
    return []


@pytest.mark.parametrize("case", GOOD, ids=[c.id for c in GOOD])
def test_op(case: Case):
    """A generated call: Ember's outcome matches PyTorch's (op_table.compare), plus the row's
    checks, the identity of in-place and out= results, and seeding of random ops."""
    row, op = ROWS[case.key], OPS[case.key]
    seed = seed_of(case)
    ember_inputs, torch_inputs = ot.build_inputs(case, op, row, seed)
    t = ot.run(case, op, row, torch, torch_inputs, seed)
    e = ot.run(case, op, row, ember, ember_inputs, seed)
    problems = ot.compare(case, row, e, t) + row_checks(row, case, e) + identity(op, e)
    problems += determinism(row, case, op, e, seed)
    settle(case, problems)


@pytest.mark.parametrize("case", BAD, ids=[c.id for c in BAD])
def test_bad_input(case: Case):
    """A generated bad call: Ember raises what PyTorch raises (TypeError for a wrong type)."""
    row, op = ROWS[case.key], OPS[case.key]
    ember_inputs, torch_inputs = ot.build_inputs(case, op, row, seed_of(case))
    t = ot.run(case, op, row, torch, torch_inputs)
    e = ot.run(case, op, row, ember, ember_inputs)
    settle(case, ot.check_raises(case, row, e, t))


def test_every_op_has_a_row():
    """Every overload of native_functions.yaml has a row (this fails naming those without)."""
    missing = [key for key in OPS if key not in ROWS]
    assert not missing, f"operators of native_functions.yaml without a row in the op table: {missing}"


def test_every_row_is_an_op():
    """No row names an overload the YAML lacks."""
    stale = [key for key in ROWS if key not in OPS]
    assert not stale, f"op table rows naming no operator of native_functions.yaml: {stale}"


def test_every_row_has_cases_and_bad_calls():
    """Every row generated at least one call and one bad call."""
    for key in ROWS:
        assert any(c.key == key for c in GOOD), f"{key}: no cases"
        assert any(c.key == key for c in BAD), f"{key}: no bad calls"


def test_not_comparable_rows_are_listed_and_still_checked():
    """Lists the rows whose values are not compared with PyTorch's, and why."""
    listed = [row for row in ROW_LIST if row.not_comparable]
    for row in listed:
        assert row.not_comparable.strip(), f"{row.key}: no reason"
        if row.random:
            assert row.check is not None and row.stats is not None, f"{row.key}: random, unchecked"
    for row in ROW_LIST:
        if any(a.type.base == "Generator" for a in OPS[row.key].schema.arguments):
            assert row.random, f"{row.key} takes a generator but is not marked random"
    print("\nop table rows not compared by value with PyTorch:")
    for row in listed:
        print(f"  {row.key}: {row.not_comparable}")


RANDOM_ROWS = [row.key for row in ROW_LIST if row.random]


@pytest.mark.parametrize("key", RANDOM_ROWS)
def test_random_distribution(key: str):
    """A large sample: Ember's mean and spread match PyTorch's sample of the same call, the
    row's value checks hold, and another seed gives other values."""
    row, op = ROWS[key], OPS[key]
    case = Case(key, ot.ordered(op, {**ot.base_values(row, op), **row.stats}), ot.main_form(op))
    ember_inputs, torch_inputs = ot.build_inputs(case, op, row, 1)
    t = ot.run(case, op, row, torch, torch_inputs, 1)
    e = ot.run(case, op, row, ember, ember_inputs, 1)
    assert t.error is None and e.error is None, (t.error, e.error)
    problems = row_checks(row, case, e)
    values = ot.to_numpy(e.result)
    diff = ot.moments_close(values, ot.to_numpy(t.result))
    problems += [diff] if diff else []
    again = ot.run(case, op, row, ember, ot.build_inputs(case, op, row, 1)[0], 2)
    own_generator = any(isinstance(v, Gen) for v in case.args.values())
    if np.array_equal(values, ot.to_numpy(again.result)) and not own_generator:
        problems.append("seeds 1 and 2 give the same values")
    assert not problems, "\n".join(problems)


def test_generators_are_independent_and_seeded():
    """ember.Generator().manual_seed(s) repeats its stream, and draws from it leave the
    default generator alone."""
    g1, g2 = ember.Generator().manual_seed(3), ember.Generator().manual_seed(3)
    ember.manual_seed(11)
    a = ember.rand(100, generator=g1)
    b = ember.rand(100)
    ember.manual_seed(11)
    c = ember.rand(100, generator=g2)
    d = ember.rand(100)
    assert np.array_equal(a.numpy(), c.numpy()) and np.array_equal(b.numpy(), d.numpy())
    assert not np.array_equal(a.numpy(), b.numpy())


def test_known_mismatches_still_occur():
    """Each KNOWN_MISMATCHES entry matched a case, when the whole table ran (runs last), so
    the list shrinks as Ember is fixed."""
    ran = sum(cov.cases for cov in ot.COVERAGE.values())
    if ran < len(GOOD) + len(BAD):
        pytest.skip("only part of the op table ran")
    stale = [k.reason for k in KNOWN_MISMATCHES if k not in MATCHED]
    assert not stale, f"known mismatches that no longer occur (remove them): {stale}"
