#include "python/csrc/PyTensor.h"

#include <vector>

#include "aten/Print.h"
#include "aten/TensorIndexing.h"
#include "aten/autograd/Variable.h"
#include "aten/native/MemoryFormats.h"
#include "aten/tracing/Tracer.h"
#include "c10/util/Exception.h"
#include "ember/generated/ops/alias.h"
#include "ember/generated/ops/empty.h"
#include "python/csrc/Autograd.h"
#include "python/csrc/Convert.h"
#include "python/csrc/Exceptions.h"
#include "python/csrc/PyTypes.h"

namespace ember::python {

PyTypeObject TensorBaseType = {PyVarObject_HEAD_INIT(nullptr, 0) "ember._C.TensorBase"};
PyTypeObject* tensor_class = &TensorBaseType;

PyObject* wrap(Tensor t) {
  if (!t.defined()) Py_RETURN_NONE;
  TensorImpl* impl = t.impl();
  if (auto* existing = static_cast<PyObject*>(impl->pyobj())) return Py_NewRef(existing);
  PyObject* obj = tensor_class->tp_alloc(tensor_class, 0);
  if (!obj) throw PythonError();
  auto* self = reinterpret_cast<PyTensor*>(obj);
  new (&self->tensor) Tensor(std::move(t));
  impl->set_pyobj(obj);
  return obj;
}

PyObject* wrap(const Scalar& s) {
  switch (s.kind()) {
    case Scalar::Kind::Bool: return PyBool_FromLong(s.to<bool>());
    case Scalar::Kind::Int: return PyLong_FromLongLong(s.to_long());
    case Scalar::Kind::Double: return PyFloat_FromDouble(s.to_double());
    case Scalar::Kind::Complex: {
      const auto c = s.to_complex();
      return PyComplex_FromDoubles(c.real(), c.imag());
    }
  }
  Py_RETURN_NONE;
}

namespace {

PyTensor* as_pt(PyObject* o) { return reinterpret_cast<PyTensor*>(o); }
const Tensor& self_t(PyObject* o) { return as_pt(o)->tensor; }

PyObject* tensor_new(PyTypeObject* type, PyObject* args, PyObject* kwargs) {
  EMBER_PY_BEGIN
  // The legacy constructor: Tensor() is empty, Tensor(2, 3) uninitialised of that size,
  // Tensor(data) copies data; always of the default dtype, as torch.Tensor.
  EMBER_CHECK_TYPE(!kwargs || PyDict_GET_SIZE(kwargs) == 0,
                   "Tensor(): takes no keyword arguments");
  const Py_ssize_t n = PyTuple_GET_SIZE(args);
  Tensor t;
  bool all_ints = true;
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject* a = PyTuple_GET_ITEM(args, i);
    all_ints = all_ints && PyLong_Check(a) && !PyBool_Check(a);
  }
  if (all_ints) {
    std::vector<int64_t> sizes;
    if (n == 0) sizes.push_back(0);  // Tensor() is empty, not 0-d
    for (Py_ssize_t i = 0; i < n; ++i) sizes.push_back(PyLong_AsLongLong(PyTuple_GET_ITEM(args, i)));
    if (PyErr_Occurred()) throw PythonError();
    t = empty(sizes, TensorOptions().dtype(get_default_dtype()));
  } else {
    EMBER_CHECK_TYPE(n == 1, "Tensor(): expected sizes (ints) or one sequence of data");
    t = tensor_from_python(PyTuple_GET_ITEM(args, 0), get_default_dtype(), std::nullopt);
  }
  PyObject* obj = type->tp_alloc(type, 0);
  if (!obj) return nullptr;
  new (&as_pt(obj)->tensor) Tensor(std::move(t));
  as_pt(obj)->tensor.impl()->set_pyobj(obj);
  return obj;
  EMBER_PY_END(nullptr)
}

void tensor_dealloc(PyObject* obj) {
  PyTensor* self = as_pt(obj);
  TensorImpl* impl = self->tensor.impl();
  if (impl->defined() && impl->pyobj() == obj) impl->set_pyobj(nullptr);
  self->tensor.~Tensor();
  Py_TYPE(obj)->tp_free(obj);
}

PyObject* tensor_repr(PyObject* self) {
  EMBER_PY_BEGIN
  const Tensor& t = self_t(self);
  std::string s = to_string(t);
  if (auto fn = autograd::grad_fn(t)) {
    s.insert(s.size() - 1, ", grad_fn=<" + fn->name() + ">");
  } else if (autograd::requires_grad(t)) {
    s.insert(s.size() - 1, ", requires_grad=True");
  }
  return PyUnicode_FromStringAndSize(s.data(), static_cast<Py_ssize_t>(s.size()));
  EMBER_PY_END(nullptr)
}

// ---- properties -------------------------------------------------------------------------

PyObject* get_shape(PyObject* self, void*) {
  EMBER_PY_BEGIN
  return size_object(self_t(self).sizes());
  EMBER_PY_END(nullptr)
}
PyObject* get_dtype(PyObject* self, void*) { return Py_NewRef(dtype_object(self_t(self).dtype())); }
PyObject* get_layout(PyObject* self, void*) { return Py_NewRef(layout_object(self_t(self).layout())); }
PyObject* get_device(PyObject* self, void*) {
  EMBER_PY_BEGIN
  return device_object(self_t(self).device());
  EMBER_PY_END(nullptr)
}
PyObject* get_ndim(PyObject* self, void*) { return PyLong_FromLongLong(self_t(self).dim()); }
PyObject* get_is_cpu(PyObject* self, void*) { return PyBool_FromLong(self_t(self).device().is_cpu()); }
PyObject* get_is_cuda(PyObject* self, void*) { return PyBool_FromLong(self_t(self).device().is_cuda()); }
PyObject* get_is_meta(PyObject* self, void*) {
  return PyBool_FromLong(self_t(self).device().type() == DeviceType::Meta);
}
PyObject* get_itemsize(PyObject* self, void*) { return PyLong_FromSize_t(self_t(self).element_size()); }
PyObject* get_nbytes(PyObject* self, void*) {
  const Tensor& t = self_t(self);
  return PyLong_FromLongLong(t.numel() * static_cast<int64_t>(t.element_size()));
}
PyObject* get_requires_grad(PyObject* self, void*) {
  return PyBool_FromLong(autograd::requires_grad(self_t(self)));
}
int set_requires_grad(PyObject* self, PyObject* value, void*) {
  EMBER_PY_BEGIN
  EMBER_CHECK_TYPE(value && PyBool_Check(value),
                   "requires_grad: expected a bool, but got ", value ? Py_TYPE(value)->tp_name : "deletion");
  autograd::set_requires_grad(self_t(self), value == Py_True);
  return 0;
  EMBER_PY_END(-1)
}
PyObject* get_is_leaf(PyObject* self, void*) {
  EMBER_PY_BEGIN
  return PyBool_FromLong(autograd::is_leaf(self_t(self)));
  EMBER_PY_END(nullptr)
}
PyObject* get_grad(PyObject* self, void*) {
  EMBER_PY_BEGIN
  return wrap(autograd::grad(self_t(self)));
  EMBER_PY_END(nullptr)
}
int set_grad(PyObject* self, PyObject* value, void*) {
  EMBER_PY_BEGIN
  EMBER_CHECK_TYPE(!value || value == Py_None || is_tensor(value), "grad: expected a Tensor or "
                   "None, but got ", value ? Py_TYPE(value)->tp_name : "deletion");
  autograd::set_grad(self_t(self), value && value != Py_None ? unpack(value) : Tensor());
  return 0;
  EMBER_PY_END(-1)
}
PyObject* get_grad_fn(PyObject* self, void*) {
  EMBER_PY_BEGIN
  return grad_fn_object(self_t(self));
  EMBER_PY_END(nullptr)
}
PyObject* get_version(PyObject* self, void*) { return PyLong_FromUnsignedLong(self_t(self)._version()); }
PyObject* get_output_nr(PyObject* self, void*) {
  return PyLong_FromUnsignedLong(autograd::output_nr(self_t(self)));
}
PyObject* get_retains_grad(PyObject* self, void*) {
  return PyBool_FromLong(autograd::retains_grad(self_t(self)));
}
PyObject* get_is_inference(PyObject* self, void*) { Py_RETURN_FALSE; }
// Tensor.as_subclass(cls): an object of the Tensor subclass cls over ember::alias(self), a
// view that stays in the autograd graph (unlike _make_subclass, which detaches).
PyObject* m_as_subclass(PyObject* self, PyObject* cls) {
  EMBER_PY_BEGIN
  EMBER_CHECK_TYPE(PyType_Check(cls) && PyType_IsSubtype(reinterpret_cast<PyTypeObject*>(cls),
                                                         &TensorBaseType),
                   "as_subclass(): expected 'cls' to be a subclass of ember.Tensor, but got ",
                   PyType_Check(cls) ? reinterpret_cast<PyTypeObject*>(cls)->tp_name : Py_TYPE(cls)->tp_name);
  auto* type = reinterpret_cast<PyTypeObject*>(cls);
  Tensor t = alias(self_t(self));
  PyObject* obj = type->tp_alloc(type, 0);
  if (!obj) return nullptr;
  new (&as_pt(obj)->tensor) Tensor(std::move(t));
  as_pt(obj)->tensor.impl()->set_pyobj(obj);
  return obj;
  EMBER_PY_END(nullptr)
}
PyObject* get_data(PyObject* self, void*) {
  EMBER_PY_BEGIN
  return wrap(autograd::detach(self_t(self)));
  EMBER_PY_END(nullptr)
}

// `t.data = other`: t takes other's storage, shape and dtype, keeping its identity and
// autograd state (PyTorch's set_data; Module.to keeps parameters this way).
int set_data(PyObject* self, PyObject* value, void*) {
  EMBER_PY_BEGIN
  EMBER_CHECK_TYPE(value && is_tensor(value), "data: expected a Tensor, but got ",
                   value ? Py_TYPE(value)->tp_name : "deletion");
  const Tensor& t = self_t(self);
  const Tensor& src = unpack(value);
  EMBER_CHECK_TYPE(src.impl()->key_set() == t.impl()->key_set() && src.device() == t.device(),
                   "data: expected a tensor on ", t.device(), " with the same layout as the tensor assigned to (",
                   t.layout(), "), but got one on ", src.device(), " (", src.layout(), ")");
  t.impl()->set_data(*src.impl());
  return 0;
  EMBER_PY_END(-1)
}

PyGetSetDef tensor_getset[] = {
    {"shape", get_shape, nullptr, "The sizes (an ember.Size).", nullptr},
    {"dtype", get_dtype, nullptr, "The element type.", nullptr},
    {"layout", get_layout, nullptr, "The memory layout.", nullptr},
    {"device", get_device, nullptr, "Where the elements live.", nullptr},
    {"ndim", get_ndim, nullptr, "The number of dimensions.", nullptr},
    {"is_cpu", get_is_cpu, nullptr, "Whether the tensor is on the CPU.", nullptr},
    {"is_cuda", get_is_cuda, nullptr, "Whether the tensor is on a CUDA device.", nullptr},
    {"is_meta", get_is_meta, nullptr, "Whether the tensor is on the meta device.", nullptr},
    {"itemsize", get_itemsize, nullptr, "Bytes per element.", nullptr},
    {"nbytes", get_nbytes, nullptr, "Bytes of the elements (numel * itemsize).", nullptr},
    {"requires_grad", get_requires_grad, set_requires_grad,
     "Whether operations on this tensor are recorded for backward.", nullptr},
    {"is_leaf", get_is_leaf, nullptr, "Whether the tensor has no grad_fn.", nullptr},
    {"grad", get_grad, set_grad, "The gradient accumulated by backward, or None.", nullptr},
    {"grad_fn", get_grad_fn, nullptr, "The node that computed this tensor, or None.", nullptr},
    {"_version", get_version, nullptr, "The number of in-place writes to the tensor and its views.", nullptr},
    {"output_nr", get_output_nr, nullptr, "Which output of its grad_fn the tensor is.", nullptr},
    {"retains_grad", get_retains_grad, nullptr, "Whether retain_grad() was called.", nullptr},
    {"data", get_data, set_data, "The tensor outside the graph (a detached alias); assigning replaces the elements, shape and dtype.", nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr}};

// ---- methods ----------------------------------------------------------------------------

int64_t wrap_dim(const Tensor& t, PyObject* dim_obj, const char* op) {
  EMBER_CHECK_TYPE(PyLong_Check(dim_obj) && !PyBool_Check(dim_obj), op,
                   "(): expected 'dim' to be an int, but got ", Py_TYPE(dim_obj)->tp_name);
  const int64_t dim = PyLong_AsLongLong(dim_obj);
  if (PyErr_Occurred()) throw PythonError();
  const int64_t n = std::max<int64_t>(t.dim(), 1);
  EMBER_CHECK_INDEX(dim >= -n && dim < n, op, "(): dimension out of range (expected to be in "
                    "range of [", -n, ", ", n - 1, "], but got ", dim, ")");
  return dim < 0 ? dim + n : dim;
}

PyObject* one_optional_arg(PyObject* args, PyObject* kwargs, const char* op, const char* name) {
  PyObject* value = Py_None;
  const Py_ssize_t n = PyTuple_GET_SIZE(args);
  const Py_ssize_t nk = kwargs ? PyDict_GET_SIZE(kwargs) : 0;
  EMBER_CHECK_TYPE(n + nk <= 1, op, "() takes at most 1 argument (", n + nk, " given)");
  if (n == 1) value = PyTuple_GET_ITEM(args, 0);
  if (nk == 1) {
    value = PyDict_GetItemString(kwargs, name);
    EMBER_CHECK_TYPE(value != nullptr, op, "() got an unexpected keyword argument");
  }
  return value;
}

PyObject* m_size(PyObject* self, PyObject* args, PyObject* kwargs) {
  EMBER_PY_BEGIN
  const Tensor& t = self_t(self);
  PyObject* dim = one_optional_arg(args, kwargs, "size", "dim");
  if (dim == Py_None) return size_object(t.sizes());
  if (t.dim() == 0) {
    EMBER_CHECK_INDEX(false, "size(): dimension specified as ", PyLong_AsLongLong(dim),
                      " but tensor has no dimensions");
  }
  return PyLong_FromLongLong(t.sizes()[wrap_dim(t, dim, "size")]);
  EMBER_PY_END(nullptr)
}
PyObject* m_stride(PyObject* self, PyObject* args, PyObject* kwargs) {
  EMBER_PY_BEGIN
  const Tensor& t = self_t(self);
  PyObject* dim = one_optional_arg(args, kwargs, "stride", "dim");
  if (dim == Py_None) {
    PyObject* tup = checked(PyTuple_New(t.dim()));
    for (int64_t i = 0; i < t.dim(); ++i) PyTuple_SET_ITEM(tup, i, PyLong_FromLongLong(t.strides()[i]));
    return tup;
  }
  if (t.dim() == 0) {
    EMBER_CHECK_INDEX(false, "stride(): dimension specified as ", PyLong_AsLongLong(dim),
                      " but tensor has no dimensions");
  }
  return PyLong_FromLongLong(t.strides()[wrap_dim(t, dim, "stride")]);
  EMBER_PY_END(nullptr)
}
PyObject* m_dim(PyObject* self, PyObject*) { return PyLong_FromLongLong(self_t(self).dim()); }
PyObject* m_numel(PyObject* self, PyObject*) { return PyLong_FromLongLong(self_t(self).numel()); }
PyObject* m_storage_offset(PyObject* self, PyObject*) {
  return PyLong_FromLongLong(self_t(self).storage_offset());
}
PyObject* m_element_size(PyObject* self, PyObject*) {
  return PyLong_FromSize_t(self_t(self).element_size());
}
PyObject* m_data_ptr(PyObject* self, PyObject*) {
  return PyLong_FromVoidPtr(self_t(self).impl()->data());
}
PyObject* m_is_contiguous(PyObject* self, PyObject* args, PyObject* kwargs) {
  EMBER_PY_BEGIN
  PyObject* mf = one_optional_arg(args, kwargs, "is_contiguous", "memory_format");
  if (mf != Py_None) {
    EMBER_CHECK_TYPE(is_memory_format(mf), "is_contiguous(): expected 'memory_format' to be an "
                     "ember.memory_format, but got ", Py_TYPE(mf)->tp_name);
    const MemoryFormat m = reinterpret_cast<PyMemoryFormat*>(mf)->memory_format;
    EMBER_CHECK(m != MemoryFormat::Preserve, "is_contiguous(): memory format preserve_format is "
                "not supported");
    const Tensor& t = self_t(self);
    return PyBool_FromLong(native::is_contiguous_in(t.sizes(), t.strides(), m));
  }
  return PyBool_FromLong(self_t(self).impl()->is_contiguous());
  EMBER_PY_END(nullptr)
}
PyObject* m_is_floating_point(PyObject* self, PyObject*) {
  return PyBool_FromLong(is_floating_point(self_t(self).dtype()));
}
PyObject* m_is_complex(PyObject* self, PyObject*) {
  return PyBool_FromLong(is_complex(self_t(self).dtype()));
}
PyObject* m_requires_grad_(PyObject* self, PyObject* args, PyObject* kwargs) {
  EMBER_PY_BEGIN
  PyObject* flag = one_optional_arg(args, kwargs, "requires_grad_", "requires_grad");
  if (set_requires_grad(self, flag == Py_None ? Py_True : flag, nullptr) < 0) return nullptr;
  return Py_NewRef(self);
  EMBER_PY_END(nullptr)
}
PyObject* m_detach(PyObject* self, PyObject*) {
  EMBER_PY_BEGIN
  return wrap(autograd::detach(self_t(self)));
  EMBER_PY_END(nullptr)
}
PyObject* m_detach_(PyObject* self, PyObject*) {
  EMBER_PY_BEGIN
  autograd::detach_(self_t(self));
  return Py_NewRef(self);
  EMBER_PY_END(nullptr)
}
PyObject* m_retain_grad(PyObject* self, PyObject*) {
  EMBER_PY_BEGIN
  autograd::retain_grad(self_t(self));
  Py_RETURN_NONE;
  EMBER_PY_END(nullptr)
}
PyObject* m_tolist(PyObject* self, PyObject*) {
  EMBER_PY_BEGIN
  jit::check_data_read(self_t(self), "tolist()");
  return tensor_to_list(self_t(self));
  EMBER_PY_END(nullptr)
}
PyObject* m_numpy(PyObject* self, PyObject* args, PyObject* kwargs) {
  EMBER_PY_BEGIN
  PyObject* force = one_optional_arg(args, kwargs, "numpy", "force");
  jit::check_data_read(self_t(self), "numpy()");
  EMBER_CHECK_TYPE(force == Py_None || PyBool_Check(force),
                   "numpy(): expected 'force' to be a bool, but got ", Py_TYPE(force)->tp_name);
  if (force != Py_True) {
    EMBER_CHECK(!autograd::requires_grad(self_t(self)), "Can't call numpy() on Tensor that requires grad. "
                "Use tensor.detach().numpy() instead.");
  }
  return tensor_to_numpy(self);
  EMBER_PY_END(nullptr)
}
PyObject* m_dlpack(PyObject* self, PyObject* args, PyObject* kwargs) {
  EMBER_PY_BEGIN
  return tensor_to_dlpack(self, args, kwargs);
  EMBER_PY_END(nullptr)
}
PyObject* m_dlpack_device(PyObject* self, PyObject*) {
  EMBER_PY_BEGIN
  return dlpack_device(self_t(self));
  EMBER_PY_END(nullptr)
}

// Tensor._make_subclass(cls, data, requires_grad=False): an object of the Tensor subclass
// cls over a detached alias of data (same storage, its own autograd state), as
// torch.Tensor._make_subclass; nn.Parameter is made this way.
PyObject* m_make_subclass(PyObject*, PyObject* args) {
  EMBER_PY_BEGIN
  PyObject* cls = nullptr;
  PyObject* data = nullptr;
  int requires_grad = 0;
  if (!PyArg_ParseTuple(args, "OO|p", &cls, &data, &requires_grad)) return nullptr;
  EMBER_CHECK_TYPE(PyType_Check(cls) && PyType_IsSubtype(reinterpret_cast<PyTypeObject*>(cls), Py_TYPE(data)) &&
                       is_tensor(data),
                   "_make_subclass(): expected a subclass of data's type and a Tensor");
  auto* type = reinterpret_cast<PyTypeObject*>(cls);
  Tensor t = autograd::detach(unpack(data));
  PyObject* obj = type->tp_alloc(type, 0);
  if (!obj) return nullptr;
  new (&as_pt(obj)->tensor) Tensor(std::move(t));
  as_pt(obj)->tensor.impl()->set_pyobj(obj);
  if (requires_grad) autograd::set_requires_grad(as_pt(obj)->tensor, true);
  return obj;
  EMBER_PY_END(nullptr)
}


// ---- geometry and storage hooks (ember/_tensor_breadth.py builds torch's in-place view ops,
// resize_, set_ and storage() on these) ---------------------------------------------------

std::vector<int64_t> int_sequence(PyObject* obj, const char* op, const char* what) {
  EMBER_CHECK_TYPE(PyTuple_Check(obj) || PyList_Check(obj), op, "(): expected '", what,
                   "' to be a tuple or list of ints, but got ", Py_TYPE(obj)->tp_name);
  PyObject* seq = checked(PySequence_Fast(obj, what));
  std::vector<int64_t> out;
  for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(seq); ++i) {
    PyObject* item = PySequence_Fast_GET_ITEM(seq, i);
    if (!PyLong_Check(item) || PyBool_Check(item)) {
      Py_DECREF(seq);
      EMBER_CHECK_TYPE(false, op, "(): expected '", what, "' to hold ints, but got ",
                       Py_TYPE(item)->tp_name);
    }
    out.push_back(PyLong_AsLongLong(item));
  }
  Py_DECREF(seq);
  if (PyErr_Occurred()) throw PythonError();
  return out;
}

// _restride_(size, stride, storage_offset): gives this tensor (not a new view) that geometry
// over its own storage, after checking every element it reaches lies inside the storage.
PyObject* m_restride_(PyObject* self, PyObject* args) {
  EMBER_PY_BEGIN
  PyObject *size_obj = nullptr, *stride_obj = nullptr;
  long long offset = 0;
  if (!PyArg_ParseTuple(args, "OOL", &size_obj, &stride_obj, &offset)) return nullptr;
  const Tensor& t = self_t(self);
  const std::vector<int64_t> size = int_sequence(size_obj, "as_strided_", "size");
  const std::vector<int64_t> stride = int_sequence(stride_obj, "as_strided_", "stride");
  EMBER_CHECK_VALUE(size.size() == stride.size(), "as_strided_(): expected 'size' and 'stride' of "
                    "the same length, but got ", size.size(), " and ", stride.size());
  EMBER_CHECK_VALUE(offset >= 0, "as_strided_(): expected a non-negative storage offset, but got ",
                    offset);
  int64_t last = offset;
  bool empty = false;
  for (size_t i = 0; i < size.size(); ++i) {
    EMBER_CHECK_VALUE(size[i] >= 0, "as_strided_(): expected non-negative sizes, but got ",
                      IntArrayRef(size));
    EMBER_CHECK_VALUE(stride[i] >= 0, "as_strided_(): expected non-negative strides, but got ",
                      IntArrayRef(stride));
    if (size[i] == 0) empty = true;
    else last += (size[i] - 1) * stride[i];
  }
  const Storage& storage = t.impl()->storage();
  const int64_t capacity = storage ? static_cast<int64_t>(storage->nbytes() / t.element_size()) : 0;
  EMBER_CHECK_VALUE(empty || last < capacity, "as_strided_(): the geometry (size ", IntArrayRef(size),
                    ", stride ", IntArrayRef(stride), ", offset ", offset, ") reaches element ", last,
                    ", beyond the storage's ", capacity, " elements");
  t.impl()->set_sizes_and_strides(size, stride, offset);
  return Py_NewRef(self);
  EMBER_PY_END(nullptr)
}

// _swap_tensor_(other): self and other exchange the tensors they wrap (each impl then points
// back at its new Python object). The in-place view ops use it on tensors in the autograd
// graph: self becomes the view, keeping its Python identity, and the graph stays right.
PyObject* m_swap_tensor_(PyObject* self, PyObject* other) {
  EMBER_PY_BEGIN
  EMBER_CHECK_TYPE(is_tensor(other), "_swap_tensor_(): expected a Tensor, but got ",
                   Py_TYPE(other)->tp_name);
  if (other != self) {
    std::swap(as_pt(self)->tensor, as_pt(other)->tensor);
    for (PyObject* o : {self, other}) {
      if (as_pt(o)->tensor.impl()->defined()) as_pt(o)->tensor.impl()->set_pyobj(o);
    }
  }
  return Py_NewRef(self);
  EMBER_PY_END(nullptr)
}

// _resize_(size): resize_ (contiguous with these sizes, growing the storage when needed).
PyObject* m_resize_(PyObject* self, PyObject* args) {
  EMBER_PY_BEGIN
  PyObject* size_obj = nullptr;
  if (!PyArg_ParseTuple(args, "O", &size_obj)) return nullptr;
  self_t(self).impl()->resize(int_sequence(size_obj, "resize_", "size"));
  return Py_NewRef(self);
  EMBER_PY_END(nullptr)
}

// _storage_info(): (address of the storage's first byte, its bytes, an id shared by every
// tensor over the same storage, whether it can grow).
PyObject* m_storage_info(PyObject* self, PyObject*) {
  EMBER_PY_BEGIN
  const Storage& storage = self_t(self).impl()->storage();
  if (!storage) return Py_BuildValue("(KnKO)", 0ULL, Py_ssize_t{0}, 0ULL, Py_False);
  return Py_BuildValue("(KnKO)", static_cast<unsigned long long>(reinterpret_cast<uintptr_t>(storage->data())),
                       static_cast<Py_ssize_t>(storage->nbytes()),
                       static_cast<unsigned long long>(reinterpret_cast<uintptr_t>(storage.impl())),
                       storage->resizable() ? Py_True : Py_False);
  EMBER_PY_END(nullptr)
}

std::vector<PyMethodDef> hand_methods = {
    {"_make_subclass", m_make_subclass, METH_VARARGS | METH_STATIC,
     "_make_subclass(cls, data, requires_grad=False): a cls object over a detached alias of data."},
    {"size", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(m_size)),
     METH_VARARGS | METH_KEYWORDS, "size(dim=None): the sizes, or the size of one dimension."},
    {"stride", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(m_stride)),
     METH_VARARGS | METH_KEYWORDS, "stride(dim=None): the strides in elements."},
    {"as_subclass", m_as_subclass, METH_O,
     "as_subclass(cls): a cls object over an alias of this tensor, kept in the autograd graph."},
    {"_restride_", m_restride_, METH_VARARGS,
     "_restride_(size, stride, offset): this tensor takes that geometry over its own storage."},
    {"_swap_tensor_", m_swap_tensor_, METH_O,
     "_swap_tensor_(other): self and other exchange the tensors they wrap."},
    {"_resize_", m_resize_, METH_VARARGS, "_resize_(size): resize_ without the Python checks."},
    {"_storage_info", m_storage_info, METH_NOARGS,
     "(storage address, bytes, storage id, resizable) of the tensor's storage."},
    {"dim", m_dim, METH_NOARGS, "The number of dimensions."},
    {"ndimension", m_dim, METH_NOARGS, "The number of dimensions."},
    {"numel", m_numel, METH_NOARGS, "The number of elements."},
    {"nelement", m_numel, METH_NOARGS, "The number of elements."},
    {"storage_offset", m_storage_offset, METH_NOARGS, "The offset into the storage, in elements."},
    {"element_size", m_element_size, METH_NOARGS, "Bytes per element."},
    {"data_ptr", m_data_ptr, METH_NOARGS, "The address of the first element."},
    {"is_contiguous", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(m_is_contiguous)),
     METH_VARARGS | METH_KEYWORDS, "Whether the elements are dense in row-major order."},
    {"is_floating_point", m_is_floating_point, METH_NOARGS, "Whether the dtype is a float type."},
    {"is_complex", m_is_complex, METH_NOARGS, "Whether the dtype is complex."},
    {"requires_grad_", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(m_requires_grad_)),
     METH_VARARGS | METH_KEYWORDS, "Sets requires_grad in place; returns self."},
    {"detach", m_detach, METH_NOARGS, "A tensor sharing this one's data, outside the graph."},
    {"detach_", m_detach_, METH_NOARGS, "Makes this tensor a leaf outside the graph; returns self."},
    {"retain_grad", m_retain_grad, METH_NOARGS, "Keeps this non-leaf's gradient in .grad."},
    {"tolist", m_tolist, METH_NOARGS, "The elements as (nested) Python lists of numbers."},
    {"numpy", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(m_numpy)),
     METH_VARARGS | METH_KEYWORDS, "A numpy array sharing this tensor's memory."},
    {"__dlpack__", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(m_dlpack)),
     METH_VARARGS | METH_KEYWORDS, "A DLPack capsule sharing this tensor's memory."},
    {"__dlpack_device__", m_dlpack_device, METH_NOARGS, "(device type, index) in DLPack's codes."},
};

// ---- number protocol: conversions --------------------------------------------------------

Scalar single_value(PyObject* self, const char* what, const char* conversion) {
  const Tensor& t = self_t(self);
  jit::check_data_read(t, conversion);
  EMBER_CHECK(t.numel() == 1, what, t.numel() == 0 ? " of Tensor with no values is ambiguous"
                                                   : " of Tensor with more than one value is ambiguous");
  return t.item();
}
int nb_bool(PyObject* self) {
  EMBER_PY_BEGIN
  const Scalar s = single_value(self, "Boolean value", "bool()");
  if (s.is_complex()) return s.to_complex() != std::complex<double>(0, 0);
  return s.is_floating_point() ? s.to_double() != 0 : s.to_long() != 0;
  EMBER_PY_END(-1)
}
PyObject* nb_float(PyObject* self) {
  EMBER_PY_BEGIN
  const Scalar s = single_value(self, "float() conversion", "float()");
  EMBER_CHECK_TYPE(!s.is_complex(), "float(): can't convert a complex tensor to float");
  return PyFloat_FromDouble(s.to_double());
  EMBER_PY_END(nullptr)
}
PyObject* nb_int(PyObject* self) {
  EMBER_PY_BEGIN
  const Scalar s = single_value(self, "int() conversion", "int()");
  EMBER_CHECK_TYPE(!s.is_complex(), "int(): can't convert a complex tensor to int");
  if (s.is_floating_point()) return PyNumber_Long(checked(PyFloat_FromDouble(s.to_double())));
  return PyLong_FromLongLong(s.to_long());
  EMBER_PY_END(nullptr)
}
PyObject* nb_index(PyObject* self) {
  EMBER_PY_BEGIN
  const Tensor& t = self_t(self);
  jit::check_data_read(t, "__index__");
  EMBER_CHECK_TYPE(is_integral(t.dtype(), true) && t.numel() == 1,
                   "only integer tensors of a single element can be converted to an index");
  return PyLong_FromLongLong(t.item().to_long());
  EMBER_PY_END(nullptr)
}

Py_ssize_t mp_length(PyObject* self) {
  EMBER_PY_BEGIN
  const Tensor& t = self_t(self);
  EMBER_CHECK_TYPE(t.dim() > 0, "len() of a 0-d tensor");
  return static_cast<Py_ssize_t>(t.sizes()[0]);
  EMBER_PY_END(-1)
}

// ---- t[key] and t[key] = value (Note [Indexing] in aten/TensorIndexing.h) ----------------

indexing::TensorIndex to_index(PyObject* o) {
  if (o == Py_None) return indexing::None;
  if (o == Py_Ellipsis) return indexing::Ellipsis;
  if (PyBool_Check(o)) return o == Py_True;
  if (is_tensor(o)) return unpack(o);
  if (PyLong_Check(o)) {
    int overflow = 0;
    const long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
    EMBER_CHECK_INDEX(overflow == 0, "index is too large to fit in int64");
    return static_cast<int64_t>(v);
  }
  if (PySlice_Check(o)) {
    auto* s = reinterpret_cast<PySliceObject*>(o);
    auto bound = [](PyObject* b) -> std::optional<int64_t> {
      if (b == Py_None) return std::nullopt;
      PyObject* i = PyNumber_Index(b);
      if (!i) throw PythonError();
      const long long v = PyLong_AsLongLong(i);
      Py_DECREF(i);
      if (v == -1 && PyErr_Occurred()) throw PythonError();
      return static_cast<int64_t>(v);
    };
    return indexing::Slice(bound(s->start), bound(s->stop), bound(s->step));
  }
  if (PyIndex_Check(o) && !is_numpy_array(o)) {  // numpy integers and other __index__ objects
    PyObject* i = PyNumber_Index(o);
    if (!i) throw PythonError();
    const long long v = PyLong_AsLongLong(i);
    Py_DECREF(i);
    if (v == -1 && PyErr_Occurred()) throw PythonError();
    return static_cast<int64_t>(v);
  }
  if (PySequence_Check(o) || is_numpy_array(o)) {  // a list or array of indices or bools
    return tensor_from_python(o, std::nullopt, std::nullopt);
  }
  EMBER_THROW(IndexError, "only integers, slices (`:`), ellipsis (`...`), None and long or bool "
              "tensors are valid indices (got ", Py_TYPE(o)->tp_name, ")");
}

// PyTorch's (and old NumPy's) rule: a short list holding a sequence, slice, None, Ellipsis
// or tensor is a tuple of indices (x[[[0, 1]]] is x[[0, 1]]); any other list is an index.
bool sequence_as_tuple(PyObject* key) {
  if (!PyList_Check(key)) return false;
  const Py_ssize_t n = PyList_GET_SIZE(key);
  if (n >= 32) return false;
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject* o = PyList_GET_ITEM(key, i);
    if (o == Py_None || o == Py_Ellipsis || PySlice_Check(o) || is_tensor(o) ||
        (PySequence_Check(o) && !PyUnicode_Check(o) && !PyBytes_Check(o))) {
      return true;
    }
  }
  return false;
}

std::vector<indexing::TensorIndex> to_indices(PyObject* key) {
  std::vector<indexing::TensorIndex> out;
  if (sequence_as_tuple(key)) {
    const Py_ssize_t n = PyList_GET_SIZE(key);
    for (Py_ssize_t i = 0; i < n; ++i) out.push_back(to_index(PyList_GET_ITEM(key, i)));
  } else if (PyTuple_Check(key)) {
    const Py_ssize_t n = PyTuple_GET_SIZE(key);
    for (Py_ssize_t i = 0; i < n; ++i) out.push_back(to_index(PyTuple_GET_ITEM(key, i)));
  } else {
    out.push_back(to_index(key));
  }
  return out;
}

PyObject* mp_subscript(PyObject* self, PyObject* key) {
  EMBER_PY_BEGIN
  const std::vector<indexing::TensorIndex> idx = to_indices(key);
  return wrap(indexing::get(self_t(self), ArrayRef<indexing::TensorIndex>(idx.data(), idx.size())));
  EMBER_PY_END(nullptr)
}

int mp_ass_subscript(PyObject* self, PyObject* key, PyObject* value) {
  EMBER_PY_BEGIN
  EMBER_CHECK_TYPE(value != nullptr, "'Tensor' object does not support item deletion");
  const std::vector<indexing::TensorIndex> idx = to_indices(key);
  const ArrayRef<indexing::TensorIndex> ref(idx.data(), idx.size());
  const Tensor& t = self_t(self);
  if (is_tensor(value)) {
    indexing::set(t, ref, unpack(value));
  } else if (PyBool_Check(value)) {
    indexing::set(t, ref, Scalar(value == Py_True));
  } else if (PyLong_Check(value)) {
    int overflow = 0;
    const long long v = PyLong_AsLongLongAndOverflow(value, &overflow);
    EMBER_CHECK(overflow == 0, "value cannot be converted to type int64 without overflow");
    indexing::set(t, ref, Scalar(static_cast<int64_t>(v)));
  } else if (PyFloat_Check(value)) {
    indexing::set(t, ref, Scalar(PyFloat_AS_DOUBLE(value)));
  } else if (PyComplex_Check(value)) {
    indexing::set(t, ref, Scalar(std::complex<double>(PyComplex_RealAsDouble(value),
                                                      PyComplex_ImagAsDouble(value))));
  } else {
    indexing::set(t, ref, tensor_from_python(value, t.scalar_type(), std::nullopt));
  }
  return 0;
  EMBER_PY_END(-1)
}

PyNumberMethods tensor_as_number = {};
PyMappingMethods tensor_as_mapping = {};
std::vector<PyMethodDef> all_methods;

}  // namespace

void init_tensor_type(PyObject* module, PyMethodDef* extra) {
  all_methods = hand_methods;
  for (PyMethodDef* m = extra; m && m->ml_name; ++m) all_methods.push_back(*m);
  all_methods.push_back({nullptr, nullptr, 0, nullptr});

  tensor_as_number.nb_bool = nb_bool;
  tensor_as_number.nb_float = nb_float;
  tensor_as_number.nb_int = nb_int;
  tensor_as_number.nb_index = nb_index;
  tensor_as_mapping.mp_length = mp_length;
  tensor_as_mapping.mp_subscript = mp_subscript;
  tensor_as_mapping.mp_ass_subscript = mp_ass_subscript;

  PyTypeObject& t = TensorBaseType;
  t.tp_basicsize = sizeof(PyTensor);
  t.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE;
  t.tp_new = tensor_new;
  t.tp_dealloc = tensor_dealloc;
  t.tp_repr = tensor_repr;
  t.tp_str = tensor_repr;
  t.tp_getset = tensor_getset;
  t.tp_methods = all_methods.data();
  t.tp_as_number = &tensor_as_number;
  t.tp_as_mapping = &tensor_as_mapping;
  t.tp_doc = "The C base of ember.Tensor.";
  if (PyType_Ready(&t) < 0) throw PythonError();
  if (PyModule_AddObjectRef(module, "TensorBase", reinterpret_cast<PyObject*>(&t)) < 0) {
    throw PythonError();
  }
}

}  // namespace ember::python
