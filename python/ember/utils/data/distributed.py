"""ember.utils.data.distributed: where torch keeps DistributedSampler."""
from ember.utils.data.sampler import DistributedSampler  # noqa: F401

__all__ = ["DistributedSampler"]
