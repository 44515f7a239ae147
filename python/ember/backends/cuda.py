"""ember.backends.cuda: torch.backends.cuda's settings on a build without CUDA.

`matmul.allow_tf32` is the float32 matmul precision seen as a bool (True is "high", False
"highest"), as in PyTorch; the reduced-precision-reduction flags are recorded only.
"""
from ember import _float32_precision


def is_built() -> bool:
    """Whether Ember was built with CUDA: not this build."""
    return False


class cuBLASModule:
    """torch.backends.cuda.matmul: the cuBLAS settings."""

    _flags = {"allow_fp16_reduced_precision_reduction": True,
              "allow_bf16_reduced_precision_reduction": True}

    def __getattr__(self, name):
        if name == "allow_tf32":
            return _float32_precision.get_float32_matmul_precision() != "highest"
        if name in self._flags:
            return self._flags[name]
        raise AttributeError(f"Unknown attribute {name}")

    def __setattr__(self, name, value):
        if name not in self._flags and name != "allow_tf32":
            raise AttributeError(f"Unknown attribute {name}")
        if not isinstance(value, bool):
            raise RuntimeError(f"ember.backends.cuda.matmul.{name}: expected a bool, but got "
                               f"{type(value).__name__}")
        if name == "allow_tf32":
            _float32_precision.set_float32_matmul_precision("high" if value else "highest")
        else:
            self._flags[name] = value


matmul = cuBLASModule()
