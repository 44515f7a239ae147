#include "python/csrc/ArgParser.h"

#include <limits>

#include "aten/autograd/Variable.h"
#include "c10/dispatch/FunctionSchema.h"
#include "c10/util/Exception.h"
#include "python/csrc/Exceptions.h"
#include "python/csrc/PyTypes.h"

namespace ember::python {
namespace {

bool is_int_like(PyObject* o) {
  if (PyLong_Check(o)) return !PyBool_Check(o);
  if (is_tensor(o)) {
    const Tensor& t = unpack(o);
    return t.dim() == 0 && is_integral(t.dtype(), false);
  }
  return PyIndex_Check(o) && !PyFloat_Check(o);
}

bool is_float_like(PyObject* o) {
  if (PyFloat_Check(o) || PyLong_Check(o)) return true;
  // As PyTorch: a 0-d tensor stands for a number unless it requires grad (then only a Tensor
  // parameter takes it, so its gradient is recorded).
  if (is_tensor(o)) {
    return unpack(o).dim() == 0 && !is_complex(unpack(o).dtype()) && !autograd::requires_grad(unpack(o));
  }
  if (PyComplex_Check(o) || PyUnicode_Check(o)) return false;
  return Py_TYPE(o)->tp_as_number && (Py_TYPE(o)->tp_as_number->nb_float || Py_TYPE(o)->tp_as_number->nb_index);
}

bool is_scalar_like(PyObject* o) {
  if (PyLong_Check(o) || PyFloat_Check(o) || PyComplex_Check(o)) return true;
  if (is_tensor(o)) return unpack(o).dim() == 0 && !autograd::requires_grad(unpack(o));
  if (PyUnicode_Check(o)) return false;
  return Py_TYPE(o)->tp_as_number && (Py_TYPE(o)->tp_as_number->nb_float || Py_TYPE(o)->tp_as_number->nb_index);
}

bool is_int_list(PyObject* o, int list_size) {
  if (PyTuple_Check(o) || PyList_Check(o)) {
    const Py_ssize_t n = PySequence_Fast_GET_SIZE(o);
    PyObject** items = PySequence_Fast_ITEMS(o);
    for (Py_ssize_t i = 0; i < n; ++i) {
      if (!is_int_like(items[i])) return false;
    }
    return true;
  }
  return list_size > 0 && is_int_like(o);
}

bool check(const Param& p, PyObject* o) {
  if (o == Py_None) return p.allow_none;
  switch (p.type) {
    case ParamType::Tensor: return is_tensor(o);
    case ParamType::TensorList: {
      if (!PyTuple_Check(o) && !PyList_Check(o)) return false;
      const Py_ssize_t n = PySequence_Fast_GET_SIZE(o);
      for (Py_ssize_t i = 0; i < n; ++i) {
        if (!is_tensor(PySequence_Fast_ITEMS(o)[i])) return false;
      }
      return true;
    }
    case ParamType::Scalar: return is_scalar_like(o);
    case ParamType::Int: return is_int_like(o);
    case ParamType::IntList: return is_int_list(o, p.list_size);
    case ParamType::Float: return is_float_like(o);
    case ParamType::FloatList: {
      if (!PyTuple_Check(o) && !PyList_Check(o)) return is_float_like(o) && p.list_size > 0;
      const Py_ssize_t n = PySequence_Fast_GET_SIZE(o);
      for (Py_ssize_t i = 0; i < n; ++i) {
        if (!is_float_like(PySequence_Fast_ITEMS(o)[i])) return false;
      }
      return true;
    }
    case ParamType::BoolList: {
      if (!PyTuple_Check(o) && !PyList_Check(o)) return false;
      const Py_ssize_t n = PySequence_Fast_GET_SIZE(o);
      if (p.list_size > 0 && n != p.list_size) return false;
      for (Py_ssize_t i = 0; i < n; ++i) {
        if (!PyBool_Check(PySequence_Fast_ITEMS(o)[i])) return false;
      }
      return true;
    }
    case ParamType::Bool:
      return PyBool_Check(o) || (is_tensor(o) && unpack(o).dim() == 0 &&
                                 unpack(o).dtype() == ScalarType::Bool);
    case ParamType::ScalarType: return to_scalar_type(o).has_value();
    case ParamType::Layout: return is_layout(o);
    case ParamType::Device:
      return is_device(o) || PyUnicode_Check(o) || (PyLong_Check(o) && !PyBool_Check(o));
    case ParamType::MemoryFormat: return is_memory_format(o);
    case ParamType::Generator: return is_generator(o);
    case ParamType::String: return PyUnicode_Check(o);
  }
  return false;
}

const char* type_description(const Param& p) {
  switch (p.type) {
    case ParamType::Tensor: return "Tensor";
    case ParamType::TensorList: return "tuple of Tensors";
    case ParamType::Scalar: return "Number";
    case ParamType::Int: return "int";
    case ParamType::IntList: return "tuple of ints";
    case ParamType::Float: return "float";
    case ParamType::FloatList: return "tuple of floats";
    case ParamType::Bool: return "bool";
    case ParamType::BoolList: return "tuple of bools";
    case ParamType::ScalarType: return "ember.dtype";
    case ParamType::Layout: return "ember.layout";
    case ParamType::Device: return "ember.device";
    case ParamType::MemoryFormat: return "ember.memory_format";
    case ParamType::Generator: return "ember.Generator";
    case ParamType::String: return "str";
  }
  return "?";
}

// A tuple of the list's elements, each made by `item`.
template <class T, class F>
PyObject* tuple_of(const std::vector<T>& items, F item) {
  PyObject* tup = checked(PyTuple_New(static_cast<Py_ssize_t>(items.size())));
  for (size_t i = 0; i < items.size(); ++i) {
    PyObject* o = item(items[i]);
    if (!o) {
      Py_DECREF(tup);
      throw PythonError();
    }
    PyTuple_SET_ITEM(tup, static_cast<Py_ssize_t>(i), o);
  }
  return tup;
}

// The Python object of a schema default, from its typed value (Note [Typed defaults] in
// c10/dispatch/FunctionSchema.h).
PyObject* default_object(const Param& p, const IValue& v) {
  using Tag = IValue::Tag;
  switch (v.tag()) {
    case Tag::None: return Py_NewRef(Py_None);
    case Tag::Bool: return PyBool_FromLong(v.to_bool());
    case Tag::Int:
      // Boxed calls pass memory formats as ints; Python passes ember.memory_format objects.
      if (p.type == ParamType::MemoryFormat) {
        return Py_NewRef(memory_format_object(static_cast<MemoryFormat>(v.to_int())));
      }
      return PyLong_FromLongLong(v.to_int());
    case Tag::Double: return PyFloat_FromDouble(v.to_double());
    case Tag::String: {
      const std::string& s = v.to_string();
      return PyUnicode_FromStringAndSize(s.data(), static_cast<Py_ssize_t>(s.size()));
    }
    case Tag::ScalarType: return Py_NewRef(dtype_object(v.to_scalar_type()));
    case Tag::Layout: return Py_NewRef(layout_object(v.to_layout()));
    case Tag::Device: return device_object(v.to_device());
    case Tag::IntList:
      return tuple_of(v.to_int_list(), [](int64_t i) { return PyLong_FromLongLong(i); });
    case Tag::DoubleList:
      return tuple_of(v.to_double_list(), [](double d) { return PyFloat_FromDouble(d); });
    case Tag::BoolList:
      return tuple_of(v.to_bool_list(), [](bool b) { return PyBool_FromLong(b); });
    case Tag::TensorList:
      return tuple_of(v.to_tensor_list(), [](const Tensor& t) { return wrap(t); });
    default: break;
  }
  EMBER_INTERNAL_ASSERT(false, "no Python default for parameter '", p.name, "' of value ",
                        v.repr());
  return nullptr;
}

// The parameter kind of a schema type (Note [Python signatures]).
ParamType param_type(const SchemaType& t, std::string_view text) {
  EMBER_INTERNAL_ASSERT(!t.elem_optional, "unsupported parameter type in ", text);
  switch (t.base) {
    case BaseType::Tensor: return t.is_list ? ParamType::TensorList : ParamType::Tensor;
    case BaseType::Int:
    case BaseType::SymInt: return t.is_list ? ParamType::IntList : ParamType::Int;
    case BaseType::Float: return t.is_list ? ParamType::FloatList : ParamType::Float;
    case BaseType::Bool: return t.is_list ? ParamType::BoolList : ParamType::Bool;
    default: break;
  }
  EMBER_INTERNAL_ASSERT(!t.is_list, "unsupported parameter type in ", text);
  switch (t.base) {
    case BaseType::Scalar: return ParamType::Scalar;
    case BaseType::ScalarType: return ParamType::ScalarType;
    case BaseType::Layout: return ParamType::Layout;
    case BaseType::Device: return ParamType::Device;
    case BaseType::MemoryFormat: return ParamType::MemoryFormat;
    case BaseType::Generator: return ParamType::Generator;
    case BaseType::Str: return ParamType::String;
    default: break;
  }
  EMBER_INTERNAL_ASSERT(false, "unsupported parameter type ", base_type_name(t.base), " in ", text);
  return ParamType::Tensor;
}

std::string describe_call(PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  std::string s = "(";
  for (Py_ssize_t i = 0; i < nargs; ++i) {
    if (i) s += ", ";
    s += is_tensor(args[i]) ? "Tensor" : Py_TYPE(args[i])->tp_name;
  }
  const Py_ssize_t nk = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
  for (Py_ssize_t i = 0; i < nk; ++i) {
    if (nargs || i) s += ", ";
    PyObject* v = args[nargs + i];
    s += std::string(PyUnicode_AsUTF8(PyTuple_GET_ITEM(kwnames, i))) + "=" +
         (is_tensor(v) ? "Tensor" : Py_TYPE(v)->tp_name);
  }
  return s + ")";
}

}  // namespace

Signature::Signature(std::string_view text) : text_(text) {
  // The schema grammar, without returns: one parser for schemas and Python signatures.
  const FunctionSchema schema = FunctionSchema::parse_without_returns(text);
  name_ = schema.name.name;
  for (const Argument& a : schema.arguments) {
    Param p;
    p.name = a.name;
    p.kwarg_only = a.kwarg_only;
    p.allow_none = a.type.optional;
    p.list_size = a.type.is_list && a.type.list_size > 0 ? static_cast<int>(a.type.list_size) : 0;
    p.type = param_type(a.type, text);
    if (a.default_text) {
      EMBER_INTERNAL_ASSERT(a.default_value.has_value(), "no value for the default of '", a.name,
                            "' in ", text);
      p.default_value = default_object(p, *a.default_value);
      if (!p.default_value) throw PythonError();
    }
    p.py_name = PyUnicode_InternFromString(p.name.c_str());
    if (p.name.size() > 1 && p.name.back() == '_') {
      p.py_alias = PyUnicode_InternFromString(p.name.substr(0, p.name.size() - 1).c_str());
    }
    if (!a.kwarg_only) ++max_positional_;
    params_.push_back(std::move(p));
  }
  EMBER_INTERNAL_ASSERT(params_.size() <= kMaxParams, "too many parameters in ", text);
  varargs_intlist_ = max_positional_ == 1 && params_[0].type == ParamType::IntList;
}

bool Signature::parse(PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames,
                      PyObject** dst, PyObject** owned, std::string* why) const {
  const size_t n = params_.size();
  size_t given = static_cast<size_t>(nargs);
  if (varargs_intlist_ && nargs >= 1 && (nargs > 1 || is_int_like(args[0]))) {
    // zeros(2, 3): the ints are the list.
    PyObject* tup = PyTuple_New(nargs);
    if (!tup) throw PythonError();
    for (Py_ssize_t i = 0; i < nargs; ++i) PyTuple_SET_ITEM(tup, i, Py_NewRef(args[i]));
    Py_XSETREF(*owned, tup);
    dst[0] = tup;
    given = 1;
  } else {
    if (given > max_positional_) {
      if (why) {
        *why = name_ + "() takes " + std::to_string(max_positional_) +
               " positional argument(s) but " + std::to_string(nargs) + " were given";
      }
      return false;
    }
    for (size_t i = 0; i < given; ++i) dst[i] = args[i];
  }
  const Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
  Py_ssize_t used_kw = 0;
  for (size_t i = 0; i < n; ++i) {
    const Param& p = params_[i];
    PyObject* value = nullptr;
    for (Py_ssize_t k = 0; k < nkw; ++k) {
      PyObject* key = PyTuple_GET_ITEM(kwnames, k);
      if (key == p.py_name || PyUnicode_Compare(key, p.py_name) == 0 ||
          (p.py_alias && PyUnicode_Compare(key, p.py_alias) == 0)) {
        value = args[nargs + k];
        break;
      }
    }
    if (value) {
      if (i < given) {
        if (why) *why = name_ + "() got multiple values for argument '" + p.name + "'";
        return false;
      }
      ++used_kw;
      dst[i] = value;
    } else if (i >= given) {
      if (!p.default_value) {
        if (why) *why = name_ + "() missing required argument '" + p.name + "'";
        return false;
      }
      dst[i] = p.default_value;
    }
    if (!check(p, dst[i])) {
      if (why) {
        *why = name_ + "(): argument '" + p.name + "'" +
               (i < given ? " (position " + std::to_string(i + 1) + ")" : std::string()) +
               " must be " + (p.allow_none ? std::string(type_description(p)) + " or None"
                                           : std::string(type_description(p))) +
               ", not " + (is_tensor(dst[i]) ? "Tensor" : Py_TYPE(dst[i])->tp_name);
      }
      return false;
    }
  }
  if (used_kw != nkw) {
    if (why) {
      for (Py_ssize_t k = 0; k < nkw; ++k) {
        PyObject* key = PyTuple_GET_ITEM(kwnames, k);
        bool known = false;
        for (const Param& p : params_) {
          known = known || PyUnicode_Compare(key, p.py_name) == 0 ||
                  (p.py_alias && PyUnicode_Compare(key, p.py_alias) == 0);
        }
        if (!known) {
          *why = name_ + "() got an unexpected keyword argument '" + PyUnicode_AsUTF8(key) + "'";
          break;
        }
      }
    }
    return false;
  }
  return true;
}

ArgParser::ArgParser(std::initializer_list<const char*> signatures) {
  for (const char* s : signatures) signatures_.emplace_back(s);
}

void ArgParser::parse(PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames,
                      ParsedArgs& out) const {
  for (size_t i = 0; i < signatures_.size(); ++i) {
    if (signatures_[i].parse(args, nargs, kwnames, out.args, out.owned_slot(), nullptr)) {
      out.index = static_cast<int>(i);
      return;
    }
  }
  if (signatures_.size() == 1) {
    std::string why;
    signatures_[0].parse(args, nargs, kwnames, out.args, out.owned_slot(), &why);
    const std::string msg = why + "\naccepted signature:\n * " + signatures_[0].text();
    PyErr_SetString(PyExc_TypeError, msg.c_str());
    throw PythonError();
  }
  std::string msg = signatures_[0].name() + "() received an invalid combination of arguments - got " +
                    describe_call(args, nargs, kwnames) + ", but expected one of:";
  for (const Signature& s : signatures_) msg += "\n * " + s.text();
  PyErr_SetString(PyExc_TypeError, msg.c_str());
  throw PythonError();
}

// ---- conversions ------------------------------------------------------------------------

std::vector<Tensor> ParsedArgs::tensor_list(int i) {
  PyObject* o = args[i];
  const Py_ssize_t n = PySequence_Fast_GET_SIZE(o);
  std::vector<Tensor> out;
  out.reserve(static_cast<size_t>(n));
  for (Py_ssize_t k = 0; k < n; ++k) {
    out.push_back(unpack(PySequence_Fast_ITEMS(o)[k]));
    work_ += out.back().numel();
  }
  return out;
}

Scalar ParsedArgs::scalar(int i) const {
  PyObject* o = args[i];
  if (PyBool_Check(o)) return Scalar(o == Py_True);
  if (PyLong_Check(o)) {
    int overflow = 0;
    const long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
    EMBER_CHECK(overflow == 0, "value cannot be converted to type int64 without overflow");
    return Scalar(static_cast<int64_t>(v));
  }
  if (PyFloat_Check(o)) return Scalar(PyFloat_AS_DOUBLE(o));
  if (PyComplex_Check(o)) {
    const Py_complex c = PyComplex_AsCComplex(o);
    return Scalar(std::complex<double>(c.real, c.imag));
  }
  if (is_tensor(o)) return unpack(o).item();
  if (PyIndex_Check(o)) return Scalar(static_cast<int64_t>(to_int(i)));
  const double d = PyFloat_AsDouble(o);
  if (d == -1.0 && PyErr_Occurred()) throw PythonError();
  return Scalar(d);
}

int64_t ParsedArgs::to_int(int i) const {
  PyObject* o = args[i];
  if (is_tensor(o)) return unpack(o).item().to_long();
  int overflow = 0;
  const long long v = PyLong_Check(o) ? PyLong_AsLongLongAndOverflow(o, &overflow) : [&] {
    PyObject* idx = checked(PyNumber_Index(o));
    const long long r = PyLong_AsLongLongAndOverflow(idx, &overflow);
    Py_DECREF(idx);
    return r;
  }();
  if (v == -1 && PyErr_Occurred()) throw PythonError();
  EMBER_CHECK(overflow == 0, "value cannot be converted to type int64 without overflow");
  return v;
}

DimVector ParsedArgs::int_list(int i) {
  PyObject* o = args[i];
  DimVector out;
  if (!PyTuple_Check(o) && !PyList_Check(o)) {
    const int64_t v = to_int(i);
    out = DimVector(static_cast<size_t>(1), v);
  } else {
    const Py_ssize_t n = PySequence_Fast_GET_SIZE(o);
    PyObject** items = PySequence_Fast_ITEMS(o);
    out = DimVector(static_cast<size_t>(n));
    for (Py_ssize_t k = 0; k < n; ++k) {
      PyObject* item = items[k];
      if (PyLong_CheckExact(item)) {
        int overflow = 0;
        out[k] = PyLong_AsLongLongAndOverflow(item, &overflow);
        EMBER_CHECK(overflow == 0, "value cannot be converted to type int64 without overflow");
      } else {
        PyObject* saved = args[i];
        args[i] = item;
        out[k] = to_int(i);
        args[i] = saved;
      }
    }
  }
  // The list read as a size (its product: the work of a factory), saturating: a list of
  // lengths or indices can multiply past int64.
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  int64_t product = 1;
  for (int64_t v : out) {
    const int64_t f = std::max<int64_t>(v, 0);
    product = f != 0 && product > kMax / f ? kMax : product * f;
  }
  work_ = product > kMax - work_ ? kMax : work_ + product;
  return out;
}

double ParsedArgs::to_double(int i) const {
  PyObject* o = args[i];
  if (PyFloat_CheckExact(o)) return PyFloat_AS_DOUBLE(o);
  if (is_tensor(o)) return unpack(o).item().to_double();
  const double d = PyFloat_AsDouble(o);
  if (d == -1.0 && PyErr_Occurred()) throw PythonError();
  return d;
}

std::vector<double> ParsedArgs::double_list(int i) const {
  PyObject* o = args[i];
  std::vector<double> out;
  if (!PyTuple_Check(o) && !PyList_Check(o)) {
    out.push_back(to_double(i));
    return out;
  }
  const Py_ssize_t n = PySequence_Fast_GET_SIZE(o);
  for (Py_ssize_t k = 0; k < n; ++k) {
    const double d = PyFloat_AsDouble(PySequence_Fast_ITEMS(o)[k]);
    if (d == -1.0 && PyErr_Occurred()) throw PythonError();
    out.push_back(d);
  }
  return out;
}

bool ParsedArgs::to_bool(int i) const {
  PyObject* o = args[i];
  if (is_tensor(o)) return unpack(o).item().to<bool>();
  return o == Py_True;
}
ScalarType ParsedArgs::scalar_type(int i) const { return *to_scalar_type(args[i]); }
Layout ParsedArgs::layout(int i) const { return reinterpret_cast<PyLayout*>(args[i])->layout; }
Device ParsedArgs::device(int i) const { return to_device(args[i]); }
MemoryFormat ParsedArgs::memory_format(int i) const {
  return reinterpret_cast<PyMemoryFormat*>(args[i])->memory_format;
}
std::optional<Generator> ParsedArgs::optional_generator(int i) const {
  if (is_none(i)) return std::nullopt;
  return reinterpret_cast<PyGenerator*>(args[i])->generator;
}
std::string_view ParsedArgs::string(int i) const {
  Py_ssize_t n = 0;
  const char* s = PyUnicode_AsUTF8AndSize(args[i], &n);
  if (!s) throw PythonError();
  return std::string_view(s, static_cast<size_t>(n));
}

PyObject* wrap_requires_grad(Tensor t, bool requires_grad) {
  if (requires_grad) autograd::set_requires_grad(t, true);
  return wrap(std::move(t));
}

PyObject* wrap_tuple(std::initializer_list<Tensor> ts) {
  PyObject* tup = checked(PyTuple_New(static_cast<Py_ssize_t>(ts.size())));
  Py_ssize_t i = 0;
  for (const Tensor& t : ts) {
    PyObject* o = wrap(t);
    PyTuple_SET_ITEM(tup, i++, o);
  }
  return tup;
}

PyObject* wrap_list(const std::vector<Tensor>& ts) {
  PyObject* tup = checked(PyTuple_New(static_cast<Py_ssize_t>(ts.size())));
  for (size_t i = 0; i < ts.size(); ++i) PyTuple_SET_ITEM(tup, static_cast<Py_ssize_t>(i), wrap(ts[i]));
  return tup;
}

}  // namespace ember::python
