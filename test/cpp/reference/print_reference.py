"""Golden strings for Ember's tensor printing: repr() of tensors built with PyTorch.

Writes a JSON list of cases to the path given as the only argument. Each case holds what
the C++ test needs to build the identical Ember tensor (dtype, device, the whole storage,
sizes, strides, storage offset), the print options in force, and torch's repr():

  {"name", "dtype", "device", "sizes", "strides", "offset", "storage", "options", "repr"}

Storage encoding: bool -> true/false, integers -> ints, float32/float64 -> floats (NaN and
Infinity as Python's json writes them), float16/bfloat16 -> their 16-bit patterns as
unsigned ints, complex -> [real, imag] pairs.
"""

import json
import math
import sys

import torch
from torch._tensor_str import PRINT_OPTS, printoptions

DTYPE_NAMES = {
    torch.bool: "bool", torch.uint8: "uint8", torch.int8: "int8", torch.int16: "int16",
    torch.int32: "int32", torch.int64: "int64", torch.float16: "float16",
    torch.bfloat16: "bfloat16", torch.float32: "float32", torch.float64: "float64",
    torch.complex64: "complex64", torch.complex128: "complex128",
}
ALL_DTYPES = list(DTYPE_NAMES)
nan, inf = math.nan, math.inf

cases = []


def storage_values(t):
    """The tensor's whole storage as a flat list, encoded as described above."""
    n = t.untyped_storage().nbytes() // t.element_size()
    flat = torch.empty(0, dtype=t.dtype).set_(t.untyped_storage(), 0, (n,))
    if t.dtype in (torch.float16, torch.bfloat16):
        return [b & 0xFFFF for b in flat.view(torch.int16).tolist()]
    if t.dtype.is_complex:
        return [[z.real, z.imag] for z in flat.tolist()]
    return flat.tolist()


def add(name, t, **options):
    """Records t's repr() under the given print options (torch.set_printoptions keywords)."""
    with printoptions(**options):
        text = repr(t)
        opts = {
            "precision": PRINT_OPTS.precision,
            "threshold": PRINT_OPTS.threshold,
            "edgeitems": PRINT_OPTS.edgeitems,
            "linewidth": PRINT_OPTS.linewidth,
            "sci_mode": PRINT_OPTS.sci_mode,
        }
    case = {
        "name": name,
        "dtype": DTYPE_NAMES[t.dtype],
        "device": str(t.device),
        "sizes": list(t.shape),
        "strides": list(t.stride()),
        "offset": t.storage_offset(),
        "storage": [] if t.is_meta else storage_values(t),
        "options": opts,
        "repr": text,
    }
    assert name not in {c["name"] for c in cases}, name
    cases.append(case)


def T(values, dtype=None):
    return torch.tensor(values, dtype=dtype)


# ---- every dtype: 0-d, 1-d, 2-d -------------------------------------------------------
small = {
    torch.bool: [True, False, True, True],
    torch.uint8: [0, 7, 200, 255],
    torch.int8: [-128, 0, 5, 127],
    torch.int16: [-32768, 12, -7, 32767],
    torch.int32: [-2147483648, 1, 22, 2147483647],
    torch.int64: [-9223372036854775808, 3, -44, 9223372036854775807],
    torch.float16: [0.5, -1.25, 65504.0, 3.0],
    torch.bfloat16: [0.5, -1.25, 3.140625, 100.0],
    torch.float32: [0.5, -1.25, 3.14159, 100.0],
    torch.float64: [0.5, -1.25, 3.14159265358979, 100.0],
    torch.complex64: [0.5 + 1j, -1.25 - 2.5j, 3 + 0j, -0.125j],
    torch.complex128: [0.5 + 1j, -1.25 - 2.5j, 3 + 0j, -0.125j],
}
for dt in ALL_DTYPES:
    name = DTYPE_NAMES[dt]
    vals = small[dt]
    add(f"{name}_0d", T(vals[1], dt))
    add(f"{name}_1d", T(vals, dt))
    add(f"{name}_2d", T(vals, dt).view(2, 2))
    add(f"{name}_empty", torch.empty(0, dtype=dt))
    add(f"{name}_empty_0x3", torch.empty(0, 3, dtype=dt))

# ---- integers ---------------------------------------------------------------------------
add("int64_arange_3x4", torch.arange(12).view(3, 4))
add("int64_negative_widths", T([[-1, 10, -100], [1000, -5, 7]]))
add("int32_0d_negative", T(-17, torch.int32))
add("uint8_arange", torch.arange(0, 250, 25, dtype=torch.uint8))
add("bool_3d", (torch.arange(12) % 3 == 0).view(2, 3, 2))

# ---- floats: fixed, integral, scientific ------------------------------------------------
add("float_integral", T([1.0, 2.0, 3.0]))
add("float_integral_negative", T([-1.0, 20.0, -300.0]))
add("float_fixed", T([1.5, 2.25, -3.125]))
add("float_rounding", T([0.123456, 12.345678, -0.00015]))
add("float_ratio_sci", T([1.0, 1001.0]))
add("float_ratio_fixed", T([1.0, 1000.0]))
add("float_large_sci", T([1e9, 2.5e9]))
add("float_1e8_ratio_sci", T([1e8, 3.0]))
add("float_1e8_fixed", T([1e8, 1e6]))
add("float_above_1e8_sci", T([1.5e8, 1e6]))
add("float_small_sci", T([1e-5, 2e-5]))
add("float_small_fixed", T([1e-4, 2e-4]))
add("float_huge_exponent", T([1e-300, 1e300], torch.float64))
add("float_nonfinite", T([nan, inf, -inf, 1.5]))
add("float_nonfinite_integral", T([nan, -inf, 2.0]))
add("float_nonfinite_sci", T([nan, inf, 1e-7, 3.0]))
add("float_all_nan", T([nan, nan]))
add("float_all_zero", T([0.0, 0.0, 0.0]))
add("float_negative_zero", T([0.0, -0.0, 1.0]))
add("float_negative_zero_fixed", T([-0.0, 0.5]))
add("float_negative_zero_sci", T([-0.0, 1e-6]))
add("float_negative_nan", T([-nan, 1.5]))
add("float_0d_fixed", T(3.14159265))
add("float_0d_integral", T(2.0))
add("float_0d_nan", T(nan))
add("float_0d_neginf", T(-inf))
add("float_0d_sci", T(1e-5))
add("float_0d_negzero", T(-0.0))
add("float64_0d_third", T(1 / 3, torch.float64))
add("float64_linspace", torch.linspace(-1, 1, 7, dtype=torch.float64))
add("float16_sci", T([1e-3, 2.0, 60000.0], torch.float16))
add("float16_nonfinite", T([inf, nan, -0.0, 0.1], torch.float16))
add("bfloat16_linspace", torch.linspace(0, 1, 5, dtype=torch.bfloat16))
add("bfloat16_large", T([1e10, -3e38], torch.bfloat16))

# ---- complex --------------------------------------------------------------------------
add("complex_integral", T([1 + 1j, 2 - 2j]))
add("complex_negative_zero", T([complex(1.0, -0.0), complex(-0.0, 0.0)], torch.complex128))
add("complex_nonfinite", T([complex(nan, 1), complex(1, inf), complex(-inf, -nan)]))
add("complex_sci_imag", T([1 + 1e-5j, 2 + 3j]))
add("complex_sci_real", T([1e9 + 1j, 2 + 3j], torch.complex128))
add("complex_0d", T(1.5 - 2j))
add("complex_2d", (torch.arange(6, dtype=torch.float64) * (0.5 - 1.25j)).view(2, 3))
add("complex_wrap", torch.linspace(0, 1, 12, dtype=torch.float64) * (1 + 0.3j))

# ---- shapes ----------------------------------------------------------------------------
add("float_3x4", torch.arange(12.0).view(3, 4) / 4)
add("float_2x3x4", torch.arange(24.0).view(2, 3, 4))
add("float_2x2x2x2", torch.arange(16.0).view(2, 2, 2, 2) - 7.5)
add("float_1x1x1", T([[[5.0]]]))
add("int64_1x3", T([[1, 2, 3]]))
add("float_3x1", T([[1.5], [2.5], [-3.5]]))
add("float64_empty_2x0x3", torch.empty(2, 0, 3, dtype=torch.float64))
add("int64_empty_3x0", torch.empty(3, 0, dtype=torch.int64))

# ---- non-contiguous: logical values ----------------------------------------------------
base = torch.arange(12.0).view(3, 4) * 1.5
add("noncontig_transpose", base.t())
add("noncontig_step", torch.arange(20, dtype=torch.int32)[1::3])
add("noncontig_expand", T([1.0, -2.0, 3.5]).expand(2, 3))
add("noncontig_offset", torch.arange(30.0).view(5, 6)[1:4, 2:5])
add("noncontig_permute", torch.arange(24, dtype=torch.int16).view(2, 3, 4).permute(2, 0, 1))
add("noncontig_complex", (torch.arange(8.0).to(torch.complex64) * (1 - 1j)).view(2, 4).t())
add("noncontig_half", torch.arange(10, dtype=torch.float16).view(2, 5).t() / 4)
add("noncontig_0d_offset", torch.arange(5.0)[3])
add("noncontig_bool_offset", (torch.arange(12) % 4 == 1).view(3, 4)[1:, ::2])
add("noncontig_complex128_0d", torch.tensor([1 + 1j, -2.5 + 0.5j], dtype=torch.complex128)[1])

# ---- summarisation (more than 1000 elements) ----------------------------------------------
add("summ_int64_1d", torch.arange(2000))
add("summ_float_1d", torch.arange(1001.0) / 8)
add("summ_float_2d", torch.arange(2500.0).view(50, 50))
add("summ_float_3d", torch.arange(8000.0).view(20, 20, 20) / 3)
add("summ_rows_only", torch.arange(2002.0).view(1001, 2))
add("summ_cols_only", torch.arange(2002.0).view(2, 1001))
add("summ_hidden_middle", torch.cat([T([1.0, 2.0, 3.0]), torch.full((1000,), 1e-9), T([4.0, 5.0, 6.0])]))
add("summ_bool", torch.arange(1500) % 2 == 0)
add("summ_float16", torch.linspace(-5, 5, 1200, dtype=torch.float16))
add("summ_complex128", torch.arange(1100.0, dtype=torch.float64).to(torch.complex128) * (0.5 + 2j))
add("summ_noncontig", torch.arange(3000.0).view(30, 100).t())
add("summ_exact_threshold", torch.arange(1000.0))
add("summ_expand", T([1.5]).expand(40, 50))
add("summ_complex_2d_noncontig", (torch.linspace(-1, 1, 3200) * (1 - 2j)).view(80, 40)[::2, 1:])
add("summ_int8_4d", (torch.arange(4 * 5 * 7 * 11) % 200 - 100).to(torch.int8).view(4, 5, 7, 11))

# ---- line wrapping and suffixes ---------------------------------------------------------
add("wrap_int64_100", torch.arange(100))
add("wrap_float_linspace", torch.linspace(0, 1, 30))
add("wrap_2d", torch.linspace(-1, 1, 120).view(4, 30))
add("wrap_3d", torch.arange(2 * 2 * 25, dtype=torch.float64).view(2, 2, 25) * 1.1)
for n in range(7, 14):
    add(f"wrap_suffix_float64_{n}", torch.linspace(0, 1, n, dtype=torch.float64))
add("wrap_suffix_int16", torch.arange(1000, 1022, dtype=torch.int16))

# ---- meta ----------------------------------------------------------------------------
add("meta_2x3", torch.empty(2, 3, device="meta"))
add("meta_float64", torch.empty(4, device="meta", dtype=torch.float64))
add("meta_int64", torch.empty(2, 2, device="meta", dtype=torch.int64))
add("meta_0d", torch.empty((), device="meta"))
add("meta_empty", torch.empty(0, device="meta", dtype=torch.bool))

# ---- print options (torch.set_printoptions) ----------------------------------------------
add("opt_precision_2", T([1.12345, -2.5]), precision=2)
add("opt_precision_8", T([1 / 3, 2 / 3], torch.float64), precision=8)
add("opt_sci_true", T([1.5, 2.0]), sci_mode=True)
add("opt_sci_false", T([1e-6, 1e9]), sci_mode=False)
add("opt_threshold_edgeitems", torch.arange(10), threshold=5, edgeitems=2)
add("opt_edgeitems_0", torch.arange(20.0).view(4, 5), threshold=5, edgeitems=0)
add("opt_linewidth_40", torch.linspace(0, 1, 12), linewidth=40)
add("opt_linewidth_suffix", torch.arange(6, dtype=torch.int32), linewidth=30)
add("opt_linewidth_narrow", T([[1.5, 2.5], [3.5, 4.5]], torch.float64), linewidth=10)
add("opt_profile_full", torch.arange(1200, dtype=torch.int16), profile="full")
add("opt_profile_short", torch.linspace(0, 1, 2000), profile="short")

if __name__ == "__main__":
    with open(sys.argv[1], "w") as f:
        json.dump(cases, f, indent=0)
