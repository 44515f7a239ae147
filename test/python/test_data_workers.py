"""DataLoader worker processes, DistributedSampler and WeightedRandomSampler against torch."""
import gc
import os
import random
import time
import warnings

import numpy as np
import pytest
import torch

import ember
from ember.utils.data import (
    DataLoader, Dataset, DistributedSampler, IterableDataset, TensorDataset,
    WeightedRandomSampler, get_worker_info,
)
from ember.utils.data._worker import _generate_state

# Not against a sanitizer build (the interpreter preloads libasan: scripts/run_tests): a
# forked DataLoader worker of the threaded suite process deadlocked there in CI, twice
# (2026-12-07; the watchdog's stacks show the parent polling a live, silent worker), the
# known hazard of fork after threads under the sanitizer's allocator. The plain build runs
# every test here; the C++ DataLoader tests run under the sanitizers.
pytestmark = pytest.mark.skipif("libasan" in os.environ.get("LD_PRELOAD", ""),
                                reason="fork-based workers under ASan (see the comment above)")


def _ember_ds(n=10):
    return TensorDataset(ember.arange(n * 2, dtype=ember.float32).reshape(n, 2),
                         ember.arange(n))


def _torch_ds(n=10):
    return torch.utils.data.TensorDataset(
        torch.arange(n * 2, dtype=torch.float32).reshape(n, 2), torch.arange(n))


def _to_py(batch):
    """A batch as nested Python values, for comparing ember's batches with torch's."""
    if isinstance(batch, (ember.Tensor, torch.Tensor)):
        return (str(batch.dtype).split(".")[-1], tuple(batch.shape), batch.tolist())
    if isinstance(batch, dict):
        return {k: _to_py(v) for k, v in batch.items()}
    if isinstance(batch, (list, tuple)):
        return [_to_py(b) for b in batch]
    return batch


def _workers_gone(workers, within=5.0):
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if not any(w.is_alive() for w in workers):
            return True
        time.sleep(0.05)
    return False


class _Mixed:
    """Samples that are dicts of tensors, numpy arrays, numbers and tuples (in either library)."""

    def __init__(self, lib, n=7):
        self.lib, self.n = lib, n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return {"x": self.lib.full((2,), float(i)), "np": np.arange(3, dtype=np.int32) + i,
                "pair": (i, float(i) / 2), "name": f"s{i}"}


@pytest.mark.parametrize("num_workers", [0, 2])
@pytest.mark.parametrize("batch_size,drop_last", [(3, False), (3, True), (None, False)])
def test_same_batches_as_torch(num_workers, batch_size, drop_last):
    order = [7, 2, 9, 0, 4, 4, 1, 8, 3]
    kw = dict(batch_size=batch_size, drop_last=drop_last, sampler=order,
              num_workers=num_workers)
    got = [_to_py(b) for b in DataLoader(_ember_ds(), **kw)]
    want = [_to_py(b) for b in torch.utils.data.DataLoader(_torch_ds(), **kw)]
    assert got == want
    assert len(DataLoader(_ember_ds(), **kw)) == len(want)


@pytest.mark.parametrize("num_workers", [0, 2])
def test_collate_dicts_tuples_numpy_as_torch(num_workers):
    got = [_to_py(b) for b in DataLoader(_Mixed(ember), batch_size=3,
                                         num_workers=num_workers)]
    want = [_to_py(b) for b in torch.utils.data.DataLoader(_Mixed(torch), batch_size=3,
                                                           num_workers=num_workers)]
    assert got == want


def test_empty_dataset_and_zero_d_samples():
    assert list(DataLoader(_ember_ds(0), batch_size=2, num_workers=2)) == []
    zero_d = [ember.tensor(float(i)) for i in range(5)]
    got = [_to_py(b) for b in DataLoader(zero_d, batch_size=2, num_workers=2)]
    want = [_to_py(b) for b in torch.utils.data.DataLoader(
        [torch.tensor(float(i)) for i in range(5)], batch_size=2, num_workers=2)]
    assert got == want


def test_shuffle_with_workers_matches_in_process():
    # The base seed is drawn every epoch whatever num_workers is, so the streams stay in step.
    def order(num_workers, seed):
        ember.manual_seed(seed)
        loader = DataLoader(_ember_ds(12), batch_size=5, shuffle=True, num_workers=num_workers)
        return [b[1].tolist() for b in loader]

    assert order(2, 3) == order(0, 3)
    assert sorted(sum(order(2, 3), [])) == list(range(12))
    g = ember.Generator().manual_seed(11)
    with_gen = DataLoader(_ember_ds(12), batch_size=5, shuffle=True, generator=g, num_workers=2)
    first = [b[1].tolist() for b in with_gen]
    g.manual_seed(11)
    assert [b[1].tolist() for b in with_gen] == first


def test_tensors_cross_processes_with_dtype_and_layout():
    data = ember.arange(24, dtype=ember.float64).reshape(4, 6).t()  # non-contiguous samples
    loader = DataLoader(data, batch_size=4, num_workers=2)
    batches = list(loader)
    assert [b.dtype for b in batches] == [ember.float64, ember.float64]
    assert ember.cat(batches).tolist() == data.tolist()
    bools = DataLoader([ember.tensor([True, False])] * 3, batch_size=2, num_workers=1)
    assert [b.tolist() for b in bools] == [[[True, False]] * 2, [[True, False]]]


class _WhoLoads(Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, i):
        info = get_worker_info()
        return {"i": i, "pid": os.getpid(), "id": info.id, "n": info.num_workers,
                "seed": info.seed, "same": isinstance(info.dataset, _WhoLoads),
                "py": random.random(), "ember": ember.rand(()).item(),
                "np": np.random.rand(), "init": _INIT_MARK}


_INIT_MARK = -1


def _init_fn(worker_id):
    global _INIT_MARK
    _INIT_MARK = worker_id * 10 + 1


def test_get_worker_info_and_seeding():
    assert get_worker_info() is None
    g = ember.Generator().manual_seed(5)
    samples = list(DataLoader(_WhoLoads(), batch_size=None, num_workers=2, generator=g))
    base = int(ember.empty((), dtype=ember.int64).random_(
        generator=ember.Generator().manual_seed(5)).item())
    assert get_worker_info() is None
    firsts = {}
    for s in samples:
        assert s["n"] == 2 and s["same"] and s["seed"] == base + s["id"]
        firsts.setdefault(s["id"], s)
    assert [s["id"] for s in samples] == [0, 1] * 4  # round robin, in order
    for worker_id, s in firsts.items():
        seed = base + worker_id
        assert s["py"] == random.Random(seed).random()
        assert s["ember"] == ember.rand((), generator=ember.Generator().manual_seed(seed)).item()
        assert s["np"] == np.random.RandomState(_generate_state(base, worker_id)).rand()
    assert len({s["pid"] for s in samples}) == 2 and os.getpid() not in {s["pid"] for s in samples}


def test_numpy_seed_state_as_torch():
    from torch.utils.data._utils.worker import _generate_state as torch_state
    for base, wid in [(0, 0), (12345, 1), (2 ** 63 - 1, 7), (987654321987, 3)]:
        assert _generate_state(base, wid) == torch_state(base, wid)


def test_worker_init_fn():
    samples = list(DataLoader(_WhoLoads(), batch_size=None, num_workers=2,
                              worker_init_fn=_init_fn))
    assert {(s["id"], s["init"]) for s in samples} == {(0, 1), (1, 11)}


def _failing_init(worker_id):
    raise ValueError(f"init failed in {worker_id}")


def test_worker_init_fn_error_is_reraised():
    with pytest.raises(ValueError, match="init failed in"):
        list(DataLoader(_ember_ds(), num_workers=2, worker_init_fn=_failing_init))


def test_persistent_workers_two_epochs():
    loader = DataLoader(_WhoLoads(), batch_size=3, num_workers=2, persistent_workers=True)
    epochs = [list(loader), list(loader)]
    for batches in epochs:
        assert sum((b["i"].tolist() for b in batches), []) == list(range(8))
    pids = [{p for b in batches for p in b["pid"].tolist()} for batches in epochs]
    assert pids[0] == pids[1] and len(pids[0]) == 2
    it = iter(loader)
    assert it is loader._iterator
    next(it)  # an epoch abandoned mid-way, then a full one
    assert sum((b["i"].tolist() for b in loader), []) == list(range(8))
    workers = it._workers
    it._shutdown_workers()
    assert _workers_gone(workers)


class _Range(IterableDataset):
    def __init__(self, lib, start, end):
        self.lib, self.start, self.end = lib, start, end

    def __iter__(self):
        info = (torch.utils.data.get_worker_info() if self.lib is torch else get_worker_info())
        lo, hi = self.start, self.end
        if info is not None:
            per = -(-(hi - lo) // info.num_workers)
            lo = lo + info.id * per
            hi = min(lo + per, self.end)
        return iter(self.lib.tensor(float(i)) for i in range(lo, hi))


class _TorchRange(torch.utils.data.IterableDataset):
    __init__ = _Range.__init__
    __iter__ = _Range.__iter__


@pytest.mark.parametrize("batch_size,drop_last", [(2, False), (2, True), (None, False)])
def test_iterable_dataset_sharding_as_torch(batch_size, drop_last):
    kw = dict(batch_size=batch_size, drop_last=drop_last, num_workers=2)
    got = [_to_py(b) for b in DataLoader(_Range(ember, 3, 12), **kw)]
    want = [_to_py(b) for b in torch.utils.data.DataLoader(_TorchRange(torch, 3, 12), **kw)]
    assert got == want
    replicas = [_to_py(b) for b in DataLoader(_Range(ember, 0, 0), **kw)]
    assert replicas == []


def test_iterable_dataset_persistent_workers():
    loader = DataLoader(_Range(ember, 0, 7), batch_size=2, num_workers=2,
                        persistent_workers=True)
    first = [b.tolist() for b in loader]
    assert [b.tolist() for b in loader] == first
    assert sorted(sum(first, [])) == [float(i) for i in range(7)]
    loader._iterator._shutdown_workers()


class _Failing(Dataset):
    def __init__(self, exc):
        self.exc = exc

    def __len__(self):
        return 6

    def __getitem__(self, i):
        if i == 4:
            raise self.exc(f"sample {i} is broken")
        return i


@pytest.mark.parametrize("exc", [ValueError, KeyError, IndexError])
def test_worker_exception_is_reraised_with_traceback(exc):
    it = iter(DataLoader(_Failing(exc), batch_size=2, num_workers=2))
    assert next(it).tolist() == [0, 1] and next(it).tolist() == [2, 3]
    with pytest.raises(exc) as info:
        next(it)
    text = str(info.value)
    assert f"Caught {exc.__name__} in DataLoader worker process 0" in text
    assert "Original Traceback (most recent call last)" in text
    assert "sample 4 is broken" in text and "__getitem__" in text
    workers = it._workers
    del it, info  # the traceback refers to the iterator too
    gc.collect()
    assert _workers_gone(workers)


class _Slow(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        time.sleep(1)
        return i


def test_timeout_raises_and_names_it():
    it = iter(DataLoader(_Slow(), num_workers=1, timeout=0.2))
    with pytest.raises(RuntimeError, match=r"DataLoader timed out after 0.2 seconds"):
        next(it)
    workers = it._workers
    it._shutdown_workers()
    assert _workers_gone(workers)


def test_deleting_iterator_mid_epoch_ends_workers():
    it = iter(DataLoader(_ember_ds(40), batch_size=2, num_workers=2, prefetch_factor=4))
    next(it)
    workers = it._workers
    assert all(w.is_alive() for w in workers)
    del it
    gc.collect()
    assert _workers_gone(workers)


class _Crash(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        os._exit(3)


def test_worker_that_dies_is_reported():
    with pytest.raises(RuntimeError, match=r"DataLoader worker \(pid\(s\) .*\) exited"):
        list(DataLoader(_Crash(), num_workers=1))


def test_out_of_order_delivery_keeps_every_batch():
    got = [b.tolist() for b in DataLoader(_ember_ds(11), batch_size=2, num_workers=3,
                                          in_order=False, collate_fn=lambda s: s[0][1])]
    assert sorted(got) == list(range(0, 11, 2))


@pytest.mark.parametrize("method", ["spawn", "forkserver"])
def test_multiprocessing_context(method):
    import multiprocessing
    if method not in multiprocessing.get_all_start_methods():
        pytest.skip(f"{method} is not available here")
    loader = DataLoader(_ember_ds(6), batch_size=4, num_workers=1,
                        multiprocessing_context=method)
    assert [b[1].tolist() for b in loader] == [[0, 1, 2, 3], [4, 5]]
    ctx = DataLoader(_ember_ds(6), batch_size=4, num_workers=1,
                     multiprocessing_context=multiprocessing.get_context("fork"))
    assert [b[1].tolist() for b in ctx] == [[0, 1, 2, 3], [4, 5]]


def test_pin_memory_without_accelerator_warns_as_torch():
    assert not ember.accelerator.is_available()
    with pytest.warns(UserWarning, match="no accelerator is found") as got:
        batches = list(DataLoader(_ember_ds(4), batch_size=2, pin_memory=True, num_workers=1))
    with warnings.catch_warnings(record=True) as want:
        warnings.simplefilter("always")
        list(torch.utils.data.DataLoader(_torch_ds(4), batch_size=2, pin_memory=True))
    assert str(got[0].message) in {str(w.message) for w in want}
    assert [b[1].tolist() for b in batches] == [[0, 1], [2, 3]]


def test_bad_worker_arguments():
    ds = _ember_ds()
    with pytest.raises(ValueError, match="valid start method"):
        DataLoader(ds, num_workers=1, multiprocessing_context="bogus")
    with pytest.raises(TypeError, match="multiprocessing_context option should be"):
        DataLoader(ds, num_workers=1, multiprocessing_context=3)
    with pytest.raises(ValueError, match="num_workers > 0"):
        DataLoader(ds, multiprocessing_context="fork")
    with pytest.raises(ValueError, match="prefetch_factor option could only be specified"):
        DataLoader(ds, prefetch_factor=2)
    with pytest.raises(ValueError, match="prefetch_factor should be a non-negative integer"):
        DataLoader(ds, num_workers=1, prefetch_factor=-1)
    with pytest.raises(ValueError, match="persistent_workers option needs num_workers > 0"):
        DataLoader(ds, persistent_workers=True)
    with pytest.raises(ValueError, match="num_workers option should be non-negative"):
        DataLoader(ds, num_workers=-1)
    assert DataLoader(ds, num_workers=2).prefetch_factor == 2


@pytest.mark.parametrize("n,replicas,drop_last", [(10, 3, False), (10, 3, True), (9, 3, True),
                                                  (2, 4, False), (0, 2, True), (7, 1, False)])
def test_distributed_sampler_as_torch(n, replicas, drop_last):
    for rank in range(replicas):
        kw = dict(num_replicas=replicas, rank=rank, shuffle=False, drop_last=drop_last)
        e = DistributedSampler(list(range(n)), **kw)
        t = torch.utils.data.DistributedSampler(list(range(n)), **kw)
        assert list(e) == list(t) and len(e) == len(t)
        assert (e.num_samples, e.total_size) == (t.num_samples, t.total_size)


def test_distributed_sampler_shuffle_and_epochs():
    n, replicas = 11, 3

    def ranks(epoch, seed=0):
        out = []
        for rank in range(replicas):
            s = DistributedSampler(range(n), num_replicas=replicas, rank=rank, seed=seed)
            s.set_epoch(epoch)
            out.append(list(s))
        return out

    perm = ember.randperm(n, generator=ember.Generator().manual_seed(0 + 1)).tolist()
    padded = perm + perm[:1]
    assert ranks(1) == [padded[r::replicas] for r in range(replicas)]
    assert ranks(1) == ranks(1) and ranks(1) != ranks(2) and ranks(1, seed=5) != ranks(1)
    assert len(sum(ranks(3), [])) == 12 and set(sum(ranks(3), [])) == set(range(n))
    loader = DataLoader(range(n), sampler=DistributedSampler(range(n), 2, 1, shuffle=False),
                        batch_size=3, num_workers=2)
    assert [b.tolist() for b in loader] == [[1, 3, 5], [7, 9, 0]]


def test_distributed_sampler_errors_as_torch():
    for rank in (-1, 3):
        with pytest.raises(ValueError, match=r"Invalid rank .*interval \[0, 2\]"):
            DistributedSampler(range(4), num_replicas=3, rank=rank)
        with pytest.raises(ValueError, match=r"Invalid rank .*interval \[0, 2\]"):
            torch.utils.data.DistributedSampler(range(4), num_replicas=3, rank=rank)
    with pytest.raises(RuntimeError, match="Requires distributed package"):
        DistributedSampler(range(4))


def test_weighted_random_sampler():
    g = ember.Generator().manual_seed(0)
    weights = [0.0, 1.0, 3.0, 0.0, 6.0]
    draws = list(WeightedRandomSampler(weights, 20000, generator=g))
    assert len(draws) == 20000 and set(draws) <= {1, 2, 4}
    freq = np.bincount(draws, minlength=5) / 20000
    assert np.allclose(freq, np.array(weights) / 10, atol=0.02)
    once = list(WeightedRandomSampler(ember.tensor([1.0, 2.0, 3.0, 4.0]), 4, replacement=False))
    assert sorted(once) == [0, 1, 2, 3]
    assert len(WeightedRandomSampler(weights, 7)) == 7
    g.manual_seed(4)
    first = list(WeightedRandomSampler(weights, 9, generator=g))
    g.manual_seed(4)
    assert list(WeightedRandomSampler(weights, 9, generator=g)) == first
    loader = DataLoader(range(5), sampler=WeightedRandomSampler([0, 0, 1, 0, 0], 4),
                        batch_size=2, num_workers=2)
    assert [b.tolist() for b in loader] == [[2, 2], [2, 2]]


@pytest.mark.parametrize("args,match", [
    (([1.0, 2.0], 0), "num_samples should be a positive integer value"),
    (([1.0, 2.0], True), "num_samples should be a positive integer value"),
    (([1.0, 2.0], 2, 1), "replacement should be a boolean value"),
    (([[1.0, 2.0]], 2), "weights should be a 1d sequence"),
])
def test_weighted_random_sampler_errors_as_torch(args, match):
    with pytest.raises(ValueError, match=match):
        WeightedRandomSampler(*args)
    with pytest.raises(ValueError, match=match):
        torch.utils.data.WeightedRandomSampler(*args)


def test_stack_dataset_as_torch():
    from ember.utils.data import StackDataset
    e_ds, t_ds = _ember_ds(5), _torch_ds(5)
    e_sq, t_sq = list(range(5)), list(range(5))
    for e, t in [(StackDataset(e_ds, e_sq), torch.utils.data.StackDataset(t_ds, t_sq)),
                 (StackDataset(a=e_ds, b=e_sq), torch.utils.data.StackDataset(a=t_ds, b=t_sq))]:
        assert len(e) == len(t) == 5
        assert _to_py(e[3]) == _to_py(t[3])
        assert _to_py(e.__getitems__([4, 0])) == _to_py(t.__getitems__([4, 0]))
        got = [_to_py(b) for b in DataLoader(e, batch_size=2, num_workers=2)]
        assert got == [_to_py(b) for b in torch.utils.data.DataLoader(t, batch_size=2)]
    with pytest.raises(ValueError, match="Size mismatch between datasets"):
        StackDataset(e_ds, list(range(4)))
    with pytest.raises(ValueError, match="both types are given"):
        StackDataset(e_ds, b=e_sq)
    with pytest.raises(ValueError, match="At least one dataset should be passed"):
        torch.utils.data.StackDataset()
    with pytest.raises(ValueError, match="at least one dataset should be passed"):
        StackDataset()


def test_chain_dataset_as_torch():
    from ember.utils.data import ChainDataset
    e = ChainDataset([_Range(ember, 0, 3), _Range(ember, 10, 12)])
    t = torch.utils.data.ChainDataset([_TorchRange(torch, 0, 3), _TorchRange(torch, 10, 12)])
    assert [_to_py(x) for x in e] == [_to_py(x) for x in t]
    assert [_to_py(b) for b in DataLoader(e, batch_size=2)] == \
        [_to_py(b) for b in torch.utils.data.DataLoader(t, batch_size=2)]
    with pytest.raises(AssertionError, match="ChainDataset only supports IterableDataset"):
        list(ChainDataset([_ember_ds(2)]))
    with pytest.raises(AssertionError, match="ChainDataset only supports IterableDataset"):
        len(ChainDataset([_ember_ds(2)]))
    assert ember.utils.data.distributed.DistributedSampler is DistributedSampler
