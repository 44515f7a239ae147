"""PyTorch's legacy tensor type names: Tensor.type()'s strings ('torch.FloatTensor') and the
classes ember.FloatTensor, ember.LongTensor, ... that construct and isinstance-check by dtype.

The strings keep PyTorch's "torch." prefix, since programs compare type() against them.
"""
from __future__ import annotations

import builtins

from ember import _C
from ember.errors import NOT_COMPILED, NotCompiledError

# dtype -> the legacy name's stem ("Float" for torch.FloatTensor).
STEMS = {
    _C.float32: "Float", _C.float64: "Double", _C.float16: "Half", _C.bfloat16: "BFloat16",
    _C.int8: "Char", _C.uint8: "Byte", _C.int16: "Short", _C.int32: "Int", _C.int64: "Long",
    _C.bool: "Bool", _C.complex64: "ComplexFloat", _C.complex128: "ComplexDouble",
}
_DTYPES = {stem + "Tensor": dtype for dtype, stem in STEMS.items()}


def type_name(t) -> str:
    """Tensor.type() of t: 'torch.FloatTensor', 'torch.sparse.FloatTensor' (COO),
    'torch.meta.FloatTensor' (meta device)."""
    if t.dtype not in STEMS:
        raise RuntimeError(f"type(): no legacy type name for dtype {t.dtype}")
    if t.layout == _C.sparse_coo:
        prefix = "torch.sparse."
    elif t.layout != _C.strided:
        raise RuntimeError(f"type(): no legacy type name for layout {t.layout} (as PyTorch, "
                           f"which has none for it either)")
    else:
        prefix = "torch.meta." if t.device.type == "meta" else "torch."
    return prefix + STEMS[t.dtype] + "Tensor"


def parse_type(name: str):
    """The dtype a legacy type string names ('torch.DoubleTensor', 'torch.sparse.DoubleTensor';
    the layout part is ignored, as PyTorch ignores it; 'torch.Tensor' is the default dtype)."""
    parts = name.split(".")
    if len(parts) == 2 and parts[0] in ("torch", "ember") and parts[1] == "Tensor":
        return _C.get_default_dtype()
    if len(parts) == 3 and parts[0] in ("torch", "ember") and parts[1] == "cuda" \
            and parts[2] in _DTYPES:
        raise NotCompiledError(f"type(): cannot convert to {name}: {NOT_COMPILED}")
    if len(parts) == 3 and parts[1] == "sparse":
        parts = [parts[0], parts[2]]
    if len(parts) != 2 or parts[0] not in ("torch", "ember") or parts[1] not in _DTYPES:
        raise ValueError(f"invalid type: '{name}'")
    return _DTYPES[parts[1]]


def dtype_of(target):
    """The dtype of Tensor.type(target): an ember.dtype, a legacy string or class."""
    if isinstance(target, _C.dtype):
        return target
    if isinstance(target, str):
        return parse_type(target)
    if isinstance(target, LegacyTensorType):
        if target.is_cuda:
            raise NotCompiledError(f"type(): cannot convert to {target.__name__}: {NOT_COMPILED}")
        return target.dtype
    if isinstance(target, type) and issubclass(target, _C.TensorBase):
        return _C.get_default_dtype()
    if isinstance(target, type):
        raise ValueError(f"invalid type: '{target.__module__}.{target.__qualname__}'"
                         if target.__module__ != "builtins" else f"invalid type: '{target.__name__}'")
    raise TypeError(f"type(): expected 'dtype' to be a dtype, a str or a legacy tensor type, "
                    f"but got {type(target).__name__}")


class LegacyTensorType(type):
    """The metaclass of ember.FloatTensor & co.: isinstance checks a CPU strided tensor's
    dtype, and calling constructs one (FloatTensor(2, 3) uninitialized, FloatTensor([1, 2])
    from data)."""

    def __instancecheck__(cls, obj) -> builtins.bool:
        layout = _C.sparse_coo if cls.is_sparse else _C.strided
        return (not cls.is_cuda and isinstance(obj, _C.TensorBase) and obj.dtype == cls.dtype
                and obj.layout == layout and obj.device.type == "cpu")

    def __call__(cls, *args, device=None):
        if cls.is_cuda:
            raise TypeError(f"type {cls.__module__}.{cls.__name__} not available. "
                            f"{NOT_COMPILED}.")
        if device is not None and _C.device(device).type != "cpu":
            raise RuntimeError(f"{cls.__name__}(): expected a cpu device, but got {device}")
        import ember
        if cls.is_sparse:
            return _sparse_legacy(cls, args)
        if not args:
            return ember.empty(0, dtype=cls.dtype)
        if all(isinstance(a, builtins.int) and not isinstance(a, builtins.bool) for a in args) \
                or (len(args) == 1 and isinstance(args[0], _C.Size)):
            return ember.empty(*args, dtype=cls.dtype)
        if len(args) == 1 and isinstance(args[0], _C.TensorBase):
            if args[0].dtype != cls.dtype:
                raise TypeError(f"{cls.__name__}(): expected a tensor of dtype {cls.dtype}, but "
                                f"got one of {args[0].dtype}")
            return args[0]
        if len(args) == 1:
            return ember.tensor(args[0], dtype=cls.dtype)
        raise TypeError(f"{cls.__name__}(): expected sizes (ints), a tensor or data, but got "
                        f"{tuple(type(a).__name__ for a in args)}")

    def __repr__(cls) -> str:
        return f"<class '{cls.__module__}.{cls.__name__}'>"


def _sparse_legacy(cls, args):
    """ember.sparse.FloatTensor & co. as torch.sparse's: (indices, values[, size]) is
    sparse_coo_tensor (the values keep their dtype, as torch's do); sizes, a Size or nothing
    give an empty sparse tensor of the class's dtype."""
    import ember
    if len(args) in (2, 3) and all(isinstance(a, _C.TensorBase) for a in args[:2]):
        return ember.sparse_coo_tensor(*args)
    if len(args) == 1 and isinstance(args[0], _C.Size):
        args = tuple(args[0])
    if all(isinstance(a, builtins.int) and not isinstance(a, builtins.bool) for a in args):
        size = args or (0,)
        return ember.sparse_coo_tensor(ember.zeros(len(size), 0, dtype=_C.int64),
                                       ember.empty(0, dtype=cls.dtype), size)
    raise TypeError(f"sparse.{cls.__name__}(): expected (indices, values[, size]) tensors or sizes, "
                    f"but got {tuple(type(a).__name__ for a in args)}")


def legacy_types(module: str, is_cuda: builtins.bool, is_sparse: builtins.bool = False) -> dict[str, LegacyTensorType]:
    """{name: class} of the legacy tensor types of module ('ember', 'ember.cuda' or, sparse,
    'ember.sparse'): PyTorch's, which name no complex type as a class (nor a sparse bool)."""
    return {name: LegacyTensorType(name, (), {"dtype": dtype, "is_cuda": is_cuda,
                                              "is_sparse": is_sparse, "__module__": module})
            for name, dtype in _DTYPES.items()
            if not dtype.is_complex and not (is_sparse and dtype == _C.bool)}
