"""ember.backends: settings and facts of the backends, as torch.backends, and the loader of
out-of-tree device backends (load, unload, loaded; c10/backend/Backend.h)."""
import os
import sys
import types

from ember.backends import cpu, cuda, cudnn, mkldnn, mps  # noqa: F401

__all__ = ["load", "unload", "loaded", "fallback_stats", "reset_fallback_stats"]

_modules = {}  # name -> the ember.<name> module made at load


def _device_module(name):
    import ember
    m = types.ModuleType(f"ember.{name}", f"The '{name}' device of an out-of-tree backend "
                                          f"(ember.backends.load), as torch.cuda is for CUDA.")

    def is_available():
        return name in ember._C._backend_loaded() and ember._C._backend_device_count(name) > 0

    def device_count():
        return ember._C._backend_device_count(name)

    def synchronize(device=None):
        """Waits until everything queued on the device (default: the current one) has run."""
        d = name if device is None else str(ember.device(device) if not isinstance(device, int) else f"{name}:{device}")
        ember._C._backend_synchronize(d)

    def manual_seed(seed):
        ember._C._backend_manual_seed(name, int(seed))

    def current_device():
        return ember._C._backend_current_device(name)

    def set_device(device):
        ember._C._backend_set_device(name, device if isinstance(device, int) else (ember.device(device).index or 0))

    class Event:
        """A point in the device's stream (torch.cuda.Event's API): record() marks it on the
        current device's stream, synchronize() waits until the stream passes it, query() says
        whether it has, elapsed_time(end) is the milliseconds between two passed events."""

        def __init__(self, enable_timing=False, blocking=False, interprocess=False):
            self._handle = ember._C._backend_event_create(name)
            self._device = None

        def record(self, stream=None):
            self._device = ember._C._backend_current_device(name)
            ember._C._backend_event_record(name, self._handle, self._device)

        def synchronize(self):
            ember._C._backend_event_synchronize(name, self._handle)

        def query(self):
            return ember._C._backend_event_query(name, self._handle)

        def wait(self, stream=None):
            # One stream per device: work queued later on it runs after the event anyway.
            self.synchronize()

        def elapsed_time(self, end):
            if self._device is None or end._device is None:
                raise RuntimeError("elapsed_time(): both events must be recorded first")
            self.synchronize()
            end.synchronize()
            return ember._C._backend_event_elapsed_ms(name, self._handle, end._handle)

        def __del__(self):
            handle = getattr(self, "_handle", None)
            if handle is not None and name in ember._C._backend_loaded():
                ember._C._backend_event_destroy(name, handle)

    Event.__qualname__ = "Event"
    Event.__module__ = m.__name__
    m.Event = Event
    for f in (is_available, device_count, synchronize, manual_seed, current_device, set_device):
        f.__module__ = m.__name__
        setattr(m, f.__name__, f)
    m.manual_seed_all = manual_seed
    return m


def load(path):
    """Loads the out-of-tree backend at `path` (a shared library made with EMBER_BACKEND) and
    returns the name of the device type it was given: tensors go there with
    t.to(name), ember.device(f"{name}:0") names its devices, ember.<name> holds its
    device_count / synchronize / manual_seed, and Tensor.is_<name> says whether a tensor is
    on it. The library's stamp is checked first: one built against another Ember is refused
    with an error, never run."""
    import ember
    path = os.fspath(path)
    if not os.path.exists(path):
        raise FileNotFoundError(f"backends.load(): no file '{path}'")
    name = ember._C._backend_load(os.path.abspath(path))
    if hasattr(ember, name) or hasattr(ember.Tensor, f"is_{name}"):
        ember._C._backend_unload(name)
        raise ValueError(f"backends.load(): the backend's device name '{name}' is taken by ember.{name} or "
                         f"Tensor.is_{name}; the backend is unloaded again")
    m = _device_module(name)
    _modules[name] = m
    setattr(ember, name, m)
    sys.modules[m.__name__] = m
    setattr(ember.Tensor, f"is_{name}", property(lambda self: self.device.type == name,
                                                  doc=f"Whether the tensor is on a '{name}' device."))
    return name


def unload(name):
    """Unloads the backend named `name`: its kernels leave the dispatch tables (which are
    then as before the load), its device slot is freed, ember.<name> and Tensor.is_<name> go.
    Refused while tensors on its device are alive."""
    import ember
    ember._C._backend_unload(name)
    if name in _modules:
        del _modules[name]
        delattr(ember, name)
        sys.modules.pop(f"ember.{name}", None)
        delattr(ember.Tensor, f"is_{name}")


def loaded():
    """The names of the loaded backends, in load order."""
    import ember
    return list(ember._C._backend_loaded())


def fallback_stats():
    """Calls that ran on the CPU through a backend's CPU fallback (Note [CPU fallback]):
    {device type name: {operator: calls}}, for every backend that enabled one."""
    import ember
    return ember._C._fallback_stats()


def reset_fallback_stats():
    """Zeroes the fallback counts (the once-per-operator warnings come again)."""
    import ember
    ember._C._reset_fallback_stats()
