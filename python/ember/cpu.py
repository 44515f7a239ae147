"""ember.cpu: the CPU allocator's cache (Note [CPU caching allocator])."""
from ember import _C


def empty_cache() -> None:
    """Returns the large freed blocks the CPU allocator keeps for reuse to the system."""
    _C._cpu_empty_cache()


def memory_stats() -> dict:
    """Bytes and blocks held by tensors, and kept in the allocator's cache; allocations made
    since the process started."""
    live_blocks, live_bytes, allocations = _C._allocator_stats()
    cached_blocks, cached_bytes = _C._cpu_cache_stats()
    return {"allocations": allocations, "allocated_blocks": live_blocks, "allocated_bytes": live_bytes,
            "cached_blocks": cached_blocks, "cached_bytes": cached_bytes}
