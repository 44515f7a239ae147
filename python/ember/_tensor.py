"""ember.Tensor: the Python class over _C.TensorBase (whose methods are generated from
native_functions.yaml), with the parts of PyTorch's Tensor written in Python."""
from __future__ import annotations

import builtins

import numpy as np

from ember import _C, _tensor_type
from ember.errors import NOT_COMPILED, NotCompiledError

# Note [Operator slots]: Python operators map to YAML ops by this table; a slot is installed
# only when its op exists, so `a + b` starts working the day `add` lands in the YAML.
#   "method": self.op(other)       "swap": ember.op(other, self)
#   "unary": self.op()             "inplace": self.op_(other)
#   "swap_number": ember.op(other, self), a number `other` first made a 0-d tensor that
#                  promotes as the number would (for ops without a number-first overload)
#   "invert": self.op() for integral and bool tensors, TypeError otherwise (as PyTorch's ~)
#   "reciprocal_mul": self.reciprocal() * other, PyTorch's number / tensor
OPERATOR_SLOTS: dict[str, tuple[str, str]] = {
    "__add__": ("add", "method"), "__radd__": ("add", "method"), "__iadd__": ("add_", "inplace"),
    "__sub__": ("sub", "method"), "__rsub__": ("sub", "swap_number"), "__isub__": ("sub_", "inplace"),
    "__mul__": ("mul", "method"), "__rmul__": ("mul", "method"), "__imul__": ("mul_", "inplace"),
    "__truediv__": ("div", "method"), "__rtruediv__": ("div", "reciprocal_mul"),
    "__itruediv__": ("div_", "inplace"),
    "__floordiv__": ("floor_divide", "method"), "__rfloordiv__": ("floor_divide", "swap_number"),
    "__ifloordiv__": ("floor_divide_", "inplace"),
    "__mod__": ("remainder", "method"), "__rmod__": ("remainder", "swap"),
    "__imod__": ("remainder_", "inplace"),
    "__pow__": ("pow", "method"), "__rpow__": ("pow", "swap"), "__ipow__": ("pow_", "inplace"),
    "__matmul__": ("matmul", "method"), "__rmatmul__": ("matmul", "swap"),
    "__and__": ("bitwise_and", "method"), "__rand__": ("bitwise_and", "method"),
    "__iand__": ("bitwise_and_", "inplace"),
    "__or__": ("bitwise_or", "method"), "__ror__": ("bitwise_or", "method"),
    "__ior__": ("bitwise_or_", "inplace"),
    "__xor__": ("bitwise_xor", "method"), "__rxor__": ("bitwise_xor", "method"),
    "__ixor__": ("bitwise_xor_", "inplace"),
    "__lshift__": ("bitwise_left_shift", "method"), "__rlshift__": ("bitwise_left_shift", "swap"),
    "__ilshift__": ("bitwise_left_shift_", "inplace"),
    "__rshift__": ("bitwise_right_shift", "method"),
    "__rrshift__": ("bitwise_right_shift", "swap"),
    "__irshift__": ("bitwise_right_shift_", "inplace"),
    "__eq__": ("eq", "method"), "__ne__": ("ne", "method"), "__lt__": ("lt", "method"),
    "__le__": ("le", "method"), "__gt__": ("gt", "method"), "__ge__": ("ge", "method"),
    "__neg__": ("neg", "unary"), "__invert__": ("bitwise_not", "invert"),
    "__abs__": ("abs", "unary"), "__pos__": ("positive", "unary"),
}


def _number_operand(number, tensor):
    """A Python number as a 0-d tensor that promotes with `tensor` as the number itself would:
    of tensor's dtype when the number's category (bool < int < float < complex) is not
    higher, else of the category's default dtype."""
    categories = [(builtins.bool, 0), (builtins.int, 1), (builtins.float, 2), (complex, 3)]
    rank = next((r for t, r in categories if isinstance(number, t)), None)
    if rank is None:
        return None
    own = (3 if tensor.is_complex() else 2 if tensor.is_floating_point()
           else 0 if tensor.dtype == _C.bool else 1)
    if rank <= own:
        dtype = tensor.dtype
    else:
        dtype = [_C.bool, _C.int64, _C.get_default_dtype(), None][rank]
        if dtype is None:  # complex: the complex dtype of the default float dtype
            dtype = _C.complex128 if _C.get_default_dtype() == _C.float64 else _C.complex64
    return _C._functions.scalar_tensor(number, dtype=dtype, device=tensor.device)


def _slot(op: str, kind: str, method, function):
    if kind == "unary":
        def slot(self):
            return method(self)
    elif kind == "invert":
        def slot(self):
            if self.is_floating_point() or self.is_complex():
                raise TypeError("~ (operator.invert) is only implemented on integer and "
                                "Boolean-type tensors")
            return method(self)
    elif kind == "swap_number":
        def slot(self, other):
            if op == "sub" and isinstance(other, builtins.bool):
                # PyTorch refuses a bool on either side of -: keep the bool for sub to refuse.
                other = _C._functions.scalar_tensor(other, dtype=_C.bool, device=self.device)
            elif not isinstance(other, _C.TensorBase):
                other = _number_operand(other, self)
                if other is None:
                    return NotImplemented
            try:
                return function(other, self)
            except TypeError as e:
                if isinstance(e, _C._TypeError):
                    raise  # the op refused the operands (a dtype it can't write): not a mismatch
                return NotImplemented
    elif kind == "reciprocal_mul":
        def slot(self, other):
            # number / tensor as PyTorch computes it: reciprocal(tensor) * number (its dtype,
            # its values, its complex zeros), not a division of a number cast to the tensor's
            # dtype (-3 as uint8 is 253).
            if not isinstance(other, (builtins.bool, builtins.int, builtins.float, complex)):
                return NotImplemented
            return self.reciprocal() * other
    elif kind == "swap":
        def slot(self, other):
            # ember.op(number, tensor) works once the op has a Scalar-first overload;
            # until then Python reports the unsupported operand types.
            try:
                return function(other, self)
            except TypeError as e:
                if isinstance(e, _C._TypeError):
                    raise  # the op refused the operands (a dtype it can't write): not a mismatch
                return NotImplemented
    else:
        def slot(self, other):
            try:
                return method(self, other)
            except TypeError as e:
                if isinstance(e, _C._TypeError):
                    raise  # the op refused the operands (a dtype it can't write): not a mismatch
                return NotImplemented
    slot.__doc__ = f"Calls ember.{op} (Note [Operator slots])."
    return slot


def _install_operators(cls, table=None) -> list[str]:
    """Installs on cls each slot of table (OPERATOR_SLOTS) whose op exists; returns them."""
    from ember import _C as C
    installed = []
    for slot_name, (op, kind) in (table or OPERATOR_SLOTS).items():
        method = getattr(cls, op, None)
        function = getattr(C._functions, op, None) or getattr(__import__("ember"), op, None)
        if (kind == "swap" and function is None) or (kind != "swap" and method is None):
            continue
        setattr(cls, slot_name, _slot(op, kind, method, function))
        installed.append(slot_name)
    if "__eq__" in installed:
        cls.__hash__ = object.__hash__
    return installed


def _to_args(args, kwargs):
    """Parses Tensor.to's forms: to(dtype), to(device[, dtype]), to(tensor), with keywords."""
    dtype = kwargs.pop("dtype", None)
    device = kwargs.pop("device", None)
    copy = kwargs.pop("copy", False)
    non_blocking = kwargs.pop("non_blocking", False)
    memory_format = kwargs.pop("memory_format", None)
    if kwargs:
        raise TypeError(f"to() got an unexpected keyword argument '{next(iter(kwargs))}'")
    rest = list(args)
    if rest and isinstance(rest[0], _C.TensorBase):
        other = rest.pop(0)
        dtype, device = other.dtype, other.device
    elif rest and isinstance(rest[0], (str, _C.device, builtins.int)) and not isinstance(rest[0], builtins.bool):
        device = rest.pop(0)
    if rest and (isinstance(rest[0], _C.dtype) or rest[0] in (builtins.float, builtins.int, builtins.bool, complex)):
        dtype = rest.pop(0)
    if rest and isinstance(rest[0], builtins.bool):
        non_blocking = rest.pop(0)
    if rest and isinstance(rest[0], builtins.bool):
        copy = rest.pop(0)
    if rest:
        raise TypeError(f"to() received an invalid combination of arguments - got "
                        f"{tuple(type(a).__name__ for a in args)}, but expected one of:\n"
                        " * to(dtype, non_blocking=False, copy=False, memory_format=None)\n"
                        " * to(device=None, dtype=None, non_blocking=False, copy=False, memory_format=None)\n"
                        " * to(other, non_blocking=False, copy=False)")
    return dtype, device, non_blocking, copy, memory_format


class _C_no_grad:
    """no_grad without importing ember.autograd (this module is imported first)."""

    def __enter__(self):
        self.prev = _C.is_grad_enabled()
        _C._set_grad_enabled(False)

    def __exit__(self, *exc):
        _C._set_grad_enabled(self.prev)


class RemovableHandle:
    """What register_hook returns: remove() unregisters the hook (once)."""

    def __init__(self, remove) -> None:
        self._remove = remove

    def remove(self) -> None:
        if self._remove is not None:
            self._remove()
            self._remove = None

    def __enter__(self) -> "RemovableHandle":
        return self

    def __exit__(self, *exc) -> None:
        self.remove()


from contextlib import nullcontext as _nullcontext  # noqa: E402


class Tensor(_C.TensorBase):
    """A multi-dimensional array of one dtype on one device (torch.Tensor's API)."""

    __array_priority__ = 1000

    def backward(self, gradient=None, retain_graph=None, create_graph: bool = False,
                 inputs=None) -> None:
        """Accumulates the gradient of this tensor into the .grad of its graph's leaves."""
        from ember import autograd
        autograd.backward(self, gradient, retain_graph, create_graph, inputs=inputs)

    def register_hook(self, hook) -> "RemovableHandle":
        """Calls hook(grad) when this tensor's gradient is computed; a returned tensor
        replaces the gradient. Returns a handle whose remove() unregisters it."""
        if not self.requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        hook_id = _C._register_hook(self, hook)
        return RemovableHandle(lambda: _C._remove_hook(self, hook_id))

    def register_post_accumulate_grad_hook(self, hook) -> "RemovableHandle":
        """Calls hook(tensor) after backward accumulated into this leaf's .grad."""
        hook_id = _C._register_post_accumulate_grad_hook(self, hook)
        return RemovableHandle(lambda: _C._remove_post_accumulate_grad_hook(self, hook_id))

    @property
    def _base(self):
        return _C._base(self)

    def _is_view(self) -> bool:
        return _C._is_view(self)

    def to(self, *args, **kwargs) -> "Tensor":
        """Converts dtype and/or device; returns self when nothing changes and copy=False."""
        dtype, device, non_blocking, copy, memory_format = _to_args(args, dict(kwargs))
        if device is not None and _C.device(device) != self.device:
            target = _C.device(device)
            if target.type == "cuda" and not _C._cuda_built():
                raise NotCompiledError(f"to(): cannot move a tensor to {target}: {NOT_COMPILED}")
            here = self.device
            if not (target.type == here.type and target.index in (None, here.index or 0)):
                # another device (an out-of-tree backend's, ember.backends.load): a copy there;
                # to an integer or bool dtype it is not differentiable (as torch's)
                import ember
                exact = dtype is not None and not (dtype.is_floating_point or dtype.is_complex)
                with ember.no_grad() if exact else _nullcontext():
                    return _C._functions._to_copy(self, dtype=dtype, device=target, non_blocking=non_blocking,
                                                  memory_format=memory_format)
        if dtype is None:
            return self.clone(memory_format=memory_format) if copy else self
        return _C.TensorBase.to(self, dtype, non_blocking, copy, memory_format)

    def type_as(self, other: "Tensor") -> "Tensor":
        return self.to(other.dtype)

    def float(self) -> "Tensor":
        return self.to(_C.float32)

    def double(self) -> "Tensor":
        return self.to(_C.float64)

    def half(self) -> "Tensor":
        return self.to(_C.float16)

    def bfloat16(self) -> "Tensor":
        return self.to(_C.bfloat16)

    def long(self) -> "Tensor":
        return self.to(_C.int64)

    def int(self) -> "Tensor":
        return self.to(_C.int32)

    def short(self) -> "Tensor":
        return self.to(_C.int16)

    def char(self) -> "Tensor":
        return self.to(_C.int8)

    def byte(self) -> "Tensor":
        return self.to(_C.uint8)

    def bool(self) -> "Tensor":
        return self.to(_C.bool)

    def cpu(self) -> "Tensor":
        return self.to(device="cpu")

    def cuda(self, device=None, non_blocking=False, memory_format=None) -> "Tensor":
        """A copy on a CUDA device (the current one by default); self when it is there."""
        if device is not None and not isinstance(device, builtins.int) \
                and _C.device(device).type != "cuda":
            raise RuntimeError(f"cuda(): expected a cuda device, but got {device}")
        if not _C._cuda_built():
            raise NotCompiledError(f"cuda(): cannot move a tensor to CUDA: {NOT_COMPILED}")
        import ember.cuda
        if device is None:
            device = ember.cuda.current_device()
        target = _C.device("cuda", device) if isinstance(device, builtins.int) else _C.device(device)
        if target.index is None:
            target = _C.device("cuda", ember.cuda.current_device())
        kwargs = {} if memory_format is None else {"memory_format": memory_format}
        return self.to(device=target, non_blocking=non_blocking, **kwargs)

    def pin_memory(self, device=None) -> "Tensor":
        """A copy in page-locked host memory, which copies to CUDA asynchronously
        (non_blocking=True); self when it is pinned already."""
        if not _C._cuda_built():
            raise NotCompiledError(f"pin_memory(): {NOT_COMPILED}")
        return self if _C._cuda_is_pinned(self) else _C._cuda_pin_memory(self)

    def is_pinned(self, device=None) -> bool:
        """Whether the tensor's memory is page-locked (from pin_memory())."""
        return _C._cuda_built() and _C._cuda_is_pinned(self)

    def record_stream(self, stream) -> None:
        """Marks the CUDA memory as used by stream: it is reused only after the work queued
        there when the tensor is freed."""
        _C._cuda_record_stream(self, stream.device_index, stream.cuda_stream)

    def type(self, dtype=None, non_blocking=False, **kwargs):
        """The legacy type name ('torch.FloatTensor') without dtype; else self converted to
        dtype (an ember.dtype, a name like 'torch.DoubleTensor' or ember.DoubleTensor),
        self itself when it already has that dtype."""
        if kwargs:
            raise TypeError(f"type() got an unexpected keyword argument '{next(iter(kwargs))}'")
        if dtype is None:
            return _tensor_type.type_name(self)
        target = _tensor_type.dtype_of(dtype)
        return self if target == self.dtype else self.to(target, non_blocking=non_blocking)

    # What PyTorch's tensors say of their device and layout; Ember's are CPU or meta tensors,
    # strided or sparse, never quantized, nested or MKL-DNN tensors.
    @property
    def is_sparse(self) -> builtins.bool:
        """Whether the layout is sparse COO."""
        return self.layout == _C.sparse_coo

    @property
    def is_sparse_csr(self) -> builtins.bool:
        """Whether the layout is sparse CSR."""
        return self.layout == _C.sparse_csr

    @property
    def is_mkldnn(self) -> builtins.bool:
        """Whether the layout is oneDNN's blocked one (ember._mkldnn)."""
        return self.layout == _C._mkldnn

    is_xpu = is_mps = is_quantized = is_nested = property(lambda self: False)
    is_ipu = is_vulkan = is_maia = is_mtia = property(lambda self: False)

    def new_empty(self, *size, dtype=None, device=None, requires_grad=False) -> "Tensor":
        return _C._functions.empty(*size, dtype=dtype or self.dtype, device=device or self.device,
                                   requires_grad=requires_grad)

    def new_zeros(self, *size, dtype=None, device=None, requires_grad=False) -> "Tensor":
        return _C._functions.zeros(*size, dtype=dtype or self.dtype, device=device or self.device,
                                   requires_grad=requires_grad)

    def new_ones(self, *size, dtype=None, device=None, requires_grad=False) -> "Tensor":
        return _C._functions.ones(*size, dtype=dtype or self.dtype, device=device or self.device,
                                  requires_grad=requires_grad)

    def new_full(self, size, fill_value, *, dtype=None, device=None, requires_grad=False) -> "Tensor":
        return _C._functions.full(size, fill_value, dtype=dtype or self.dtype,
                                  device=device or self.device, requires_grad=requires_grad)

    def new_tensor(self, data, dtype=None, device=None, requires_grad=False) -> "Tensor":
        return _C.tensor(data, dtype=dtype or self.dtype, device=device or self.device,
                         requires_grad=requires_grad)

    @property
    def T(self) -> "Tensor":
        """The transpose of a tensor of at most 2 dimensions (a view), as t()."""
        return self.t()

    @property
    def mT(self) -> "Tensor":
        """The transpose of the last two dimensions (a view)."""
        if self.dim() < 2:
            raise RuntimeError(f"tensor.mT is only supported on matrices or batches of matrices. "
                               f"Got {self.dim()}-D tensor.")
        return self.transpose(-2, -1)

    # PyTorch's linear-algebra methods (ember._linalg_aliases).
    def det(self) -> "Tensor":
        from ember._linalg_aliases import det
        return det(self)

    def slogdet(self):
        from ember._linalg_aliases import slogdet
        return slogdet(self)

    def inverse(self) -> "Tensor":
        from ember._linalg_aliases import inverse
        return inverse(self)

    def cholesky(self, upper=False) -> "Tensor":
        from ember._linalg_aliases import cholesky
        return cholesky(self, upper)

    def pinverse(self, rcond=1e-15) -> "Tensor":
        from ember._linalg_aliases import pinverse
        return pinverse(self, rcond)

    def svd(self, some=True, compute_uv=True):
        from ember._linalg_aliases import svd
        return svd(self, some, compute_uv)

    def qr(self, some=True):
        from ember._linalg_aliases import qr
        return qr(self, some)

    def split(self, split_size, dim=0):
        """Views of consecutive chunks along dim: of split_size each (the last may be smaller),
        or of the sizes in a list."""
        if isinstance(split_size, (list, tuple)):
            return self.split_with_sizes(split_size, dim)
        return _C.TensorBase.split(self, split_size, dim)

    def nonzero(self, *, as_tuple=False):
        """ember.nonzero(self, as_tuple=as_tuple)."""
        from ember.functional import nonzero
        return nonzero(self, as_tuple=as_tuple)

    def unique(self, sorted=True, return_inverse=False, return_counts=False, dim=None):  # noqa: A002
        """ember.unique(self, ...)."""
        from ember.functional import unique
        return unique(self, sorted, return_inverse, return_counts, dim)

    def unique_consecutive(self, return_inverse=False, return_counts=False, dim=None):
        """ember.unique_consecutive(self, ...)."""
        from ember.functional import unique_consecutive
        return unique_consecutive(self, return_inverse, return_counts, dim)

    def __iter__(self):
        if self.dim() == 0:
            raise TypeError("iteration over a 0-d tensor")
        return (self.select(0, i) for i in range(self.shape[0]))

    def __array__(self, dtype=None, copy=None):
        if copy is False and dtype is not None and np.dtype(dtype) != self.numpy().dtype:
            raise ValueError("__array__(): copy=False but converting the dtype needs a copy")
        a = self.numpy(force=True) if self.dtype != _C.bfloat16 else self.float().numpy(force=True)
        if dtype is not None:
            a = a.astype(dtype, copy=False)
        return a.copy() if copy else a

    def __format__(self, spec):
        if self.dim() == 0:
            return self.item().__format__(spec)
        return object.__format__(self, spec)

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        if not self.is_leaf:
            raise RuntimeError("Only Tensors created explicitly by the user (graph leaves) support "
                               "the deepcopy protocol at the moment.  If you were attempting to "
                               "deepcopy a module, this may be because of a torch.nn.utils.weight_norm "
                               "usage, see https://github.com/pytorch/pytorch/pull/103001")
        with _C_no_grad():
            result = self.clone()
        result.requires_grad = self.requires_grad
        if self.grad is not None:
            result.grad = self.grad.__deepcopy__(memo)
        memo[id(self)] = result
        return result

    def __reduce_ex__(self, proto):
        # pickle and copy.copy: the values (as a numpy array), dtype, device and requires_grad;
        # views are not kept as views (ember.save keeps shared storage).
        return (_rebuild_tensor, (_tensor_payload(self), self.requires_grad))

    def __reversed__(self):
        return iter(list(self)[::-1])

    def dim_order(self):
        return tuple(sorted(range(self.dim()), key=lambda d: -self.stride(d)))

    __hash__ = object.__hash__


def _tensor_payload(t):
    """(numpy array, dtype name, device string) of a strided tensor's values, for pickling."""
    if t.layout != _C.strided:
        raise RuntimeError(f"pickling a tensor of layout {t.layout} is not supported (ember.save it)")
    t = t.detach()
    device = str(t.device)
    dtype = str(t.dtype).replace("ember.", "").replace("torch.", "")
    if t.device.type == "meta":  # no values: the shape
        return tuple(t.shape), dtype, device
    if t.device.type != "cpu":
        t = t.cpu()
    # bfloat16 has no numpy dtype; float32 holds each value exactly.
    array = (t.float() if t.dtype == _C.bfloat16 else t).numpy(force=True).copy()
    return array, dtype, device


def _tensor_from_payload(payload):
    import ember
    array, dtype, device = payload
    if device == "meta":
        return ember.empty(array, dtype=getattr(ember, dtype), device="meta")
    t = ember.from_numpy(array).to(getattr(ember, dtype))
    return t if device == "cpu" else t.to(device)


def _rebuild_tensor(payload, requires_grad):
    t = _tensor_from_payload(payload)
    if requires_grad:
        t.requires_grad_(True)
    return t
