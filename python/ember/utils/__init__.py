"""ember.utils: utilities with torch.utils' API (data loading, activation checkpointing)."""
from ember.utils import checkpoint, data  # noqa: F401
