"""Autograd's behaviour against PyTorch's: leaves and history, the engine's options, hooks,
modes, views and in-place ops, custom functions, anomaly detection, gradcheck, and the
errors of each (the message PyTorch gives, as the same Python exception class)."""
from __future__ import annotations

import gc
import re

import numpy as np
import pytest
import torch

import ember


def both(fn):
    """fn(lib) for Ember and PyTorch."""
    return fn(ember), fn(torch)


def close(a, b, tol=1e-6):
    if a is None or b is None:
        assert a is None and b is None, (a, b)
        return
    x = np.asarray(a.detach().numpy(), dtype=np.float64)
    y = np.asarray(b.detach().numpy(), dtype=np.float64)
    assert x.shape == y.shape, (x.shape, y.shape)
    np.testing.assert_allclose(x, y, rtol=tol, atol=tol)


def raises_like(fn, pattern: str):
    """fn(lib) raises the same class in both libraries, Ember's message matching pattern."""
    errors = []
    for lib in (ember, torch):
        with pytest.raises(Exception) as info:
            fn(lib)
        errors.append(info.value)
    e, t = errors
    assert isinstance(e, type(t)) or isinstance(t, type(e)) or (
        isinstance(e, RuntimeError) and isinstance(t, RuntimeError)), (repr(e), repr(t))
    assert re.search(pattern, str(e)), str(e)
    return e


# ---- leaves, history, graph objects ---------------------------------------------------------

def test_leaf_and_history_attributes():
    def run(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = x * 3
        z = y.exp()
        return x, y, z
    (ex, ey, ez), (tx, ty, tz) = both(run)
    assert ex.is_leaf and ex.requires_grad and ex.grad_fn is None
    assert not ey.is_leaf and ey.requires_grad
    assert ez.grad_fn.name() == tz.grad_fn.name() == "ExpBackward0"
    assert ey.grad_fn.name() == "MulBackward1" and ty.grad_fn.name() == "MulBackward0"  # numbering
    (nf, nr), = ez.grad_fn.next_functions
    assert nf == ey.grad_fn and nr == 0
    acc, _ = ey.grad_fn.next_functions[0]
    assert acc.name() == "AccumulateGrad" and acc.variable is ex
    plain = ember.ones(2)
    assert plain.is_leaf and not plain.requires_grad and (plain * 2).grad_fn is None
    assert "grad_fn=<ExpBackward0>" in repr(ez) and "requires_grad=True" in repr(ex)


def test_requires_grad_rules():
    raises_like(lambda lib: lib.tensor([1, 2]).requires_grad_(), "floating point")
    raises_like(lambda lib: (lib.ones(2, requires_grad=True) * 2).requires_grad_(False),
                "only change requires_grad flags of leaf variables")
    x = ember.ones(2, requires_grad=True)
    x.requires_grad = False
    assert not x.requires_grad
    assert ember.ones(2, dtype=ember.complex64).requires_grad_().requires_grad  # test_complex_autograd.py


def test_detach_shares_data_and_version():
    x = ember.ones(3, requires_grad=True)
    y = x * 2
    d = y.detach()
    assert not d.requires_grad and d.is_leaf and d.data_ptr() == y.data_ptr()
    v = y._version
    d.add_(1)
    assert y._version == v + 1
    y.detach_()
    assert y.is_leaf and not y.requires_grad
    assert not x.data.requires_grad and x.data.data_ptr() == x.data_ptr()


# ---- the engine ---------------------------------------------------------------------------

def test_backward_accumulates_and_sums_to_input_shape_and_dtype():
    def run(lib):
        a = lib.ones(3, 1, dtype=lib.float64, requires_grad=True)
        b = lib.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
        (a * b).sum().backward()
        (a * b * 2).sum().backward()
        return a.grad, b.grad
    (ea, eb), (ta, tb) = both(run)
    close(ea, ta)
    close(eb, tb)
    assert ea.dtype == ember.float64 and eb.dtype == ember.float32 and tuple(ea.shape) == (3, 1)


def test_backward_gradient_argument_and_scalar_rule():
    def run(lib):
        x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        (x * x).backward(gradient=lib.tensor([1.0, 0.5, -1.0]))
        return x.grad
    close(*both(run))
    raises_like(lambda lib: (lib.ones(3, requires_grad=True) * 2).backward(),
                "grad can be implicitly created only for scalar outputs")
    raises_like(lambda lib: (lib.ones(3, requires_grad=True) * 2).backward(lib.ones(2)),
                "Mismatch in shape")
    raises_like(lambda lib: lib.ones(3).sum().backward(), "does not require grad")


def test_second_backward_needs_retain_graph():
    def run(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = (x.exp() * x).sum()
        y.backward(retain_graph=True)
        y.backward()
        return x.grad
    close(*both(run))

    def twice(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = (x.exp() * x).sum()
        y.backward()
        y.backward()
    raises_like(twice, "backward through the graph a second time")


def test_create_graph_gives_higher_order_gradients():
    def run(lib):
        x = lib.tensor([0.5, -1.0, 2.0], dtype=lib.float64, requires_grad=True)
        y = (x.sin() * x * x).sum()
        (g,) = lib.autograd.grad(y, x, create_graph=True)
        (g2,) = lib.autograd.grad(g.sum(), x, create_graph=True)
        (g3,) = lib.autograd.grad(g2.sum(), x)
        return g, g2, g3
    for e, t in zip(*both(run)):
        close(e, t, 1e-12)


def test_backward_with_create_graph_leaves_a_differentiable_grad():
    def run(lib):
        x = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)
        (x ** 3).sum().backward(create_graph=True)
        g = x.grad
        assert g.requires_grad
        (h,) = lib.autograd.grad(g.sum(), x)
        return h
    close(*both(run))


def test_grad_inputs_allow_unused_and_non_leaf_inputs():
    def run(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        w = lib.tensor([3.0, 4.0], requires_grad=True)
        h = x * 2
        y = (h * h).sum()
        gh, gx, gw = lib.autograd.grad(y, [h, x, w], allow_unused=True)
        assert x.grad is None
        return gh, gx, gw
    for e, t in zip(*both(run)):
        close(e, t)
    raises_like(lambda lib: lib.autograd.grad((lib.ones(2, requires_grad=True) * 2).sum(),
                                              [lib.ones(2, requires_grad=True)]),
                "appears to not have been used in the graph")
    raises_like(lambda lib: lib.autograd.grad((lib.ones(2, requires_grad=True) * 2).sum(), [lib.ones(2)]),
                "does not require grad")

    def materialized(lib):
        x = lib.ones(2, requires_grad=True)
        unused = lib.ones(3, requires_grad=True)
        return lib.autograd.grad((x * 2).sum(), [x, unused], materialize_grads=True)[1]
    close(*both(materialized))


def test_backward_inputs_limits_accumulation():
    def run(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        w = lib.tensor([3.0, 4.0], requires_grad=True)
        h = x * w
        h.retain_grad()
        (h * h).sum().backward(inputs=[w])
        return x.grad, w.grad
    for e, t in zip(*both(run)):
        close(e, t)

    def non_leaf(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        h = x * 3
        (h * h).sum().backward(inputs=[h])
        return h.grad, x.grad
    for e, t in zip(*both(non_leaf)):
        close(e, t)


def test_multiple_roots_and_shared_subgraphs():
    def run(lib):
        x = lib.tensor([1.0, -2.0, 3.0], requires_grad=True)
        a = x.exp()
        b = a * x
        c = a.sin()
        lib.autograd.backward([b.sum(), c], [None, lib.tensor([1.0, 2.0, 3.0])])
        return x.grad
    close(*both(run), 1e-5)


def test_a_million_node_chain_builds_runs_and_frees_without_recursion():
    x = ember.ones(4, requires_grad=True)
    y = x
    for _ in range(1_000_000):
        y = y * 1.0
    y.sum().backward()
    assert x.grad.tolist() == [1.0, 1.0, 1.0, 1.0]
    del y
    gc.collect()
    z = x
    for _ in range(1_000_000):
        z = z.exp().log()  # two nodes per step, each saving a tensor
    del z  # freed without backward


# ---- hooks -------------------------------------------------------------------------------

def test_tensor_hooks_see_and_replace_gradients():
    def run(lib):
        seen = []
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = x * 3
        h1 = y.register_hook(lambda g: seen.append(g.tolist()))
        y.register_hook(lambda g: g * 10)
        x.register_hook(lambda g: g + 1)
        (y * y).sum().backward()
        h1.remove()
        (x * 3 * 2).sum().backward()
        return seen, x.grad
    (es, eg), (ts, tg) = both(run)
    assert es == ts
    close(eg, tg)
    raises_like(lambda lib: lib.ones(2).register_hook(lambda g: g), "doesn't require gradient")


def test_retain_grad_and_post_accumulate_hooks():
    def run(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = x * x
        y.retain_grad()
        y.register_hook(lambda g: g * 2)  # retain_grad sees the gradient after the hooks
        calls = []
        x.register_post_accumulate_grad_hook(lambda t: calls.append(t.grad.tolist()))
        y.sum().backward()
        y2 = x * 2
        assert y2.grad is None if lib is ember else True
        return y.grad, x.grad, calls, y.retains_grad
    (eg, ex, ec, er), (tg, tx, tc, tr) = both(run)
    close(eg, tg)
    close(ex, tx)
    assert ec == tc and er == tr
    raises_like(lambda lib: (lib.ones(2, requires_grad=True) * 2).register_post_accumulate_grad_hook(print),
                "non-leaf")


# ---- modes -------------------------------------------------------------------------------

def test_no_grad_enable_grad_set_grad_enabled_and_decorators():
    x = ember.ones(2, requires_grad=True)
    with ember.no_grad():
        assert not (x * 2).requires_grad
        with ember.enable_grad():
            assert (x * 2).requires_grad
    assert (x * 2).requires_grad

    @ember.no_grad()
    def f(t):
        return t * 2
    assert not f(x).requires_grad and ember.is_grad_enabled()
    with ember.set_grad_enabled(False):
        assert not ember.is_grad_enabled()
    assert ember.is_grad_enabled()
    ember.set_grad_enabled(False)
    assert not (x * 2).requires_grad
    ember.set_grad_enabled(True)

    @ember.no_grad()
    def gen():
        yield (x * 2).requires_grad
    assert list(gen()) == [False]

    @ember.no_grad
    def bare(t):
        return t * 2
    assert not bare(x).requires_grad
    with ember.no_grad():

        @ember.enable_grad
        def inside(t):
            return t * 2
        assert inside(x).requires_grad


def test_optimiser_style_leaf_writes_under_no_grad():
    x = ember.ones(2, requires_grad=True)
    (x * 3).sum().backward()
    with ember.no_grad():
        x.sub_(x.grad * 0.1)
    assert x.is_leaf and x.requires_grad
    np.testing.assert_allclose(x.detach().numpy(), [0.7, 0.7], rtol=1e-6)


def test_inference_mode_skips_recording_and_version_counting():
    x = ember.ones(2, requires_grad=True)
    y = ember.ones(2)
    with ember.inference_mode():
        assert ember.is_inference_mode_enabled() and not ember.is_grad_enabled()
        z = x * 2
        v = y._version
        y.add_(1)
        assert y._version == v
        with ember.inference_mode(False):
            assert (x * 2).requires_grad
    assert not z.requires_grad and ember.is_grad_enabled() and not ember.is_inference_mode_enabled()

    @ember.inference_mode()
    def f():
        return (x * 2).requires_grad
    assert f() is False


# ---- in-place ops and views --------------------------------------------------------------

def test_in_place_errors():
    raises_like(lambda lib: lib.ones(2, requires_grad=True).add_(1), "a leaf Variable that requires grad")
    raises_like(lambda lib: lib.ones(2, 2, requires_grad=True).select(0, 0).mul_(2),
                "a view of a leaf Variable that requires grad|a leaf Variable")

    def modified(lib):
        a = lib.tensor([1.0, 2.0], requires_grad=True)
        c = a.sin()
        d = c.cos()
        c.mul_(2)
        d.sum().backward()
    e = raises_like(modified, "one of the variables needed for gradient computation has been "
                              "modified by an inplace operation")
    assert "is at version 1; expected version 0 instead" in str(e)


def test_in_place_ops_record_history():
    def run(lib):
        x = lib.tensor([0.5, 1.0, 2.0], requires_grad=True)
        w = lib.tensor([2.0, 3.0, 4.0], requires_grad=True)
        y = x * 1
        y.mul_(w).sin_().add_(x)
        y.sum().backward()
        return x.grad, w.grad, y.grad_fn.name()
    (ex, ew, en), (tx, tw, tn) = both(run)
    close(ex, tx, 1e-5)
    close(ew, tw, 1e-5)
    assert en == tn == "AddBackward0"


def test_in_place_on_views_rewrites_the_base_history():
    def run(lib):
        x = lib.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
        y = x * 2
        v = y.select(0, 1)
        t = y.t()
        v.mul_(lib.tensor([1.0, 10.0, 100.0]))
        names = (y.grad_fn.name(), v.grad_fn.name(), t.grad_fn.name())
        (y * y).sum().backward(retain_graph=True)
        g1 = x.grad.clone()
        x.grad = None
        (t * 3).sum().backward()
        return g1, x.grad, names
    (e1, e2, en), (t1, t2, tn) = both(run)
    close(e1, t1, 1e-5)
    close(e2, t2, 1e-5)
    assert en[0] == "CopySlices" and tn[0].endswith("CopySlices")
    assert en[1:] == tn[1:] == ("AsStridedBackward0", "AsStridedBackward0")

    def into_plain_base(lib):
        w = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        b = lib.zeros(2, 3)
        b.select(0, 0).copy_(w * 3)
        assert b.requires_grad
        (b * b).sum().backward()
        return w.grad
    close(*both(into_plain_base))


def test_out_forms_refuse_inputs_that_require_grad():
    raises_like(lambda lib: lib.add(lib.ones(2, requires_grad=True), lib.ones(2), out=lib.empty(2)),
                "don't support automatic differentiation")
    x = ember.ones(2, requires_grad=True)
    with ember.no_grad():
        out = ember.empty(2)
        ember.add(x, ember.ones(2), out=out)
    assert out.tolist() == [2.0, 2.0]


# ---- custom functions ----------------------------------------------------------------------

def make_function(lib):
    class Cube(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, k):
            y = x ** 3 * k
            ctx.save_for_backward(x, y)
            ctx.k = k
            idx = (x > 0).to(lib.int64)
            ctx.mark_non_differentiable(idx)
            return y, idx

        @staticmethod
        def backward(ctx, gy, gidx):
            x, y = ctx.saved_tensors
            assert ctx.needs_input_grad == (True, False)
            return gy * 3 * x * x * ctx.k, None
    return Cube


def test_custom_python_function():
    def run(lib):
        Cube = make_function(lib)
        x = lib.tensor([1.0, -2.0], dtype=lib.float64, requires_grad=True)
        y, idx = Cube.apply(x, 2.0)
        assert not idx.requires_grad and y.requires_grad
        (y * y).sum().backward()
        return x.grad, y.grad_fn.name()
    (eg, en), (tg, tn) = both(run)
    close(eg, tg)
    assert en == tn == "CubeBackward"
    Cube = make_function(ember)
    x = ember.tensor([0.3, -0.7], dtype=ember.float64, requires_grad=True)
    assert ember.autograd.gradcheck(lambda t: Cube.apply(t, 2.0)[0], (x,))

    class Bad(ember.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g, g
    with pytest.raises(RuntimeError, match="incorrect number of gradients"):
        Bad.apply(ember.ones(2, requires_grad=True)).sum().backward()


def test_custom_function_saved_tensors_are_version_checked_and_freed():
    class Sq(ember.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 2 * x * g
    x = ember.ones(2, requires_grad=True)
    h = x * 1
    y = Sq.apply(h)
    h.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()
    y = Sq.apply(x * 1).sum()
    y.backward()
    with pytest.raises(RuntimeError, match="second time"):
        y.backward()


# ---- anomaly detection and gradcheck -------------------------------------------------------

def test_detect_anomaly_names_the_node_that_made_nan():
    x = ember.tensor([0.0, 1.0], requires_grad=True)
    y = x.sqrt()  # backward at 0: grad / (2 * 0) = inf, then 0 * inf = nan below
    z = (y * 0).sum()
    with ember.autograd.detect_anomaly():
        assert ember.autograd.is_anomaly_enabled()
        with pytest.raises(RuntimeError, match=r"Function 'SqrtBackward0' returned nan values in "
                                               r"its 0th output \(the backward of aten::sqrt\)"):
            z.backward()
    assert not ember.autograd.is_anomaly_enabled()


def test_gradcheck_catches_a_wrong_backward():
    class Wrong(ember.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x.sin()

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * x.cos() * 1.01
    x = ember.tensor([0.3, 0.9], dtype=ember.float64, requires_grad=True)
    with pytest.raises(ember.autograd.GradcheckError, match="Jacobian mismatch"):
        ember.autograd.gradcheck(Wrong.apply, (x,))
    assert ember.autograd.gradcheck(Wrong.apply, (x,), raise_exception=False) is False
    with pytest.raises(ValueError, match="requires_grad=True"):
        ember.autograd.gradcheck(lambda t: t * 2, (ember.ones(2, dtype=ember.float64),))


# ---- composite expressions ----------------------------------------------------------------

def test_composite_expressions_match_pytorch():
    rng = np.random.default_rng(0)
    xs = [rng.standard_normal((4, 5)) for _ in range(3)]

    def run(lib):
        a, b, c = (lib.from_numpy(x.copy()).requires_grad_() for x in xs)
        h = (a * b + c).tanh()
        s = h.softmax(1) if hasattr(h, "softmax") and lib is torch and False else (h - h.logsumexp(1, keepdim=True)).exp()
        loss = (s * c.sigmoid()).sum(0).pow(2).mean() + a.var(1).sum() + b.abs().max() + \
            lib.where(a > 0, a, b * 0.5).norm() + a.t().mean(0).prod()
        loss.backward()
        return a.grad, b.grad, c.grad, loss
    for e, t in zip(*both(run)):
        close(e, t, 1e-9)


# Note [Gradient layout]: a leaf's .grad takes the leaf's strides when it is non-overlapping
# and dense, else contiguous strides, as PyTorch's AccumulateGrad.
def _leaf(lib, case):
    lib.manual_seed(0)
    base = np.arange(60, dtype=np.float32).reshape(3, 4, 5) / 7
    t = lib.tensor(base)
    if case == "transposed":
        t = t[0].t()
    elif case == "strided":
        t = t[:, ::2, 1]
    elif case == "channels_last":
        t = t.reshape(1, 3, 4, 5).contiguous(memory_format=lib.channels_last)
    elif case == "expanded_size1":
        t = t[:1, 0].t()
    elif case == "permuted":
        t = t.permute(2, 0, 1)
    return t.detach().requires_grad_()


@pytest.mark.parametrize("case", ["contiguous", "transposed", "strided", "channels_last",
                                  "expanded_size1", "permuted"])
@pytest.mark.parametrize("twice", [False, True])
def test_grad_layout_contract(case, twice):
    results = []
    for lib in (torch, ember):
        w = _leaf(lib, case)
        (w.exp() * 2).sum().backward()
        if twice:
            (w * w).sum().backward()
        results.append((w.grad.stride(), w.grad.detach().numpy().copy()))
    assert results[1][0] == results[0][0]
    np.testing.assert_allclose(results[1][1], results[0][1], rtol=1e-6)


def test_linear_weight_grad_flattens():
    lin = ember.nn.Linear(3, 4)
    lin(ember.randn(5, 3)).sum().backward()
    assert lin.weight.grad.stride() == (3, 1)
    assert lin.weight.grad.view(-1).shape == (12,)


def test_grad_layout_under_create_graph():
    for lib in (torch, ember):
        w = _leaf(lib, "transposed")
        (w.exp()).sum().backward(create_graph=True)
        assert w.grad.stride() == (1, 5) and w.grad.requires_grad
        (g2,) = lib.autograd.grad(w.grad.sum(), w)
        np.testing.assert_allclose(g2.detach().numpy(), w.exp().detach().numpy(), rtol=1e-6)
