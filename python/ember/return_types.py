"""ember.return_types: the named tuples of ops that return several tensors (torch.return_types).

`x.max(1)` returns `ember.return_types.max(values=..., indices=...)`: a tuple (indexable,
unpackable, comparable with plain tuples) whose elements are also fields. Like PyTorch's
structseqs, a type is built from one sequence, `max((values, indices))`, and its fields are
read-only. The YAML's return names are the fields (test_return_types.py checks the two agree).
"""
from __future__ import annotations

import builtins
import functools
import operator

# {type name: fields}, PyTorch's names; some are for ops Ember has not got yet (eig).
FIELDS: dict[str, tuple[str, ...]] = {
    "max": ("values", "indices"), "min": ("values", "indices"),
    "sort": ("values", "indices"), "topk": ("values", "indices"),
    "kthvalue": ("values", "indices"), "median": ("values", "indices"),
    "nanmedian": ("values", "indices"), "mode": ("values", "indices"),
    "cummax": ("values", "indices"), "cummin": ("values", "indices"),
    "aminmax": ("min", "max"),
    "slogdet": ("sign", "logabsdet"), "linalg_slogdet": ("sign", "logabsdet"),
    "linalg_eigh": ("eigenvalues", "eigenvectors"), "linalg_eig": ("eigenvalues", "eigenvectors"),
    "svd": ("U", "S", "V"), "linalg_svd": ("U", "S", "Vh"),
    "qr": ("Q", "R"), "linalg_qr": ("Q", "R"),
    "linalg_lstsq": ("solution", "residuals", "rank", "singular_values"),
    "linalg_lu_factor": ("LU", "pivots"), "linalg_lu": ("P", "L", "U"),
    "linalg_inv_ex": ("inverse", "info"), "linalg_cholesky_ex": ("L", "info"),
    "frexp": ("mantissa", "exponent"), "histogram": ("hist", "bin_edges"),
    "linalg_lu_factor_ex": ("LU", "pivots", "info"), "linalg_solve_ex": ("result", "info"),
    "linalg_ldl_factor_ex": ("LD", "pivots", "info"), "linalg_ldl_factor": ("LD", "pivots"),
    "geqrf": ("a", "tau"), "lu_unpack": ("P", "L", "U"), "triangular_solve": ("solution", "cloned_coefficient"),
}

# Which ember callables return which type: (namespace, name) -> type name. "Tensor" is the
# method, "ember" and "linalg" the functions. An overload that returns one tensor (max(x),
# max(x, y)) passes through unwrapped.
OPS: dict[tuple[str, str], str] = {}
for _op in ("max", "min", "sort", "topk", "kthvalue", "median", "nanmedian", "mode",
            "cummax", "cummin", "aminmax", "frexp", "geqrf"):
    OPS[("Tensor", _op)] = OPS[("ember", _op)] = _op
for _op in ("slogdet", "eigh", "eig", "svd", "qr", "lstsq", "lu_factor", "lu", "inv_ex",
            "cholesky_ex", "lu_factor_ex", "ldl_factor_ex", "solve_ex", "ldl_factor"):
    OPS[("linalg", _op)] = "linalg_" + _op
OPS[("ember", "lu_unpack")] = "lu_unpack"
del _op


class _ReturnType(tuple):
    """A named tuple of an op's results (the base of every ember.return_types type)."""

    __slots__ = ()
    _fields: tuple[str, ...] = ()

    def __new__(cls, sequence, dict=None):  # noqa: A002 - PyTorch's structseq signature
        if dict is not None and not isinstance(dict, builtins.dict):
            raise TypeError(f"ember.return_types.{cls.__name__}() takes a dict as second arg, "
                            f"if any")
        items = tuple(sequence)
        if len(items) != len(cls._fields):
            raise TypeError(f"ember.return_types.{cls.__name__}() takes a {len(cls._fields)}"
                            f"-sequence ({len(items)}-sequence given)")
        return tuple.__new__(cls, items)

    def __repr__(self) -> str:
        body = ",\n".join(f"{f}={v!r}" for f, v in zip(self._fields, self))
        return f"ember.return_types.{type(self).__name__}(\n{body})"

    def __reduce__(self):
        return type(self), (tuple(self),)

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        import copy
        return type(self)(copy.deepcopy(tuple(self), memo))


def _make_type(name: str, fields: tuple[str, ...]) -> type:
    namespace = {"__slots__": (), "_fields": fields, "__match_args__": fields,
                 "n_fields": len(fields), "n_sequence_fields": len(fields),
                 "n_unnamed_fields": 0, "__module__": __name__, "__qualname__": name,
                 "__doc__": f"ember.return_types.{name}({', '.join(fields)})"}
    for i, field in enumerate(fields):
        namespace[field] = property(operator.itemgetter(i), doc=f"Element {i} of the tuple.")
    return type(name, (_ReturnType,), namespace)


for _name, _fields in FIELDS.items():
    globals()[_name] = _make_type(_name, _fields)
del _name, _fields


def _wrap(function, result_type: type):
    """function with its tuple results as result_type (its one-tensor results as they are)."""
    new = tuple.__new__

    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        result = function(*args, **kwargs)
        return new(result_type, result) if type(result) is tuple else result
    return wrapper


def install(namespaces: dict) -> list[tuple[str, str]]:
    """Replaces each callable of OPS that exists in namespaces ({"Tensor": class, "ember":
    module dict or object, ...}) with one returning its named tuple; returns what it wrapped."""
    wrapped = []
    for (space, op), type_name in OPS.items():
        target = namespaces.get(space)
        function = getattr(target, op, None) if target is not None else None
        if function is None or getattr(function, "__wrapped__", None) is not None:
            continue
        setattr(target, op, _wrap(function, globals()[type_name]))
        wrapped.append((space, op))
    return wrapped
