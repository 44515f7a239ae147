"""Python indexing (Tensor.__getitem__ / __setitem__) against PyTorch: thousands of random
index expressions (integers, slices with negative bounds and steps, None, Ellipsis, integer
tensors and lists, bool masks and Python bools, mixed), on contiguous and non-contiguous
tensors: values, shapes, view-or-copy, assignment, gradients both ways, and the errors of
invalid expressions (NumPy's placement rules for advanced-index dimensions included).
"""
from __future__ import annotations

import numpy as np
import pytest
import torch

import ember

N_CASES = 4000


def make_base(rng, shape, layout):
    """(ember, torch) tensors of equal float64 values; layout: contiguous, transposed, sliced."""
    if layout == "transposed" and len(shape) >= 2:
        a = rng.integers(-9, 10, shape[::-1]).astype(np.float64).transpose()
    elif layout == "sliced":
        big = rng.integers(-9, 10, tuple(2 * s + 1 for s in shape)).astype(np.float64)
        a = big[tuple(slice(1, None, 2) for _ in shape)]
    else:
        a = rng.integers(-9, 10, shape).astype(np.float64)
    a = np.asarray(a)
    return ember.from_numpy(a.copy()) if a.flags.c_contiguous else ember.from_numpy(a), torch.from_numpy(a.copy())


class Key:
    """A random index expression, built in both libraries' terms."""

    def __init__(self, rng, shape, allow_dup=True):
        self.items = []  # ("int", i) ("slice", s) ("none",) ("ellipsis",) ("bool", b) ("ilist", list)
        #                 ("itensor", array) ("mask", array)
        dims = list(shape)
        pos = 0
        n_items = int(rng.integers(1, len(shape) + 2))
        used_ellipsis = False
        self.advanced = False
        self.dup = False
        for _ in range(n_items):
            kinds = ["none", "bool"]
            if pos < len(dims):
                kinds += ["int", "slice", "slice", "ilist", "itensor", "mask"]
            if not used_ellipsis:
                kinds.append("ellipsis")
            kind = kinds[int(rng.integers(len(kinds)))]
            if kind == "int":
                n = dims[pos]
                if n == 0:
                    kind = "slice"
                else:
                    self.items.append(("int", int(rng.integers(-n, n))))
                    pos += 1
                    continue
            if kind == "slice":
                n = dims[pos]
                bound = lambda: None if rng.random() < 0.3 else int(rng.integers(-n - 2, n + 3))  # noqa: E731
                step = None if rng.random() < 0.4 else int(rng.integers(1, 4))
                self.items.append(("slice", slice(bound(), bound(), step)))
                pos += 1
            elif kind == "none":
                self.items.append(("none",))
            elif kind == "ellipsis":
                used_ellipsis = True
                self.items.append(("ellipsis",))
                pos = len(dims)  # the rest of the dims go to the ellipsis (or what follows)
            elif kind == "bool":
                self.items.append(("bool", bool(rng.random() < 0.7)))
                self.advanced = True
            elif kind in ("ilist", "itensor"):
                n = dims[pos]
                if n == 0:
                    self.items.append(("slice", slice(None)))
                    pos += 1
                    continue
                ishape = [(int(rng.integers(1, 4)),), (int(rng.integers(1, 3)), int(rng.integers(1, 3))), ()][
                    int(rng.integers(3))]
                if kind == "ilist" and ishape == ():
                    ishape = (1,)
                vals = rng.integers(-n, n, ishape)
                self.dup = self.dup or len(np.unique(np.asarray(vals) % n)) < np.size(vals)
                self.items.append((kind, vals.tolist() if kind == "ilist" else vals))
                self.advanced = True
                pos += 1
            else:  # mask over 1 or 2 dims
                k = 1 if pos + 1 >= len(dims) or rng.random() < 0.6 else 2
                self.items.append(("mask", rng.random(tuple(dims[pos:pos + k])) < 0.5))
                self.advanced = True
                pos += k
        # Ellipsis: the dims it covers are those left after the other items.
        if used_ellipsis:
            consumed = sum(1 for it in self.items if it[0] in ("int", "slice", "ilist", "itensor")) + \
                sum(it[1].ndim for it in self.items if it[0] == "mask")
            if consumed > len(dims):
                self.items = [it for it in self.items if it[0] != "ellipsis"]
        # Broadcasting of several integer indices: keep only broadcastable combinations.
        shapes = [np.shape(it[1]) for it in self.items if it[0] in ("ilist", "itensor")]
        try:
            np.broadcast_shapes(*shapes)
        except ValueError:
            self.items = [it for it in self.items if it[0] not in ("ilist", "itensor")] or [("none",)]
            self.advanced = any(it[0] in ("bool", "mask") for it in self.items)
        if sum(1 for it in self.items if it[0] in ("ilist", "itensor", "mask", "bool")) > 1:
            # Several advanced indices broadcast: positions can repeat.
            self.dup = True

    def build(self, lib):
        out = []
        for it in self.items:
            kind = it[0]
            if kind in ("int", "slice", "bool", "ilist"):
                out.append(it[1])
            elif kind == "none":
                out.append(None)
            elif kind == "ellipsis":
                out.append(Ellipsis)
            elif kind == "itensor":
                out.append(lib.tensor(np.asarray(it[1]).tolist(), dtype=lib.int64))
            else:
                out.append(lib.tensor(it[1].tolist(), dtype=lib.bool) if it[1].ndim else lib.tensor(bool(it[1])))
        return out[0] if len(out) == 1 and self.items[0][0] != "ellipsis" and len(self.items) == 1 else tuple(out)

    def __repr__(self):
        return repr(self.items)


def shares_memory(a, base) -> bool:
    if a.numel() == 0 or base.numel() == 0:
        return False
    return a.untyped_storage().data_ptr() == base.untyped_storage().data_ptr() if isinstance(a, torch.Tensor) \
        else a._base is not None and (a._base is base or a._base is getattr(base, "_base", None))


def case_params():
    rng = np.random.default_rng(2024)
    out = []
    for i in range(N_CASES):
        ndim = int(rng.integers(0, 5))
        shape = tuple(int(x) for x in rng.choice([1, 2, 3, 4, 5, 0], ndim, p=[.15, .25, .25, .15, .15, .05]))
        layout = ["contiguous", "transposed", "sliced"][int(rng.integers(3))]
        out.append((i, shape, layout))
    return out


CASES = case_params()


def outcome(fn):
    try:
        return fn(), None
    except Exception as e:  # noqa: BLE001 - compared with PyTorch's
        return None, e


def assert_same_error(e_err, t_err, what):
    assert t_err is not None, f"{what}: Ember raised {e_err!r}, PyTorch did not"
    assert e_err is not None, f"{what}: PyTorch raised {t_err!r}, Ember did not"
    for cls in (IndexError, ValueError, TypeError, RuntimeError):
        if isinstance(t_err, cls):
            assert isinstance(e_err, cls), f"{what}: Ember raised {e_err!r}, PyTorch {t_err!r}"
            return


@pytest.mark.parametrize("i,shape,layout", CASES, ids=[f"{i}-{'x'.join(map(str, s)) or '0d'}-{l}" for i, s, l in CASES])
def test_getitem_setitem_match_pytorch(i, shape, layout):
    rng = np.random.default_rng(10_000 + i)
    e, t = make_base(rng, shape, layout)
    key = Key(rng, shape)
    ek, tk = key.build(ember), key.build(torch)
    er, e_err = outcome(lambda: e[ek])
    tr, t_err = outcome(lambda: t[tk])
    if t_err is not None or e_err is not None:
        assert_same_error(e_err, t_err, f"get {key}")
        return
    assert tuple(er.shape) == tuple(tr.shape), f"get {key}: shape {tuple(er.shape)} vs {tuple(tr.shape)}"
    np.testing.assert_array_equal(er.numpy(), tr.numpy(), err_msg=f"get {key}")
    # A view exactly when PyTorch's result is one (basic indexing only).
    assert (er._base is not None) == (tr._base is not None), f"get {key}: view {er._base is not None} vs {tr._base is not None}"

    # Assignment: a scalar, and (without repeated positions) a tensor of the result's shape
    # or a broadcastable one.
    values = [2.5]
    if not key.dup and tr.numel() > 0:
        v = rng.integers(-9, 10, tuple(tr.shape)).astype(np.float64)
        values.append(v)
        if tr.dim() >= 1:
            values.append(v[(0,) * (tr.dim() - 1)][None] if tr.dim() > 1 else v[:1])
    for v in values:
        e2, t2 = e.clone(), t.clone()
        ev = ember.from_numpy(np.array(v)) if isinstance(v, np.ndarray) else v
        tv = torch.from_numpy(np.array(v)) if isinstance(v, np.ndarray) else v
        _, e_err = outcome(lambda: e2.__setitem__(ek, ev))
        _, t_err = outcome(lambda: t2.__setitem__(tk, tv))
        if t_err is not None or e_err is not None:
            assert_same_error(e_err, t_err, f"set {key} = {np.shape(v)}")
            continue
        np.testing.assert_array_equal(e2.numpy(), t2.numpy(), err_msg=f"set {key} = {np.shape(v)}")

    # Gradients: of x[key] with respect to x, and of an assignment with respect to both.
    if i % 4 == 0 and tr.numel() > 0:
        g = np.asarray(rng.integers(-4, 5, tuple(tr.shape)), dtype=np.float64)
        ex, tx = e.detach().requires_grad_(), t.detach().clone().requires_grad_()
        (ex[ek] * ember.from_numpy(g)).sum().backward()
        (tx[tk] * torch.from_numpy(g)).sum().backward()
        np.testing.assert_allclose(ex.grad.numpy(), tx.grad.numpy(), err_msg=f"grad of get {key}")
        if not key.dup:
            w = np.asarray(rng.integers(-4, 5, shape), dtype=np.float64)
            ex, tx = e.detach().requires_grad_(), t.detach().clone().requires_grad_()
            ev = ember.from_numpy(g.copy()).requires_grad_()
            tv = torch.from_numpy(g.copy()).requires_grad_()
            ey, ty = ex * 1, tx * 1
            ey[ek] = ev
            ty[tk] = tv
            (ey * ember.from_numpy(w)).sum().backward()
            (ty * torch.from_numpy(w)).sum().backward()
            np.testing.assert_allclose(ex.grad.numpy(), tx.grad.numpy(), err_msg=f"grad of x in set {key}")
            np.testing.assert_allclose(ev.grad.numpy(), tv.grad.numpy(), err_msg=f"grad of value in set {key}")


# ---- fixed cases: the rules named in the issue, and errors -------------------------------

def both(shape=(2, 3, 4, 5)):
    a = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    return ember.from_numpy(a.copy()), torch.from_numpy(a.copy())


@pytest.mark.parametrize("key", [
    (0, [0, 1]), ([0, 1], slice(None), [1, 2]), (slice(None), [0, 2], [1, 3]),
    (Ellipsis, [0, 1]), (None, [1], Ellipsis, None), ([[0], [1]], slice(None), [0, 2, 3]),
    (1, slice(None), [0, 3], slice(1, 3)), (True, 0), (False,), (slice(None), False),
    (Ellipsis, 0, Ellipsis), (Ellipsis, Ellipsis),
    ([True, False],), (slice(None, None, 2), slice(-1, None), [-1]), ((), ),
])
def test_advanced_dims_placement(key):
    e, t = both()
    if key == ((),):
        key = ()
    er, tr = e[key], t[key]
    assert tuple(er.shape) == tuple(tr.shape)
    np.testing.assert_array_equal(er.numpy(), tr.numpy())


@pytest.mark.parametrize("key,cls", [
    (5, IndexError), (-6, IndexError), ((0, 0, 0, 0, 0), IndexError),
    ([0, 7], IndexError), ((slice(None, None, -1),), ValueError), ((slice(None, None, 0),), ValueError),
    (([0, 1], slice(None), [0, 1, 2]), IndexError), ("a", TypeError), (1.5, IndexError),
])
def test_bad_keys_raise_like_pytorch(key, cls):
    e, t = both((4, 3))
    with pytest.raises(cls):
        t[key]
    with pytest.raises(cls) as info:
        e[key]
    if isinstance(key, int):
        msg = str(info.value)
        assert "out of bounds" in msg and "dimension 0" in msg and "size 4" in msg, msg


def test_bool_mask_shape_mismatch_raises_index_error():
    e, t = both((4, 3))
    for lib, x in ((torch, t), (ember, e)):
        with pytest.raises(IndexError):
            x[lib.tensor([True, False])]


def test_writes_through_basic_index_reach_the_base_and_bump_its_version():
    e, t = both((3, 4))
    v0 = e._version
    e[1:, ::2] = 7
    t[1:, ::2] = 7
    np.testing.assert_array_equal(e.numpy(), t.numpy())
    assert e._version > v0
    view = e[0]
    view[1] = -1
    assert e[0, 1].item() == -1


def test_index_put_accumulate_adds_repeats():
    e, t = both((5,))
    idx = [0, 0, 3]
    e.index_put_((ember.tensor(idx),), ember.tensor([1.0, 2.0, 3.0]), accumulate=True)
    t.index_put_((torch.tensor(idx),), torch.tensor([1.0, 2.0, 3.0]), accumulate=True)
    np.testing.assert_array_equal(e.numpy(), t.numpy())


def test_cpp_indexing_api_is_the_python_one():
    """ember.ops routes through the same C++ (indexing::get/set): spot-check a mixed key."""
    e, t = both()
    key = (Ellipsis, [1, 0], slice(1, None))
    np.testing.assert_array_equal(e[key].numpy(), t[key].numpy())
