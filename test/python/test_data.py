"""ember.utils.data (datasets, samplers, DataLoader) and ember.nn.utils against torch."""
import collections
import math

import numpy as np
import pytest
import torch

import ember
import ember.nn.utils
from ember.utils.data import (
    BatchSampler, DataLoader, Dataset, IterableDataset, RandomSampler, SequentialSampler,
    Subset, TensorDataset, default_collate, random_split,
)


def _dataset(n=10):
    return TensorDataset(ember.arange(n * 2, dtype=ember.float32).reshape(n, 2),
                         ember.arange(n))


def test_ember_exposes_optim_and_utils():
    assert ember.utils.data.DataLoader is DataLoader
    assert callable(ember.optim.SGD)


def test_tensor_dataset():
    ds = _dataset()
    assert len(ds) == 10
    x, y = ds[3]
    assert x.tolist() == [6.0, 7.0] and y.item() == 3
    with pytest.raises(ValueError, match="Size mismatch"):
        TensorDataset(ember.zeros(3, 2), ember.zeros(4))


def test_dataloader_batches_and_len():
    ds = _dataset()
    loader = DataLoader(ds, batch_size=4)
    batches = list(loader)
    assert len(loader) == 3 and len(batches) == 3
    assert [b[1].tolist() for b in batches] == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    assert batches[0][0].shape == (4, 2) and batches[2][0].shape == (2, 2)
    assert isinstance(batches[0], list)
    dropped = DataLoader(ds, batch_size=4, drop_last=True)
    assert len(dropped) == 2
    assert [b[1].tolist() for b in dropped] == [[0, 1, 2, 3], [4, 5, 6, 7]]


def test_dataloader_len_matches_torch():
    for n, bs, drop in [(10, 3, False), (10, 3, True), (9, 3, True), (1, 5, False)]:
        e = DataLoader(_dataset(n), batch_size=bs, drop_last=drop)
        t = torch.utils.data.DataLoader(list(range(n)), batch_size=bs, drop_last=drop)
        assert len(e) == len(t) == len(list(e))


def test_dataloader_without_batching():
    loader = DataLoader(_dataset(3), batch_size=None)
    items = list(loader)
    assert len(loader) == 3 and items[1][1].item() == 1
    assert items[1][0].shape == (2,)


def test_default_collate_types():
    Point = collections.namedtuple("Point", "x y")
    batch = [
        {"a": 1, "b": 2.5, "c": np.ones(2, dtype=np.float32), "d": "s", "e": (True, [1, 2]),
         "p": Point(1, 2.0), "n": np.float64(1.5)},
        {"a": 3, "b": 0.5, "c": np.zeros(2, dtype=np.float32), "d": "t", "e": (False, [3, 4]),
         "p": Point(3, 4.0), "n": np.float64(2.5)},
    ]
    out = default_collate(batch)
    expected = torch.utils.data.default_collate(batch)
    assert out.keys() == expected.keys()
    assert out["a"].dtype == ember.int64 and out["a"].tolist() == [1, 3]
    assert out["b"].dtype == ember.float64 and out["b"].tolist() == [2.5, 0.5]
    assert out["c"].dtype == ember.float32 and out["c"].tolist() == expected["c"].tolist()
    assert out["d"] == ["s", "t"]
    assert isinstance(out["e"], list) and out["e"][0].dtype == ember.bool
    assert [t.tolist() for t in out["e"][1]] == [t.tolist() for t in expected["e"][1]]
    assert isinstance(out["p"], Point) and out["p"].y.tolist() == [2.0, 4.0]
    assert out["n"].dtype == ember.float64 and out["n"].tolist() == [1.5, 2.5]
    with pytest.raises(RuntimeError, match="equal size"):
        default_collate([[1, 2], [3]])
    with pytest.raises(TypeError):
        default_collate([object(), object()])


def test_custom_collate_fn_and_dataset():
    class Squares(Dataset):
        def __len__(self):
            return 5

        def __getitem__(self, i):
            return i * i

    loader = DataLoader(Squares(), batch_size=2, collate_fn=lambda b: sum(b))
    assert list(loader) == [1, 13, 16]
    assert [b.tolist() for b in DataLoader(Squares(), batch_size=3)] == [[0, 1, 4], [9, 16]]


def test_iterable_dataset():
    class Stream(IterableDataset):
        def __iter__(self):
            return iter(range(7))

    assert [b.tolist() for b in DataLoader(Stream(), batch_size=3)] == [[0, 1, 2], [3, 4, 5],
                                                                       [6]]
    assert len(list(DataLoader(Stream(), batch_size=3, drop_last=True))) == 2
    with pytest.raises(ValueError):
        DataLoader(Stream(), shuffle=True)


def _order(loader):
    return [i for b in loader for i in b[1].tolist()]


def test_shuffle_is_a_deterministic_permutation():
    ds = _dataset(20)

    def loader(seed):
        g = ember.Generator()
        g.manual_seed(seed)
        return DataLoader(ds, batch_size=6, shuffle=True, generator=g)

    a, b, c = _order(loader(7)), _order(loader(7)), _order(loader(8))
    assert a == b and sorted(a) == list(range(20))
    assert a != list(range(20)) and a != c
    # Epochs continue the generator's stream: a second pass is a new permutation.
    two = loader(7)
    first, second = _order(two), _order(two)
    assert first == a and sorted(second) == list(range(20)) and second != first
    ember.manual_seed(3)
    d = _order(DataLoader(ds, batch_size=6, shuffle=True))
    ember.manual_seed(3)
    assert _order(DataLoader(ds, batch_size=6, shuffle=True)) == d


def test_samplers():
    ds = _dataset(10)
    assert list(SequentialSampler(ds)) == list(range(10))
    g = ember.Generator().manual_seed(0)
    rs = RandomSampler(ds, generator=g)
    assert len(rs) == 10 and sorted(rs) == list(range(10))
    rep = list(RandomSampler(ds, replacement=True, num_samples=70, generator=g))
    assert len(rep) == 70 and all(0 <= i < 10 for i in rep)
    more = list(RandomSampler(ds, num_samples=25, generator=g))
    assert len(more) == 25 and sorted(more[:20]) == sorted(list(range(10)) * 2)
    bs = BatchSampler(SequentialSampler(ds), 4, drop_last=False)
    assert list(bs) == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]] and len(bs) == 3
    assert len(BatchSampler(SequentialSampler(ds), 4, drop_last=True)) == 2
    with pytest.raises(ValueError):
        BatchSampler(SequentialSampler(ds), 0, drop_last=False)
    with pytest.raises(ValueError):
        RandomSampler(ds, num_samples=0)


def test_dataloader_sampler_and_batch_sampler():
    ds = _dataset(10)
    order = [9, 2, 5, 0]
    assert _order(DataLoader(ds, batch_size=3, sampler=order)) == order
    batches = [[1, 2], [7], [0, 3, 4]]
    loader = DataLoader(ds, batch_sampler=batches)
    assert [b[1].tolist() for b in loader] == batches and len(loader) == 3
    with pytest.raises(ValueError, match="mutually exclusive"):
        DataLoader(ds, sampler=order, shuffle=True)
    with pytest.raises(ValueError, match="mutually exclusive"):
        DataLoader(ds, batch_size=2, batch_sampler=batches)
    workers = DataLoader(ds, batch_sampler=batches, num_workers=2)
    assert [b[1].tolist() for b in workers] == batches


def test_subset():
    ds = _dataset(10)
    sub = Subset(ds, [4, 1, 8])
    assert len(sub) == 3 and sub[0][1].item() == 4 and sub[2][1].item() == 8
    assert _order(DataLoader(sub, batch_size=2)) == [4, 1, 8]


@pytest.mark.parametrize("lengths,sizes", [([3, 7], [3, 7]), ([0.3, 0.7], [3, 7]),
                                           ([0.5, 0.25, 0.25], [6, 2, 2]),
                                           ([1 / 3] * 3, [4, 3, 3])])
def test_random_split(lengths, sizes):
    ds = _dataset(10)
    parts = random_split(ds, lengths, generator=ember.Generator().manual_seed(42))
    assert [len(p) for p in parts] == sizes
    torch_sizes = [len(p) for p in torch.utils.data.random_split(range(10), lengths)]
    assert torch_sizes == sizes
    seen = [i for p in parts for i in p.indices]
    assert sorted(seen) == list(range(10))
    again = random_split(ds, lengths, generator=ember.Generator().manual_seed(42))
    assert [p.indices for p in again] == [p.indices for p in parts]
    assert parts[0][0][1].item() == parts[0].indices[0]


def test_random_split_errors():
    with pytest.raises(ValueError, match="Sum of input lengths"):
        random_split(_dataset(10), [3, 3])
    with pytest.warns(UserWarning) as record:
        random_split(_dataset(2), [0.9, 0.05, 0.05])
    messages = [str(w.message) for w in record]
    assert len(messages) == 2 and messages[0].startswith("Length of split at index 1 is 0")


# --- ember.nn.utils --------------------------------------------------------------------------


def _grads_pair(dtype=np.float32, scale=1.0):
    rng = np.random.default_rng(5)
    arrays = [(scale * rng.standard_normal(s)).astype(dtype) for s in [(3, 4), (5,), (2, 2)]]
    ember_params, torch_params = [], []
    for a in arrays:
        pe = ember.zeros(a.shape, dtype=ember.from_numpy(a).dtype, requires_grad=True)
        pe.grad = ember.tensor(a.copy())
        pt = torch.zeros(a.shape, dtype=torch.from_numpy(a).dtype, requires_grad=True)
        pt.grad = torch.tensor(a.copy())
        ember_params.append(pe)
        torch_params.append(pt)
    return ember_params, torch_params


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("max_norm,norm_type", [(1.0, 2.0), (100.0, 2.0), (0.5, 1.0),
                                                (0.3, math.inf), (2.0, 3.0), (1.0, "inf")])
def test_clip_grad_norm_matches_torch(max_norm, norm_type, dtype):
    pe, pt = _grads_pair(dtype)
    ne = ember.nn.utils.clip_grad_norm_(pe, max_norm, norm_type)
    nt = torch.nn.utils.clip_grad_norm_(pt, max_norm, norm_type, foreach=False)
    rtol = 1e-6 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(ne.item(), nt.item(), rtol=rtol)
    for a, b in zip(pe, pt):
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=rtol, atol=1e-7)


def test_clip_grad_norm_edge_cases():
    w = ember.zeros(3, requires_grad=True)
    assert ember.nn.utils.clip_grad_norm_([w], 1.0).item() == 0.0  # no gradients
    w.grad = ember.tensor([3.0, 4.0, 0.0])
    assert ember.nn.utils.clip_grad_norm_(w, 1.0).item() == pytest.approx(5.0)
    np.testing.assert_allclose(w.grad.numpy(), [0.6, 0.8, 0.0], rtol=1e-5)
    w.grad = ember.tensor([float("inf"), 1.0, 0.0])
    with pytest.raises(RuntimeError, match="non-finite"):
        ember.nn.utils.clip_grad_norm_(w, 1.0, error_if_nonfinite=True)
    assert w.grad.tolist()[1] == 1.0  # left unchanged
    assert math.isinf(ember.nn.utils.clip_grad_norm_(w, 1.0).item())


@pytest.mark.parametrize("clip", [0.1, 0.75, 10.0])
def test_clip_grad_value_matches_torch(clip):
    pe, pt = _grads_pair()
    assert ember.nn.utils.clip_grad_value_(pe, clip) is None
    torch.nn.utils.clip_grad_value_(pt, clip, foreach=False)
    for a, b in zip(pe, pt):
        np.testing.assert_array_equal(a.grad.numpy(), b.grad.numpy())


def test_parameters_vector_round_trip():
    pe, pt = _grads_pair()
    for a, b in zip(pe, pt):
        with ember.no_grad():
            a.copy_(a.grad)
        with torch.no_grad():
            b.copy_(b.grad)
    ve = ember.nn.utils.parameters_to_vector(pe)
    vt = torch.nn.utils.parameters_to_vector(pt)
    assert ve.shape == (21,)
    np.testing.assert_array_equal(ve.detach().numpy(), vt.detach().numpy())
    ember.nn.utils.vector_to_parameters(ember.arange(21, dtype=ember.float32), pe)
    torch.nn.utils.vector_to_parameters(torch.arange(21, dtype=torch.float32), pt)
    for a, b in zip(pe, pt):
        np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())
    with pytest.raises(TypeError):
        ember.nn.utils.vector_to_parameters([1.0], pe)
    # parameters_to_vector is differentiable.
    for a in pe:
        a.grad = None
    ember.nn.utils.parameters_to_vector(pe).sum().backward()
    assert pe[0].grad.tolist() == [[1.0] * 4] * 3
