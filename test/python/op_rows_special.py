"""The op table's rows of the special functions (test_op_table.py runs them): the Bessel
and Airy functions, erfcx and log_ndtr (cpu/unary_bessel.cpp), the incomplete gammas, zeta
and polygamma (cpu/binary_special.cpp), the orthogonal polynomials (cpu/binary_polynomial.cpp)
and mvlgamma (special.cpp). Their accuracy over wide ranges, against scipy and mpmath where
PyTorch's own values are off, is checked in test_special_breadth.py."""
from __future__ import annotations

from op_rows import *  # noqa: F401,F403

# Every dtype class: the ops refuse complex (and some the 16-bit floats), as PyTorch's.
SPECIAL_DTYPES = ("float32", "float64", "float16", "bfloat16", "int64", "bool", "complex64")
F32_F64_EDGE = [{n: TensorSpec(d, values="edge")} for d in ("float32", "float64") for n in ("self",)]

# Unary ops whose tensor argument PyTorch calls x, not self.
X_ARG = ("special_scaled_modified_bessel_k0", "special_scaled_modified_bessel_k1",
         "special_spherical_bessel_j0", "special_airy_ai")
UNARY_SPECIAL = ("i0", "special_i0e", "special_i1", "special_i1e", "special_modified_bessel_i0",
                 "special_modified_bessel_i1", "special_modified_bessel_k0",
                 "special_modified_bessel_k1", "special_bessel_j0", "special_bessel_j1",
                 "special_bessel_y0", "special_bessel_y1", "special_erfcx", "special_log_ndtr") + X_ARG
POLYNOMIALS = tuple(f"special_{p}" for p in (
    "chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v",
    "chebyshev_polynomial_w", "shifted_chebyshev_polynomial_t", "shifted_chebyshev_polynomial_u",
    "shifted_chebyshev_polynomial_v", "shifted_chebyshev_polynomial_w", "hermite_polynomial_h",
    "hermite_polynomial_he", "laguerre_polynomial_l", "legendre_polynomial_p"))
# Degrees: negative (0), small, past the Chebyshev kinds' trigonometric threshold, truncated.
DEGREES = [3, 0, -1, 7, 2.5, 10]


def _unary_forms(op: str) -> list[str]:
    return [f"{op}.out", op] + ([f"{op}_"] if op == "i0" else [])


def _edge(arg: str) -> list[dict]:
    return [{arg: TensorSpec(d, values="edge")} for d in ("float32", "float64")]


ROWS_SPECIAL: list[Row] = [
    *[Row(key, dtypes=SPECIAL_DTYPES, extra=_edge("x" if op in X_ARG else "self"),
          self_keyword="x" if op in X_ARG else "input")
      for op in UNARY_SPECIAL for key in _unary_forms(op)],
    # The incomplete gammas: a and x >= 0 (negative ones give NaN), broadcast.
    *[Row(key, dtypes=("float32", "float64", "float16", "int64", "complex64"),
          shapes={"other": (4,)}, values={"self": "prob", "other": "prob"},
          arg_dtypes={"other": ("float32", "float64", "int64")},
          extra=[{"self": TensorSpec("float64", values="edge"), "other": TensorSpec("float64", shape=(4,))},
                 {"self": TensorSpec("float64"), "other": TensorSpec("float64", shape=(4,), values="edge")}],
          bad=[{"other": TensorSpec("float32", shape=(2,))}])
      for op in ("igamma", "igammac") for key in (f"{op}.out", op, f"{op}_")],
    # zeta: Tensor and Tensor (broadcast), and a number either side.
    *[Row(key, dtypes=SPECIAL_DTYPES, shapes={"other": (4,)},
          extra=[{"self": TensorSpec("float64", values="edge"), "other": TensorSpec("float64", shape=(4,))}],
          bad=[{"other": TensorSpec("float32", shape=(2,))}])
      for key in ("special_zeta.out", "special_zeta")],
    *[Row(key, dtypes=SPECIAL_DTYPES, pools={"other": [2, 0.5, -1.5, 3.25]},
          extra=[{"self": TensorSpec("float64", values="edge")}])
      for key in ("special_zeta.other_scalar_out", "special_zeta.other_scalar")],
    Row("special_zeta.self_scalar", dtypes=SPECIAL_DTYPES, self_keyword="self",
        pools={"self": [2, 3.5, 1, 0.5]}, extra=[{"other": TensorSpec("float64", values="edge")}]),
    # polygamma: orders 0 (digamma), 1 (trigamma), 2 and 3; a negative order is refused
    # (torch's trigamma, n = 1, is off by ~3e-7 relatively: float32 only, where that is within
    # the tolerance; test_special_breadth.py compares it with scipy.)
    *[Row(key, dtypes=FLOATS + ("int64", "bool", "complex64"), pools={"n": [2, 0, 3]},
          extra=[{"self": TensorSpec(d, values="edge")} for d in ("float32", "float64")]
          + [{"self": TensorSpec("float32"), "n": 1}],
          bad=[{"n": -1}])
      for key in ("polygamma.out", "polygamma", "polygamma.method", "polygamma_")],
    *[Row(key, dtypes=("float32", "float64", "int64", "complex64"), values={"self": "positive"},
          pools={"p": [1, 2, 3, 5]}, extra=[{"self": TensorSpec("float32"), "p": 1}],
          bad=[{"p": 0}])
      for key in ("mvlgamma", "mvlgamma_")],
    # The polynomials: x and n tensors (broadcast; n truncated), a number n, a number x.
    *[Row(key, dtypes=SPECIAL_DTYPES, shapes={"n": (4,)},
          arg_dtypes={"n": ("int64", "float32", "float64")},
          # No NaN x: torch's value there depends on the loop path (U_2(NaN) is inf for a
          # number n, 0 for some tensor n); test_special_breadth.py checks inf and NaN.
          extra=[{"x": TensorSpec("float64", values="unit"), "n": TensorSpec("int64", shape=(4,))},
                 {"x": TensorSpec("float32", values="unit"), "n": TensorSpec("float32", shape=(4,), values="counts")}],
          bad=[{"n": TensorSpec("float32", shape=(2,))}], self_keyword="x")
      for op in POLYNOMIALS for key in (f"{op}.out", op)],
    *[Row(key, dtypes=SPECIAL_DTYPES, pools={"n": DEGREES},
          extra=[{"x": TensorSpec("float64", values="unit")}, {"x": TensorSpec("float32", values="unit"), "n": 8}],
          self_keyword="x")
      for op in POLYNOMIALS for key in (f"{op}.n_scalar_out", f"{op}.n_scalar")],
    *[Row(f"{op}.x_scalar", dtypes=SPECIAL_DTYPES, pools={"x": [0.5, -1.25, 2, 1]},
          extra=[{"n": TensorSpec("float64", values="counts")}], self_keyword="x")
      for op in POLYNOMIALS],
]
