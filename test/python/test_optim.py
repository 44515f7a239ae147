"""ember.optim's optimizers against torch.optim (single-tensor algorithms): parameters and
state after every step, parameter groups, and state_dict round trips mid-run."""
import numpy as np
import pytest
import torch

import ember
import ember.optim

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


class _Run:
    """One library's copy of the problem and an optimizer over its two parameters."""

    def __init__(self, lib, name, kwargs, prob, *, groups=None, params=None):
        self.lib = lib
        self.w, self.b = params if params is not None else _params(lib, prob)
        self.x, self.y = lib.tensor(prob["x"]), lib.tensor(prob["y"])
        kwargs = dict(kwargs)
        if lib is torch and "foreach" not in kwargs and name != "SparseAdam":
            kwargs["foreach"] = False
        cls = getattr(lib.optim, name)
        if groups is None:
            self.opt = cls([self.w, self.b], **kwargs)
        else:
            self.opt = cls([{"params": [self.w], **groups[0]},
                            {"params": [self.b], **groups[1]}], **kwargs)

    def step(self):
        self.opt.zero_grad()
        _loss(self.lib, self.w, self.b, self.x, self.y).backward()
        self.opt.step()

    def params(self):
        return [self.w.detach().numpy(), self.b.detach().numpy()]


def _tol(expected):
    scale = max(1.0, float(np.abs(expected).max()))
    single = expected.dtype in (np.float32, np.complex64)
    return (1e-5 if single else 1e-10) * scale


def _assert_close(got, expected, what=""):
    got, expected = np.asarray(got), np.asarray(expected)
    np.testing.assert_allclose(got, expected, rtol=0, atol=_tol(expected), err_msg=what)


def _assert_state_matches(opt_e, opt_t):
    """Same state keys per parameter as torch, the same values, and scalar state as 0-d
    tensors of the same dtype."""
    se, st = opt_e.state_dict()["state"], opt_t.state_dict()["state"]
    assert sorted(se) == sorted(st)
    for i in st:
        assert sorted(se[i]) == sorted(st[i]), i
        for key, vt in st[i].items():
            ve = se[i][key]
            if isinstance(vt, torch.Tensor):
                assert isinstance(ve, ember.Tensor), key
                assert tuple(ve.shape) == tuple(vt.shape), key
                assert str(ve.dtype).split(".")[-1] == str(vt.dtype).split(".")[-1], key
                _assert_close(ve.detach().numpy(), vt.detach().numpy(), f"state[{i}][{key}]")
            else:
                assert ve == pytest.approx(vt), key


_CASES = [
    ("SGD", dict(lr=0.05)),
    ("SGD", dict(lr=0.05, momentum=0.9)),
    ("SGD", dict(lr=0.05, momentum=0.9, dampening=0.3, weight_decay=0.01)),
    ("SGD", dict(lr=0.05, momentum=0.9, nesterov=True, weight_decay=0.01)),
    ("SGD", dict(lr=0.01, momentum=0.5, maximize=True)),
    ("SGD", dict(lr=0.01, momentum=0.5, nesterov=True, maximize=True, fused=False)),
    ("Adam", dict(lr=0.01)),
    ("Adam", dict(lr=0.01, betas=(0.8, 0.99), eps=1e-6, weight_decay=0.05)),
    ("Adam", dict(lr=0.01, amsgrad=True)),
    ("Adam", dict(lr=0.01, amsgrad=True, weight_decay=0.1, maximize=True)),
    ("Adam", dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True)),
    ("Adam", dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True, amsgrad=True,
                  maximize=True, capturable=False, differentiable=False)),
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
    ("Adamax", dict(lr=0.01)),
    # (At lr=0.01 this one oscillates around the optimum late in the run, which amplifies
    # float32 gradient rounding past 1e-5.)
    ("Adamax", dict(lr=0.005, betas=(0.8, 0.9), eps=1e-6, weight_decay=0.05)),
    ("Adamax", dict(lr=0.01, weight_decay=0.1, maximize=True)),
    ("NAdam", dict(lr=0.01)),
    ("NAdam", dict(lr=0.01, betas=(0.85, 0.99), momentum_decay=0.01, weight_decay=0.05)),
    ("NAdam", dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True)),
    ("NAdam", dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True, maximize=True)),
    ("RAdam", dict(lr=0.01)),
    # A small beta2 makes the rectified branch (rho_t > 5) start at step 6.
    ("RAdam", dict(lr=0.01, betas=(0.9, 0.9), weight_decay=0.05)),
    ("RAdam", dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True)),
    ("RAdam", dict(lr=0.01, betas=(0.8, 0.95), maximize=True)),
    ("ASGD", dict(lr=0.05)),
    # t0 small enough that the average starts moving within the run.
    ("ASGD", dict(lr=0.05, lambd=0.01, alpha=0.5, t0=10, weight_decay=0.01)),
    ("ASGD", dict(lr=0.02, t0=30, maximize=True)),
    ("Rprop", dict()),
    ("Rprop", dict(lr=0.02, etas=(0.3, 1.5), step_sizes=(1e-4, 0.5))),
    ("Rprop", dict(lr=0.01, maximize=True)),
]

_NAMES = sorted({name for name, _ in _CASES})


def _case_id(case):
    name, kw = case
    return name + "-" + "-".join(f"{k}={v}" for k, v in kw.items())


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("case", _CASES, ids=_case_id)
def test_optimizer_matches_torch(case, dtype):
    name, kwargs = case
    prob = _problem(dtype)
    re, rt = _Run(ember, name, kwargs, prob), _Run(torch, name, kwargs, prob)
    for step in range(_STEPS):
        re.step()
        rt.step()
        for pe, pt in zip(re.params(), rt.params()):
            _assert_close(pe, pt, f"step {step}")
    _assert_state_matches(re.opt, rt.opt)


_GROUP_OPTIONS = {
    "SGD": [{"lr": 0.02, "momentum": 0.5}, {"lr": 0.2, "nesterov": True, "momentum": 0.8}],
    "Adam": [{"lr": 0.02, "amsgrad": True}, {"lr": 0.05, "weight_decay": 0.1}],
    "AdamW": [{"lr": 0.02, "weight_decay": 0.0}, {"lr": 0.05, "betas": (0.7, 0.95)}],
    "RMSprop": [{"lr": 0.02, "centered": True}, {"lr": 0.005, "momentum": 0.5}],
    "Adagrad": [{"lr": 0.05}, {"lr": 0.2, "lr_decay": 0.05}],
    "Adadelta": [{"lr": 0.5}, {"rho": 0.8, "weight_decay": 0.01}],
    "Adamax": [{"lr": 0.02}, {"lr": 0.05, "betas": (0.5, 0.99)}],
    "NAdam": [{"lr": 0.02, "momentum_decay": 0.02},
              {"weight_decay": 0.1, "decoupled_weight_decay": True}],
    "RAdam": [{"lr": 0.02, "betas": (0.9, 0.9)},
              {"weight_decay": 0.1, "decoupled_weight_decay": True}],
    "ASGD": [{"lr": 0.02, "t0": 5}, {"lr": 0.1, "lambd": 0.01}],
    "Rprop": [{"lr": 0.005}, {"etas": (0.4, 1.3), "step_sizes": (1e-5, 0.1)}],
}


@pytest.mark.parametrize("name", _NAMES)
def test_param_groups_with_their_own_options(name):
    prob = _problem(np.float32)
    groups = _GROUP_OPTIONS[name]
    kwargs = {"SGD": dict(lr=0.01, momentum=0.9)}.get(name, dict(lr=0.01))
    re = _Run(ember, name, kwargs, prob, groups=groups)
    rt = _Run(torch, name, kwargs, prob, groups=groups)
    for _ in range(40):
        re.step()
        rt.step()
        for pe, pt in zip(re.params(), rt.params()):
            _assert_close(pe, pt)
    assert [g["lr"] for g in re.opt.param_groups] == [g["lr"] for g in rt.opt.param_groups]
    for ge, gt in zip(re.opt.param_groups, rt.opt.param_groups):
        assert list(ge) == list(gt)
    _assert_state_matches(re.opt, rt.opt)


@pytest.mark.parametrize("name", _NAMES)
def test_add_param_group_mid_run(name):
    """A group added after some steps starts its own state, as in torch."""
    prob = _problem(np.float64)
    runs = []
    for lib in (ember, torch):
        w, b = _params(lib, prob)
        x, y = lib.tensor(prob["x"]), lib.tensor(prob["y"])
        kw = {} if lib is ember else {"foreach": False}
        opt = getattr(lib.optim, name)([w], lr=0.01, **kw)
        for step in range(30):
            if step == 10:
                opt.add_param_group({"params": [b], "lr": 0.03})
            opt.zero_grad()
            _loss(lib, w, b, x, y).backward()
            opt.step()
        runs.append((w, b, opt))
    for pe, pt in zip(runs[0][:2], runs[1][:2]):
        _assert_close(pe.detach().numpy(), pt.detach().numpy())
    _assert_state_matches(runs[0][2], runs[1][2])


@pytest.mark.parametrize("case", [c for c in _CASES if not c[1].get("maximize")], ids=_case_id)
def test_state_dict_round_trip(case):
    name, kwargs = case
    prob = _problem(np.float64)
    straight = _Run(ember, name, kwargs, prob)
    for _ in range(40):
        straight.step()
    first = _Run(ember, name, kwargs, prob)
    for _ in range(20):
        first.step()
    saved = first.opt.state_dict()
    # The layout is PyTorch's: integer keys, index lists, the same keys per state and group.
    t_run = _Run(torch, name, kwargs, prob)
    for _ in range(20):
        t_run.step()
    t_saved = t_run.opt.state_dict()
    assert sorted(saved["state"]) == sorted(t_saved["state"])
    assert [g["params"] for g in saved["param_groups"]] == [[0, 1]]
    for i in t_saved["state"]:
        assert sorted(saved["state"][i]) == sorted(t_saved["state"][i])
    assert list(saved["param_groups"][0]) == list(t_saved["param_groups"][0])

    params = [ember.tensor(p.copy(), requires_grad=True) for p in first.params()]
    resumed = _Run(ember, name, kwargs, prob, params=params)
    resumed.opt.load_state_dict(saved)
    for _ in range(20):
        resumed.step()
    # Bitwise equal, except where loading casts float32 scalar state ('mu_product', 'eta',
    # 'mu') to the float64 parameters' dtype, as torch's load_state_dict does: then the
    # runs differ by float32 rounding of those scalars.
    rtol = 1e-7 if name in ("NAdam", "ASGD") else 0
    for a, b in zip(resumed.params(), straight.params()):
        np.testing.assert_allclose(a, b, rtol=rtol, atol=0)


def _to_ember(value):
    if isinstance(value, torch.Tensor):
        return ember.tensor(value.detach().numpy().copy())
    if isinstance(value, dict):
        return {k: _to_ember(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_to_ember(v) for v in value]
    return value


@pytest.mark.parametrize("name", _NAMES)
def test_loads_a_torch_state_dict(name):
    """A torch optimizer's state_dict (tensors converted) resumes the same run in Ember as
    in a fresh torch optimizer loading it."""
    prob = _problem(np.float64)
    kwargs = dict(lr=0.01) if name == "Rprop" else dict(lr=0.01, weight_decay=0.01)
    first = _Run(torch, name, kwargs, prob)
    for _ in range(15):
        first.step()
    saved = first.opt.state_dict()
    rt = _Run(torch, name, kwargs, prob,
              params=[torch.tensor(p.copy(), requires_grad=True) for p in first.params()])
    rt.opt.load_state_dict(saved)
    re = _Run(ember, name, kwargs, prob,
              params=[ember.tensor(p.copy(), requires_grad=True) for p in first.params()])
    re.opt.load_state_dict(_to_ember(saved))
    _assert_state_matches(re.opt, rt.opt)
    for _ in range(15):
        re.step()
        rt.step()
        for pe, pt in zip(re.params(), rt.params()):
            _assert_close(pe, pt)
    _assert_state_matches(re.opt, rt.opt)


def test_state_dict_casts_float_state_to_the_param_dtype_but_not_step():
    w = ember.zeros(3, dtype=ember.float64, requires_grad=True)
    opt = ember.optim.Adam([w], lr=0.1)
    w.grad = ember.ones(3, dtype=ember.float64)
    opt.step()
    saved = opt.state_dict()
    saved["state"][0]["exp_avg"] = saved["state"][0]["exp_avg"].float()
    opt.load_state_dict(saved)
    assert opt.state[w]["exp_avg"].dtype == ember.float64
    assert opt.state[w]["step"].dtype == ember.float32
    # fused and capturable groups keep 'step' in float32 whatever was saved.
    saved["state"][0]["step"] = saved["state"][0]["step"].double()
    saved["param_groups"][0]["capturable"] = True
    opt.load_state_dict(saved)
    assert opt.state[w]["step"].dtype == ember.float32


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


def test_scalar_state_follows_the_default_dtype():
    previous = ember.get_default_dtype()
    ember.set_default_dtype(ember.float64)
    try:
        w = ember.zeros(2, requires_grad=True)
        for cls in (ember.optim.Adam, ember.optim.NAdam, ember.optim.ASGD):
            opt = cls([w])
            w.grad = ember.ones(2)
            opt.step()
            assert opt.state[w]["step"].dtype == ember.float64
            opt.state.clear()
    finally:
        ember.set_default_dtype(previous)


def test_fused_adam_keeps_a_float32_step_and_rejects_integer_params():
    w = ember.zeros(2, dtype=ember.float64, requires_grad=True)
    opt = ember.optim.Adam([w], lr=0.1, fused=True)
    w.grad = ember.ones(2, dtype=ember.float64)
    opt.step()
    assert opt.state[w]["step"].dtype == ember.float32
    v = ember.zeros(2, dtype=ember.int64)
    v.grad = ember.ones(2, dtype=ember.int64)
    opt = ember.optim.SGD([v], lr=0.1, fused=True)
    with pytest.raises(RuntimeError, match="floating point"):
        opt.step()


def test_params_without_grad_are_skipped():
    w = ember.ones(2, requires_grad=True)
    v = ember.ones(2, requires_grad=True)
    for name in _NAMES:
        opt = getattr(ember.optim, name)([w, v], lr=0.1)
        w.grad, v.grad = ember.ones(2), None
        opt.step()
        assert v.tolist() == [1.0, 1.0], name
        if name != "Adagrad":  # Adagrad creates its state eagerly
            assert v not in opt.state, name


def test_step_closure_returns_loss():
    for name in _NAMES:
        w = ember.ones(2, requires_grad=True)
        opt = getattr(ember.optim, name)([w], lr=0.1)

        def closure():
            opt.zero_grad()
            loss = (w * w).sum()
            loss.backward()
            return loss

        loss = opt.step(closure)
        assert loss.item() == 2.0, name
        assert w.grad is not None and w.tolist() != [1.0, 1.0], name


_COMPLEX_OPTIONS = {
    "SGD": dict(momentum=0.9, weight_decay=0.1), "Adam": dict(amsgrad=True, weight_decay=0.1),
    "AdamW": dict(), "RMSprop": dict(centered=True, momentum=0.5),
    "Adagrad": dict(initial_accumulator_value=0.1), "Adadelta": dict(weight_decay=0.01),
    "Adamax": dict(), "NAdam": dict(weight_decay=0.1), "RAdam": dict(betas=(0.9, 0.9)),
    "ASGD": dict(t0=3), "Rprop": dict(),
}


@pytest.mark.parametrize("name", _NAMES)
def test_complex_params_are_pairs_of_reals(name):
    """Complex parameters (and their state) are updated as two independent reals, as in
    torch. The gradient is set directly: Ember's autograd has no complex support yet, so
    the Ember parameter is a plain leaf without requires_grad."""
    rng = np.random.default_rng(0)
    p0 = (rng.standard_normal(5) + 1j * rng.standard_normal(5)).astype(np.complex64)
    results = {}
    for lib in (ember, torch):
        p = lib.tensor(p0.copy(), requires_grad=lib is torch)
        kwargs = dict(lr=0.01, **_COMPLEX_OPTIONS[name])
        if lib is torch:
            kwargs["foreach"] = False
        opt = getattr(lib.optim, name)([p], **kwargs)
        for step in range(30):
            current = p.detach().numpy()
            grad = current * np.complex64(0.7 - 0.4j) + np.complex64(0.3 + 0.1j) * np.sin(step)
            p.grad = lib.tensor(grad.astype(np.complex64))
            opt.step()
        results[lib.__name__] = (p.detach().numpy(), opt)
    np.testing.assert_allclose(results["ember"][0], results["torch"][0], rtol=0, atol=1e-6)
    _assert_state_matches(results["ember"][1], results["torch"][1])
