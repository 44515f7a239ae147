#include "python/csrc/Convert.h"

#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#define PY_ARRAY_UNIQUE_SYMBOL ember_numpy_api
#include <numpy/arrayobject.h>

#include <complex>
#include <cstring>
#include <vector>

#include "aten/TensorFactories.h"
#include "aten/native/Dispatch.h"
#include "c10/util/DimVector.h"
#include "c10/util/Exception.h"
#include "python/csrc/DLPack.h"
#include "python/csrc/Exceptions.h"
#include "python/csrc/PyTensor.h"

namespace ember::python {

// Conversions that read a tensor's memory directly (numpy, DLPack, tolist) take strided
// tensors only: a sparse tensor has no strided storage (c10/core/SparseTensorImpl.h).
static void check_strided(const Tensor& t, const char* what) {
  EMBER_CHECK_TYPE(t.layout() == Layout::Strided, what, "(): expected a strided tensor, but got a ",
                   t.layout(), " tensor; convert it with .to_dense() first");
}

void init_numpy() {
  if (_import_array() < 0) throw PythonError();
}

namespace {

// A tensor over memory owned elsewhere, freed through (context, deleter).
Tensor tensor_over(void* data, size_t span_bytes, void* context, DeleterFn deleter,
                   ScalarType dtype, IntArrayRef sizes, IntArrayRef strides) {
  Storage storage(make_intrusive<StorageImpl>(
      DataPtr(data, context, deleter, Device(DeviceType::CPU)), span_bytes));
  static const DispatchKeySet cpu_keys = tensor_key_set(Device(DeviceType::CPU));
  auto impl = make_intrusive<TensorImpl>(std::move(storage), cpu_keys, dtype);
  impl->set_sizes_and_strides(sizes, strides, 0);
  return Tensor(std::move(impl));
}

// Bytes from the first element to one past the last one reached by sizes/strides (in
// elements, all non-negative).
size_t span_of(IntArrayRef sizes, IntArrayRef strides, size_t item) {
  int64_t last = 0;
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (sizes[d] == 0) return 0;
    last += (sizes[d] - 1) * strides[d];
  }
  return static_cast<size_t>(last + 1) * item;
}

// ---- numpy ------------------------------------------------------------------------------

int numpy_type_of(ScalarType t) {
  switch (t) {
    case ScalarType::Byte: return NPY_UINT8;
    case ScalarType::Char: return NPY_INT8;
    case ScalarType::Short: return NPY_INT16;
    case ScalarType::Int: return NPY_INT32;
    case ScalarType::Long: return NPY_INT64;
    case ScalarType::Half: return NPY_FLOAT16;
    case ScalarType::Float: return NPY_FLOAT32;
    case ScalarType::Double: return NPY_FLOAT64;
    case ScalarType::ComplexFloat: return NPY_COMPLEX64;
    case ScalarType::ComplexDouble: return NPY_COMPLEX128;
    case ScalarType::Bool: return NPY_BOOL;
    default: return -1;
  }
}

std::optional<ScalarType> scalar_type_of_numpy(int type_num) {
  switch (type_num) {
    case NPY_UINT8: return ScalarType::Byte;
    case NPY_INT8: return ScalarType::Char;
    case NPY_INT16: return ScalarType::Short;
    case NPY_INT32: return ScalarType::Int;
    case NPY_INT64: return ScalarType::Long;
    case NPY_LONGLONG: return sizeof(long long) == 8 ? std::optional(ScalarType::Long) : std::nullopt;
    case NPY_FLOAT16: return ScalarType::Half;
    case NPY_FLOAT32: return ScalarType::Float;
    case NPY_FLOAT64: return ScalarType::Double;
    case NPY_COMPLEX64: return ScalarType::ComplexFloat;
    case NPY_COMPLEX128: return ScalarType::ComplexDouble;
    case NPY_BOOL: return ScalarType::Bool;
    default: return std::nullopt;
  }
}

// Runs the deleter of foreign memory with the GIL (the last reference may drop anywhere).
void decref_with_gil(void* obj) {
  if (!Py_IsInitialized()) return;
  PyGILState_STATE state = PyGILState_Ensure();
  Py_DECREF(static_cast<PyObject*>(obj));
  PyGILState_Release(state);
}

}  // namespace

bool is_numpy_array(PyObject* o) { return PyArray_Check(o); }

PyObject* tensor_to_numpy(PyObject* self) {
  const Tensor& t = unpack(self);
  check_strided(t, "numpy");
  EMBER_CHECK_TYPE(t.device().is_cpu(), "numpy(): can't convert a ", t.device(), " tensor to "
                   "numpy; copy it to the CPU first");
  const int type = numpy_type_of(t.dtype());
  EMBER_CHECK_TYPE(type >= 0, "numpy(): got unsupported ScalarType ", t.dtype(),
                   " (numpy has no such dtype); convert it first, e.g. with .float()");
  const int64_t item = static_cast<int64_t>(t.element_size());
  npy_intp dims[NPY_MAXDIMS];
  npy_intp strides[NPY_MAXDIMS];
  EMBER_CHECK_VALUE(t.dim() <= NPY_MAXDIMS, "numpy(): numpy supports at most ", NPY_MAXDIMS,
                    " dimensions, but the tensor has ", t.dim());
  for (int64_t d = 0; d < t.dim(); ++d) {
    dims[d] = t.sizes()[d];
    strides[d] = t.strides()[d] * item;
  }
  PyObject* array = PyArray_New(&PyArray_Type, static_cast<int>(t.dim()), dims, type, strides,
                                t.impl()->data(), 0, NPY_ARRAY_ALIGNED | NPY_ARRAY_WRITEABLE,
                                nullptr);
  if (!array) throw PythonError();
  if (PyArray_SetBaseObject(reinterpret_cast<PyArrayObject*>(array), Py_NewRef(self)) < 0) {
    Py_DECREF(array);
    throw PythonError();
  }
  return array;
}

Tensor tensor_from_numpy(PyObject* obj) {
  EMBER_CHECK_TYPE(PyArray_Check(obj), "from_numpy(): expected 'ndarray' to be a numpy.ndarray, "
                   "but got ", Py_TYPE(obj)->tp_name);
  auto* array = reinterpret_cast<PyArrayObject*>(obj);
  const auto dtype = scalar_type_of_numpy(PyArray_TYPE(array));
  EMBER_CHECK_TYPE(dtype.has_value(), "from_numpy(): can't convert np.ndarray of type ",
                   PyArray_DESCR(array)->typeobj->tp_name, ". The only supported types are: "
                   "float64, float32, float16, complex64, complex128, int64, int32, int16, int8, "
                   "uint8, and bool.");
  EMBER_CHECK_VALUE(PyArray_ISNOTSWAPPED(array), "from_numpy(): given numpy array has byte order "
                    "different from the native byte order; convert it with .astype() first");
  const int nd = PyArray_NDIM(array);
  const auto item = static_cast<int64_t>(PyArray_ITEMSIZE(array));
  DimVector sizes(static_cast<size_t>(nd));
  DimVector strides(static_cast<size_t>(nd));
  for (int d = 0; d < nd; ++d) {
    sizes[d] = PyArray_DIM(array, d);
    const int64_t s = PyArray_STRIDE(array, d);
    EMBER_CHECK_VALUE(s >= 0, "from_numpy(): at least one stride in the given numpy array is "
                      "negative, and tensors with negative strides are not supported. (You can "
                      "make a copy of the array with array.copy().)");
    EMBER_CHECK_VALUE(s % item == 0, "from_numpy(): given numpy array strides not a multiple of "
                      "the element byte size. Copy the numpy array to reallocate the memory.");
    strides[d] = s / item;
  }
  const size_t span = span_of(sizes, strides, static_cast<size_t>(item));
  Py_INCREF(obj);
  return tensor_over(PyArray_DATA(array), span, obj, &decref_with_gil, *dtype, sizes, strides);
}

// ---- DLPack -----------------------------------------------------------------------------

namespace {

// What a capsule we produce owns: a reference to the tensor and its shape arrays.
template <class Managed>
struct DLPackContext {
  Managed managed;
  Tensor tensor;
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;
};

template <class Managed>
void dlpack_context_deleter(Managed* m) {
  delete static_cast<DLPackContext<Managed>*>(m->manager_ctx);
}

DLDataType dl_dtype(ScalarType t) {
  const auto bits = static_cast<uint8_t>(itemsize(t) * 8);
  switch (t) {
    case ScalarType::Byte: return {kDLUInt, bits, 1};
    case ScalarType::Char: case ScalarType::Short: case ScalarType::Int: case ScalarType::Long:
      return {kDLInt, bits, 1};
    case ScalarType::Half: case ScalarType::Float: case ScalarType::Double:
      return {kDLFloat, bits, 1};
    case ScalarType::BFloat16: return {kDLBfloat, bits, 1};
    case ScalarType::ComplexFloat: case ScalarType::ComplexDouble: return {kDLComplex, bits, 1};
    case ScalarType::Bool: return {kDLBool, bits, 1};
    default: break;
  }
  EMBER_CHECK_TYPE(false, "__dlpack__(): dtype ", t, " has no DLPack type");
  return {};
}

std::optional<ScalarType> scalar_type_of_dl(DLDataType d) {
  if (d.lanes != 1) return std::nullopt;
  switch (d.code) {
    case kDLUInt: if (d.bits == 8) return ScalarType::Byte; break;
    case kDLInt:
      if (d.bits == 8) return ScalarType::Char;
      if (d.bits == 16) return ScalarType::Short;
      if (d.bits == 32) return ScalarType::Int;
      if (d.bits == 64) return ScalarType::Long;
      break;
    case kDLFloat:
      if (d.bits == 16) return ScalarType::Half;
      if (d.bits == 32) return ScalarType::Float;
      if (d.bits == 64) return ScalarType::Double;
      break;
    case kDLBfloat: if (d.bits == 16) return ScalarType::BFloat16; break;
    case kDLComplex:
      if (d.bits == 64) return ScalarType::ComplexFloat;
      if (d.bits == 128) return ScalarType::ComplexDouble;
      break;
    case kDLBool: if (d.bits == 8) return ScalarType::Bool; break;
    default: break;
  }
  return std::nullopt;
}

template <class Managed>
Managed* make_managed(const Tensor& t) {
  check_strided(t, "__dlpack__");
  EMBER_CHECK_TYPE(t.device().is_cpu(), "__dlpack__(): only CPU tensors can be exported yet");
  auto* ctx = new DLPackContext<Managed>();
  ctx->tensor = t;
  ctx->shape.assign(t.sizes().begin(), t.sizes().end());
  ctx->strides.assign(t.strides().begin(), t.strides().end());
  Managed& m = ctx->managed;
  DLTensor& dl = m.dl_tensor;
  try {
    dl.dtype = dl_dtype(t.dtype());
  } catch (...) {
    delete ctx;
    throw;
  }
  dl.data = t.impl()->data();
  dl.device = {kDLCPU, 0};
  dl.ndim = static_cast<int32_t>(t.dim());
  dl.shape = ctx->shape.data();
  dl.strides = ctx->strides.data();
  dl.byte_offset = 0;
  m.manager_ctx = ctx;
  m.deleter = &dlpack_context_deleter<Managed>;
  return &m;
}

// A capsule not consumed by anyone frees what it carries.
void legacy_capsule_destructor(PyObject* capsule) {
  if (PyCapsule_IsValid(capsule, "used_dltensor")) return;
  auto* m = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule, "dltensor"));
  if (!m) {
    PyErr_Clear();
    return;
  }
  if (m->deleter) m->deleter(m);
}
void versioned_capsule_destructor(PyObject* capsule) {
  if (PyCapsule_IsValid(capsule, "used_dltensor_versioned")) return;
  auto* m = static_cast<DLManagedTensorVersioned*>(
      PyCapsule_GetPointer(capsule, "dltensor_versioned"));
  if (!m) {
    PyErr_Clear();
    return;
  }
  if (m->deleter) m->deleter(m);
}

template <class Managed>
void call_deleter_with_gil(void* m) {
  auto* managed = static_cast<Managed*>(m);
  if (!managed->deleter) return;
  if (!Py_IsInitialized()) return;
  PyGILState_STATE state = PyGILState_Ensure();
  managed->deleter(managed);
  PyGILState_Release(state);
}

template <class Managed>
Tensor tensor_from_managed(Managed* m) {
  const DLTensor& dl = m->dl_tensor;
  EMBER_CHECK_TYPE(dl.device.device_type == kDLCPU || dl.device.device_type == kDLCUDAHost,
                   "from_dlpack(): only CPU memory can be imported yet, but got DLPack device "
                   "type ", dl.device.device_type);
  const auto dtype = scalar_type_of_dl(dl.dtype);
  EMBER_CHECK_TYPE(dtype.has_value(), "from_dlpack(): unsupported DLPack dtype (code ",
                   int(dl.dtype.code), ", bits ", int(dl.dtype.bits), ", lanes ", dl.dtype.lanes, ")");
  DimVector sizes(IntArrayRef(dl.shape, static_cast<size_t>(dl.ndim)));
  DimVector strides(static_cast<size_t>(dl.ndim));
  if (dl.strides) {
    for (int d = 0; d < dl.ndim; ++d) {
      EMBER_CHECK_VALUE(dl.strides[d] >= 0 || sizes[d] <= 1, "from_dlpack(): negative strides "
                        "are not supported");
      strides[d] = std::max<int64_t>(dl.strides[d], 0);
    }
  } else {
    int64_t s = 1;
    for (int d = dl.ndim - 1; d >= 0; --d) {
      strides[d] = s;
      s *= std::max<int64_t>(sizes[d], 1);
    }
  }
  char* data = static_cast<char*>(dl.data) + dl.byte_offset;
  const size_t span = span_of(sizes, strides, itemsize(*dtype));
  return tensor_over(data, span, m, &call_deleter_with_gil<Managed>, *dtype, sizes, strides);
}

}  // namespace

PyObject* tensor_to_dlpack(PyObject* self, PyObject* args, PyObject* kwargs) {
  static const char* kwlist[] = {"stream", "max_version", "dl_device", "copy", nullptr};
  PyObject* stream = Py_None;
  PyObject* max_version = Py_None;
  PyObject* dl_device = Py_None;
  PyObject* copy = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|$OOOO:__dlpack__", const_cast<char**>(kwlist),
                                   &stream, &max_version, &dl_device, &copy)) {
    throw PythonError();
  }
  EMBER_CHECK_VALUE(stream == Py_None, "__dlpack__(): 'stream' must be None for CPU tensors");
  EMBER_CHECK_VALUE(copy != Py_True, "__dlpack__(): copy=True is not supported; the capsule "
                    "always shares memory");
  const Tensor& t = unpack(self);
  long major = 0;
  if (max_version != Py_None) {
    EMBER_CHECK_TYPE(PyTuple_Check(max_version) && PyTuple_GET_SIZE(max_version) == 2,
                     "__dlpack__(): expected 'max_version' to be a (major, minor) tuple");
    major = PyLong_AsLong(PyTuple_GET_ITEM(max_version, 0));
    if (major == -1 && PyErr_Occurred()) throw PythonError();
  }
  if (major >= 1) {
    DLManagedTensorVersioned* m = make_managed<DLManagedTensorVersioned>(t);
    m->version = {kDLPackMajor, kDLPackMinor};
    m->flags = 0;
    PyObject* cap = PyCapsule_New(m, "dltensor_versioned", versioned_capsule_destructor);
    if (!cap) {
      m->deleter(m);
      throw PythonError();
    }
    return cap;
  }
  DLManagedTensor* m = make_managed<DLManagedTensor>(t);
  PyObject* cap = PyCapsule_New(m, "dltensor", legacy_capsule_destructor);
  if (!cap) {
    m->deleter(m);
    throw PythonError();
  }
  return cap;
}

PyObject* dlpack_device(const Tensor& t) {
  EMBER_CHECK_TYPE(t.device().is_cpu(), "__dlpack_device__(): only CPU tensors can be exported yet");
  return Py_BuildValue("(ii)", static_cast<int>(kDLCPU), 0);
}

Tensor tensor_from_dlpack(PyObject* obj) {
  PyObject* capsule = nullptr;
  if (PyCapsule_CheckExact(obj)) {
    capsule = Py_NewRef(obj);
  } else {
    PyObject* method = PyObject_GetAttrString(obj, "__dlpack__");
    if (!method) {
      PyErr_Clear();
      EMBER_CHECK_TYPE(false, "from_dlpack(): expected an object with __dlpack__ or a DLPack "
                       "capsule, but got ", Py_TYPE(obj)->tp_name);
    }
    PyObject* kwargs = Py_BuildValue("{s(ii)}", "max_version", kDLPackMajor, kDLPackMinor);
    PyObject* empty = PyTuple_New(0);
    capsule = PyObject_Call(method, empty, kwargs);
    if (!capsule && PyErr_ExceptionMatches(PyExc_TypeError)) {
      // A producer older than DLPack 1.0 takes no max_version.
      PyErr_Clear();
      capsule = PyObject_Call(method, empty, nullptr);
    }
    Py_DECREF(kwargs);
    Py_DECREF(empty);
    Py_DECREF(method);
    if (!capsule) throw PythonError();
  }
  struct Decref {
    PyObject* o;
    ~Decref() { Py_DECREF(o); }
  } hold{capsule};
  if (PyCapsule_IsValid(capsule, "dltensor_versioned")) {
    auto* m = static_cast<DLManagedTensorVersioned*>(
        PyCapsule_GetPointer(capsule, "dltensor_versioned"));
    EMBER_CHECK_VALUE(m->version.major <= kDLPackMajor, "from_dlpack(): DLPack version ",
                      m->version.major, ".", m->version.minor, " is newer than supported (",
                      kDLPackMajor, ".", kDLPackMinor, ")");
    Tensor t = tensor_from_managed(m);
    PyCapsule_SetName(capsule, "used_dltensor_versioned");
    return t;
  }
  EMBER_CHECK_VALUE(PyCapsule_IsValid(capsule, "dltensor"), "from_dlpack(): expected an unused "
                    "DLPack capsule named 'dltensor' or 'dltensor_versioned' (a capsule can be "
                    "consumed once)");
  auto* m = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule, "dltensor"));
  Tensor t = tensor_from_managed(m);
  PyCapsule_SetName(capsule, "used_dltensor");
  return t;
}

// ---- Python data -> tensor --------------------------------------------------------------

namespace {

enum class Kind { Bool, Int, Float, Complex };

struct Collected {
  std::vector<int64_t> sizes;
  std::optional<ScalarType> dtype;  // inferred, promoted across elements
  std::vector<PyObject*> leaves;    // borrowed
};

bool is_numpy_scalar(PyObject* o) { return PyArray_IsScalar(o, Generic); }

void collect(PyObject* o, size_t depth, Collected& c, std::vector<PyObject*>& keep) {
  auto promote = [&](ScalarType t) { c.dtype = c.dtype ? promote_types(*c.dtype, t) : t; };
  if (is_tensor(o)) {
    const Tensor& t = unpack(o);
    if (t.dim() == 0) {
      promote(t.dtype());
      c.leaves.push_back(o);
      EMBER_CHECK_VALUE(depth == c.sizes.size() || depth > 0, "tensor(): expected a sequence");
      return;
    }
    PyObject* list = checked(tensor_to_list(t));
    keep.push_back(list);
    promote(t.dtype());
    o = list;
  }
  if (PyBool_Check(o)) { promote(ScalarType::Bool); c.leaves.push_back(o); }
  else if (is_numpy_scalar(o)) {
    PyArray_Descr* descr = PyArray_DescrFromScalar(o);
    const auto t = descr ? scalar_type_of_numpy(descr->type_num) : std::nullopt;
    Py_XDECREF(descr);
    EMBER_CHECK_TYPE(t.has_value(), "tensor(): can't convert numpy scalar of type ",
                     Py_TYPE(o)->tp_name);
    promote(*t);
    c.leaves.push_back(o);
  }
  else if (PyLong_Check(o)) { promote(ScalarType::Long); c.leaves.push_back(o); }
  else if (PyFloat_Check(o)) { promote(get_default_dtype()); c.leaves.push_back(o); }
  else if (PyComplex_Check(o)) { promote(get_default_complex_dtype()); c.leaves.push_back(o); }
  else if (PySequence_Check(o) && !PyUnicode_Check(o) && !PyBytes_Check(o)) {
    PyObject* seq = checked(PySequence_Fast(o, "tensor(): expected a sequence"));
    keep.push_back(seq);
    const Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    EMBER_CHECK_VALUE(c.leaves.empty() || depth < c.sizes.size(),
                      "tensor(): expected a number at depth ", depth, " but found a sequence "
                      "(the nested lists are ragged)");
    detail::check_level(depth, static_cast<size_t>(n), c.sizes);
    for (Py_ssize_t i = 0; i < n; ++i) collect(PySequence_Fast_GET_ITEM(seq, i), depth + 1, c, keep);
    return;
  } else {
    EMBER_CHECK_TYPE(false, "tensor(): could not infer dtype of ", Py_TYPE(o)->tp_name);
  }
  EMBER_CHECK_VALUE(depth == c.sizes.size(), "tensor(): expected a sequence at depth ", depth,
                    " but found a number (the nested lists are ragged)");
}

}  // namespace

Tensor tensor_from_python(PyObject* data, std::optional<ScalarType> dtype,
                          std::optional<Device> device) {
  EMBER_CHECK_NOT_IMPLEMENTED(!device || device->is_cpu() || device->type() == DeviceType::Meta,
                              "tensor(): only CPU tensors can be made from data yet");
  if (is_tensor(data)) {
    const Tensor& t = unpack(data);
    return t.to(dtype.value_or(t.dtype()), false, true);
  }
  if (PyArray_Check(data) || is_numpy_scalar(data)) {
    PyObject* array = checked(PyArray_FromAny(data, nullptr, 0, 0, NPY_ARRAY_CARRAY_RO, nullptr));
    struct Decref { PyObject* o; ~Decref() { Py_DECREF(o); } } hold{array};
    Tensor shared = tensor_from_numpy(array);
    return shared.to(dtype.value_or(shared.dtype()), false, true);
  }
  Collected c;
  std::vector<PyObject*> keep;
  struct DecrefAll {
    std::vector<PyObject*>& v;
    ~DecrefAll() { for (PyObject* o : v) Py_DECREF(o); }
  } hold{keep};
  collect(data, 0, c, keep);
  // Elements are buffered at the widest type of their category, then converted.
  const ScalarType inferred = c.dtype.value_or(get_default_dtype());
  const ScalarType target = dtype.value_or(inferred);
  TensorOptions options = TensorOptions().dtype(target);
  const size_t n = c.leaves.size();
  auto leaf_tensor = [](PyObject* o) -> const Tensor* { return is_tensor(o) ? &unpack(o) : nullptr; };
  if (is_complex(inferred)) {
    std::vector<std::complex<double>> buf(n);
    for (size_t i = 0; i < n; ++i) {
      if (const Tensor* t = leaf_tensor(c.leaves[i])) { buf[i] = t->item().to_complex(); continue; }
      Py_complex v = PyComplex_AsCComplex(c.leaves[i]);
      if (v.real == -1.0 && PyErr_Occurred()) throw PythonError();
      buf[i] = {v.real, v.imag};
    }
    return detail::tensor_from_data(buf.data(), ScalarType::ComplexDouble, c.sizes, inferred, options);
  }
  if (is_floating_point(inferred)) {
    std::vector<double> buf(n);
    for (size_t i = 0; i < n; ++i) {
      if (const Tensor* t = leaf_tensor(c.leaves[i])) { buf[i] = t->item().to_double(); continue; }
      buf[i] = PyFloat_AsDouble(c.leaves[i]);
      if (buf[i] == -1.0 && PyErr_Occurred()) throw PythonError();
    }
    return detail::tensor_from_data(buf.data(), ScalarType::Double, c.sizes, inferred, options);
  }
  if (inferred == ScalarType::Bool) {
    std::vector<uint8_t> buf(n);
    for (size_t i = 0; i < n; ++i) {
      if (const Tensor* t = leaf_tensor(c.leaves[i])) { buf[i] = t->item().to<bool>(); continue; }
      const int v = PyObject_IsTrue(c.leaves[i]);
      if (v < 0) throw PythonError();
      buf[i] = static_cast<uint8_t>(v);
    }
    return detail::tensor_from_data(buf.data(), ScalarType::Bool, c.sizes, inferred, options);
  }
  std::vector<int64_t> buf(n);
  for (size_t i = 0; i < n; ++i) {
    if (const Tensor* t = leaf_tensor(c.leaves[i])) { buf[i] = t->item().to_long(); continue; }
    int overflow = 0;
    buf[i] = PyLong_AsLongLongAndOverflow(c.leaves[i], &overflow);
    if (buf[i] == -1 && PyErr_Occurred()) throw PythonError();
    EMBER_CHECK(overflow == 0, "tensor(): Overflow when unpacking long");
  }
  return detail::tensor_from_data(buf.data(), ScalarType::Long, c.sizes, inferred, options);
}

// ---- tensor -> Python lists -------------------------------------------------------------

namespace {

template <class T>
PyObject* element_to_py(const T& v) {
  if constexpr (std::is_same_v<T, bool>) return PyBool_FromLong(v);
  else if constexpr (std::is_integral_v<T>) return PyLong_FromLongLong(static_cast<long long>(v));
  else if constexpr (std::is_same_v<T, std::complex<float>> || std::is_same_v<T, std::complex<double>>)
    return PyComplex_FromDoubles(static_cast<double>(v.real()), static_cast<double>(v.imag()));
  else if constexpr (std::is_floating_point_v<T>) return PyFloat_FromDouble(static_cast<double>(v));
  else return PyFloat_FromDouble(static_cast<double>(static_cast<float>(v)));  // Half, BFloat16
}

template <class T>
PyObject* to_list_rec(const T* data, IntArrayRef sizes, IntArrayRef strides, size_t d) {
  if (d == sizes.size()) return element_to_py(*data);
  PyObject* list = checked(PyList_New(sizes[d]));
  for (int64_t i = 0; i < sizes[d]; ++i) {
    PyObject* item = to_list_rec(data + i * strides[d], sizes, strides, d + 1);
    if (!item) {
      Py_DECREF(list);
      throw PythonError();
    }
    PyList_SET_ITEM(list, i, item);
  }
  return list;
}

}  // namespace

PyObject* tensor_to_list(const Tensor& t) {
  check_strided(t, "tolist");
  EMBER_CHECK_TYPE(t.device().is_cpu(), "tolist(): expected a CPU tensor, but got a ", t.device(),
                   " tensor");
  return dispatch_all_types(t.dtype(), "tolist", [&](auto tag) -> PyObject* {
    using T = typename decltype(tag)::type;
    PyObject* r = to_list_rec(static_cast<const T*>(t.impl()->data()), t.sizes(), t.strides(), 0);
    if (!r) throw PythonError();
    return r;
  });
}

}  // namespace ember::python
