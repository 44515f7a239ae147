"""ember.return_types: the named tuples of ops returning several tensors, against
torch.return_types (type names, field names, values, tuple behaviour, gradients)."""
import copy
import pickle

import numpy as np
import pytest
import torch

import ember
import op_table
from ember import return_types

pytestmark = pytest.mark.filterwarnings("ignore:torch.qr is deprecated")

# Distinct values, so that every index is defined; REPEATS has modes to find.
DATA = [[3.0, 1.0, 2.0, 2.5], [0.0, 5.0, 4.0, 4.5], [-1.0, -1.5, 7.0, 0.5]]
REPEATS = [[1.0, 2.0, 2.0, 3.0, 2.0], [4.0, 4.0, 1.0, 0.0, 4.0]]
SPD = [[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 2.0]]

# (expression over a module `m` and a tensor `x` of DATA / `a` of SPD, the torch type name).
CASES = [
    ("x.max(1)", "max"), ("m.max(x, 0)", "max"), ("m.max(x, dim=-1, keepdim=True)", "max"),
    ("x.min(1)", "min"), ("m.min(x, 0, True)", "min"),
    ("x.sort()", "sort"), ("m.sort(x, 0, descending=True)", "sort"),
    ("m.sort(x, stable=True, dim=1)", "sort"),
    ("x.topk(2)", "topk"), ("m.topk(x, 1, dim=0, largest=False)", "topk"),
    ("x.kthvalue(2)", "kthvalue"), ("m.kthvalue(x, 1, 0, True)", "kthvalue"),
    ("x.median(1)", "median"), ("m.median(x, 0)", "median"),
    ("x.mode(1)", "mode"), ("m.mode(x, 0)", "mode"), ("y.mode(1)", "mode"),
    ("x.aminmax()", "aminmax"), ("m.aminmax(x, dim=1)", "aminmax"),
    ("m.aminmax(x, dim=0, keepdim=True)", "aminmax"),
    ("m.linalg.slogdet(a)", "linalg_slogdet"), ("m.slogdet(a)", "slogdet"),
    ("a.slogdet()", "slogdet"),
    ("m.linalg.eigh(a)", "linalg_eigh"), ("m.linalg.eigh(a, 'U')", "linalg_eigh"),
    ("m.linalg.svd(x, full_matrices=False)", "linalg_svd"), ("m.svd(x)", "svd"),
    ("m.linalg.qr(x)", "linalg_qr"), ("m.linalg.qr(x, 'complete')", "linalg_qr"),
    ("m.qr(x.mT)", "qr"), ("x.mT.qr()", "qr"),
    ("m.linalg.lstsq(a, x[:, :2])", "linalg_lstsq"),
]


def run(expr, m):
    x = m.tensor(DATA)
    a = m.tensor(SPD)
    return eval(expr, {"m": m, "x": x, "a": a, "y": m.tensor(REPEATS)})


def torch_fields(r):
    return type(r).__match_args__


def abs_if(name, field, v):
    """Fields only defined up to sign (eigenvectors, singular vectors, Q, R) compare by |.|."""
    signed = {"linalg_eigh": ("eigenvectors",), "linalg_svd": ("U", "Vh"), "svd": ("U", "V"),
              "linalg_qr": ("Q", "R"), "qr": ("Q", "R")}
    return np.abs(v) if field in signed.get(name, ()) else v


@pytest.mark.parametrize("expr,name", CASES, ids=[c[0] for c in CASES])
def test_matches_torch(expr, name):
    got, want = run(expr, ember), run(expr, torch)
    assert type(want).__name__ == name
    assert type(got).__name__ == name and type(got).__module__ == "ember.return_types"
    assert type(got) is getattr(ember.return_types, name)
    assert got._fields == torch_fields(want)
    assert isinstance(got, tuple) and len(got) == len(want)
    for field, g, w in zip(got._fields, got, want):
        assert getattr(got, field) is g
        gv, wv = np.asarray(g), w.numpy()
        assert gv.shape == wv.shape, field
        assert gv.dtype == wv.dtype, field
        np.testing.assert_allclose(abs_if(name, field, gv), abs_if(name, field, wv),
                                   rtol=1e-5, atol=1e-5, err_msg=field)


def test_tuple_behaviour():
    r = ember.tensor(DATA).max(1)
    values, indices = r
    assert values is r.values and indices is r.indices
    assert r[0] is r.values and r[-1] is r.indices
    assert type(r[0:2]) is tuple and r[0:2] == (r.values, r.indices)
    assert r == (r.values, r.indices) and tuple(r) == (r.values, r.indices)
    assert type(r + (1,)) is tuple and len(r + (1,)) == 3
    assert r.index(r.values) == 0
    match r:
        case ember.return_types.max(values=v, indices=i):
            assert v is values and i is indices
    with pytest.raises(AttributeError):
        r.values = ember.zeros(2)
    with pytest.raises(AttributeError):
        r.other = 1  # noqa: B018 - a structseq takes no new attributes
    with pytest.raises(AttributeError):
        r._asdict()  # as torch's structseqs, which have no namedtuple methods


def test_repr_as_torch():
    for expr in ("x.max(1)", "x.aminmax()", "m.linalg.slogdet(a)"):
        got, want = run(expr, ember), run(expr, torch)
        assert repr(got).startswith(f"ember.return_types.{type(got).__name__}(\n")
        assert repr(got).replace("ember.", "torch.") == repr(want)
        assert str(got) == repr(got)


def test_constructor_as_torch_structseq():
    for m in (ember.return_types, torch.return_types):
        assert tuple(m.max((1, 2))) == (1, 2)
        assert tuple(m.max([1, 2], {})) == (1, 2)
        assert m.max(iter([1, 2])).indices == 2
        assert m.max.n_fields == 2 and m.max.n_sequence_fields == 2
        for bad in ((1, 2, 3), (1,)):
            with pytest.raises(TypeError, match=rf"takes a 2-sequence \({len(bad)}-sequence given\)"):
                m.max(bad)
        with pytest.raises(TypeError, match="takes a dict as second arg"):
            m.max((1, 2), 5)
        with pytest.raises(TypeError):
            m.max(1, 2)
    assert ember.return_types.linalg_lstsq.n_fields == torch.return_types.linalg_lstsq.n_fields


def test_pickle_and_copy():
    r = ember.tensor(DATA).sort(0)
    for back in (pickle.loads(pickle.dumps(r)), copy.deepcopy(r)):
        assert type(back) is ember.return_types.sort
        assert ember.equal(back.values, r.values) and ember.equal(back.indices, r.indices)
        assert back.values is not r.values
    assert copy.copy(r) is r


def test_one_tensor_overloads_pass_through():
    x = ember.tensor(DATA)
    for got in (x.max(), ember.max(x), x.min(), x.median(), ember.median(x)):
        assert isinstance(got, ember.Tensor)
    assert type(ember.var_mean(x)) is tuple  # a plain tuple in torch too
    assert type(torch.var_mean(torch.tensor(DATA))) is tuple


@pytest.mark.parametrize("expr", ["x.max(5)", "m.sort(x, 3)", "x.topk(9)", "m.linalg.eigh(x)"])
def test_errors_unchanged(expr):
    with pytest.raises(Exception) as want:
        run(expr, torch)
    with pytest.raises(Exception) as got:
        run(expr, ember)
    assert type(got.value).__name__ == type(want.value).__name__


def test_wrappers_keep_name_and_doc():
    for f, name in ((ember.max, "max"), (ember.Tensor.sort, "sort"), (ember.linalg.eigh, "eigh")):
        assert f.__name__ == name and f.__doc__
        assert f.__wrapped__ is not None
    assert return_types.install({"Tensor": ember.Tensor, "ember": ember,
                                 "linalg": ember.linalg}) == []  # installed once only


GRAD_CASES = [
    ("lambda t: t.max(1).values", None), ("lambda t: t.min(0).values", None),
    ("lambda t: t.sort(1, descending=True).values * m.arange(4.0)", None),
    ("lambda t: t.topk(2).values", None), ("lambda t: t.kthvalue(2, 0).values", None),
    ("lambda t: t.median(1).values", None), ("lambda t: t.mode(0).values", None),
    ("lambda t: t.aminmax(dim=1).max - t.aminmax(dim=1).min", None),
    ("lambda t: m.linalg.slogdet(t).logabsdet", "spd"),
    ("lambda t: m.slogdet(t).logabsdet", "spd"),
    ("lambda t: m.linalg.eigh(t).eigenvalues * m.arange(3.0)", "spd"),
    ("lambda t: m.linalg.svd(t, full_matrices=False).S", None),
    ("lambda t: m.linalg.qr(t).R.abs()", "spd"),
]


@pytest.mark.parametrize("expr,data", GRAD_CASES, ids=[c[0] for c in GRAD_CASES])
def test_gradients_flow_through_fields(expr, data):
    grads = []
    for m in (ember, torch):
        t = m.tensor(SPD if data == "spd" else DATA, dtype=m.float64, requires_grad=True)
        eval(expr, {"m": m})(t).sum().backward()
        grads.append(np.asarray(t.grad))
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-6, atol=1e-8)


def test_fields_agree_with_the_yaml():
    """Every public op of native_functions.yaml returning several named tensors is wrapped,
    with its return names as the fields (so a new op, or a renamed return, fails here)."""
    checked = set()
    for info in op_table.load_ops().values():
        schema = info.schema
        names = tuple(r.name for r in schema.returns)
        if len(names) < 2 or not all(names) or schema.name.startswith("_") \
                or info.python_module == "nn":
            continue
        if info.python_module == "linalg":
            key = ("linalg", schema.name.removeprefix("linalg_"))
        else:
            key = ("Tensor" if "method" in info.variants else "ember", schema.name)
        assert key in return_types.OPS, f"{schema.full_name} returns {names} but has no return type"
        assert return_types.FIELDS[return_types.OPS[key]] == names, schema.full_name
        checked.add(key)
    assert len(checked) >= 12


def test_fields_agree_with_torch():
    for name, fields in return_types.FIELDS.items():
        assert torch_fields_of_type(name) == fields, name


def torch_fields_of_type(name):
    return getattr(torch.return_types, name).__match_args__
