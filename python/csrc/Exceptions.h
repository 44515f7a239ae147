#pragma once
/// C++ exceptions to Python exceptions: every binding body sits between EMBER_PY_BEGIN and
/// EMBER_PY_END, so no C++ exception crosses into the interpreter.

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <exception>

#include "c10/macros/Export.h"

namespace ember::python {

/// Thrown when a Python error is already set (a failed C-API call): translated as is.
struct PythonError : std::exception {
  const char* what() const noexcept override { return "Python error"; }
};

/// Sets the Python error matching the exception being handled: ember::ValueError ->
/// ValueError, IndexError, TypeError, NotImplementedError (see Note [Exception classes]);
/// other ember::Error -> RuntimeError; std::bad_alloc -> MemoryError. Call only inside a
/// catch block.
EMBER_API void set_python_error_from_current_exception();

/// Creates the exception classes (Note [Exception classes]) and adds them to module.
EMBER_API void init_exceptions(PyObject* module);

/// Throws PythonError when obj is null (a C-API call failed); returns obj otherwise.
inline PyObject* checked(PyObject* obj) {
  if (!obj) throw PythonError();
  return obj;
}

}  // namespace ember::python

#define EMBER_PY_BEGIN try {
#define EMBER_PY_END(failure)                                   \
  }                                                             \
  catch (...) {                                                 \
    ::ember::python::set_python_error_from_current_exception(); \
    return failure;                                             \
  }
