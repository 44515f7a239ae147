"""ember.optim.swa_utils against torch.optim.swa_utils: AveragedModel (SWA, EMA, buffers),
update_bn and SWALR."""
import warnings

import numpy as np
import pytest
import torch

import ember
import ember.nn
import ember.optim
from ember.optim import swa_utils as eswa
from torch.optim import swa_utils as tswa


def _net(lib):
    nn = lib.nn
    return nn.Sequential(nn.Linear(4, 6), nn.BatchNorm1d(6), nn.ReLU(), nn.Linear(6, 2))


def _pair():
    """The same small BatchNorm network in torch and in Ember."""
    torch.manual_seed(0)
    tnet = _net(torch)
    enet = _net(ember)
    enet.load_state_dict({k: ember.tensor(v.detach().numpy().copy())
                          for k, v in tnet.state_dict().items()})
    return enet, tnet


def _batches(n=6, seed=0):
    rng = np.random.default_rng(seed)
    return [(rng.standard_normal((5, 4)).astype(np.float32),
             rng.standard_normal((5, 2)).astype(np.float32)) for _ in range(n)]


def _train_step(lib, net, opt, x, y):
    opt.zero_grad()
    loss = ((net(lib.tensor(x)) - lib.tensor(y)) ** 2).mean()
    loss.backward()
    opt.step()


def _assert_state_close(enet, tnet, atol=1e-5):
    te = enet.state_dict()
    tt = tnet.state_dict()
    assert list(te) == list(tt)
    for key in tt:
        np.testing.assert_allclose(te[key].detach().numpy(), tt[key].detach().numpy(),
                                   rtol=0, atol=atol, err_msg=key)


@pytest.mark.parametrize("make_kwargs", [
    lambda m: {},
    lambda m: {"use_buffers": True},
    lambda m: {"multi_avg_fn": m.get_ema_multi_avg_fn(0.9)},
    lambda m: {"multi_avg_fn": m.get_ema_multi_avg_fn(0.7), "use_buffers": True},
    # (With use_buffers, torch's SWA multi_avg_fn fails on the integer num_batches_tracked:
    # integer addcdiv is a RuntimeError in both libraries.)
    lambda m: {"multi_avg_fn": m.get_swa_multi_avg_fn()},
    lambda m: {"avg_fn": m.get_ema_avg_fn(0.8)},
    lambda m: {"avg_fn": m.get_swa_avg_fn(), "use_buffers": True},
], ids=["swa", "swa-buffers", "ema-multi", "ema-multi-buffers", "swa-multi",
        "ema-avg-fn", "swa-avg-fn-buffers"])
def test_averaged_model_matches_torch(make_kwargs):
    enet, tnet = _pair()
    eavg = eswa.AveragedModel(enet, **make_kwargs(eswa))
    tavg = tswa.AveragedModel(tnet, **make_kwargs(tswa))
    eopt = ember.optim.SGD(enet.parameters(), lr=0.1, momentum=0.9)
    topt = torch.optim.SGD(tnet.parameters(), lr=0.1, momentum=0.9, foreach=False)
    for x, y in _batches():
        _train_step(ember, enet, eopt, x, y)
        _train_step(torch, tnet, topt, x, y)
        eavg.update_parameters(enet)
        tavg.update_parameters(tnet)
        _assert_state_close(eavg, tavg)
    assert eavg.n_averaged.item() == tavg.n_averaged.item() == 6
    assert eavg.n_averaged.dtype == ember.int64
    # The averaged copy is a separate module: its forward is the averaged network's.
    x = np.random.default_rng(3).standard_normal((3, 4)).astype(np.float32)
    eavg.eval()
    tavg.eval()
    np.testing.assert_allclose(eavg(ember.tensor(x)).detach().numpy(),
                               tavg(torch.tensor(x)).detach().numpy(), rtol=0, atol=1e-5)
    assert eavg.module is not enet


def test_averaged_model_first_update_copies_and_buffers_follow_without_use_buffers():
    enet, _ = _pair()
    avg = eswa.AveragedModel(enet)
    with ember.no_grad():
        for p in enet.parameters():
            p.add_(1.0)
    enet(ember.tensor(_batches(1)[0][0]))  # moves the BatchNorm running stats
    avg.update_parameters(enet)
    for (name, pa), pm in zip(avg.module.named_parameters(), enet.parameters()):
        assert pa.tolist() == pm.tolist(), name
    for ba, bm in zip(avg.module.buffers(), enet.buffers()):
        assert ba.tolist() == bm.tolist()
    assert avg.n_averaged.item() == 1


def test_swa_avg_fn_is_the_running_mean():
    w = ember.nn.Linear(2, 1, bias=False)
    avg = eswa.AveragedModel(w)
    values = [1.0, 2.0, 6.0, -3.0]
    for v in values:
        with ember.no_grad():
            w.weight.fill_(v)
        avg.update_parameters(w)
    np.testing.assert_allclose(avg.module.weight.detach().numpy(),
                               np.full((1, 2), np.mean(values)), rtol=1e-6)


def test_averaged_model_errors():
    net = ember.nn.Linear(2, 2)
    with pytest.raises(AssertionError, match="Only one of avg_fn and multi_avg_fn"):
        eswa.AveragedModel(net, avg_fn=eswa.get_swa_avg_fn(),
                           multi_avg_fn=eswa.get_swa_multi_avg_fn())
    for bad in (-0.1, 1.5):
        with pytest.raises(ValueError, match="Invalid decay value"):
            eswa.get_ema_multi_avg_fn(bad)
        with pytest.raises(ValueError, match="Invalid decay value"):
            eswa.get_ema_avg_fn(bad)
    assert sorted(eswa.__all__) == sorted(tswa.__all__)


@pytest.mark.parametrize("as_tuples", [False, True])
def test_update_bn_matches_torch(as_tuples):
    enet, tnet = _pair()
    data = _batches(5, seed=1)
    eloader = [(ember.tensor(x), ember.tensor(y)) if as_tuples else ember.tensor(x)
               for x, y in data]
    tloader = [(torch.tensor(x), torch.tensor(y)) if as_tuples else torch.tensor(x)
               for x, y in data]
    enet.eval()
    tnet.eval()
    eswa.update_bn(eloader, enet)
    tswa.update_bn(tloader, tnet)
    _assert_state_close(enet, tnet)
    bn = enet[1]
    assert bn.momentum == 0.1 and not enet.training  # restored
    assert bn.num_batches_tracked.item() == 5
    # A cumulative average: the running mean is the mean of the batch means.
    h = np.stack([enet[0](ember.tensor(x)).detach().numpy().mean(0) for x, _ in data])
    np.testing.assert_allclose(bn.running_mean.numpy(), h.mean(0), rtol=1e-5, atol=1e-6)


def test_update_bn_without_batchnorm_is_a_no_op():
    net = ember.nn.Linear(2, 2)
    calls = []

    class Loader:
        def __iter__(self):
            calls.append(1)
            return iter([])

    eswa.update_bn(Loader(), net)
    assert calls == []


@pytest.mark.parametrize("kwargs", [
    dict(swa_lr=0.05),
    dict(swa_lr=[0.02, 0.2], anneal_epochs=4, anneal_strategy="linear"),
    dict(swa_lr=0.01, anneal_epochs=0),
    dict(swa_lr=0.3, anneal_epochs=7, anneal_strategy="cos"),
], ids=str)
def test_swalr_matches_torch(kwargs):
    seqs = {}
    for lib, mod in [(ember, eswa), (torch, tswa)]:
        w, b = lib.zeros(2, requires_grad=True), lib.zeros(1, requires_grad=True)
        opt = lib.optim.SGD([{"params": [w]}, {"params": [b], "lr": 0.05}], lr=0.1)
        sched = mod.SWALR(opt, **kwargs)
        seq = [tuple(sched.get_last_lr())]
        for _ in range(20):
            opt.step()
            sched.step()
            seq.append(tuple(sched.get_last_lr()))
        seqs[lib.__name__] = seq
        assert sorted(sched.state_dict()) == sorted(seqs.get("keys", sched.state_dict()))
        seqs["keys"] = sched.state_dict()
    np.testing.assert_allclose(seqs["ember"], seqs["torch"], rtol=1e-12, atol=1e-15)


def test_swalr_after_another_scheduler_and_state_dict():
    results = {}
    for lib, mod, lrs in [(ember, eswa, ember.optim.lr_scheduler),
                          (torch, tswa, torch.optim.lr_scheduler)]:
        w = lib.zeros(2, requires_grad=True)
        opt = lib.optim.SGD([w], lr=0.1)
        cosine = lrs.CosineAnnealingLR(opt, T_max=10)
        swa = mod.SWALR(opt, swa_lr=0.02, anneal_epochs=3, anneal_strategy="linear")
        seq = []
        for epoch in range(15):
            opt.step()
            (cosine if epoch < 8 else swa).step()
            seq.append(opt.param_groups[0]["lr"])
        results[lib.__name__] = seq
    np.testing.assert_allclose(results["ember"], results["torch"], rtol=1e-12)

    opt = ember.optim.SGD([ember.zeros(1, requires_grad=True)], lr=0.1)
    sched = eswa.SWALR(opt, swa_lr=0.01, anneal_strategy="linear")
    saved = sched.state_dict()
    assert "anneal_func" not in saved and saved["_anneal_strategy"] == "linear"
    opt2 = ember.optim.SGD([ember.zeros(1, requires_grad=True)], lr=0.1)
    sched2 = eswa.SWALR(opt2, swa_lr=0.01)
    sched2.load_state_dict(saved)
    assert sched2.anneal_func is eswa.SWALR._linear_anneal
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(5):
            sched.step()
            sched2.step()
            assert sched.get_last_lr() == sched2.get_last_lr()


def test_swalr_errors():
    opt = ember.optim.SGD([ember.zeros(1, requires_grad=True)], lr=0.1)
    with pytest.raises(ValueError, match="anneal_strategy"):
        eswa.SWALR(opt, swa_lr=0.01, anneal_strategy="step")
    with pytest.raises(ValueError, match="anneal_epochs"):
        eswa.SWALR(opt, swa_lr=0.01, anneal_epochs=-1)
    with pytest.raises(ValueError, match="anneal_epochs"):
        eswa.SWALR(opt, swa_lr=0.01, anneal_epochs=2.5)
    with pytest.raises(ValueError, match="same length"):
        eswa.SWALR(opt, swa_lr=[0.01, 0.02])
