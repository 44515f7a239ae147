"""The Optimizer base class and the constructors, against torch.optim: signatures, argument
errors, parameter groups, zero_grad, hooks, differentiable, and SparseAdam's deferral."""
import copy
import inspect
import warnings

import pytest
import torch

import ember
import ember.optim

# torch.optim optimizers Ember does not have yet.
_NOT_IN_EMBER = {"Adafactor", "Muon"}
_OPTIMIZERS = sorted(n for n in dir(torch.optim)
                     if isinstance(getattr(torch.optim, n), type)
                     and issubclass(getattr(torch.optim, n), torch.optim.Optimizer)
                     and n != "Optimizer" and n not in _NOT_IN_EMBER)


def test_every_torch_optimizer_exists():
    assert len(_OPTIMIZERS) == 13
    for name in _OPTIMIZERS:
        assert issubclass(getattr(ember.optim, name), ember.optim.Optimizer), name


@pytest.mark.parametrize("name", _OPTIMIZERS)
def test_constructor_signature_matches_torch(name):
    pe = inspect.signature(getattr(ember.optim, name).__init__).parameters
    pt = inspect.signature(getattr(torch.optim, name).__init__).parameters
    assert list(pe) == list(pt)
    for key, param in pt.items():
        assert pe[key].kind == param.kind, key
        assert pe[key].default == param.default, key


@pytest.mark.parametrize("name", [n for n in _OPTIMIZERS if n != "SparseAdam"])
def test_defaults_and_group_keys_match_torch(name):
    oe = getattr(ember.optim, name)([ember.zeros(2, requires_grad=True)])
    ot = getattr(torch.optim, name)([torch.zeros(2, requires_grad=True)])
    assert oe.defaults == ot.defaults
    assert list(oe.param_groups[0]) == list(ot.param_groups[0])
    assert repr(oe) == repr(ot)


def _bad_args():
    two = "tensor2"
    return [
        ("SGD", dict(lr=-0.1)), ("SGD", dict(momentum=-0.5)), ("SGD", dict(weight_decay=-1)),
        ("SGD", dict(nesterov=True)), ("SGD", dict(nesterov=True, momentum=0.9, dampening=0.1)),
        ("SGD", dict(lr=two)),
        ("SGD", dict(fused=True, foreach=True)), ("SGD", dict(fused=True, differentiable=True)),
        ("Adam", dict(lr=-1e-3)), ("Adam", dict(eps=-1.0)), ("Adam", dict(betas=(1.0, 0.9))),
        ("Adam", dict(betas=(0.9, -0.1))), ("Adam", dict(weight_decay=-0.1)),
        ("Adam", dict(betas=(0, 0.9))), ("Adam", dict(fused=True, foreach=True)),
        ("Adam", dict(fused=True, differentiable=True)), ("Adam", dict(lr=two)),
        ("AdamW", dict(betas=(0.9, 1.0))), ("AdamW", dict(weight_decay=-1.0)),
        ("Adagrad", dict(lr_decay=-1)), ("Adagrad", dict(initial_accumulator_value=-1)),
        ("Adagrad", dict(eps=-1)), ("Adagrad", dict(fused=True, differentiable=True)),
        ("Adadelta", dict(rho=1.5)), ("Adadelta", dict(lr=-1)), ("Adadelta", dict(eps=-1)),
        ("RMSprop", dict(alpha=-0.1)), ("RMSprop", dict(momentum=-1)),
        ("RMSprop", dict(eps=-1)),
        ("Adamax", dict(betas=(-0.1, 0.9))), ("Adamax", dict(eps=-1)), ("Adamax", dict(lr=two)),
        ("NAdam", dict(momentum_decay=-1)), ("NAdam", dict(betas=(0.9, 1.5))),
        ("NAdam", dict(weight_decay=-1)),
        ("RAdam", dict(weight_decay=-1)), ("RAdam", dict(betas=(1.1, 0.9))),
        ("RAdam", dict(eps=-1)),
        ("ASGD", dict(lr=-1)), ("ASGD", dict(weight_decay=-1)),
        ("Rprop", dict(etas=(1.2, 0.5))), ("Rprop", dict(etas=(0.5, 1.0))),
        ("Rprop", dict(lr=-1)),
        ("LBFGS", dict(lr=-1)), ("LBFGS", dict(lr=two)),
        ("SparseAdam", dict(lr=0.0)), ("SparseAdam", dict(eps=0.0)),
        ("SparseAdam", dict(betas=(0.9, 1.0))),
    ]


def _lib_kwargs(lib, kwargs):
    return {k: (lib.tensor([0.1, 0.2]) if v == "tensor2" else v) for k, v in kwargs.items()}


@pytest.mark.parametrize("case", _bad_args(), ids=lambda c: f"{c[0]}-{c[1]}")
def test_bad_arguments_raise_what_torch_raises(case):
    name, kwargs = case
    with pytest.raises(Exception) as te:
        getattr(torch.optim, name)([torch.zeros(2, requires_grad=True)],
                                   **_lib_kwargs(torch, kwargs))
    with pytest.raises(Exception) as ee:
        getattr(ember.optim, name)([ember.zeros(2, requires_grad=True)],
                                   **_lib_kwargs(ember, kwargs))
    assert ee.type is te.type
    assert str(ee.value) == str(te.value)


def test_sparse_adam_is_deferred_to_the_sparse_issue():
    with pytest.raises(NotImplementedError, match="Sparse issue"):
        ember.optim.SparseAdam([ember.zeros(2, requires_grad=True)], lr=0.01)


def test_param_group_errors_and_warnings():
    w = ember.ones(2, requires_grad=True)
    with pytest.raises(TypeError, match="iterable of Tensors or dicts"):
        ember.optim.SGD(w, lr=0.1)
    with pytest.raises(ValueError, match="empty parameter list"):
        ember.optim.SGD([], lr=0.1)
    with pytest.raises(TypeError, match="ordered collections"):
        ember.optim.SGD([{"params": {w}}], lr=0.1)
    with pytest.raises(TypeError, match="can only optimize Tensors"):
        ember.optim.SGD([w, 3.0], lr=0.1)
    with pytest.raises(ValueError, match="can't optimize a non-leaf Tensor"):
        ember.optim.SGD([w * 2], lr=0.1)
    with pytest.warns(UserWarning, match="duplicate parameters"):
        ember.optim.SGD([w, w], lr=0.1)
    opt = ember.optim.SGD([w], lr=0.1)
    with pytest.raises(ValueError, match="more than one parameter group"):
        opt.add_param_group({"params": [w]})
    with pytest.raises(TypeError, match="param_group must be a dict"):
        opt.add_param_group([w])
    v = ember.ones(2, requires_grad=True)
    opt.add_param_group({"params": v, "lr": 0.5})
    assert opt.param_groups[1]["lr"] == 0.5 and opt.param_groups[1]["momentum"] == 0
    with pytest.raises(ValueError, match="different number of parameter groups"):
        opt.load_state_dict({"state": {}, "param_groups": [{"lr": 0.1, "params": [0]}]})
    with pytest.raises(ValueError, match="doesn't match the size"):
        opt.load_state_dict({"state": {}, "param_groups": [{"params": [0, 1]},
                                                           {"params": [2]}]})
    # A required hyperparameter must come from the group.
    from ember.optim.optimizer import required
    with pytest.raises(ValueError, match="didn't specify a value of required"):
        ember.optim.SGD([w], lr=required)


def test_duplicate_parameters_pack_like_torch():
    for lib in (ember, torch):
        w = lib.ones(2, requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            opt = lib.optim.SGD([w, w], lr=0.1)
        assert opt.state_dict()["param_groups"][0]["params"] == [1, 1]


def test_named_parameters_go_to_param_names():
    results = {}
    for lib in (ember, torch):
        a, b = lib.ones(2, requires_grad=True), lib.ones(3, requires_grad=True)
        opt = lib.optim.Adam([("a", a), ("b", b)], lr=0.1)
        a.grad, b.grad = lib.ones(2), lib.ones(3)
        opt.step()
        saved = opt.state_dict()
        results[lib.__name__] = (list(saved["param_groups"][0]),
                                 saved["param_groups"][0]["param_names"])
        with pytest.raises(ValueError, match="with/without names"):
            lib.optim.SGD([("a", a), b], lr=0.1)
        with pytest.raises(ValueError, match="cannot add param group without names"):
            opt.add_param_group({"params": [lib.ones(1, requires_grad=True)]})
        # Loading a state dict without names keeps the optimizer's names.
        plain = opt.state_dict()
        for g in plain["param_groups"]:
            del g["param_names"]
        opt.load_state_dict(plain)
        assert opt.param_groups[0]["param_names"] == ["a", "b"]
    assert results["ember"] == results["torch"]


def test_zero_grad():
    w = ember.ones(3, requires_grad=True)
    opt = ember.optim.SGD([w], lr=0.1)
    (w * w).sum().backward()
    opt.zero_grad()
    assert w.grad is None
    (w * w).sum().backward()
    grad = w.grad
    opt.zero_grad(set_to_none=False)
    assert w.grad is grad and w.grad.tolist() == [0.0, 0.0, 0.0]
    opt.step()  # zero gradient: nothing moves
    assert w.tolist() == [1.0, 1.0, 1.0]
    # A gradient that is itself part of a graph is detached before being zeroed.
    x = ember.ones(3, requires_grad=True)
    w.grad = x * 2
    opt.zero_grad(set_to_none=False)
    assert w.grad.grad_fn is None and w.grad.tolist() == [0.0, 0.0, 0.0]


def test_step_hooks_run_in_torch_order():
    calls = []
    w = ember.ones(2, requires_grad=True)
    opt = ember.optim.SGD([w], lr=0.5)
    w.grad = ember.ones(2)

    def pre(o, args, kwargs):
        calls.append(("pre", args, dict(kwargs)))
        return (), {"closure": lambda: calls.append("closure") or 7.0}

    h1 = opt.register_step_pre_hook(pre)
    h2 = opt.register_step_post_hook(lambda o, a, k: calls.append(("post", a, sorted(k))))
    h3 = ember.optim.optimizer.register_optimizer_step_pre_hook(
        lambda o, a, k: calls.append("global-pre"))
    h4 = ember.optim.optimizer.register_optimizer_step_post_hook(
        lambda o, a, k: calls.append("global-post"))
    try:
        assert opt.step() == 7.0
    finally:
        h3.remove()
        h4.remove()
    assert calls == ["global-pre", ("pre", (), {}), "closure", ("post", (), ["closure"]),
                     "global-post"]
    h1.remove()
    h2.remove()
    calls.clear()
    opt.step()
    assert calls == []
    opt.register_step_pre_hook(lambda o, a, k: 5)
    with pytest.raises(RuntimeError, match="must return None or a tuple"):
        opt.step()


def test_state_dict_hooks():
    w = ember.ones(2, requires_grad=True)
    opt = ember.optim.SGD([w], lr=0.5, momentum=0.9)
    w.grad = ember.ones(2)
    opt.step()
    calls = []
    opt.register_state_dict_pre_hook(lambda o: calls.append("pre"))
    opt.register_state_dict_pre_hook(lambda o: calls.append("pre-first"), prepend=True)

    def post(o, sd):
        calls.append("post")
        sd["extra"] = 1
        return sd

    opt.register_state_dict_post_hook(post)
    saved = opt.state_dict()
    assert calls == ["pre-first", "pre", "post"] and saved["extra"] == 1

    def load_pre(o, sd):
        calls.append("load-pre")
        sd = dict(sd)
        sd["param_groups"] = [dict(g, lr=0.25) for g in sd["param_groups"]]
        return sd

    opt.register_load_state_dict_pre_hook(load_pre)
    opt.register_load_state_dict_post_hook(lambda o: calls.append("load-post"))
    opt.load_state_dict(saved)
    assert calls[-2:] == ["load-pre", "load-post"]
    assert opt.param_groups[0]["lr"] == 0.25 and saved["param_groups"][0]["lr"] == 0.5


def test_deepcopy_keeps_state_and_hooks_work():
    w = ember.ones(2, requires_grad=True)
    opt = ember.optim.Adam([w], lr=0.1)
    w.grad = ember.ones(2)
    opt.step()
    clone = copy.deepcopy(opt)
    (p,) = clone.param_groups[0]["params"]
    assert p is not w and clone.state[p]["exp_avg"].tolist() == opt.state[w]["exp_avg"].tolist()
    calls = []
    clone.register_step_post_hook(lambda o, a, k: calls.append(1))
    p.grad = ember.ones(2)
    clone.step()
    assert calls == [1]


def test_differentiable_step_records_the_update():
    """With differentiable=True the step runs under autograd, so gradients flow through the
    update to what the parameters were computed from (torch's meta-learning use)."""
    results = {}
    for lib in (ember, torch):
        base = lib.tensor([1.0, -2.0, 3.0], requires_grad=True)
        lr = 0.1
        p = base.clone()
        grad = lib.tensor([0.5, 0.5, -1.0])
        opt = lib.optim.SGD([p], lr=lr, momentum=0.9, weight_decay=0.1, differentiable=True)
        p.grad = grad
        opt.step()
        (p * p).sum().backward()
        results[lib.__name__] = (p.detach().numpy().tolist(), base.grad.numpy().tolist())
    assert results["ember"][0] == pytest.approx(results["torch"][0])
    assert results["ember"][1] == pytest.approx(results["torch"][1])
    # Without it the step is outside autograd.
    w = ember.ones(2, requires_grad=True)
    opt = ember.optim.Adam([w], lr=0.1)
    w.grad = ember.ones(2)
    opt.step()
    assert w.grad_fn is None and opt.state[w]["exp_avg"].grad_fn is None
