#pragma once
/// The argument parser of generated bindings: one ArgParser per Python-visible op name,
/// built once from Python signatures (the YAML schemas, with `out=` merged in), matching
/// vectorcall arguments to the first signature they fit.
///
/// Note [Python signatures]: a signature is a schema without returns, "name(Type
/// name[=default], ..., *, ...)", parsed by FunctionSchema::parse_without_returns (the one
/// schema grammar) with its defaults typed there (Note [Typed defaults]); the types are
/// Tensor, Tensor?, Tensor[], Scalar, int, int[], int[N], float, float[], bool, bool[N], str,
/// ScalarType, Layout, Device, MemoryFormat, Generator (each may end in `?`).
/// An int[] that is the only positional parameter also takes its ints as varargs
/// (`zeros(2, 3)`); an int[N] also takes one int for all N. A name the generator spelt
/// with a trailing `_` (a Python keyword: `from_`) is also accepted without it
/// (`**{"from": 0}`, as PyTorch's).

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "c10/core/Device.h"
#include "c10/core/Generator.h"
#include "c10/core/Layout.h"
#include "c10/core/MemoryFormat.h"
#include "c10/core/Scalar.h"
#include "c10/core/Tensor.h"
#include "c10/util/DimVector.h"
#include "python/csrc/PyTensor.h"

namespace ember::python {

enum class ParamType : uint8_t {
  Tensor, TensorList, Scalar, Int, IntList, Float, FloatList, Bool, BoolList, ScalarType, Layout, Device,
  MemoryFormat, Generator, String,
};

struct Param {
  ParamType type;
  bool allow_none = false;
  bool kwarg_only = false;
  int list_size = 0;                 // N of int[N]
  std::string name;
  PyObject* py_name = nullptr;       // interned
  PyObject* py_alias = nullptr;      // `from` for `from_` (Python keywords), interned
  PyObject* default_value = nullptr; // owned; null when required
};

class EMBER_API Signature {
 public:
  /// Parses a signature (Note [Python signatures]); builds its defaults' Python objects once.
  explicit Signature(std::string_view text);
  /// Fills dst (params().size() borrowed references) and returns true when the arguments
  /// fit; otherwise returns false, with the reason in *why when why is not null.
  bool parse(PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames, PyObject** dst,
             PyObject** owned, std::string* why) const;
  const std::string& text() const { return text_; }
  const std::string& name() const { return name_; }
  const std::vector<Param>& params() const { return params_; }

 private:
  std::string text_;
  std::string name_;
  std::vector<Param> params_;
  size_t max_positional_ = 0;
  bool varargs_intlist_ = false;
};

inline constexpr int kMaxParams = 24;
/// Tensors with at least this many elements (inputs, or a factory's size) run with the GIL
/// released.
inline constexpr int64_t kGilReleaseWork = int64_t{1} << 15;

/// The arguments of one call, matched to signature `index`.
class EMBER_API ParsedArgs {
 public:
  ParsedArgs() = default;
  ParsedArgs(const ParsedArgs&) = delete;
  ParsedArgs& operator=(const ParsedArgs&) = delete;
  ~ParsedArgs() { Py_XDECREF(owned_); }

  int index = -1;
  PyObject* args[kMaxParams];

  bool is_none(int i) const { return args[i] == Py_None; }
  const Tensor& tensor(int i) {
    const Tensor& t = unpack(args[i]);
    work_ += t.numel();
    return t;
  }
  std::optional<Tensor> optional_tensor(int i) {
    if (is_none(i)) return std::nullopt;
    return tensor(i);
  }
  std::vector<Tensor> tensor_list(int i);
  Scalar scalar(int i) const;
  std::optional<Scalar> optional_scalar(int i) const {
    if (is_none(i)) return std::nullopt;
    return scalar(i);
  }
  int64_t to_int(int i) const;
  std::optional<int64_t> optional_int(int i) const {
    if (is_none(i)) return std::nullopt;
    return to_int(i);
  }
  DimVector int_list(int i);
  std::optional<DimVector> optional_int_list(int i) {
    if (is_none(i)) return std::nullopt;
    return int_list(i);
  }
  double to_double(int i) const;
  std::optional<double> optional_double(int i) const {
    if (is_none(i)) return std::nullopt;
    return to_double(i);
  }
  std::vector<double> double_list(int i) const;
  bool to_bool(int i) const;
  /// A bool[N] argument (a sequence of N bools).
  template <size_t N>
  std::array<bool, N> bool_array(int i) const {
    std::array<bool, N> out{};
    PyObject* o = args[i];
    for (size_t k = 0; k < N; ++k) out[k] = PySequence_Fast_GET_ITEM(o, static_cast<Py_ssize_t>(k)) == Py_True;
    return out;
  }
  std::optional<bool> optional_bool(int i) const {
    if (is_none(i)) return std::nullopt;
    return to_bool(i);
  }
  ScalarType scalar_type(int i) const;
  std::optional<ScalarType> optional_scalar_type(int i) const {
    if (is_none(i)) return std::nullopt;
    return scalar_type(i);
  }
  Layout layout(int i) const;
  std::optional<Layout> optional_layout(int i) const {
    if (is_none(i)) return std::nullopt;
    return layout(i);
  }
  Device device(int i) const;
  std::optional<Device> optional_device(int i) const {
    if (is_none(i)) return std::nullopt;
    return device(i);
  }
  MemoryFormat memory_format(int i) const;
  std::optional<MemoryFormat> optional_memory_format(int i) const {
    if (is_none(i)) return std::nullopt;
    return memory_format(i);
  }
  std::optional<Generator> optional_generator(int i) const;
  std::string_view string(int i) const;
  std::optional<std::string_view> optional_string(int i) const {
    if (is_none(i)) return std::nullopt;
    return string(i);
  }

  /// Elements the call touches, as far as the arguments read so far tell.
  int64_t work() const { return work_; }
  PyObject** owned_slot() { return &owned_; }

 private:
  int64_t work_ = 0;
  PyObject* owned_ = nullptr;  // the tuple built from varargs ints
};

/// The signatures of one op name, tried in order.
class EMBER_API ArgParser {
 public:
  ArgParser(std::initializer_list<const char*> signatures);
  /// Matches the call; throws TypeError naming the accepted signatures when none fits.
  void parse(PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames, ParsedArgs& out) const;

 private:
  std::vector<Signature> signatures_;
};

/// Releases the GIL for a scope when the call has enough work to be worth it.
class GilRelease {
 public:
  explicit GilRelease(int64_t work) {
    if (work >= kGilReleaseWork) state_ = PyEval_SaveThread();
  }
  ~GilRelease() {
    if (state_) PyEval_RestoreThread(state_);
  }
  GilRelease(const GilRelease&) = delete;
  GilRelease& operator=(const GilRelease&) = delete;

 private:
  PyThreadState* state_ = nullptr;
};

/// Wraps a factory's result and applies its `requires_grad=` argument.
EMBER_API PyObject* wrap_requires_grad(Tensor t, bool requires_grad);
/// Python tuple of wrapped tensors.
EMBER_API PyObject* wrap_tuple(std::initializer_list<Tensor> ts);
EMBER_API PyObject* wrap_list(const std::vector<Tensor>& ts);

/// std::optional<IntArrayRef> over an optional DimVector (which must outlive it).
inline std::optional<IntArrayRef> as_ref(const std::optional<DimVector>& v) {
  if (!v) return std::nullopt;
  return IntArrayRef(*v);
}

}  // namespace ember::python
