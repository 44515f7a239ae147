"""Python-side overhead of the Tensor API on tiny tensors (the Python-module issue): ember
against torch (goal 0.5) with numpy's nearest equivalent as a reference."""

import numpy as np

from runner.registry import python_case


def _tiny(mod):
    return mod.zeros(4, dtype=mod.float32)


def _zeros(lib, mod, quick):
    f32 = mod.float32
    return lambda: mod.zeros(4, dtype=f32) if lib == "numpy" else mod.zeros(4)


def _clone(lib, mod, quick):
    t = _tiny(mod)
    return t.copy if lib == "numpy" else t.clone


def _item(lib, mod, quick):
    t = mod.ones(1, dtype=mod.float32)
    return t.item


def _numpy(lib, mod, quick):
    t = _tiny(mod)
    return (lambda: t.view()) if lib == "numpy" else t.numpy


def _from_numpy(lib, mod, quick):
    a = np.zeros(4, dtype=np.float32)
    return (lambda: np.asarray(a)) if lib == "numpy" else (lambda: mod.from_numpy(a))


NOTE = "tiny tensor: the Python binding's per-call cost"
python_case("py_zeros_4", goals={"torch": 0.5, "numpy": None}, threads=(1,), size="4 float32",
            note="ember.zeros(4); numpy: np.zeros(4, float32)")(_zeros)
python_case("py_clone_4", goals={"torch": 0.5, "numpy": None}, threads=(1,), size="4 float32",
            note="t.clone(); numpy: a.copy()")(_clone)
python_case("py_item", goals={"torch": 0.5, "numpy": None}, threads=(1,), size="1 float32",
            note="t.item(); numpy: a.item()")(_item)
python_case("py_numpy_4", goals={"torch": 0.5, "numpy": None}, threads=(1,), size="4 float32",
            note="t.numpy() (zero-copy); numpy: a.view()")(_numpy)
python_case("py_from_numpy_4", goals={"torch": 0.5, "numpy": None}, threads=(1,), size="4 float32",
            note="from_numpy(a) (zero-copy); numpy: np.asarray(a)")(_from_numpy)
