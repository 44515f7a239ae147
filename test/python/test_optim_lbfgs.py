"""ember.optim.LBFGS against torch.optim.LBFGS, with and without the strong-Wolfe line
search: Rosenbrock (float64) and a least-squares fit (float32 and float64)."""
import numpy as np
import pytest
import torch

import ember
import ember.optim
from ember.optim.lbfgs import _cubic_interpolate


def _rosenbrock(x):
    return ((1 - x[:-1]) ** 2).sum() + 100 * ((x[1:] - x[:-1] ** 2) ** 2).sum()


def _lsq(lib, w, b, x, y):
    return ((lib.matmul(x, w.t()) + b - y) ** 2).mean()


def _lsq_problem(dtype):
    rng = np.random.default_rng(0)
    return {"w": rng.standard_normal((3, 4)).astype(dtype),
            "b": rng.standard_normal(3).astype(dtype),
            "x": rng.standard_normal((8, 4)).astype(dtype),
            "y": rng.standard_normal((8, 3)).astype(dtype)}


class _Fit:
    """One library's LBFGS on either problem; `step()` takes one optimizer step."""

    def __init__(self, lib, problem, dtype, kwargs):
        self.lib = lib
        if problem == "rosenbrock":
            x0 = np.array([-1.2, 1.0, -0.5, 0.8, 1.5], dtype=dtype)
            self.params = [lib.tensor(x0, requires_grad=True)]
            self.loss = lambda: _rosenbrock(self.params[0])
        else:
            p = _lsq_problem(dtype)
            self.params = [lib.tensor(p["w"].copy(), requires_grad=True),
                           lib.tensor(p["b"].copy(), requires_grad=True)]
            x, y = lib.tensor(p["x"]), lib.tensor(p["y"])
            self.loss = lambda: _lsq(lib, *self.params, x, y)
        self.opt = lib.optim.LBFGS(self.params, **kwargs)
        self.calls = 0

    def closure(self):
        self.calls += 1
        self.opt.zero_grad()
        loss = self.loss()
        loss.backward()
        return loss

    def step(self):
        return self.opt.step(self.closure).detach().item()

    def flat(self):
        return np.concatenate([p.detach().numpy().ravel() for p in self.params])


_CASES = [
    dict(),
    dict(line_search_fn="strong_wolfe"),
    dict(lr=0.5, max_iter=5, history_size=3),
    dict(max_iter=7, history_size=3, line_search_fn="strong_wolfe"),
    dict(max_iter=4, max_eval=6, history_size=2, line_search_fn="strong_wolfe"),
    dict(lr=0.8, max_iter=3, tolerance_grad=1e-5, tolerance_change=1e-7),
]


def _case_id(kw):
    return "-".join(f"{k}={v}" for k, v in kw.items()) or "defaults"


@pytest.mark.parametrize("kwargs", _CASES, ids=_case_id)
@pytest.mark.parametrize("problem,dtype", [("rosenbrock", np.float64), ("lsq", np.float64),
                                           ("lsq", np.float32)])
def test_lbfgs_matches_torch(problem, dtype, kwargs):
    fe, ft = _Fit(ember, problem, dtype, kwargs), _Fit(torch, problem, dtype, kwargs)
    # float32 runs are judged against the same fit in float64: a strong-Wolfe line search
    # amplifies single ulps (the two float32 runs can take different numbers of evaluations).
    f64 = _Fit(torch, problem, np.float64, kwargs) if dtype == np.float32 else None
    for step in range(6):
        le, lt = fe.step(), ft.step()
        if dtype == np.float64:
            # Rosenbrock's valley amplifies rounding differences from step to step.
            assert le == pytest.approx(lt, rel=1e-9, abs=1e-12)
            np.testing.assert_allclose(fe.flat(), ft.flat(), rtol=0, atol=1e-7)
        else:
            # The losses already differ by an ulp at the start (float32 reductions), and
            # near the minimum the curvature pairs are mostly that noise, so only the first
            # steps are compared closely.
            assert le == pytest.approx(lt, rel=1e-4)
            f64.step()
            exact = f64.flat()
            if step < 2:
                # Ember's float32 error, at most twice torch's (or 1e-4).
                bound = max(1e-4, 2 * np.abs(ft.flat() - exact).max())
                assert np.abs(fe.flat() - exact).max() <= bound, step
    se, st = fe.opt.state_dict()["state"][0], ft.opt.state_dict()["state"][0]
    assert sorted(se) == sorted(st)
    if dtype == np.float64:
        assert fe.calls == ft.calls
        assert (se["func_evals"], se["n_iter"]) == (st["func_evals"], st["n_iter"])
        assert len(se["old_dirs"]) == len(st["old_dirs"])
        np.testing.assert_allclose(se["d"].numpy(), st["d"].numpy(), rtol=0, atol=1e-6)


@pytest.mark.parametrize("line_search_fn", [None, "strong_wolfe"])
def test_lbfgs_converges_on_rosenbrock(line_search_fn):
    fit = _Fit(ember, "rosenbrock", np.float64, dict(line_search_fn=line_search_fn))
    for _ in range(10):
        fit.step()
    np.testing.assert_allclose(fit.flat(), np.ones(5), atol=1e-4)
    assert fit.loss().item() < 1e-8


def test_lbfgs_state_dict_round_trip():
    kwargs = dict(max_iter=3, history_size=4, line_search_fn="strong_wolfe")
    straight = _Fit(ember, "rosenbrock", np.float64, kwargs)
    for _ in range(6):
        straight.step()
    first = _Fit(ember, "rosenbrock", np.float64, kwargs)
    for _ in range(3):
        first.step()
    saved = first.opt.state_dict()
    t_first = _Fit(torch, "rosenbrock", np.float64, kwargs)
    for _ in range(3):
        t_first.step()
    assert sorted(saved["state"][0]) == sorted(t_first.opt.state_dict()["state"][0])
    assert list(saved["param_groups"][0]) == list(t_first.opt.state_dict()["param_groups"][0])
    resumed = _Fit(ember, "rosenbrock", np.float64, kwargs)
    with ember.no_grad():
        resumed.params[0].copy_(first.params[0])
    resumed.opt.load_state_dict(saved)
    assert isinstance(resumed.opt.state[resumed.params[0]]["old_dirs"], list)
    for _ in range(3):
        resumed.step()
    np.testing.assert_array_equal(resumed.flat(), straight.flat())


def test_lbfgs_stops_at_a_stationary_point():
    x = ember.ones(3, requires_grad=True)
    opt = ember.optim.LBFGS([x])
    calls = []

    def closure():
        calls.append(1)
        opt.zero_grad()
        loss = ((x - 1) ** 2).sum()
        loss.backward()
        return loss

    assert opt.step(closure).item() == 0.0
    assert len(calls) == 1 and x.tolist() == [1.0, 1.0, 1.0]
    assert opt.state[x]["func_evals"] == 1 and opt.state[x]["n_iter"] == 0


def test_lbfgs_errors():
    a = ember.zeros(2, requires_grad=True)
    b = ember.zeros(2, requires_grad=True)
    with pytest.raises(ValueError, match="parameter groups"):
        ember.optim.LBFGS([{"params": [a]}, {"params": [b]}])
    with pytest.raises(ValueError, match="Invalid learning rate"):
        ember.optim.LBFGS([a], lr=-1)
    assert ember.optim.LBFGS([a], max_iter=8).defaults["max_eval"] == 10
    opt = ember.optim.LBFGS([a], line_search_fn="backtracking")

    def closure():
        opt.zero_grad()
        loss = ((a - 1) ** 2).sum()
        loss.backward()
        return loss

    with pytest.raises(RuntimeError, match="only 'strong_wolfe' is supported"):
        opt.step(closure)


def test_cubic_interpolate_matches_torch():
    from torch.optim.lbfgs import _cubic_interpolate as t_cubic
    cases = [(0.0, 1.0, -2.0, 1.0, 0.5, 1.0, None), (1.0, 0.5, 1.0, 0.0, 1.0, -2.0, None),
             (0.0, 1.0, -1.0, 0.5, 0.9, -0.5, (0.505, 5.0)),
             (0.0, 1.0, 1.0, 1.0, 3.0, 5.0, None)]  # the last has no real minimizer
    for x1, f1, g1, x2, f2, g2, bounds in cases:
        got = _cubic_interpolate(x1, f1, ember.tensor(g1, dtype=ember.float64), x2, f2,
                                 ember.tensor(g2, dtype=ember.float64), bounds)
        want = t_cubic(x1, f1, torch.tensor(g1, dtype=torch.float64), x2, f2,
                       torch.tensor(g2, dtype=torch.float64), bounds)
        assert float(got) == pytest.approx(float(want), rel=1e-12)
