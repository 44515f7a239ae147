"""ember.func against torch.func on the same functions and inputs (float64 unless a test says
otherwise): grad, grad_and_value, vjp, jvp, jacrev, jacfwd, hessian, vmap and functional_call,
with has_aux, tuple argnums, pytree inputs and outputs, nesting, and the errors."""
import numpy as np
import pytest

import ember
import ember.func as ef
import ember.nn as enn

torch = pytest.importorskip("torch")
tf = torch.func


def E(a):
    return ember.from_numpy(np.array(a, copy=True))


def T(a):
    return torch.from_numpy(np.array(a, copy=True))


def rand(*shape, seed=0, dtype=np.float64):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def to_np(x):
    return x.detach().numpy() if isinstance(x, torch.Tensor) else np.asarray(x.detach())


def assert_tree_close(e, t, rtol=1e-9, atol=1e-11):
    """e (ember) and t (torch) have the same structure and close leaves."""
    if isinstance(t, (tuple, list)):
        assert isinstance(e, (tuple, list)) and type(e) is type(t) and len(e) == len(t), (e, t)
        for a, b in zip(e, t):
            assert_tree_close(a, b, rtol, atol)
    elif isinstance(t, dict):
        assert isinstance(e, dict) and list(e) == list(t)
        for k in t:
            assert_tree_close(e[k], t[k], rtol, atol)
    elif isinstance(t, torch.Tensor):
        assert isinstance(e, ember.Tensor), type(e)
        assert tuple(e.shape) == tuple(t.shape)
        assert str(e.dtype).split(".")[-1] == str(t.dtype).split(".")[-1]
        np.testing.assert_allclose(to_np(e), to_np(t), rtol=rtol, atol=atol)
    else:
        assert e == t


def both(fn_of_lib, arrays):
    """fn_of_lib(ember, *ember tensors) and fn_of_lib(torch, *torch tensors), compared."""
    e = fn_of_lib(ember, *[E(a) for a in arrays])
    t = fn_of_lib(torch, *[T(a) for a in arrays])
    assert_tree_close(e, t)
    return e, t


def lib_func(lib):
    return ef if lib is ember else tf


# Scalar functions of (x, y), written once for either library.
SCALAR_FNS = {
    "sin_mul": lambda lib, x, y: (lib.sin(x) * y ** 2).sum(),
    "broadcast": lambda lib, x, y: (x.unsqueeze(-1) * y.unsqueeze(0)).tanh().sum(),
    "matmul_exp": lambda lib, x, y: lib.exp(x @ y.reshape(3, 1) * 0.1).sum(),
    "log_softmax": lambda lib, x, y: (lib.log_softmax(x, dim=-1) * y).sum(),
}


@pytest.mark.parametrize("name", list(SCALAR_FNS))
@pytest.mark.parametrize("argnums", [0, 1, (0, 1), (1, 0), -1])
def test_grad(name, argnums):
    f = SCALAR_FNS[name]
    both(lambda lib, x, y: lib_func(lib).grad(lambda a, b: f(lib, a, b), argnums=argnums)(x, y),
         [rand(2, 3), rand(3, seed=1)])


@pytest.mark.parametrize("name", list(SCALAR_FNS))
def test_grad_and_value_has_aux(name):
    f = SCALAR_FNS[name]

    def run(lib, x, y):
        def g(a, b):
            out = f(lib, a, b)
            return out, {"double": out * 2, "pair": (a.sum(), b)}
        return lib_func(lib).grad_and_value(g, argnums=(0, 1), has_aux=True)(x, y)
    e, _ = both(run, [rand(2, 3), rand(3, seed=1)])
    assert not e[1][0].requires_grad and not e[0][0].requires_grad
    both(lambda lib, x, y: lib_func(lib).grad(lambda a, b: (f(lib, a, b), a * 2), has_aux=True)(x, y),
         [rand(2, 3), rand(3, seed=1)])


def test_grad_special_inputs():
    f = lambda lib, x: (x ** 3).sum()  # noqa: E731
    for arr in (np.array(1.5), rand(0, 3), rand(3, 4)):
        both(lambda lib, x: lib_func(lib).grad(lambda a: f(lib, a))(x), [arr])
    # A non-contiguous input, and float32.
    both(lambda lib, x: lib_func(lib).grad(lambda a: f(lib, a))(x.t()), [rand(3, 4)])
    e = ef.grad(lambda a: (a * a).sum())(E(rand(3, dtype=np.float32)))
    assert e.dtype == ember.float32
    # An input the output does not depend on gets zeros.
    both(lambda lib, x, y: lib_func(lib).grad(lambda a, b: a.sum() * 2, argnums=(0, 1))(x, y), [rand(2), rand(3)])
    # A constant output.
    both(lambda lib, x: lib_func(lib).grad(lambda a: lib.ones(()) * 2)(x), [rand(2)])


def test_grad_pytree_input():
    def run(lib, w, b, x):
        def loss(p, x):
            return ((x @ p["w"] + p["b"][0]) ** 2).mean()
        return lib_func(lib).grad(loss)({"w": w, "b": (b,)}, x)
    e, _ = both(run, [rand(3, 2), rand(2, seed=1), rand(4, 3, seed=2)])
    assert isinstance(e["b"], tuple)


def test_grad_of_grad_and_closure():
    both(lambda lib, x: lib_func(lib).grad(lib_func(lib).grad(lambda a: lib.sin(a) ** 3))(x), [np.array(0.7)])
    third = lambda lib, x: lib_func(lib).grad(lib_func(lib).grad(lib_func(lib).grad(  # noqa: E731
        lambda a: lib.exp(a) * a ** 4)))(x)
    both(third, [np.array(0.3)])

    # The inner function closes over the outer variable.
    def mixed(lib, x):
        func = lib_func(lib)
        return func.grad(lambda a: func.grad(lambda b: (a * b ** 2).sum())(a * 3).sum())(x)
    both(mixed, [rand(3)])


def test_grad_composes_with_autograd_and_no_grad():
    x_np = rand(3)
    results = []
    for lib in (ember, torch):
        x = (E if lib is ember else T)(x_np).requires_grad_(True)
        g = lib_func(lib).grad(lambda a: (lib.sin(a) * a).sum())(x)
        assert g.requires_grad
        (g * g).sum().backward()
        results.append((g, x.grad))
    assert_tree_close(results[0], results[1])
    g = ef.grad(lambda a: (a * a).sum())(E(x_np))
    assert not g.requires_grad
    with ember.no_grad():
        g = ef.grad(lambda a: (a * a).sum())(E(x_np))
    np.testing.assert_allclose(to_np(g), 2 * x_np)
    # A graph shared with the caller survives the transform.
    w = E(x_np).requires_grad_(True)
    h = w.exp()
    np.testing.assert_allclose(to_np(ef.grad(lambda a: (h * a).sum())(E(x_np))), np.exp(x_np))
    h.sum().backward()
    np.testing.assert_allclose(to_np(w.grad), np.exp(x_np))


def test_grad_errors():
    x = E(rand(3))
    with pytest.raises(RuntimeError, match=r"grad_and_value\(f\)\(\*args\): expected f\(\*args\) to return a scalar "
                                           r"Tensor, but got a tensor with 1 dims"):
        ef.grad(lambda a: a * 2)(x)
    with pytest.raises(RuntimeError, match="return a scalar Tensor, but got float"):
        ef.grad(lambda a: 1.0)(x)
    with pytest.raises(RuntimeError, match=r"expected argnums in \[-1, 1\) for 1 positional inputs, but got argnum=2"):
        ef.grad(lambda a: a.sum(), argnums=2)(x)
    with pytest.raises(TypeError, match="expected argnums to be an int or a non-empty tuple of ints"):
        ef.grad(lambda a: a.sum(), argnums=[0])(x)
    with pytest.raises(RuntimeError, match="expected argnums to be unique"):
        ef.grad(lambda a, b: a.sum(), argnums=(0, -2))(x, x)
    with pytest.raises(RuntimeError, match=r"expected f to return a tuple \(output, aux\) since has_aux=True"):
        ef.grad(lambda a: a.sum(), has_aux=True)(x)
    with pytest.raises(TypeError, match="to have a floating-point dtype, but got ember.int64"):
        ef.grad(lambda a: a.sum())(ember.arange(3))
    with pytest.raises(TypeError, match="to be Tensors, but got float"):
        ef.grad(lambda a: a * 2)(2.0)


# ---- vjp and jvp ---------------------------------------------------------------------------

def two_outputs(lib, x, y):
    return lib.sin(x) * y, (x @ y).exp()


def test_vjp():
    def run(lib, x, y, c0, c1):
        out, fn = lib_func(lib).vjp(lambda a, b: two_outputs(lib, a, b), x, y)
        first = fn((c0, c1))
        return out, first, fn((c0 * 2, c1))
    both(run, [rand(3), rand(3, seed=1), rand(3, seed=2), np.array(0.5)])

    def aux(lib, x, c):
        out, fn, a = lib_func(lib).vjp(lambda v: (v.cos(), {"sq": v * v}), x, has_aux=True)
        return out, fn(c), a
    e, _ = both(aux, [rand(2, 3), rand(2, 3, seed=1)])
    assert not e[0].requires_grad and not e[2]["sq"].requires_grad
    # A single non-contiguous primal and a 0-d one.
    both(lambda lib, x, c: lib_func(lib).vjp(lambda v: v * 3, x.t())[1](c), [rand(3, 2), rand(2, 3, seed=1)])
    both(lambda lib, x: lib_func(lib).vjp(lambda v: v.exp(), x)[1](lib.ones(())), [np.array(0.2)])


def test_vjp_errors():
    _, fn = ef.vjp(lambda a: (a, a * 2), E(rand(3)))
    with pytest.raises(RuntimeError, match=r"vjp_fn\(cotangents\): expected cotangents with the structure"):
        fn(E(rand(3)))
    with pytest.raises(RuntimeError, match=r"expected each cotangent to have its output's shape \(3,\), but got \(2,\)"):
        fn((E(rand(3)), E(rand(2))))
    with pytest.raises(RuntimeError, match="expected f\\(\\*primals\\) to return only Tensors, but got int"):
        ef.vjp(lambda a: 3, E(rand(3)))


def test_jvp():
    def run(lib, x, y, tx, ty):
        return lib_func(lib).jvp(lambda a, b: two_outputs(lib, a, b), (x, y), (tx, ty))
    both(run, [rand(3), rand(3, seed=1), rand(3, seed=2), rand(3, seed=3)])

    def aux(lib, x, t):
        return lib_func(lib).jvp(lambda v: (lib.tanh(v).sum(0), v.mean()), (x,), (t,), has_aux=True)
    both(aux, [rand(4, 2), rand(4, 2, seed=1)])
    # Broadcasting inside, a 0-d primal.
    both(lambda lib, x, y, t: lib_func(lib).jvp(lambda a: a * y.unsqueeze(1), (x,), (t,)),
         [rand(3), rand(2, seed=1), rand(3, seed=2)])
    both(lambda lib, x, t: lib_func(lib).jvp(lambda a: a.sin() * a, (x,), (t,)), [np.array(0.4), np.array(2.0)])


def test_jvp_errors():
    x = E(rand(3))
    with pytest.raises(RuntimeError, match=r"jvp\(f, primals, tangents\): expected primals and tangents to be tuples"):
        ef.jvp(lambda a: a, x, x)
    with pytest.raises(RuntimeError, match="expected each tangent to have its primal's shape"):
        ef.jvp(lambda a: a, (x,), (E(rand(2)),))
    with pytest.raises(RuntimeError, match="expected tangents to have the structure of primals"):
        ef.jvp(lambda a: a, (x,), (x, x))


# ---- Jacobians and Hessians ----------------------------------------------------------------

VECTOR_FNS = {
    "elementwise": lambda lib, x, y: lib.sin(x) * y,
    "matmul": lambda lib, x, y: x.reshape(3, 1) * y.reshape(1, 3) @ x,
    "reduce": lambda lib, x, y: (x * y).sum().exp(),
    "stack": lambda lib, x, y: lib.stack([x[0] * y[1], lib.exp(x[2]), y.sum()]),
}


@pytest.mark.parametrize("jac", ["jacrev", "jacfwd"])
@pytest.mark.parametrize("name", list(VECTOR_FNS))
@pytest.mark.parametrize("argnums", [0, 1, (0, 1)])
def test_jacobians(jac, name, argnums):
    f = VECTOR_FNS[name]
    both(lambda lib, x, y: getattr(lib_func(lib), jac)(lambda a, b: f(lib, a, b), argnums=argnums)(x, y),
         [rand(3), rand(3, seed=1)])


@pytest.mark.parametrize("jac", ["jacrev", "jacfwd"])
def test_jacobian_structures(jac):
    def run(lib, x, y):
        fn = lambda a, b: {"p": a * b.sum(), "q": (a.unsqueeze(0) * b.unsqueeze(1)).tanh()}  # noqa: E731
        return getattr(lib_func(lib), jac)(fn, argnums=(0, 1))(x, y)
    both(run, [rand(2), rand(3, seed=1)])
    both(lambda lib, x: getattr(lib_func(lib), jac)(lambda a: (a.exp(), a.sum()))(x), [rand(2, 2)])
    both(lambda lib, x: getattr(lib_func(lib), jac)(lambda a: (a * a, a.mean()), has_aux=True)(x), [rand(3)])
    # 0-d input and output, a non-contiguous input, an empty output.
    both(lambda lib, x: getattr(lib_func(lib), jac)(lambda a: a.sin() * a)(x), [np.array(0.3)])
    both(lambda lib, x: getattr(lib_func(lib), jac)(lambda a: a.exp())(x.t()), [rand(3, 2)])
    both(lambda lib, x: getattr(lib_func(lib), jac)(lambda a: a[:0] * 2)(x), [rand(3)])
    both(lambda lib, x: getattr(lib_func(lib), jac)(lambda a: (a * 2).float())(x), [rand(3)])


@pytest.mark.parametrize("name", list(SCALAR_FNS))
def test_hessian(name):
    f = SCALAR_FNS[name]
    both(lambda lib, x, y: lib_func(lib).hessian(lambda a, b: f(lib, a, b))(x, y), [rand(2, 3), rand(3, seed=1)])
    both(lambda lib, x, y: lib_func(lib).hessian(lambda a, b: f(lib, a, b), argnums=(0, 1))(x, y),
         [rand(2, 3), rand(3, seed=1)])


def test_nested_jacobians():
    f = lambda lib, x: (x ** 3).sum() * lib.sin(x).sum()  # noqa: E731
    for outer in ("jacrev", "jacfwd"):
        for inner in ("jacrev", "jacfwd"):
            both(lambda lib, x: getattr(lib_func(lib), outer)(getattr(lib_func(lib), inner)(lambda a: f(lib, a)))(x),
                 [rand(3)])
    both(lambda lib, x: lib_func(lib).jacrev(lib_func(lib).grad(lambda a: f(lib, a)))(x), [rand(3)])


def test_jacobian_errors():
    with pytest.raises(RuntimeError, match=r"jacrev\(f\)\(\*args\): expected f to return only Tensors, but got float"):
        ef.jacrev(lambda a: 1.0)(E(rand(3)))
    with pytest.raises(RuntimeError, match=r"jacfwd\(f\)\(\*args\): expected argnums in"):
        ef.jacfwd(lambda a: a, argnums=1)(E(rand(3)))
    with pytest.raises(RuntimeError, match="expected randomness to be 'error', 'different' or 'same'"):
        ef.jacfwd(lambda a: a, randomness="fresh")


# ---- vmap ----------------------------------------------------------------------------------

def test_vmap_in_dims_and_out_dims():
    both(lambda lib, x, y: lib_func(lib).vmap(lambda a, b: a @ b, in_dims=(0, None))(x, y), [rand(4, 2, 3), rand(3)])
    both(lambda lib, x, y: lib_func(lib).vmap(lambda a, b: a * b, in_dims=(1, 0), out_dims=1)(x, y),
         [rand(2, 5, 3), rand(5, 3, seed=1)])
    both(lambda lib, x: lib_func(lib).vmap(lambda a: a.sum(), in_dims=-1)(x), [rand(2, 4)])
    both(lambda lib, x: lib_func(lib).vmap(lambda a: (a * 2, a.sum()), out_dims=(1, 0))(x), [rand(3, 2)])
    both(lambda lib, x: lib_func(lib).vmap(lambda a: (a * 2, a.sum()), out_dims=-1)(x), [rand(3, 2)])
    # in_dims as a pytree per argument, dict outputs, out_dims=None for an unbatched output.
    both(lambda lib, x, y: lib_func(lib).vmap(lambda p: {"s": p["a"] + p["b"], "a": p["a"]},
                                             in_dims=({"a": 0, "b": None},))({"a": x, "b": y}),
         [rand(3, 2), rand(2, seed=1)])
    both(lambda lib, x, y: lib_func(lib).vmap(lambda a, b: (a * 2, b), in_dims=(0, None), out_dims=(0, None))(x, y),
         [rand(3, 2), rand(2, seed=1)])
    # Keyword arguments are passed whole; a non-contiguous input; a 1-D input gives 0-d slices.
    both(lambda lib, x, y: lib_func(lib).vmap(lambda a, scale: a * scale)(x, scale=y), [rand(3, 2), rand(2, seed=1)])
    both(lambda lib, x: lib_func(lib).vmap(lambda a: a.flip(0) * a)(x.t()), [rand(3, 4)])
    both(lambda lib, x: lib_func(lib).vmap(lambda a: a * a)(x), [rand(5)])


def test_vmap_nested_and_with_grad():
    both(lambda lib, x, y: lib_func(lib).vmap(lib_func(lib).vmap(lambda a, b: a * b), in_dims=(None, 0))(x, y),
         [rand(3), rand(4, 3, seed=1)])
    both(lambda lib, x, y: lib_func(lib).vmap(lib_func(lib).vmap(lambda a, b: (a * b).sum(), in_dims=(0, None)),
                                             in_dims=(None, 1))(x, y),
         [rand(2, 3), rand(3, 4, seed=1)])

    # Per-sample gradients of a linear model.
    def per_sample(lib, w, x, t):
        loss = lambda w, x, t: ((x @ w - t) ** 2).sum()  # noqa: E731
        return lib_func(lib).vmap(lib_func(lib).grad(loss), in_dims=(None, 0, 0))(w, x, t)
    both(per_sample, [rand(3, 2), rand(5, 3, seed=1), rand(5, 2, seed=2)])
    both(lambda lib, x: lib_func(lib).vmap(lib_func(lib).jacrev(lambda a: a.sin() * a.sum()))(x), [rand(4, 3)])


def test_vmap_gradients_flow():
    x_np, y_np = rand(4, 3), rand(3, seed=1)
    grads = []
    for lib, conv in ((ember, E), (torch, T)):
        x, y = conv(x_np).requires_grad_(True), conv(y_np).requires_grad_(True)
        out = lib_func(lib).vmap(lambda a, b: (a * b).sin().sum(), in_dims=(0, None))(x, y)
        (out * out).sum().backward()
        grads.append((out, x.grad, y.grad))
    assert_tree_close(grads[0], grads[1])


def test_vmap_errors():
    x = E(rand(2, 3))
    with pytest.raises(ValueError, match=r"vmap\(<lambda>, in_dims=0, \.\.\.\)\(<inputs>\): expected all mapped "
                                         r"inputs to have the same size in the mapped dimension, but got 2 and 3"):
        ef.vmap(lambda a, b: a + b)(x, E(rand(3, 3)))
    with pytest.raises(ValueError, match=r"expected in_dim to satisfy -1 <= in_dim < 1 .* got in_dim=1"):
        ef.vmap(lambda a: a, in_dims=1)(E(rand(2)))
    with pytest.raises(ValueError, match="expected a Tensor for in_dim=0, but got float"):
        ef.vmap(lambda a: a)(1.0)
    with pytest.raises(ValueError, match=r"expected in_dims to have one entry per positional input \(1\), but got 2"):
        ef.vmap(lambda a: a, in_dims=(0, 0))(x)
    with pytest.raises(ValueError, match="expected at least one Tensor input to be mapped"):
        ef.vmap(lambda a: a, in_dims=None)(x)
    with pytest.raises(ValueError, match="expected a non-empty batch"):
        ef.vmap(lambda a: a)(E(rand(0, 3)))
    with pytest.raises(ValueError, match="expected <lambda> to return only Tensors .* but got float"):
        ef.vmap(lambda a: 1.0)(x)
    with pytest.raises(IndexError, match=r"expected out_dim to satisfy -2 <= out_dim < 2 .* got out_dim=2"):
        ef.vmap(lambda a: a, out_dims=2)(x)
    with pytest.raises(ValueError, match="expected a structure compatible with"):
        ef.vmap(lambda a: a, out_dims=(0, 1))(x)
    with pytest.raises(ValueError, match="expected randomness to be 'error', 'different' or 'same', but got 'foo'"):
        ef.vmap(lambda a: a, randomness="foo")
    # randomness='same': every batch element draws the same numbers ('different': its own).
    z = ember.zeros(3, 4)
    same = ef.vmap(lambda a: a + ember.rand(4), randomness="same")(z)
    assert ember.equal(same[0], same[1]) and ember.equal(same[1], same[2])
    diff = ef.vmap(lambda a: a + ember.rand(4), randomness="different")(z)
    assert not ember.equal(diff[0], diff[1])
    assert tuple(ef.vmap(lambda a: a + ember.rand(()), randomness="different")(x).shape) == (2, 3)
    assert ember.vmap is ef.vmap


# ---- functional_call -----------------------------------------------------------------------

def test_functional_call_linear():
    w, b, x = rand(2, 3), rand(2, seed=1), rand(4, 3, seed=2)
    em, tm = enn.Linear(3, 2).double(), torch.nn.Linear(3, 2).double()
    e_before = {k: to_np(v).copy() for k, v in em.state_dict().items()}
    both(lambda lib, w, b, x: lib_func(lib).functional_call(em if lib is ember else tm, {"weight": w, "bias": b}, x),
         [w, b, x])
    for k, v in em.state_dict().items():
        np.testing.assert_array_equal(to_np(v), e_before[k])
        assert isinstance(getattr(em, k), enn.Parameter)
    # Only some names replaced; args as a tuple; kwargs; two dicts.
    tm.load_state_dict({k: T(to_np(v)) for k, v in em.state_dict().items()})
    both(lambda lib, w, x: lib_func(lib).functional_call(em if lib is ember else tm, {"weight": w}, (x,)), [w, x])
    both(lambda lib, w, b, x: lib_func(lib).functional_call(em if lib is ember else tm, ({"weight": w}, {"bias": b}),
                                                            args=(), kwargs={"input": x}), [w, b, x])


def make_mlps():
    torch.manual_seed(0)
    tm = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 2)).double()
    em = enn.Sequential(enn.Linear(3, 4), enn.Tanh(), enn.Linear(4, 2)).double()
    em.load_state_dict({k: E(to_np(v)) for k, v in tm.state_dict().items()})
    return em, tm


def test_functional_call_mlp_and_grad_of_params():
    em, tm = make_mlps()
    arrays = [rand(4, 3), rand(4, seed=1), rand(2, 4, seed=2), rand(5, 3, seed=3), rand(5, 2, seed=4)]

    def run(lib, w0, b0, w2, x, t):
        m = em if lib is ember else tm
        params = {"0.weight": w0, "0.bias": b0, "2.weight": w2}
        loss = lambda p, x, t: ((lib_func(lib).functional_call(m, p, (x,)) - t) ** 2).mean()  # noqa: E731
        return lib_func(lib).grad_and_value(loss)(params, x, t)
    both(run, arrays)

    # Per-sample gradients of every parameter.
    def per_sample(lib, x, t):
        m = em if lib is ember else tm
        params = {k: v.detach() for k, v in m.named_parameters()}
        loss = lambda p, x, t: ((lib_func(lib).functional_call(m, p, (x,)) - t) ** 2).sum()  # noqa: E731
        return lib_func(lib).vmap(lib_func(lib).grad(loss), in_dims=(None, 0, 0))(params, x, t)
    both(per_sample, [rand(3, 3, seed=5), rand(3, 2, seed=6)])


def test_functional_call_buffers_and_restore_on_error():
    torch.manual_seed(0)
    tm = torch.nn.BatchNorm1d(3).double().eval()
    em = enn.BatchNorm1d(3).double().eval()
    both(lambda lib, mean, var, x: lib_func(lib).functional_call(em if lib is ember else tm,
                                                                 {"running_mean": mean, "running_var": var}, x),
         [rand(3), np.abs(rand(3, seed=1)) + 0.5, rand(4, 3, seed=2)])
    assert not to_np(em.running_mean).any()

    class Boom(enn.Module):
        def __init__(self):
            super().__init__()
            self.lin = enn.Linear(2, 2)

        def forward(self, x):
            raise ValueError("boom")
    m = Boom()
    old = m.lin.weight
    with pytest.raises(ValueError, match="boom"):
        ef.functional_call(m, {"lin.weight": ember.zeros(2, 2), "extra": ember.ones(1)}, ember.ones(1, 2))
    assert m.lin.weight is old and not hasattr(m, "extra")


class Tied(enn.Module):
    def __init__(self):
        super().__init__()
        self.a = enn.Linear(2, 2, bias=False)
        self.b = enn.Linear(2, 2, bias=False)
        self.b.weight = self.a.weight

    def forward(self, x):
        return self.b(self.a(x))


def test_functional_call_tied_weights():
    m = Tied()
    x, w = ember.ones(1, 2), E(rand(2, 2))
    expected = to_np(x) @ to_np(w).T @ to_np(w).T
    np.testing.assert_allclose(to_np(ef.functional_call(m, {"a.weight": w.float()}, x)), expected, rtol=1e-6)
    untied = to_np(ef.functional_call(m, {"a.weight": w.float()}, x, tie_weights=False))
    np.testing.assert_allclose(untied, to_np(x) @ to_np(w).T @ to_np(m.a.weight).T, rtol=1e-5)
    with pytest.raises(ValueError, match=r"functional_call got multiple values for keys \['a.weight', 'b.weight'\], "
                                         "which are tied"):
        ef.functional_call(m, {"a.weight": ember.ones(2, 2), "b.weight": ember.ones(2, 2)}, x)
    assert m.b.weight is m.a.weight


def test_functional_call_errors():
    m = enn.Linear(2, 2)
    with pytest.raises(RuntimeError, match="Error\\(s\\) in reparametrizing for Linear:\n\tUnexpected key\\(s\\): "
                                           "'foo'.\n\tMissing key\\(s\\): 'bias'."):
        ef.functional_call(m, {"weight": ember.ones(2, 2), "foo": ember.ones(1)}, ember.ones(1, 2), strict=True)
    with pytest.raises(ValueError, match=r"\['weight'\] appeared in multiple dictionaries"):
        ef.functional_call(m, ({"weight": ember.ones(2, 2)}, {"weight": ember.ones(2, 2)}), ember.ones(1, 2))
    with pytest.raises(TypeError, match="expected parameter_and_buffer_dicts to be a dict or a tuple of dicts"):
        ef.functional_call(m, [("weight", ember.ones(2, 2))], ember.ones(1, 2))


def test_stack_module_state_ensemble():
    torch.manual_seed(0)
    t_models = [torch.nn.Linear(3, 2).double() for _ in range(4)]
    e_models = [enn.Linear(3, 2).double() for _ in range(4)]
    for em, tm in zip(e_models, t_models):
        em.load_state_dict({k: E(to_np(v)) for k, v in tm.state_dict().items()})

    def run(lib, x):
        models = e_models if lib is ember else t_models
        func = lib_func(lib)
        params, buffers = func.stack_module_state(models)
        assert all(p.requires_grad and p.grad_fn is None for p in params.values()) and buffers == {}
        call = lambda p, x: func.functional_call(models[0], p, (x,))  # noqa: E731
        return params, func.vmap(call, in_dims=(0, None))(params, x)
    e, _ = both(run, [rand(5, 3)])
    assert tuple(e[0]["weight"].shape) == (4, 2, 3)
    bn = [enn.BatchNorm1d(2) for _ in range(2)]
    _, buffers = ef.stack_module_state(bn)
    assert list(buffers) == ["running_mean", "running_var", "num_batches_tracked"]
    assert tuple(buffers["running_var"].shape) == (2, 2) and not buffers["running_var"].requires_grad
    with pytest.raises(RuntimeError, match="expected at least one model"):
        ef.stack_module_state([])
    with pytest.raises(RuntimeError, match="expected all models to be in the same training/eval mode"):
        ef.stack_module_state([enn.Linear(2, 2), enn.Linear(2, 2).eval()])
    with pytest.raises(RuntimeError, match="expected all models to be of the same class"):
        ef.stack_module_state([enn.Linear(2, 2), enn.Tanh()])
    frozen = enn.Linear(2, 2)
    frozen.weight.requires_grad_(False)
    with pytest.raises(RuntimeError, match="expected weight to have the same requires_grad in every model"):
        ef.stack_module_state([enn.Linear(2, 2), frozen])
