#include "python/csrc/Exceptions.h"

#include <new>

#include "c10/util/Exception.h"
#include "c10/util/LinAlgError.h"

namespace ember::python {
namespace {

// Note [Exception classes]: Ember raises ValueError and TypeError where PyTorch raises
// RuntimeError or NotImplementedError for the same mistake (a bad value, a dtype an op does
// not take). So that code written for PyTorch (`except RuntimeError`) keeps working, the
// classes Python sees are ember.errors.ValueError(ValueError, RuntimeError) and
// ember.errors.TypeError(TypeError, NotImplementedError), the latter also a RuntimeError.
// Argument-parser errors stay plain TypeError, as PyTorch's.
PyObject* value_error_type = nullptr;
PyObject* type_error_type = nullptr;
// ember._C._LinAlgError (ember.linalg.LinAlgError): a RuntimeError, as torch._C._LinAlgError.
PyObject* linalg_error_type = nullptr;

PyObject* dual(const char* name, PyObject* a, PyObject* b, const char* doc) {
  PyObject* bases = PyTuple_Pack(2, a, b);
  if (!bases) return nullptr;
  PyObject* type = PyErr_NewExceptionWithDoc(name, doc, bases, nullptr);
  Py_DECREF(bases);
  return type;
}

}  // namespace

void init_exceptions(PyObject* module) {
  value_error_type = dual("ember.errors.ValueError", PyExc_ValueError, PyExc_RuntimeError,
                          "A bad argument value: a ValueError that is also a RuntimeError.");
  type_error_type = dual("ember.errors.TypeError", PyExc_TypeError, PyExc_NotImplementedError,
                         "A dtype or type an op does not take: a TypeError that is also a "
                         "NotImplementedError (and so a RuntimeError).");
  linalg_error_type = PyErr_NewExceptionWithDoc(
      "ember.linalg.LinAlgError", "A matrix a linear-algebra op cannot handle (singular, not "
      "positive-definite, no convergence): a RuntimeError, as torch.linalg.LinAlgError.",
      PyExc_RuntimeError, nullptr);
  if (!value_error_type || !type_error_type || !linalg_error_type ||
      PyModule_AddObjectRef(module, "_ValueError", value_error_type) < 0 ||
      PyModule_AddObjectRef(module, "_TypeError", type_error_type) < 0 ||
      PyModule_AddObjectRef(module, "_LinAlgError", linalg_error_type) < 0) {
    throw PythonError();
  }
}

void set_python_error_from_current_exception() {
  try {
    throw;
  } catch (const PythonError&) {
    if (!PyErr_Occurred()) {
      PyErr_SetString(PyExc_RuntimeError, "internal error: a Python error was expected");
    }
  } catch (const ember::ValueError& e) {
    PyErr_SetString(value_error_type ? value_error_type : PyExc_ValueError, e.what());
  } catch (const ember::IndexError& e) {
    PyErr_SetString(PyExc_IndexError, e.what());
  } catch (const ember::TypeError& e) {
    PyErr_SetString(type_error_type ? type_error_type : PyExc_TypeError, e.what());
  } catch (const ember::NotImplementedError& e) {
    PyErr_SetString(PyExc_NotImplementedError, e.what());
  } catch (const ember::LinAlgError& e) {
    PyErr_SetString(linalg_error_type ? linalg_error_type : PyExc_RuntimeError, e.what());
  } catch (const ember::Error& e) {
    PyErr_SetString(PyExc_RuntimeError, e.what());
  } catch (const std::bad_alloc&) {
    PyErr_NoMemory();
  } catch (const std::exception& e) {
    PyErr_SetString(PyExc_RuntimeError, e.what());
  } catch (...) {
    PyErr_SetString(PyExc_RuntimeError, "unknown C++ exception");
  }
}

}  // namespace ember::python
