#pragma once
/// Tensors to and from Python data: nested lists and numbers, numpy arrays (zero-copy) and
/// DLPack capsules (zero-copy).

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <optional>

#include "c10/core/Device.h"
#include "c10/core/Tensor.h"
#include "c10/macros/Export.h"

namespace ember::python {

/// Imports numpy's C API; call once at module initialisation.
EMBER_API void init_numpy();

/// ember.tensor(data): a new tensor (always a copy) from nested sequences of numbers,
/// 0-d tensors, a tensor or a numpy array; the dtype inferred as PyTorch does (bool <
/// int64 < default float < default complex) unless given.
EMBER_API Tensor tensor_from_python(PyObject* data, std::optional<ScalarType> dtype,
                                    std::optional<Device> device);
/// Nested lists of Python numbers (a number for a 0-d tensor).
EMBER_API PyObject* tensor_to_list(const Tensor& t);

/// A numpy array over the tensor's memory, keeping `self` (an ember.Tensor) alive.
EMBER_API PyObject* tensor_to_numpy(PyObject* self);
/// Whether o is a numpy.ndarray.
EMBER_API bool is_numpy_array(PyObject* o);
/// A tensor over the array's memory, keeping the array alive.
EMBER_API Tensor tensor_from_numpy(PyObject* array);

/// Tensor.__dlpack__(*, stream=None, max_version=None, dl_device=None, copy=None).
EMBER_API PyObject* tensor_to_dlpack(PyObject* self, PyObject* args, PyObject* kwargs);
/// Tensor.__dlpack_device__(): (kDLCPU, 0) for CPU tensors.
EMBER_API PyObject* dlpack_device(const Tensor& t);
/// ember.from_dlpack(obj): a tensor sharing the memory of any object with __dlpack__ (or
/// a DLPack capsule).
EMBER_API Tensor tensor_from_dlpack(PyObject* obj);

}  // namespace ember::python
