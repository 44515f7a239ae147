"""The rest of torch.autograd's namespace against torch on the same inputs (float64):
autograd.functional (vjp, jvp, jacobian, hessian, vhp, hvp), forward_ad (make_dual /
unpack_dual), graph (saved_tensors_hooks, save_on_cpu, disable_saved_tensors_hooks, node
hooks, register_multi_grad_hook, GradientEdge, increment_version), the saved tensors of a node
(_saved_<name>, _raw_saved_<name>), enforce_grad_layout_policy, Variable, and the flags."""
import numpy as np
import pytest

import ember
import ember.autograd as EA

torch = pytest.importorskip("torch")
TA = torch.autograd


def rand(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


def E(a, rg=False):
    return ember.from_numpy(np.array(a, copy=True)).requires_grad_(rg)


def T(a, rg=False):
    return torch.from_numpy(np.array(a, copy=True)).requires_grad_(rg)


def close(e, t, tol=1e-10):
    if isinstance(t, (tuple, list)):
        assert isinstance(e, (tuple, list)) and len(e) == len(t)
        for a, b in zip(e, t):
            close(a, b, tol)
        return
    assert tuple(e.shape) == tuple(t.shape)
    np.testing.assert_allclose(e.detach().numpy(), t.detach().numpy(), rtol=tol, atol=tol)


def f_one(lib):
    return lambda x: (x.sin() * x).sum(-1)


def f_two(lib):
    return lambda x, y: (x.exp() * y, (x @ y.t()).tanh())


def scalar_two(lib):
    return lambda x, y: (x.cos() * y * y).sum()


# --- autograd.functional -----------------------------------------------------------------

def test_functional_vjp_jvp():
    a, b, v = rand(3, 4), rand(3, 4, seed=1), rand(3, seed=2)
    eo, ev = EA.functional.vjp(f_one(ember), E(a), E(v))
    to, tv = TA.functional.vjp(f_one(torch), T(a), T(v))
    close(eo, to), close(ev, tv)
    u = rand(3, 4, seed=3)
    eo, ej = EA.functional.jvp(f_one(ember), E(a), E(u))
    to, tj = TA.functional.jvp(f_one(torch), T(a), T(u))
    close(eo, to), close(ej, tj)
    # tuples of inputs and outputs
    vs = (rand(3, 4, seed=4), rand(3, 3, seed=5))
    eo, ev = EA.functional.vjp(f_two(ember), (E(a), E(b)), tuple(E(x) for x in vs))
    to, tv = TA.functional.vjp(f_two(torch), (T(a), T(b)), tuple(T(x) for x in vs))
    close(eo, to), close(ev, tv)
    assert not ev[0].requires_grad


def test_functional_jacobian_hessian_vhp_hvp():
    a, b = rand(3, 4), rand(3, 4, seed=1)
    close(EA.functional.jacobian(f_one(ember), E(a)), TA.functional.jacobian(f_one(torch), T(a)))
    ej = EA.functional.jacobian(f_two(ember), (E(a), E(b)))
    tj = TA.functional.jacobian(f_two(torch), (T(a), T(b)))
    for er, tr in zip(ej, tj):
        close(er, tr)
    close(EA.functional.hessian(scalar_two(ember), (E(a), E(b))),
          TA.functional.hessian(scalar_two(torch), (T(a), T(b))))
    v = (rand(3, 4, seed=2), rand(3, 4, seed=3))
    for name in ("vhp", "hvp"):
        eo, ev = getattr(EA.functional, name)(scalar_two(ember), (E(a), E(b)), tuple(E(x) for x in v))
        to, tv = getattr(TA.functional, name)(scalar_two(torch), (T(a), T(b)), tuple(T(x) for x in v))
        close(eo, to), close(ev, tv)


def test_functional_create_graph_and_strict():
    a = rand(4)
    x = E(a, True)
    j = EA.functional.jacobian(lambda t: t ** 3, x, create_graph=True)
    j.sum().backward()
    tx = T(a, True)
    TA.functional.jacobian(lambda t: t ** 3, tx, create_graph=True).sum().backward()
    close(x.grad, tx.grad)
    # an unused input: zeros, or an error when strict
    close(EA.functional.jacobian(lambda s, t: s * 2, (E(a), E(a))),
          TA.functional.jacobian(lambda s, t: s * 2, (T(a), T(a))))
    with pytest.raises(RuntimeError, match="independent of input 1"):
        EA.functional.jacobian(lambda s, t: s * 2, (E(a), E(a)), strict=True)
    with pytest.raises(TypeError, match="should be a Tensor"):
        EA.functional.vjp(f_one(ember), [1.0, 2.0])
    with pytest.raises(RuntimeError):
        EA.functional.hessian(lambda t: t * 2, E(a))   # not a scalar


# --- forward_ad ----------------------------------------------------------------------------

def test_forward_ad_dual_numbers():
    import ember.autograd.forward_ad as efwd
    import torch.autograd.forward_ad as tfwd
    a, u = rand(2, 3), rand(2, 3, seed=1)
    with efwd.dual_level():
        d = efwd.make_dual(E(a), E(u))
        out = (d.sin() * d).exp().sum(0)
        p, t = efwd.unpack_dual(out)
        assert efwd.unpack_dual(out).tangent is t or True
    with tfwd.dual_level():
        d = tfwd.make_dual(T(a), T(u))
        out = (d.sin() * d).exp().sum(0)
        tp, tt = tfwd.unpack_dual(out)
    close(p, tp), close(t, tt)
    with efwd.dual_level():
        assert efwd.unpack_dual(E(a)).tangent is None
    with pytest.raises(RuntimeError):
        efwd.make_dual(E(a), E(u))   # outside a dual level
    with efwd.dual_level(), pytest.raises(RuntimeError):
        efwd.make_dual(E(a), E(rand(3)))   # tangent shape


# --- saved tensors ---------------------------------------------------------------------------

def test_saved_tensors_hooks_pack_unpack():
    a = rand(5)
    x = E(a, True)
    packed, unpacked = [], []

    def pack(t):
        packed.append(t)
        return ("box", t.clone())

    def unpack(p):
        unpacked.append(p)
        return p[1]

    with EA.graph.saved_tensors_hooks(pack, unpack):
        y = (x * x.exp()).sum()
    y.backward()
    tx = T(a, True)
    tpacked = []
    with TA.graph.saved_tensors_hooks(lambda t: tpacked.append(t) or t, lambda t: t):
        ty = (tx * tx.exp()).sum()
    ty.backward()
    close(x.grad, tx.grad)
    assert len(packed) == len(tpacked) and len(unpacked) >= 1
    # hooks outside the block do not apply
    packed.clear()
    (x * x).sum().backward()
    assert packed == []


def test_saved_tensors_hooks_change_values_and_disable():
    x = E(rand(3), True)
    with EA.graph.saved_tensors_hooks(lambda t: t, lambda t: t * 0 + 1):
        y = (x * x).sum()   # saved x unpacks as ones: grad = 1 + 1
    y.backward()
    np.testing.assert_allclose(x.grad.numpy(), np.full(3, 2.0))
    with EA.graph.save_on_cpu():
        z = (x.sin()).sum()
    x.grad = None
    z.backward()
    np.testing.assert_allclose(x.grad.numpy(), np.cos(x.detach().numpy()))
    with EA.graph.disable_saved_tensors_hooks("no hooks here"):
        with pytest.raises(RuntimeError, match="no hooks here"):
            with EA.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
                pass
    with EA.graph.saved_tensors_hooks(lambda t: t, lambda t: t):   # enabled again
        pass


def test_saved_names_and_raw_saved():
    a, b = rand(3), rand(3, seed=1)
    x, y = E(a, True), E(b, True)
    out = x * y
    tx, ty = T(a, True), T(b, True)
    tout = tx * ty
    close(out.grad_fn._saved_other, tout.grad_fn._saved_other)
    close(out.grad_fn._saved_self, tout.grad_fn._saved_self)
    raw = out.grad_fn._raw_saved_self
    assert isinstance(raw, EA.SavedTensor)
    with pytest.raises(AttributeError):
        out.grad_fn._saved_nonexistent
    e = x.exp()
    close(e.grad_fn._saved_result, tx.exp().grad_fn._saved_result)
    # registering hooks on a raw saved tensor: unpack goes through them
    e2 = x.exp()
    e2.grad_fn._raw_saved_result.register_hooks(lambda t: t * 0, lambda t: t + 3)
    e2.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.full(3, 3.0))
    with pytest.raises(RuntimeError):
        e2.grad_fn._raw_saved_result.register_hooks(lambda t: t, lambda t: t)   # twice


def test_saved_tensor_after_free_raises():
    x = E(rand(3), True)
    y = x.exp()
    y.sum().backward()
    with pytest.raises(RuntimeError, match="freed|backward through the graph a second time"):
        y.grad_fn._saved_result


# --- node hooks, multi grad hooks, gradient edges -------------------------------------------

def test_node_pre_and_post_hooks():
    a = rand(4)
    x = E(a, True)
    y = x * 3
    seen = {}

    def pre(grad_outputs):
        seen["pre"] = grad_outputs[0].clone()
        return (grad_outputs[0] * 2,)

    def post(grad_inputs, grad_outputs):
        seen["post"] = grad_inputs[0].clone()
        return None

    h1 = y.grad_fn.register_prehook(pre)
    h2 = y.grad_fn.register_hook(post)
    y.sum().backward()
    np.testing.assert_allclose(seen["pre"].numpy(), np.ones(4))
    np.testing.assert_allclose(seen["post"].numpy(), np.full(4, 6.0))
    np.testing.assert_allclose(x.grad.numpy(), np.full(4, 6.0))
    h1.remove(), h2.remove()
    x.grad = None
    y2 = x * 3
    y2.grad_fn.register_hook(lambda gi, go: (gi[0] * 0 + 7,))
    y2.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.full(4, 7.0))
    assert isinstance(y2.grad_fn, EA.graph.Node)


def test_register_multi_grad_hook_all_and_any():
    x, y, z = (E(rand(2, seed=i), True) for i in range(3))
    got = []
    h = EA.graph.register_multi_grad_hook((x, y, z), lambda grads: got.append(grads))
    (x * 2 + y).sum().backward()
    assert len(got) == 1
    g = got[0]
    np.testing.assert_allclose(g[0].numpy(), np.full(2, 2.0))
    np.testing.assert_allclose(g[1].numpy(), np.ones(2))
    assert g[2] is None
    h.remove()
    (x + y).sum().backward()
    assert len(got) == 1
    anys = []
    EA.graph.register_multi_grad_hook((x, y), lambda grad: anys.append(grad), mode="any")
    (x + y).sum().backward()
    (x * y).sum().backward()
    assert len(anys) == 2
    with pytest.raises(ValueError, match="mode"):
        EA.graph.register_multi_grad_hook((x,), lambda g: None, mode="some")


def test_gradient_edge_and_increment_version():
    x = E(rand(3), True)
    y = x.exp()
    edge = EA.graph.get_gradient_edge(y)
    assert edge.node is y.grad_fn and edge.output_nr == 0
    z = (y * 2).sum()
    (g,) = EA.grad(z, edge)
    np.testing.assert_allclose(g.numpy(), np.full(3, 2.0))
    w = E(rand(3))
    v = w._version
    EA.graph.increment_version(w)
    assert w._version == v + 1
    # a saved tensor whose version moved is refused at backward, as in torch
    u = E(rand(3), True) * 1
    s = u.exp()
    t = (s * u).sum()
    EA.graph.increment_version(u)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        t.backward()


def test_allow_mutation_on_saved_tensors():
    a = rand(3)
    x = E(a, True)
    with EA.graph.allow_mutation_on_saved_tensors():
        y = x * 1
        z = (y * y).sum()
        with ember.no_grad():
            y.mul_(10)
    z.backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * a)


# --- gradient layout policy ----------------------------------------------------------------

def test_enforce_grad_layout_policy():
    def run(lib, on):
        p = lib.empty(2, 3, 4).permute(2, 0, 1).requires_grad_()
        mod = EA if lib is ember else TA
        with mod.enforce_grad_layout_policy(on):
            (p * 2).sum().backward()
        return p.grad.stride(), p.stride()

    for on in (True, False):
        eg, ep = run(ember, on)
        tg, tp = run(torch, on)
        assert eg == tg, (on, eg, tg)
    assert EA.enforce_grad_layout_policy  # ctx restored: default is enforcing
    p = ember.empty(2, 3, 4).permute(2, 0, 1).requires_grad_()
    (p * 2).sum().backward()
    assert p.grad.stride() == p.stride()
    EA.enforce_grad_layout_policy(False)
    assert not ember._C._is_grad_layout_enforced()
    EA.enforce_grad_layout_policy(True)
    assert ember._C._is_grad_layout_enforced()


# --- Variable and flags ------------------------------------------------------------------------

def test_variable_and_flags():
    x = ember.ones(2)
    assert isinstance(x, EA.Variable)
    assert not isinstance(3, EA.Variable)
    assert EA.is_view_replay_enabled() is True
    assert EA.is_multithreading_enabled()
    with EA.set_multithreading_enabled(False):
        assert not EA.is_multithreading_enabled()
    assert EA.is_multithreading_enabled()
    assert EA.profiler.kineto_available() is False


def test_autograd_names_match_torch():
    public = {n for n in dir(TA) if not n.startswith("_")}
    typing_or_torch = {"Mapping", "Sequence", "cast", "overload", "torch", "warnings",
                       "handle_torch_function", "has_torch_function", "is_tensor_like",
                       "NestedIOFunction", "ProfilerEvent"}
    missing = sorted(n for n in public - typing_or_torch if not hasattr(EA, n))
    assert missing == [], missing
