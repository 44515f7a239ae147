"""Scans (cumsum, cumprod) along a long vector and either dim of a matrix, against torch.

Each case times one call on an input made once; goals are Ember's time over torch's.
"""

from runner.registry import python_case


def _scan(op, shape, dim):
    def setup(lib, mod, quick):
        # cumprod's inputs stay near 1 so the running products stay finite.
        x = mod.rand(*shape, dtype=mod.float32) * 0.01 + 0.995
        fn = getattr(mod, op)
        return lambda: fn(x, dim)
    return setup


for _op in ("cumsum", "cumprod"):
    python_case(f"{_op}_1M", goals={"torch": 1.0}, threads=(1,), size="1M float32",
                note=f"{_op} of a 1-d tensor (one running chain)")(_scan(_op, (1 << 20,), 0))
    for _dim in (0, 1):
        python_case(f"{_op}_1000x1000_dim{_dim}", goals={"torch": 1.0}, threads=(1,),
                    size="1000x1000 float32",
                    note=f"{_op} along dim {_dim} of a contiguous matrix")(_scan(_op, (1000, 1000), _dim))
del _op, _dim
