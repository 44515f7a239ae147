"""Checkpoints written by PyTorch's torch.save, for ember::load (test/cpp/api/serialize_test.cpp).

Writes into the folder given as the only argument, then touches its stamp file:

  tensor_<dtype>.pt   torch.save of pattern(dtype) (below), for the 12 dtypes
  noncontiguous.pt    arange(12.).reshape(3, 4).t()  (strides (1, 4))
  offset.pt           arange(10.)[3:7]               (storage offset 3)
  scalar.pt           tensor(3.5, float64)           (0-d)
  empty.pt            zeros(0, 3)
  list.pt             [arange(3.), tensor([1, 2])]
  shared.pt           [x, x[1:]] with x = arange(4.): one storage
  parameter.pt        nn.Parameter(ones(2))          (_rebuild_parameter)
  state_dict.pt       state_dict of Sequential(Linear(3, 2), BatchNorm1d(2)) (with _metadata),
                      weight = arange(6.).reshape(2, 3) / 10, bias = [0.5, -0.5], bn weight
                      [2, 3], running_mean [0.25, 0.75], num_batches_tracked 7
  counter.pt          collections.Counter(a=1): a global outside the weights-only subset
  compressed.pt       tensor_float32.pt's records, deflated (which torch.save never writes)
"""

import collections
import os
import sys
import zipfile

import torch

DTYPES = {
    "bool": torch.bool, "uint8": torch.uint8, "int8": torch.int8, "int16": torch.int16,
    "int32": torch.int32, "int64": torch.int64, "float16": torch.float16,
    "bfloat16": torch.bfloat16, "float32": torch.float32, "float64": torch.float64,
    "complex64": torch.complex64, "complex128": torch.complex128,
}


def pattern(dtype):
    """The 2x3 tensor of every dtype case (serialize_test.cpp's pattern() builds the same)."""
    i = torch.arange(6, dtype=torch.float64).reshape(2, 3)
    if dtype == torch.bool:
        return (i.long() % 2 == 1)
    if dtype.is_complex:
        return torch.complex((i - 2.5) * 0.5, i * 0.25).to(dtype)
    if dtype.is_floating_point:
        return ((i - 2.5) * 0.5).to(dtype)
    if dtype == torch.uint8:
        return (i * 40).to(dtype)
    return (i * 7 - 20).to(dtype)


def main(out):
    os.makedirs(out, exist_ok=True)
    for name, dtype in DTYPES.items():
        torch.save(pattern(dtype), os.path.join(out, f"tensor_{name}.pt"))
    torch.save(torch.arange(12.).reshape(3, 4).t(), os.path.join(out, "noncontiguous.pt"))
    torch.save(torch.arange(10.)[3:7], os.path.join(out, "offset.pt"))
    torch.save(torch.tensor(3.5, dtype=torch.float64), os.path.join(out, "scalar.pt"))
    torch.save(torch.zeros(0, 3), os.path.join(out, "empty.pt"))
    torch.save([torch.arange(3.), torch.tensor([1, 2])], os.path.join(out, "list.pt"))
    x = torch.arange(4.)
    torch.save([x, x[1:]], os.path.join(out, "shared.pt"))
    torch.save(torch.nn.Parameter(torch.ones(2)), os.path.join(out, "parameter.pt"))
    model = torch.nn.Sequential(torch.nn.Linear(3, 2), torch.nn.BatchNorm1d(2))
    with torch.no_grad():
        model[0].weight.copy_(torch.arange(6.).reshape(2, 3) / 10)
        model[0].bias.copy_(torch.tensor([0.5, -0.5]))
        model[1].weight.copy_(torch.tensor([2., 3.]))
        model[1].running_mean.copy_(torch.tensor([0.25, 0.75]))
        model[1].num_batches_tracked.fill_(7)
    torch.save(model.state_dict(), os.path.join(out, "state_dict.pt"))
    torch.save(collections.Counter(a=1), os.path.join(out, "counter.pt"))
    with zipfile.ZipFile(os.path.join(out, "tensor_float32.pt")) as src, \
            zipfile.ZipFile(os.path.join(out, "compressed.pt"), "w", zipfile.ZIP_DEFLATED) as dst:
        for name in src.namelist():
            dst.writestr(name, src.read(name))
    with open(os.path.join(out, "stamp"), "w") as f:
        f.write("ok\n")


if __name__ == "__main__":
    main(sys.argv[1])
