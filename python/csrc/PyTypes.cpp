#include "python/csrc/PyTypes.h"

#include <random>
#include <string>

#include "aten/PhiloxGenerator.h"
#include "c10/core/Reduction.h"
#include "c10/util/Exception.h"
#include "ember/generated/ops/empty.h"
#include "python/csrc/Exceptions.h"
#include "python/csrc/PyTensor.h"

namespace ember::python {
namespace {

// ---- dtype ------------------------------------------------------------------------------

PyDtype dtypes[kNumScalarTypes];

PyObject* dtype_repr(PyObject* self) {
  return PyUnicode_FromFormat("ember.%s",
                              scalar_type_name(reinterpret_cast<PyDtype*>(self)->scalar_type));
}

ScalarType st_of(PyObject* self) { return reinterpret_cast<PyDtype*>(self)->scalar_type; }

PyObject* dtype_is_floating_point(PyObject* self, void*) {
  return PyBool_FromLong(is_floating_point(st_of(self)));
}
PyObject* dtype_is_complex(PyObject* self, void*) { return PyBool_FromLong(is_complex(st_of(self))); }
PyObject* dtype_is_signed(PyObject* self, void*) {
  const ScalarType t = st_of(self);
  return PyBool_FromLong(t != ScalarType::Byte && t != ScalarType::Bool);
}
PyObject* dtype_itemsize(PyObject* self, void*) {
  return PyLong_FromSize_t(itemsize(st_of(self)));
}
PyObject* dtype_reduce(PyObject* self, PyObject*) {
  // Pickled by name: unpickling returns the singleton.
  return PyUnicode_FromString(scalar_type_name(st_of(self)));
}

PyGetSetDef dtype_getset[] = {
    {"is_floating_point", dtype_is_floating_point, nullptr, "Whether the type is a float type.", nullptr},
    {"is_complex", dtype_is_complex, nullptr, "Whether the type is complex.", nullptr},
    {"is_signed", dtype_is_signed, nullptr, "Whether the type holds negative values.", nullptr},
    {"itemsize", dtype_itemsize, nullptr, "Bytes per element.", nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr}};
PyMethodDef dtype_methods[] = {{"__reduce__", dtype_reduce, METH_NOARGS, nullptr},
                               {nullptr, nullptr, 0, nullptr}};

// ---- layout and memory_format -----------------------------------------------------------

PyLayout layouts[kNumLayouts];
PyMemoryFormat memory_formats[kNumMemoryFormats];

const char* layout_of(PyObject* self) {
  return layout_short_name(reinterpret_cast<PyLayout*>(self)->layout);
}
const char* memory_format_of(PyObject* self) {
  return memory_format_name(reinterpret_cast<PyMemoryFormat*>(self)->memory_format);
}

PyObject* layout_repr(PyObject* self) { return PyUnicode_FromFormat("ember.%s", layout_of(self)); }
PyObject* memory_format_repr(PyObject* self) {
  return PyUnicode_FromFormat("ember.%s", memory_format_of(self));
}
PyObject* layout_reduce(PyObject* self, PyObject*) { return PyUnicode_FromString(layout_of(self)); }
PyObject* memory_format_reduce(PyObject* self, PyObject*) {
  return PyUnicode_FromString(memory_format_of(self));
}
PyMethodDef layout_methods[] = {{"__reduce__", layout_reduce, METH_NOARGS, nullptr},
                                {nullptr, nullptr, 0, nullptr}};
PyMethodDef memory_format_methods[] = {{"__reduce__", memory_format_reduce, METH_NOARGS, nullptr},
                                       {nullptr, nullptr, 0, nullptr}};

// ---- device -----------------------------------------------------------------------------

Device dev_of(PyObject* self) { return reinterpret_cast<PyDevice*>(self)->device; }

PyObject* device_new(PyTypeObject*, PyObject* args, PyObject* kwargs) {
  EMBER_PY_BEGIN
  static const char* kwlist[] = {"type", "index", nullptr};
  PyObject* type = nullptr;
  PyObject* index = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|O:device", const_cast<char**>(kwlist), &type,
                                   &index)) {
    return nullptr;
  }
  if (is_device(type) && index == Py_None) return Py_NewRef(type);
  if (PyLong_Check(type) && index == Py_None) return device_object(to_device(type));
  EMBER_CHECK_TYPE(PyUnicode_Check(type), "device(): expected 'type' to be a str, an int or a "
                   "device, but got ", Py_TYPE(type)->tp_name);
  Device d = to_device(type);
  if (index != Py_None) {
    EMBER_CHECK_TYPE(PyLong_Check(index), "device(): expected 'index' to be an int, but got ",
                     Py_TYPE(index)->tp_name);
    EMBER_CHECK_VALUE(!d.has_index(), "device(): type (string) must not include an index "
                      "because index was passed explicitly: ", PyUnicode_AsUTF8(type));
    const long i = PyLong_AsLong(index);
    EMBER_CHECK_VALUE(i >= 0 && i < 128, "device(): expected 'index' in [0, 127], but got ", i);
    d = Device(d.type(), static_cast<int8_t>(i));
  }
  return device_object(d);
  EMBER_PY_END(nullptr)
}

PyObject* device_repr(PyObject* self) {
  const Device d = dev_of(self);
  const std::string type = device_type_name(d.type());
  if (d.has_index()) return PyUnicode_FromFormat("device(type='%s', index=%d)", type.c_str(), d.index());
  return PyUnicode_FromFormat("device(type='%s')", type.c_str());
}
PyObject* device_str(PyObject* self) { return PyUnicode_FromString(dev_of(self).str().c_str()); }
PyObject* device_type(PyObject* self, void*) {
  return PyUnicode_FromString(device_type_name(dev_of(self).type()).c_str());
}
PyObject* device_index(PyObject* self, void*) {
  const Device d = dev_of(self);
  if (!d.has_index()) Py_RETURN_NONE;
  return PyLong_FromLong(d.index());
}
Py_hash_t device_hash(PyObject* self) {
  const Device d = dev_of(self);
  return static_cast<Py_hash_t>(static_cast<int>(d.type()) * 1000 + d.index() + 2);
}
PyObject* device_richcompare(PyObject* a, PyObject* b, int op) {
  if (!is_device(b) || (op != Py_EQ && op != Py_NE)) Py_RETURN_NOTIMPLEMENTED;
  const bool eq = dev_of(a) == dev_of(b);
  return PyBool_FromLong(op == Py_EQ ? eq : !eq);
}
PyObject* device_reduce(PyObject* self, PyObject*) {
  const Device d = dev_of(self);
  PyObject* type = reinterpret_cast<PyObject*>(&DeviceType_);
  const std::string name = device_type_name(d.type());
  if (d.has_index()) return Py_BuildValue("O(si)", type, name.c_str(), int(d.index()));
  return Py_BuildValue("O(s)", type, name.c_str());
}
PyGetSetDef device_getset[] = {
    {"type", device_type, nullptr, "The device type: 'cpu', 'cuda', 'meta', ...", nullptr},
    {"index", device_index, nullptr, "The device index, or None.", nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr}};
PyMethodDef device_methods[] = {{"__reduce__", device_reduce, METH_NOARGS, nullptr},
                                {nullptr, nullptr, 0, nullptr}};

// ---- Generator --------------------------------------------------------------------------

Generator& gen_of(PyObject* self) { return reinterpret_cast<PyGenerator*>(self)->generator; }

PyObject* generator_new(PyTypeObject* type, PyObject* args, PyObject* kwargs) {
  EMBER_PY_BEGIN
  static const char* kwlist[] = {"device", nullptr};
  PyObject* device = nullptr;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|O:Generator", const_cast<char**>(kwlist),
                                   &device)) {
    return nullptr;
  }
  const Device d = device ? to_device(device) : Device(DeviceType::CPU);
  EMBER_CHECK_NOT_IMPLEMENTED(d.is_cpu(), "Generator(): only CPU generators exist yet, but got "
                              "device '", d.str(), "'");
  PyObject* self = type->tp_alloc(type, 0);
  if (!self) return nullptr;
  new (&gen_of(self)) Generator(make_cpu_generator());
  return self;
  EMBER_PY_END(nullptr)
}
void generator_dealloc(PyObject* self) {
  gen_of(self).~Generator();
  Py_TYPE(self)->tp_free(self);
}
PyObject* generator_manual_seed(PyObject* self, PyObject* seed) {
  EMBER_PY_BEGIN
  EMBER_CHECK_TYPE(PyLong_Check(seed) && !PyBool_Check(seed),
                   "Generator.manual_seed(): expected 'seed' to be an int, but got ",
                   Py_TYPE(seed)->tp_name);
  // As PyTorch: negative seeds wrap to their 64-bit two's complement.
  uint64_t s = PyLong_AsUnsignedLongLongMask(seed);
  if (s == static_cast<uint64_t>(-1) && PyErr_Occurred()) throw PythonError();
  gen_of(self).manual_seed(s);
  return Py_NewRef(self);
  EMBER_PY_END(nullptr)
}
PyObject* generator_seed(PyObject* self, PyObject*) {
  EMBER_PY_BEGIN
  std::random_device rd;
  const uint64_t s = (uint64_t{rd()} << 32 | rd()) & ((uint64_t{1} << 63) - 1);
  gen_of(self).manual_seed(s);
  return PyLong_FromUnsignedLongLong(s);
  EMBER_PY_END(nullptr)
}
PyObject* generator_initial_seed(PyObject* self, PyObject*) {
  return PyLong_FromUnsignedLongLong(gen_of(self).initial_seed());
}
// The state of a CPU generator as get_state() gives it: 16 bytes, the seed then the offset
// (the 32-bit numbers drawn since the seed was set), each a little-endian uint64.
constexpr int64_t kStateBytes = 16;
PhiloxGenerator& philox_of(PyObject* self, const char* op) {
  auto* g = dynamic_cast<PhiloxGenerator*>(gen_of(self).impl());
  EMBER_CHECK_NOT_IMPLEMENTED(g != nullptr, "Generator.", op, "(): only the CPU generator has a "
                              "state to get or set");
  return *g;
}
PyObject* generator_get_state(PyObject* self, PyObject*) {
  EMBER_PY_BEGIN
  PhiloxGenerator& g = philox_of(self, "get_state");
  const uint64_t words[2] = {g.current_seed(), g.offset()};
  Tensor state = ember::empty({kStateBytes}, TensorOptions().dtype(ScalarType::Byte));
  auto* out = static_cast<uint8_t*>(state.data_ptr());
  for (int k = 0; k < 2; ++k) {
    for (int b = 0; b < 8; ++b) out[k * 8 + b] = static_cast<uint8_t>(words[k] >> (8 * b));
  }
  return wrap(std::move(state));
  EMBER_PY_END(nullptr)
}
PyObject* generator_set_state(PyObject* self, PyObject* arg) {
  EMBER_PY_BEGIN
  EMBER_CHECK_TYPE(is_tensor(arg), "Generator.set_state(): expected 'new_state' to be a Tensor, "
                   "but got ", Py_TYPE(arg)->tp_name);
  const Tensor& t = unpack(arg);
  EMBER_CHECK_TYPE(t.scalar_type() == ScalarType::Byte, "Generator.set_state(): expected 'new_state' "
                   "to be a uint8 tensor (as get_state() returns), but got ", t.scalar_type());
  EMBER_CHECK_VALUE(t.dim() == 1 && t.numel() == kStateBytes, "Generator.set_state(): expected "
                    "'new_state' of ", kStateBytes, " bytes (a CPU generator's state from "
                    "get_state()), but got a tensor of shape ", t.sizes());
  PhiloxGenerator& g = philox_of(self, "set_state");
  const Tensor c = t.contiguous();
  const auto* in = static_cast<const uint8_t*>(c.data_ptr());
  uint64_t words[2] = {0, 0};
  for (int k = 0; k < 2; ++k) {
    for (int b = 0; b < 8; ++b) words[k] |= uint64_t{in[k * 8 + b]} << (8 * b);
  }
  EMBER_CHECK_VALUE(words[1] % 4 == 0, "Generator.set_state(): 'new_state' is not a state "
                    "get_state() wrote (its offset ", words[1], " is not a multiple of 4)");
  g.set_current_seed(words[0]);
  g.set_offset(words[1]);
  return Py_NewRef(self);
  EMBER_PY_END(nullptr)
}
PyObject* generator_device(PyObject* self, void*) { return device_object(gen_of(self).device()); }
PyMethodDef generator_methods[] = {
    {"manual_seed", generator_manual_seed, METH_O, "Seeds the generator; returns it."},
    {"seed", generator_seed, METH_NOARGS, "Seeds from a non-deterministic source; returns the seed."},
    {"initial_seed", generator_initial_seed, METH_NOARGS, "The seed last set."},
    {"get_state", generator_get_state, METH_NOARGS,
     "The generator's state as a uint8 tensor (seed and offset, 16 bytes)."},
    {"set_state", generator_set_state, METH_O, "Restores a state get_state() returned; returns the generator."},
    {nullptr, nullptr, 0, nullptr}};
PyGetSetDef generator_getset[] = {
    {"device", generator_device, nullptr, "The device the generator serves.", nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr}};

// ---- Size -------------------------------------------------------------------------------

PyObject* size_repr(PyObject* self) {
  std::string s = "ember.Size([";
  for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(self); ++i) {
    if (i) s += ", ";
    PyObject* r = PyObject_Repr(PyTuple_GET_ITEM(self, i));
    if (!r) return nullptr;
    s += PyUnicode_AsUTF8(r);
    Py_DECREF(r);
  }
  return PyUnicode_FromString((s + "])").c_str());
}
PyObject* size_numel(PyObject* self, PyObject*) {
  long long n = 1;
  for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(self); ++i) {
    n *= PyLong_AsLongLong(PyTuple_GET_ITEM(self, i));
  }
  if (PyErr_Occurred()) return nullptr;
  return PyLong_FromLongLong(n);
}
PyObject* size_new(PyTypeObject* type, PyObject* args, PyObject* kwargs) {
  PyObject* t = PyTuple_Type.tp_new(type, args, kwargs);
  if (!t) return nullptr;
  for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(t); ++i) {
    PyObject* item = PyTuple_GET_ITEM(t, i);
    if (!PyLong_Check(item) && !PyIndex_Check(item)) {
      Py_DECREF(t);
      PyErr_Format(PyExc_TypeError, "Size(): expected a sequence of ints, but got an element "
                   "of type %s", Py_TYPE(item)->tp_name);
      return nullptr;
    }
  }
  return t;
}
PyMethodDef size_methods[] = {{"numel", size_numel, METH_NOARGS, "The product of the sizes."},
                              {nullptr, nullptr, 0, nullptr}};

}  // namespace

PyTypeObject DtypeType = {PyVarObject_HEAD_INIT(nullptr, 0) "ember.dtype"};
PyTypeObject LayoutType = {PyVarObject_HEAD_INIT(nullptr, 0) "ember.layout"};
PyTypeObject MemoryFormatType = {PyVarObject_HEAD_INIT(nullptr, 0) "ember.memory_format"};
PyTypeObject DeviceType_ = {PyVarObject_HEAD_INIT(nullptr, 0) "ember.device"};
PyTypeObject GeneratorType = {PyVarObject_HEAD_INIT(nullptr, 0) "ember.Generator"};
PyTypeObject SizeType = {PyVarObject_HEAD_INIT(nullptr, 0) "ember.Size"};

PyObject* dtype_object(ScalarType t) { return reinterpret_cast<PyObject*>(&dtypes[static_cast<int>(t)]); }
PyObject* layout_object(Layout l) { return reinterpret_cast<PyObject*>(&layouts[static_cast<int>(l)]); }
PyObject* memory_format_object(MemoryFormat m) {
  return reinterpret_cast<PyObject*>(&memory_formats[static_cast<int>(m)]);
}

PyObject* device_object(Device d) {
  // The CPU device without an index is by far the most common: one shared object.
  static PyObject* cpu = nullptr;
  const bool plain_cpu = d == Device(ember::DeviceType::CPU);
  if (plain_cpu && cpu) return Py_NewRef(cpu);
  PyObject* o = DeviceType_.tp_alloc(&DeviceType_, 0);
  if (!o) throw PythonError();
  reinterpret_cast<PyDevice*>(o)->device = d;
  if (plain_cpu) cpu = Py_NewRef(o);
  return o;
}

PyObject* generator_object(Generator g) {
  PyObject* o = GeneratorType.tp_alloc(&GeneratorType, 0);
  if (!o) throw PythonError();
  new (&gen_of(o)) Generator(std::move(g));
  return o;
}

PyObject* size_object(IntArrayRef sizes) {
  PyObject* t = SizeType.tp_alloc(&SizeType, static_cast<Py_ssize_t>(sizes.size()));
  if (!t) throw PythonError();
  for (size_t i = 0; i < sizes.size(); ++i) {
    PyObject* v = PyLong_FromLongLong(sizes[i]);
    if (!v) {
      Py_DECREF(t);
      throw PythonError();
    }
    PyTuple_SET_ITEM(t, static_cast<Py_ssize_t>(i), v);
  }
  return t;
}

std::optional<ScalarType> to_scalar_type(PyObject* o) {
  if (is_dtype(o)) return reinterpret_cast<PyDtype*>(o)->scalar_type;
  if (o == reinterpret_cast<PyObject*>(&PyFloat_Type)) return ScalarType::Double;
  if (o == reinterpret_cast<PyObject*>(&PyLong_Type)) return ScalarType::Long;
  if (o == reinterpret_cast<PyObject*>(&PyBool_Type)) return ScalarType::Bool;
  if (o == reinterpret_cast<PyObject*>(&PyComplex_Type)) return ScalarType::ComplexDouble;
  return std::nullopt;
}

Device to_device(PyObject* o) {
  if (is_device(o)) return dev_of(o);
  if (PyUnicode_Check(o)) {
    Py_ssize_t n = 0;
    const char* s = PyUnicode_AsUTF8AndSize(o, &n);
    if (!s) throw PythonError();
    return Device(std::string_view(s, static_cast<size_t>(n)));
  }
  if (PyLong_Check(o) && !PyBool_Check(o)) {
    const long i = PyLong_AsLong(o);
    EMBER_CHECK_VALUE(i >= 0 && i < 128, "device: expected a device index in [0, 127], but got ", i);
    return Device(ember::DeviceType::CUDA, static_cast<int8_t>(i));
  }
  EMBER_CHECK_TYPE(false, "expected a device (ember.device, a str like 'cpu' or an int), but got ",
                   Py_TYPE(o)->tp_name);
  return Device(ember::DeviceType::CPU);
}

void init_types(PyObject* module) {
  DtypeType.tp_basicsize = sizeof(PyDtype);
  DtypeType.tp_flags = Py_TPFLAGS_DEFAULT;
  DtypeType.tp_repr = dtype_repr;
  DtypeType.tp_getset = dtype_getset;
  DtypeType.tp_methods = dtype_methods;
  DtypeType.tp_doc = "A tensor element type (ember.float32, ember.int64, ...).";

  LayoutType.tp_basicsize = sizeof(PyLayout);
  LayoutType.tp_flags = Py_TPFLAGS_DEFAULT;
  LayoutType.tp_repr = layout_repr;
  LayoutType.tp_methods = layout_methods;
  LayoutType.tp_doc = "A tensor memory layout (ember.strided, ...).";

  MemoryFormatType.tp_basicsize = sizeof(PyMemoryFormat);
  MemoryFormatType.tp_flags = Py_TPFLAGS_DEFAULT;
  MemoryFormatType.tp_repr = memory_format_repr;
  MemoryFormatType.tp_methods = memory_format_methods;
  MemoryFormatType.tp_doc = "A dense tensor's memory format (ember.contiguous_format, ...).";

  DeviceType_.tp_basicsize = sizeof(PyDevice);
  DeviceType_.tp_flags = Py_TPFLAGS_DEFAULT;
  DeviceType_.tp_new = device_new;
  DeviceType_.tp_repr = device_repr;
  DeviceType_.tp_str = device_str;
  DeviceType_.tp_hash = device_hash;
  DeviceType_.tp_richcompare = device_richcompare;
  DeviceType_.tp_getset = device_getset;
  DeviceType_.tp_methods = device_methods;
  DeviceType_.tp_doc = "device(type, index=None): where a tensor's memory lives.";

  GeneratorType.tp_basicsize = sizeof(PyGenerator);
  GeneratorType.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE;
  GeneratorType.tp_new = generator_new;
  GeneratorType.tp_dealloc = generator_dealloc;
  GeneratorType.tp_methods = generator_methods;
  GeneratorType.tp_getset = generator_getset;
  GeneratorType.tp_doc = "Generator(device='cpu'): a random number generator (Philox).";

  SizeType.tp_base = &PyTuple_Type;
  SizeType.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_TUPLE_SUBCLASS;
  SizeType.tp_new = size_new;
  SizeType.tp_repr = size_repr;
  SizeType.tp_methods = size_methods;
  SizeType.tp_doc = "The sizes of a tensor: a tuple of ints.";

  for (PyTypeObject* t : {&DtypeType, &LayoutType, &MemoryFormatType, &DeviceType_,
                          &GeneratorType, &SizeType}) {
    if (PyType_Ready(t) < 0) throw PythonError();
  }
  auto add = [&](const char* name, PyObject* o) {
    if (PyModule_AddObjectRef(module, name, o) < 0) throw PythonError();
  };
  add("dtype", reinterpret_cast<PyObject*>(&DtypeType));
  add("layout", reinterpret_cast<PyObject*>(&LayoutType));
  add("memory_format", reinterpret_cast<PyObject*>(&MemoryFormatType));
  add("device", reinterpret_cast<PyObject*>(&DeviceType_));
  add("Generator", reinterpret_cast<PyObject*>(&GeneratorType));
  add("Size", reinterpret_cast<PyObject*>(&SizeType));

  for (int i = 0; i < kNumScalarTypes; ++i) {
    PyObject* o = reinterpret_cast<PyObject*>(&dtypes[i]);
    PyObject_Init(o, &DtypeType);
    dtypes[i].scalar_type = static_cast<ScalarType>(i);
  }
  for (const ScalarTypeName& n : scalar_type_names()) add(n.name, dtype_object(n.type));
  for (int i = 0; i < kNumLayouts; ++i) {
    PyObject_Init(reinterpret_cast<PyObject*>(&layouts[i]), &LayoutType);
    layouts[i].layout = static_cast<Layout>(i);
    add(layout_short_name(layouts[i].layout), reinterpret_cast<PyObject*>(&layouts[i]));
  }
  for (int i = 0; i < kNumMemoryFormats; ++i) {
    PyObject_Init(reinterpret_cast<PyObject*>(&memory_formats[i]), &MemoryFormatType);
    memory_formats[i].memory_format = static_cast<MemoryFormat>(i);
    add(memory_format_name(memory_formats[i].memory_format),
        reinterpret_cast<PyObject*>(&memory_formats[i]));
  }
  // ember.nn.functional's `reduction=` strings, as the ints the loss schemas take.
  PyObject* reductions = checked(PyDict_New());
  for (int64_t r = 0; r < kNumReductions; ++r) {
    PyObject* value = checked(PyLong_FromLongLong(r));
    const int rc = PyDict_SetItemString(reductions, reduction_name(r), value);
    Py_DECREF(value);
    if (rc < 0) throw PythonError();
  }
  add("_reductions", reductions);
  Py_DECREF(reductions);
  PyObject* g = generator_object(default_generator(ember::DeviceType::CPU));
  add("default_generator", g);
  Py_DECREF(g);
}

}  // namespace ember::python
