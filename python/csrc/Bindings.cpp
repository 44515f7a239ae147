#include "python/csrc/Bindings.h"

#include "python/csrc/Exceptions.h"
#include "python/csrc/PyTensor.h"

namespace ember::python {

void add_functions(PyObject* module, PyMethodDef* table) {
  if (PyModule_AddFunctions(module, table) < 0) throw PythonError();
}

namespace {

// Sets each function of table as an attribute of the object at `path` (e.g.
// "ember.nn.functional"), and records its name in the library module.
void install_functions(PyObject* library, const char* path, PyMethodDef* table) {
  if (!table || !table->ml_name) return;
  PyObject* target = checked(PyImport_ImportModule(path));
  for (PyMethodDef* def = table; def->ml_name; ++def) {
    PyObject* fn = PyCFunction_NewEx(def, nullptr, nullptr);
    if (!fn || PyObject_SetAttrString(target, def->ml_name, fn) < 0 ||
        PyObject_SetAttrString(library, def->ml_name, fn) < 0) {
      Py_XDECREF(fn);
      Py_DECREF(target);
      throw PythonError();
    }
    Py_DECREF(fn);
  }
  Py_DECREF(target);
}

}  // namespace

PyObject* make_library_module(const char* name, BindingTables tables) {
  EMBER_PY_BEGIN
  static PyModuleDef def = {PyModuleDef_HEAD_INIT, nullptr, "An Ember operator library.", -1,
                            nullptr, nullptr, nullptr, nullptr, nullptr};
  def.m_name = name;
  PyObject* library = checked(PyModule_Create(&def));
  try {
    install_functions(library, "ember", tables.functions);
    install_functions(library, "ember.nn.functional", tables.nn);
    install_functions(library, "ember.linalg", tables.linalg);
    install_functions(library, "ember.special", tables.special);
    for (PyMethodDef* m = tables.methods; m && m->ml_name; ++m) {
      // A method descriptor of TensorBase, set on ember.Tensor (a heap type, so mutable).
      PyObject* descr = checked(PyDescr_NewMethod(&TensorBaseType, m));
      const int rc = PyObject_SetAttrString(reinterpret_cast<PyObject*>(tensor_class), m->ml_name, descr);
      Py_DECREF(descr);
      if (rc < 0) throw PythonError();
    }
  } catch (...) {
    Py_DECREF(library);
    throw;
  }
  return library;
  EMBER_PY_END(nullptr)
}

}  // namespace ember::python
