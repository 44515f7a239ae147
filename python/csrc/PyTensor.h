#pragma once
/// ember._C.TensorBase: the CPython type behind ember.Tensor.
///
/// Note [One Python object per tensor]: a TensorImpl points (without owning) at the Python
/// object wrapping it while that object lives; wrap() returns that object again, so the
/// same tensor keeps the same Python object (in-place ops return `self`, attributes set on
/// a tensor stay). The object owns a reference to the impl; its dealloc clears the pointer.
/// Both happen with the GIL held.

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "c10/core/Scalar.h"
#include "c10/core/Tensor.h"
#include "c10/macros/Export.h"

namespace ember::python {

struct PyTensor {
  PyObject_HEAD
  Tensor tensor;
};

EMBER_API extern PyTypeObject TensorBaseType;
/// The class wrap() instantiates: ember.Tensor once ember/__init__.py has set it.
EMBER_API extern PyTypeObject* tensor_class;

inline bool is_tensor(PyObject* o) {
  return Py_TYPE(o) == tensor_class || PyObject_TypeCheck(o, &TensorBaseType);
}
inline const Tensor& unpack(PyObject* o) { return reinterpret_cast<PyTensor*>(o)->tensor; }

/// The Python object for t (a new reference): the live one if there is one, else a new
/// ember.Tensor. None for an undefined tensor.
EMBER_API PyObject* wrap(Tensor t);
/// A Python number for a Scalar (int, float, bool or complex).
EMBER_API PyObject* wrap(const Scalar& s);

/// Readies TensorBase with the generated methods `extra` (null-terminated; kept alive by
/// the caller) and adds it to module.
EMBER_API void init_tensor_type(PyObject* module, PyMethodDef* extra);

}  // namespace ember::python
