// Tensor printing against PyTorch: each golden case (test/cpp/reference/print_reference.py,
// run at build time) holds a tensor's raw storage and geometry and torch's repr() of it;
// the same Ember tensor must print the same string.
#include <gtest/gtest.h>

#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "ember/generated/ops/empty.h"
#include "test/cpp/ember_api.h"
#include "test/cpp/reference/json_reader.h"

namespace ember {
namespace {

using test::JsonValue;

const char kGoldenPath[] = EMBER_BINARY_DIR "/test/cpp/reference/print_reference.json";

// The golden cases; a missing or broken file gives none, and the error is reported by
// the GoldenFileLoads test.
const JsonValue& golden() {
  static const JsonValue cases = [] {
    try {
      return JsonValue::parse_file(kGoldenPath);
    } catch (const std::exception&) {
      return JsonValue::parse("[]");
    }
  }();
  return cases;
}

std::vector<size_t> case_indices() {
  std::vector<size_t> indices(golden().size());
  for (size_t i = 0; i < indices.size(); ++i) indices[i] = i;
  return indices;
}

std::vector<int64_t> ints(const JsonValue& array) {
  std::vector<int64_t> out;
  for (const JsonValue& v : array.as_array()) out.push_back(v.as_int());
  return out;
}

// Writes the JSON storage into t (contiguous, 1-D, of the case's dtype).
void fill_storage(const Tensor& t, const JsonValue& storage) {
  const auto& values = storage.as_array();
  for (size_t i = 0; i < values.size(); ++i) {
    const JsonValue& v = values[i];
    switch (t.scalar_type()) {
      case ScalarType::Bool: t.data_ptr_as<bool>()[i] = v.as_bool(); break;
      case ScalarType::Byte: t.data_ptr_as<uint8_t>()[i] = static_cast<uint8_t>(v.as_int()); break;
      case ScalarType::Char: t.data_ptr_as<int8_t>()[i] = static_cast<int8_t>(v.as_int()); break;
      case ScalarType::Short: t.data_ptr_as<int16_t>()[i] = static_cast<int16_t>(v.as_int()); break;
      case ScalarType::Int: t.data_ptr_as<int32_t>()[i] = static_cast<int32_t>(v.as_int()); break;
      case ScalarType::Long: t.data_ptr_as<int64_t>()[i] = v.as_int(); break;
      case ScalarType::Half:
      case ScalarType::BFloat16:  // stored as bit patterns
        static_cast<uint16_t*>(t.data_ptr())[i] = static_cast<uint16_t>(v.as_int());
        break;
      case ScalarType::Float: t.data_ptr_as<float>()[i] = static_cast<float>(v.as_double()); break;
      case ScalarType::Double: t.data_ptr_as<double>()[i] = v.as_double(); break;
      case ScalarType::ComplexFloat:
        t.data_ptr_as<std::complex<float>>()[i] = {static_cast<float>(v[0].as_double()),
                                                   static_cast<float>(v[1].as_double())};
        break;
      case ScalarType::ComplexDouble:
        t.data_ptr_as<std::complex<double>>()[i] = {v[0].as_double(), v[1].as_double()};
        break;
      default: FAIL() << "unexpected dtype " << t.scalar_type();
    }
  }
}

// The Ember tensor of a golden case: same dtype, device, storage, sizes, strides, offset.
Tensor make_tensor(const JsonValue& c) {
  const ScalarType dtype = parse_scalar_type(c["dtype"].as_string()).value();
  const Device device(c["device"].as_string());
  const std::vector<int64_t> sizes = ints(c["sizes"]), strides = ints(c["strides"]);
  if (!device.is_cpu()) return empty(sizes, TensorOptions().dtype(dtype).device(device));
  const auto n = static_cast<int64_t>(c["storage"].size());
  Tensor t = empty({n}, TensorOptions().dtype(dtype));
  fill_storage(t, c["storage"]);
  t.impl()->set_sizes_and_strides(sizes, strides, c["offset"].as_int());
  return t;
}

PrintOptions options_of(const JsonValue& o) {
  PrintOptions options;
  options.precision = o["precision"].as_int();
  options.threshold = o["threshold"].as_double();
  options.edgeitems = o["edgeitems"].as_int();
  options.linewidth = o["linewidth"].as_int();
  if (!o["sci_mode"].is_null()) options.sci_mode = o["sci_mode"].as_bool();
  return options;
}

bool is_default(const PrintOptions& o) {
  const PrintOptions d;
  return o.precision == d.precision && o.threshold == d.threshold &&
         o.edgeitems == d.edgeitems && o.linewidth == d.linewidth && !o.sci_mode;
}

TEST(Print, GoldenFileLoads) {
  EXPECT_NO_THROW(JsonValue::parse_file(kGoldenPath)) << "run the build to generate it";
  EXPECT_GE(golden().size(), 60u);
}

class PrintGolden : public ::testing::TestWithParam<size_t> {};

TEST_P(PrintGolden, MatchesTorchRepr) {
  const JsonValue& c = golden()[GetParam()];
  const Tensor t = make_tensor(c);
  const PrintOptions options = options_of(c["options"]);
  const std::string& expected = c["repr"].as_string();
  EXPECT_EQ(to_string(t, options), expected);
  if (is_default(options)) {  // the process-wide options are the defaults here
    EXPECT_EQ(to_string(t), expected);
    EXPECT_EQ(t.str(), expected);
  }
}

INSTANTIATE_TEST_SUITE_P(Torch, PrintGolden, ::testing::ValuesIn(case_indices()),
                         [](const ::testing::TestParamInfo<size_t>& info) {
                           return golden()[info.param]["name"].as_string();
                         });

Tensor arange_float(int64_t n) {
  Tensor t = empty({n});
  for (int64_t i = 0; i < n; ++i) t.data_ptr_as<float>()[i] = static_cast<float>(i) / 2;
  return t;
}

TEST(Print, UndefinedTensor) {
  EXPECT_EQ(Tensor().str(), "Tensor(undefined)");
  EXPECT_EQ(to_string(Tensor()), "Tensor(undefined)");
}

// operator<< prints in libtorch's C++ format instead (test/cpp/api/printing_api_test.cpp).
TEST(Print, GlobalOptionsReachStr) {
  const Tensor t = arange_float(3);
  const PrintOptions saved = print_options();
  PrintOptions o;
  o.precision = 2;
  set_print_options(o);
  EXPECT_EQ(print_options().precision, 2);
  EXPECT_EQ(t.str(), "tensor([0.00, 0.50, 1.00])");
  set_print_options(saved);
  EXPECT_EQ(t.str(), "tensor([0.0000, 0.5000, 1.0000])");
}

TEST(Print, BadOptionsRaiseValueErrorAndChangeNothing) {
  const PrintOptions saved = print_options();
  PrintOptions o;
  o.precision = -1;
  try {
    set_print_options(o);
    FAIL() << "expected ValueError";
  } catch (const ValueError& e) {
    EXPECT_EQ(e.message(),
              "set_print_options(): expected 'precision' to be non-negative, but got -1");
  }
  EXPECT_EQ(print_options().precision, saved.precision);
  o = PrintOptions();
  o.edgeitems = -2;
  try {
    to_string(arange_float(2), o);
    FAIL() << "expected ValueError";
  } catch (const ValueError& e) {
    EXPECT_EQ(e.message(), "to_string(): expected 'edgeitems' to be non-negative, but got -2");
  }
  o = PrintOptions();
  o.threshold = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THROW(set_print_options(o), ValueError);
}

// Note [Tensor printing hook]: c10 prints through whatever printer is installed.
TEST(Print, HookCanBeReplaced) {
  const Tensor t = arange_float(2);
  set_tensor_printer([](const Tensor&) { return std::string("custom"); });
  EXPECT_EQ(t.str(), "custom");
  set_tensor_printer(nullptr);  // c10's own fallback: geometry only
  EXPECT_EQ(t.str(), "Tensor(sizes=[2], dtype=float32, device=cpu)");
  set_tensor_printer([](const Tensor& x) { return to_string(x); });
  EXPECT_EQ(t.str(), "tensor([0.0000, 0.5000])");
}

}  // namespace
}  // namespace ember
