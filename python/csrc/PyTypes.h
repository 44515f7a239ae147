#pragma once
/// The small Python types of ember._C: dtype, layout, memory_format, device, Generator and
/// Size. dtype, layout and memory_format objects are singletons, compared by identity.

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "c10/core/Device.h"
#include "c10/core/Generator.h"
#include "c10/core/Layout.h"
#include "c10/core/MemoryFormat.h"
#include "c10/core/ScalarType.h"
#include "c10/macros/Export.h"
#include "c10/util/ArrayRef.h"

namespace ember::python {

struct PyDtype {
  PyObject_HEAD
  ScalarType scalar_type;
};
struct PyLayout {
  PyObject_HEAD
  Layout layout;
};
struct PyMemoryFormat {
  PyObject_HEAD
  MemoryFormat memory_format;
};
struct PyDevice {
  PyObject_HEAD
  Device device;
};
struct PyGenerator {
  PyObject_HEAD
  Generator generator;
};

EMBER_API extern PyTypeObject DtypeType;
EMBER_API extern PyTypeObject LayoutType;
EMBER_API extern PyTypeObject MemoryFormatType;
EMBER_API extern PyTypeObject DeviceType_;
EMBER_API extern PyTypeObject GeneratorType;
EMBER_API extern PyTypeObject SizeType;

inline bool is_dtype(PyObject* o) { return Py_TYPE(o) == &DtypeType; }
inline bool is_layout(PyObject* o) { return Py_TYPE(o) == &LayoutType; }
inline bool is_memory_format(PyObject* o) { return Py_TYPE(o) == &MemoryFormatType; }
inline bool is_device(PyObject* o) { return Py_TYPE(o) == &DeviceType_; }
inline bool is_generator(PyObject* o) { return PyObject_TypeCheck(o, &GeneratorType); }

/// The singleton for t (a borrowed reference).
EMBER_API PyObject* dtype_object(ScalarType t);
EMBER_API PyObject* layout_object(Layout l);
EMBER_API PyObject* memory_format_object(MemoryFormat m);
/// A new reference to a device object.
EMBER_API PyObject* device_object(Device d);
/// A new reference to a Generator object sharing g's state.
EMBER_API PyObject* generator_object(Generator g);
/// A new ember.Size.
EMBER_API PyObject* size_object(IntArrayRef sizes);

/// dtype from an ember.dtype or the Python types float/int/bool/complex; nullopt otherwise.
EMBER_API std::optional<ScalarType> to_scalar_type(PyObject* o);
/// Device from an ember.device, a string ("cpu", "cuda:1") or an int (a CUDA index);
/// throws on anything else.
EMBER_API Device to_device(PyObject* o);

/// Readies the types and adds them and the singletons (ember.float32, ...) to module.
EMBER_API void init_types(PyObject* module);

}  // namespace ember::python
