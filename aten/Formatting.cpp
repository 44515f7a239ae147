// `std::cout << t`: libtorch's C++ stream format, which is not Python's repr (aten/Print.cpp).
//
//    0  1  2
//    3  4  5
//   [ CPUFloatType{2,3} ]
//
// One number format per matrix (or per vector), chosen from its finite values: integers
// print with the stream's default notation, a narrow range fixed with four decimals
// (scaled by a power of ten, printed first as "1e+05 *", when the values are all large or
// all small), a wide range scientific. Matrices wider than 80 characters print in column
// blocks ("Columns 1 to 6"); tensors of three or more dims print one matrix per leading
// index, headed "(1,2,.,.) = ". Values are read widened to double (complex: the real part).
#include <charconv>
#include <cmath>
#include <iomanip>
#include <string>
#include <ostream>
#include <vector>

#include "c10/core/Tensor.h"
#include "c10/util/Half.h"

namespace ember {
namespace {

constexpr int64_t kLineWidth = 80;

template <class T>
double widen(const char* p) {
  if constexpr (std::is_same_v<T, std::complex<float>> || std::is_same_v<T, std::complex<double>>) {
    return static_cast<double>(reinterpret_cast<const T*>(p)->real());
  } else {
    return static_cast<double>(*reinterpret_cast<const T*>(p));
  }
}

double read_element(const char* p, ScalarType dtype) {
  switch (dtype) {
    case ScalarType::Byte: return widen<uint8_t>(p);
    case ScalarType::Char: return widen<int8_t>(p);
    case ScalarType::Short: return widen<int16_t>(p);
    case ScalarType::Int: return widen<int32_t>(p);
    case ScalarType::Long: return widen<int64_t>(p);
    case ScalarType::Half: return static_cast<float>(*reinterpret_cast<const Half*>(p));
    case ScalarType::BFloat16: return static_cast<float>(*reinterpret_cast<const BFloat16*>(p));
    case ScalarType::Float: return widen<float>(p);
    case ScalarType::Double: return widen<double>(p);
    case ScalarType::ComplexFloat: return widen<std::complex<float>>(p);
    case ScalarType::ComplexDouble: return widen<std::complex<double>>(p);
    case ScalarType::Bool: return *reinterpret_cast<const uint8_t*>(p) != 0 ? 1.0 : 0.0;
    case ScalarType::Undefined: break;
  }
  return 0;
}

// Every element in row-major order, through the tensor's strides.
std::vector<double> row_major_values(const Tensor& t) {
  std::vector<double> out;
  out.reserve(static_cast<size_t>(t.numel()));
  if (t.numel() == 0) return out;
  const char* base = static_cast<const char*>(t.data_ptr());
  const int64_t item = static_cast<int64_t>(t.element_size());
  std::vector<int64_t> index(static_cast<size_t>(t.dim()), 0);
  for (int64_t n = 0; n < t.numel(); ++n) {
    int64_t offset = 0;
    for (int64_t d = 0; d < t.dim(); ++d) offset += index[d] * t.strides()[d];
    out.push_back(read_element(base + offset * item, t.scalar_type()));
    for (int64_t d = t.dim() - 1; d >= 0; --d) {
      if (++index[d] < t.sizes()[d]) break;
      index[d] = 0;
    }
  }
  return out;
}

// "CPUFloatType": the backend, then the dtype's legacy name.
std::string type_string(const Tensor& t) {
  static constexpr const char* kNames[] = {"Byte", "Char", "Short", "Int", "Long", "Half",
                                           "Float", "Double", "ComplexFloat", "ComplexDouble",
                                           "Bool", "BFloat16"};
  std::string backend = t.device().type() == DeviceType::CPU    ? "CPU"
                        : t.device().type() == DeviceType::CUDA ? "CUDA"
                        : t.device().type() == DeviceType::Meta ? "Meta"
                                                                : device_type_name(t.device().type());
  if (t.layout() == Layout::Sparse) backend = "Sparse" + backend;
  if (t.layout() == Layout::SparseCsr || t.layout() == Layout::SparseCsc) backend = "SparseCsr" + backend;
  if (t.layout() == Layout::Mkldnn) backend = "Mkldnn" + backend;
  const int i = static_cast<int>(t.scalar_type());
  return backend + (i >= 0 && i < kNumScalarTypes ? kNames[i] : "Undefined") + "Type";
}

// Restores a stream's flags, precision and fill when it goes out of scope.
class StreamStateGuard {
 public:
  explicit StreamStateGuard(std::ostream& os) : os_(os), saved_(nullptr) { saved_.copyfmt(os); }
  ~StreamStateGuard() { os_.copyfmt(saved_); }

 private:
  std::ostream& os_;
  std::ios saved_;
};

struct Format {
  double scale = 1;
  int width = 0;
};

// Picks the notation for `values` (setting it on the stream) and the field width.
Format choose_format(std::ostream& os, const std::vector<double>& values, size_t begin,
                     size_t end) {
  Format f;
  if (begin == end) return f;
  bool integers = true;
  for (size_t i = begin; i < end; ++i) {
    if (std::isfinite(values[i]) && values[i] != std::ceil(values[i])) {
      integers = false;
      break;
    }
  }
  size_t first = begin;
  while (first < end && !std::isfinite(values[first])) ++first;
  double exp_min = 1, exp_max = 1;
  if (first < end) {
    double lo = std::fabs(values[first]), hi = lo;
    for (size_t i = first; i < end; ++i) {
      const double z = std::fabs(values[i]);
      if (!std::isfinite(z)) continue;
      lo = std::min(lo, z);
      hi = std::max(hi, z);
    }
    exp_min = lo != 0 ? std::floor(std::log10(lo)) + 1 : 1;
    exp_max = hi != 0 ? std::floor(std::log10(hi)) + 1 : 1;
  }
  if (integers) {
    if (exp_max > 9) {
      f.width = 11;
      os << std::scientific << std::setprecision(4);
    } else {
      f.width = static_cast<int>(exp_max) + 1;
      os << std::defaultfloat;
    }
  } else if (exp_max - exp_min > 4) {
    f.width = std::fabs(exp_max) > 99 || std::fabs(exp_min) > 99 ? 12 : 11;
    os << std::scientific << std::setprecision(4);
  } else {
    if (exp_max > 5 || exp_max < 0) {
      f.width = 7;
      f.scale = std::pow(10, exp_max - 1);
    } else {
      f.width = exp_max == 0 ? 7 : static_cast<int>(exp_max) + 6;
    }
    os << std::fixed << std::setprecision(4);
  }
  return f;
}

// The scale in the caller's own precision (the stream's, before choose_format set four).
void print_scale(std::ostream& os, double scale, std::streamsize precision) {
  StreamStateGuard guard(os);
  os << std::defaultfloat << std::setprecision(static_cast<int>(precision)) << scale << " *\n";
}

void print_indent(std::ostream& os, int64_t indent) {
  for (int64_t i = 0; i < indent; ++i) os << ' ';
}

// A rows x cols matrix starting at values[begin].
void print_matrix(std::ostream& os, const std::vector<double>& values, size_t begin, int64_t rows,
                  int64_t cols, int64_t indent) {
  const std::streamsize precision = os.precision();
  const Format f = choose_format(os, values, begin, begin + static_cast<size_t>(rows * cols));
  const int64_t per_line = std::max<int64_t>((kLineWidth - indent) / (f.width + 1), 1);
  for (int64_t first = 0; first < cols; first += per_line) {
    const int64_t last = std::min(first + per_line, cols) - 1;
    if (per_line < cols) {
      if (first != 0) os << '\n';
      os << "Columns " << first + 1 << " to " << last + 1;
      print_indent(os, indent);
    }
    if (f.scale != 1) {
      print_scale(os, f.scale, precision);
      print_indent(os, indent);
    }
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t c = first; c <= last; ++c) {
        os << std::setw(f.width) << values[begin + static_cast<size_t>(r * cols + c)] / f.scale;
        if (c == last) {
          os << '\n';
          if (r != rows - 1) {
            print_indent(os, indent);
            if (f.scale != 1) os << ' ';
          }
        } else {
          os << ' ';
        }
      }
    }
  }
}

// A 0-d tensor's value: the shortest digits that read back as the same double, fixed for
// decimal exponents in [-4, 16), else scientific ("1e+16", "1e-05"), no trailing ".0".
std::string shortest(double v) {
  if (std::isnan(v)) return std::signbit(v) ? "-nan" : "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof(buf), v, std::chars_format::scientific);
  const std::string sci(buf, r.ptr);
  const size_t e = sci.find('e');
  const int exponent = std::stoi(sci.substr(e + 1));
  if (exponent < -4 || exponent >= 16) return sci;
  const bool negative = sci[0] == '-';
  std::string digits;
  for (size_t i = negative ? 1 : 0; i < e; ++i) {
    if (sci[i] != '.') digits += sci[i];
  }
  std::string out;
  if (exponent < 0) {
    out = "0." + std::string(static_cast<size_t>(-exponent - 1), '0') + digits;
  } else if (static_cast<size_t>(exponent) + 1 >= digits.size()) {
    out = digits + std::string(static_cast<size_t>(exponent) + 1 - digits.size(), '0');
  } else {
    out = digits.substr(0, static_cast<size_t>(exponent) + 1) + "." +
          digits.substr(static_cast<size_t>(exponent) + 1);
  }
  return (negative ? "-" : "") + out;
}

void print_values(std::ostream& os, const Tensor& t) {
  const std::vector<double> values = row_major_values(t);
  if (t.dim() == 0) {
    os << shortest(values[0]) << '\n';
    return;
  }
  if (t.numel() == 0) return;
  if (t.dim() == 1) {
    const std::streamsize precision = os.precision();
    const Format f = choose_format(os, values, 0, values.size());
    if (f.scale != 1) print_scale(os, f.scale, precision);
    for (double v : values) os << std::setw(f.width) << v / f.scale << '\n';
    return;
  }
  const int64_t rows = t.sizes()[t.dim() - 2], cols = t.sizes()[t.dim() - 1];
  if (t.dim() == 2) {
    print_matrix(os, values, 0, rows, cols, 0);
    return;
  }
  // One matrix per index of the leading dims; as in libtorch, the first dim varies fastest
  // ((1,1), (2,1), (1,2), (2,2)), unlike row-major order.
  const int64_t lead = t.dim() - 2;
  std::vector<int64_t> index(static_cast<size_t>(lead), 0);
  const int64_t matrices = t.numel() / (rows * cols);
  for (int64_t m = 0; m < matrices; ++m) {
    if (m != 0) os << '\n';
    os << '(';
    int64_t offset = 0;
    for (int64_t d = 0; d < lead; ++d) {
      os << index[d] + 1 << ',';
      offset = offset * t.sizes()[d] + index[d];
    }
    os << ".,.) = \n";
    print_matrix(os, values, static_cast<size_t>(offset * rows * cols), rows, cols, 1);
    for (int64_t d = 0; d < lead; ++d) {
      if (++index[d] < t.sizes()[d]) break;
      index[d] = 0;
    }
  }
}

}  // namespace

std::ostream& operator<<(std::ostream& os, const Tensor& t) {
  StreamStateGuard guard(os);
  if (!t.defined()) return os << "[ Tensor (undefined) ]";
  // Only strided CPU tensors have values to read here; the others print their type line.
  if (t.device().is_cpu() && t.layout() == Layout::Strided) print_values(os, t);
  os << "[ " << type_string(t) << '{';
  for (int64_t d = 0; d < t.dim(); ++d) os << (d ? "," : "") << t.sizes()[d];
  return os << "} ]";
}

}  // namespace ember
