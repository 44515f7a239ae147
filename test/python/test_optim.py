"""ember.optim and ember.optim.lr_scheduler against torch.optim (single-tensor algorithms)."""
import math

import numpy as np
import pytest
import torch

import ember
import ember.optim
from ember.optim import lr_scheduler as elrs

_STEPS = 100


def _problem(dtype):
    """Starting weights and data of a small linear model fitted by MSE (numpy, fixed seed)."""
    rng = np.random.default_rng(0)
    return {
        "w": rng.standard_normal((3, 4)).astype(dtype),
        "b": rng.standard_normal(3).astype(dtype),
        "x": rng.standard_normal((8, 4)).astype(dtype),
        "y": rng.standard_normal((8, 3)).astype(dtype),
    }


def _loss(lib, w, b, x, y):
    out = lib.matmul(x, w.t()) + b
    return ((out - y) ** 2).mean()


def _params(lib, prob):
    w = lib.tensor(prob["w"].copy(), requires_grad=True)
    b = lib.tensor(prob["b"].copy(), requires_grad=True)
    return w, b


def _run(lib, opt_cls, kwargs, prob, steps, *, groups=None, opt=None, params=None):
    """Takes `steps` steps with `opt_cls(**kwargs)`; returns params and optimizer."""
    if params is None:
        params = _params(lib, prob)
    w, b = params
    x, y = lib.tensor(prob["x"]), lib.tensor(prob["y"])
    if opt is None:
        if groups is None:
            opt = opt_cls([w, b], **kwargs)
        else:
            opt = opt_cls([{"params": [w], **groups[0]}, {"params": [b], **groups[1]}],
                          **kwargs)
    for _ in range(steps):
        opt.zero_grad()
        _loss(lib, w, b, x, y).backward()
        opt.step()
    return (w, b), opt


def _torch_kwargs(opt_name, kwargs):
    kw = dict(kwargs)
    kw["foreach"] = False
    return kw


def _assert_params_close(ember_params, torch_params):
    for pe, pt in zip(ember_params, torch_params):
        expected = pt.detach().numpy()
        got = pe.detach().numpy()
        scale = max(1.0, float(np.abs(expected).max()))
        tol = (1e-5 if expected.dtype == np.float32 else 1e-10) * scale
        np.testing.assert_allclose(got, expected, rtol=0, atol=tol)


_CASES = [
    ("SGD", dict(lr=0.05)),
    ("SGD", dict(lr=0.05, momentum=0.9)),
    ("SGD", dict(lr=0.05, momentum=0.9, dampening=0.3, weight_decay=0.01)),
    ("SGD", dict(lr=0.05, momentum=0.9, nesterov=True, weight_decay=0.01)),
    ("SGD", dict(lr=0.01, momentum=0.5, maximize=True)),
    ("Adam", dict(lr=0.01)),
    ("Adam", dict(lr=0.01, betas=(0.8, 0.99), eps=1e-6, weight_decay=0.05)),
    ("Adam", dict(lr=0.01, amsgrad=True)),
    ("Adam", dict(lr=0.01, amsgrad=True, weight_decay=0.1, maximize=True)),
    ("Adam", dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True)),
    ("AdamW", dict(lr=0.01)),
    ("AdamW", dict(lr=0.01, weight_decay=0.1, amsgrad=True)),
    ("AdamW", dict(lr=0.01, betas=(0.5, 0.9), maximize=True)),
    ("RMSprop", dict(lr=0.01)),
    # At lr=0.01 this one sits where a near-zero gradient coordinate flips sign after ~80
    # steps, so float32 rounding differences in the gradients are amplified to 1e-2.
    ("RMSprop", dict(lr=0.005, alpha=0.9, eps=1e-6, weight_decay=0.01)),
    ("RMSprop", dict(lr=0.01, momentum=0.9)),
    ("RMSprop", dict(lr=0.01, centered=True)),
    ("RMSprop", dict(lr=0.005, centered=True, momentum=0.5, weight_decay=0.1, maximize=True)),
    ("Adagrad", dict(lr=0.1)),
    ("Adagrad", dict(lr=0.1, lr_decay=0.01, weight_decay=0.01)),
    ("Adagrad", dict(lr=0.1, initial_accumulator_value=0.5, eps=1e-6, maximize=True)),
    ("Adadelta", dict()),
    ("Adadelta", dict(lr=0.5, rho=0.95, eps=1e-5, weight_decay=0.01)),
    ("Adadelta", dict(lr=0.5, maximize=True)),
]


def _case_id(case):
    name, kw = case
    return name + "-" + "-".join(f"{k}={v}" for k, v in kw.items())


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("case", _CASES, ids=_case_id)
def test_optimizer_matches_torch(case, dtype):
    name, kwargs = case
    prob = _problem(dtype)
    pe, _ = _run(ember, getattr(ember.optim, name), kwargs, prob, _STEPS)
    pt, _ = _run(torch, getattr(torch.optim, name), _torch_kwargs(name, kwargs), prob, _STEPS)
    _assert_params_close(pe, pt)


@pytest.mark.parametrize("name", ["SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adadelta"])
def test_param_groups_with_different_lr(name):
    prob = _problem(np.float32)
    base = {"SGD": dict(momentum=0.9)}.get(name, {})
    groups = [{"lr": 0.02}, {"lr": 0.2}]
    pe, oe = _run(ember, getattr(ember.optim, name), dict(lr=0.01, **base), prob, 30,
                  groups=groups)
    pt, ot = _run(torch, getattr(torch.optim, name), dict(lr=0.01, foreach=False, **base),
                  prob, 30, groups=groups)
    _assert_params_close(pe, pt)
    assert [g["lr"] for g in oe.param_groups] == [0.02, 0.2]
    assert oe.param_groups[0].keys() == ot.param_groups[0].keys()


@pytest.mark.parametrize("case", [c for c in _CASES if not c[1].get("maximize")], ids=_case_id)
def test_state_dict_round_trip(case):
    name, kwargs = case
    cls = getattr(ember.optim, name)
    prob = _problem(np.float64)
    straight, _ = _run(ember, cls, kwargs, prob, 40)
    params, opt = _run(ember, cls, kwargs, prob, 20)
    saved = opt.state_dict()
    # The format is PyTorch's: integer keys and index lists.
    t_params, t_opt = _run(torch, getattr(torch.optim, name), _torch_kwargs(name, kwargs),
                           prob, 20)
    t_saved = t_opt.state_dict()
    assert sorted(saved["state"]) == sorted(t_saved["state"])
    assert [g["params"] for g in saved["param_groups"]] == [[0, 1]]
    for i in t_saved["state"]:
        assert sorted(saved["state"][i]) == sorted(t_saved["state"][i])
    assert saved["param_groups"][0].keys() == t_saved["param_groups"][0].keys()

    w2 = ember.tensor(params[0].detach().numpy().copy(), requires_grad=True)
    b2 = ember.tensor(params[1].detach().numpy().copy(), requires_grad=True)
    opt2 = cls([w2, b2], **kwargs)
    opt2.load_state_dict(saved)
    resumed, _ = _run(ember, cls, kwargs, prob, 20, opt=opt2, params=(w2, b2))
    for a, b in zip(resumed, straight):
        np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())


def test_load_state_dict_does_not_alias_saved_state():
    w = ember.zeros(3, requires_grad=True)
    opt = ember.optim.SGD([w], lr=0.1, momentum=0.9)
    w.grad = ember.ones(3)
    opt.step()
    saved = opt.state_dict()
    opt2 = ember.optim.SGD([w], lr=0.1, momentum=0.9)
    opt2.load_state_dict(saved)
    opt2.step()
    assert saved["state"][0]["momentum_buffer"].tolist() == [1.0, 1.0, 1.0]


def test_zero_grad():
    w = ember.ones(3, requires_grad=True)
    opt = ember.optim.SGD([w], lr=0.1)
    (w * w).sum().backward()
    opt.zero_grad()
    assert w.grad is None
    (w * w).sum().backward()
    opt.zero_grad(set_to_none=False)
    assert w.grad is not None and w.grad.tolist() == [0.0, 0.0, 0.0]
    opt.step()  # zero gradient: nothing moves
    assert w.tolist() == [1.0, 1.0, 1.0]


def test_params_without_grad_are_skipped():
    w = ember.ones(2, requires_grad=True)
    v = ember.ones(2, requires_grad=True)
    opt = ember.optim.Adam([w, v], lr=0.1)
    (w * 2).sum().backward()
    opt.step()
    assert v.tolist() == [1.0, 1.0]
    assert v not in opt.state and "exp_avg" in opt.state[w]


def test_step_closure_returns_loss():
    w = ember.ones(2, requires_grad=True)
    opt = ember.optim.SGD([w], lr=0.1)

    def closure():
        opt.zero_grad()
        loss = (w * w).sum()
        loss.backward()
        return loss

    loss = opt.step(closure)
    assert loss.item() == 2.0
    np.testing.assert_allclose(w.detach().numpy(), [0.8, 0.8], rtol=1e-6)


def test_optimizer_errors():
    w = ember.ones(2, requires_grad=True)
    with pytest.raises(TypeError):
        ember.optim.SGD(w, lr=0.1)
    with pytest.raises(ValueError, match="empty parameter list"):
        ember.optim.SGD([], lr=0.1)
    with pytest.raises(ValueError, match="more than one parameter group"):
        ember.optim.SGD([w, w], lr=0.1)
    with pytest.raises(ValueError, match="non-leaf"):
        ember.optim.SGD([w * 2], lr=0.1)
    with pytest.raises(ValueError):
        ember.optim.SGD([w], lr=-1.0)
    with pytest.raises(ValueError):
        ember.optim.SGD([w], lr=0.1, nesterov=True)
    with pytest.raises(ValueError):
        ember.optim.Adam([w], betas=(1.0, 0.9))
    opt = ember.optim.SGD([w], lr=0.1)
    with pytest.raises(ValueError, match="more than one parameter group"):
        opt.add_param_group({"params": [w]})
    v = ember.ones(2, requires_grad=True)
    opt.add_param_group({"params": v, "lr": 0.5})
    assert opt.param_groups[1]["lr"] == 0.5
    assert opt.param_groups[1]["momentum"] == 0
    with pytest.raises(ValueError):
        opt.load_state_dict({"state": {}, "param_groups": [{"lr": 0.1, "params": [0]}]})


# --- learning-rate schedulers ------------------------------------------------------------


def _sched_optim(lib, name="SGD", **kw):
    w = lib.zeros(2, requires_grad=True)
    b = lib.zeros(1, requires_grad=True)
    cls = getattr(lib.optim, name)
    base = dict(lr=0.1, **({"momentum": 0.9} if name == "SGD" else {}))
    base.update(kw)
    return cls([{"params": [w]}, {"params": [b], "lr": 0.05}], **base)


def _make_sched(mod, opt, spec):
    name, kwargs = spec
    if name == "LambdaLR":
        kwargs = dict(lr_lambda=[lambda e: 0.95 ** e, lambda e: 1.0 / (e + 1)])
    return getattr(mod, name)(opt, **kwargs)


_SCHEDULERS = [
    ("StepLR", dict(step_size=7, gamma=0.5)),
    ("MultiStepLR", dict(milestones=[5, 12, 12, 30], gamma=0.3)),
    ("ExponentialLR", dict(gamma=0.93)),
    ("CosineAnnealingLR", dict(T_max=10)),
    ("CosineAnnealingLR", dict(T_max=13, eta_min=0.001)),
    ("LambdaLR", dict()),
    ("LinearLR", dict()),
    ("LinearLR", dict(start_factor=0.2, end_factor=0.9, total_iters=20)),
    ("OneCycleLR", dict(max_lr=1.0, total_steps=51)),
    ("OneCycleLR", dict(max_lr=[1.0, 0.5], total_steps=51, anneal_strategy="linear",
                        pct_start=0.25)),
    ("OneCycleLR", dict(max_lr=0.3, epochs=5, steps_per_epoch=11, three_phase=True)),
    ("OneCycleLR", dict(max_lr=0.3, total_steps=60, cycle_momentum=False)),
]


@pytest.mark.parametrize("optim_name", ["SGD", "Adam"])
@pytest.mark.parametrize("spec", _SCHEDULERS, ids=_case_id)
def test_scheduler_matches_torch(spec, optim_name):
    oe, ot = _sched_optim(ember, optim_name), _sched_optim(torch, optim_name)
    se, st = _make_sched(elrs, oe, spec), _make_sched(torch.optim.lr_scheduler, ot, spec)
    assert se.get_last_lr() == pytest.approx(st.get_last_lr(), rel=1e-12)
    for _ in range(50):
        oe.step()
        ot.step()
        se.step()
        st.step()
        assert se.get_last_lr() == pytest.approx(st.get_last_lr(), rel=1e-12, abs=1e-15)
        for ge, gt in zip(oe.param_groups, ot.param_groups):
            assert ge["lr"] == pytest.approx(gt["lr"], rel=1e-12, abs=1e-15)
            if "momentum" in gt:
                assert ge["momentum"] == pytest.approx(gt["momentum"], rel=1e-12)
            if "betas" in gt:
                assert ge["betas"] == pytest.approx(gt["betas"], rel=1e-12)


@pytest.mark.parametrize("spec", [s for s in _SCHEDULERS if s[0] != "LambdaLR"],
                         ids=_case_id)
def test_scheduler_state_dict_round_trip(spec):
    opt = _sched_optim(ember)
    sched = _make_sched(elrs, opt, spec)
    for _ in range(10):
        opt.step()
        sched.step()
    saved = sched.state_dict()
    assert "optimizer" not in saved
    # PyTorch's resume order: build both, then load both.
    opt2 = _sched_optim(ember)
    sched2 = _make_sched(elrs, opt2, spec)
    opt2.load_state_dict(opt.state_dict())
    sched2.load_state_dict(saved)
    for _ in range(20):
        sched.step()
        sched2.step()
        assert sched.get_last_lr() == sched2.get_last_lr()


def test_lambda_lr_state_dict_keeps_callable_object_state():
    class Scale:
        def __init__(self, k):
            self.k = k

        def __call__(self, epoch):
            return self.k * epoch

    opt = _sched_optim(ember)
    sched = elrs.LambdaLR(opt, [Scale(2.0), lambda e: 1.0])
    saved = sched.state_dict()
    assert saved["lr_lambdas"] == [{"k": 2.0}, None]
    sched2 = elrs.LambdaLR(_sched_optim(ember), [Scale(5.0), lambda e: 1.0])
    sched2.load_state_dict(saved)
    assert sched2.lr_lambdas[0].k == 2.0


_PLATEAU = [
    dict(),
    dict(mode="max", factor=0.5, patience=2),
    dict(patience=1, threshold=0.1, threshold_mode="abs", cooldown=2, min_lr=0.004),
    dict(mode="max", patience=0, threshold=0.05, threshold_mode="rel", min_lr=[0.01, 0.002]),
    dict(factor=0.5, patience=0, eps=0.02),
]


@pytest.mark.parametrize("kwargs", _PLATEAU, ids=str)
def test_reduce_lr_on_plateau_matches_torch(kwargs):
    rng = np.random.default_rng(1)
    metrics = np.concatenate([np.linspace(1.0, 0.5, 10), 0.5 + 0.05 * rng.random(40)])
    metrics[30:] = np.linspace(0.45, 0.2, 20)
    oe, ot = _sched_optim(ember), _sched_optim(torch)
    se = elrs.ReduceLROnPlateau(oe, **kwargs)
    st = torch.optim.lr_scheduler.ReduceLROnPlateau(ot, **kwargs)
    for m in metrics:
        se.step(float(m))
        st.step(float(m))
        assert se.get_last_lr() == pytest.approx(st.get_last_lr(), rel=1e-12)
        assert [g["lr"] for g in oe.param_groups] == pytest.approx(
            [g["lr"] for g in ot.param_groups], rel=1e-12)
    assert se.num_bad_epochs == st.num_bad_epochs and se.best == st.best


def test_reduce_lr_on_plateau_accepts_tensor_metric_and_round_trips():
    opt = _sched_optim(ember)
    sched = elrs.ReduceLROnPlateau(opt, patience=0)
    sched.step(ember.tensor(1.0))
    sched.step(ember.tensor(2.0))
    assert sched.get_last_lr() == pytest.approx([0.01, 0.005])
    saved = sched.state_dict()
    sched2 = elrs.ReduceLROnPlateau(_sched_optim(ember), patience=0)
    sched2.load_state_dict(saved)
    assert sched2.best == 1.0 and sched2.is_better(0.5, sched2.best)


def test_scheduler_errors():
    opt = _sched_optim(ember)
    with pytest.raises(TypeError):
        elrs.StepLR(object(), step_size=1)
    with pytest.raises(ValueError):
        elrs.LinearLR(opt, start_factor=0.0)
    with pytest.raises(ValueError):
        elrs.OneCycleLR(opt, max_lr=0.1)
    with pytest.raises(ValueError):
        elrs.OneCycleLR(opt, max_lr=[0.1], total_steps=10)
    with pytest.raises(ValueError):
        elrs.OneCycleLR(opt, max_lr=0.1, total_steps=10, anneal_strategy="step")
    with pytest.raises(ValueError):
        elrs.ReduceLROnPlateau(opt, factor=1.0)
    with pytest.raises(ValueError):
        elrs.ReduceLROnPlateau(opt, mode="median")
    with pytest.raises(KeyError):
        elrs.StepLR(_sched_optim(ember), step_size=2, last_epoch=3)
    sched = elrs.OneCycleLR(opt, max_lr=0.1, total_steps=3)
    for _ in range(3):
        sched.step()
    with pytest.raises(ValueError, match="Tried to step"):
        sched.step()
    sgd_plain = ember.optim.Adagrad([ember.zeros(1, requires_grad=True)])
    with pytest.raises(ValueError, match="momentum"):
        elrs.OneCycleLR(sgd_plain, max_lr=0.1, total_steps=10)
    assert math.isclose(elrs.ExponentialLR(_sched_optim(ember), 0.5).get_last_lr()[0], 0.1)
