// `std::cout << t` against libtorch's own output (captured by cpp_api_reference.py through
// TorchScript's print(), which calls the same C++ printer), for every case of its "prints".
#include <iomanip>
#include <sstream>

#include "test/cpp/api/api_test_util.h"

namespace {

using api_test::golden;
using api_test::JsonValue;

torch::ScalarType dtype_named(const std::string& name) {
  const std::optional<torch::ScalarType> t = ember::parse_scalar_type(name);
  EXPECT_TRUE(t.has_value()) << name;
  return t.value_or(torch::kFloat);
}

// The case's tensor: its values as float64, cast to its dtype, shaped, maybe transposed.
torch::Tensor make_tensor(const JsonValue& c) {
  std::vector<double> values;
  for (const JsonValue& v : c["values"].as_array()) values.push_back(v.as_double());
  std::vector<int64_t> sizes;
  for (const JsonValue& s : c["sizes"].as_array()) sizes.push_back(s.as_int());
  torch::Tensor t = torch::tensor(values, torch::kDouble).reshape(sizes);
  t = t.to(dtype_named(c["dtype"].as_string()));
  return c["transpose"].as_bool() ? t.transpose(0, 1) : t;
}

std::vector<size_t> case_indices() {
  std::vector<size_t> out;
  for (size_t i = 0; i < golden()["prints"].size(); ++i) out.push_back(i);
  return out;
}

class ApiPrint : public ::testing::TestWithParam<size_t> {};

TEST_P(ApiPrint, MatchesLibtorch) {
  const JsonValue& c = golden()["prints"][GetParam()];
  std::ostringstream os;
  os << make_tensor(c);
  EXPECT_EQ(os.str(), c["text"].as_string());
}

INSTANTIATE_TEST_SUITE_P(Libtorch, ApiPrint, ::testing::ValuesIn(case_indices()),
                         [](const ::testing::TestParamInfo<size_t>& info) {
                           return golden()["prints"][info.param]["name"].as_string();
                         });

TEST(ApiPrintFormat, GoldenHasEveryKind) { EXPECT_GE(golden()["prints"].size(), 40u); }

TEST(ApiPrintFormat, UndefinedAndMetaTensors) {
  std::ostringstream os;
  os << torch::Tensor();
  EXPECT_EQ(os.str(), "[ Tensor (undefined) ]");
  std::ostringstream meta;
  meta << torch::zeros({2, 3}, torch::Device("meta"));
  EXPECT_EQ(meta.str(), "[ MetaFloatType{2,3} ]");
}

TEST(ApiPrintFormat, StreamStateIsRestored) {
  std::ostringstream os;
  os << std::setprecision(3) << torch::tensor({1.25, 2.5}) << ' ' << 1.23456;
  EXPECT_EQ(os.str(), " 1.2500\n 2.5000\n[ CPUFloatType{2} ] 1.23");
}

TEST(ApiPrintFormat, ReprStaysPythons) {
  // str() is Python's repr; only operator<< speaks libtorch.
  EXPECT_EQ(torch::tensor({1.0, 2.0}).str(), "tensor([1., 2.])");
}

}  // namespace
