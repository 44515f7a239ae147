"""ember.nn.functional: the operators the YAML marks `python_module: nn`."""
from ember import _C as _C

for _name in dir(_C._nn):
    if not _name.startswith("__"):
        globals()[_name] = getattr(_C._nn, _name)
del _name
