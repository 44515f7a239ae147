"""DistributedDataParallel: waits for ember.distributed (process groups, all-reduce)."""
from __future__ import annotations

from ember.nn.modules.module import Module


class DistributedDataParallel(Module):
    """torch.nn.parallel.DistributedDataParallel: raises NotImplementedError until
    ember.distributed exists (the distributed issue)."""

    def __init__(self, module, *args, **kwargs) -> None:
        raise NotImplementedError(
            "DistributedDataParallel(): ember.distributed (process groups and gradient "
            "all-reduce) is not built yet (the distributed issue); on one process, use the "
            "module itself")
