#pragma once
// What the libtorch-idiom tests share: the inputs of test/cpp/reference/cpp_api_reference.py
// (spelled as a libtorch user would build them) and a comparison with its golden values.
//
// These tests are written as libtorch programs are: `#include <ember/ember.h>` and
// `namespace torch = ember;`, then only torch:: names.

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include <ember/ember.h>

#include "test/cpp/reference/json_reader.h"

namespace torch = ember;

namespace api_test {

using ember::test::JsonValue;

inline const JsonValue& golden() {
  static const JsonValue data = JsonValue::parse_file(
      std::string(EMBER_BINARY_DIR) + "/test/cpp/reference/cpp_api_reference.json");
  return data;
}

// The inputs every case reads (cpp_api_reference.py: X, Y, B, I).
inline torch::Tensor X() { return torch::tensor({{1.5, -2.0, 3.25}, {0.5, 4.0, -1.0}}); }
inline torch::Tensor Y() { return torch::arange(24, torch::kFloat32).reshape({2, 3, 4}); }
inline torch::Tensor B() {
  return torch::tensor({{true, false, true}, {false, false, true}});
}
inline torch::Tensor I() { return torch::tensor({{6, 3, 5}, {12, 9, 10}}); }

// The weights and inputs of the nn/optim cases (cpp_api_reference.py's P): exact small
// multiples of scale, so both sides start from the same bits.
inline torch::Tensor P(std::vector<int64_t> shape, double scale = 0.1) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  return (((torch::arange(n) * 37) % 11) - 5).to(torch::kFloat).mul(scale).reshape(shape);
}

inline const char* dtype_name(torch::ScalarType t) { return ember::scalar_type_name(t); }

// Empty when `got` is what PyTorch computed for case `name` (within tol, relative above
// magnitude 1), else what differs.
inline std::string golden_mismatch(const std::string& name, const torch::Tensor& got,
                                   double tol = 1e-6) {
  const JsonValue& want = golden()["values"][name];
  std::vector<int64_t> sizes;
  for (const JsonValue& s : want["sizes"].as_array()) sizes.push_back(s.as_int());
  if (got.sizes().vec() != sizes) {
    return ember::str("sizes ", got.sizes(), " but torch gives ", ember::IntArrayRef(sizes));
  }
  if (std::string(dtype_name(got.scalar_type())) != want["dtype"].as_string()) {
    return ember::str("dtype ", dtype_name(got.scalar_type()), " but torch gives ",
                      want["dtype"].as_string());
  }
  const torch::Tensor flat = got.detach().reshape({-1}).to(torch::kDouble).contiguous();
  const double* p = flat.data_ptr<double>();
  const auto& values = want["values"].as_array();
  for (size_t i = 0; i < values.size(); ++i) {
    const double w = values[i].as_double(), g = p[i];
    const bool same = (std::isnan(w) && std::isnan(g)) ||
                      std::fabs(g - w) <= tol * std::max(1.0, std::fabs(w));
    if (!same) return ember::str("element ", i, " is ", g, " but torch gives ", w);
  }
  return "";
}

}  // namespace api_test

// EXPECT_GOLDEN(name, tensor): the tensor equals PyTorch's result for case `name`.
#define EXPECT_GOLDEN(name, tensor) EXPECT_EQ(::api_test::golden_mismatch(name, tensor), "") << name
// EXPECT_GOLDEN_NEAR(name, tensor, tol): the same within tol (float32 sums of many terms).
#define EXPECT_GOLDEN_NEAR(name, tensor, tol) \
  EXPECT_EQ(::api_test::golden_mismatch(name, tensor, tol), "") << name
