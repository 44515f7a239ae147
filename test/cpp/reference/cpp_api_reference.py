"""Golden data for Ember's libtorch-style C++ API (test/cpp/api/), made with PyTorch.

Writes a JSON object to the path given as the only argument:

  {"values": {name: {"sizes", "dtype", "values": [numbers, row-major]}},
   "prints": [{"name", "sizes", "dtype", "values", "transpose", "text"}]}

`values` holds what PyTorch computes for each case of the C++ tests, which repeat the same
call in libtorch's C++ idioms on the same inputs (INPUTS below, spelled again in
test/cpp/api/api_test_util.h). `prints` holds what libtorch's `std::cout << t` writes for a
tensor built from `values` (cast to `dtype`, shaped `sizes`, transposed when `transpose`):
TorchScript's print() of a tensor goes through that same C++ printer, so the text is
libtorch's own, captured from Python.
"""

import contextlib
import io
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

# The inputs every value case reads (api_test_util.h builds the same tensors).
X = torch.tensor([[1.5, -2.0, 3.25], [0.5, 4.0, -1.0]])
Y = torch.arange(24, dtype=torch.float32).reshape(2, 3, 4)
B = torch.tensor([[True, False, True], [False, False, True]])
I = torch.tensor([[6, 3, 5], [12, 9, 10]])


def record(t):
    t = torch.as_tensor(t)
    flat = t.detach().reshape(-1)
    if t.dtype == torch.bool:
        values = [int(v) for v in flat.tolist()]
    elif t.dtype.is_floating_point:
        values = [float(v) for v in flat.double().tolist()]
    else:
        values = [int(v) for v in flat.tolist()]
    return {"sizes": list(t.shape), "dtype": NAMES[t.dtype], "values": values}


def value_cases():
    c = {}
    # Reductions with a single int dim (the dangling optional-array-ref cases) and the
    # overloads libtorch resolves (std/var over a dim, whole-tensor forms).
    c["sum_int_dim"] = X.sum(1)
    c["sum_braced_dim_keepdim"] = X.sum([1], keepdim=True)
    c["mean_int_dim"] = X.mean(0)
    c["sum_function_int_dim"] = torch.sum(X, 1)
    c["sum_two_dims"] = Y.sum([0, 2])
    c["mean_negative_dim"] = Y.mean(-1)
    c["nansum_int_dim"] = X.nansum(0)
    c["amax_int_dim"] = X.amax(1)
    c["sum_all"] = X.sum()
    c["std_int_dim"] = X.std(1)
    c["var_int_dim"] = X.var(1)
    c["std_function_int_dim"] = torch.std(X, 1)
    c["var_function_int_dim"] = torch.var(X, 0)
    c["std_all"] = X.std()
    c["var_all"] = X.var()
    c["std_biased"] = X.std(unbiased=False)
    c["std_dim_biased"] = X.std(1, unbiased=False)
    c["var_dim_keepdim"] = X.var(1, unbiased=True, keepdim=True)
    s, m = torch.std_mean(X, 1)
    c["std_mean_int_dim_std"], c["std_mean_int_dim_mean"] = s, m
    v, m = torch.var_mean(X, 0)
    c["var_mean_int_dim_var"], c["var_mean_int_dim_mean"] = v, m
    c["all_whole"] = B.all()
    c["any_whole"] = B.any()
    c["all_int_dim"] = B.all(1)
    c["any_int_dim_keepdim"] = B.any(0, keepdim=True)
    c["arange_end"] = torch.arange(5)
    c["arange_start_end"] = torch.arange(2, 7)
    c["arange_start_end_step"] = torch.arange(1, 2, 0.25)
    c["arange_float_options"] = torch.arange(3, dtype=torch.float64)
    # Operators.
    x = X.clone()
    x += 1
    x *= 2
    x -= X
    x /= 4
    c["compound_assignment"] = x
    c["less_than_scalar"] = X < 1
    c["equal_scalar"] = X == 4
    c["scalar_less_than"] = 1 < X
    c["greater_equal_tensor"] = X >= -X
    c["not_equal_tensor"] = X != X.flip(1)
    c["and_scalar"] = I & 6
    c["or_scalar"] = I | 1
    c["xor_tensor"] = I ^ I.flip(0)
    c["not"] = ~I
    c["shift_left"] = I << 1
    c["shift_right"] = I >> 1
    c["bool_and"] = B & B.flip(1)
    c["remainder"] = I % 4
    c["sum_of_mixed"] = (X * 2 + 1) / 2 - X
    # Indexing.
    c["index_slice_int_none_ellipsis"] = Y[:, 0, None, ...]
    c["index_ellipsis_int"] = Y[..., 1]
    c["index_int"] = Y[1]
    c["index_int_slice"] = Y[0, 1:3]
    c["index_slice_step"] = Y[:, ::2, 1:]
    c["index_mask"] = Y[Y > 20]
    c["index_tensor"] = Y[torch.tensor([1, 0, 1])]
    c["subscript_chain"] = Y[1][2]
    y = Y.clone()
    y[:, 0] = -1
    c["index_put_scalar"] = y
    y = Y.clone()
    y[..., 1] = torch.tensor([10.0, 20.0, 30.0])
    c["index_put_tensor"] = y
    y = Y.clone()
    y[Y < 3] = 0
    c["index_put_mask"] = y
    x = X.clone()
    x[0] = 7
    x[1][2] = 9
    c["subscript_assign"] = x
    # Conversions.
    c["to_double"] = X.to(torch.float64)
    c["to_int"] = X.to(torch.int32)
    c["to_options"] = X.to(dtype=torch.float64)
    c["item_float"] = torch.tensor(X[1][1].item())
    c["allclose_near"] = torch.tensor(torch.allclose(X, X + 1e-7))
    c["allclose_far"] = torch.tensor(torch.allclose(X, X + 1e-3))
    c["equal_same"] = torch.tensor(torch.equal(X, X.clone()))
    c["equal_different_sizes"] = torch.tensor(torch.equal(X, X.reshape(3, 2)))
    # Autograd from factory options.
    w = torch.ones(2, 3, requires_grad=True)
    (w * X).sum().backward()
    c["requires_grad_option_grad"] = w.grad
    return {k: record(v) for k, v in c.items()}


@torch.jit.script
def _print_with_libtorch(t: torch.Tensor):
    print(t)


def libtorch_text(t):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        _print_with_libtorch(t)
    text = out.getvalue()
    return text[:-1] if text.endswith("\n") else text


def print_case(name, sizes, dtype, values, transpose=False):
    t = torch.tensor(values, dtype=torch.float64).reshape(sizes).to(DTYPES[dtype])
    if transpose:
        t = t.transpose(0, 1)
    return {"name": name, "sizes": sizes, "dtype": dtype, "values": values,
            "transpose": transpose, "text": libtorch_text(t)}


def print_cases():
    inf, nan = math.inf, math.nan
    r = [float(i) for i in range(30)]
    return [
        print_case("float_matrix", [2, 3], "float32", r[:6]),
        print_case("long_matrix", [2, 3], "int64", r[:6]),
        print_case("float_scalar", [], "float32", [3.5]),
        print_case("long_scalar", [], "int64", [7]),
        print_case("double_scalar_digits", [], "float64", [3.14159265358979]),
        print_case("float_vector", [3], "float32", [1.5, 2.25, -3.0]),
        print_case("bool_vector", [2], "bool", [1, 0]),
        print_case("bool_matrix", [2, 2], "bool", [1, 0, 0, 1]),
        print_case("double_3d", [2, 3, 4], "float64", [float(i) for i in range(24)]),
        print_case("float_4d", [1, 3, 1, 1], "float32", [1.0, 2.0, 3.0]),
        print_case("float_4d_two", [2, 2, 1, 2], "float32", r[:8]),
        print_case("empty_vector", [0], "float32", []),
        print_case("empty_matrix", [2, 0], "float32", []),
        print_case("wide_range_scientific", [3], "float32", [1e-5, 1e5, 3.0]),
        print_case("large_float", [2], "float32", [1e10, 1.0]),
        print_case("fractions", [2], "float32", [0.1, 0.25]),
        print_case("half", [2], "float16", [1.0, 1.0]),
        print_case("bfloat16", [2], "bfloat16", [1.0, 1.0]),
        print_case("int_matrix", [2, 2], "int32", [1.0, 1.0, 1.0, 1.0]),
        print_case("uint8", [2], "uint8", [1.0, 1.0]),
        print_case("inf_nan", [3], "float32", [inf, nan, 1.0]),
        print_case("large_ints_exact", [2], "float32", [123456.0, 1.0]),
        print_case("negative_ints", [3], "int64", [-1.0, 20.0, 300.0]),
        print_case("column_blocks", [3, 10], "float32", [i * 1000.5 for i in range(30)]),
        print_case("scaled_large", [2], "float32", [123456.5, 100000.25]),
        print_case("scaled_large_matrix", [2, 2], "float64", [123456.5, 100000.25, 200000.0, 3e5]),
        print_case("scaled_small", [2], "float64", [0.00123, 0.00456]),
        print_case("scaled_small_matrix", [2, 2], "float64", [0.00123, 0.00456, 0.00789, 0.001]),
        print_case("negative_large_later", [2], "float32", [1.5, -1000.5]),
        print_case("negative_large_first", [2], "float32", [-1000.5, 1.5]),
        print_case("zeros_float", [2], "float32", [0.0, 0.0]),
        print_case("long_big_values", [2], "int64", [12345678901.0, 2.0]),
        print_case("nine_digit_ints", [2], "int64", [123456789.0, 2.0]),
        print_case("transposed", [2, 3], "float32", [1.5, -2.0, 3.25, 0.5, 4.0, -1.0], True),
        print_case("complex_real_part", [2], "complex64", [1.5, -2.0]),
        print_case("wide_int_matrix", [2, 30], "int64", [float(i * 37) for i in range(60)]),
        print_case("sci_3d", [2, 1, 2], "float64", [1e-8, 1.0, 1e8, 2.0]),
        print_case("huge_exponents", [2], "float64", [1e-150, 1e150]),
        print_case("float_scalar_pi", [], "float32", [math.pi]),
        print_case("scalar_hundred_thousand", [], "float64", [100000.0]),
        print_case("scalar_small", [], "float64", [1e-5]),
        print_case("scalar_1e16", [], "float64", [1e16]),
        print_case("scalar_1e22", [], "float64", [1e22]),
        print_case("scalar_tenth", [], "float64", [0.1]),
        print_case("scalar_negative_zero", [], "float64", [-0.0]),
        print_case("scalar_nan", [], "float32", [nan]),
        print_case("scalar_inf", [], "float64", [-inf]),
        print_case("scalar_big_long", [], "int64", [123456789012.0]),
        print_case("scalar_bool", [], "bool", [1]),
        print_case("scalar_half", [], "float16", [0.1]),
    ]


def main(path):
    torch.manual_seed(0)
    with open(path, "w") as f:
        json.dump({"values": value_cases(), "prints": print_cases()}, f, indent=1)


if __name__ == "__main__":
    main(sys.argv[1])
