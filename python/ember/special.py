"""ember.special: the operators the YAML marks `python_module: special` (without "special_")."""
from ember import _C as _C

for _name in dir(_C._special):
    if not _name.startswith("__"):
        globals()[_name] = getattr(_C._special, _name)
del _name
