#pragma once
/// ember._C's autograd bindings (python/csrc/Autograd.cpp).

#include <pybind11/pybind11.h>

#include "c10/core/Tensor.h"
#include "c10/macros/Export.h"

namespace ember::python {

/// t.grad_fn as a Python object (None for a leaf).
EMBER_API PyObject* grad_fn_object(const Tensor& t);
/// Adds the node type, the engine entry point, grad modes and hooks to module m.
EMBER_API void init_autograd(pybind11::module_& m);
/// Adds the profiler's session and user-range entry points (python/csrc/Profiler.cpp).
EMBER_API void init_profiler(pybind11::module_& m);
/// Adds the CUDA runtime's entry points (python/csrc/Cuda.cpp).
EMBER_API void init_cuda(pybind11::module_& m);
/// Adds the tracer's entry points and the Graph type (python/csrc/Tracing.cpp).
EMBER_API void init_tracing(pybind11::module_& m);

}  // namespace ember::python
