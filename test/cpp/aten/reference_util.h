#pragma once
// Helpers for tests that read torch-made golden data with raw storages (copy_reference.py,
// factory_reference.py): hex storages to tensors and back, scalars, and a bit-exact or
// ulp-bounded comparison that reports the first differing element.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "test/cpp/ember_api.h"
#include "test/cpp/reference/json_reader.h"

namespace ember::test {

inline JsonValue load_reference(const std::string& file) {
  return JsonValue::parse_file(std::string(EMBER_BINARY_DIR) + "/test/cpp/reference/" + file);
}

inline std::vector<uint8_t> unhex(const std::string& hex) {
  std::vector<uint8_t> out(hex.size() / 2);
  for (size_t i = 0; i < out.size(); ++i) {
    out[i] = static_cast<uint8_t>(std::strtoul(hex.substr(2 * i, 2).c_str(), nullptr, 16));
  }
  return out;
}

inline ScalarType dtype_named(const std::string& name) {
  auto t = parse_scalar_type(name);
  EXPECT_TRUE(t.has_value()) << name;
  return t.value_or(ScalarType::Float);
}

inline std::vector<int64_t> ints(const JsonValue& v) {
  std::vector<int64_t> out;
  for (const JsonValue& x : v.as_array()) out.push_back(x.as_int());
  return out;
}

/// A CPU tensor over the view's storage bytes with the view's sizes, strides and offset.
inline Tensor tensor_from_view(const JsonValue& view, ScalarType dtype) {
  const std::vector<uint8_t> bytes = unhex(view["storage"].as_string());
  const int64_t n = static_cast<int64_t>(bytes.size() / itemsize(dtype));
  Tensor t = empty({n}, TensorOptions().dtype(dtype));
  if (!bytes.empty()) std::memcpy(t.data_ptr(), bytes.data(), bytes.size());
  t.impl()->set_sizes_and_strides(ints(view["sizes"]), ints(view["strides"]), view["offset"].as_int());
  return t;
}

/// The bytes of t's whole storage.
inline std::vector<uint8_t> storage_bytes(const Tensor& t) {
  const auto* p = static_cast<const uint8_t*>(t.storage()->data());
  return std::vector<uint8_t>(p, p + t.storage()->nbytes());
}

/// The bytes of t's elements in row-major order.
inline std::vector<uint8_t> element_bytes(const Tensor& t) {
  Tensor c = t.contiguous();
  const auto* p = static_cast<const uint8_t*>(c.data_ptr());
  return std::vector<uint8_t>(p, p + c.numel() * c.element_size());
}

inline Scalar scalar_from(const JsonValue& s) {
  const std::string& kind = s["kind"].as_string();
  const auto& v = s["value"].as_array();
  if (kind == "bool") return Scalar(v[0].as_string() == "1");
  if (kind == "int") return Scalar(static_cast<int64_t>(std::strtoll(v[0].as_string().c_str(), nullptr, 10)));
  if (kind == "float") return Scalar(std::strtod(v[0].as_string().c_str(), nullptr));
  return Scalar(std::complex<double>(std::strtod(v[0].as_string().c_str(), nullptr),
                                     std::strtod(v[1].as_string().c_str(), nullptr)));
}

/// Element i of raw bytes of dtype t, as real and imaginary doubles.
inline std::pair<double, double> element_value(const std::vector<uint8_t>& b, ScalarType t, size_t i) {
  return dispatch_all_types(t, "test", [&](auto tag) -> std::pair<double, double> {
    using T = typename decltype(tag)::type;
    T v;
    std::memcpy(&v, b.data() + i * sizeof(T), sizeof(T));
    if constexpr (kIsComplex<T>) return {v.real(), v.imag()};
    else return {static_cast<double>(v), 0.0};
  });
}

/// Distance in units in the last place of dtype t (floating types; 0 or inf otherwise).
inline double ulps_apart(double a, double b, ScalarType t) {
  if (a == b || (std::isnan(a) && std::isnan(b))) return 0;
  if (!std::isfinite(a) || !std::isfinite(b)) return INFINITY;
  const int mantissa = t == ScalarType::Half ? 10 : t == ScalarType::BFloat16 ? 7
                       : (t == ScalarType::Float || t == ScalarType::ComplexFloat) ? 23 : 52;
  const int min_exp = t == ScalarType::Half ? -14 : (t == ScalarType::Double || t == ScalarType::ComplexDouble) ? -1022 : -126;
  const double m = std::max(std::fabs(a), std::fabs(b));
  const int e = std::max(std::ilogb(m), min_exp);
  return std::fabs(a - b) / std::ldexp(1.0, e - mantissa);
}

// Same value, -0.0 and 0.0 told apart; any NaN equals any NaN (PyTorch's NaN payloads and
// signs depend on which of its SIMD or scalar paths ran, so they carry no meaning).
inline bool same_value(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return std::memcmp(&a, &b, sizeof a) == 0;
}

/// Compares two element arrays of dtype t: exact (bit for bit but for NaN payloads) when
/// max_ulps == 0, else within max_ulps per component. Returns "" or a description of the
/// first difference.
inline std::string compare_elements(const std::vector<uint8_t>& got, const std::vector<uint8_t>& want,
                                    ScalarType t, double max_ulps = 0) {
  if (got.size() != want.size()) {
    return "sizes differ: " + std::to_string(got.size()) + " vs " + std::to_string(want.size()) + " bytes";
  }
  const size_t n = got.size() / itemsize(t);
  for (size_t i = 0; i < n; ++i) {
    const bool same_bits = std::memcmp(got.data() + i * itemsize(t), want.data() + i * itemsize(t), itemsize(t)) == 0;
    if (same_bits) continue;
    auto [gr, gi] = element_value(got, t, i);
    auto [wr, wi] = element_value(want, t, i);
    if (same_value(gr, wr) && same_value(gi, wi)) continue;
    if (max_ulps > 0 && ulps_apart(gr, wr, t) <= max_ulps && ulps_apart(gi, wi, t) <= max_ulps) continue;
    char buf[200];
    std::snprintf(buf, sizeof buf, "element %zu: got %.17g%+.17gi, want %.17g%+.17gi", i, gr, gi, wr, wi);
    return buf;
  }
  return "";
}

}  // namespace ember::test
