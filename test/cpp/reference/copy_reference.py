"""Golden data for Ember's copy_ and fill_ (test/cpp/aten/copy_test.cpp), made with PyTorch.

Writes a JSON object to the path given as the only argument:

  {"copy": [case...], "fill": [case...]}

A copy case holds both operands as whole storages plus views into them, and the
destination storage after `dst.copy_(src)`:
  {"name", "src_dtype", "dst_dtype", "src": view, "dst": view, "expected": hex}
  view = {"storage": hex, "sizes", "strides", "offset"}
A fill case: {"name", "dtype", "value": scalar, "dst": view, "expected": hex or null}
(null: PyTorch refuses the value; Ember must raise ValueError and leave dst unchanged).
  scalar = {"kind": "bool"|"int"|"float"|"complex", "value": [text...]}, floats as
  float.hex() text (C++ strtod reads it back exactly).

Storages are the raw bytes (little-endian) as hex, so comparisons are bit-exact for every
dtype, float16 and bfloat16 included.
"""

import json
import math
import sys
import warnings

import torch

warnings.filterwarnings("ignore")  # complex -> real copies warn; dropping imag is tested

DTYPES = {
    "bool": torch.bool, "uint8": torch.uint8, "int8": torch.int8, "int16": torch.int16,
    "int32": torch.int32, "int64": torch.int64, "float16": torch.float16,
    "bfloat16": torch.bfloat16, "float32": torch.float32, "float64": torch.float64,
    "complex64": torch.complex64, "complex128": torch.complex128,
}
inf, nan = math.inf, math.nan


def hexbytes(t):
    return t.contiguous().reshape(-1).view(torch.uint8).numpy().tobytes().hex() if t.numel() else ""


def view_of(storage, sizes, strides, offset):
    return {"storage": hexbytes(storage), "sizes": list(sizes), "strides": list(strides),
            "offset": offset}


FLOATS = [0.0, -0.0, 1.5, -2.5, 0.1, 3.7, -3.7, 100.25, 65504.0, 65519.0, 65520.0, 1e-8, 6e-8,
          1e-5, 3e38, inf, -inf, nan, 2.5, 0.5, 1 / 3, 255.9, -127.9, 0.00006103515625,
          1.0009765625, 1.00048828125, 3.140625, 257.5]
# Doubles that round differently straight to float16/bfloat16 than through float32.
DOUBLE_ONLY = [1e300, -1e300, 1e-300, 1 + 2**-11 + 2**-40, 1 + 2**-8 + 2**-40, 16777217.0]
VALUES = {
    "bool": [True, False, True, True, False, True],
    "uint8": [0, 1, 127, 128, 200, 255, 3, 254],
    "int8": [0, 1, -1, 127, -128, 5, -77, 100],
    "int16": [0, 1, -1, 32767, -32768, 300, -1000, 255, 256, -129],
    "int32": [0, 1, -1, 2**31 - 1, -2**31, 70000, -65536, 16777217, 255, 2049],
    "int64": [0, 1, -1, 2**63 - 1, -2**63, 2**53 + 1, 2**24 + 1, -300, 65519, 65520, 1 << 40],
    "float16": FLOATS,
    "bfloat16": FLOATS,
    "float32": FLOATS,
    "float64": FLOATS + DOUBLE_ONLY,
    "complex64": [1 + 2j, -1.5 - 0.5j, 0j, 3.7 + 0j, 1j, complex(inf, 1), complex(nan, 0),
                  -0.1 + 1e-8j, 65519 - 7j, 200.5 + 3j],
    "complex128": [1 + 2j, -1.5 - 0.5j, 0j, 3.7 + 0j, 1j, complex(inf, 1), complex(nan, 0),
                   -0.1 + 1e-8j, 65519 - 7j, 200.5 + 3j, complex(1e300, -1e-300)],
}
INT_RANGE = {"uint8": (-128, 256), "int8": (-128, 128), "int16": (-32768, 32768),
             "int32": (-2**31, 2**31), "int64": (-2**63, 2**63)}


def source_values(src, dst):
    """src's test values, minus those whose conversion to dst is undefined in C++ (a
    non-finite or out-of-range floating value converted to an integer)."""
    vals = VALUES[src]
    if dst in INT_RANGE and (src.startswith("float") or src.startswith("bfloat")
                             or src.startswith("complex")):
        lo, hi = INT_RANGE[dst]
        # The value as src stores it decides (e.g. 255.9 is 256.0 in bfloat16).
        stored = torch.tensor(vals, dtype=DTYPES[src])
        reals = stored.real if stored.is_complex() else stored
        keep = [math.isfinite(float(r)) and lo <= math.trunc(float(r)) < hi for r in reals.tolist()]
        vals = [v for v, k in zip(vals, keep) if k]
    return vals


copy_cases = []
fill_cases = []


def add_copy(name, src_dtype, dst_dtype, src_storage, src_geom, dst_storage, dst_geom):
    src = torch.as_strided(src_storage, *src_geom)
    expected = dst_storage.clone()
    dst = torch.as_strided(expected, *dst_geom)
    dst.copy_(src)
    copy_cases.append({
        "name": name, "src_dtype": src_dtype, "dst_dtype": dst_dtype,
        "src": view_of(src_storage, *src_geom), "dst": view_of(dst_storage, *dst_geom),
        "expected": hexbytes(expected),
    })


def dst_background(dtype, n):
    """A destination storage with recognisable values, so stray writes show."""
    return (torch.arange(n) % 7 + 3).to(DTYPES[dtype])


for s in DTYPES:
    for d in DTYPES:
        vals = source_values(s, d)
        base = torch.tensor(vals, dtype=DTYPES[s])
        n = base.numel()
        tag = f"{s}_to_{d}"
        # Contiguous to contiguous, same shape.
        add_copy(f"{tag}_contiguous", s, d, base, ((n,), (1,), 0), dst_background(d, n), ((n,), (1,), 0))
        # Strided source: every other element, from offset 1.
        spread = torch.zeros(2 * n + 1, dtype=DTYPES[s])
        spread[1::2] = base
        add_copy(f"{tag}_strided_src", s, d, spread, ((n,), (2,), 1), dst_background(d, n), ((n,), (1,), 0))
        # Strided destination: every third element, from offset 2.
        add_copy(f"{tag}_strided_dst", s, d, base, ((n,), (1,), 0), dst_background(d, 3 * n + 2), ((n,), (3,), 2))
        # Transposed 2-D source into a contiguous destination.
        m = n // 2
        add_copy(f"{tag}_transposed", s, d, base, ((m, 2), (1, m), 0), dst_background(d, 2 * m), ((m, 2), (2, 1), 0))
        # Broadcast: a row to 3 rows, and a column to 2 columns (transposed destination).
        add_copy(f"{tag}_broadcast_row", s, d, base, ((3, n), (0, 1), 0), dst_background(d, 3 * n), ((3, n), (n, 1), 0))
        add_copy(f"{tag}_broadcast_col", s, d, base, ((n, 2), (1, 0), 0), dst_background(d, 2 * n), ((n, 2), (1, n), 0))
        # 0-d, and empty.
        add_copy(f"{tag}_0d", s, d, base, ((), (), n - 1), dst_background(d, 2), ((), (), 1))
        add_copy(f"{tag}_empty", s, d, base, ((0, 3), (3, 1), 0), dst_background(d, 1), ((0, 3), (3, 1), 0))

# Every float16 bit pattern to float32, float64 and bfloat16, and random float32/float64 bit
# patterns to float16 and bfloat16 (rounding, subnormals, overflow, NaN).
gen = torch.Generator().manual_seed(4)
all_half = torch.arange(-32768, 32768, dtype=torch.int32).to(torch.int16).view(torch.float16)
for d in ("float32", "float64", "bfloat16"):
    add_copy(f"all_float16_to_{d}", "float16", d, all_half, ((65536,), (1,), 0),
             torch.zeros(65536, dtype=DTYPES[d]), ((65536,), (1,), 0))
rand32 = torch.randint(-2**31, 2**31, (20000,), dtype=torch.int64, generator=gen).to(torch.int32)
# Bias towards the exponents near float16's range, where its rounding is interesting.
near = torch.randint(0x33000000, 0x47900000, (20000,), dtype=torch.int64, generator=gen).to(torch.int32)
float_bits = torch.cat([rand32, near, -near.abs()]).view(torch.float32)
rand64 = torch.randint(-2**63, 2**63 - 1, (10000,), dtype=torch.int64, generator=gen)
near64 = (torch.randint(0x3E60000000000, 0x40F2000000000, (10000,), dtype=torch.int64, generator=gen) << 12) \
    | torch.randint(0, 4096, (10000,), dtype=torch.int64, generator=gen)
double_bits = torch.cat([rand64, near64]).view(torch.float64)
for src_name, src in (("float32", float_bits), ("float64", double_bits)):
    for d in ("float16", "bfloat16"):
        n = src.numel()
        add_copy(f"random_{src_name}_bits_to_{d}", src_name, d, src, ((n,), (1,), 0),
                 torch.zeros(n, dtype=DTYPES[d]), ((n,), (1,), 0))


def scalar_json(v):
    if isinstance(v, bool):
        return {"kind": "bool", "value": ["1" if v else "0"]}
    if isinstance(v, int):
        return {"kind": "int", "value": [str(v)]}
    if isinstance(v, float):
        return {"kind": "float", "value": [v.hex()]}
    return {"kind": "complex", "value": [v.real.hex(), v.imag.hex()]}


FILL_VALUES = [True, False, 0, 1, -1, 7, 127, 128, 255, 256, -128, -129, -255, -256, 300, 32767,
               32768, 2**31, 2**63 - 1, -2**63, 0.0, -0.0, 1.5, -2.7, 2.7, 0.1, 255.9, 65504.0,
               65519.0, 65520.0, 1e6, 3e38, 1e300, inf, -inf, nan, 1 + 2j, 3 + 0j, 1j, -0.5 - 0j]
for name, dt in DTYPES.items():
    for i, v in enumerate(FILL_VALUES):
        storage = dst_background(name, 9)
        geom = ((2, 2), (1, 4), 1)  # non-contiguous (transposed, offset) view
        expected = storage.clone()
        try:
            torch.as_strided(expected, *geom).fill_(v)
            exp = hexbytes(expected)
        except RuntimeError:
            exp = None
        fill_cases.append({"name": f"fill_{name}_{i}", "dtype": name, "value": scalar_json(v),
                           "dst": view_of(storage, *geom), "expected": exp})
        if exp is not None:  # the contiguous path too
            cont = dst_background(name, 5)
            cont_exp = cont.clone()
            cont_exp.fill_(v)
            fill_cases.append({"name": f"fill_{name}_{i}_contiguous", "dtype": name,
                               "value": scalar_json(v), "dst": view_of(cont, (5,), (1,), 0),
                               "expected": hexbytes(cont_exp)})

with open(sys.argv[1], "w") as f:
    json.dump({"copy": copy_cases, "fill": fill_cases}, f)
