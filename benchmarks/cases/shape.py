"""Views, shape ops and indexing (the views-and-indexing issue), against torch.

Each case times one call on inputs made once; goals are Ember's time over torch's.
"""

from runner.registry import python_case


def _transpose_copy(lib, mod, quick):
    n = 1024 if quick else 4096
    x = mod.rand(n, n, dtype=mod.float32)
    return lambda: x.t().contiguous()


python_case("transpose_copy_4096", goals={"torch": 0.3}, size="4096x4096 float32",
            quick_size="1024x1024 float32",
            note="x.t().contiguous(): a transposing copy (tiled)")(_transpose_copy)


def _cat(lib, mod, quick):
    n = (256 << 10) if quick else (2 << 20)
    xs = [mod.rand(n, dtype=mod.float32) for _ in range(8)]
    return lambda: mod.cat(xs)


python_case("cat_8x2M", goals={"torch": 1.0}, size="8 x 2M float32", quick_size="8 x 256K float32",
            note="cat of 8 contiguous 1-d tensors")(_cat)


def _index_select(lib, mod, quick):
    rows = (512 << 10) if quick else (4 << 20)
    picks = rows // 4
    x = mod.rand(rows, 16, dtype=mod.float32)
    idx = mod.randint(0, rows, (picks,))
    return lambda: x.index_select(0, idx)


python_case("index_select_1M_of_4Mx16", goals={"torch": 1.0}, size="1M rows of 4M x 16 float32",
            quick_size="128K rows of 512K x 16 float32",
            note="index_select along dim 0 with random int64 indices")(_index_select)


def _gather(lib, mod, quick):
    n = 1024 if quick else 4096
    x = mod.rand(n, n, dtype=mod.float32)
    idx = mod.randint(0, n, (n, n))
    return lambda: x.gather(1, idx)


python_case("gather_dim1_4096", goals={"torch": 1.0}, size="4096x4096 float32",
            quick_size="1024x1024 float32", note="gather along dim 1, random indices")(_gather)


def _masked_select(lib, mod, quick):
    n = (2 << 20) if quick else (16 << 20)
    x = mod.rand(n, dtype=mod.float32)
    mask = x > 0.5
    return lambda: x.masked_select(mask)


python_case("masked_select_16M", goals={"torch": 1.0}, size="16M float32, half selected",
            quick_size="2M float32", note="boolean-mask select (x[mask])")(_masked_select)


def _sort(lib, mod, quick):
    n = (512 << 10) if quick else (4 << 20)
    x = mod.rand(n, dtype=mod.float32)
    return lambda: mod.sort(x)


python_case("sort_4M", goals={"torch": 1.0}, size="4M float32", quick_size="512K float32",
            note="sort of one random 1-d tensor (values and indices)")(_sort)


def _topk(lib, mod, quick):
    n = 1024 if quick else 4096
    x = mod.rand(n, n, dtype=mod.float32)
    return lambda: mod.topk(x, 10, dim=1)


python_case("topk10_rows_4096", goals={"torch": 1.0}, size="4096x4096 float32, k=10",
            quick_size="1024x1024 float32", note="topk(k=10) of every row")(_topk)
