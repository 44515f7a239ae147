"""ember.nn modules against torch.nn: outputs, gradients, state_dict, repr, hooks, init."""
import copy
import math
import pickle
from collections import OrderedDict

import numpy as np
import pytest

import ember
import ember.nn as enn

torch = pytest.importorskip("torch")
tnn = torch.nn


def to_ember(t):
    return ember.from_numpy(t.detach().numpy().copy())


def to_np(t):
    return t.detach().numpy() if isinstance(t, torch.Tensor) else np.asarray(t.detach())


def copy_state(tm, em):
    return em.load_state_dict({k: to_ember(v) for k, v in tm.state_dict().items()})


def _inputs(specs, seed=0):
    """Each spec: ("f", shape) float input with grad, ("c", shape) float constant,
    ("i", shape, high) int64 indices, ("s", shape) signs in {-1, 1}, ("p", shape) probabilities,
    or a numpy array."""
    rng = np.random.default_rng(seed)
    out = []
    for s in specs:
        if isinstance(s, np.ndarray):
            out.append((s, False))
        elif s[0] == "f":
            out.append((rng.standard_normal(s[1]).astype(np.float32), True))
        elif s[0] == "c":
            out.append((rng.standard_normal(s[1]).astype(np.float32), False))
        elif s[0] == "p":
            out.append((rng.uniform(0.05, 0.95, s[1]).astype(np.float32), False))
        elif s[0] == "s":
            out.append((rng.choice([-1.0, 1.0], s[1]).astype(np.float32), False))
        else:
            out.append((rng.integers(0, s[2], s[1]).astype(np.int64), False))
    return out


def run_pair(name, args=(), kwargs=None, inputs=(), train=True, atol=1e-4, check_repr=True, seed=0):
    """Builds torch.nn.<name> and ember.nn.<name>, copies the state, and compares output,
    gradients of parameters and inputs, buffers afterwards, state_dict keys and repr."""
    kwargs = kwargs or {}
    torch.manual_seed(seed)
    tm = getattr(tnn, name)(*args, **kwargs)
    em = getattr(enn, name)(*args, **kwargs)
    assert list(tm.state_dict().keys()) == list(em.state_dict().keys())
    assert [n for n, _ in tm.named_parameters()] == [n for n, _ in em.named_parameters()]
    if check_repr:
        assert repr(tm) == repr(em)
    copy_state(tm, em)
    tm.train(train)
    em.train(train)
    data = _inputs(inputs, seed)
    tin = [torch.tensor(a, requires_grad=g) for a, g in data]
    ein = [ember.from_numpy(a.copy()).requires_grad_(g) if g else ember.from_numpy(a.copy()) for a, g in data]
    tout = tm(*tin)
    eout = em(*ein)
    if isinstance(tout, tuple):
        tout, eout = tout[0], eout[0]
    np.testing.assert_allclose(to_np(eout), to_np(tout), atol=atol, rtol=1e-4)
    if tout.requires_grad:
        g = np.random.default_rng(seed + 1).standard_normal(tuple(tout.shape)).astype(np.float32)
        (tout * torch.tensor(g)).sum().backward()
        (eout * ember.from_numpy(g)).sum().backward()
        for (n, tp), (_, ep) in zip(tm.named_parameters(), em.named_parameters()):
            if tp.grad is None:
                assert ep.grad is None, n
            else:
                np.testing.assert_allclose(to_np(ep.grad), to_np(tp.grad), atol=atol, rtol=1e-4, err_msg=n)
        for t, e in zip(tin, ein):
            if t.requires_grad:
                np.testing.assert_allclose(to_np(e.grad), to_np(t.grad), atol=atol, rtol=1e-4)
    for (n, tb), (_, eb) in zip(tm.state_dict().items(), em.state_dict().items()):
        np.testing.assert_allclose(to_np(eb), to_np(tb), atol=atol, rtol=1e-4, err_msg=n)
    return tm, em


CASES = [
    ("Identity", (), {}, [("f", (3, 4))]),
    ("Linear", (5, 3), {}, [("f", (4, 5))]),
    ("Linear", (5, 3), {"bias": False}, [("f", (2, 4, 5))]),
    ("Bilinear", (3, 4, 2), {}, [("f", (5, 3)), ("f", (5, 4))]),
    ("Conv1d", (3, 4, 3), {"stride": 2, "padding": 1}, [("f", (2, 3, 9))]),
    ("Conv1d", (3, 4, 4), {"padding": "same", "dilation": 2}, [("f", (2, 3, 9))]),
    ("Conv1d", (3, 4, 3), {"padding": 2, "padding_mode": "circular"}, [("f", (2, 3, 7))]),
    ("Conv2d", (3, 4, 3), {"padding": "same"}, [("f", (2, 3, 6, 5))]),
    ("Conv2d", (3, 4, (3, 2)), {"padding": "valid", "bias": False}, [("f", (2, 3, 6, 5))]),
    ("Conv2d", (4, 6, 3), {"padding": 1, "groups": 2, "padding_mode": "reflect"}, [("f", (2, 4, 5, 5))]),
    ("Conv2d", (3, 2, 3), {"padding": (1, 2), "stride": (2, 1), "padding_mode": "replicate"},
     [("f", (1, 3, 6, 5))]),
    ("Conv2d", (3, 2, 3), {"dilation": 2}, [("f", (3, 6, 7))]),
    ("Conv2d", (2, 2, (2, 4)), {"padding": "same"}, [("f", (1, 2, 5, 6))]),
    ("Conv3d", (2, 3, 2), {"stride": (1, 2, 1)}, [("f", (1, 2, 4, 5, 3))]),
    ("ConvTranspose1d", (3, 2, 3), {"stride": 2, "output_padding": 1}, [("f", (2, 3, 5))]),
    ("ConvTranspose2d", (4, 2, 3), {"stride": 2, "padding": 1, "groups": 2}, [("f", (2, 4, 4, 3))]),
    ("MaxPool1d", (2,), {}, [("f", (2, 3, 8))]),
    ("MaxPool2d", (3,), {"stride": 2, "padding": 1}, [("f", (2, 3, 7, 6))]),
    ("AvgPool1d", (3, 2, 1), {}, [("f", (2, 3, 8))]),
    ("AvgPool2d", (2,), {}, [("f", (2, 3, 6, 4))]),
    ("AdaptiveAvgPool1d", (3,), {}, [("f", (2, 3, 8))]),
    ("AdaptiveAvgPool2d", ((2, 3),), {}, [("f", (2, 3, 7, 8))]),
    ("BatchNorm1d", (4,), {}, [("f", (6, 4))]),
    ("BatchNorm1d", (4,), {"momentum": None}, [("f", (6, 4, 5))]),
    ("BatchNorm1d", (4,), {"affine": False}, [("f", (6, 4))]),
    ("BatchNorm2d", (3,), {}, [("f", (4, 3, 5, 5))]),
    ("BatchNorm2d", (3,), {"track_running_stats": False}, [("f", (4, 3, 5, 5))]),
    ("LayerNorm", ((4, 5),), {}, [("f", (3, 4, 5))]),
    ("LayerNorm", (5,), {"elementwise_affine": False}, [("f", (3, 5))]),
    ("LayerNorm", (5,), {"bias": False}, [("f", (3, 5))]),
    ("GroupNorm", (2, 4), {}, [("f", (3, 4, 5))]),
    ("InstanceNorm2d", (3,), {}, [("f", (2, 3, 4, 5))]),
    ("InstanceNorm2d", (3,), {"affine": True, "track_running_stats": True}, [("f", (2, 3, 4, 5))]),
    ("RMSNorm", (5,), {}, [("f", (3, 5))]),
    ("RMSNorm", ((2, 5),), {"eps": 1e-3}, [("f", (3, 2, 5))]),
    ("LocalResponseNorm", (2,), {}, [("f", (2, 4, 5))]),
    ("Embedding", (10, 4), {"padding_idx": 0}, [("i", (3, 5), 10)]),
    ("EmbeddingBag", (10, 4), {"mode": "sum"}, [("i", (3, 5), 10)]),
    ("EmbeddingBag", (10, 4), {}, [("i", (3, 5), 10)]),
    ("ReLU", (), {}, [("f", (3, 5))]),
    ("GELU", (), {}, [("f", (3, 5))]),
    ("GELU", (), {"approximate": "tanh"}, [("f", (3, 5))]),
    ("SiLU", (), {}, [("f", (3, 5))]),
    ("Tanh", (), {}, [("f", (3, 5))]),
    ("Sigmoid", (), {}, [("f", (3, 5))]),
    ("LeakyReLU", (0.2,), {}, [("f", (3, 5))]),
    ("ELU", (), {"alpha": 0.5}, [("f", (3, 5))]),
    ("Softmax", (), {"dim": 1}, [("f", (3, 5))]),
    ("LogSoftmax", (), {"dim": -1}, [("f", (3, 5))]),
    ("Mish", (), {}, [("f", (3, 5))]),
    ("Hardswish", (), {}, [("f", (3, 5))]),
    ("Flatten", (), {}, [("f", (2, 3, 4))]),
    ("Unflatten", (1, (2, 3)), {}, [("f", (2, 6))]),
    ("L1Loss", (), {}, [("f", (3, 4)), ("c", (3, 4))]),
    ("MSELoss", (), {"reduction": "sum"}, [("f", (3, 4)), ("c", (3, 4))]),
    ("CrossEntropyLoss", (), {}, [("f", (4, 5)), ("i", (4,), 5)]),
    ("CrossEntropyLoss", (), {"label_smoothing": 0.1, "ignore_index": 1}, [("f", (4, 5)), ("i", (4,), 5)]),
    ("NLLLoss", (), {"reduction": "none"}, [("f", (4, 5)), ("i", (4,), 5)]),
    ("BCELoss", (), {}, [("p", (3, 4)), ("p", (3, 4))]),
    ("BCEWithLogitsLoss", (), {}, [("f", (3, 4)), ("p", (3, 4))]),
    ("HuberLoss", (), {"delta": 0.5}, [("f", (3, 4)), ("c", (3, 4))]),
    ("SmoothL1Loss", (), {"beta": 0.5}, [("f", (3, 4)), ("c", (3, 4))]),
    ("KLDivLoss", (), {"reduction": "batchmean"}, [("f", (3, 4)), ("p", (3, 4))]),
    ("MarginRankingLoss", (), {"margin": 0.1}, [("f", (5,)), ("f", (5,)), ("s", (5,))]),
    ("CosineEmbeddingLoss", (), {"margin": 0.1}, [("f", (5, 3)), ("f", (5, 3)), ("s", (5,))]),
    ("TripletMarginLoss", (), {"margin": 0.5}, [("f", (5, 3)), ("f", (5, 3)), ("f", (5, 3))]),
]


@pytest.mark.filterwarnings("ignore:Using padding='same'")
@pytest.mark.parametrize("name,args,kwargs,inputs", CASES,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_module_matches_torch(name, args, kwargs, inputs):
    run_pair(name, args, kwargs, inputs, train=True)


@pytest.mark.parametrize("name,args,kwargs,inputs", [c for c in CASES if "Norm" in c[0]],
                         ids=[c[0] for c in CASES if "Norm" in c[0]])
def test_norm_eval_matches_torch(name, args, kwargs, inputs):
    run_pair(name, args, kwargs, inputs, train=False)


def test_ctc_loss_module():
    T, N, C, S = 6, 2, 4, 3
    rng = np.random.default_rng(0)
    logits = rng.standard_normal((T, N, C)).astype(np.float32)
    targets = rng.integers(1, C, (N, S)).astype(np.int64)
    t_lp = torch.tensor(logits, requires_grad=True)
    e_lp = ember.from_numpy(logits.copy()).requires_grad_(True)
    tl = tnn.CTCLoss()(t_lp.log_softmax(2), torch.tensor(targets), torch.tensor([6, 5]), torch.tensor([3, 2]))
    el = enn.CTCLoss()(e_lp.log_softmax(2), ember.from_numpy(targets.copy()), ember.tensor([6, 5]),
                       ember.tensor([3, 2]))
    np.testing.assert_allclose(to_np(el), to_np(tl), atol=1e-5)
    tl.backward()
    el.backward()
    np.testing.assert_allclose(to_np(e_lp.grad), to_np(t_lp.grad), atol=1e-5)


def test_loss_weight_buffers_and_repr():
    w = np.array([1.0, 2.0, 0.5], np.float32)
    tm, em = tnn.CrossEntropyLoss(weight=torch.tensor(w)), enn.CrossEntropyLoss(weight=ember.from_numpy(w))
    assert list(em.state_dict()) == list(tm.state_dict()) == ["weight"]
    assert repr(em) == repr(tm) == "CrossEntropyLoss()"
    assert list(enn.MSELoss().state_dict()) == []
    assert enn.L1Loss(size_average=False).reduction == "sum"


def test_batchnorm_running_stats_over_batches():
    for momentum in (0.1, None):
        tm, em = tnn.BatchNorm2d(3, momentum=momentum), enn.BatchNorm2d(3, momentum=momentum)
        for seed in range(3):
            x = np.random.default_rng(seed).standard_normal((4, 3, 2, 2)).astype(np.float32) * (seed + 1)
            tm(torch.tensor(x))
            em(ember.from_numpy(x))
        for k in ("running_mean", "running_var"):
            np.testing.assert_allclose(to_np(getattr(em, k)), to_np(getattr(tm, k)), atol=1e-5)
        assert em.num_batches_tracked.item() == 3
        em.eval()
        tm.eval()
        x = np.random.default_rng(9).standard_normal((2, 3, 2, 2)).astype(np.float32)
        np.testing.assert_allclose(to_np(em(ember.from_numpy(x))), to_np(tm(torch.tensor(x))), atol=1e-5)
        assert em.num_batches_tracked.item() == 3


def test_batchnorm_input_checks():
    with pytest.raises(ValueError, match="expected 4D input"):
        enn.BatchNorm2d(3)(ember.randn(2, 3))
    with pytest.raises(ValueError, match="Expected more than 1 value per channel"):
        enn.BatchNorm1d(3)(ember.randn(1, 3))
    sd = {k: to_ember(v) for k, v in tnn.BatchNorm1d(3).state_dict().items() if k != "num_batches_tracked"}
    enn.BatchNorm1d(3).load_state_dict(sd)  # old checkpoints without the counter still load


def test_dropout_train_and_eval():
    d = enn.Dropout(0.3)
    x = ember.ones(200, 200)
    y = d(x).numpy()
    frac = (y == 0).mean()
    assert abs(frac - 0.3) < 0.02
    np.testing.assert_allclose(y[y != 0], 1 / 0.7, rtol=1e-6)
    d.eval()
    np.testing.assert_array_equal(d(x).numpy(), x.numpy())
    assert repr(d) == repr(tnn.Dropout(0.3))
    assert enn.Dropout(0.0)(x).numpy().min() == 1
    with pytest.raises(ValueError):
        enn.Dropout(1.5)


def test_embedding_max_norm_and_pretrained():
    torch.manual_seed(0)
    tm = tnn.Embedding(6, 3, max_norm=1.0)
    em = enn.Embedding(6, 3, max_norm=1.0)
    copy_state(tm, em)
    idx = np.array([[0, 2], [2, 5]], np.int64)
    np.testing.assert_allclose(to_np(em(ember.from_numpy(idx))), to_np(tm(torch.tensor(idx))), atol=1e-5)
    np.testing.assert_allclose(to_np(em.weight), to_np(tm.weight), atol=1e-5)
    assert repr(em) == repr(tm)
    w = ember.randn(4, 2)
    e = enn.Embedding.from_pretrained(w)
    assert not e.weight.requires_grad
    np.testing.assert_array_equal(e(ember.tensor([1, 3])).numpy(), w.numpy()[[1, 3]])
    assert enn.Embedding.from_pretrained(w, freeze=False).weight.requires_grad
    e = enn.Embedding(5, 2, padding_idx=-1)
    assert e.padding_idx == 4 and np.all(e.weight.detach().numpy()[4] == 0)
    b = enn.EmbeddingBag.from_pretrained(w, mode="max")
    assert tuple(b(ember.tensor([[0, 1]])).shape) == (1, 2)


def test_conv_transpose_output_size():
    torch.manual_seed(0)
    tm, em = tnn.ConvTranspose2d(2, 3, 3, stride=2), enn.ConvTranspose2d(2, 3, 3, stride=2)
    copy_state(tm, em)
    x = np.random.default_rng(0).standard_normal((1, 2, 4, 4)).astype(np.float32)
    t = tm(torch.tensor(x), output_size=[10, 10])
    e = em(ember.from_numpy(x), output_size=[10, 10])
    assert tuple(e.shape) == tuple(t.shape) == (1, 3, 10, 10)
    np.testing.assert_allclose(to_np(e), to_np(t), atol=1e-5)
    with pytest.raises(ValueError):
        enn.Conv2d(3, 3, 3, stride=2, padding="same")
    with pytest.raises(ValueError):
        enn.Conv2d(3, 3, 3, padding_mode="bogus")


# ---- Module machinery ----

def make_net_class(nn, lib):
    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.features = nn.Sequential(nn.Conv2d(1, 4, 3), nn.BatchNorm2d(4), nn.ReLU())
            self.head = nn.ModuleDict({"fc": nn.Linear(4, 2), "act": nn.Tanh()})
            self.blocks = nn.ModuleList([nn.Linear(2, 2) for _ in range(3)] + [nn.Identity()])
            self.scale = nn.Parameter(lib.ones(1))
            self.register_buffer("steps", lib.zeros(2))
            self.register_buffer("cache", lib.zeros(1), persistent=False)

        def forward(self, x):
            x = self.features(x).mean((2, 3))
            x = self.head["act"](self.head["fc"](x))
            for b in self.blocks:
                x = b(x)
            return x * self.scale
    return Net


Net = make_net_class(enn, ember)
TorchNet = make_net_class(tnn, torch)


def test_nested_repr_and_state_dict_match_torch():
    tm, em = TorchNet(), Net()
    assert repr(em) == repr(tm)
    assert list(em.state_dict()) == list(tm.state_dict())
    assert [n for n, _ in em.named_parameters()] == [n for n, _ in tm.named_parameters()]
    assert [n for n, _ in em.named_buffers()] == [n for n, _ in tm.named_buffers()]
    assert [n for n, _ in em.named_modules()] == [n for n, _ in tm.named_modules()]
    assert [n for n, _ in em.named_children()] == [n for n, _ in tm.named_children()]
    assert isinstance(em.state_dict(), OrderedDict)
    copy_state(tm, em)
    tm.eval()
    em.eval()
    x = np.random.default_rng(0).standard_normal((2, 1, 5, 5)).astype(np.float32)
    np.testing.assert_allclose(to_np(em(ember.from_numpy(x))), to_np(tm(torch.tensor(x))), atol=1e-5)
    assert "cache" not in em.state_dict()
    assert em.state_dict(keep_vars=True)["scale"] is em.scale
    assert not em.state_dict()["scale"].requires_grad
    assert list(em.state_dict(prefix="m."))[:2] == ["m.scale", "m.steps"]


def test_repr_simple_layers_match_torch():
    def build(nn):
        return nn.Sequential(
            nn.Conv1d(2, 3, 3, stride=2, padding=1, bias=False, padding_mode="reflect"),
            nn.ConvTranspose2d(3, 3, 2, stride=2, output_padding=1, groups=3, dilation=2),
            nn.Conv2d(2, 2, 3, padding="same"),
            nn.MaxPool2d(2, 1), nn.AvgPool2d(3), nn.AvgPool1d(2), nn.AdaptiveAvgPool2d(1),
            nn.LayerNorm(4), nn.GroupNorm(1, 2), nn.InstanceNorm2d(3), nn.RMSNorm(4),
            nn.Embedding(4, 2), nn.EmbeddingBag(4, 2), nn.GELU(approximate="tanh"), nn.ReLU(inplace=True),
            nn.LeakyReLU(), nn.ELU(), nn.Softmax(dim=1), nn.LogSoftmax(1), nn.Dropout(), nn.Flatten(0),
            nn.Unflatten(1, (2, 2)), nn.Bilinear(2, 3, 4), nn.Identity(),
            nn.ModuleList([nn.ReLU(), nn.ReLU(), nn.Tanh()]), nn.ModuleList(), nn.Sequential(),
        )
    assert repr(build(enn)) == repr(build(tnn))


def test_registration_and_attributes():
    m = enn.Module()
    m.w = enn.Parameter(ember.ones(2))
    m.sub = enn.Linear(2, 2)
    m.register_buffer("b", ember.zeros(1))
    m.plain = 3
    assert [n for n, _ in m.named_parameters()] == ["w", "sub.weight", "sub.bias"]
    assert "w" in m._parameters and "sub" in m._modules and "b" in m._buffers
    assert m.plain == 3
    with pytest.raises(TypeError):
        m.w = ember.ones(2)  # a plain tensor can't replace a parameter
    m.w = None
    assert "w" not in dict(m.named_parameters())
    m.register_parameter("w", enn.Parameter(ember.ones(3)))
    with pytest.raises(KeyError):
        m.register_parameter("a.b", None)
    with pytest.raises(KeyError):
        m.register_buffer("plain", ember.zeros(1))
    with pytest.raises(AttributeError):
        m.nothing
    del m.sub
    assert "sub" not in m._modules
    m.add_module("child", enn.ReLU())
    m.register_module("child2", enn.ReLU())
    assert [n for n, _ in m.named_children()] == ["child", "child2"]
    m.buf2 = enn.Buffer(ember.ones(2), persistent=False)
    assert "buf2" in m._buffers and "buf2" not in m.state_dict()
    with pytest.raises(AttributeError):
        class Bad(enn.Module):
            def __init__(self):
                self.p = enn.Parameter(ember.ones(1))
        Bad()
    assert m.get_submodule("child") is m.child
    assert m.get_parameter("w") is m.w


def test_parameters_dedup_and_order():
    shared = enn.Linear(3, 3)
    seq = enn.Sequential(shared, enn.ReLU(), shared)
    assert len(list(seq.parameters())) == 2
    assert [n for n, _ in seq.named_parameters()] == ["0.weight", "0.bias"]
    assert len(list(seq.named_parameters(remove_duplicate=False))) == 4
    assert len(list(seq.modules())) == 3
    assert list(seq.parameters(recurse=False)) == []
    assert [n for n, _ in seq.named_parameters(prefix="net")] == ["net.0.weight", "net.0.bias"]
    tied = enn.Module()
    tied.a = enn.Linear(2, 2)
    tied.b = enn.Linear(2, 2)
    tied.b.weight = tied.a.weight
    assert [n for n, _ in tied.named_parameters()] == ["a.weight", "a.bias", "b.bias"]
    ts = torch.nn.Sequential(torch.nn.Linear(3, 3))
    ts.add_module("again", ts[0])
    es = enn.Sequential(enn.Linear(3, 3))
    es.add_module("again", es[0])
    assert list(es.state_dict()) == list(ts.state_dict())


def test_load_state_dict_errors():
    m = enn.Sequential(enn.Linear(2, 3), enn.BatchNorm1d(3))
    sd = m.state_dict()
    res = m.load_state_dict(sd)
    assert res.missing_keys == [] and res.unexpected_keys == []
    bad = OrderedDict(sd)
    del bad["0.bias"]
    bad["extra"] = ember.zeros(1)
    with pytest.raises(RuntimeError) as e:
        m.load_state_dict(bad)
    msg = str(e.value)
    assert 'Missing key(s) in state_dict: "0.bias"' in msg
    assert 'Unexpected key(s) in state_dict: "extra"' in msg
    res = m.load_state_dict(bad, strict=False)
    assert res.missing_keys == ["0.bias"] and res.unexpected_keys == ["extra"]
    assert res == (["0.bias"], ["extra"])
    wrong = OrderedDict(sd)
    wrong["0.weight"] = ember.zeros(4, 2)
    with pytest.raises(RuntimeError, match=r"size mismatch for 0.weight"):
        m.load_state_dict(wrong)
    with pytest.raises(RuntimeError, match=r"size mismatch"):
        m.load_state_dict(wrong, strict=False)
    # Loading copies values in place: the parameter objects stay the same.
    w = m[0].weight
    new = {k: v.clone() + 1 if v.is_floating_point() else v for k, v in sd.items()}
    m.load_state_dict(new)
    assert m[0].weight is w
    np.testing.assert_allclose(w.detach().numpy(), new["0.weight"].numpy())


def test_hooks():
    lin = enn.Linear(2, 2)
    calls = []
    h1 = lin.register_forward_pre_hook(lambda mod, args: (args[0] * 0,))
    h2 = lin.register_forward_hook(lambda mod, args, out: calls.append(tuple(out.shape)))
    h3 = lin.register_forward_hook(lambda mod, args, out: out + 100)
    y = lin(ember.ones(1, 2))
    np.testing.assert_allclose(y.detach().numpy(), lin.bias.detach().numpy()[None] + 100, rtol=1e-6)
    assert calls == [(1, 2)]
    h1.remove()
    h3.remove()
    h3.remove()
    y = lin(ember.ones(1, 2))
    np.testing.assert_allclose(y.detach().numpy(), (ember.ones(1, 2) @ lin.weight.t() + lin.bias).detach().numpy())
    assert len(calls) == 2
    h2.remove()
    lin(ember.ones(1, 2))
    assert len(calls) == 2
    seen = {}
    h = lin.register_forward_pre_hook(lambda mod, args, kwargs: seen.update(kwargs), with_kwargs=True)
    lin(input=ember.ones(1, 2))
    assert "input" in seen
    h.remove()


def test_train_eval_zero_grad_requires_grad():
    m = Net()
    assert m.training and m.features[1].training
    m.eval()
    assert not m.training and not m.features[1].training and not m.blocks[0].training
    m.train()
    assert m.head["fc"].training
    out = m(ember.randn(2, 1, 5, 5)).sum()
    out.backward()
    assert all(p.grad is not None for p in m.parameters())
    m.zero_grad(set_to_none=False)
    assert all(float(p.grad.abs().sum()) == 0 for p in m.parameters())
    m.zero_grad()
    assert all(p.grad is None for p in m.parameters())
    m.requires_grad_(False)
    assert not any(p.requires_grad for p in m.parameters())


def test_to_double_float_apply():
    m = enn.Sequential(enn.Linear(3, 2), enn.BatchNorm1d(2))
    m.double()
    assert all(p.dtype == ember.float64 for p in m.parameters())
    assert m[1].running_mean.dtype == ember.float64
    assert m[1].num_batches_tracked.dtype == ember.int64
    assert isinstance(m[0].weight, enn.Parameter) and m[0].weight.requires_grad
    y = m(ember.randn(4, 3, dtype=ember.float64))
    assert y.dtype == ember.float64
    m.float()
    assert m[0].weight.dtype == ember.float32
    m.to(ember.float64)
    m.to("cpu")
    m.to("cpu", ember.float32)
    assert m[0].weight.dtype == ember.float32
    with pytest.raises(TypeError):
        m.to(ember.int64)
    names = []
    m.apply(lambda mod: names.append(type(mod).__name__))
    assert names == ["Linear", "BatchNorm1d", "Sequential"]


def test_to_keeps_parameter_objects_and_optimizer_state():
    # As PyTorch: Module.to on the same device replaces .data, so an optimizer built before
    # the cast still updates the module's parameters.
    import ember.optim as eoptim
    m = enn.Linear(3, 2)
    w = m.weight
    opt = eoptim.SGD(m.parameters(), lr=0.5)
    m(ember.randn(4, 3)).sum().backward()
    m.double()
    assert m.weight is w and w.dtype == ember.float64 and w.requires_grad and w.is_leaf
    assert w.grad is not None and w.grad.dtype == ember.float64
    before = w.detach().clone()
    opt.step()
    assert not ember.equal(w.detach(), before)
    tm = torch.nn.Linear(3, 2)
    tw = tm.weight
    tm.double()
    assert tm.weight is tw  # the behaviour copied


def test_data_assignment():
    t = ember.randn(2, 3, requires_grad=True)
    t.data = ember.arange(6, dtype=ember.float64).reshape(3, 2)
    assert t.shape == (3, 2) and t.dtype == ember.float64 and t.requires_grad and t.is_leaf
    np.testing.assert_array_equal(t.detach().numpy(), np.arange(6.0).reshape(3, 2))
    u = ember.zeros(4)
    v = ember.ones(8)[::2]  # a strided view: t takes its geometry and shares its storage
    u.data = v
    assert u.stride() == (2,) and u.tolist() == [1.0] * 4
    v.fill_(3.0)
    assert u.tolist() == [3.0] * 4
    with pytest.raises(TypeError, match="data: expected a Tensor"):
        u.data = [1.0, 2.0]
    with pytest.raises(TypeError, match="data: expected a tensor on cpu"):
        u.data = ember.zeros(2, device="meta")
    assert u.tolist() == [3.0] * 4


def test_tensor_pickle_and_copy():
    for t in [ember.randn(3, 4), ember.randn(3, 4).t(), ember.tensor(2.5), ember.zeros(0, 3),
              ember.arange(6).reshape(2, 3), ember.randn(5).to(ember.bfloat16), ember.tensor([True, False]),
              ember.randn(2, dtype=ember.complex64)]:
        r = pickle.loads(pickle.dumps(t))
        assert type(r) is ember.Tensor and r.dtype == t.dtype and r.shape == t.shape
        assert ember.equal(r, t)
        c = copy.copy(t)
        assert c.dtype == t.dtype and ember.equal(c, t)
    g = ember.randn(3, requires_grad=True)
    r = pickle.loads(pickle.dumps(g))
    assert r.requires_grad and r.is_leaf and ember.equal(r.detach(), g.detach())
    m = pickle.loads(pickle.dumps(ember.empty(2, 3, dtype=ember.float64, device="meta")))
    assert m.device.type == "meta" and m.shape == (2, 3) and m.dtype == ember.float64


def test_parameter_class():
    p = enn.Parameter(ember.randn(2, 3))
    assert isinstance(p, ember.Tensor) and isinstance(p, enn.Parameter)
    assert p.requires_grad and p.is_leaf
    assert repr(p).startswith("Parameter containing:\ntensor(")
    q = enn.Parameter(ember.randn(2), requires_grad=False)
    assert not q.requires_grad
    c = copy.deepcopy(p)
    assert isinstance(c, enn.Parameter) and c is not p and c.requires_grad
    np.testing.assert_array_equal(c.detach().numpy(), p.detach().numpy())
    assert type(p * 2) is ember.Tensor
    r = pickle.loads(pickle.dumps(p))
    assert isinstance(r, enn.Parameter) and r.requires_grad
    np.testing.assert_array_equal(r.detach().numpy(), p.detach().numpy())
    m = enn.Linear(2, 2)
    m2 = copy.deepcopy(m)
    assert m2.weight is not m.weight and isinstance(m2.weight, enn.Parameter)
    np.testing.assert_array_equal(m2.weight.detach().numpy(), m.weight.detach().numpy())


def test_containers():
    layers = [enn.Linear(2, 2), enn.ReLU(), enn.Linear(2, 1)]
    s = enn.Sequential(*layers)
    assert len(s) == 3 and s[0] is layers[0] and s[-1] is layers[2]
    sl = s[1:]
    assert isinstance(sl, enn.Sequential) and len(sl) == 2 and sl[0] is layers[1]
    s.append(enn.Sigmoid())
    assert len(s) == 4 and list(s._modules) == ["0", "1", "2", "3"]
    del s[1]
    assert list(s._modules) == ["0", "1", "2"] and s[1] is layers[2]
    s[0] = enn.Tanh()
    assert isinstance(s[0], enn.Tanh)
    with pytest.raises(IndexError):
        s[5]
    od = enn.Sequential(OrderedDict([("a", enn.ReLU()), ("b", enn.Tanh())]))
    assert list(od._modules) == ["a", "b"] and isinstance(od.b, enn.Tanh)
    ml = enn.ModuleList([enn.ReLU()])
    ml.append(enn.Tanh())
    ml.extend([enn.Sigmoid()])
    ml.insert(0, enn.Identity())
    assert [type(x).__name__ for x in ml] == ["Identity", "ReLU", "Tanh", "Sigmoid"]
    assert len(ml[1:3]) == 2 and isinstance(ml[-1], enn.Sigmoid)
    md = enn.ModuleDict({"x": enn.ReLU()})
    md["y"] = enn.Linear(1, 1)
    assert list(md.keys()) == ["x", "y"] and "y" in md and len(md) == 2
    assert [n for n, _ in md.named_parameters()] == ["y.weight", "y.bias"]
    pl = enn.ParameterList([enn.Parameter(ember.ones(2)), ember.zeros(3)])
    pl.append(ember.ones(1))
    assert len(pl) == 3 and all(isinstance(p, enn.Parameter) for p in pl)
    assert [n for n, _ in pl.named_parameters()] == ["0", "1", "2"]
    tpl = tnn.ParameterList([tnn.Parameter(torch.ones(2)), torch.zeros(3)])
    tpl.append(torch.ones(1))
    assert list(pl.state_dict()) == list(tpl.state_dict())
    assert repr(pl) == repr(tpl).replace("torch.", "ember.")
    pd = enn.ParameterDict({"a": ember.ones(2)})
    assert [n for n, _ in pd.named_parameters()] == ["a"] and isinstance(pd["a"], enn.Parameter)


# ---- initialisation ----

def _stats(t):
    a = t.detach().numpy().astype(np.float64)
    return a.mean(), a.std(), a.min(), a.max()


def test_default_init_distributions():
    ember.manual_seed(0)
    lin = enn.Linear(800, 500)
    bound = 1 / math.sqrt(800)  # kaiming_uniform_(a=sqrt(5)) gives the same bound
    mean, std, lo, hi = _stats(lin.weight)
    assert abs(mean) < 2e-3 and abs(std - bound / math.sqrt(3)) < 1e-3 and -bound <= lo and hi <= bound
    assert hi > 0.99 * bound and lo < -0.99 * bound
    mean, std, lo, hi = _stats(lin.bias)
    assert -bound <= lo and hi <= bound and abs(std - bound / math.sqrt(3)) < 3e-3
    conv = enn.Conv2d(64, 128, 3)
    bound = 1 / math.sqrt(64 * 9)
    mean, std, lo, hi = _stats(conv.weight)
    assert abs(std - bound / math.sqrt(3)) < 5e-4 and -bound <= lo and hi <= bound
    ct = enn.ConvTranspose2d(64, 32, 3)  # fan_in from weight dim 1 (out/groups) as in PyTorch
    bound = 1 / math.sqrt(32 * 9)
    mean, std, lo, hi = _stats(ct.weight)
    assert abs(std - bound / math.sqrt(3)) < 1e-3 and hi <= bound
    mean, std, _, _ = _stats(enn.Embedding(1000, 100).weight)
    assert abs(mean) < 0.01 and abs(std - 1) < 0.01
    bil = enn.Bilinear(100, 20, 50)
    bound = 1 / math.sqrt(100)
    _, std, lo, hi = _stats(bil.weight)
    assert abs(std - bound / math.sqrt(3)) < 1e-3 and hi <= bound
    bn = enn.BatchNorm1d(5)
    assert np.all(bn.weight.detach().numpy() == 1) and np.all(bn.bias.detach().numpy() == 0)
    ln = enn.LayerNorm(5)
    assert np.all(ln.weight.detach().numpy() == 1) and np.all(ln.bias.detach().numpy() == 0)


def test_init_functions():
    ember.manual_seed(0)
    init, tinit = enn.init, tnn.init
    for nl, p in [("linear", None), ("relu", None), ("tanh", None), ("leaky_relu", 0.2), ("selu", None),
                  ("sigmoid", None), ("conv2d", None), ("leaky_relu", None)]:
        assert init.calculate_gain(nl, p) == tinit.calculate_gain(nl, p)
    w = ember.empty(400, 600)
    init.uniform_(w, -2, 3)
    _, _, lo, hi = _stats(w)
    assert -2 <= lo and hi <= 3 and lo < -1.9 and hi > 2.9
    init.normal_(w, 1, 2)
    mean, std, _, _ = _stats(w)
    assert abs(mean - 1) < 0.02 and abs(std - 2) < 0.02
    init.constant_(w, 0.5)
    assert np.all(w.numpy() == 0.5)
    init.zeros_(w)
    assert np.all(w.numpy() == 0)
    init.ones_(w)
    assert np.all(w.numpy() == 1)
    e = ember.empty(3, 5)
    init.eye_(e)
    np.testing.assert_array_equal(e.numpy(), np.eye(3, 5))
    init.xavier_uniform_(w, gain=2)
    a = 2 * math.sqrt(6 / 1000)
    _, std, lo, hi = _stats(w)
    assert -a <= lo and hi <= a and abs(std - a / math.sqrt(3)) < 1e-3
    init.xavier_normal_(w)
    assert abs(_stats(w)[1] - math.sqrt(2 / 1000)) < 1e-3
    init.kaiming_uniform_(w, a=0.1, mode="fan_out", nonlinearity="leaky_relu")
    bound = math.sqrt(3) * math.sqrt(2 / (1 + 0.01)) / math.sqrt(400)
    _, std, lo, hi = _stats(w)
    assert hi <= bound and abs(std - bound / math.sqrt(3)) < 1e-3
    init.kaiming_normal_(w, nonlinearity="relu")
    assert abs(_stats(w)[1] - math.sqrt(2 / 600)) < 1e-3
    init.trunc_normal_(w, mean=0.5, std=1, a=-1, b=1)
    mean, std, lo, hi = _stats(w)
    t = torch.empty(400, 600)
    tinit.trunc_normal_(t, mean=0.5, std=1, a=-1, b=1)
    tm, ts, _, _ = _stats(t)
    assert -1 <= lo and hi <= 1 and abs(mean - tm) < 0.01 and abs(std - ts) < 0.01
    q = ember.empty(30, 50)
    init.orthogonal_(q, gain=2)
    np.testing.assert_allclose(q.numpy() @ q.numpy().T, 4 * np.eye(30), atol=1e-4)
    q = ember.empty(50, 3, 2, 2)
    init.orthogonal_(q)
    flat = q.numpy().reshape(50, 12)
    np.testing.assert_allclose(flat.T @ flat, np.eye(12), atol=1e-4)
    d = ember.empty(4, 2, 3, 3)
    init.dirac_(d)
    td = torch.empty(4, 2, 3, 3)
    tinit.dirac_(td)
    np.testing.assert_array_equal(d.numpy(), td.numpy())
    with pytest.raises(ValueError):
        init.kaiming_uniform_(w, mode="fan_avg")
    with pytest.raises(ValueError):
        init.xavier_uniform_(ember.empty(3))
    p = enn.Parameter(ember.empty(3, 3))
    init.kaiming_uniform_(p)
    assert p.requires_grad and p.grad_fn is None
