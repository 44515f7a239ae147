"""ember.jit.trace, the graph passes, elementwise fusion, ember.cond and ember.compile.

The fused kernels are checked in the op-table style: every op the fusion pass takes, traced
and fused, against the same expression run eagerly by Ember (bitwise where the fused tile
calls the eager functor) and by torch, over contiguous, broadcast, transposed, 0-d and empty
inputs, float32 and float64, with gradients through the fused graph; likewise the casts that
join a chain (from every dtype the tile loader reads) and the reductions that end one."""
import re
import warnings

import numpy as np
import pytest
import torch

import ember

F = ember.nn.functional


def pos(m, t):
    return m.abs(t) + 0.25


# name -> f(m, x, y): one fusable op, chained with a multiply so the pass makes a fused node.
UNARY = {
    "neg": lambda m, x, y: m.neg(x) * y,
    "abs": lambda m, x, y: m.abs(x) * y,
    "relu": lambda m, x, y: m.relu(x) * y,
    "exp": lambda m, x, y: m.exp(x) * y,
    "expm1": lambda m, x, y: m.expm1(x) * y,
    "log": lambda m, x, y: m.log(pos(m, x)) * y,
    "log1p": lambda m, x, y: m.log1p(pos(m, x)) * y,
    "log2": lambda m, x, y: m.log2(pos(m, x)) * y,
    "sqrt": lambda m, x, y: m.sqrt(pos(m, x)) * y,
    "rsqrt": lambda m, x, y: m.rsqrt(pos(m, x)) * y,
    "sin": lambda m, x, y: m.sin(x) * y,
    "cos": lambda m, x, y: m.cos(x) * y,
    "tanh": lambda m, x, y: m.tanh(x) * y,
    "sigmoid": lambda m, x, y: m.sigmoid(x) * y,
    "erf": lambda m, x, y: m.erf(x) * y,
    "gelu": lambda m, x, y: m.nn.functional.gelu(x) * y,
    "gelu_tanh": lambda m, x, y: m.nn.functional.gelu(x, approximate="tanh") * y,
    "silu": lambda m, x, y: m.nn.functional.silu(x) * y,
    "reciprocal": lambda m, x, y: m.reciprocal(pos(m, x)) * y,
    "square": lambda m, x, y: m.square(x) * y,
}
BINARY = {
    "add": lambda m, x, y: (x + y) * 2.5,
    "add_alpha": lambda m, x, y: m.add(x, y, alpha=3) * 2.5,
    "sub": lambda m, x, y: (x - y) * 2.5,
    "sub_alpha": lambda m, x, y: m.sub(x, y, alpha=0.5) * 2.5,
    "mul": lambda m, x, y: (x * y) + 1.5,
    "div": lambda m, x, y: (x / pos(m, y)) * 2.5,
    "maximum": lambda m, x, y: m.maximum(x, y) * 2.5,
    "minimum": lambda m, x, y: m.minimum(x, y) * 2.5,
    "add_scalar": lambda m, x, y: (x + 0.75) * y,
    "sub_scalar": lambda m, x, y: (x - 0.75) * y,
    "mul_scalar": lambda m, x, y: (x * 0.75) * y,
    "div_scalar": lambda m, x, y: (x / 0.75) * y,
    "rsub_scalar": lambda m, x, y: (0.75 - x) * y,
    "clamp": lambda m, x, y: m.clamp(x, -0.5, 0.5) * y,
    "clamp_min": lambda m, x, y: m.clamp(x, min=-0.25) * y,
    "clamp_max": lambda m, x, y: m.clamp(x, max=0.25) * y,
    "where": lambda m, x, y: m.where(x > y, x, y) * 2.5,
}
OPS = {**UNARY, **BINARY}

RNG = np.random.default_rng(0)


def layouts():
    a = RNG.standard_normal((6, 5))
    b = RNG.standard_normal((6, 5))
    yield "contiguous", a, b, None
    yield "broadcast", RNG.standard_normal((4, 3, 5)), RNG.standard_normal((3, 1)), None
    yield "broadcast_both", RNG.standard_normal((4, 1, 5)), RNG.standard_normal((3, 5)), None
    yield "transposed", a, b, "t"
    yield "permuted", RNG.standard_normal((3, 4, 5)), RNG.standard_normal((3, 4, 5)), "p"
    yield "0-d", np.array(0.7), np.array(-1.3), None
    yield "empty", np.zeros((0, 5)), np.zeros((0, 5)), None
    yield "large", RNG.standard_normal((3, 4099)), RNG.standard_normal((3, 4099)), None


LAYOUTS = list(layouts())


def make(m, a, dtype, how):
    t = m.tensor(a, dtype=getattr(m, dtype))
    if how == "p":  # a dense layout whose memory order is (1, 2, 0) of the [4, 5, 3] view
        return t.permute(2, 0, 1)
    return t.t() if how == "t" else t


TENSOR_BINARY = {"add", "add_alpha", "sub", "sub_alpha", "mul", "maximum", "minimum", "where"}


def expect_fused(name, layout):
    """Where the pass makes one fused node. A fused program runs over one shape in one dense
    layout (a chain over transposed inputs fuses in their memory order, its results
    transposed as eager's); an op at a smaller shape before a broadcast stays a node of its
    own (x's [4, 1, 5] under [4, 3, 5]; div's abs(y) + 0.25 at y's shape)."""
    if layout == "broadcast":
        return name != "div"
    if layout == "broadcast_both":
        return name in TENSOR_BINARY
    return True


def fused_nodes(graph):
    return [n for n in graph.nodes() if n["op"] == "ember::fused_elementwise"]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("layout", LAYOUTS, ids=[l[0] for l in LAYOUTS])
@pytest.mark.parametrize("name", sorted(OPS))
def test_every_fusable_op_fused_equals_eager(name, layout, dtype):
    _, a, b, how = layout
    f = OPS[name]
    x, y = make(ember, a, dtype, how), make(ember, b, dtype, how)
    g = ember.jit.trace(lambda x, y: f(ember, x, y), (x, y))
    if expect_fused(name, layout[0]):
        # (where's condition x > y is a comparison, which stays a node of its own)
        nodes = 2 if name == "where" else 1
        assert len(fused_nodes(g.graph)) == 1 and len(g.graph.nodes()) == nodes, str(g.graph)
    # The graph is reused on new values of the same signature.
    x2, y2 = x * 1.5 - 0.1, y * 0.5 + 0.2
    if not expect_fused(name, layout[0]):
        assert not fused_nodes(g.graph) or len(g.graph.nodes()) > 1
    for xi, yi in ((x, y), (x2, y2)):
        got = g(xi, yi).numpy()
        want = f(ember, xi, yi).numpy()
        tol = 1e-6 if dtype == "float32" else 1e-13
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol)
        ref = f(torch, torch.from_numpy(xi.numpy()), torch.from_numpy(yi.numpy())).numpy()
        np.testing.assert_allclose(got, ref, rtol=10 * tol, atol=10 * tol)
        assert got.shape == want.shape and got.dtype == want.dtype
        assert g(xi, yi).stride() == f(ember, xi, yi).stride()  # the layout eager gives


BITWISE = ["neg", "abs", "relu", "exp", "tanh", "sigmoid", "add", "sub", "mul", "div",
           "maximum", "minimum", "add_scalar", "mul_scalar", "clamp", "where", "square"]


@pytest.mark.parametrize("name", BITWISE)
def test_fused_is_bitwise_eager_where_the_functors_are_the_same(name):
    x = ember.randn(1000, 37)
    y = ember.randn(37)
    f = OPS[name]
    g = ember.jit.trace(lambda x, y: f(ember, x, y), (x, y))
    assert fused_nodes(g.graph)
    assert ember.equal(g(x, y), f(ember, x, y))


def test_a_scaled_operand_folds_into_add_and_sub_bitwise():
    """a + 1*(s*y) -> add(a, y, alpha=s) and a + (-1)*(s*y) -> sub(a, y, alpha=s), one tile
    pass fewer; not where alpha is not 1, nor where the product is also returned."""
    x, y = ember.randn(1000, 37), ember.randn(1000, 37)
    cases = {
        "sub": (lambda a, b: a - 0.5 * b, r"sub\(r\d+, r\d+, alpha=0.5\)", True),
        "add_left": (lambda a, b: b * 2.5 + a, r"add\(r\d+, r\d+, alpha=2.5\)", True),
        "add_right": (lambda a, b: a + b * -3.25, r"add\(r\d+, r\d+, alpha=-3.25\)", True),
        "alpha": (lambda a, b: a.sub(b * 3, alpha=2), r"mul_scalar\(", False),
        "escapes": (lambda a, b: (a - 0.5 * b, b * 0.5), r"mul_scalar\(", False),
        "reversed": (lambda a, b: b * 4 - a, r"mul_scalar\(", False),
    }
    for name, (f, text, folded) in cases.items():
        g = ember.jit.trace(f, (x, y))
        program = str(g.graph)
        assert re.search(text, program) and (("mul_scalar(" in program) != folded), (name, program)
        got, want = g(x, y), f(x, y)
        for gi, wi in zip(got if isinstance(got, tuple) else (got,), want if isinstance(want, tuple) else (want,)):
            assert ember.equal(gi, wi), name
    # And in float64, with values where a separate product would round differently if alpha
    # were folded wrongly.
    xd, yd = ember.randn(333, dtype=ember.float64) * 1e3, ember.randn(333, dtype=ember.float64) / 7
    f = lambda a, b: a - 0.1 * b
    assert ember.equal(ember.jit.trace(f, (xd, yd))(xd, yd), f(xd, yd))


def test_large_outputs_are_streamed_and_equal_eager():
    """Outputs of 16 MiB and more are written with non-temporal stores from the tile buffers
    (fused_elementwise.cpp); the last, partial tile is copied."""
    n = (4 << 20) + 77
    x, y = ember.randn(n + 1)[1:], ember.randn(n)  # x starts off a 64-byte line
    f = lambda a, b: (ember.exp(-a) * ember.tanh(b) - 0.5 * b, ember.exp(-a), a.relu() + 1)
    g = ember.jit.trace(f, (x, y))
    assert len(fused_nodes(g.graph)) == 1, str(g.graph)
    for gi, wi in zip(g(x, y), f(x, y)):
        assert ember.equal(gi, wi)
    # A chain with a reduction at its end streams its elementwise outputs too.
    h = lambda a, b: (ember.exp(-a) * b, (ember.exp(-a) * b).sum())
    gh = ember.jit.trace(h, (x, y))
    got, want = gh(x, y), h(x, y)
    assert ember.equal(got[0], want[0])
    assert abs(float(got[1]) - float(want[1])) <= 1e-5 * float((ember.exp(-x) * y).abs().sum())


@pytest.mark.parametrize("name", sorted(OPS))
def test_gradients_flow_through_a_fused_graph(name):
    a = RNG.standard_normal((4, 5))
    b = RNG.standard_normal((4, 5)) + np.where(np.abs(a - RNG.standard_normal((4, 5))) < 0.1, 0.5, 0)
    f = OPS[name]
    xe, ye = (ember.tensor(v, requires_grad=True) for v in (a, b))
    xt, yt = (torch.tensor(v, requires_grad=True) for v in (a, b))
    g = ember.jit.trace(lambda x, y: f(ember, x, y), (xe.detach(), ye.detach()))
    g(xe, ye).sum().backward()
    f(torch, xt, yt).sum().backward()
    np.testing.assert_allclose(xe.grad.numpy(), xt.grad.numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(ye.grad.numpy(), yt.grad.numpy(), rtol=1e-10, atol=1e-12)


def test_the_long_chain_of_the_benchmark_is_one_fused_node():
    x, y = ember.randn(1000), ember.randn(1000)

    def f(x, y):
        return ember.exp(-x) * ember.tanh(y) + F.gelu(x) - 0.5 * y
    g = ember.jit.trace(f, (x, y))
    assert [n["op"] for n in g.graph.nodes()] == ["ember::fused_elementwise"]
    xt, yt = torch.from_numpy(x.numpy()), torch.from_numpy(y.numpy())
    ref = torch.exp(-xt) * torch.tanh(yt) + torch.nn.functional.gelu(xt) - 0.5 * yt
    np.testing.assert_allclose(g(x, y).numpy(), ref.numpy(), rtol=1e-6, atol=1e-6)


# Casts join a chain: the source is read in its own dtype and converted as each tile loads.
CAST_SOURCES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16",
                "float32", "float64"]


def cast_source(m, dtype, shape):
    a = RNG.standard_normal(shape) * 40
    if dtype == "bool":
        return m.tensor(a > 0)
    if dtype == "uint8":
        return m.tensor(np.abs(a).astype(np.uint8))
    if dtype.startswith("int"):
        return m.tensor(a.astype(getattr(np, dtype)))
    t = m.tensor(a / 40, dtype=m.float64)
    return t.to(getattr(m, dtype))


@pytest.mark.parametrize("layout", ["contiguous", "transposed", "0-d", "empty", "large"])
@pytest.mark.parametrize("target", ["float32", "float64"])
@pytest.mark.parametrize("source", CAST_SOURCES)
def test_casts_fuse_into_the_chain(source, target, layout):
    if source == target:
        return  # to() of the same dtype is the tensor itself, not a cast
    shape = {"contiguous": (6, 5), "transposed": (5, 6), "0-d": (), "empty": (0, 5), "large": (3, 4099)}[layout]
    src = cast_source(ember, source, shape)
    if layout == "transposed":
        src = src.t()
    y = ember.tensor(RNG.standard_normal(tuple(src.shape)), dtype=getattr(ember, target))
    f = lambda m, x, y: m.exp(x.to(getattr(m, target)) * 0.01) * y + x.to(getattr(m, target))
    g = ember.jit.trace(lambda x, y: f(ember, x, y), (src, y))
    # (a transposed source casts to a transposed result, preserve_format: the chain then
    # fuses in that memory order, y's contiguous layout read through strides)
    assert "= cast(" in str(g.graph), str(g.graph)
    got, want = g(src, y), f(ember, src, y)
    assert got.stride() == want.stride()
    assert got.dtype == want.dtype and got.shape == want.shape
    assert ember.equal(got, want), str(g.graph)
    ref = f(torch, torch.from_numpy(src.float().numpy() if source == "bfloat16" else src.numpy()).to(
        getattr(torch, source)), torch.from_numpy(y.numpy()))
    np.testing.assert_allclose(got.numpy(), ref.numpy(), rtol=1e-6, atol=1e-6)


def test_gradients_flow_through_a_fused_cast():
    a = RNG.standard_normal((4, 5))
    xe = ember.tensor(a, requires_grad=True)
    xt = torch.tensor(a, requires_grad=True)
    ye, yt = ember.tensor(a.astype(np.float32)), torch.tensor(a.astype(np.float32))
    f = lambda m, x, y: m.tanh(x.to(m.float32)) * y
    g = ember.jit.trace(lambda x, y: f(ember, x, y), (xe.detach(), ye))
    assert "= cast(" in str(g.graph), str(g.graph)
    g(xe, ye).sum().backward()
    f(torch, xt, yt).sum().backward()
    assert xe.grad.dtype == ember.float64
    # Through the unfused form the gradient is eager Ember's to the bit; against torch it is
    # 1 - tanh(x)^2 in float32, which cancels near |tanh| = 1 (an ulp of tanh there is ~1e-6
    # of the result), so the two float32 tanh kernels' last bits show at about 1e-5.
    xe2 = ember.tensor(a, requires_grad=True)
    f(ember, xe2, ye).sum().backward()
    np.testing.assert_array_equal(xe.grad.numpy(), xe2.grad.numpy())
    np.testing.assert_allclose(xe.grad.numpy(), xt.grad.numpy(), rtol=2e-5, atol=1e-7)


# name -> (f(m, chain), fuses over trailing dims): a reduction ending a fused chain.
REDUCTIONS = {
    "sum": (lambda m, t: t.sum(), True),
    "sum_last": (lambda m, t: t.sum(-1), True),
    "sum_trailing_keepdim": (lambda m, t: t.sum(dim=(-2, -1), keepdim=True), True),
    "sum_first": (lambda m, t: t.sum(0), False),
    "mean": (lambda m, t: t.mean(), True),
    "mean_last_keepdim": (lambda m, t: t.mean(-1, keepdim=True), True),
    "amax_last": (lambda m, t: t.amax(-1), True),
    "amax_all": (lambda m, t: t.amax(), True),
    "amin_trailing": (lambda m, t: t.amin(dim=(-2, -1)), True),
    "sum_dtype": (lambda m, t: t.sum(-1, dtype=m.float64), False),
}
REDUCTION_SHAPES = {"small": (4, 3, 50), "rows_across_tiles": (3, 2, 5000), "one_long_row": (1, 1, 70001),
                    "many_short_rows": (64, 8, 3), "empty": (2, 0, 5)}


def chain(m, x, y):
    return m.exp(-x) * y + m.tanh(x)  # y broadcasts


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", sorted(REDUCTION_SHAPES))
@pytest.mark.parametrize("name", sorted(REDUCTIONS))
def test_reductions_at_the_end_of_a_chain_fuse(name, shape, dtype):
    red, trailing = REDUCTIONS[name]
    size = REDUCTION_SHAPES[shape]
    if shape == "empty" and name.startswith("am"):
        return  # amax/amin of an empty tensor raise (test_reduction_bad_input)
    a, b = RNG.standard_normal(size), RNG.standard_normal(size[-1:])
    x, y = ember.tensor(a, dtype=getattr(ember, dtype)), ember.tensor(b, dtype=getattr(ember, dtype))
    g = ember.jit.trace(lambda x, y: red(ember, chain(ember, x, y)), (x, y))
    reduced = re.search(r"= (sum|mean|amax|amin)\(", str(g.graph)) is not None
    assert reduced == (trailing and shape != "empty"), str(g.graph)
    if reduced:
        assert len(g.graph.nodes()) == 1, str(g.graph)
    got, want = g(x, y), red(ember, chain(ember, x, y))
    assert got.shape == want.shape and got.dtype == want.dtype
    tol = 1e-5 if dtype == "float32" else 1e-12
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=tol, atol=tol * max(1, size[-1]) ** 0.5)
    ref = red(torch, chain(torch, torch.from_numpy(x.numpy()), torch.from_numpy(y.numpy())))
    np.testing.assert_allclose(got.numpy(), ref.numpy(), rtol=tol, atol=tol * max(1, size[-1]) ** 0.5)


def test_fused_sum_matches_eager_sum_of_a_large_chain():
    x, y = ember.randn(1024, 4096), ember.randn(1024, 4096)
    f = lambda x, y: (ember.exp(-x) * ember.tanh(y)).sum()
    g = ember.jit.trace(f, (x, y))
    assert [n["op"] for n in g.graph.nodes()] == ["ember::fused_elementwise"]
    exact = (np.exp(-x.numpy().astype(np.float64)) * np.tanh(y.numpy().astype(np.float64))).sum()
    assert abs(float(g(x, y)) - exact) <= 1e-6 * np.abs(x.numpy()).sum()
    assert abs(float(g(x, y)) - float(f(x, y))) <= 1e-6 * np.abs(x.numpy()).sum()


def test_fused_amax_and_amin_propagate_nan_and_infinity():
    a = RNG.standard_normal((5, 3000))
    a[1, 2500] = np.nan
    a[3, :] = -np.inf
    x, y = ember.tensor(a, dtype=ember.float32), ember.zeros(3000)
    for red in (lambda t: t.amax(-1), lambda t: t.amin(-1), lambda t: t.amax()):
        g = ember.jit.trace(lambda x, y: red(x * 2 + y), (x, y))
        assert re.search(r"= am(ax|in)\(", str(g.graph)), str(g.graph)
        want = red(torch.from_numpy(x.numpy()) * 2)
        np.testing.assert_array_equal(g(x, y).numpy(), want.numpy())


def test_softmax_pieces_fuse_and_keep_the_escaping_result():
    x = ember.randn(32, 1000)

    def softmax(x):
        e = ember.exp(x - x.amax(-1, keepdim=True))
        return e / e.sum(-1, keepdim=True)
    g = ember.jit.trace(softmax, (x,))
    (node,) = fused_nodes(g.graph)
    assert len(node["outputs"]) == 2, str(g.graph)  # exp's result escapes to the division
    np.testing.assert_allclose(g(x).numpy(), torch.softmax(torch.from_numpy(x.numpy()), -1).numpy(),
                               rtol=1e-6, atol=1e-7)


def test_gradients_flow_through_a_fused_reduction():
    a, b = RNG.standard_normal((4, 6)), RNG.standard_normal((6,))
    xe, ye = (ember.tensor(v, requires_grad=True) for v in (a, b))
    xt, yt = (torch.tensor(v, requires_grad=True) for v in (a, b))
    f = lambda m, x, y: chain(m, x, y).mean(-1).sum() + chain(m, x, y).amax()
    g = ember.jit.trace(lambda x, y: f(ember, x, y), (xe.detach(), ye.detach()))
    assert re.search(r"= mean\(", str(g.graph)), str(g.graph)
    g(xe, ye).backward()
    f(torch, xt, yt).backward()
    np.testing.assert_allclose(xe.grad.numpy(), xt.grad.numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(ye.grad.numpy(), yt.grad.numpy(), rtol=1e-10, atol=1e-12)


def test_a_fused_reduction_saves_and_loads(tmp_path):
    x, y = ember.randn(7, 300).double(), ember.randn(300)
    g = ember.jit.trace(lambda x, y: (chain(ember, x.float(), y).sum(-1), chain(ember, x.float(), y).amax()),
                        (x, y))
    assert re.search(r"= sum\(", str(g.graph)) and "= cast(" in str(g.graph), str(g.graph)
    ember.jit.save(g, tmp_path / "r.ember")
    h = ember.jit.load(tmp_path / "r.ember")
    for u, v in zip(h(x, y), g(x, y)):
        assert ember.equal(u, v)


def test_graph_prints_one_line_per_node_with_the_source_line():
    x = ember.randn(64, 784)
    w = ember.randn(10, 784)
    b = ember.randn(10)
    g = ember.jit.trace(lambda x, w, b: ember.addmm(b, x, w.t()), (x, w, b), optimize=False)
    text = str(g.graph)
    assert re.search(r"%\d+ : f32\[64, 10\] = aten::addmm\(%b, %x, %\d+, 1, 1\)  # test_jit.py:\d+",
                     text), text
    assert "%x : f32[64, 784]" in text and "return (" in text


# ---- modules ---------------------------------------------------------------------------------

def mlp():
    ember.manual_seed(0)
    return ember.nn.Sequential(ember.nn.Linear(8, 16), ember.nn.ReLU(), ember.nn.Linear(16, 4))


def test_module_parameters_are_named_inputs_and_shared():
    net = mlp()
    x = ember.randn(5, 8)
    g = ember.jit.trace(net, (x,))
    assert g.graph.input_names == ["input", "0.weight", "0.bias", "2.weight", "2.bias"]
    assert list(g.state_dict()) == list(net.state_dict())
    assert all(a is b for a, b in zip(g.parameters(), net.parameters()))
    assert ember.equal(g(x), net(x))
    # A training step through the graph updates the module, and the graph sees the update.
    opt = ember.optim.SGD(g.parameters(), lr=0.1)
    g(x).square().sum().backward()
    opt.step()
    assert ember.equal(g(x), net(x))


def test_gradients_of_a_traced_module_match_eager():
    net = mlp()
    x = ember.randn(5, 8)
    g = ember.jit.trace(net, (x,))
    g(x).sum().backward()
    got = [p.grad.clone() for p in net.parameters()]
    net.zero_grad()
    net(x).sum().backward()
    for a, p in zip(got, net.parameters()):
        assert ember.allclose(a, p.grad, rtol=1e-6, atol=1e-7)


def test_freeze_makes_parameters_constants():
    net = mlp()
    x = ember.randn(5, 8)
    g = ember.jit.trace(net, (x,), freeze=True)
    assert g.graph.input_names == ["input"]
    assert ember.allclose(g(x), net(x))


def test_nested_inputs_and_outputs():
    def f(pair, d):
        a, b = pair
        return {"sum": a + b, "rest": [a * d["k"], d["k"].exp()]}
    a, b, k = ember.randn(3), ember.randn(3), ember.randn(3)
    g = ember.jit.trace(f, ((a, b), {"k": k}))
    out = g((a, b), {"k": k})
    assert set(out) == {"sum", "rest"} and isinstance(out["rest"], list)
    assert ember.equal(out["sum"], a + b) and ember.equal(out["rest"][1], k.exp())


def test_in_place_ops_and_views_replay_exactly():
    def f(x):
        y = x.clone()
        y[1:].mul_(2)
        v = y.view(-1)
        v.add_(1)
        return y, v[::2]
    x = ember.randn(3, 4)
    g = ember.jit.trace(f, (x,))
    x2 = ember.randn(3, 4)
    for a, b in zip(g(x2), f(x2)):
        assert ember.equal(a, b)


def test_check_trace_compares_the_graph_with_the_function():
    x = ember.randn(3)
    g = ember.jit.trace(lambda x: x.sin() + 1, (x,), check_trace=True)
    assert ember.equal(g(x), x.sin() + 1)


# ---- passes ----------------------------------------------------------------------------------

def ops_of(graph):
    return [n["op"] for n in graph.nodes()]


def test_prune_drops_what_no_output_needs():
    def f(x):
        unused = x.exp().sum()  # noqa: F841
        return x.sin()
    g = ember.jit.trace(f, (ember.randn(4),), optimize=False)
    graph = g.graph
    assert "aten::exp" in ops_of(graph)
    assert graph.prune() == 2
    assert ops_of(graph) == ["aten::sin"]


def test_common_subexpressions_are_merged():
    def f(x):
        return x.matmul(x.t()) + x.matmul(x.t())
    x = ember.randn(3, 3)
    g = ember.jit.trace(f, (x,), optimize=False)
    before = len(g.graph.nodes())
    assert g.graph.eliminate_common_subexpressions() >= 2
    assert len(g.graph.nodes()) == before - 2
    assert ember.equal(g(x), f(x))


def test_constants_are_folded():
    c = ember.arange(6.0).reshape(2, 3)

    def f(x):
        return x + c.t().exp() * 2
    x = ember.randn(3, 2)
    g = ember.jit.trace(f, (x,), optimize=False)
    assert g.graph.fold_constants() == 3
    assert ops_of(g.graph) == ["aten::add.Tensor"]
    assert ember.allclose(g(x), f(x))


def test_noops_are_removed():
    def f(x):
        return (x * 1 + 0).t().t().contiguous().reshape(3, 4) / 1
    x = ember.randn(3, 4)
    g = ember.jit.trace(f, (x,), optimize=False)
    assert g.graph.remove_noops() == 6          # the transpose pair counts once
    g.graph.prune()
    assert ops_of(g.graph) == []
    assert ember.equal(g(x), x)


def test_passes_leave_random_ops_and_mutations_alone():
    def f(x):
        y = x * 2
        y.add_(1)
        return F.dropout(y, 0.5) + ember.rand(3)
    x = ember.ones(3)
    g = ember.jit.trace(f, (x,))
    assert "aten::add_.Tensor" in ops_of(g.graph) or "aten::add_.Scalar" in ops_of(g.graph)
    assert any("rand" in op for op in ops_of(g.graph))
    ember.manual_seed(3)
    a = g(x)
    ember.manual_seed(3)
    b = f(x)
    assert ember.equal(a, b)


# ---- bad input -------------------------------------------------------------------------------

@pytest.mark.parametrize("conversion,call", [
    ("bool()", lambda t: bool(t.sum() > 0)),
    ("int()", lambda t: int(t.sum())),
    ("float()", lambda t: float(t.sum())),
    ("item()", lambda t: t.sum().item()),
    ("tolist()", lambda t: t.tolist()),
    ("numpy()", lambda t: t.numpy()),
    ("__index__", lambda t: [1, 2, 3][t.sum().long()]),
    ("bool()", lambda t: t.sum() > 0 and 1),
])
def test_data_reading_conversions_raise_naming_the_conversion_and_line(conversion, call):
    def f(x):
        y = x * 2
        call(y)
        return y
    with pytest.raises(RuntimeError, match=re.escape(conversion) + r" reads the value of a "
                       r"traced tensor \(at test_jit.py:\d+\)"):
        ember.jit.trace(f, (ember.ones(3),))
    assert not ember.jit.is_tracing()


def test_the_traced_branch_case_raises_and_cond_gives_the_eager_answer():
    # pytorch#43548: traced on ones, run on -3 * ones, torch.jit.trace returns -6 (eager: -4).
    def f(x):
        if x.sum() > 0:
            return x * 2
        return x - 1
    with pytest.raises(RuntimeError, match="ember.cond"):
        ember.jit.trace(f, (ember.ones(3),))

    def g(x):
        return ember.cond(x.sum() > 0, lambda v: v * 2, lambda v: v - 1, (x,))
    tg = ember.jit.trace(g, (ember.ones(3),))
    assert tg(ember.ones(3)).tolist() == [2, 2, 2]
    assert tg(-3 * ember.ones(3)).tolist() == [-4, -4, -4]
    assert g(-3 * ember.ones(3)).tolist() == [-4, -4, -4]


def test_cond_bad_input():
    x = ember.ones(3)
    with pytest.raises(TypeError, match="same structure"):
        ember.jit.trace(lambda x: ember.cond(x.sum() > 0, lambda v: v, lambda v: (v, v), (x,)),
                        (x,))
    with pytest.raises(TypeError, match="output 0 of the branches differs"):
        ember.jit.trace(lambda x: ember.cond(x.sum() > 0, lambda v: v, lambda v: v.sum(), (x,)),
                        (x,))
    with pytest.raises(ValueError, match="one element"):
        ember.cond(ember.ones(2), lambda: 1, lambda: 2)
    assert ember.cond(False, lambda v: v + 1, lambda v: v - 1, (x,)).tolist() == [0, 0, 0]


def test_non_tensor_results_raise():
    with pytest.raises(TypeError, match="holds a int"):
        ember.jit.trace(lambda x: (x + 1, 3), (ember.ones(2),))
    assert not ember.jit.is_tracing()


COUNTER = 0


def test_mutating_a_global_raises():
    def f(x):
        global COUNTER
        COUNTER += 1
        return x + COUNTER
    with pytest.raises(RuntimeError, match="changed the Python global.*COUNTER"):
        ember.jit.trace(f, (ember.ones(2),))


def test_outputs_made_outside_the_trace_raise():
    outside = ember.ones(2)
    with pytest.raises(ValueError, match="output 0 was not computed by the traced function"):
        ember.jit.trace(lambda x: outside, (ember.ones(2),))


def test_graph_run_checks_its_inputs():
    g = ember.jit.trace(lambda x: x.exp(), (ember.ones(2),))
    with pytest.raises(TypeError, match="expected 1 input"):
        g(ember.ones(2), ember.ones(2))
    with pytest.raises(Exception, match=r"expected input 0 \(%x\) to be f32\[2\] as traced, but got f64\[2\]"):
        g(ember.ones(2, dtype=ember.float64))
    # A graph is specialised to the traced shapes (views hold the traced sizes, a fused
    # node its broadcast): another shape is an error, never a wrong answer.
    with pytest.raises(Exception, match=r"to be f32\[2\] as traced, but got f32\[3\]"):
        g(ember.ones(3))
    v = ember.jit.trace(lambda x: x.view(2, -1) * 2, (ember.ones(6),))
    with pytest.raises(Exception, match=r"f32\[6\] as traced, but got f32\[8\]"):
        v(ember.ones(8))


# ---- save / load -----------------------------------------------------------------------------

class _Net(ember.nn.Module):
    def __init__(self):
        super().__init__()
        self.body = ember.nn.Sequential(ember.nn.Linear(6, 16), ember.nn.GELU(), ember.nn.Linear(16, 4))
        self.norm = ember.nn.BatchNorm1d(4)

    def forward(self, x, y):
        h = self.norm(self.body(x))
        return h.exp() * y.tanh() + h, h.sum()


@pytest.mark.parametrize("optimize", [True, False])
@pytest.mark.parametrize("to_file_object", [False, True])
def test_save_load_round_trip(tmp_path, optimize, to_file_object):
    import io
    net = _Net().eval()
    x, y = ember.randn(5, 6), ember.randn(5, 4)
    gm = ember.jit.trace(net, (x, y), optimize=optimize)
    path = tmp_path / "net.ember"
    if to_file_object:
        buf = io.BytesIO()
        ember.jit.save(gm, buf)
        buf.seek(0)
        loaded = ember.jit.load(buf)
    else:
        ember.jit.save(gm, path)
        loaded = ember.jit.load(str(path))
    assert str(loaded.graph) == str(gm.graph)
    assert list(loaded.state_dict()) == list(net.state_dict())
    for k, v in net.state_dict().items():
        assert ember.equal(loaded.state_dict()[k], v), k
    assert {n for n, _ in loaded.named_parameters()} == {n for n, _ in net.named_parameters()}
    x2, y2 = ember.randn(5, 6), ember.randn(5, 4)
    want = net(x2, y2)
    got = loaded(x2, y2)
    assert isinstance(got, tuple) and len(got) == 2
    for a, b in zip(got, want):
        assert ember.allclose(a, b, rtol=1e-6, atol=1e-6)
    # The loaded module trains like the traced one: gradients reach its own parameters.
    got[1].backward()
    want[1].backward()
    for (n, p), (_, q) in zip(loaded.named_parameters(), net.named_parameters()):
        assert ember.allclose(p.grad, q.grad, rtol=1e-5, atol=1e-6), n
    # load_state_dict acts on what the graph reads.
    sd = {k: ember.zeros_like(v) if k.endswith("bias") else v for k, v in net.state_dict().items()}
    loaded.load_state_dict(sd)
    net.load_state_dict(sd)
    assert ember.allclose(loaded(x2, y2)[0], net(x2, y2)[0], rtol=1e-6, atol=1e-6)


def test_save_load_a_function_with_one_output(tmp_path):
    gm = ember.jit.trace(lambda a, b: (a * b).relu() + 1, (ember.randn(3), ember.randn(3)))
    ember.jit.save(gm, tmp_path / "f.ember")
    loaded = ember.jit.load(tmp_path / "f.ember")
    a, b = ember.randn(3), ember.randn(3)
    out = loaded(a, b)
    assert isinstance(out, ember.Tensor)
    assert ember.equal(out, gm(a, b))


def test_a_fused_chain_in_a_transposed_memory_order_saves_and_loads(tmp_path):
    x, y = ember.randn(40, 30).t(), ember.randn(40, 30).t()
    g = ember.jit.trace(lambda x, y: ember.exp(x) * y + x, (x, y))
    assert "dims in memory order: [1, 0]" in str(g.graph), str(g.graph)
    ember.jit.save(g, tmp_path / "t.ember")
    h = ember.jit.load(tmp_path / "t.ember")
    x2 = ember.randn(40, 30).t()
    got, want = h(x2, y), ember.exp(x2) * y + x2
    assert ember.equal(got, want) and got.stride() == want.stride() == (1, 30)


def test_load_rejects_bad_files(tmp_path):
    gm = ember.jit.trace(lambda a: a.exp().tanh(), (ember.randn(3),), optimize=False)
    path = tmp_path / "f.ember"
    ember.jit.save(gm, path)
    data = path.read_bytes()
    bad = tmp_path / "bad.ember"
    for n in (0, 10, len(data) // 2, len(data) - 1):
        bad.write_bytes(data[:n])
        with pytest.raises(RuntimeError):
            ember.jit.load(bad)
    flipped = bytearray(data)
    flipped[len(data) // 3] ^= 0x40
    bad.write_bytes(bytes(flipped))
    with pytest.raises(RuntimeError):
        ember.jit.load(bad)
    ember.save({"w": ember.ones(2)}, bad)
    with pytest.raises(RuntimeError, match="not a graph file"):
        ember.jit.load(bad)
    with pytest.raises(TypeError, match="expected a GraphModule"):
        ember.jit.save(ember.nn.Linear(2, 2), path)
    with pytest.raises(ValueError, match="map_location"):
        ember.jit.load(path, map_location="cuda")


# ---- ember.compile ---------------------------------------------------------------------------

def test_compile_traces_once_per_signature_and_guards():
    ember.compiler.reset()
    net = mlp()
    c = ember.compile(net)
    x = ember.randn(5, 8)
    for _ in range(3):
        y = c(x)
    assert ember.allclose(y, net(x))
    assert ember.compiler.counters["graphs"] == 1 and ember.compiler.counters["cache_hits"] == 2
    c(ember.randn(7, 8))                       # a new shape: a new graph
    assert ember.compiler.counters["recompiles"] == 1
    with ember.no_grad():                      # the grad mode is part of the guard
        c(x)
    assert ember.compiler.counters["graphs"] == 3
    assert list(c.state_dict())[0] == "_orig_mod.0.weight"


def test_compile_breaks_the_graph_at_a_data_read_unless_fullgraph():
    ember.compiler.reset()

    def f(x):
        if x.sum() > 0:
            return x * 2
        return x - 1
    cf = ember.compile(f)
    assert cf(ember.ones(3)).tolist() == [2, 2, 2]
    assert cf(-3 * ember.ones(3)).tolist() == [-4, -4, -4]
    assert ember.compiler.counters["graph_breaks"] == 1
    (reason,) = ember.compiler.counters["break_reasons"]
    assert "bool()" in reason
    with pytest.raises(RuntimeError, match="bool\\(\\) reads the value"):
        ember.compile(f, fullgraph=True)(ember.ones(3))


class _Branchy(ember.nn.Module):
    """A forward with a data-dependent branch between submodules, dropout before it and
    BatchNorm's running statistics updated in place."""

    def __init__(self):
        super().__init__()
        self.a = ember.nn.Sequential(ember.nn.Linear(6, 8), ember.nn.ReLU())
        self.norm = ember.nn.BatchNorm1d(8)
        self.layers = ember.nn.ModuleList([ember.nn.Linear(8, 8), ember.nn.Linear(8, 8)])
        self.b = ember.nn.Linear(8, 3)

    def forward(self, x):
        x = ember.nn.functional.dropout(x, 0.3, self.training)
        h = self.norm(self.a(x))
        if h.mean() > 0:
            h = h * 2
        for layer in self.layers:
            h = ember.tanh(layer(h))
        return self.b(h)


def test_compile_breaks_a_module_between_its_submodules_which_stay_compiled():
    import copy
    ember.compiler.reset()
    ember.manual_seed(0)
    net = _Branchy()
    ref = copy.deepcopy(net)
    cnet = ember.compile(net)
    for step in range(3):
        x = ember.randn(5, 6) + (step - 1)
        ember.manual_seed(step)
        got = cnet(x)
        ember.manual_seed(step)
        want = ref(x)
        np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-6, atol=1e-6)
        got.sum().backward()
        want.sum().backward()
    # Each part ran once a step: running statistics and gradients as eager's.
    np.testing.assert_allclose(net.norm.running_mean.numpy(), ref.norm.running_mean.numpy(), rtol=1e-6)
    assert int(net.norm.num_batches_tracked) == 3
    for (name, p), q in zip(net.named_parameters(), ref.parameters()):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-5, atol=1e-6, err_msg=name)
    c = ember.compiler.counters
    assert c["graph_breaks"] == 1 and "bool()" in next(iter(c["break_reasons"]))
    # a, norm, layers.0, layers.1 and b: one graph each, reused on the later steps.
    assert c["graphs"] == 5 and c["cache_hits"] >= 2 * 6
    assert "forward" not in net.a.__dict__  # the routing is removed after each call
    with pytest.raises(RuntimeError, match="bool\\(\\) reads the value"):
        ember.compile(_Branchy(), fullgraph=True)(ember.randn(5, 6))


def test_a_break_restores_what_the_partial_trace_changed():
    ember.compiler.reset()

    def f(x):
        x.add_(1)
        if x.sum() > 0:
            return x * 2
        return x - 1
    cf = ember.compile(f)
    x = ember.zeros(3)
    assert cf(x).tolist() == [2, 2, 2] and x.tolist() == [1, 1, 1]
    assert cf(x).tolist() == [4, 4, 4] and x.tolist() == [2, 2, 2]
    assert ember.compiler.counters["graph_breaks"] == 1


def test_compile_cache_is_bounded_and_warns_on_recompiles(monkeypatch):
    ember.compiler.reset()
    monkeypatch.setattr(ember.compiler, "cache_size_limit", 2)
    cf = ember.compile(lambda x: x.exp() + 1)
    with pytest.warns(UserWarning, match="traced 3 times"):
        for n in (1, 2, 3):
            cf(ember.ones(n))
    assert len(cf._compiled.cache) == 2 and ember.compiler.counters["evictions"] == 1
    assert cf(ember.ones(3)).tolist() == [np.float32(np.e + 1)] * 3


def test_compile_as_a_decorator_with_non_tensor_arguments():
    ember.compiler.reset()

    @ember.compile(fullgraph=True)
    def f(x, scale, *, shift=0.0):
        return x * scale + shift
    x = ember.ones(2)
    assert f(x, 2.0).tolist() == [2, 2]
    assert f(x, 3.0, shift=1.0).tolist() == [4, 4]    # another value: another graph
    assert ember.compiler.counters["graphs"] == 2
    with pytest.raises(TypeError, match="expected a function"):
        ember.compile(3)


def test_a_graph_modules_results_are_freed_when_dropped():
    # (a recursive closure in the unflattening once kept each result alive until gc ran)
    import gc
    import weakref
    g = ember.jit.trace(lambda x: (x.exp(), [x.sin()]), (ember.ones(3),))
    gc.disable()
    try:
        out = g(ember.ones(3))
        refs = [weakref.ref(out[0]), weakref.ref(out[1][0])]
        del out
        assert all(r() is None for r in refs)
    finally:
        gc.enable()
