"""Golden data for Ember's factories (test/cpp/aten/factory_test.cpp), made with PyTorch.

Writes a JSON list to the path given as the only argument. Each case is one call, described
so the C++ test can repeat it, with what PyTorch returned on CPU and on the meta device:

  {"name", "op", "args": {...}, "dtype", "sizes", "strides", "values": hex,
   "meta": {"dtype", "sizes", "strides"} or null where torch's meta device refuses the call}
or, where PyTorch's CPU refuses the call, {"name", "op", "args", "error": true}.

`args` by op (dtype: a dtype name or null; scalars as in copy_reference.py):
  zeros, ones, empty          {"size", "dtype"}
  full                        {"size", "value", "dtype"}
  scalar_tensor               {"value", "dtype"}
  arange                      {"scalars": [1 to 3 scalars], "dtype"}
  linspace, logspace          {"start", "end", "steps", "dtype"} (+ "base" for logspace)
  eye                         {"n", "m" (or null), "dtype"}
  empty_strided               {"size", "stride", "dtype"}
  zeros_like, ones_like, full_like, empty_like
                              {"input", "dtype", "memory_format"} (+ "value" for full_like)
  clone                       {"input", "memory_format"}
  contiguous                  {"input"}
  to                          {"input", "dtype", "copy"}
  input = {"sizes", "strides", "dtype"}: a tensor made with empty_strided (values 0, 1, ...
  in storage order, where the call reads them). memory_format: null, "contiguous",
  "preserve". `values` is the result's elements in row-major order (raw little-endian
  bytes as hex); empty for empty and empty_strided, whose values are undefined.
"""

import json
import math
import sys

import torch

DTYPES = {
    "bool": torch.bool, "uint8": torch.uint8, "int8": torch.int8, "int16": torch.int16,
    "int32": torch.int32, "int64": torch.int64, "float16": torch.float16,
    "bfloat16": torch.bfloat16, "float32": torch.float32, "float64": torch.float64,
    "complex64": torch.complex64, "complex128": torch.complex128,
}
NAMES = {v: k for k, v in DTYPES.items()}
FORMATS = {None: None, "contiguous": torch.contiguous_format, "preserve": torch.preserve_format}


def hexbytes(t):
    return t.contiguous().reshape(-1).view(torch.uint8).numpy().tobytes().hex() if t.numel() else ""


def scalar_json(v):
    if isinstance(v, bool):
        return {"kind": "bool", "value": ["1" if v else "0"]}
    if isinstance(v, int):
        return {"kind": "int", "value": [str(v)]}
    if isinstance(v, float):
        return {"kind": "float", "value": [v.hex()]}
    return {"kind": "complex", "value": [float(v.real).hex(), float(v.imag).hex()]}


def make_input(spec, device):
    sizes, strides, dt = spec["sizes"], spec["strides"], DTYPES[spec["dtype"]]
    t = torch.empty_strided(sizes, strides, dtype=dt, device=device)
    if device == "cpu" and t.untyped_storage().nbytes():
        n = t.untyped_storage().nbytes() // t.element_size()
        flat = torch.empty(0, dtype=dt).set_(t.untyped_storage(), 0, (n,))
        flat.copy_(torch.arange(n) % 100)
    return t


def call(op, a, device):
    dt = DTYPES[a["dtype"]] if a.get("dtype") else None
    kw = {"dtype": dt, "device": device}
    if op in ("zeros", "ones", "empty"):
        return getattr(torch, op)(a["size"], **kw)
    if op == "full":
        return torch.full(a["size"], a["raw_value"], **kw)
    if op == "scalar_tensor":
        return torch.scalar_tensor(a["raw_value"], **kw)
    if op == "arange":
        return torch.arange(*a["raw_scalars"], **kw)
    if op == "linspace":
        return torch.linspace(a["raw_start"], a["raw_end"], a["steps"], **kw)
    if op == "logspace":
        return torch.logspace(a["raw_start"], a["raw_end"], a["steps"], a["base"], **kw)
    if op == "eye":
        return torch.eye(a["n"], **kw) if a["m"] is None else torch.eye(a["n"], a["m"], **kw)
    if op == "empty_strided":
        return torch.empty_strided(a["size"], a["stride"], **kw)
    x = make_input(a["input"], device)
    if op in ("zeros_like", "ones_like", "empty_like", "full_like"):
        extra = (a["raw_value"],) if op == "full_like" else ()
        fmt = FORMATS[a["memory_format"]]
        kws = {"dtype": dt} if fmt is None else {"dtype": dt, "memory_format": fmt}
        return getattr(torch, op)(x, *extra, **kws)
    if op == "clone":
        fmt = FORMATS[a["memory_format"]]
        return x.clone() if fmt is None else x.clone(memory_format=fmt)
    if op == "contiguous":
        return x.contiguous()
    if op == "to":
        return x.to(dt, copy=a["copy"])
    raise ValueError(op)


cases = []


def add(name, op, **args):
    raw = dict(args)
    for key in ("value", "start", "end"):
        if key in args:
            raw["raw_" + key] = args[key]
            args[key] = scalar_json(args[key])
    if "scalars" in args:
        raw["raw_scalars"] = args["scalars"]
        args["scalars"] = [scalar_json(s) for s in args["scalars"]]
    for key in ("dtype", "memory_format", "m"):
        args.setdefault(key, None)
        raw.setdefault(key, None)
    try:
        t = call(op, raw, "cpu")
    except RuntimeError:  # PyTorch refuses the call: Ember must raise too
        cases.append({"name": name, "op": op, "args": args, "error": True})
        return
    try:
        m = call(op, raw, "meta")
        meta = {"dtype": NAMES[m.dtype], "sizes": list(m.shape), "strides": list(m.stride())}
    except RuntimeError as e:
        meta = None
    if meta != {"dtype": NAMES[t.dtype], "sizes": list(t.shape), "strides": list(t.stride())}:
        print(f"{name}: torch's meta result {meta} differs from its CPU result", file=sys.stderr)
    undefined = op in ("empty", "empty_strided", "empty_like")
    cases.append({"name": name, "op": op, "args": args, "dtype": NAMES[t.dtype],
                  "sizes": list(t.shape), "strides": list(t.stride()), "meta": meta,
                  "values": "" if undefined else hexbytes(t)})


# ---- zeros, ones, empty, full, scalar_tensor ------------------------------------------------
for size in ([2, 3], [], [0], [1, 0, 2], [4]):
    for dt in (None, "int32", "bool", "complex64", "float16", "bfloat16", "uint8"):
        add(f"zeros_{size}_{dt}", "zeros", size=size, dtype=dt)
        add(f"ones_{size}_{dt}", "ones", size=size, dtype=dt)
    add(f"empty_{size}", "empty", size=size)
for i, (size, value, dt) in enumerate([
        ([2, 3], 1, None), ([2], True, None), ([2, 2], 1.5, None), ([2], 1j, None),
        ([3], 2, "float64"), ([], 7, None), ([2, 0], 1.5, None), ([3], -1, "uint8"),
        ([2], 2.7, "int32"), ([2], 1 + 2j, "complex128"), ([2], 0.1, "float16"),
        ([2], 0.1, "bfloat16"), ([1], 65504.0, "float16"), ([2], False, "float32"),
        ([2], 3, "bool"), ([2], 1e300, "float64"), ([2], 2**62, None)]):
    add(f"full_{i}", "full", size=size, value=value, dtype=dt)
for i, (value, dt) in enumerate([(1, None), (True, None), (2.5, "float64"), (3, "int64"),
                                 (1 + 2j, "complex64"), (-0.0, None), (100, "int8")]):
    add(f"scalar_tensor_{i}", "scalar_tensor", value=value, dtype=dt)

# ---- arange ---------------------------------------------------------------------------------
ARANGE = [
    ([5], None), ([5.0], None), ([True], None), ([0, 10], None), ([0, 10, 3], None),
    ([10, 0, -3], None), ([0.5, 5, 1.5], None), ([-1.5, 5, 1], "uint8"), ([0, 1, 0.1], None),
    ([0, 1, 0.1], "float64"), ([1, 1.3, 0.1], None), ([1, 2.5, 0.25], "float16"),
    ([1, 2.5, 0.25], "bfloat16"), ([0, 5, 0.5], "int32"), ([0.5, 5, 1.5], "int64"),
    ([0, 5], "int8"), ([-3, 3, 0.7], "float64"), ([0, 10, 3], "float16"), ([250, 260], "uint8"),
    ([0, 100000, 97], None), ([0, 1000], None), ([-1000, 1000, 3], "float16"),
    ([5, 5], None), ([0, 0.0], None), ([3, -3, -0.5], "float32"), ([0, 2**40, 2**37], None),
    ([-7, 8, 2], "int16"), ([0.1, 7.3, 0.3], "bfloat16"), ([10], "float64"),
]
for i, (scalars, dt) in enumerate(ARANGE):
    add(f"arange_{i}", "arange", scalars=scalars, dtype=dt)

# ---- linspace, logspace ---------------------------------------------------------------------
SPACE_DTYPES = ["float16", "bfloat16", "float32", "float64", "int8", "uint8", "int16", "int32",
                "int64", "complex64", "complex128"]
for dt in SPACE_DTYPES:
    for i, (start, end, steps) in enumerate([(0, 1, 5), (0, 1, 0), (3, 3, 1), (0, 10, 11),
                                             (-1, 1, 7), (-5.5, 7.25, 33), (0, 100, 7),
                                             (10, -10, 21), (0, 1, 1000)]):
        add(f"linspace_{dt}_{i}", "linspace", start=start, end=end, steps=steps, dtype=dt)
for i, (start, end, steps) in enumerate([(1j, 5, 4), (0, 1, 5), (1e-3, 1e3, 51), (2, 2.0, 3)]):
    add(f"linspace_inferred_{i}", "linspace", start=start, end=end, steps=steps)
add("linspace_uint8_wrap", "linspace", start=-3, end=0, steps=3, dtype="uint8")
add("linspace_complex_range", "linspace", start=1 + 2j, end=-3 + 0.5j, steps=9, dtype="complex64")
for dt in ["float16", "bfloat16", "float32", "float64", "complex64", "complex128"]:
    for i, (start, end, steps, base) in enumerate([(0, 3, 4, 10.0), (0, 3, 4, 2.0),
                                                   (-2, 2, 9, 10.0), (0, 1, 1, 10.0),
                                                   (0, 0, 0, 10.0), (-1, 1.5, 25, 3.5)]):
        add(f"logspace_{dt}_{i}", "logspace", start=start, end=end, steps=steps, base=base, dtype=dt)
for dt in ["int8", "uint8", "int16", "int32", "int64"]:
    for i, (start, end, steps, base) in enumerate([(0, 2, 3, 10.0), (0, 6, 7, 2.0),
                                                   (1, 1, 1, 10.0), (0, 2, 5, 2.5)]):
        add(f"logspace_{dt}_{i}", "logspace", start=start, end=end, steps=steps, base=base, dtype=dt)
for i, (start, end, steps, base) in enumerate([(0, 3, 4, 10.0), (1j, 2, 4, 10.0),
                                               (-10, 10, 41, 10.0), (0.5, 0.75, 3, 2.0)]):
    add(f"logspace_inferred_{i}", "logspace", start=start, end=end, steps=steps, base=base)

# ---- eye ------------------------------------------------------------------------------------
for dt in (None, "bool", "float16", "int64", "complex64", "bfloat16"):
    for n, m in ((3, None), (2, 4), (4, 2), (0, None), (0, 3), (3, 0), (1, 1)):
        add(f"eye_{n}_{m}_{dt}", "eye", n=n, m=m, dtype=dt)

# ---- empty_strided --------------------------------------------------------------------------
for i, (size, stride) in enumerate([((2, 3), (1, 2)), ((2, 3), (3, 1)), ((0, 3), (1, 1)),
                                    ((4,), (0,)), ((), ()), ((2, 1, 3), (10, 100, 2))]):
    add(f"empty_strided_{i}", "empty_strided", size=list(size), stride=list(stride))

# ---- _like, clone, contiguous, to -----------------------------------------------------------
INPUTS = {
    "contiguous": {"sizes": [2, 3], "strides": [3, 1], "dtype": "float32"},
    "transposed": {"sizes": [3, 2], "strides": [1, 3], "dtype": "float32"},
    "permuted": {"sizes": [4, 2, 3], "strides": [1, 12, 4], "dtype": "int32"},
    "not_dense": {"sizes": [2, 2], "strides": [4, 2], "dtype": "float64"},
    "expanded": {"sizes": [2, 3], "strides": [0, 1], "dtype": "int16"},
    "size1_odd_stride": {"sizes": [3, 1], "strides": [1, 7], "dtype": "float32"},
    "zero_d": {"sizes": [], "strides": [], "dtype": "complex64"},
    "empty": {"sizes": [0, 4], "strides": [1, 1], "dtype": "float32"},
}
for name, inp in INPUTS.items():
    for op in ("zeros_like", "ones_like", "empty_like", "full_like"):
        for dt in (None, "float64", "bool"):
            for fmt in (None, "contiguous"):
                extra = {"value": 3} if op == "full_like" else {}
                add(f"{op}_{name}_{dt}_{fmt}", op, input=inp, dtype=dt, memory_format=fmt, **extra)
    for fmt in (None, "contiguous", "preserve"):
        add(f"clone_{name}_{fmt}", "clone", input=inp, memory_format=fmt)
    add(f"contiguous_{name}", "contiguous", input=inp)
    for dt in ("float16", "int64", inp["dtype"]):
        for copy in (False, True):
            add(f"to_{name}_{dt}_{copy}", "to", input=inp, dtype=dt, copy=copy)

with open(sys.argv[1], "w") as f:
    json.dump(cases, f)
