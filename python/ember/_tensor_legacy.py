"""torch.Tensor's legacy and plumbing methods, built from Ember's existing ops: new, resize,
resize_as(_), apply_, map_, map2_, nonzero_static, module_load, const_data_ptr,
is_inference, is_pinned, pin_memory, name and grad_dtype."""
from __future__ import annotations

import builtins
import math
import warnings

import ember

Tensor = ember.Tensor


def _refuse_grad_apply(self, name):
    if self.requires_grad:
        raise RuntimeError(f"Can't call {name}() on Variable that requires grad. Use "
                           f"var.detach().{name}() instead.")


def _write_elements(self, values):
    self.copy_(ember.tensor(values, dtype=self.dtype).view(self.shape))
    return self


def apply_(self, callable):
    """Replaces each element x with callable(x) (Python numbers; slow, CPU only)."""
    _refuse_grad_apply(self, "apply_")
    return _write_elements(self, [callable(v) for v in self.reshape(-1).tolist()])


def map_(self, tensor, callable):
    """Replaces each element x with callable(x, y), y from tensor broadcast to self's shape."""
    _refuse_grad_apply(self, "map_")
    ys = tensor.expand(tuple(self.shape)).reshape(-1).tolist()
    return _write_elements(self, [callable(x, y) for x, y in zip(self.reshape(-1).tolist(), ys)])


def map2_(self, x, y, callable):
    """Replaces each element a with callable(a, b, c), b and c from x and y broadcast to self."""
    _refuse_grad_apply(self, "map2_")
    bs = x.expand(tuple(self.shape)).reshape(-1).tolist()
    cs = y.expand(tuple(self.shape)).reshape(-1).tolist()
    return _write_elements(self, [callable(a, b, c) for a, b, c in
                                  zip(self.reshape(-1).tolist(), bs, cs)])


def _sizes(name, sizes):
    if len(sizes) == 1 and isinstance(sizes[0], (tuple, list, ember.Size)):
        sizes = tuple(sizes[0])
    if not all(isinstance(s, int) and not isinstance(s, builtins.bool) for s in sizes):
        raise TypeError(f"{name}(): expected sizes to be ints, but got {sizes!r}")
    return tuple(sizes)


def new(self, *args, device=None):
    """Legacy constructor: new() is empty, new(*sizes) uninitialised, new(data) a tensor of
    data, new(tensor) an alias of tensor; all in self's dtype (and device)."""
    dev = self.device if device is None else device
    if not args:
        return ember.empty(0, dtype=self.dtype, device=dev)
    if len(args) == 1 and isinstance(args[0], Tensor):
        if args[0].dtype != self.dtype:
            raise TypeError(f"new(): expected a tensor of dtype {self.dtype}, but got {args[0].dtype}")
        return args[0].view(args[0].shape)
    if all(isinstance(a, int) and not isinstance(a, builtins.bool) for a in args) or (
            len(args) == 1 and isinstance(args[0], ember.Size)):
        return ember.empty(_sizes("new", args), dtype=self.dtype, device=dev)
    if len(args) == 1:
        return ember.tensor(args[0], dtype=self.dtype, device=dev)
    raise TypeError(f"new(): expected sizes, a sequence of data or a tensor, but got {args!r}")


def nonzero_static(input, *, size, fill_value=-1):
    """nonzero(input) padded with fill_value rows (or cut) to exactly `size` rows."""
    if not isinstance(size, int) or size < 0:
        raise RuntimeError(f"nonzero_static(): expected 'size' to be a non-negative int, but got {size!r}")
    found = ember.nonzero(input)
    if found.size(0) >= size:
        return found[:size].contiguous()
    pad = ember.full((size - found.size(0), found.size(1)), fill_value, dtype=ember.int64)
    return ember.cat([found, pad], 0)


def _resize(self, *sizes):
    """Deprecated out-of-place resize: self viewed (reshaped) to sizes of the same numel."""
    warnings.warn("non-inplace resize is deprecated")
    shape = _sizes("resize", sizes)
    if math.prod(shape) != self.numel():
        raise RuntimeError(f"resize(): requested resize to {list(shape)} ({math.prod(shape)} elements "
                           f"in total), but the given tensor has a size of {list(self.shape)} "
                           f"({self.numel()} elements)")
    return self.reshape(shape)


def _resize_as(self, tensor):
    warnings.warn("non-inplace resize_as is deprecated")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return _resize(self, tuple(tensor.shape))


def resize_as_(self, the_template, memory_format=None):
    """resize_ to the_template's sizes (resize_ is an operator: native_functions.yaml)."""
    return self.resize_(tuple(the_template.shape), memory_format=memory_format)


def module_load(self, other, assign=False):
    """What load_state_dict swaps in for self: other detached (assign) or self.copy_(other)."""
    if assign:
        return other.detach()
    return self.copy_(other).detach()


def _grad_dtype(self):
    """The dtype a leaf's gradient is cast to: always its own dtype in Ember."""
    if not self.is_leaf:
        raise RuntimeError("grad_dtype is only accessible for leaf tensors")
    return self.dtype


def _set_grad_dtype(self, value):
    """Accepts only the tensor's own dtype (Ember's engine casts gradients to it)."""
    if not self.is_leaf:
        raise RuntimeError("grad_dtype can only be set on leaf tensors")
    if value != self.dtype:
        raise NotImplementedError(f"grad_dtype: Ember's engine always casts gradients to the "
                                  f"tensor's dtype ({self.dtype}); got {value}")


def _const_data_ptr(self):
    """The address of the first element (data_ptr; Ember has no read-only pointer kind)."""
    return self.data_ptr()


def _is_inference(self):
    """False: Ember does not mark tensors made under inference_mode (they behave as normal
    tensors created with grad disabled)."""
    return False


def _is_pinned(self, device=None):
    """False: Ember's CPU tensors are never in page-locked memory."""
    return False


def _pin_memory(self, device=None):
    """Refused: without an accelerator (as torch), and Ember exposes no pinned memory yet."""
    if not ember.cuda.is_available():
        raise RuntimeError("Cannot access accelerator device when none is available.")
    raise NotImplementedError("pin_memory(): Ember's Python API does not expose pinned host "
                              "memory yet")


def install():
    methods = {"apply_": apply_, "map_": map_, "map2_": map2_, "new": new,
               "nonzero_static": nonzero_static, "resize": _resize, "resize_as": _resize_as,
               "resize_as_": resize_as_, "module_load": module_load,
               "const_data_ptr": _const_data_ptr, "is_inference": _is_inference,
               "is_pinned": _is_pinned, "pin_memory": _pin_memory}
    for name, fn in methods.items():
        if not hasattr(Tensor, name):
            setattr(Tensor, name, fn)
    properties = {"name": property(lambda self: None, doc="None (torch's legacy attribute)."),
                  "grad_dtype": property(_grad_dtype, _set_grad_dtype,
                                         doc="The dtype gradients are cast to (self's dtype).")}
    for name, prop in properties.items():
        if not hasattr(Tensor, name):
            setattr(Tensor, name, prop)
    for name, fn in (("nonzero_static", nonzero_static), ("resize_as_", resize_as_),
                     ("is_inference", _is_inference)):
        if not hasattr(ember, name):
            setattr(ember, name, fn)
