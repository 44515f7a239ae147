#pragma once
/// The tables of generated bindings (codegen/gen_python.py) and how they reach Python.

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "c10/macros/Export.h"

namespace ember::python {

/// Null-terminated PyMethodDef arrays with static storage, one per Python namespace.
struct BindingTables {
  PyMethodDef* functions;  // ember.<op>
  PyMethodDef* nn;         // ember.nn.functional.<op>
  PyMethodDef* linalg;     // ember.linalg.<op>
  PyMethodDef* special;    // ember.special.<op>
  PyMethodDef* methods;    // ember.Tensor.<op>
};

/// The bindings of native_functions.yaml (generated into _C).
BindingTables native_bindings();

/// Adds each table's functions to a module (created as a submodule `name` of parent when
/// missing) : used by _C for `_C._functions`, `_C._nn`, `_C._linalg`, `_C._special`.
EMBER_API void add_functions(PyObject* module, PyMethodDef* table);

/// The module object of an operator library's Python extension: imports ember, then puts
/// the library's functions into ember (and ember.nn.functional, ember.linalg,
/// ember.special) and its methods onto ember.Tensor. Returns a new reference, or null
/// with a Python error set.
EMBER_API PyObject* make_library_module(const char* name, BindingTables tables);

}  // namespace ember::python
