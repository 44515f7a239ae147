"""ember.nn: neural-network building blocks (modules arrive with the nn issue)."""
from ember.nn import functional  # noqa: F401
