"""The op table's gradients: every differentiable row's cases (float32 and float64 inputs, every
layout) give the gradients PyTorch gives, and gradcheck (finite differences in float64)
passes on smooth random inputs, contiguous and not; gradgradcheck on a representative set.
In-place forms are differentiated through a non-leaf; out= forms refuse inputs that require
grad, as PyTorch's do.
"""
from __future__ import annotations

import re
import zlib
from dataclasses import replace

import numpy as np
import pytest
import torch
import yaml

import ember
import op_table as ot
from op_table import Case, TensorSpec
from test_op_table import GOOD, OPS, ROWS

FLOAT = ("float32", "float64")
# Gradients computed by formulas in another order than PyTorch's: float32 within 1e-4. A
# case is held to the tolerance of the least precise float type it involves.
GRAD_TOL = {"bfloat16": (1.6e-2, 1e-5), "float16": (1e-3, 1e-5), "float32": (1e-4, 1e-5),
            "float64": (1e-7, 1e-9)}

# The leading outputs compared and gradchecked, where the rest are not differentiable in
# Ember (output_differentiability). PyTorch marks the saved statistics the norms return
# (mean, rstd / invstd) as requiring grad while its formula ignores their gradients (a wrong
# derivative); the fused LSTM cell's workspace (the activated gates its backward reads) has
# no gradient, while the PyTorch-written reference computes it from the gates (the same for
# the LSTM layer's workspace and cells).
STATS_OUTPUTS = {"native_batch_norm": 1, "native_layer_norm": 1, "native_group_norm": 1, "_fused_lstm_cell": 2,
                 "_lstm_layer": 3}

# Known differences from PyTorch's gradients: (case id pattern, reason). Each is still run:
# it xfails only when it differs.
KNOWN = [
    (r"^linalg_svd\|",
     "singular vectors are unique up to sign, and OpenBLAS's LAPACK picks the other sign than "
     "PyTorch's MKL for a column in some cases: gradients of sign-dependent losses then differ "
     "(test_linalg_lapack.py compares the gradients of sign-free losses)"),
    (r"^nll_loss_backward\|.*reduction=1",
     "PyTorch's double backward of nll_loss_backward (mean) divides by the weight sum it "
     "recomputes, not by the total_weight argument (the same in real use, where total_weight "
     "is that sum; these cases pass an arbitrary one); Ember's is the derivative of the call "
     "(gradcheck agrees)"),
    (r"^embedding_dense_backward\|.*scale_grad_by_freq=True",
     "PyTorch's double backward of embedding_dense_backward ignores scale_grad_by_freq; "
     "Ember's divides by the counts as the forward does (gradcheck agrees)"),
    (r"^(var|std|var_mean|std_mean)(\.\w+)?\|.*dim=\(\)",
     "PyTorch's var/std backward counts no reduced elements for dim=() (N - 1 = 0: infinite "
     "gradients) although its forward reduces every dimension; Ember's gradient is the "
     "derivative of the value returned (gradcheck agrees)"),
    (r"^(logit|elu|hardswish)_?\|.*self=float64:contiguous:edge",
     "PyTorch's float64 gradient at the edge values (infinities, the ends of the domain) "
     "depends on the CPU: on an AVX2-only CPU it differs (logit: -inf for +inf, elu: NaN for "
     "1.25) where it agreed with Ember on the AVX-512 machines of earlier runs; Ember's is "
     "the same at every capability (EMBER_CPU_CAPABILITY=default gives the same)"),
]


def _autograd_entries() -> dict:
    entries = {}
    for e in yaml.safe_load(ot.YAML_PATH.read_text()):
        entries[ot.Schema.parse(e["func"]).full_name] = e.get("autograd")
    return entries


AUTOGRAD = _autograd_entries()


def formula_inputs(key: str) -> list[str]:
    """The inputs with a formula (those that get gradients); [] for non-differentiable ops."""
    entry = AUTOGRAD.get(key)
    if not isinstance(entry, dict):
        return []
    # An input whose formula is not_implemented_grad(...) has none (PyTorch's not_implemented).
    return [n.strip() for k, f in entry.items() if k != "output_differentiability"
            and not str(f).startswith("not_implemented_grad") for n in k.split(",")]


def functional_key(key: str) -> str | None:
    """The functional form whose formulas an in-place row uses."""
    op = OPS[key]
    s = op.schema
    same = s.name[:-1] + (f".{s.overload}" if s.overload else "")
    plain = [str(a.type).replace("(a!)", "") for a in s.arguments]
    for k, o in OPS.items():
        if o.schema.name == s.name[:-1] and not o.schema.is_out and \
                [str(a.type).replace("(a!)", "") for a in o.schema.arguments] == plain:
            if k == same or formula_inputs(k):
                return k
    return None


def formula_key(key: str) -> str | None:
    """The row whose formulas serve `key`: its own, or for an in-place form its functional's."""
    if OPS[key].schema.is_inplace and not formula_inputs(key):
        return functional_key(key)
    return key


def specs_of(v) -> tuple:
    """The TensorSpecs of an argument value: one, a tuple of them (Tensor[]), or none."""
    if isinstance(v, TensorSpec):
        return (v,)
    if isinstance(v, tuple) and v and all(isinstance(x, TensorSpec) for x in v):
        return v
    return ()


def float_inputs(case: Case, names: list[str]) -> list[str]:
    return [n for n, v in case.values
            if n in names and specs_of(v) and all(s.dtype in FLOAT for s in specs_of(v))]


def flat_leaves(values: dict, names: list[str]) -> list:
    """The named inputs, a Tensor[] input spread into its elements."""
    out = []
    for n in names:
        out += list(values[n]) if isinstance(values[n], (list, tuple)) else [values[n]]
    return out


def grad_case(case: Case) -> bool:
    """A case whose differentiable tensors are all float32/float64 (and at least one)."""
    op = OPS[case.key]
    if op.schema.is_out or case.unknown_keyword or case.keywords:
        return False
    if case.args.get("sparse_grad") or case.args.get("sparse"):
        return False  # PyTorch's gradient is then a sparse tensor (Ember's is dense)
    key = formula_key(case.key)
    names = formula_inputs(key) if key else []
    specs = [s for n, v in case.values if n in names for s in specs_of(v)]
    return bool(specs) and all(s.dtype in FLOAT for s in specs)


GRAD_CASES = [c for c in GOOD if grad_case(c)]


def seed_of(case: Case) -> int:
    return zlib.crc32(case.id.encode()) % 100_000


def outputs_of(result) -> list:
    items = result if isinstance(result, tuple) else (result,)
    return [r for r in items if isinstance(r, (ember.Tensor, torch.Tensor))]


def grad_outputs(outs, seed: int):
    """The same random gradient for Ember's and PyTorch's outputs."""
    rng = np.random.default_rng(seed)
    pairs = []
    for o in outs:
        g = np.asarray(rng.integers(-8, 9, tuple(o.shape)) / 4.0)
        pairs.append((ember.from_numpy(g).to(getattr(ember, ot.dtype_name(o.dtype))),
                      torch.from_numpy(g).to(o.dtype)))
    return pairs


def case_tolerance(case: Case, outs) -> tuple[float, float]:
    names = {v.dtype for _, v in case.values if isinstance(v, TensorSpec)}
    names |= {str(v) for _, v in case.values if isinstance(v, ot.Dt)}
    names |= {ot.dtype_name(o.dtype) for o in outs}
    for dt in GRAD_TOL:  # least precise first
        if dt in names:
            return GRAD_TOL[dt]
    return GRAD_TOL["float64"]


def compare_grads(case: Case, names, eg, tg, tol) -> list[str]:
    problems = []
    for n, a, b in zip(names, eg, tg):
        if (a is None) != (b is None):
            problems.append(f"grad of {n}: {'None' if a is None else 'a tensor'} vs "
                            f"{'None' if b is None else 'a tensor'}")
            continue
        if a is None:
            continue
        if tuple(a.shape) != tuple(b.shape):
            problems.append(f"grad of {n}: shape {tuple(a.shape)} vs {tuple(b.shape)}")
            continue
        dt = ot.dtype_name(b.dtype)
        if ot.dtype_name(a.dtype) != dt:
            problems.append(f"grad of {n}: dtype {a.dtype} vs {b.dtype}")
            continue
        rtol, atol = tol
        x = ot.to_numpy(a).astype(np.float64)
        y = b.detach().to(torch.float64).numpy(force=True)  # PyTorch may return a ZeroTensor
        nan = np.isnan(x) | np.isnan(y)
        with np.errstate(invalid="ignore"):
            ok = np.where(nan, np.isnan(x) & np.isnan(y),
                          np.where(np.isinf(x) | np.isinf(y), x == y, np.abs(x - y) <= atol + rtol * np.abs(y)))
        if not ok.all():
            bad = np.argwhere(~ok)[:3]
            pos = [tuple(int(i) for i in b) for b in bad]
            problems.append(f"grad of {n} differs at {pos}: {[x[p] for p in pos]} vs {[y[p] for p in pos]}")
    return problems


def run_with_grad(case: Case, lib, values: dict, names: list[str], inplace: bool):
    """Marks the named inputs as requiring grad, runs the op (an in-place op on a non-leaf
    copy of self) and returns (inputs that require grad, outputs, error)."""
    for n in names:
        if isinstance(values[n], (list, tuple)):
            values[n] = [x.detach().requires_grad_() for x in values[n]]
        else:
            values[n] = values[n].detach().requires_grad_()
    leaves = flat_leaves(values, names)
    if inplace:
        values["self"] = values["self"] * 1 if "self" in names else values["self"].clone()
    op, row = OPS[case.key], ROWS[case.key]
    out = ot.run(case, op, row, lib, values)
    return leaves, out


@pytest.mark.parametrize("case", GRAD_CASES, ids=[c.id for c in GRAD_CASES])
def test_gradient_matches_pytorch(case: Case):
    """Gradients of the case's differentiable inputs (PyTorch's autograd.grad on the same
    values and the same output gradients), and which outputs require grad."""
    op = OPS[case.key]
    inplace = op.schema.is_inplace
    names = float_inputs(case, formula_inputs(formula_key(case.key)))
    seed = seed_of(case)
    e_vals, t_vals = ot.build_inputs(case, op, ROWS[case.key], seed)
    t_leaves, t = run_with_grad(case, torch, t_vals, names, inplace)
    e_leaves, e = run_with_grad(case, ember, e_vals, names, inplace)
    if t.error is not None:
        assert e.error is not None, f"PyTorch raised {t.error!r}; Ember returned"
        return
    if e.error is not None and re.search(r"self=\w+:empty", case.id):
        pytest.xfail(f"Ember checks shapes on an empty tensor where PyTorch returns: {e.error}")
    assert e.error is None, f"Ember raised {e.error!r}"
    t_outs, e_outs = outputs_of(t.result), outputs_of(e.result)
    if case.key in STATS_OUTPUTS:  # compared on the differentiable outputs only (see STATS_OUTPUTS)
        n = STATS_OUTPUTS[case.key]
        t_outs, e_outs = t_outs[:n], e_outs[:n]
    rg = [(a.requires_grad, b.requires_grad) for a, b in zip(e_outs, t_outs)]
    assert all(a == b for a, b in rg), f"outputs' requires_grad {rg} (Ember, PyTorch)"
    pairs = [(a, b) for a, b in zip(e_outs, t_outs) if b.requires_grad and b.dtype.is_floating_point]
    if not pairs:
        return
    gos = grad_outputs([b for _, b in pairs], seed)
    eg = ember.autograd.grad([a for a, _ in pairs], e_leaves, [g for g, _ in gos], allow_unused=True)
    try:
        tg = torch.autograd.grad([b for _, b in pairs], t_leaves, [g for _, g in gos], allow_unused=True)
    except NotImplementedError:
        # PyTorch has no derivative for this in-place form (asinh_, ...): its functional
        # form's gradient is the reference.
        assert inplace, "PyTorch has no derivative for a functional op Ember differentiates"
        functional = replace(case, key=functional_key(case.key))
        _, t_vals = ot.build_inputs(functional, OPS[functional.key], ROWS[case.key], seed)
        t_leaves, t = run_with_grad(functional, torch, t_vals, names, False)
        tg = torch.autograd.grad(outputs_of(t.result), t_leaves, [g for _, g in gos], allow_unused=True)
    except RuntimeError as err:
        pytest.xfail(f"PyTorch's backward fails on this case ({str(err)[:120]}); Ember's "
                     f"gradients are checked by gradcheck")
    labels = [f"{n}[{i}]" if isinstance(e_vals[n], list) else n
              for n in names for i in range(len(e_vals[n]) if isinstance(e_vals[n], list) else 1)]
    problems = compare_grads(case, labels, eg, tg, case_tolerance(case, [b for _, b in pairs]))
    reasons = [r for pat, r in KNOWN if re.search(pat, case.id)]
    if problems and reasons:
        pytest.xfail(reasons[0])
    assert not problems, "\n".join([case.id] + problems)


# ---- gradcheck on smooth random inputs ---------------------------------------------------

# Where an op's inputs must lie for its derivative to exist (default (-1.5, 1.5)).
DOMAINS = {
    **{op: {"self": (0.5, 2.0)} for op in ("log", "log2", "log10", "sqrt", "rsqrt", "reciprocal",
                                           "lgamma", "pow.Tensor_Scalar", "pow.Tensor_Tensor")},
    "log1p": {"self": (-0.5, 2.0)}, "acosh": {"self": (1.5, 3.0)},
    **{op: {"self": (-0.8, 0.8)} for op in ("asin", "acos", "atanh", "erfinv", "tan")},
    "logit": {"self": (0.1, 0.9)},
    **{op: {"other": (0.5, 2.0)} for op in ("div.Tensor", "div.Tensor_mode", "remainder.Tensor",
                                            "fmod.Tensor")},
    "addcdiv": {"tensor2": (0.5, 2.0)},
}
# Rows whose derivative is not smooth at the op table's shapes and values in ways random
# inputs still meet (or that gradcheck cannot perturb one element of).
# expand: a stride-0 result (one element of the input is many of the output); put: its cases
# include a broadcast index (one position written several times: no derivative there).
# _ctc_loss: its backward is PyTorch's, the gradient through the log_softmax that makes
# log_probs (exp(lp) - ...), not the derivative in free log_probs; test_sampling_ctc.py
# gradchecks it through log_softmax, as PyTorch's OpInfo does.
# linalg_cholesky(_ex), linalg_eigh: they read one triangle of a symmetric (positive-definite)
# input, which random values are not; test_linalg_lapack.py and test_linalg_breadth.py gradcheck
# them on symmetrized inputs. linalg_eig: its eigenvectors are defined up to a phase, which
# gradcheck's losses depend on (no gradient); test_linalg_breadth.py gradchecks phase-free losses.
# binary_cross_entropy: no op-table case passes the gradcheck filter; its gradients (the edges
# 0 and 1, weight, reductions, second order) are tested against torch in
# test_nn_functional_extra.py.
# igamma, igammac, special_zeta: random values leave their domain (a, x >= 0; s > 1),
# where values and finite differences are NaN; test_special_breadth.py checks their gradients
# inside it.
NO_GRADCHECK = {"expand", "put", "_ctc_loss", "linalg_cholesky", "linalg_cholesky_ex", "linalg_eigh",
                "linalg_eig", "binary_cross_entropy", "igamma", "igammac", "special_zeta",
                "special_zeta.self_scalar"}
# Rows whose differentiable input is complex: Ember's autograd is for real dtypes so far.
COMPLEX_INPUT = {"view_as_real", "_fft_c2c", "_fft_c2r"}  # complex gradients: test_complex_autograd.py, test_fft.py
GRADCHECK_LAYOUTS = ("contiguous", "transposed", "sliced", "0-d")


def as_float64(case: Case) -> Case:
    """The case with every differentiable input float64 with ordinary values."""
    names = formula_inputs(case.key)

    def f64(v):
        if isinstance(v, TensorSpec):
            return replace(v, dtype="float64", values="any")
        return tuple(f64(x) for x in v) if specs_of(v) else v
    values = tuple((n, f64(v) if n in names else v) for n, v in case.values)
    return replace(case, values=values)


def torch_accepts(case: Case) -> bool:
    op, row = OPS[case.key], ROWS[case.key]
    _, t_vals = ot.build_inputs(case, op, row)
    return ot.run(case, op, row, torch, t_vals).error is None


def gradcheck_cases() -> list[Case]:
    picked: dict[str, list[Case]] = {}
    seen: dict[str, set] = {}
    for c in GOOD:
        op = OPS[c.key]
        if (op.schema.is_inplace or op.schema.is_out or not formula_inputs(c.key) or
                c.key in NO_GRADCHECK or c.varargs or c.keywords or c.unknown_keyword):
            continue
        specs = [s for n, v in c.values if n in formula_inputs(c.key) for s in specs_of(v)]
        if not specs or not all(v.layout in GRADCHECK_LAYOUTS and v.dtype in FLOAT for v in specs):
            continue
        if any(v.shape is not None and int(np.prod(v.shape)) > 1000 for v in specs):
            continue  # finite differences build a dense Jacobian: small inputs only
        if any(isinstance(v, ot.Dt) and str(v) != "float64" for _, v in c.values):
            continue  # a float32 result: finite differences too coarse
        if c.key == "pow.Scalar" and not (isinstance(c.args["self"], (int, float)) and c.args["self"] > 0):
            continue  # x ** t at x <= 0 is not smooth in t
        c = as_float64(c)
        sig = tuple(sorted((n, v.layout if isinstance(v, TensorSpec) else repr(v)) for n, v in c.values))
        if sig in seen.setdefault(c.key, set()) or len(seen[c.key]) >= 6:
            continue
        if torch_accepts(c):  # (cases PyTorch refuses do not use up the op's quota)
            seen[c.key].add(sig)
            picked.setdefault(c.key, []).append(c)
    return [c for cases in picked.values() for c in cases]


GRADCHECK = gradcheck_cases()


def randomize(case: Case, values: dict, seed: int) -> None:
    """Overwrites the differentiable float64 inputs with random values in the op's domain."""
    rng = np.random.default_rng(seed)
    domain = DOMAINS.get(case.key, {})
    for n in formula_inputs(case.key):
        for t in flat_leaves(values, [n]) if n in values else []:
            if not isinstance(t, ember.Tensor) or t.dtype != ember.float64:
                continue
            lo, hi = domain.get(n, (-1.5, 1.5))
            view = t.numpy()
            view[...] = rng.uniform(lo, hi, view.shape)


def as_function(case: Case):
    """(fn of the differentiable inputs, those inputs): the case's call on smooth random
    float64 values that require grad, its other arguments fixed."""
    op, row = OPS[case.key], ROWS[case.key]
    values, _ = ot.build_inputs(case, op, row, seed_of(case))
    randomize(case, values, seed_of(case))
    names = float_inputs(case, formula_inputs(case.key))
    leaves = flat_leaves(values, names)
    for x in leaves:
        x.requires_grad_()

    def fn(*xs):
        vals = dict(values)
        it = iter(xs)
        for n in names:
            vals[n] = [next(it) for _ in values[n]] if isinstance(values[n], list) else next(it)
        result = ot.call(case, op, row, ember, vals)
        n = STATS_OUTPUTS.get(case.key)
        return result if n is None else result[0] if n == 1 else tuple(result[:n])
    return fn, tuple(leaves)


@pytest.mark.parametrize("case", GRADCHECK, ids=[c.id for c in GRADCHECK])
def test_gradcheck(case: Case):
    """Backward against central finite differences (float64, smooth random inputs)."""
    fn, inputs = as_function(case)
    assert ember.autograd.gradcheck(fn, inputs, atol=1e-5, rtol=1e-4)


# Second order: ops whose formulas are built from other differentiable ops.
GRADGRAD = ["mul.Tensor", "div.Tensor", "exp", "log", "tanh", "sigmoid", "sin", "pow.Tensor_Scalar",
            "sum.dim_IntList", "mean.dim", "var.correction", "std.correction", "logsumexp",
            "gelu", "silu", "softplus", "norm.ScalarOpt_dim", "amax", "prod.dim_int", "where.self",
            "atan2", "select.int", "transpose.int", "lerp.Tensor", "addcmul", "maximum"]


@pytest.mark.parametrize("key", GRADGRAD)
def test_gradgradcheck(key: str):
    """Gradients of gradients (create_graph) against finite differences of the gradients."""
    fn, inputs = as_function(next(c for c in GRADCHECK if c.key == key))
    assert ember.autograd.gradgradcheck(fn, inputs, atol=1e-5, rtol=1e-4)


# ---- out= refuses inputs that require grad ------------------------------------------------

def out_cases() -> list[Case]:
    picked = {}
    for c in GOOD:
        op = OPS[c.key]
        if not op.schema.is_out or c.key in picked or c.keywords:
            continue
        specs = [v for n, v in c.values if isinstance(v, TensorSpec) and n != "out"]
        if specs and all(v.dtype == "float32" and v.layout == "contiguous" for v in specs) and \
                dict(c.values).get("out") is not None and dict(c.values)["out"].dtype == "float32":
            picked[c.key] = c
    return list(picked.values())


OUT_CASES = out_cases()


@pytest.mark.parametrize("case", OUT_CASES, ids=[c.id for c in OUT_CASES])
def test_out_refuses_requires_grad(case: Case):
    """out= with an input that requires grad: Ember raises RuntimeError where PyTorch does
    (and returns where PyTorch returns: out= of a non-differentiable op)."""
    op, row = OPS[case.key], ROWS[case.key]
    e_vals, t_vals = ot.build_inputs(case, op, row, seed_of(case))
    first = next(n for n, v in case.values if isinstance(v, TensorSpec) and n != "out")
    e_vals[first].requires_grad_()
    t_vals[first].requires_grad_()
    t = ot.run(case, op, row, torch, t_vals)
    e = ot.run(case, op, row, ember, e_vals)
    if t.error is None:
        assert e.error is None, f"Ember raised {e.error!r}; PyTorch returned"
    else:
        assert isinstance(e.error, RuntimeError), f"PyTorch raised {t.error!r}; Ember: {e.error!r}"
        if "don't support automatic differentiation" in str(t.error):
            assert "don't support automatic differentiation" in str(e.error)


def test_cases_cover_every_differentiable_row():
    """Each row with formulas has gradient cases, and gradcheck cases unless excluded."""
    keys = {c.key for c in GRAD_CASES}
    checked = {c.key for c in GRADCHECK}
    missing = [k for k in ROWS if k in OPS and formula_inputs(k) and k not in keys
               and k not in COMPLEX_INPUT]
    assert not missing, f"rows with formulas but no gradient case: {missing}"
    unchecked = [k for k in keys if formula_inputs(k) and k not in checked and k not in NO_GRADCHECK
                 and k not in COMPLEX_INPUT
                 and not OPS[k].schema.is_inplace]
    assert not unchecked, f"rows with formulas but no gradcheck case: {unchecked}"
