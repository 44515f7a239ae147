"""What the op table's rows share: dtype and argument pools, the torch-written references
of ops PyTorch has no public function for, the Row type and the value checks of rows whose
values cannot match PyTorch's. The rows are in op_rows_tensor.py and op_rows_nn.py, one
section per family of native_functions.yaml; the tests are in test_op_table.py."""
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
         "frac", "round", "deg2rad", "rad2deg")
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
# Scans: rows long enough for the interleaved chains of the 1-d kernel, wide blocks of
# columns, a 3-d input, and dim 0 of a transposed input.
SCAN_EXTRA = [{"self": TensorSpec("float32", "contiguous", (300, 700)), "dim": 1},
              {"self": TensorSpec("float64", "contiguous", (5003,)), "dim": 0},
              {"self": TensorSpec("float32", "transposed", (300, 500)), "dim": 0},
              {"self": TensorSpec("float32", "contiguous", (2, 3, 5)), "dim": 1}]
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


def scan_out(fn):
    """cummax/cummin with the schema's out= tensors (values=, indices=) as out=(values, indices)."""
    def call(input, dim, values=None, indices=None):
        return fn(input, dim) if values is None else fn(input, dim, out=(values, indices))
    return call


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


# Everything above, for the row modules' `from op_rows import *` (underscored helpers too).
__all__ = [n for n in dir() if not n.startswith("__")]
