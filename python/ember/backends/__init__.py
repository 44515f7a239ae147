"""ember.backends: settings and facts of the backends, as torch.backends."""
from ember.backends import cpu, mkldnn  # noqa: F401
