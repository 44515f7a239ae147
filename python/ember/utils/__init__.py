"""ember.utils: utilities with torch.utils' API (data loading)."""
from ember.utils import data  # noqa: F401
