"""ember.optim.lr_scheduler against torch.optim.lr_scheduler: lr (and momentum) sequences,
chaining, closed forms, state_dict round trips and argument errors."""
import math
import warnings

import numpy as np
import pytest
import torch

import ember
import ember.optim
from ember.optim import lr_scheduler as elrs

tlrs = torch.optim.lr_scheduler
_STEPS = 40


def _sched_optim(lib, name="SGD", **kw):
    """An optimizer with two groups (lr 0.1 and 0.05) over tiny parameters."""
    w = lib.zeros(2, requires_grad=True)
    b = lib.zeros(1, requires_grad=True)
    cls = getattr(lib.optim, name)
    base = dict(lr=0.1, **({"momentum": 0.9} if name == "SGD" else {}))
    base.update(kw)
    return cls([{"params": [w]}, {"params": [b], "lr": 0.05}], **base)


def _lambdas(name):
    if name == "LambdaLR":
        return [lambda e: 0.95 ** e, lambda e: 1.0 / (e + 1)]
    return [lambda e: 0.9, lambda e: 1.0 if e % 3 else 0.5]


def _make_sched(mod, opt, spec):
    name, kwargs = spec
    if name in ("LambdaLR", "MultiplicativeLR"):
        kwargs = dict(lr_lambda=_lambdas(name), **kwargs)
    return getattr(mod, name)(opt, **kwargs)


_SCHEDULERS = [
    ("LambdaLR", dict()),
    ("MultiplicativeLR", dict()),
    ("StepLR", dict(step_size=7, gamma=0.5)),
    ("MultiStepLR", dict(milestones=[5, 12, 12, 30], gamma=0.3)),
    ("ConstantLR", dict()),
    ("ConstantLR", dict(factor=0.25, total_iters=12)),
    ("LinearLR", dict()),
    ("LinearLR", dict(start_factor=0.2, end_factor=0.9, total_iters=20)),
    ("ExponentialLR", dict(gamma=0.93)),
    ("PolynomialLR", dict()),
    ("PolynomialLR", dict(total_iters=25, power=2.5)),
    ("CosineAnnealingLR", dict(T_max=10)),
    ("CosineAnnealingLR", dict(T_max=13, eta_min=0.001)),
    ("CosineAnnealingWarmRestarts", dict(T_0=5)),
    ("CosineAnnealingWarmRestarts", dict(T_0=3, T_mult=2, eta_min=0.002)),
    ("CyclicLR", dict(base_lr=0.01, max_lr=0.1, step_size_up=4)),
    ("CyclicLR", dict(base_lr=[0.01, 0.02], max_lr=[0.1, 0.3], step_size_up=3,
                      step_size_down=5, mode="triangular2")),
    ("CyclicLR", dict(base_lr=0.01, max_lr=0.1, step_size_up=5, mode="exp_range",
                      gamma=0.97, base_momentum=0.7, max_momentum=0.95)),
    ("CyclicLR", dict(base_lr=0.01, max_lr=0.1, step_size_up=4, cycle_momentum=False)),
    ("OneCycleLR", dict(max_lr=1.0, total_steps=51)),
    ("OneCycleLR", dict(max_lr=[1.0, 0.5], total_steps=51, anneal_strategy="linear",
                        pct_start=0.25)),
    ("OneCycleLR", dict(max_lr=0.3, epochs=5, steps_per_epoch=11, three_phase=True)),
    ("OneCycleLR", dict(max_lr=0.3, total_steps=60, cycle_momentum=False, div_factor=10.0,
                        final_div_factor=100.0)),
]


def _case_id(spec):
    name, kw = spec
    return name + "-" + "-".join(f"{k}={v}" for k, v in kw.items())


def _assert_groups_match(oe, ot):
    for ge, gt in zip(oe.param_groups, ot.param_groups):
        assert ge.keys() == gt.keys()
        assert ge["lr"] == pytest.approx(gt["lr"], rel=1e-12, abs=1e-15)
        if "momentum" in gt:
            assert ge["momentum"] == pytest.approx(gt["momentum"], rel=1e-12)
        if "betas" in gt:
            assert ge["betas"] == pytest.approx(gt["betas"], rel=1e-12)


@pytest.mark.parametrize("optim_name", ["SGD", "Adam"])
@pytest.mark.parametrize("spec", _SCHEDULERS, ids=_case_id)
def test_scheduler_matches_torch(spec, optim_name):
    oe, ot = _sched_optim(ember, optim_name), _sched_optim(torch, optim_name)
    se, st = _make_sched(elrs, oe, spec), _make_sched(tlrs, ot, spec)
    assert se.get_last_lr() == pytest.approx(st.get_last_lr(), rel=1e-12)
    _assert_groups_match(oe, ot)
    for _ in range(_STEPS):
        oe.step()
        ot.step()
        se.step()
        st.step()
        assert se.get_last_lr() == pytest.approx(st.get_last_lr(), rel=1e-12, abs=1e-15)
        assert se.last_epoch == st.last_epoch
        _assert_groups_match(oe, ot)


def test_every_torch_scheduler_exists_with_the_same_signature():
    import inspect
    public = [n for n in tlrs.__all__]
    assert sorted(elrs.__all__) == sorted(public)
    for name in public:
        te, tt = getattr(elrs, name), getattr(tlrs, name)
        pe = inspect.signature(te.__init__).parameters
        pt = inspect.signature(tt.__init__).parameters
        assert list(pe) == list(pt), name
        for key in pt:
            assert pe[key].default == pt[key].default, (name, key)
            assert pe[key].kind == pt[key].kind, (name, key)


@pytest.mark.parametrize("specs", [
    [("ExponentialLR", dict(gamma=0.9)), ("StepLR", dict(step_size=4, gamma=0.5))],
    [("LinearLR", dict(start_factor=0.1, total_iters=8)), ("CosineAnnealingLR", dict(T_max=20))],
    [("ConstantLR", dict(factor=0.5, total_iters=6)), ("MultiStepLR", dict(milestones=[3, 9])),
     ("PolynomialLR", dict(total_iters=30))],
], ids=lambda specs: "+".join(s[0] for s in specs))
def test_chained_form_two_schedulers_on_one_optimizer(specs):
    """Schedulers stepped together compose their factors (the chainable form)."""
    oe, ot = _sched_optim(ember), _sched_optim(torch)
    ses = [_make_sched(elrs, oe, s) for s in specs]
    sts = [_make_sched(tlrs, ot, s) for s in specs]
    for _ in range(30):
        oe.step()
        ot.step()
        for se, st in zip(ses, sts):
            se.step()
            st.step()
            assert se.get_last_lr() == pytest.approx(st.get_last_lr(), rel=1e-12, abs=1e-15)
    # ChainedScheduler does the same with one object.
    oe, ot = _sched_optim(ember), _sched_optim(torch)
    ce = elrs.ChainedScheduler([_make_sched(elrs, oe, s) for s in specs])
    ct = tlrs.ChainedScheduler([_make_sched(tlrs, ot, s) for s in specs])
    assert ce.get_last_lr() == pytest.approx(ct.get_last_lr(), rel=1e-12)
    for _ in range(30):
        oe.step()
        ot.step()
        ce.step()
        ct.step()
        assert ce.get_last_lr() == pytest.approx(ct.get_last_lr(), rel=1e-12, abs=1e-15)


@pytest.mark.parametrize("specs,milestones", [
    ([("LinearLR", dict(start_factor=0.1, total_iters=5)), ("ExponentialLR", dict(gamma=0.9))],
     [5]),
    ([("ConstantLR", dict(factor=0.3, total_iters=4)), ("CosineAnnealingLR", dict(T_max=8)),
      ("StepLR", dict(step_size=3, gamma=0.5))], [6, 15]),
    ([("ExponentialLR", dict(gamma=0.8)), ("LinearLR", dict(start_factor=0.5))], [10]),
], ids=lambda v: str(v))
def test_sequential_lr_matches_torch(specs, milestones):
    oe, ot = _sched_optim(ember), _sched_optim(torch)
    se = elrs.SequentialLR(oe, [_make_sched(elrs, oe, s) for s in specs], milestones)
    st = tlrs.SequentialLR(ot, [_make_sched(tlrs, ot, s) for s in specs], milestones)
    assert se.get_last_lr() == pytest.approx(st.get_last_lr(), rel=1e-12)
    for _ in range(30):
        oe.step()
        ot.step()
        se.step()
        st.step()
        assert se.get_last_lr() == pytest.approx(st.get_last_lr(), rel=1e-12, abs=1e-15)
        assert se.last_epoch == st.last_epoch
    saved = se.state_dict()
    assert [s.keys() for s in saved["_schedulers"]] == [
        s.keys() for s in st.state_dict()["_schedulers"]]


def test_sequential_lr_state_dict_round_trip():
    def build(opt):
        return elrs.SequentialLR(opt, [elrs.LinearLR(opt, start_factor=0.2, total_iters=4),
                                       elrs.ExponentialLR(opt, gamma=0.85)], [4])
    opt = _sched_optim(ember)
    sched = build(opt)
    for _ in range(6):
        opt.step()
        sched.step()
    opt2 = _sched_optim(ember)
    sched2 = build(opt2)
    sched2.load_state_dict(sched.state_dict())
    opt2.load_state_dict(opt.state_dict())
    for _ in range(10):
        sched.step()
        sched2.step()
        assert sched2.get_last_lr() == sched.get_last_lr()
        assert [g["lr"] for g in opt2.param_groups] == [g["lr"] for g in opt.param_groups]


@pytest.mark.parametrize("spec", [
    ("StepLR", dict(step_size=3, gamma=0.5)),
    ("MultiStepLR", dict(milestones=[2, 5, 5], gamma=0.4)),
    ("ConstantLR", dict(factor=0.5, total_iters=4)),
    ("LinearLR", dict(start_factor=0.25, total_iters=6)),
    ("ExponentialLR", dict(gamma=0.9)),
    ("PolynomialLR", dict(total_iters=8, power=2.0)),
    ("CosineAnnealingLR", dict(T_max=7, eta_min=0.01)),
    ("LambdaLR", dict()),
], ids=_case_id)
def test_step_with_epoch_uses_the_closed_form(spec):
    oe, ot = _sched_optim(ember), _sched_optim(torch)
    se, st = _make_sched(elrs, oe, spec), _make_sched(tlrs, ot, spec)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for epoch in [3, 1, 7, 7, 12, 0, 5]:
            oe.step()
            ot.step()
            st.step(epoch)
            with pytest.warns(UserWarning, match="epoch parameter"):
                se.step(epoch)
            assert se.get_last_lr() == pytest.approx(st.get_last_lr(), rel=1e-12, abs=1e-15)


def test_warm_restarts_fractional_epochs_match_torch():
    oe, ot = _sched_optim(ember), _sched_optim(torch)
    se = elrs.CosineAnnealingWarmRestarts(oe, T_0=4, T_mult=2, eta_min=0.001)
    st = tlrs.CosineAnnealingWarmRestarts(ot, T_0=4, T_mult=2, eta_min=0.001)
    for epoch in np.arange(0, 30, 0.3):
        se.step(float(epoch))
        st.step(float(epoch))
        assert se.get_last_lr() == pytest.approx(st.get_last_lr(), rel=1e-12, abs=1e-15)
        assert (se.T_cur, se.T_i) == pytest.approx((st.T_cur, st.T_i))
    with pytest.raises(ValueError, match="non-negative epoch"):
        se.step(-1)


def test_last_epoch_resume_matches_torch():
    """Constructing with last_epoch >= 0 (after a checkpoint) takes no initial step change."""
    results = {}
    for lib, mod in [(ember, elrs), (torch, tlrs)]:
        opt = _sched_optim(lib)
        for g in opt.param_groups:
            g["initial_lr"] = g["lr"]
        lrs = []
        for name, kw in [("ExponentialLR", dict(gamma=0.9)), ("CosineAnnealingLR", dict(T_max=9)),
                         ("LinearLR", dict(total_iters=8)), ("StepLR", dict(step_size=2))]:
            sched = getattr(mod, name)(opt, last_epoch=4, **kw)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                for _ in range(6):
                    sched.step()
                    lrs.append(tuple(sched.get_last_lr()))
        results[lib.__name__] = lrs
    np.testing.assert_allclose(results["ember"], results["torch"], rtol=1e-12, atol=0)


@pytest.mark.parametrize("spec", [s for s in _SCHEDULERS
                                  if s[0] not in ("LambdaLR", "MultiplicativeLR")],
                         ids=_case_id)
def test_scheduler_state_dict_round_trip(spec):
    opt = _sched_optim(ember)
    sched = _make_sched(elrs, opt, spec)
    for _ in range(10):
        opt.step()
        sched.step()
    saved = sched.state_dict()
    assert "optimizer" not in saved
    t_opt = _sched_optim(torch)
    t_sched = _make_sched(tlrs, t_opt, spec)
    assert sorted(saved) == sorted(t_sched.state_dict())
    # PyTorch's resume order: build both, then load both.
    opt2 = _sched_optim(ember)
    sched2 = _make_sched(elrs, opt2, spec)
    opt2.load_state_dict(opt.state_dict())
    sched2.load_state_dict(saved)
    for _ in range(20):
        sched.step()
        sched2.step()
        assert sched.get_last_lr() == sched2.get_last_lr()


@pytest.mark.parametrize("name", ["LambdaLR", "MultiplicativeLR"])
def test_lambda_state_dict_keeps_callable_object_state(name):
    class Scale:
        def __init__(self, k):
            self.k = k

        def __call__(self, epoch):
            return self.k

    cls = getattr(elrs, name)
    sched = cls(_sched_optim(ember), [Scale(0.5), lambda e: 1.0])
    saved = sched.state_dict()
    assert saved["lr_lambdas"] == [{"k": 0.5}, None]
    sched2 = cls(_sched_optim(ember), [Scale(0.9), lambda e: 1.0])
    sched2.load_state_dict(saved)
    assert sched2.lr_lambdas[0].k == 0.5
    assert "lr_lambdas" in saved  # load_state_dict does not consume the caller's dict


def test_cyclic_lr_custom_scale_fn_and_state_dict():
    class Halve:
        def __init__(self):
            self.base = 0.5

        def __call__(self, x):
            return self.base ** (x - 1)

    results = {}
    for lib, mod in [(ember, elrs), (torch, tlrs)]:
        opt = _sched_optim(lib)
        sched = mod.CyclicLR(opt, 0.01, 0.2, step_size_up=3, scale_fn=Halve(),
                             scale_mode="cycle")
        seq = []
        for _ in range(25):
            opt.step()
            sched.step()
            seq.append(tuple(sched.get_last_lr()))
        results[lib.__name__] = (seq, sorted(sched.state_dict()))
    np.testing.assert_allclose(results["ember"][0], results["torch"][0], rtol=1e-12, atol=0)
    assert results["ember"][1] == results["torch"][1]
    opt = _sched_optim(ember)
    sched = elrs.CyclicLR(opt, 0.01, 0.2, step_size_up=3, scale_fn=Halve())
    saved = sched.state_dict()
    assert saved["_scale_fn_custom"] == {"base": 0.5}
    sched2 = elrs.CyclicLR(_sched_optim(ember), 0.01, 0.2, step_size_up=3, scale_fn=Halve())
    sched2._scale_fn_custom.base = 0.9
    sched2.load_state_dict(saved)
    assert sched2._scale_fn_custom.base == 0.5


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
    st = tlrs.ReduceLROnPlateau(ot, **kwargs)
    for m in metrics:
        se.step(float(m))
        st.step(float(m))
        assert se.get_last_lr() == pytest.approx(st.get_last_lr(), rel=1e-12)
        assert [g["lr"] for g in oe.param_groups] == pytest.approx(
            [g["lr"] for g in ot.param_groups], rel=1e-12)
    assert se.num_bad_epochs == st.num_bad_epochs and se.best == st.best
    assert sorted(se.state_dict()) == sorted(st.state_dict())


def test_reduce_lr_on_plateau_accepts_tensor_metric_and_round_trips():
    opt = _sched_optim(ember)
    sched = elrs.ReduceLROnPlateau(opt, patience=0)
    sched.step(ember.tensor(1.0))
    sched.step(ember.tensor(2.0))
    assert sched.get_last_lr() == pytest.approx([0.01, 0.005])
    saved = sched.state_dict()
    sched2 = elrs.ReduceLROnPlateau(_sched_optim(ember), patience=0)
    sched2.load_state_dict(saved)
    assert sched2.best == 1.0 and sched2._is_better(0.5, sched2.best)


def test_reduce_lr_on_plateau_new_group():
    opt = _sched_optim(ember)
    sched = elrs.ReduceLROnPlateau(opt, patience=0, min_lr=0.001)
    opt.add_param_group({"params": [ember.zeros(1, requires_grad=True)], "lr": 0.2})
    sched.step(1.0)
    sched.step(2.0)
    assert sched.get_last_lr() == pytest.approx([0.01, 0.005, 0.02])
    opt = _sched_optim(ember)
    sched = elrs.ReduceLROnPlateau(opt, patience=0, min_lr=[0.0, 0.0])
    opt.add_param_group({"params": [ember.zeros(1, requires_grad=True)], "lr": 0.2})
    sched.step(1.0)
    with pytest.raises(RuntimeError, match="differs from when"):
        sched.step(2.0)


def test_step_order_warnings():
    opt = _sched_optim(ember)
    sched = elrs.StepLR(opt, step_size=2)
    with pytest.warns(UserWarning, match="before `optimizer.step\\(\\)`"):
        sched.step()
    opt = _sched_optim(ember)
    sched = elrs.StepLR(opt, step_size=2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        opt.step()
        sched.step()
        sched.get_last_lr()
    with pytest.warns(UserWarning, match="get_last_lr"):
        sched.get_lr()


def test_tensor_lr_is_updated_in_place():
    w = ember.zeros(2, requires_grad=True)
    lr = ember.tensor(0.1)
    opt = ember.optim.Adam([w], lr=lr)
    sched = elrs.ExponentialLR(opt, gamma=0.5)
    opt.step()
    sched.step()
    assert opt.param_groups[0]["lr"] is lr
    assert lr.item() == pytest.approx(0.05)
    assert isinstance(sched.get_last_lr()[0], ember.Tensor)
    assert sched.get_last_lr()[0] is not lr


def test_scheduler_errors():
    opt = _sched_optim(ember)
    with pytest.raises(TypeError, match="is not an Optimizer"):
        elrs.StepLR(object(), step_size=1)
    with pytest.raises(ValueError, match="Starting multiplicative factor"):
        elrs.LinearLR(opt, start_factor=0.0)
    with pytest.raises(ValueError, match="Ending multiplicative factor"):
        elrs.LinearLR(opt, end_factor=1.5)
    with pytest.raises(ValueError, match="Constant multiplicative factor"):
        elrs.ConstantLR(opt, factor=2.0)
    with pytest.raises(ValueError, match="Expected 2 lr_lambdas"):
        elrs.LambdaLR(opt, [lambda e: 1.0])
    with pytest.raises(TypeError, match="lr_lambda should be a function"):
        elrs.MultiplicativeLR(opt, [lambda e: 1.0, 3])
    with pytest.raises(ValueError, match="total_steps OR"):
        elrs.OneCycleLR(opt, max_lr=0.1)
    with pytest.raises(ValueError, match="same length"):
        elrs.OneCycleLR(opt, max_lr=[0.1], total_steps=10)
    with pytest.raises(ValueError, match="anneal_strategy"):
        elrs.OneCycleLR(opt, max_lr=0.1, total_steps=10, anneal_strategy="step")
    with pytest.raises(ValueError, match="pct_start"):
        elrs.OneCycleLR(opt, max_lr=0.1, total_steps=10, pct_start=1)
    with pytest.raises(ValueError, match="mode is invalid"):
        elrs.CyclicLR(opt, 0.01, 0.1, mode="sawtooth")
    with pytest.raises(ValueError, match="T_0"):
        elrs.CosineAnnealingWarmRestarts(opt, T_0=0)
    with pytest.raises(ValueError, match="T_mult"):
        elrs.CosineAnnealingWarmRestarts(opt, T_0=2, T_mult=1.5)
    with pytest.raises(ValueError, match="Factor should be < 1.0"):
        elrs.ReduceLROnPlateau(opt, factor=1.0)
    with pytest.raises(ValueError, match="mode median is unknown"):
        elrs.ReduceLROnPlateau(opt, mode="median")
    with pytest.raises(ValueError, match="expected 2 min_lrs"):
        elrs.ReduceLROnPlateau(opt, min_lr=[0.1])
    with pytest.raises(KeyError, match="initial_lr"):
        elrs.StepLR(_sched_optim(ember), step_size=2, last_epoch=3)
    with pytest.raises(ValueError, match="at least one scheduler"):
        elrs.SequentialLR(opt, [], [])
    with pytest.raises(ValueError, match="number of milestone"):
        elrs.SequentialLR(opt, [elrs.StepLR(opt, 2)], [3])
    with pytest.raises(ValueError, match="ReduceLROnPlateau"):
        elrs.ChainedScheduler([elrs.ReduceLROnPlateau(opt)])
    with pytest.raises(ValueError, match="same optimizer"):
        elrs.ChainedScheduler([elrs.StepLR(opt, 2), elrs.StepLR(_sched_optim(ember), 2)])
    sched = elrs.OneCycleLR(_sched_optim(ember), max_lr=0.1, total_steps=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(3):
            sched.step()
        with pytest.raises(ValueError, match="Tried to step 4 times"):
            sched.step()
    adagrad = ember.optim.Adagrad([ember.zeros(1, requires_grad=True)])
    with pytest.raises(ValueError, match="momentum"):
        elrs.OneCycleLR(adagrad, max_lr=0.1, total_steps=10)
    with pytest.raises(ValueError, match="momentum"):
        elrs.CyclicLR(adagrad, 0.01, 0.1)
    assert math.isclose(elrs.ExponentialLR(_sched_optim(ember), 0.5).get_last_lr()[0], 0.1)
    assert issubclass(elrs._LRScheduler, elrs.LRScheduler)
