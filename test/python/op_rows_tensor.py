"""The op table's rows of the tensor families: factories, copies, random, views and shape
ops, elementwise, reductions (test_op_table.py runs them)."""
from __future__ import annotations

from op_rows import *  # noqa: F401,F403

def _as_coo(lib, t):
    """A dense op-table input as sparse COO over all its dims (0-d: none), in lib."""
    return t._to_sparse(t.dim()) if isinstance(t, lib.Tensor) else t


def _on_coo(lib, name, dense_result=False):
    """lib's Tensor.<name> called on the input made sparse; a sparse result compared dense."""
    def call(self, *args, **kwargs):
        r = getattr(lib.Tensor, name)(_as_coo(lib, self), *args, **kwargs)
        return r._to_dense() if dense_result else r
    return call


def _sparse_rows() -> list:
    """The sparse ops (native_functions.yaml, "sparse"): each input is made sparse by the
    row's function in both libraries (test_sparse.py checks patterns with duplicates,
    hybrid tensors and the errors against torch.sparse in detail)."""
    dts = ("float32", "float64", "int64", "bool", "complex64")
    rows = []
    for key, dense in [("_to_dense", False), ("coalesce", True), ("_indices", False), ("_values", False),
                       ("_nnz", False), ("is_coalesced", False)]:
        kw = {"pools": {"dtype": [None], "masked_grad": [None]}, "bad": [{"dtype": Dt("float64")}]} \
            if key == "_to_dense" else {}
        rows.append(Row(key, dtypes=dts, torch_function=_on_coo(torch, key, dense),
                        ember_function=_on_coo(ember, key, dense), **kw))
    rows.append(Row("_to_sparse.sparse_dim", dtypes=dts, pools={"sparse_dim": [1, 2]},
                    bad=[{"sparse_dim": 3}, {"sparse_dim": -1}], generic_bad=False,
                    torch_function=lambda self, d: torch.Tensor._to_sparse(self, d)._to_dense(),
                    ember_function=lambda self, d: ember.Tensor._to_sparse(self, d)._to_dense()))
    rows.append(Row("_sparse_coo_tensor_unsafe", dtypes=("float32", "float64", "int64"),
                    arg_dtypes={"indices": ("int64",)}, shapes={"indices": (2, 4), "values": (4,)},
                    values={"indices": "index3"}, layouts=("contiguous", "transposed", "sliced"),
                    pools={"size": [(3, 4), (5, 3)], "is_coalesced": [None]}, generic_bad=False,
                    bad=[{"size": (2, 2)}, {"indices": TensorSpec("float32", shape=(2, 4))}],
                    torch_function=lambda i, v, size, is_coalesced=None: torch.sparse_coo_tensor(
                        i, v, size, is_coalesced=is_coalesced, check_invariants=True)._to_dense(),
                    ember_function=lambda i, v, size, is_coalesced=None: ember._sparse_coo_tensor_unsafe(
                        i, v, size, is_coalesced=is_coalesced)._to_dense()))
    rows += _compressed_rows()
    return rows


def _compressed_rows() -> list:
    """The compressed layouts' ops and the sparse products (aten/native/sparse/): each 2-D
    input made CSR (or CSC, COO) by the row's function in both libraries, a sparse result
    compared dense (test_sparse_compressed.py and test_sparse_ops.py check members,
    patterns and every layout against torch.sparse in detail). The conversions go through
    the classes' descriptors, so a wrong-typed argument is a TypeError in both."""
    dts = ("float32", "float64", "int64", "bool", "complex64")
    floats = ("float32", "float64")
    two_d = tuple(l for l in ot.LAYOUTS if l != "0-d")  # the compressed layouts are 2-D at least
    T, E = torch.Tensor, ember._C.TensorBase
    conv = {"csr": (T.to_sparse_csr, E._to_sparse_csr), "csc": (T.to_sparse_csc, E._to_sparse_csc)}
    rows = []
    for key, layout in [("_to_sparse_csr", "csr"), ("_to_sparse_csc", "csc")]:
        tc, ec = conv[layout]
        rows.append(Row(generic_bad=False, key=key, dtypes=dts, layouts=two_d, pools={"dense_dim": [None]},
                        bad=[{"dense_dim": 2}],
                        torch_function=lambda self, dense_dim=None, _c=tc: _c(self, dense_dim).to_dense(),
                        ember_function=lambda self, dense_dim=None, _c=ec: _c(self, dense_dim)._to_dense()))
    for key, layout in [("crow_indices", "csr"), ("col_indices", "csr"), ("ccol_indices", "csc"),
                        ("row_indices", "csc")]:
        tc, ec = conv[layout]
        rows.append(Row(generic_bad=False, key=key, dtypes=dts, layouts=two_d,
                        torch_function=lambda self, _k=key, _c=tc: getattr(_c(self), _k)().clone(),
                        ember_function=lambda self, _k=key, _c=ec: getattr(_c(self), _k)().clone()))

    def compressed(lib, cls, ci, pi, values, size, layout, check_invariants):
        cls.clone(ci), cls.clone(pi)  # (their types only: the members are a fixed valid CSR)
        crow, col = lib.tensor([0, 1, 3, 4]), lib.tensor([0, 1, 3, 2])
        if lib is torch:
            return torch.sparse_compressed_tensor(crow, col, values, size, layout=layout,
                                                  check_invariants=check_invariants).to_dense()
        return ember._sparse_compressed_tensor_unsafe(crow, col, values, size, layout, check_invariants)._to_dense()
    rows.append(Row(generic_bad=False, key="_sparse_compressed_tensor_unsafe", dtypes=("float32", "float64", "int64"),
                    arg_dtypes={"compressed_indices": ("int64",), "plain_indices": ("int64",)},
                    shapes={"compressed_indices": (4,), "plain_indices": (4,), "values": (4,)},
                    layouts=("contiguous",),
                    pools={"size": [(3, 4)], "layout": [ot.Lay("sparse_csr")], "check_invariants": [False]},
                    torch_function=lambda compressed_indices, plain_indices, values, size, layout=None,
                    check_invariants=False: compressed(torch, T, compressed_indices, plain_indices, values, size,
                                                       layout, check_invariants),
                    ember_function=lambda compressed_indices, plain_indices, values, size, layout=None,
                    check_invariants=False: compressed(ember, E, compressed_indices, plain_indices, values, size,
                                                       layout, check_invariants)))
    rows.append(Row(generic_bad=False, key="values", dtypes=dts, layouts=two_d,
                    torch_function=lambda self: T.to_sparse_csr(self).values().clone(),
                    ember_function=lambda self: E.values(E._to_sparse_csr(self)).clone()))
    rows.append(Row(generic_bad=False, key="sparse_mask", dtypes=floats, layouts=two_d,
                    shapes={"self": (3, 4), "mask": (3, 4)},
                    torch_function=lambda self, mask: T.sparse_mask(self, T.to_sparse(mask)).to_dense(),
                    ember_function=lambda self, mask: E.sparse_mask(self, E._to_sparse(mask, 2))._to_dense()))
    rows.append(Row(generic_bad=False, key="sparse_sampled_addmm", dtypes=floats, layouts=("contiguous",),
                    shapes={"self": (3, 4), "mat1": (3, 2), "mat2": (2, 4)}, pools={"beta": [1, 0.5], "alpha": [1, 2.0]},
                    torch_function=lambda self, mat1, mat2, beta=1, alpha=1: torch.sparse.sampled_addmm(
                        T.to_sparse_csr(self), mat1, mat2, beta=beta, alpha=alpha).to_dense(),
                    ember_function=lambda self, mat1, mat2, beta=1, alpha=1: ember.sparse_sampled_addmm(
                        E._to_sparse_csr(self), mat1, mat2, beta=beta, alpha=alpha)._to_dense()))
    for key, tname in [("_sparse_softmax", "softmax"), ("_sparse_log_softmax", "log_softmax")]:
        rows.append(Row(generic_bad=False, key=key, dtypes=floats, layouts=two_d,
                        pools={"dim": [0, 1], "dtype": [None]}, bad=[{"dim": 2}],
                        torch_function=lambda self, dim, dtype=None, _n=tname: getattr(torch.sparse, _n)(
                            T.to_sparse(self), dim, dtype=dtype).to_dense(),
                        ember_function=lambda self, dim, dtype=None, _k=key: getattr(ember, _k)(
                            E._to_sparse(self, 2), dim, dtype)._to_dense()))
    return rows


ROWS_TENSOR: list[Row] = [
    # ---- factories ----
    Row("empty.memory_format", not_comparable=UNINITIALISED,
        extra=[{"size": (2, 3, 4, 5), "memory_format": Fmt("channels_last")}]),
    Row("empty_strided", not_comparable=UNINITIALISED,
        pools={"size": [(2, 3), (0, 3), (3,)], "stride": [(1, 2), (3, 1), (0, 1), (5, 2)]},
        extra=[{"size": (), "stride": ()}], bad=[{"stride": (-1, 1)}, {"stride": (1,)}]),
    Row("empty_like", not_comparable=UNINITIALISED),
    # Growing leaves the new elements uninitialised; shrinking and same-size keep them.
    # Every input wraps numpy's memory on both sides, so growing it is refused by both; the
    # bfloat16 inputs are not alike (Ember's wraps torch's memory, torch's owns its own), so
    # bfloat16 is left to test_tensor_legacy.py's resize_ tests.
    Row("resize_", not_comparable=UNINITIALISED, dtypes=tuple(d for d in ALL if d != "bfloat16"),
        pools={"size": [(2, 3), (6,), (0,), (4, 5), ()]},
        extra=[{"size": (2, 3, 4, 5), "memory_format": Fmt("channels_last")}],
        bad=[{"size": (-1, 2)}, {"memory_format": Fmt("preserve_format")},
             {"size": (2, 3), "memory_format": Fmt("channels_last")}]),
    Row("zeros"),
    Row("ones"),
    Row("full", pools={"fill_value": [2, -1.5, True, 1 + 2j]},
        bad=[{"fill_value": 1000, "dtype": Dt("int8")}]),
    Row("zeros_like"),
    Row("ones_like"),
    Row("full_like", pools={"fill_value": [2, -1.5, True]}),
    Row("scalar_tensor", pools={"s": [1.5, 3, True, -2, 1 + 2j]},
        bad=[{"s": 1000, "dtype": Dt("uint8")}]),
    Row("arange", pools={"end": [5, 7.5, 0, 1]}, bad=[{"end": -1}]),
    Row("arange.start", pools={"start": [0, -2, 1.5], "end": [5, 7.5]},
        bad=[{"start": 5, "end": 0}]),
    Row("arange.start_step", pools={"start": [0, -2, 1.5], "end": [5, 7.5], "step": [1, 2, 0.5]},
        extra=[{"start": 5, "end": 0, "step": -1}, {"start": 1, "end": 2, "step": 0.25}],
        bad=[{"step": 0}, {"step": -1}]),
    Row("arange.out", pools={"end": [5, 7.5, 0]}, bad=[{"end": -1}]),
    Row("arange.start_out", pools={"start": [0, -2, 1.5], "end": [5, 7.5], "step": [1, 2, 0.5]},
        extra=[{"start": 5, "end": 0, "step": -1}], bad=[{"step": 0}]),
    Row("linspace", pools={"start": [0, -2, 1.5], "end": [5, 7.5], "steps": [5, 1, 0, 7]},
        bad=[{"steps": -1}]),
    Row("linspace.out", pools={"start": [0, -2], "end": [5, 7.5], "steps": [5, 1, 0]},
        bad=[{"steps": -1}]),
    Row("logspace", pools={"start": [0, -2, 1.5], "end": [2, 3.5], "steps": [5, 1, 0],
                           "base": [2.0, 0.5]}, bad=[{"steps": -1}]),
    Row("logspace.out", pools={"start": [0, -2], "end": [2, 3.5], "steps": [5, 1, 0],
                               "base": [2.0]}, bad=[{"steps": -1}]),
    Row("eye", bad=[{"n": -1}]),
    Row("eye.m", bad=[{"m": -1}]),
    Row("eye.out", bad=[{"n": -1}], out_layouts=OUT_LAYOUTS + ("transposed",)),
    Row("eye.m_out", bad=[{"m": -1}], out_layouts=OUT_LAYOUTS + ("transposed",)),
    # ---- copy and conversion ----
    Row("fill_.Scalar", pools={"value": [2, -1.5, True, 0.25, 1 + 2j]},
        bad=[{"self": TensorSpec("int8"), "value": 1000}]),
    Row("zero_"),
    Row("copy_", keyword_names={"src": "other"},
        extra=[{"src": TensorSpec("float32", "contiguous", (4,))},
               {"src": TensorSpec("int64", "0-d")}],
        bad=[{"src": TensorSpec("float32", "contiguous", (5,))}]),
    Row("clone"),
    Row("contiguous"),
    Row("to.dtype"),
    # a copy to another dtype and/or device (Dev("meta") from the Device? pool: a meta result)
    Row("_to_copy", pools={"dtype": [None, Dt("float64")], "pin_memory": [None, False]},
        bad=[{"layout": ot.Lay("sparse_coo")}],
        torch_function=torch.ops.aten._to_copy, torch_ops=True),
    Row("item", shape=(1, 1), bad=[{"self": TensorSpec("float32")}]),
    Row("_local_scalar_dense", shape=(1, 1),
        extra=[{"self": TensorSpec("float32")}, {"self": TensorSpec("int64")}],
        bad=[{"self": TensorSpec("float32", "empty", (0,))}],
        torch_function=torch.ops.aten._local_scalar_dense, torch_ops=True),
    # ---- random ----
    _rand_row("uniform_", in_range("from", 0, "to", 1, closed=True),
              {"self": big(), "from": -2.0, "to": 3.0}, dtypes=FLOATS + ("int64", "complex64"),
              pools={"from": [-2.0], "to": [3.0]}, bad=[{"from": 2.0, "to": 1.0}]),
    _rand_row("normal_", finite, {"self": big(), "mean": 2.0, "std": 0.5},
              dtypes=FLOATS + ("int64", "complex64"), pools={"mean": [2.0], "std": [0.5, 0.0]},
              bad=[{"std": -1.0}]),
    _rand_row("random_.from", random_bound, {"self": big("int64"), "from": -3, "to": 10},
              dtypes=FLOATS + INTS + ("bool",), pools={"from": [2, -3], "to": [10, None]},
              bad=[{"from": 5, "to": 5}]),
    _rand_row("random_.to", random_bound, {"self": big("int64"), "to": 10},
              dtypes=FLOATS + INTS + ("bool",), pools={"to": [10, 1]}, bad=[{"to": 0}]),
    _rand_row("random_", random_bound, {"self": big("int8")}, dtypes=FLOATS + INTS + ("bool",)),
    _rand_row("bernoulli_.Tensor", bernoulli_check(lambda args, arrays: arrays["p"]),
              {"self": big(), "p": big(values="prob")}, dtypes=FLOATS + ("int64", "bool"),
              arg_dtypes={"p": FLOATS}, values={"p": "prob"},
              extra=[{"p": TensorSpec("float32", "contiguous", (4,), "prob")}],
              bad=[{"p": TensorSpec("float32", values="badprob")}]),
    _rand_row("bernoulli_.float", bernoulli_check(lambda args, arrays: args.get("p", 0.5)),
              {"self": big(), "p": 0.3}, dtypes=FLOATS + ("int64", "bool"), bad=[{"p": 1.5}]),
    _rand_row("bernoulli", bernoulli_check(lambda args, arrays: arrays["self"]),
              {"self": big(values="prob")}, values={"self": "prob"},
              bad=[{"self": TensorSpec("float32", values="badprob")}]),
    _rand_row("bernoulli.p", bernoulli_check(lambda args, arrays: args["p"]),
              {"self": big(), "p": 0.3}, bad=[{"p": -0.5}]),
    _rand_row("multinomial", multinomial_check,
              {"self": big(values="weights", shape=(5,)), "num_samples": 20000, "replacement": True},
              dtypes=FLOATS, values={"self": "weights"},
              pools={"num_samples": [2, 1, 4], "replacement": [True]},
              bad=[{"num_samples": 5}, {"num_samples": 0},
                   {"self": TensorSpec("float32", values="negweights")}]),
    _rand_row("rand", UNIT, {"size": (20000,)}, dtypes=FLOATS + ("complex64", "int64")),
    _rand_row("rand.generator", UNIT, {"size": (20000,)}, dtypes=FLOATS + ("complex64", "int64")),
    _rand_row("randn", finite, {"size": (20000,)}, dtypes=FLOATS + ("complex64", "int64")),
    _rand_row("randn.generator", finite, {"size": (20000,)}, dtypes=FLOATS + ("complex64", "int64")),
    _rand_row("randint", RANDINT, {"size": (20000,)}, dtypes=RANDINT_DTYPES,
              pools={"high": [10, 1]}, bad=[{"high": 0}]),
    _rand_row("randint.generator", RANDINT, {"size": (20000,)}, dtypes=RANDINT_DTYPES,
              pools={"high": [10, 1]}, bad=[{"high": 0}]),
    _rand_row("randint.low", RANDINT_LOW, {"size": (20000,)}, dtypes=RANDINT_DTYPES,
              pools={"low": [-3, 0]}, bad=[{"low": 5, "high": 5}]),
    _rand_row("randint.low_generator", RANDINT_LOW, {"size": (20000,)}, dtypes=RANDINT_DTYPES,
              pools={"low": [-3, 0]}, bad=[{"low": 5, "high": 5}]),
    _rand_row("randperm", permutation_check, {"n": 20000}, dtypes=RANDINT_DTYPES,
              pools={"n": [5, 1, 0]}, bad=[{"n": -1}]),
    _rand_row("randperm.generator", permutation_check, {"n": 20000}, dtypes=RANDINT_DTYPES,
              pools={"n": [5, 1, 0]}, bad=[{"n": -1}]),
    _rand_row("rand_like", UNIT, {"self": big()}, dtypes=FLOATS + ("complex64", "int64")),
    _rand_row("rand_like.generator", UNIT, {"self": big()}, dtypes=FLOATS + ("complex64", "int64")),
    _rand_row("randn_like", finite, {"self": big()}, dtypes=FLOATS + ("complex64", "int64")),
    _rand_row("randn_like.generator", finite, {"self": big()}, dtypes=FLOATS + ("complex64", "int64")),
    _rand_row("randint_like", RANDINT, {"self": big()}, dtypes=RANDINT_DTYPES, bad=[{"high": 0}]),
    _rand_row("randint_like.generator", RANDINT, {"self": big()}, dtypes=RANDINT_DTYPES,
              bad=[{"high": 0}]),
    _rand_row("randint_like.low_dtype", RANDINT_LOW, {"self": big()}, dtypes=RANDINT_DTYPES,
              bad=[{"low": 5, "high": 5}]),
    _rand_row("randint_like.low_generator_dtype", RANDINT_LOW, {"self": big()},
              dtypes=RANDINT_DTYPES, bad=[{"low": 5, "high": 5}]),
    # ---- views ----
    Row("view", torch_function=torch.Tensor.view,
        pools={"size": [(-1,), (4, 3), (2, -1), (12,), (2, 2, 3), (3, 4)]},
        bad=[{"size": (5,)}, {"size": (-1, -1)}]),
    Row("select.int", bad=[{"index": 3}, {"index": -4}, {"dim": 2}]),
    Row("transpose.int", pools={"dim0": [0, -1, 1], "dim1": [1, 0, -2]},
        bad=[{"dim0": 2}, {"dim1": -3}]),
    Row("t", bad=[{"self": TensorSpec("float32", "contiguous", (2, 3, 4))}]),
    Row("expand", torch_function=torch.Tensor.expand, shape=(3, 1),
        pools={"size": [(3, 4), (2, 3, 4), (-1, 5), (3, 1), (0, 3, 1), (2, -1, -1)]},
        bad=[{"size": (4, 4)}, {"size": (4,)}, {"size": (-1, 3, 4)}]),
    Row("unsqueeze", pools={"dim": [0, 1, 2, -1, -3]}, bad=[{"dim": 3}, {"dim": -4}]),
    # ---- views and shape ops (issue 8) ----
    Row("as_strided", torch_function=torch.as_strided,
        pools={"size": [(2, 2), (3, 1), (0, 2)], "stride": [(1, 2), (4, 1), (0, 1)],
               "storage_offset": [None, 1, 2]},
        bad=[{"size": (2, 2, 2)}, {"stride": (-1, 1)}, {"size": (40, 40)}, {"storage_offset": -1}]),
    Row("permute", pools={"dims": [(1, 0), (0, 1), (-1, 0)]},
        bad=[{"dims": (0,)}, {"dims": (0, 0)}, {"dims": (0, 2)}]),
    Row("squeeze", shape=(3, 1, 4)),
    Row("squeeze.dim", shape=(3, 1, 4), pools={"dim": [1, 0, -2, -1]}, bad=[{"dim": 3}]),
    Row("squeeze.dims", shape=(3, 1, 4), pools={"dim": [(1,), (0, 1), (), (-2, 2)]},
        generic_bad=False, bad=[{"dim": (3,)}, {"dim": (1, 1)}]),
    Row("slice.Tensor", torch_function=lambda self, *a, **k: torch.ops.aten.slice.Tensor(self, *a, **k),
        torch_ops=True,
        pools={"dim": [0, 1, -1], "start": [None, 1, -2, -10, 10], "end": [None, 3, -1, 100, 0],
               "step": [1, 2, 3]},
        bad=[{"step": 0}, {"dim": 2}]),
    Row("diagonal", shape=(3, 4, 5), pools={"offset": [0, 1, -2, 7], "dim1": [0, 1, -1],
                                               "dim2": [1, 2, -3]},
        bad=[{"dim1": 1, "dim2": 1}, {"dim1": 3}]),
    Row("unfold", pools={"dimension": [0, 1, -1], "size": [2, 3, 1, 0], "step": [1, 2, 5]},
        bad=[{"size": 5}, {"step": 0}, {"dimension": 2}]),
    Row("alias", torch_function=lambda self: torch.ops.aten.alias(self), torch_ops=True),
    Row("view_as_real", dtypes=COMPLEX, layouts=("contiguous", "sliced", "0-d", "empty", "transposed"),
        bad=[{"self": TensorSpec("float32")}]),
    Row("view_as_complex", dtypes=("float32", "float64"), shape=(3, 2),
        layouts=("contiguous", "0-d", "empty"),
        bad=[{"self": TensorSpec("float32", shape=(3, 4))},
             {"self": TensorSpec("float32", "transposed", (2, 2))},
             {"self": TensorSpec("int64", shape=(3, 2))}]),
    Row("reshape", pools={"shape": [(-1,), (4, 3), (2, -1), (2, 2, 3), (12, 1)]},
        bad=[{"shape": (5,)}, {"shape": (-1, -1)}]),
    Row("view_as", shapes={"other": (2, 6)}, bad=[{"other": TensorSpec("float32", shape=(5,))}]),
    Row("reshape_as", shapes={"other": (2, 6)}, bad=[{"other": TensorSpec("float32", shape=(5,))}]),
    Row("flatten.using_ints", shape=(2, 3, 4), pools={"start_dim": [0, 1, -2], "end_dim": [-1, 1, 2]},
        bad=[{"start_dim": 2, "end_dim": 1}, {"start_dim": 3}]),
    Row("unflatten.int", pools={"dim": [1, 0, -1], "sizes": [(2, 2), (-1, 2), (1, 4, 1)]},
        bad=[{"sizes": (3, 3)}, {"sizes": (-1, -1)}, {"dim": 2}]),
    Row("narrow", pools={"dim": [0, 1, -1], "start": [0, 1, -2], "length": [1, 2, 0]},
        bad=[{"start": 5}, {"length": 5}, {"start": 2, "length": 3}]),
    *[Row(f"{name}.intlist", shape=(2, 3, 4),
          pools={"source": [(0,), (0, 1), (-1, 0)], "destination": [(2,), (1, 0), (0, 2)]},
          bad=[{"source": (0, 0), "destination": (1, 2)}, {"source": (3,), "destination": (0,)},
               {"source": (0, 1), "destination": (0,)}])
      for name in ("movedim", "moveaxis")],
    *[Row(f"{name}.int", shape=(2, 3, 4), pools={"source": [0, -1, 2], "destination": [2, 0, -2]},
          bad=[{"source": 3}, {"destination": -4}])
      for name in ("movedim", "moveaxis")],
    Row("swapaxes", pools={"axis0": [0, -1], "axis1": [1, 0]}, bad=[{"axis0": 2}]),
    Row("swapdims", pools={"dim0": [0, -1], "dim1": [1, 0]}, bad=[{"dim0": 2}]),
    Row("expand_as", shape=(3, 1), shapes={"other": (2, 3, 4)},
        bad=[{"other": TensorSpec("float32", shape=(4, 4))}]),
    Row("broadcast_to", shape=(3, 1), pools={"size": [(3, 4), (2, 3, 4), (-1, 5)]},
        bad=[{"size": (4, 4)}, {"size": (4,)}]),
    Row("unbind.int", pools={"dim": [0, 1, -1]}, bad=[{"dim": 2}]),
    Row("split.Tensor", self_keyword="tensor", keyword_names={"split_size": "split_size_or_sections"},
        pools={"split_size": [2, 1, 3, 4, 5], "dim": [0, 1, -1]},
        bad=[{"split_size": -1}, {"dim": 2}]),
    Row("split_with_sizes", pools={"split_sizes": [(1, 2), (3,), (0, 3), (1, 1, 1)], "dim": [0, -2]},
        bad=[{"split_sizes": (1, 1)}, {"split_sizes": (4, -1)}]),
    Row("chunk", pools={"chunks": [2, 1, 3, 5], "dim": [0, 1, -1]}, bad=[{"chunks": 0}, {"dim": 2}]),
    Row("tensor_split.sections", pools={"sections": [2, 1, 3, 5], "dim": [0, 1, -1]},
        bad=[{"sections": 0}, {"dim": 2}]),
    Row("tensor_split.indices", pools={"indices": [(1,), (1, 2), (), (0, 5), (-1,), (2, 1)], "dim": [0, 1]},
        generic_bad=False, bad=[{"dim": 2}]),
    Row("cat", pools={"tensors": [CAT_2, CAT_MIXED, CAT_EMPTY_1D, CAT_ONE, CAT_STRIDED],
                      "dim": [0, 1, -1, -2]},
        bad=[{"tensors": CAT_BAD_SIZES}, {"tensors": CAT_BAD_DIMS}, {"tensors": ()},
             {"tensors": (TensorSpec("float32", "0-d"),)}, {"dim": 2}]),
    Row("cat.out", pools={"tensors": [CAT_2, CAT_MIXED, CAT_EMPTY_1D], "dim": [0, 1, -1]},
        outs=("float32", "float64", "complex64"),
        bad=[{"tensors": CAT_BAD_SIZES}, {"tensors": CAT_2, "out": TensorSpec("int64", shape=(0,))}]),
    Row("concat", pools={"tensors": [CAT_2, CAT_MIXED], "dim": [0, 1]}, bad=[{"tensors": CAT_BAD_SIZES}]),
    Row("concatenate", pools={"tensors": [CAT_2, CAT_MIXED], "dim": [0, 1]},
        bad=[{"tensors": CAT_BAD_SIZES}]),
    Row("stack", pools={"tensors": [CAT_2, CAT_ONE, (TensorSpec("int64", shape=(3, 4)),) * 3,
                                    (TensorSpec("float32", "0-d"),) * 2], "dim": [0, 1, 2, -1]},
        bad=[{"tensors": CAT_BAD_SIZES}, {"tensors": ()}, {"dim": 3}]),
    *[Row(name, pools={"tensors": [CAT_2, CAT_ONE, STACK_1D, STACK_0D, CAT_3D]},
          bad=[{"tensors": ()}, {"tensors": CAT_BAD_SIZES3}])
      for name in ("hstack", "vstack", "dstack")],
    *[Row(name, keywords=False, extra=[{"self": TensorSpec("float32", "contiguous", (2, 3, 4))},
                       {"self": TensorSpec("float32", "contiguous", (5,))}])
      for name in ("atleast_1d", "atleast_2d", "atleast_3d")],
    Row("flip", pools={"dims": [(0,), (1,), (0, 1), (), (-1,)]}, bad=[{"dims": (0, 0)}, {"dims": (2,)}]),
    Row("fliplr", bad=[{"self": TensorSpec("float32", shape=(4,))}]),
    Row("flipud", bad=[{"self": TensorSpec("float32", "0-d")}]),
    Row("roll", pools={"shifts": [(1,), (-1,), (5,), (1, 2), (0,)], "dims": [(), (0,), (1,), (0, 1), (-1,)]},
        extra=[{"shifts": (1, -7), "dims": (0, 1)}, {"shifts": (13,), "dims": ()}],
        bad=[{"shifts": (1, 2), "dims": (0,)}, {"shifts": (), "dims": ()}, {"dims": (2,)}]),
    Row("rot90", pools={"k": [1, 2, 3, 0, -1, 5], "dims": [(0, 1), (1, 0), (-1, 0)]},
        bad=[{"dims": (0,)}, {"dims": (0, 0)}, {"self": TensorSpec("float32", shape=(4,))}]),
    Row("repeat", pools={"repeats": [(2, 3), (1, 1), (2, 1, 2), (0, 2), (1, 2, 1, 2)]},
        bad=[{"repeats": (2,)}, {"repeats": (2, -1)}]),
    Row("tile", pools={"dims": [(2, 3), (2,), (2, 1, 2), (0, 2), ()]}, bad=[{"dims": (2, -1)}]),
    Row("repeat_interleave.self_int", pools={"repeats": [2, 0, 1], "dim": [None, 0, 1, -1]},
        bad=[{"repeats": -1}, {"dim": 2}]),
    Row("repeat_interleave.self_Tensor", arg_dtypes={"repeats": ("int64", "int32")},
        shapes={"repeats": (3,)}, values={"repeats": "counts"}, pools={"dim": [0, None]},
        layouts=("contiguous", "0-d"), extra=[{"repeats": TensorSpec("int64", "0-d", (), "counts")}],
        bad=[{"repeats": TensorSpec("int64", shape=(5,), values="counts")},
             {"repeats": TensorSpec("float32", shape=(3,), values="counts")}]),
    Row("repeat_interleave.Tensor", dtypes=("int64", "int32"), shape=(4,), values={"repeats": "counts"},
        layouts=("contiguous", "sliced", "empty"),
        bad=[{"repeats": TensorSpec("int64", shape=(2, 2), values="counts")},
             {"repeats": TensorSpec("float32", shape=(4,), values="counts")}]),
    *[Row(name, pools={"diagonal": [0, 1, -1, 5, -5]}, extra=[{"self": TensorSpec("float32", "contiguous", (2, 3, 4))}],
          bad=[{"self": TensorSpec("float32", shape=(4,))}],
          layouts=ot.LAYOUTS if name in ("tril", "triu") else INPLACE_LAYOUTS)
      for name in ("tril", "tril_", "triu", "triu_")],
    Row("diag_embed", pools={"offset": [0, 1, -2], "dim1": [-2, 0, 2], "dim2": [-1, 1, 0]},
        bad=[{"dim1": 0, "dim2": 0}, {"dim1": 3}, {"self": TensorSpec("float32", "0-d")}]),
    Row("diag", pools={"diagonal": [0, 1, -1, 4, -6]},
        extra=[{"self": TensorSpec("float32", "contiguous", (4,))},
               {"self": TensorSpec("int64", "sliced", (7,)), "diagonal": -2}],
        bad=[{"self": TensorSpec("float32", shape=(2, 3, 4))}, {"self": TensorSpec("float32", "0-d")}]),
    *[Row(name, dtypes=("int64", "int32"), pools={"row": [4, 0, 1], "col": [3, 0, 6], "offset": [0, 1, -2, 9]},
          bad=[{"row": -1}, {"dtype": Dt("float32")}])
      for name in ("tril_indices", "triu_indices")],
    Row("index_select", arg_dtypes={"index": ("int64", "int32")}, shapes={"index": (5,)},
        values={"index": "index3"}, pools={"dim": [0, 1, -1]},
        extra=[{"index": TensorSpec("int64", "0-d", (), "index3")},
               {"index": TensorSpec("int64", "contiguous", (0,), "index3")},
               {"self": TensorSpec("float32", "0-d", ()), "dim": 0, "index": TensorSpec("int64", "0-d", (), "zero")},
               {"self": TensorSpec("float64", "contiguous", (300, 40)), "dim": 1}],
        bad=[{"index": TensorSpec("float32", shape=(2,), values="index3")},
             {"index": TensorSpec("int64", shape=(2, 2), values="index3")},
             {"index": TensorSpec("int64", shape=(2,), values="big")}, {"dim": 2}]),
    Row("index_select.out", arg_dtypes={"index": ("int64",)}, shapes={"index": (5,)},
        values={"index": "index3"}, pools={"dim": [0, 1]}, dtypes=("float32", "int64", "bool"),
        bad=[{"out": TensorSpec("float64", "empty", (0,))}]),
    *[Row(name, arg_dtypes={"index": ("int64", "int32")}, shapes={"index": (5,), "source": (5, 4)},
          values={"index": "index3"}, pools={"dim": [0], "alpha": [1, 2, -0.5]},
          dtypes=("float32", "float64", "int64", "int32", "bool", "complex64", "float16"),
          layouts=("contiguous", "transposed", "sliced"),
          extra=[{"dim": 1, "source": TensorSpec("float32", shape=(3, 5)), "index": TensorSpec("int64", shape=(5,), values="index3")}],
          bad=[{"index": TensorSpec("int64", shape=(5,), values="big")},
               {"source": TensorSpec("float32", shape=(4, 4))}, {"dim": 2}])
      for name in ("index_add", "index_add_")],
    *[Row(name, arg_dtypes={"index": ("int64",)}, shapes={"index": (2,), "source": (2, 4)},
          values={"index": "distinct"}, pools={"dim": [0]},
          dtypes=("float32", "float64", "int64", "bool", "complex64", "float16"),
          layouts=("contiguous", "transposed", "sliced"),
          extra=[{"dim": 1, "source": TensorSpec("float32", shape=(3, 2)),
                  "index": TensorSpec("int64", shape=(2,), values="distinct")}],
          bad=[{"index": TensorSpec("int64", shape=(2,), values="big")},
               {"source": TensorSpec("float32", shape=(4, 4))}, {"dim": 2},
               {"index": TensorSpec("int32", shape=(2,), values="distinct")}])
      for name in ("index_copy", "index_copy_")],
    *[Row(name, values={"index": "index3"},
          pools={"dim": [0, 1, -1], "value": [2, -1.5, True]} if name.endswith("Scalar") else {"dim": [0, 1, -1]},
          dtypes=("float32", "float64", "int64", "bool", "complex64", "float16"),
          shapes={"index": (2,)} if name.endswith("Scalar") else {"index": (2,), "value": ()},
          arg_dtypes={"index": ("int64",)} if name.endswith("Scalar") else
          {"index": ("int64",), "value": ("float32", "float64")},
          layouts=("contiguous", "transposed", "sliced", "0-d"),
          bad=[{"index": TensorSpec("int64", shape=(2,), values="big")}, {"dim": 2}])
      for name in ("index_fill.int_Scalar", "index_fill_.int_Scalar", "index_fill.int_Tensor",
                   "index_fill_.int_Tensor")],
    Row("gather", arg_dtypes={"index": ("int64",)}, values={"index": "index3"}, pools={"dim": [0, 1, -1]},
        extra=[{"index": TensorSpec("int64", "contiguous", (2, 3), "index3")},
               {"index": TensorSpec("int32", "contiguous", (2, 3), "index3")},
               {"self": TensorSpec("float64", "contiguous", (300, 200)),
                "index": TensorSpec("int64", "transposed", (300, 100), "index3"), "dim": 1}],
        bad=[{"index": TensorSpec("int64", values="big")}, {"index": TensorSpec("float32", values="index3")},
             {"index": TensorSpec("int64", shape=(4, 5), values="index3"), "dim": 0},
             {"index": TensorSpec("int64", shape=(12,), values="index3")}, {"dim": 2}]),
    Row("gather.out", arg_dtypes={"index": ("int64",)}, values={"index": "index3"}, pools={"dim": [0, 1]},
        dtypes=("float32", "int64", "bool"), bad=[{"out": TensorSpec("float64", "empty", (0,))}]),
    *[Row(name, arg_dtypes={"index": ("int64",)}, shapes={"index": (1, 4), "src": (1, 4)},
          values={"index": "index3"}, pools={"dim": [0]},
          extra=[{"dim": 1, "index": TensorSpec("int64", shape=(3, 1), values="index3"),
                  "src": TensorSpec("float32", shape=(3, 2))}],
          layouts=ot.LAYOUTS if "_" not in name.split(".")[0] else INPLACE_LAYOUTS,
          bad=[{"index": TensorSpec("int64", shape=(1, 4), values="big")}, {"dim": 2},
               {"src": TensorSpec("float32", "0-d", ())}])
      for name in ("scatter.src", "scatter_.src")],
    *[Row(name, arg_dtypes={"index": ("int64",)}, shapes={"index": (1, 4)}, values={"index": "index3"},
          pools={"dim": [0], "value": [2, -1.5, True]},
          extra=[{"dim": 1, "index": TensorSpec("int64", shape=(3, 1), values="index3")}],
          layouts=ot.LAYOUTS if "_" not in name.split(".")[0] else INPLACE_LAYOUTS,
          bad=[{"index": TensorSpec("int64", shape=(1, 4), values="big")}, {"dim": 2}])
      for name in ("scatter.value", "scatter_.value")],
    *[Row(name, arg_dtypes={"index": ("int64",)}, shapes={"index": (3, 4), "src": (3, 4)},
          values={"index": "index3"}, pools={"dim": [0, 1, -1]},
          layouts=ot.LAYOUTS if not name.endswith("_") else INPLACE_LAYOUTS,
          extra=[{"index": TensorSpec("int64", shape=(2, 3), values="index3")}],
          bad=[{"index": TensorSpec("int64", values="big")}, {"dim": 2},
               {"src": TensorSpec("float32", shape=(2, 2))}])
      for name in ("scatter_add", "scatter_add_")],
    *[Row(name, arg_dtypes={"index": ("int64",)}, shapes={"index": (3, 4), "src": (3, 4)},
          values={"index": "index3"}, pools={"dim": [0, 1], "reduce": ["sum", "prod", "mean", "amax", "amin"],
                                             "include_self": [True, False]},
          dtypes=("float32", "float64", "int64", "int32", "bool", "float16"),
          layouts=ot.LAYOUTS if not name.endswith("_") else INPLACE_LAYOUTS,
          extra=[{"reduce": r, "include_self": i, "dim": d}
                 for r in ("sum", "prod", "mean", "amax", "amin") for i in (True, False) for d in (0, 1)],
          bad=[{"reduce": "foo"}, {"index": TensorSpec("int64", values="big")}, {"dim": 2}])
      for name in ("scatter_reduce.two", "scatter_reduce_.two")],
    Row("take", arg_dtypes={"index": ("int64",)}, shapes={"index": (2, 3)}, values={"index": "wrap"},
        extra=[{"index": TensorSpec("int64", "contiguous", (0,), "wrap")}],
        bad=[{"index": TensorSpec("int64", shape=(2,), values="huge")},
             {"index": TensorSpec("int32", shape=(2,), values="wrap")}]),
    *[Row(name, arg_dtypes={"index": ("int64",)}, shapes={"index": (4,), "source": (4,)},
          values={"index": "distinct"}, pools={"accumulate": [False, True]},
          layouts=ot.LAYOUTS if not name.endswith("_") else INPLACE_LAYOUTS,
          bad=[{"index": TensorSpec("int64", shape=(4,), values="huge")},
               {"source": TensorSpec("float32", shape=(3,))}])
      for name in ("put", "put_")],
    Row("take_along_dim", arg_dtypes={"indices": ("int64",)}, values={"indices": "index3"},
        pools={"dim": [None, 0, 1, -1]},
        extra=[{"indices": TensorSpec("int64", shape=(3, 1), values="index3"), "dim": 1},
               {"indices": TensorSpec("int64", shape=(1, 2), values="index3"), "dim": 0}],
        bad=[{"indices": TensorSpec("int32", values="index3"), "dim": 0},
             {"indices": TensorSpec("int64", shape=(3,), values="index3"), "dim": 0}]),
    *[Row(name, arg_dtypes={"mask": ("bool",), **({} if "Scalar" in name else {"value": ("float32", "int64", "bool")})},
          shapes={"mask": (4,), **({} if "Scalar" in name else {"value": ()})},
          pools={"value": [2, -1.5, True]} if "Scalar" in name else {},
          dtypes=("float32", "float64", "int64", "int32", "bool", "complex64", "float16", "bfloat16"),
          layouts=ot.LAYOUTS if "fill_" not in name else INPLACE_LAYOUTS,
          extra=[{"mask": TensorSpec("bool", "contiguous", (3, 4))}, {"mask": TensorSpec("bool", "transposed", (3, 4))}],
          bad=[{"mask": TensorSpec("float32", shape=(4,))}, {"mask": TensorSpec("bool", shape=(5,))}]
              + ([] if "Scalar" in name else [{"value": TensorSpec("float32", shape=(2,))}]))
      for name in ("masked_fill.Scalar", "masked_fill_.Scalar", "masked_fill.Tensor", "masked_fill_.Tensor")],
    Row("masked_select", arg_dtypes={"mask": ("bool",)}, shapes={"mask": (4,)},
        extra=[{"mask": TensorSpec("bool", "contiguous", (3, 4))}, {"mask": TensorSpec("bool", "transposed", (2, 3, 4))},
               {"self": TensorSpec("float32", "contiguous", (400, 300)), "mask": TensorSpec("bool", "contiguous", (400, 300))}],
        bad=[{"mask": TensorSpec("float32", shape=(4,))}, {"mask": TensorSpec("bool", shape=(5,))}]),
    Row("masked_select.out", arg_dtypes={"mask": ("bool",)}, shapes={"mask": (4,)}, dtypes=("float32", "int64", "bool"),
        bad=[{"out": TensorSpec("float64", "empty", (0,))}]),
    *[Row(name, arg_dtypes={"mask": ("bool",)}, shapes={"mask": (4,), "source": (12,)},
          layouts=ot.LAYOUTS if not name.endswith("_") else INPLACE_LAYOUTS,
          extra=[{"mask": TensorSpec("bool", "transposed", (3, 4)), "source": TensorSpec("float32", "contiguous", (3, 5))}],
          bad=[{"mask": TensorSpec("float32", shape=(4,))}, {"source": TensorSpec("float32", shape=(2,))},
               {"mask": TensorSpec("bool", shape=(5,))}])
      for name in ("masked_scatter", "masked_scatter_")],
    Row("nonzero", extra=[{"self": TensorSpec("float32", "contiguous", (2, 3, 4))},
                          {"self": TensorSpec("bool", "contiguous", (500, 300))}]),
    Row("nonzero.out", dtypes=("float32", "bool", "int64"), outs=("int64",),
        bad=[{"out": TensorSpec("float32", "empty", (0,))}]),
    Row("argwhere"),
    Row("index.Tensor", torch_function=lambda self, indices: torch.ops.aten.index.Tensor(self, indices),
        torch_ops=True,
        pools={"indices": [(TensorSpec("int64", shape=(5,), values="index3"),),
                           (TensorSpec("int64", shape=(2, 1), values="index3"), TensorSpec("int64", shape=(3,), values="index3")),
                           (TensorSpec("int32", shape=(2,), values="wrap"), TensorSpec("int64", "0-d", (), values="index3")),
                           (TensorSpec("bool", shape=(3, 4)),), (TensorSpec("bool", shape=(3,)),),
                           (TensorSpec("bool", "transposed", (3,)), TensorSpec("int64", shape=(1,), values="index3")),
                           (TensorSpec("int64", "contiguous", (0,), values="index3"),),
                           (TensorSpec("uint8", shape=(3,), values="prob"),)]},
        bad=[{"indices": (TensorSpec("float32", shape=(2,)),)},
             {"indices": (TensorSpec("int64", shape=(2,), values="big"),)},
             {"indices": (TensorSpec("bool", shape=(4,)),)},
             {"indices": (TensorSpec("int64", shape=(2,), values="index3"),) * 3},
             {"indices": (TensorSpec("int64", shape=(2,), values="index3"), TensorSpec("int64", shape=(3,), values="index3"))}]),
    *[Row(name, torch_function=getattr(torch.Tensor, name), shapes={"values": (4,)},
          arg_dtypes={"values": ALL},
          pools={"indices": [(TensorSpec("int64", shape=(2,), values="distinct"),),
                             (TensorSpec("bool", shape=(3,)),),
                             (TensorSpec("bool", shape=(3, 4)),)],
                 "accumulate": [False, True]},
          layouts=ot.LAYOUTS if not name.endswith("_") else INPLACE_LAYOUTS,
          extra=[{"values": TensorSpec("float32", "0-d", ())},
                 {"indices": (TensorSpec("int64", shape=(3,), values="index3"),), "accumulate": True,
                  "values": TensorSpec("float32", shape=(3, 4))}],
          bad=[{"values": TensorSpec("float32", shape=(5,))},
               {"indices": (TensorSpec("int64", shape=(2,), values="big"),)}])
      for name in ("index_put_", "index_put")],
    Row("sort.stable", pools={"stable": [True, False, None], "dim": [0, 1, -1], "descending": [False, True]},
        values={"self": "ties"}, dtypes=ORDERED + ("complex64",),
        extra=[{"self": TensorSpec("float32", values="edge"), "stable": True},
               {"self": TensorSpec("float32", values="edge"), "stable": True, "descending": True},
               {"self": TensorSpec("float32", "contiguous", (70000,)), "stable": True}],
        bad=[{"dim": 2}]),
    Row("sort", pools={"dim": [0, 1, -1], "descending": [False, True]}, values={"self": "distinct"},
        dtypes=ORDERED, bad=[{"dim": 2}]),
    Row("argsort", pools={"dim": [0, 1, -1], "descending": [False, True]}, values={"self": "distinct"},
        dtypes=ORDERED, bad=[{"dim": 2}]),
    Row("argsort.stable", pools={"stable": [True], "dim": [0, -1], "descending": [False, True]},
        values={"self": "ties"}, dtypes=ORDERED, bad=[{"dim": 2}]),
    Row("msort", values={"self": "distinct"}, dtypes=ORDERED),
    Row("topk", pools={"k": [2, 0, 3, 1], "dim": [0, 1, -1], "largest": [True, False], "sorted": [True]},
        values={"self": "distinct"}, dtypes=ORDERED + ("complex64",),
        extra=[{"self": TensorSpec("float32", values="edge"), "k": 3},
               {"self": TensorSpec("float64", "contiguous", (200, 300), "distinct"), "k": 10}],
        bad=[{"k": 5}, {"k": -1}, {"dim": 2}]),
    Row("kthvalue", pools={"k": [1, 2, 3], "dim": [0, 1, -1], "keepdim": [False, True]},
        values={"self": "distinct"}, dtypes=ORDERED, bad=[{"k": 0}, {"k": 5}, {"dim": 2}]),
    Row("median", values={"self": "distinct"}, dtypes=ORDERED,
        extra=[{"self": TensorSpec("float32", values="nan")}, {"self": TensorSpec("float64", values="edge")}]),
    # PyTorch's median.dim reads garbage from a stride-0 (broadcast) input: that layout is left out.
    Row("median.dim", pools={"dim": [0, 1, -1], "keepdim": [False, True]}, values={"self": "distinct"},
        layouts=tuple(x for x in ot.LAYOUTS if x != "broadcast"),
        dtypes=ORDERED, extra=[{"self": TensorSpec("float32", values="nan"), "dim": 1}], bad=[{"dim": 2}]),
    Row("nanmedian", values={"self": "distinct"}, dtypes=FLOATS,
        extra=[{"self": TensorSpec("float32", values="nan")}, {"self": TensorSpec("float64", values="edge")}]),
    Row("mode", pools={"dim": [0, 1, -1], "keepdim": [False, True]}, values={"self": "ties"},
        dtypes=ORDERED, bad=[{"dim": 2}]),
    Row("_unique2", torch_function=torch._unique2, pools={"sorted": [True], "return_inverse": [False, True],
                                                         "return_counts": [False, True]},
        values={"self": "ties"}, dtypes=ORDERED),
    Row("unique_dim", torch_function=torch.ops.aten.unique_dim, torch_ops=True, shape=(4, 3), values={"self": "ties"},
        pools={"dim": [0, 1, -1], "sorted": [True], "return_inverse": [False, True], "return_counts": [False, True]},
        dtypes=("float32", "int64", "bool"), bad=[{"dim": 2}]),
    Row("unique_consecutive", pools={"return_inverse": [False, True], "return_counts": [False, True],
                                     "dim": [None, 0, 1]},
        values={"self": "ties"}, dtypes=ORDERED, keywords=False,
        torch_function=lambda input, return_inverse=False, return_counts=False, dim=None: torch.unique_consecutive(
            input, return_inverse=return_inverse, return_counts=return_counts, dim=dim),
        bad=[{"dim": 2}]),
    Row("searchsorted.Tensor", shapes={"sorted_sequence": (5,), "self": (3, 4)},
        values={"sorted_sequence": "sorted"}, dtypes=("float32", "float64", "int64", "int32"),
        layouts=("contiguous", "transposed", "0-d", "empty"),
        pools={"out_int32": [False, True], "right": [False, True], "side": [None, "left", "right"]},
        extra=[{"sorted_sequence": TensorSpec("float32", shape=(3, 5), values="sorted")},
               {"sorted_sequence": TensorSpec("float32", shape=(5,), values="perm"),
                "sorter": TensorSpec("int64", shape=(5,), values="argsort")}],
        bad=[{"side": "middle"}, {"side": "left", "right": True},
             {"sorted_sequence": TensorSpec("float32", shape=(2, 5), values="sorted")},
             {"sorted_sequence": TensorSpec("float32", "0-d", ())}]),
    Row("searchsorted.Scalar", shapes={"sorted_sequence": (5,)}, values={"sorted_sequence": "sorted"},
        dtypes=("float32", "float64", "int64"), layouts=("contiguous", "empty"),
        pools={"self": [0.5, 2, -3, 10], "right": [False, True]},
        bad=[{"sorted_sequence": TensorSpec("float32", shape=(2, 5), values="sorted")}]),
    Row("bucketize.Tensor", shapes={"boundaries": (5,)}, values={"boundaries": "sorted"},
        dtypes=("float32", "float64", "int64", "int32"), layouts=("contiguous", "transposed", "0-d", "empty"),
        pools={"out_int32": [False, True], "right": [False, True]},
        bad=[{"boundaries": TensorSpec("float32", shape=(2, 5), values="sorted")}]),
    Row("bucketize.Scalar", shapes={"boundaries": (5,)}, values={"boundaries": "sorted"},
        dtypes=("float32", "int64"), layouts=("contiguous", "empty"),
        pools={"self": [0.5, 2, -3, 10], "right": [False, True]},
        bad=[{"boundaries": TensorSpec("float32", shape=(2, 5), values="sorted")}]),
    Row("histc", dtypes=("float32", "float64", "int64"), pools={"bins": [100, 4, 1], "min": [0, -1], "max": [0, 1]},
        extra=[{"bins": 5, "min": -2, "max": 2}, {"bins": 7, "min": -1.5, "max": 0.25}],
        bad=[{"bins": 0}, {"min": 2, "max": 1}]),
    Row("bincount", dtypes=("int64", "int32", "uint8"), shape=(6,), values={"self": "counts"},
        arg_dtypes={"weights": ("float32", "float64", "int64")}, shapes={"weights": (6,)},
        layouts=("contiguous", "sliced", "empty"), pools={"minlength": [0, 2, 9]},
        bad=[{"self": TensorSpec("int64", shape=(2, 3), values="counts")}, {"minlength": -1},
             {"self": TensorSpec("float32", shape=(6,), values="counts")},
             {"self": TensorSpec("int64", shape=(6,), values="wrap")}]),
    Row("meshgrid.indexing", torch_function=lambda tensors, indexing: torch.meshgrid(*tensors, indexing=indexing),
        keywords=False,
        pools={"tensors": [(TensorSpec("float32", shape=(3,)), TensorSpec("float32", shape=(2,))),
                           (TensorSpec("int64", shape=(3,)), TensorSpec("int64", "0-d", ()), TensorSpec("int64", shape=(4,))),
                           (TensorSpec("float32", shape=(5,)),)],
               "indexing": ["ij", "xy"]},
        bad=[{"indexing": "yx"}, {"tensors": (TensorSpec("float32", shape=(2, 2)),)}]),
    Row("cartesian_prod", keywords=False, torch_function=lambda tensors: torch.cartesian_prod(*tensors),
        pools={"tensors": [(TensorSpec("float32", shape=(3,)), TensorSpec("float32", shape=(2,))),
                           (TensorSpec("int64", shape=(3,)),),
                           (TensorSpec("int64", shape=(2,)), TensorSpec("int64", shape=(2,)), TensorSpec("int64", shape=(3,)))]},
        bad=[{"tensors": (TensorSpec("float32", shape=(2, 2)),)}]),
    Row("combinations", shape=(4,), layouts=("contiguous", "sliced", "empty"),
        pools={"r": [2, 0, 1, 3, 5], "with_replacement": [False, True]},
        bad=[{"r": -1}, {"self": TensorSpec("float32", shape=(2, 2))}]),
    # ---- binary arithmetic ----
    *[Row(f"{op}{form}", pools={"alpha": [1, 2, -0.5]} if op in ("add", "sub") else {},
          shapes={"other": (4,)}, arg_dtypes={"other": MIXED},
          bad=[{"other": TensorSpec("float32", "contiguous", (2,))}])
      for op in ("add", "sub", "mul", "div") for form in (".out", ".Tensor")],
    *[Row(f"{op}_.Tensor", pools={"alpha": [1, 2]} if op in ("add", "sub") else {},
          shapes={"other": (4,)}, bad=[{"other": TensorSpec("float32", "contiguous", (3, 1, 4))}])
      for op in ("add", "sub", "mul", "div")],
    *[Row(f"{op}{form}", pools={
          "other": [2, -1.5, True, 1 + 2j, 0], **({"alpha": [1, 3]} if op in ("add", "sub") else {})})
      for op in ("add", "sub", "mul", "div") for form in (".Scalar", "_.Scalar")],
    # ---- unary elementwise ----
    *[Row(f"{op}{form}", extra=EDGE if op == "abs" else [])
      for op in UNARY for form in (".out", "", "_")],
    *[Row(op) for op in ("isnan", "isinf", "isfinite", "signbit")],
    # ---- comparisons ----
    *[Row(f"{op}{form}", shapes={"other": (4,)}, arg_dtypes={"other": MIXED},
          pools={"other": [2, -1.5, True, 0]} if form == ".Scalar" else {})
      for op in ("eq", "ne", "lt", "le", "gt", "ge") for form in (".Tensor_out", ".Tensor", ".Scalar")],
    # ---- binary: rounding division, powers, min/max, bitwise and logical ----
    # Tensor-Tensor families (out=, functional, in-place): the second operand broadcasts from
    # (4,) over MIXED dtypes; divisions take nonzero divisors, with zero divisors as bad calls
    # for integers (ZeroDivisionError) and as extras for floats (inf/nan); boundary values
    # (inf, nan, -0.0, integer extremes) in every dtype as extras.
    *[Row(key, dtypes=ALL if not bitwise else INTS + ("bool",) + FLOATS + ot.COMPLEX,
          pools={"rounding_mode": ["trunc", "floor", None]},
          shapes={arg: (4,)},
          arg_dtypes={arg: (("int64", "int32", "int16", "int8", "uint8", "bool", "float32")
                            if bitwise else MIXED)} if not inplace else {},
          values={arg: "nonzero"} if dividing else {},
          extra=[{"self": TensorSpec(d, "contiguous", (3, 4), "special"),
                  arg: TensorSpec(d, "contiguous", (4,), "nonzero" if dividing else "special"),
                  **({"rounding_mode": mode} if key.startswith("div") else {})}
                 for d in INTS + FLOATS + ("bool",) for mode in ("trunc", "floor")
                 if mode == "trunc" or key.startswith("div")]
                + [{"self": TensorSpec(d, "contiguous", (3, 4), "special"),
                    arg: TensorSpec(d, "contiguous", (3, 4), "special")} for d in FLOATS]
                + ([{arg: TensorSpec(d, "contiguous", (4,), "zero")} for d in FLOATS]
                   if dividing else []),
          bad=([{arg: TensorSpec("float32", "contiguous", (3, 1, 4) if inplace else (2,))}]
               + ([{"self": TensorSpec(d), arg: TensorSpec(d, "contiguous", (4,), "zero")}
                   for d in ("int64", "int32", "uint8")] if dividing else [])
               + ([{"rounding_mode": "round"}] if key.startswith("div") else [])))
      for family, arg in (
          (("div.out_mode", "div.Tensor_mode", "div_.Tensor_mode"), "other"),
          (("floor_divide.out", "floor_divide", "floor_divide_.Tensor"), "other"),
          (("remainder.Tensor_out", "remainder.Tensor", "remainder_.Tensor"), "other"),
          (("fmod.Tensor_out", "fmod.Tensor", "fmod_.Tensor"), "other"),
          (("pow.Tensor_Tensor_out", "pow.Tensor_Tensor", "pow_.Tensor"), "exponent"),
          (("maximum.out", "maximum", "minimum.out", "minimum", "fmax.out", "fmax", "fmin.out",
            "fmin", "max.other", "min.other"), "other"),
          (("atan2.out", "atan2", "atan2_", "arctan2.out", "arctan2", "arctan2_", "hypot.out",
            "hypot", "hypot_", "copysign.out", "copysign.Tensor", "copysign_.Tensor", "logaddexp.out",
            "logaddexp"), "other"),
          (tuple(f"bitwise_{op}{form}" for op in ("and", "or", "xor", "left_shift", "right_shift")
                 for form in (".Tensor_out", ".Tensor", "_.Tensor")), "other"),
          (tuple(f"logical_{op}{form}" for op in ("and", "or", "xor")
                 for form in (".out", "", "_")), "other"))
      for key in family
      for inplace in ["_." in key or key.endswith("_")]
      for dividing in [key.split("_.")[0].split(".")[0] in ("div", "floor_divide", "remainder", "fmod")]
      for bitwise in [key.startswith("bitwise")]],
    # Number operands (self a tensor): the number over ints, floats, bool, zero and complex.
    *[Row(key, dtypes=INTS + ("bool",) + FLOATS + ot.COMPLEX if key.startswith("bitwise") else ALL,
          pools={"rounding_mode": ["trunc", "floor", None],
                 arg: ([2, -3, True, 1000, -1, 0, 1.5, 1 + 2j] if key.startswith("bitwise")
                       else [2, 3, 0.5, -0.5, -1, -2, 0, 1, 2.5, True, 1 + 2j, -3]
                       if arg == "exponent" else [2, -1.5, True, 0, -3, 0.25, 1 + 2j])},
          extra=[{"self": TensorSpec(d, "contiguous", (3, 4), "special"), arg: v,
                  **({"rounding_mode": "floor"} if key.startswith("div") else {})}
                 for d in INTS + FLOATS for v in (2, -3, 0.5)
                 if not (arg == "exponent" and v == -3 and d in INTS)],
          bad=[{"self": TensorSpec("int64"), arg: -2} if arg == "exponent" else
               {"self": TensorSpec("float32"), arg: 1} if key.startswith("bitwise") else
               {arg: 1 + 2j} if key.startswith("copysign") else
               {"self": TensorSpec("int64"), arg: 0}]
              + ([{"rounding_mode": "round"}] if key.startswith("div") else []))
      for key, arg in (
          *[(k, "other") for k in ("div.Scalar_mode_out", "div.Scalar_mode", "div_.Scalar_mode")],
          *[(f"{op}{form}", "other") for op in ("floor_divide", "remainder", "fmod", "copysign")
            for form in (".Scalar_out", ".Scalar", "_.Scalar")],
          *[(f"bitwise_{op}{form}", "other") for op in ("and", "or", "xor")
            for form in (".Scalar_out", ".Scalar", "_.Scalar")],
          *[(f"bitwise_{op}_shift{form}", "other") for op in ("left", "right")
            for form in (".Tensor_Scalar_out", ".Tensor_Scalar", "_.Tensor_Scalar")],
          *[(k, "exponent") for k in ("pow.Tensor_Scalar_out", "pow.Tensor_Scalar", "pow_.Scalar")])],
    # A number first: self a number, the tensor second.
    *[Row(key, dtypes=INTS + ("bool",) + FLOATS + ot.COMPLEX if key.startswith("bitwise") else ALL,
          self_keyword="self", values={arg: "nonzero"} if key.startswith("remainder") else {},
          pools={"self": ([2, -3, True, 1000, 1.5] if key.startswith("bitwise")
                          else [2, -1.5, True, 1, 0, 7, 2.5 + 1j])},
          extra=[{"self": v, arg: TensorSpec(d, "contiguous", (3, 4), "special")}
                 for d in INTS + FLOATS for v in (3, -2, 0.5)],
          bad=[{"self": 2, arg: TensorSpec("int64", "contiguous", (3, 4), "zero")}
               if key.startswith("remainder") else
               {"self": True, arg: TensorSpec("bool")} if key.startswith("pow") else
               {"self": 2, arg: TensorSpec("float32")}])
      for key, arg in (("remainder.Scalar_Tensor", "other"), ("pow.Scalar", "exponent"),
                       ("pow.Scalar_out", "exponent"),
                       *[(f"bitwise_{op}.Scalar_Tensor", "other")
                         for op in ("and", "or", "xor", "left_shift", "right_shift")])],
    # Unary: bitwise_not (integers and bool) and logical_not (any dtype, bool result).
    *[Row(key, dtypes=INTS + ("bool",) + FLOATS + ot.COMPLEX if key.startswith("bitwise") else ALL,
          extra=[{"self": TensorSpec(d, "contiguous", (3, 4), "special")} for d in INTS + FLOATS])
      for key in ("bitwise_not.out", "bitwise_not", "bitwise_not_", "logical_not.out",
                  "logical_not", "logical_not_")],

    # ---- (section end) ----
    # ---- unary: activations and special functions ----
    *[Row(f"{op}{form}", extra=EDGE) for op in ("sgn", "square", "lgamma", "digamma")
      for form in (".out", "", "_")],
    # conj_physical returns self for real dtypes, as PyTorch's; its in-place form writes
    # nothing for them in PyTorch (so even a broadcast self passes) and is compared on complex.
    *[Row(op, extra=EDGE) for op in ("conj_physical.out", "conj_physical", "_conj_physical")],
    Row("conj_physical_", dtypes=ot.COMPLEX),
    # conj of a complex tensor is a computed copy (Ember has no conjugate bit; PyTorch's is a
    # lazy view), so only the real dtypes, where both return self, compare aliasing here; the
    # complex values are checked in test_complex_autograd.py.
    Row("conj", dtypes=FLOATS + INTS + ("bool",)),
    *[Row(f"erfinv{form}", values={"self": "unit"}, extra=EDGE) for form in (".out", "", "_")],
    *[Row(f"logit{form}", values={"self": "prob"}, pools={"eps": [0.25, -1.0, 0.0]}, extra=EDGE)
      for form in (".out", "", "_")],
    *[Row(f"round{form}", pools={"decimals": [1, 0, 2, -1]}, extra=EDGE)
      for form in (".decimals_out", ".decimals", "_.decimals")],
    *[Row(f"nan_to_num{form}", pools={"nan": [1.5], "posinf": [100.0, 1e300], "neginf": [-100.0]},
          extra=EDGE + [{"self": TensorSpec("float16", values="edge"), "posinf": 1e300}])
      for form in (".out", "", "_")],
    *[Row(op, extra=EDGE) for op in ("relu", "relu_", "relu6", "relu6_", "selu", "selu_")],
    *[Row(op, pools={"alpha": [0.5, 2, True]}, extra=EDGE, bad=[{"alpha": 0}])
      for op in ("celu", "celu_")],
    *[Row(f"hardtanh{form}", pools={"min_val": [-0.5, 0, -2], "max_val": [2.5, 1]},
          extra=EDGE + [{"min_val": 2, "max_val": 1}, {"min_val": 0.5, "max_val": 1.5}],
          bad=[{"self": TensorSpec("uint8"), "min_val": -1}])
      for form in (".out", "", "_")],
    *[Row(f"leaky_relu{form}", pools={"negative_slope": [0.2, 2, True]}, extra=EDGE,
          bad=[{"negative_slope": 1j}]) for form in (".out", "", "_")],
    *[Row(f"elu{form}", pools={"alpha": [0.5, 2], "scale": [1.5], "input_scale": [2, 0.5]},
          extra=EDGE, bad=[{"alpha": 1j}]) for form in (".out", "", "_")],
    *[Row(f"gelu{form}", pools={"approximate": ["tanh", "none"]}, extra=EDGE,
          bad=[{"approximate": "fast"}]) for form in (".out", "", "_")],
    *[Row(f"{op}{form}", extra=EDGE) for op in ("silu", "mish", "hardswish", "hardsigmoid")
      for form in (".out", "", "_")],
    *[Row(f"softplus{form}", pools={"beta": [2, 0.5], "threshold": [1, 0.5]}, extra=EDGE)
      for form in (".out", "")],
    # ---- (section end) ----
    # ---- pointwise with several inputs ----
    *[Row(f"where{form}", shapes={"other": (4,), "condition": (3, 1)},
          arg_dtypes={"condition": ("bool", "uint8", "float32"), "other": MIXED},
          extra=[{"condition": TensorSpec("bool", "contiguous", (3, 4))}],
          bad=[{"other": TensorSpec("float32", "contiguous", (2,))}])
      for form in (".self_out", ".self")],
    *[Row(key, shapes={"condition": (3, 4)}, arg_dtypes={"condition": ("bool", "uint8", "float32")},
          pools={"self": [2, -1.5, True, 1 + 2j], "other": [3, 0.5, False]},
          bad=[{"condition": TensorSpec("int64")}], self_keyword="self")
      for key in ("where.ScalarSelf", "where.Scalar")],
    Row("where.ScalarOther", shapes={"condition": (3, 4)},
        arg_dtypes={"condition": ("bool", "uint8", "float32")}, pools={"other": [2, -1.5, True, 1 + 2j]},
        bad=[{"self": TensorSpec("int8"), "other": 1000}]),
    *[Row(f"{op}{form}", pools={"min": [-1, 0.5, True, None], "max": [1, 2.5, None]},
          extra=EDGE + [{"min": 1, "max": -1}, {"min": float("nan")}, {"max": float("nan")}],
          bad=[{"self": TensorSpec("int8"), "min": 1000}, {"self": TensorSpec("float16"), "min": 1e6}])
      for op in ("clamp", "clip") for form in (".out", "", "_")],
    *[Row(f"{op}{form}", shapes={"min": (4,), "max": (3, 1)}, arg_dtypes={"min": MIXED, "max": MIXED},
          extra=[{"min": None}, {"max": None}, {"min": TensorSpec("float32", "0-d")},
                 {"self": TensorSpec("float32", values="edge"), "min": TensorSpec("float32", values="edge")}],
          bad=[{"min": TensorSpec("float32", "contiguous", (2,))}])
      for op in ("clamp", "clip") for form in (".Tensor_out", ".Tensor", "_.Tensor")],
    *[Row(f"{op}{form}", pools={arg: [-1, 0.5, True, 1000]}, extra=EDGE + [{arg: float("nan")}],
          bad=[{"self": TensorSpec("int8"), arg: 1000}])
      for op, arg in (("clamp_min", "min"), ("clamp_max", "max")) for form in (".out", "", "_")],
    *[Row(f"{op}{form}", shapes={arg: (4,)}, arg_dtypes={arg: MIXED},
          extra=[{arg: TensorSpec("float64", "0-d")}], bad=[{arg: TensorSpec("float32", "contiguous", (2,))}])
      for op, arg in (("clamp_min", "min"), ("clamp_max", "max"))
      for form in (".Tensor_out", ".Tensor", "_.Tensor")],
    *[Row(f"lerp{form}", shapes={"end": (4,)}, pools={"weight": [0.5, 0.75, 2, True, -1.5]},
          extra=[{"self": TensorSpec(d, values="edge")} for d in ("float32", "float64")],
          bad=[{"weight": 1e300}, {"end": TensorSpec("float64")}])
      for form in (".Scalar_out", ".Scalar", "_.Scalar")],
    *[Row(f"lerp{form}", shapes={"end": (4,), "weight": (3, 1)},
          extra=[{"weight": TensorSpec(d, "0-d")} for d in ("float64", "int64", "float32")],
          bad=[{"weight": TensorSpec("float64")}, {"end": TensorSpec("float64")}])
      for form in (".Tensor_out", ".Tensor", "_.Tensor")],
    *[Row(f"{op}{form}", shapes={"tensor1": (4,), "tensor2": (3, 1)},
          arg_dtypes={"tensor1": MIXED, "tensor2": MIXED}, pools={"value": [2, -1.5, True, 0.5]},
          extra=[{"self": TensorSpec("float32", values="edge")}],
          bad=[{"value": 1j}, {"tensor1": TensorSpec("float32", "contiguous", (2,))}])
      for op in ("addcmul", "addcdiv") for form in (".out", "", "_")],
    Row("isclose", shapes={"other": (4,)}, pools={"rtol": [0.1, 0.0], "atol": [0.3, 0.0],
                                                   "equal_nan": [True]},
        extra=[{"self": TensorSpec(d, values="edge"), "other": TensorSpec(d, values="edge", shape=(4,)),
                "equal_nan": nan} for d in FLOATS for nan in (False, True)],
        bad=[{"rtol": -1.0}, {"atol": -0.5}, {"other": TensorSpec("float64", "contiguous", (4,))}]),
    # ---- (section end) ----
    # ---- reductions ----
    *[Row(key, pools={"dim": DIMS_OPT}, extra=REDUCE_EXTRA, bad=BAD_DIMS,
          out_layouts=NO_BROADCAST_OUT)
      for key in ("sum.dim_IntList", "sum.IntList_out", "nansum", "nansum.out")],
    Row("sum", extra=REDUCE_EXTRA),
    *[Row(key, dtypes=FLOATS + ("complex64", "complex128", "int64"), pools={"dim": DIMS_OPT},
          extra=REDUCE_EXTRA, bad=BAD_DIMS + [{"self": TensorSpec("int64")}],
          out_layouts=NO_BROADCAST_OUT)
      for key in ("mean.dim", "mean.out", "nanmean", "nanmean.out")],
    Row("mean", dtypes=FLOATS + ("complex64", "int64"), extra=REDUCE_EXTRA,
        bad=[{"self": TensorSpec("int64")}]),
    Row("prod", extra=REDUCE_EXTRA),
    *[Row(key, pools={"dim": DIMS_INT}, extra=REDUCE_EXTRA, bad=BAD_DIM,
          out_layouts=NO_BROADCAST_OUT)
      for key in ("prod.dim_int", "prod.int_out")],
    *[Row(f"{op}{form}", dtypes=ORDERED, extra=REDUCE_EXTRA + [{"self": NAN_INPUT}],
          bad=[{"self": TensorSpec("float32", "empty", (0, 4))}])
      for op in ("max", "min") for form in ("", ".unary_out")],
    *[Row(f"{op}.dim", dtypes=ORDERED, pools={"dim": DIMS_INT},
          extra=REDUCE_EXTRA + [{"self": NAN_INPUT}, {"self": TIES}],
          bad=BAD_DIM + [{"self": TensorSpec("float32", "empty", (0, 4)), "dim": 0}])
      for op in ("max", "min")],
    *[Row(f"{op}{form}", dtypes=ORDERED, pools={"dim": DIMS_LIST},
          extra=REDUCE_EXTRA + [{"self": NAN_INPUT}],
          bad=BAD_DIMS + [{"self": TensorSpec("float32", "empty", (0, 4)), "dim": 0}])
      for op in ("amax", "amin") for form in ("", ".out")],
    *[Row(f"{op}{form}", dtypes=ORDERED, pools={"dim": DIMS_OPT_INT},
          extra=REDUCE_EXTRA + [{"self": NAN_INPUT}, {"self": TIES}, {"self": TIES, "dim": 1}],
          bad=BAD_DIM + [{"self": TensorSpec("float32", "empty", (0, 4))}],
          outs=("int64", "int32", "float32"))
      for op in ("argmax", "argmin") for form in ("", ".out")],
    Row("aminmax", dtypes=ORDERED, pools={"dim": DIMS_OPT_INT},
        extra=REDUCE_EXTRA + [{"self": NAN_INPUT}],
        bad=BAD_DIM + [{"self": TensorSpec("float32", "empty", (0, 4))}]),
    *[Row(f"{op}{form}", extra=REDUCE_EXTRA, **kw)
      for op in ("all", "any")
      for form, kw in (("", {}), (".all_out", {}),
                       (".dim", {"pools": {"dim": DIMS_INT}, "bad": BAD_DIM}),
                       (".out", {"pools": {"dim": DIMS_INT}, "bad": BAD_DIM}),
                       (".dims", {"pools": {"dim": DIMS_OPT}, "bad": BAD_DIMS}),
                       (".dims_out", {"pools": {"dim": DIMS_OPT}, "bad": BAD_DIMS}))],
    Row("count_nonzero.dim_IntList", pools={"dim": DIMS_LIST}, extra=REDUCE_EXTRA, bad=BAD_DIMS),
    Row("count_nonzero", pools={"dim": DIMS_OPT_INT}, extra=REDUCE_EXTRA, bad=BAD_DIM),
    *[Row(f"{op}{form}", dtypes=INEXACT, pools={"dim": DIMS_OPT, "correction": [None, 0, 1, 2.5]},
          extra=REDUCE_EXTRA + [{"self": TensorSpec("float32", "contiguous", (1, 4))}],
          bad=(BAD_DIMS if form else []) + [{"self": TensorSpec("int64")}],
          out_layouts=NO_BROADCAST_OUT)
      for op in ("var", "std", "var_mean", "std_mean")
      for form in ("", ".dim", ".correction", ".out", ".correction_out")
      if not (op.endswith("_mean") and form.endswith("out"))],
    # torch.norm is a Python function with its own argument handling: the ATen overloads.
    Row("norm.Scalar", dtypes=INEXACT, pools={"p": NORM_ORDS}, extra=REDUCE_EXTRA,
        bad=[{"self": TensorSpec("int64")}], torch_function=torch.ops.aten.norm.Scalar,
        torch_ops=True),
    *[Row(f"norm{form}", dtypes=INEXACT, pools={"p": NORM_ORDS + [None], "dim": DIMS_LIST},
          extra=REDUCE_EXTRA, bad=BAD_DIMS + [{"self": TensorSpec("int64")}],
          torch_function=getattr(torch.ops.aten.norm, form[1:]), torch_ops=True,
          out_layouts=NO_BROADCAST_OUT)
      for form in (".ScalarOpt_dim", ".out")],
    *[Row(f"linalg_vector_norm{form}", dtypes=INEXACT, pools={"ord": NORM_ORDS, "dim": DIMS_OPT},
          torch_function=torch.linalg.vector_norm, extra=REDUCE_EXTRA + [
              {"self": TensorSpec("float32", "empty", (0, 4)), "ord": float("inf"), "dim": 1},
              {"self": TensorSpec("float16"), "dtype": Dt("float32")}],
          bad=BAD_DIMS + [{"self": TensorSpec("int64")},
                          {"self": TensorSpec("float32", "empty", (0, 4)), "ord": float("inf")},
                          {"self": TensorSpec("float32", "empty", (0, 4)), "ord": -1, "dim": 0}])
      for form in ("", ".out")],
    *[Row(f"frobenius_norm{form}", dtypes=INEXACT, pools={"dim": DIMS_LIST}, extra=REDUCE_EXTRA + [
              {"self": TensorSpec("float32", "contiguous", (2, 3, 5)), "dim": (0, 2)},
              {"self": TensorSpec("complex64", "sliced"), "dim": ()},
              {"self": TensorSpec("float64", values="zero"), "dim": 1}],  # a zero norm's gradient
          bad=BAD_DIMS + [{"self": TensorSpec("int64")}, {"self": TensorSpec("bool")},
                          {"self": TensorSpec("float32", "contiguous", (2, 3, 5)), "dim": (0, 1, 2)}],
          out_layouts=NO_BROADCAST_OUT)
      for form in (".dim", ".out")],
    *[Row(f"logsumexp{form}", dtypes=FLOATS + INTS + ("bool",),
          pools={"dim": [0, 1, -1, (0, 1), (-1, 0)]},
          extra=REDUCE_EXTRA + [{"self": TensorSpec("float32", "empty", (0, 4)), "dim": 0}],
          bad=BAD_DIMS)
      for form in ("", ".out")],
    # ---- (section end) ----
    # ---- scans ----
    *[Row(key, pools={"dim": DIMS_INT}, extra=SCAN_EXTRA + [
              {"self": TensorSpec("int8"), "dtype": Dt("int32")}, {"self": TensorSpec("float16"), "dtype": Dt("float32")},
              {"self": TensorSpec("float32", values="edge")}, {"self": TensorSpec("bool"), "dtype": Dt("bool")}],
          bad=BAD_DIM, out_layouts=NO_BROADCAST_OUT)
      for key in ("cumsum", "cumsum.out", "cumprod", "cumprod.out")],
    *[Row(key, pools={"dim": DIMS_INT}, layouts=INPLACE_LAYOUTS,
          extra=SCAN_EXTRA + [{"self": TensorSpec("float32"), "dtype": Dt("float64")},
                              {"self": TensorSpec("int8"), "dtype": Dt("int8")}],
          bad=BAD_DIM)
      for key in ("cumsum_", "cumprod_")],
    *[Row(key, dtypes=ORDERED, pools={"dim": DIMS_INT},
          extra=SCAN_EXTRA + [{"self": NAN_INPUT}, {"self": NAN_INPUT, "dim": 1}, {"self": TIES},
                              {"self": TIES, "dim": 1}, {"self": TensorSpec("float64", values="edge")}],
          bad=BAD_DIM + [{"self": TensorSpec("complex64")}],
          **({"torch_function": scan_out(getattr(torch, key.split(".")[0])),
              "ember_function": scan_out(getattr(ember, key.split(".")[0])), "out_layouts": NO_BROADCAST_OUT}
             if key.endswith(".out") else {}))
      for key in ("cummax", "cummax.out", "cummin", "cummin.out")],
    *[Row(key, dtypes=FLOATS + ("complex64",), pools={"dim": DIMS_INT},
          extra=SCAN_EXTRA + [{"self": TensorSpec(d, values="edge")} for d in FLOATS + ("complex64",)],
          bad=BAD_DIM + [{"self": TensorSpec("int64")}], out_layouts=NO_BROADCAST_OUT)
      for key in ("logcumsumexp", "logcumsumexp.out")],
    # ---- (section end) ----
] + _sparse_rows()
