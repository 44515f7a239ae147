"""ember.backends: settings and facts of the backends, as torch.backends."""
from ember.backends import cpu, cuda, cudnn, mkldnn, mps  # noqa: F401
