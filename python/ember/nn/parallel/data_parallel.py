"""DataParallel without CUDA devices: the wrapped module runs as is, as PyTorch's CPU build
runs it (no device to split the batch over)."""
from __future__ import annotations

from ember.nn.modules.module import Module


class DataParallel(Module):
    """torch.nn.DataParallel: with no CUDA device (Ember has none yet), forward calls the
    module itself; its parameters appear as `module.<name>`, as in PyTorch."""

    def __init__(self, module: Module, device_ids=None, output_device=None, dim: int = 0) -> None:
        super().__init__()
        if not isinstance(module, Module):
            raise TypeError(f"DataParallel(): expected 'module' to be an ember.nn.Module, but got "
                            f"{type(module).__name__}")
        self.module = module
        self.device_ids = []

    def forward(self, *inputs, **kwargs):
        return self.module(*inputs, **kwargs)


def data_parallel(module: Module, inputs, device_ids=None, output_device=None, dim: int = 0,
                  module_kwargs=None):
    """torch.nn.parallel.data_parallel: needs devices to spread module over, so it raises
    RuntimeError without them, as PyTorch's CPU build does."""
    raise RuntimeError("data_parallel(): device type could not be determined (Ember was built "
                       "without CUDA); call the module itself")
