"""The share of torch's public API, per namespace, that Ember provides under the same name.

Run with `pytest -s` to see the table. Each namespace has a floor (its share when the floor
was last raised, rounded down): the test fails when a share drops below it. The goal is 95%
everywhere; raise a floor when names land. Names not counted, and why, are in
api_coverage_exclusions.py.
"""
import types

import torch

import ember
from api_coverage_exclusions import EXCLUDED

# namespace -> lowest accepted share, in percent.
FLOORS = {
    "Tensor": 95, "nn": 100, "nn.functional": 100, "optim": 100, "linalg": 100, "special": 100,
    "fft": 100, "autograd": 100, "utils.data": 100,
}
GOAL = 95


def _resolve(root, path):
    obj = root
    for part in path.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj


def _dropped_by_rule(namespace_obj, value) -> bool:
    """Modules imported from outside the namespace, typing constructs, docstring templates
    (strings, and dicts of strings such as torch.fft.common_args)."""
    if isinstance(value, types.ModuleType):
        own = getattr(namespace_obj, "__name__", "")
        return not value.__name__.startswith(own + ".")
    if isinstance(value, str):
        return True
    if isinstance(value, dict) and value and all(isinstance(v, str) for v in value.values()):
        return True  # docstring templates (torch.fft.common_args, nn.functional.tf32_notes)
    module = getattr(value, "__module__", None) or ""
    return module == "typing" or module.startswith(("typing.", "collections.abc"))


def public_names(namespace: str):
    """The public names torch has in `namespace`, less those dropped by rule or excluded."""
    obj = _resolve(torch, namespace)
    names = []
    for name in dir(obj):
        if name.startswith("_") or name in EXCLUDED[namespace]:
            continue
        if _dropped_by_rule(obj, getattr(obj, name)):
            continue
        names.append(name)
    return names


def coverage():
    """{namespace: (names torch has, names Ember lacks)}."""
    result = {}
    for namespace in FLOORS:
        ours = _resolve(ember, namespace)
        names = public_names(namespace)
        missing = [n for n in names if ours is None or not hasattr(ours, n)]
        result[namespace] = (names, missing)
    return result


def table(result) -> str:
    lines = [f"{'namespace':<15}{'torch':>7}{'ember':>7}{'share':>8}{'floor':>7}",
             "-" * 44]
    for namespace, (names, missing) in result.items():
        have = len(names) - len(missing)
        share = 100.0 * have / len(names) if names else 100.0
        lines.append(f"{namespace:<15}{len(names):>7}{have:>7}{share:>7.1f}%"
                     f"{FLOORS[namespace]:>6}%")
    return "\n".join(lines)


def test_api_coverage_floors():
    result = coverage()
    report = table(result)
    print(f"\nAPI coverage against torch {torch.__version__} (goal {GOAL}% each):\n{report}")
    below = []
    for namespace, (names, missing) in result.items():
        share = 100.0 * (len(names) - len(missing)) / len(names) if names else 100.0
        if share < FLOORS[namespace]:
            below.append(f"{namespace}: {share:.1f}% < floor {FLOORS[namespace]}% "
                         f"(missing: {', '.join(missing)})")
    assert not below, ("API coverage dropped below its floor:\n" + "\n".join(below)
                       + "\n\n" + report)


def test_exclusions_are_current_and_explained():
    assert set(EXCLUDED) == set(FLOORS)
    stale = []
    for namespace, names in EXCLUDED.items():
        obj = _resolve(torch, namespace)
        for name, reason in names.items():
            assert isinstance(reason, str) and len(reason) > 10, (namespace, name)
            if not hasattr(obj, name):
                stale.append(f"{namespace}.{name}")
    assert not stale, f"excluded names torch no longer has (remove them): {stale}"


def test_rules_drop_only_non_api_names():
    import math
    nn_functional = torch.nn.functional
    assert _dropped_by_rule(nn_functional, torch)
    assert _dropped_by_rule(nn_functional, math)
    assert _dropped_by_rule(nn_functional, "docstring")
    assert _dropped_by_rule(torch.fft, torch.fft.common_args)
    assert not _dropped_by_rule(nn_functional, {})
    assert not _dropped_by_rule(nn_functional, {"a": 1})
    assert not _dropped_by_rule(torch.nn, torch.nn.init)
    assert not _dropped_by_rule(nn_functional, nn_functional.relu)
    assert "relu" in public_names("nn.functional") and "torch" not in public_names("fft")
    assert "add" in public_names("Tensor") and "eig" not in public_names("Tensor")
