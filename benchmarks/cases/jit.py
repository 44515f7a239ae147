"""Traced graphs (ember.jit): the fused elementwise chain, a traced MLP, against eager torch.

jit_fused_chain_16M traces exp(-x) * tanh(y) + gelu(x) - 0.5 * y once (the passes fuse it
into one node) and times the graph's run; torch runs the expression eagerly. Its STREAM
reference is the triad time for the bytes the chain must move (two inputs read once, one
output written). jit_eager_chain_16M is the same expression run eagerly by Ember: the
unfused time, for comparison (MLX-style compilation that does not fuse beats neither).
"""

from runner.registry import python_case

N = 1 << 24


def _chain(mod, x, y):
    return mod.exp(-x) * mod.tanh(y) + mod.nn.functional.gelu(x) - 0.5 * y


def _inputs(mod, quick):
    n = N >> 4 if quick else N
    g = mod.Generator().manual_seed(0)
    return mod.randn(n, generator=g), mod.randn(n, generator=g)


def _fused(lib, mod, quick):
    x, y = _inputs(mod, quick)
    if lib == "ember":
        g = mod.jit.trace(lambda a, b: _chain(mod, a, b), (x, y))
        return lambda: g(x, y)
    return lambda: _chain(mod, x, y)


def _eager(lib, mod, quick):
    x, y = _inputs(mod, quick)
    return lambda: _chain(mod, x, y)


def _bytes(quick):
    return 3 * 4 * (N >> 4 if quick else N)


python_case("jit_fused_chain_16M", goals={"torch": 0.33, "stream": 1.5}, bytes_moved=_bytes,
            stream="triad", size="16M float32", quick_size="1M float32",
            note="exp(-x)*tanh(y)+gelu(x)-0.5*y traced and fused (one pass) vs eager torch")(_fused)
python_case("jit_eager_chain_16M", goals={"torch": None}, size="16M float32",
            quick_size="1M float32",
            note="the same chain run eagerly by Ember (unfused: 8 ops, 7 temporaries)")(_eager)


def _mlp(lib, mod, quick):
    mod.manual_seed(0)
    nn = mod.nn
    net = nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(),
                        nn.Linear(512, 10)).eval()
    x = mod.randn(64, 784)
    for p in net.parameters():
        p.requires_grad_(False)
    if lib == "ember":
        g = mod.jit.trace(net, (x,))
        return lambda: g(x)
    return lambda: net(x)


python_case("jit_traced_mlp_b64", goals={"torch": 0.7}, size="784-512-512-10, batch 64",
            note="a traced MLP's inference (parameters without grad) vs eager torch")(_mlp)


# Trace overhead: a 100-op function (25 x [matmul, tanh, mul, add] on 32x32) traced and
# optimised, against the same function's eager run (jit_eager_100ops; the goal is trace <= 3x
# eager, read from the two cases). torch's reference for the trace is torch.jit.trace.
def _hundred(mod, x, w):
    for _ in range(25):
        x = mod.tanh(x @ w) * 0.5 + x
    return x


def _hundred_inputs(mod):
    g = mod.Generator().manual_seed(0)
    return mod.randn(32, 32, generator=g), mod.randn(32, 32, generator=g) * 0.1


def _trace_100(lib, mod, quick):
    x, w = _hundred_inputs(mod)
    if lib == "ember":
        return lambda: mod.jit.trace(lambda a, b: _hundred(mod, a, b), (x, w))
    import warnings
    warnings.filterwarnings("ignore")
    return lambda: mod.jit.trace(lambda a, b: _hundred(mod, a, b), (x, w), check_trace=False)


def _eager_100(lib, mod, quick):
    x, w = _hundred_inputs(mod)
    return lambda: _hundred(mod, x, w)


python_case("jit_trace_100ops", goals={"torch": None}, size="100 ops on 32x32",
            note="ember.jit.trace (capture + passes) of a 100-op function vs torch.jit.trace; "
                 "goal: <= 3x jit_eager_100ops's Ember time")(_trace_100)
python_case("jit_eager_100ops", goals={"torch": None}, size="100 ops on 32x32",
            note="the 100-op function run eagerly")(_eager_100)
