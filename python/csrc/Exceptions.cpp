#include "python/csrc/Exceptions.h"

#include <new>

#include "c10/util/Exception.h"

namespace ember::python {

void set_python_error_from_current_exception() {
  try {
    throw;
  } catch (const PythonError&) {
    if (!PyErr_Occurred()) {
      PyErr_SetString(PyExc_RuntimeError, "internal error: a Python error was expected");
    }
  } catch (const ember::ValueError& e) {
    PyErr_SetString(PyExc_ValueError, e.what());
  } catch (const ember::IndexError& e) {
    PyErr_SetString(PyExc_IndexError, e.what());
  } catch (const ember::TypeError& e) {
    PyErr_SetString(PyExc_TypeError, e.what());
  } catch (const ember::NotImplementedError& e) {
    PyErr_SetString(PyExc_NotImplementedError, e.what());
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
