// ember._C: the extension module behind the `ember` package.

#include "aten/BackendFallback.h"
#include "c10/backend/Backend.h"
#include <pybind11/pybind11.h>

#include "aten/Print.h"
#include "aten/autograd/Variable.h"
#include "aten/native/CpuCapability.h"
#include "aten/native/onednn/Conv.h"
#include "aten/native/sparse/SparseTensor.h"
#include "aten/PhiloxGenerator.h"
#include "c10/core/Allocator.h"
#include "c10/core/Threads.h"
#include "c10/cuda/CudaRuntime.h"
#include "c10/util/Exception.h"
#include "python/csrc/Autograd.h"
#include "python/csrc/Bindings.h"
#include "python/csrc/Convert.h"
#include "python/csrc/Exceptions.h"
#include "python/csrc/PyTensor.h"
#include "python/csrc/PyTypes.h"

namespace py = pybind11;

namespace ember::python {
namespace {

PyObject* set_tensor_class(PyObject*, PyObject* cls) {
  EMBER_PY_BEGIN
  EMBER_CHECK_TYPE(PyType_Check(cls) && PyType_IsSubtype(reinterpret_cast<PyTypeObject*>(cls),
                                                         &TensorBaseType),
                   "_set_tensor_class(): expected a subclass of TensorBase");
  Py_INCREF(cls);
  tensor_class = reinterpret_cast<PyTypeObject*>(cls);
  Py_RETURN_NONE;
  EMBER_PY_END(nullptr)
}

PyObject* from_numpy(PyObject*, PyObject* array) {
  EMBER_PY_BEGIN
  return wrap(tensor_from_numpy(array));
  EMBER_PY_END(nullptr)
}

PyObject* from_dlpack(PyObject*, PyObject* obj) {
  EMBER_PY_BEGIN
  return wrap(tensor_from_dlpack(obj));
  EMBER_PY_END(nullptr)
}

// tensor(data, *, dtype=None, device=None, requires_grad=False, pin_memory=False)
PyObject* tensor(PyObject*, PyObject* args, PyObject* kwargs) {
  EMBER_PY_BEGIN
  static const char* kwlist[] = {"data", "dtype", "device", "requires_grad", "pin_memory", nullptr};
  PyObject* data = nullptr;
  PyObject* dtype = Py_None;
  PyObject* device = Py_None;
  int requires_grad = 0;
  int pin_memory = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|$OOpp:tensor", const_cast<char**>(kwlist),
                                   &data, &dtype, &device, &requires_grad, &pin_memory)) {
    return nullptr;
  }
  std::optional<ScalarType> st;
  if (dtype != Py_None) {
    st = to_scalar_type(dtype);
    EMBER_CHECK_TYPE(st.has_value(), "tensor(): expected 'dtype' to be an ember.dtype, but got ",
                     Py_TYPE(dtype)->tp_name);
  }
  std::optional<Device> dev;
  if (device != Py_None) dev = to_device(device);
  EMBER_CHECK_NOT_IMPLEMENTED(!pin_memory, "tensor(): pin_memory=True needs a CUDA build");
  Tensor t = tensor_from_python(data, st, dev);
  if (requires_grad) ember::autograd::set_requires_grad(t, true);
  PyObject* obj = wrap(std::move(t));
  return obj;
  EMBER_PY_END(nullptr)
}

PyMethodDef module_functions[] = {
    {"_set_tensor_class", set_tensor_class, METH_O, "Sets the class wrap() instantiates."},
    {"from_numpy", from_numpy, METH_O, "A tensor sharing the memory of a numpy array."},
    {"from_dlpack", from_dlpack, METH_O, "A tensor sharing the memory of a DLPack producer."},
    {"tensor", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(tensor)),
     METH_VARARGS | METH_KEYWORDS, "A new tensor copied from data (nested lists, numbers, arrays)."},
    {nullptr, nullptr, 0, nullptr}};

PyObject* submodule(PyObject* parent, const char* name, PyMethodDef* table) {
  PyObject* m = checked(PyModule_New(name));
  add_functions(m, table);
  if (PyModule_AddObject(parent, name, m) < 0) {
    Py_DECREF(m);
    throw PythonError();
  }
  return m;
}

}  // namespace
}  // namespace ember::python

PYBIND11_MODULE(_C, m) {
  using namespace ember::python;
  PyObject* mod = m.ptr();
  try {
    init_numpy();
    init_exceptions(mod);
    init_types(mod);
    const BindingTables tables = native_bindings();
    init_tensor_type(mod, tables.methods);
    add_functions(mod, module_functions);
    submodule(mod, "_functions", tables.functions);
    submodule(mod, "_nn", tables.nn);
    submodule(mod, "_linalg", tables.linalg);
    submodule(mod, "_special", tables.special);
  } catch (const PythonError&) {
    throw py::error_already_set();
  }
  init_autograd(m);
  init_profiler(m);
  init_tracing(m);
  init_cuda(m);
  ember::PrintOptions options = ember::print_options();
  options.dtype_prefix = "ember.";
  ember::set_print_options(options);

  m.def("get_default_dtype", [] { return py::reinterpret_borrow<py::object>(dtype_object(ember::get_default_dtype())); },
        "The floating-point dtype factories use by default.");
  m.def("set_default_dtype", [](py::handle d) {
    const auto t = to_scalar_type(d.ptr());
    if (!t) throw py::type_error("set_default_dtype(): expected an ember.dtype");
    ember::set_default_dtype(*t);
  }, "Sets the default floating-point dtype.");
  m.def("get_num_threads", &ember::get_num_threads, "Threads CPU kernels may use.");
  m.def("set_num_threads", &ember::set_num_threads, "Sets the threads CPU kernels may use.");
  m.def("_allocator_stats", [] {
    const auto s = ember::cpu_allocator_stats();
    return py::make_tuple(s.live_blocks, s.live_bytes, s.allocations);
  }, "(live blocks, live bytes, allocations so far) of the CPU allocator.");
  m.def("_has_onednn", [] { return ember::native::onednn::available(); });
  m.def("_get_mkldnn_enabled", [] { return ember::native::onednn::enabled(); });
  // ember.sparse.densify_fallback(): the warning goes through Python's warnings module.
  m.def("_set_sparse_densify_fallback", [](bool on) {
    ember::native::set_sparse_densify_fallback(on, on ? +[](const std::string& msg) {
      pybind11::gil_scoped_acquire gil;
      if (PyErr_WarnEx(PyExc_UserWarning, msg.c_str(), 1) != 0) throw pybind11::error_already_set();
    } : nullptr);
  });
  // ember.backends.load / unload (c10/backend/Backend.h).
  m.def("_backend_load", [](const std::string& path) {
    py::gil_scoped_release nogil;
    return ember::device_type_name(ember::backend::load(path));
  }, "Loads an out-of-tree backend; returns its device type's name.");
  m.def("_backend_unload", [](const std::string& name) { ember::backend::unload(name); });
  m.def("_backend_loaded", [] {
    py::list out;
    for (const auto& n : ember::backend::loaded()) out.append(n);
    return out;
  });
  m.def("_backend_live_blocks", [](const std::string& name) {
    return ember::backend::live_blocks(ember::Device(name).type());
  });
  m.def("_backend_synchronize", [](const std::string& device) {
    const ember::Device d(device);
    const auto* h = ember::backend::hooks_of(d.type());
    if (!h) throw py::value_error("synchronize(): '" + device + "' is not a loaded backend's device");
    h->synchronize(d.has_index() ? d.index() : h->current_device());
  });
  // The hooks of the loaded backend a device name ("openreg", "openreg:1") belongs to, or
  // null (Device() itself raises for a name no device type has).
  auto hooks_for = [](const std::string& name) { return ember::backend::hooks_of(ember::Device(name).type()); };
  // ember.<name>.Event over the backend's event hooks; an event is an opaque handle.
  auto event_hooks = [hooks_for](const std::string& name) {
    const auto* h = hooks_for(name);
    if (!h) throw py::value_error("Event: '" + name + "' is not a loaded backend");
    if (!h->event_create) throw py::type_error("Event: the '" + name + "' backend has no events");
    return h;
  };
  m.def("_backend_event_create", [event_hooks](const std::string& name) {
    return reinterpret_cast<uintptr_t>(event_hooks(name)->event_create());
  });
  m.def("_backend_event_destroy", [hooks_for](const std::string& name, uintptr_t e) {
    const auto* h = hooks_for(name);
    if (h && h->event_destroy) h->event_destroy(reinterpret_cast<void*>(e));
  });
  m.def("_backend_event_record", [event_hooks](const std::string& name, uintptr_t e, int device) {
    event_hooks(name)->event_record(reinterpret_cast<void*>(e), device);
  });
  m.def("_backend_event_synchronize", [event_hooks](const std::string& name, uintptr_t e) {
    const auto* h = event_hooks(name);
    py::gil_scoped_release nogil;
    h->event_synchronize(reinterpret_cast<void*>(e));
  });
  m.def("_backend_event_query", [event_hooks](const std::string& name, uintptr_t e) {
    return event_hooks(name)->event_query(reinterpret_cast<void*>(e)) != 0;
  });
  m.def("_backend_event_elapsed_ms", [event_hooks](const std::string& name, uintptr_t a, uintptr_t b) {
    return event_hooks(name)->event_elapsed_ms(reinterpret_cast<void*>(a), reinterpret_cast<void*>(b));
  });
  m.def("_backend_current_device", [hooks_for](const std::string& name) {
    const auto* h = hooks_for(name);
    return h ? h->current_device() : 0;
  });
  m.def("_backend_set_device", [hooks_for](const std::string& name, int index) {
    const auto* h = hooks_for(name);
    if (!h) throw py::value_error("set_device(): '" + name + "' is not a loaded backend");
    if (index < 0 || index >= h->device_count()) {
      throw py::value_error("set_device(): expected a '" + name + "' device index below " +
                            std::to_string(h->device_count()) + ", but got " + std::to_string(index));
    }
    h->set_device(index);
  });
  m.def("_backend_device_count", [hooks_for](const std::string& name) {
    const auto* h = hooks_for(name);
    return h ? h->device_count() : 0;
  });
  m.def("_backend_manual_seed", [hooks_for](const std::string& name, uint64_t seed) {
    const auto* h = hooks_for(name);
    if (!h) throw py::value_error("manual_seed(): '" + name + "' is not a loaded backend");
    if (!h->manual_seed) throw py::type_error("manual_seed(): the '" + name + "' backend has no generator hook");
    h->manual_seed(seed);
  });
  // Note [CPU fallback]: its warnings go through Python's warnings module.
  ember::backend::set_fallback_warning_handler(+[](const std::string& msg) {
    pybind11::gil_scoped_acquire gil;
    if (PyErr_WarnEx(PyExc_UserWarning, msg.c_str(), 1) != 0) throw pybind11::error_already_set();
  });
  m.def("_fallback_stats", [] {
    py::dict out;
    for (const auto& [dev, ops] : ember::backend::fallback_stats()) {
      py::dict d;
      for (const auto& [op, n] : ops) d[py::str(op)] = n;
      out[py::str(dev)] = d;
    }
    return out;
  });
  m.def("_reset_fallback_stats", &ember::backend::reset_fallback_stats);
  m.def("_device_slots", [] {
    py::list out;
    for (int i = 0; i < ember::kNumPrivateUseSlots; ++i) {
      out.append(ember::device_type_name(static_cast<ember::DeviceType>(static_cast<int>(ember::DeviceType::PrivateUse1) + i)));
    }
    return out;
  });
  // Every operator's dispatch table, as text: equal before a backend loads and after it unloads.
  m.def("_dispatch_tables", [] {
    std::string out;
    for (const auto& op : ember::Dispatcher::singleton().ops()) out += op.entry().dump_table() + "\n";
    return py::bytes(out);
  });
  m.def("_get_sparse_densify_fallback", [] { return ember::native::sparse_densify_fallback(); });
  m.def("_set_mkldnn_enabled", [](bool on) { ember::native::onednn::set_enabled(on); });
  m.def("_onednn_cached_weights", [] { return ember::native::onednn::cached_weights(); });
  m.def("_get_cpu_capability", [] { return ember::cpu_capability_name(ember::cpu_capability()); },
        "The CPU capability the kernels run with (Note [CPU capabilities]).");
  m.def("_cpu_cache_stats", [] {
    const auto s = ember::cpu_allocator_stats();
    return py::make_tuple(s.cached_blocks, s.cached_bytes);
  }, "(cached blocks, cached bytes) of the CPU allocator.");
  m.def("_cpu_empty_cache", &ember::cpu_empty_cache, "Frees the CPU allocator's cached blocks.");
  m.def("_get_printoptions", [] {
    const auto o = ember::print_options();
    py::dict d;
    d["precision"] = o.precision;
    d["threshold"] = o.threshold;
    d["edgeitems"] = o.edgeitems;
    d["linewidth"] = o.linewidth;
    d["sci_mode"] = o.sci_mode ? py::object(py::bool_(*o.sci_mode)) : py::none();
    return d;
  });
  m.def("_set_printoptions", [](int64_t precision, double threshold, int64_t edgeitems,
                                int64_t linewidth, py::object sci_mode) {
    ember::PrintOptions o = ember::print_options();
    o.precision = precision;
    o.threshold = threshold;
    o.edgeitems = edgeitems;
    o.linewidth = linewidth;
    o.sci_mode = sci_mode.is_none() ? std::nullopt : std::optional<bool>(sci_mode.cast<bool>());
    ember::set_print_options(o);
  });
  // C++ exceptions raised inside pybind11-bound functions map as in every other binding.
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const ember::Error&) {
      set_python_error_from_current_exception();
    }
  });
}
