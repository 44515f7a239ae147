// Tensor printing: a port of PyTorch's torch/_tensor_str.py (repr() of a strided tensor),
// reading elements through the tensor's sizes and strides, so views print their logical
// values. Function names follow the Python ones (_Formatter, _vector_str, ...) to make the
// two easy to compare when PyTorch changes.
#include "aten/Print.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <mutex>
#include <vector>

#include "c10/core/SparseCsrTensorImpl.h"
#include "c10/core/SparseTensorImpl.h"
#include "c10/util/Exception.h"
#include "c10/util/Half.h"

namespace ember {
namespace {

// ---- element access ---------------------------------------------------------------------

// Reads one tensor's elements by element offset from its first element, widened to double
// (floating and complex parts; every supported type converts exactly) or int64 (integers).
class Elements {
 public:
  explicit Elements(const Tensor& t)
      : data_(static_cast<const char*>(t.data_ptr())), dtype_(t.scalar_type()) {}

  double real(int64_t i) const {
    switch (dtype_) {
      case ScalarType::Half: return static_cast<float>(load<Half>(i));
      case ScalarType::BFloat16: return static_cast<float>(load<BFloat16>(i));
      case ScalarType::Float: return load<float>(i);
      case ScalarType::Double: return load<double>(i);
      case ScalarType::ComplexFloat: return load<float>(2 * i);
      case ScalarType::ComplexDouble: return load<double>(2 * i);
      default: EMBER_INTERNAL_ASSERT(false, "print: ", dtype_, " has no floating value");
    }
    return 0;
  }
  double imag(int64_t i) const {
    return dtype_ == ScalarType::ComplexFloat ? load<float>(2 * i + 1) : load<double>(2 * i + 1);
  }
  int64_t integer(int64_t i) const {
    switch (dtype_) {
      case ScalarType::Byte: return load<uint8_t>(i);
      case ScalarType::Char: return load<int8_t>(i);
      case ScalarType::Short: return load<int16_t>(i);
      case ScalarType::Int: return load<int32_t>(i);
      case ScalarType::Long: return load<int64_t>(i);
      case ScalarType::Bool: return load<uint8_t>(i) != 0;
      default: EMBER_INTERNAL_ASSERT(false, "print: ", dtype_, " has no integer value");
    }
    return 0;
  }

 private:
  // Complex parts are addressed as arrays of their real type, hence the scalar-sized step.
  template <class T>
  T load(int64_t i) const {
    T v;
    std::memcpy(&v, data_ + i * static_cast<int64_t>(sizeof(T)), sizeof(T));
    return v;
  }

  const char* data_;
  ScalarType dtype_;
};

// ---- _Formatter ---------------------------------------------------------------------------

// Python's format(value, ".{precision}{conversion}") for conversion 'f' or 'e'. printf
// rounds correctly (ties to even) like Python; only non-finite values differ (printf may
// write "-nan"), and Python writes those as "nan", "inf", "-inf" whatever the format.
std::string format_double(double v, int64_t precision, char conversion) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  const char spec[] = {'%', '.', '*', conversion, '\0'};
  const int p = static_cast<int>(precision);
  const int n = std::snprintf(nullptr, 0, spec, p, v);
  std::string s(static_cast<size_t>(n), '\0');
  std::snprintf(s.data(), s.size() + 1, spec, p, v);
  return s;
}

std::string pad_left(std::string s, int64_t width) {
  if (static_cast<int64_t>(s.size()) < width) s.insert(0, width - s.size(), ' ');
  return s;
}

// Chooses one notation and width for all values of a tensor (or of its real or imaginary
// parts), as PyTorch's _Formatter does from the values that will be shown.
class Formatter {
 public:
  enum class Kind { Bool, Integer, Floating };

  static Formatter integral(Kind kind, const std::vector<int64_t>& values) {
    Formatter f(kind, 0);
    for (int64_t v : values) {
      f.max_width_ = std::max<int64_t>(f.max_width_, f.format_integer(v).size());
    }
    return f;
  }

  static Formatter floating(const std::vector<double>& values, const PrintOptions& options) {
    Formatter f(Kind::Floating, options.precision);
    std::vector<double> shown;  // nonzero finite values decide the notation
    for (double v : values) {
      if (std::isfinite(v) && v != 0) shown.push_back(v);
    }
    if (shown.empty()) return f;
    double min_abs = std::numeric_limits<double>::infinity(), max_abs = 0;
    for (double v : shown) {
      min_abs = std::min(min_abs, std::fabs(v));
      max_abs = std::max(max_abs, std::fabs(v));
      if (v != std::ceil(v)) f.int_mode_ = false;
    }
    f.sci_mode_ = options.sci_mode.value_or(max_abs / min_abs > 1000.0 || max_abs > 1.0e8 ||
                                            min_abs < 1.0e-4);
    for (double v : shown) {
      int64_t len;
      if (f.sci_mode_) {
        len = format_double(v, f.precision_, 'e').size();
      } else if (f.int_mode_) {
        len = format_double(v, 0, 'f').size() + 1;  // the trailing "." of "2."
      } else {
        len = format_double(v, f.precision_, 'f').size();
      }
      f.max_width_ = std::max(f.max_width_, len);
    }
    return f;
  }

  int64_t width() const { return max_width_; }

  std::string format_integer(int64_t v) const {
    if (kind_ == Kind::Bool) return pad_left(v ? "True" : "False", max_width_);
    return pad_left(std::to_string(v), max_width_);
  }

  std::string format_floating(double v) const {
    std::string s;
    if (sci_mode_) {
      s = format_double(v, precision_, 'e');
    } else if (int_mode_) {
      s = format_double(v, 0, 'f');
      if (std::isfinite(v)) s += '.';
    } else {
      s = format_double(v, precision_, 'f');
    }
    return pad_left(std::move(s), max_width_);
  }

 private:
  Formatter(Kind kind, int64_t precision) : kind_(kind), precision_(precision) {}

  Kind kind_;
  int64_t precision_;
  bool int_mode_ = true;
  bool sci_mode_ = false;
  int64_t max_width_ = 1;
};

// ---- _tensor_str ------------------------------------------------------------------------

class Printer {
 public:
  Printer(const Tensor& t, const PrintOptions& options)
      : t_(t),
        elements_(t),
        options_(options),
        summarize_(static_cast<double>(t.numel()) > options.threshold),
        formatter_(make_formatter(false)) {
    if (is_complex(t.scalar_type())) imag_formatter_.emplace(make_formatter(true));
  }

  // _tensor_str_with_formatter: the sub-tensor starting at `offset` spanning dims [d, ndim).
  std::string tensor_str(int64_t offset, int64_t d, int64_t indent) const {
    const int64_t remaining = t_.dim() - d;
    if (remaining == 0) return element(offset);
    if (remaining == 1) return vector_str(offset, d, indent);
    std::vector<std::string> slices;
    const int64_t size = t_.sizes()[d], stride = t_.strides()[d];
    const int64_t edge = options_.edgeitems;
    auto sub = [&](int64_t i) { return tensor_str(offset + i * stride, d + 1, indent + 1); };
    if (summarize_ && size > 2 * edge) {
      for (int64_t i = 0; i < edge; ++i) slices.push_back(sub(i));
      slices.push_back("...");
      for (int64_t i = size - edge; i < size; ++i) slices.push_back(sub(i));
    } else {
      for (int64_t i = 0; i < size; ++i) slices.push_back(sub(i));
    }
    const std::string separator =
        "," + std::string(remaining - 1, '\n') + std::string(indent + 1, ' ');
    return "[" + join(slices, separator) + "]";
  }

 private:
  // The values the formatter sees: all of them, or what summarisation shows
  // (get_summarized_data), real or imaginary parts for complex tensors.
  Formatter make_formatter(bool imag) const {
    const ScalarType dtype = t_.scalar_type();
    std::vector<int64_t> offsets;
    if (!summarize_ || options_.edgeitems > 0 || t_.dim() <= 1) {
      collect_shown(0, 0, offsets);
    }  // else: get_summarized_data gives an empty tensor (edgeitems == 0, dim >= 2)
    if (is_floating_point(dtype) || is_complex(dtype)) {
      std::vector<double> values;
      values.reserve(offsets.size());
      for (int64_t o : offsets) values.push_back(imag ? elements_.imag(o) : elements_.real(o));
      return Formatter::floating(values, options_);
    }
    std::vector<int64_t> values;
    values.reserve(offsets.size());
    for (int64_t o : offsets) values.push_back(elements_.integer(o));
    return Formatter::integral(
        dtype == ScalarType::Bool ? Formatter::Kind::Bool : Formatter::Kind::Integer, values);
  }

  void collect_shown(int64_t offset, int64_t d, std::vector<int64_t>& out) const {
    if (d == t_.dim()) {
      out.push_back(offset);
      return;
    }
    const int64_t size = t_.sizes()[d], stride = t_.strides()[d];
    // With edgeitems == 0 a 1-D summary is self[:0] + self[-0:], i.e. every element.
    const int64_t edge = options_.edgeitems;
    if (summarize_ && edge > 0 && size > 2 * edge) {
      for (int64_t i = 0; i < edge; ++i) collect_shown(offset + i * stride, d + 1, out);
      for (int64_t i = size - edge; i < size; ++i) collect_shown(offset + i * stride, d + 1, out);
    } else {
      for (int64_t i = 0; i < size; ++i) collect_shown(offset + i * stride, d + 1, out);
    }
  }

  // _scalar_str / _val_formatter.
  std::string element(int64_t offset) const {
    const ScalarType dtype = t_.scalar_type();
    if (is_complex(dtype)) {
      std::string real = formatter_.format_floating(elements_.real(offset));
      std::string imag = imag_formatter_->format_floating(elements_.imag(offset)) + "j";
      imag.erase(0, imag.find_first_not_of(' '));
      // A sign ("+", "-", also of +-0.) joins the parts; otherwise add one.
      return imag[0] == '+' || imag[0] == '-' ? real + imag : real + "+" + imag;
    }
    if (is_floating_point(dtype)) return formatter_.format_floating(elements_.real(offset));
    return formatter_.format_integer(elements_.integer(offset));
  }

  // _vector_str: one dimension of elements, wrapped at the line width.
  std::string vector_str(int64_t offset, int64_t d, int64_t indent) const {
    int64_t element_length = formatter_.width() + 2;  // with ", "
    if (imag_formatter_) element_length += imag_formatter_->width() + 1;  // and "j"
    const auto per_line = std::max<int64_t>(
        1, static_cast<int64_t>(std::floor(static_cast<double>(options_.linewidth - indent) /
                                           static_cast<double>(element_length))));
    const int64_t size = t_.sizes()[d], stride = t_.strides()[d];
    const int64_t edge = options_.edgeitems;
    std::vector<std::string> data;
    if (summarize_ && edge == 0) {
      data.push_back("...");
    } else if (summarize_ && size > 2 * edge) {
      for (int64_t i = 0; i < edge; ++i) data.push_back(element(offset + i * stride));
      data.push_back(" ...");
      for (int64_t i = size - edge; i < size; ++i) data.push_back(element(offset + i * stride));
    } else {
      for (int64_t i = 0; i < size; ++i) data.push_back(element(offset + i * stride));
    }
    std::vector<std::string> lines;
    for (size_t i = 0; i < data.size(); i += per_line) {
      const size_t end = std::min(data.size(), i + static_cast<size_t>(per_line));
      lines.push_back(join({data.begin() + i, data.begin() + end}, ", "));
    }
    return "[" + join(lines, ",\n" + std::string(indent + 1, ' ')) + "]";
  }

  static std::string join(const std::vector<std::string>& parts, const std::string& sep) {
    std::string out;
    for (size_t i = 0; i < parts.size(); ++i) {
      if (i) out += sep;
      out += parts[i];
    }
    return out;
  }

  const Tensor& t_;
  Elements elements_;
  const PrintOptions& options_;
  bool summarize_;
  Formatter formatter_;  // the values, or the real parts of complex values
  std::optional<Formatter> imag_formatter_;
};

// ---- _str_intern --------------------------------------------------------------------------

// _add_suffixes: ", suffix" on the last line while it fits the line width, else a new line.
std::string add_suffixes(std::string text, const std::vector<std::string>& suffixes,
                         int64_t indent, int64_t linewidth) {
  const size_t newline = text.rfind('\n');
  // Python's len(s) - s.rfind("\n") + 1, where rfind gives -1 when there is none.
  int64_t last_line_len = static_cast<int64_t>(text.size()) -
                          (newline == std::string::npos ? -1 : static_cast<int64_t>(newline)) + 1;
  for (const std::string& suffix : suffixes) {
    const auto suffix_len = static_cast<int64_t>(suffix.size());
    if (last_line_len + suffix_len + 2 > linewidth) {
      text += ",\n" + std::string(indent, ' ') + suffix;
      last_line_len = indent + suffix_len;
    } else {
      text += ", " + suffix;
      last_line_len += suffix_len + 2;
    }
  }
  return text + ")";
}

void check_options(const char* op, const PrintOptions& o) {
  EMBER_CHECK_VALUE(o.precision >= 0, op, "(): expected 'precision' to be non-negative, but got ",
                    o.precision);
  EMBER_CHECK_VALUE(o.edgeitems >= 0, op, "(): expected 'edgeitems' to be non-negative, but got ",
                    o.edgeitems);
  EMBER_CHECK_VALUE(!std::isnan(o.threshold), op,
                    "(): expected 'threshold' to be a number, but got nan");
}

std::mutex options_mutex;
PrintOptions global_options;

std::string print_with_global_options(const Tensor& t) { return to_string(t, print_options()); }

// Note [Tensor printing hook] (c10/core/Tensor.cpp): Tensor::str() and operator<< reach
// this printer through the pointer set here while libember loads.
[[maybe_unused]] const bool printer_installed = (set_tensor_printer(&print_with_global_options), true);

}  // namespace

PrintOptions print_options() {
  std::lock_guard<std::mutex> lock(options_mutex);
  return global_options;
}

void set_print_options(const PrintOptions& options) {
  check_options("set_print_options", options);
  std::lock_guard<std::mutex> lock(options_mutex);
  global_options = options;
}

std::string to_string(const Tensor& t) { return to_string(t, print_options()); }

namespace {

// "tensor(" + body + ")" of a member, its continuation lines indented by `extra` more, and
// its dtype suffix (", dtype=...") moved out to `dtype` (PyTorch prints it once, outside).
std::string member_body(const Tensor& m, const PrintOptions& options, size_t extra, std::string* dtype) {
  std::string s = to_string(m, options);
  const size_t at = s.rfind(", dtype=");
  if (at != std::string::npos && dtype != nullptr) {
    *dtype = s.substr(at + 2, s.size() - 1 - (at + 2));
    s = s.substr(0, at) + ")";
  }
  std::string out;
  for (char c : s) {
    out += c;
    if (c == '\n') out += std::string(extra, ' ');
  }
  return out;
}

// PyTorch's form: tensor(indices=tensor(...),
//                        values=tensor(...),
//                        size=(2, 3), nnz=3, layout=torch.sparse_coo)
std::string sparse_coo_string(const Tensor& t, const PrintOptions& options) {
  const SparseTensorImpl& s = sparse_coo_impl(t, "to_string");
  const std::string indices_prefix = "indices=", values_prefix = "values=";
  std::string dtype;
  std::string out = "tensor(" + indices_prefix + member_body(s.indices(), options, 7 + indices_prefix.size(), nullptr) +
                    ",\n       " + values_prefix + member_body(s.values(), options, 7 + values_prefix.size(), &dtype);
  std::string size = "(";
  for (size_t d = 0; d < t.sizes().size(); ++d) size += (d ? ", " : "") + std::to_string(t.sizes()[d]);
  size += t.sizes().size() == 1 ? ",)" : ")";
  out += ",\n       size=" + size + ", nnz=" + std::to_string(s.nnz());
  if (!dtype.empty()) out += ", " + dtype;
  return out + ", layout=" + options.dtype_prefix + "sparse_coo)";
}

// PyTorch's form: tensor(crow_indices=tensor(...),
//                        col_indices=tensor(...),
//                        values=tensor(...), size=(2, 3), nnz=3, layout=torch.sparse_csr)
// (ccol_indices and row_indices for CSC); the suffixes wrap at the line width.
std::string sparse_compressed_string(const Tensor& t, const PrintOptions& options) {
  const SparseCsrTensorImpl& s = sparse_compressed_impl(t, "to_string");
  const bool csr = t.layout() == Layout::SparseCsr;
  const std::string cp = csr ? "crow_indices=" : "ccol_indices=";
  const std::string pp = csr ? "col_indices=" : "row_indices=";
  const std::string vp = "values=";
  std::string index_dtype, dtype;
  auto body = [&](const Tensor& m, const std::string& prefix, std::string* dt) {
    std::string b = member_body(m, options, 7 + prefix.size(), dt);
    if (m.numel() == 0 && b.find("size=") == std::string::npos) {
      b = b.substr(0, b.size() - 1) + ", size=" + shape_str(m.sizes(), ShapeStyle::Tuple) + ")";
    }
    return b;
  };
  std::string text = "tensor(" + cp + body(s.compressed_indices(), cp, &index_dtype) + ",\n       " + pp +
                     body(s.plain_indices(), pp, &index_dtype) + ",\n       " + vp + body(s.values(), vp, &dtype);
  std::vector<std::string> suffixes{"size=" + shape_str(t.sizes(), ShapeStyle::Tuple), "nnz=" + std::to_string(s.nnz())};
  if (!dtype.empty()) suffixes.push_back(dtype);
  suffixes.push_back(std::string("layout=") + options.dtype_prefix + layout_short_name(t.layout()));
  return add_suffixes(text, suffixes, 7, options.linewidth);
}

}  // namespace

std::string to_string(const Tensor& t, const PrintOptions& options) {
  if (!t.defined()) return "Tensor(undefined)";
  check_options("to_string", options);
  if (t.layout() == Layout::Sparse) return sparse_coo_string(t, options);
  if (is_sparse_compressed(t.layout())) return sparse_compressed_string(t, options);
  EMBER_CHECK_NOT_IMPLEMENTED(t.layout() == Layout::Strided,
                              "to_string(): printing ", t.layout(), " tensors is not supported yet");
  const std::string prefix = "tensor(";
  const auto indent = static_cast<int64_t>(prefix.size());
  const ScalarType dtype = t.scalar_type();
  const std::string dtype_suffix = "dtype=" + options.dtype_prefix + scalar_type_name(dtype);
  std::vector<std::string> suffixes;
  std::string body;
  if (!t.device().is_cpu()) suffixes.push_back("device='" + t.device().str() + "'");
  if (!t.device().is_cpu()) {
    // Meta tensors have no values. Other devices print the same way until copies to the
    // CPU exist (PyTorch prints their values).
    suffixes.push_back("size=" + shape_str(t.sizes(), ShapeStyle::Tuple));
    if (dtype != get_default_dtype()) suffixes.push_back(dtype_suffix);
    body = "...";
  } else if (t.numel() == 0) {
    // Like NumPy, the shape shows when it is not (0,), and so does the dtype (even int64,
    // which no element can imply).
    if (t.dim() != 1) suffixes.push_back("size=" + shape_str(t.sizes(), ShapeStyle::Tuple));
    if (dtype != get_default_dtype()) suffixes.push_back(dtype_suffix);
    body = "[]";
  } else {
    if (options.edgeitems == 0) {
      suffixes.push_back("size=" + shape_str(t.sizes(), ShapeStyle::Tuple));
    }
    // PyTorch omits the default dtype of each kind (get_default_dtype(), float32 unless set).
    const bool default_dtype = dtype == get_default_dtype() ||
                               dtype == get_default_complex_dtype() ||
                               dtype == ScalarType::Long || dtype == ScalarType::Bool;
    if (!default_dtype) suffixes.push_back(dtype_suffix);
    body = Printer(t, options).tensor_str(0, 0, indent);
  }
  return add_suffixes(prefix + body, suffixes, indent, options.linewidth);
}

}  // namespace ember
