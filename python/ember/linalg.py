"""ember.linalg: the operators the YAML marks `python_module: linalg` (without "linalg_")."""
from ember import _C as _C

for _name in dir(_C._linalg):
    if not _name.startswith("__"):
        globals()[_name] = getattr(_C._linalg, _name)
del _name
