// Factories (zeros ... eye, the _like forms, clone/contiguous/to geometry) against PyTorch
// on CPU and Meta (golden data: test/cpp/reference/factory_reference.py), their bad inputs,
// and ember::tensor() / element() / to_vector().
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <string>
#include <vector>

#include "ember/generated/ops/arange.h"
#include "ember/generated/ops/empty.h"
#include "ember/generated/ops/empty_like.h"
#include "ember/generated/ops/empty_strided.h"
#include "ember/generated/ops/eye.h"
#include "ember/generated/ops/full.h"
#include "ember/generated/ops/full_like.h"
#include "ember/generated/ops/linspace.h"
#include "ember/generated/ops/logspace.h"
#include "ember/generated/ops/ones.h"
#include "ember/generated/ops/ones_like.h"
#include "ember/generated/ops/scalar_tensor.h"
#include "ember/generated/ops/zeros.h"
#include "ember/generated/ops/zeros_like.h"
#include "test/cpp/aten/reference_util.h"
#include "test/cpp/ember_api.h"

namespace ember {
namespace {

using test::JsonValue;

std::optional<ScalarType> optional_dtype(const JsonValue& v) {
  if (v.is_null()) return std::nullopt;
  return test::dtype_named(v.as_string());
}

std::optional<MemoryFormat> optional_format(const JsonValue& v) {
  if (v.is_null()) return std::nullopt;
  return v.as_string() == "contiguous" ? MemoryFormat::Contiguous : MemoryFormat::Preserve;
}

// The input of a _like / clone / to case: empty_strided, its storage holding 0, 1, ...
Tensor make_input(const JsonValue& spec, Device device) {
  const ScalarType dt = test::dtype_named(spec["dtype"].as_string());
  Tensor x = empty_strided(test::ints(spec["sizes"]), test::ints(spec["strides"]),
                           TensorOptions().dtype(dt).device(device));
  const int64_t n = static_cast<int64_t>(x.storage()->nbytes() / itemsize(dt));
  if (device.type() == DeviceType::CPU && n > 0) {
    Tensor flat(make_intrusive<TensorImpl>(x.storage(), x.key_set(), dt));
    flat.impl()->set_sizes_and_strides({n}, {1}, 0);
    flat.copy_(arange(n));
  }
  return x;
}

// Repeats the case's call with Ember on `device`.
Tensor run_case(const JsonValue& c, Device device) {
  const std::string& op = c["op"].as_string();
  const JsonValue& a = c["args"];
  const std::optional<ScalarType> dt = optional_dtype(a["dtype"]);
  const TensorOptions o = TensorOptions().dtype(dt).device(device);
  if (op == "zeros") return zeros(test::ints(a["size"]), o);
  if (op == "ones") return ones(test::ints(a["size"]), o);
  if (op == "empty") return empty(test::ints(a["size"]), o);
  if (op == "full") return full(test::ints(a["size"]), test::scalar_from(a["value"]), o);
  if (op == "scalar_tensor") return scalar_tensor(test::scalar_from(a["value"]), o);
  if (op == "arange") {
    std::vector<Scalar> s;
    for (const JsonValue& x : a["scalars"].as_array()) s.push_back(test::scalar_from(x));
    if (s.size() == 1) return arange(s[0], o);
    if (s.size() == 2) return arange(s[0], s[1], o);
    return arange(s[0], s[1], s[2], o);
  }
  if (op == "linspace") {
    return linspace(test::scalar_from(a["start"]), test::scalar_from(a["end"]), a["steps"].as_int(), o);
  }
  if (op == "logspace") {
    return logspace(test::scalar_from(a["start"]), test::scalar_from(a["end"]), a["steps"].as_int(),
                    a["base"].as_double(), o);
  }
  if (op == "eye") {
    return a["m"].is_null() ? eye(a["n"].as_int(), o) : eye(a["n"].as_int(), a["m"].as_int(), o);
  }
  if (op == "empty_strided") return empty_strided(test::ints(a["size"]), test::ints(a["stride"]), o);
  const Tensor x = make_input(a["input"], device);
  const TensorOptions like = TensorOptions().dtype(dt);
  if (op == "zeros_like") return zeros_like(x, like, optional_format(a["memory_format"]));
  if (op == "ones_like") return ones_like(x, like, optional_format(a["memory_format"]));
  if (op == "empty_like") return empty_like(x, like, optional_format(a["memory_format"]));
  if (op == "full_like") {
    return full_like(x, test::scalar_from(a["value"]), like, optional_format(a["memory_format"]));
  }
  if (op == "clone") return x.clone(optional_format(a["memory_format"]));
  if (op == "contiguous") return x.contiguous();
  if (op == "to") return x.to(*dt, false, a["copy"].as_bool());
  ADD_FAILURE() << "unknown op " << op;
  return Tensor();
}

// Ember computes the range factories as PyTorch's shipped kernels do (Note [Range factories
// round like PyTorch] in aten/native/cpu/factory.cpp), and on the development machine
// (AVX-512) every value is bit-exact. An ulp is allowed for them because PyTorch's SIMD
// loops depend on the machine's vector width.
double allowed_ulps(const std::string& op) {
  return op == "arange" || op == "linspace" || op == "logspace" ? 1 : 0;
}

bool has_member(const JsonValue& v, const std::string& key) {
  try {
    v[key];
    return true;
  } catch (const std::runtime_error&) {
    return false;
  }
}

std::string check_case(const JsonValue& c) {
  const std::string& op = c["op"].as_string();
  if (has_member(c, "error")) {
    for (Device d : {Device(DeviceType::CPU), Device(DeviceType::Meta)}) {
      try {
        run_case(c, d);
        return "expected an error on " + d.str() + " (PyTorch refuses the call)";
      } catch (const Error&) {
      }
    }
    return "";
  }
  const Tensor t = run_case(c, Device(DeviceType::CPU));
  const ScalarType dt = test::dtype_named(c["dtype"].as_string());
  if (t.dtype() != dt) return str("dtype ", t.dtype(), ", want ", dt);
  if (t.sizes() != IntArrayRef(test::ints(c["sizes"]))) return str("sizes ", t.sizes());
  if (t.strides() != IntArrayRef(test::ints(c["strides"]))) return str("strides ", t.strides());
  if (!c["values"].as_string().empty() || t.numel() == 0) {
    std::string diff = test::compare_elements(test::element_bytes(t), test::unhex(c["values"].as_string()),
                                              dt, is_integral(dt, true) ? 0 : allowed_ulps(op));
    if (!diff.empty()) return diff;
  }
  // Meta: PyTorch's meta dtype and sizes (its strides come from Python decompositions that
  // sometimes differ from its own CPU kernels; Ember's Meta runs the CPU path's code, so its
  // strides are compared with the CPU result).
  const Tensor m = run_case(c, Device(DeviceType::Meta));
  if (m.device().type() != DeviceType::Meta) return str("meta call gave a ", m.device(), " tensor");
  const JsonValue& meta = c["meta"].is_null() ? c : c["meta"];
  if (m.dtype() != test::dtype_named(meta["dtype"].as_string())) return str("meta dtype ", m.dtype());
  if (m.sizes() != IntArrayRef(test::ints(meta["sizes"]))) return str("meta sizes ", m.sizes());
  if (m.strides() != t.strides()) return str("meta strides ", m.strides());
  return "";
}

TEST(FactoryReference, ValuesShapesAndDtypesMatchTorchOnCpuAndMeta) {
  const JsonValue doc = test::load_reference("factory_reference.json");
  int failures = 0, count = 0;
  for (const JsonValue& c : doc.as_array()) {
    ++count;
    std::string problem;
    try {
      problem = check_case(c);
    } catch (const std::exception& e) {
      problem = std::string("threw: ") + e.what();
    }
    if (!problem.empty() && ++failures <= 30) ADD_FAILURE() << c["name"].as_string() << ": " << problem;
  }
  EXPECT_EQ(failures, 0) << "of " << count << " cases";
  EXPECT_GT(count, 500);
}

// ---- bad inputs ------------------------------------------------------------------------------

template <class E, class F>
void expect_error(F&& f, const std::string& prefix) {
  try {
    f();
    ADD_FAILURE() << "no error; expected one starting \"" << prefix << "\"";
  } catch (const E& e) {
    EXPECT_EQ(std::string(e.what()).rfind(prefix, 0), 0u) << e.what();
  }
}

TEST(Factory, BadInputsRaiseNamingTheOp) {
  for (Device d : {Device(DeviceType::CPU), Device(DeviceType::Meta)}) {
    SCOPED_TRACE(d.str());
    expect_error<ValueError>([&] { zeros({2, -1}, d); }, "zeros(): expected 'size' to hold non-negative");
    expect_error<ValueError>([&] { ones({-3}, d); }, "ones(): expected 'size'");
    expect_error<ValueError>([&] { full({-1}, 2, d); }, "full(): expected 'size'");
    expect_error<ValueError>([&] { full({2}, 300, TensorOptions(d).dtype(ScalarType::Byte)); },
                             "full(): expected 'fill_value' to fit in uint8");
    expect_error<ValueError>([&] { full({2}, 1.5e300, TensorOptions(d)); },
                             "full(): expected 'fill_value' to fit in float32");
    expect_error<ValueError>([&] { full({2}, std::complex<double>(1, 1), TensorOptions(d).dtype(ScalarType::Int)); },
                             "full(): expected 'fill_value' to fit in int32");
    expect_error<ValueError>([&] { scalar_tensor(1e39, d); }, "scalar_tensor(): expected 's'");
    expect_error<ValueError>([&] { arange(0, 10, 0, d); }, "arange(): expected 'step' to be nonzero");
    expect_error<ValueError>([&] { arange(0, 10, -1, d); }, "arange(): expected 'step' to lead");
    expect_error<ValueError>([&] { arange(5, 0, d); }, "arange(): expected 'step' to lead");
    expect_error<ValueError>([&] { arange(0, INFINITY, d); }, "arange(): expected finite");
    expect_error<ValueError>([&] { arange(0, NAN, d); }, "arange(): expected finite");
    expect_error<ValueError>([&] { arange(0, 5, 0.5, TensorOptions(d).dtype(ScalarType::Long)); },
                             "arange(): expected 'step' to be nonzero as int64");
    expect_error<NotImplementedError>([&] { arange(5, TensorOptions(d).dtype(ScalarType::Bool)); },
                                      "arange(): not implemented for dtype bool");
    expect_error<TypeError>([&] { arange(std::complex<double>(0, 1), d); }, "arange(): expected real");
    expect_error<ValueError>([&] { linspace(0, 1, -1, d); }, "linspace(): expected 'steps' to be non-negative");
    expect_error<ValueError>([&] { logspace(0, 1, -2, 10.0, d); }, "logspace(): expected 'steps'");
    expect_error<ValueError>([&] { linspace(0, 1e6, 3, TensorOptions(d).dtype(ScalarType::Half)); },
                             "linspace(): expected 'end' to fit in float16");
    expect_error<NotImplementedError>([&] { linspace(0, 1, 3, TensorOptions(d).dtype(ScalarType::Bool)); },
                                      "linspace(): not implemented for dtype bool");
    expect_error<ValueError>([&] { eye(-1, d); }, "eye(): expected 'n' to be non-negative, but got -1");
    expect_error<ValueError>([&] { eye(2, -1, d); }, "eye(): expected 'm' to be non-negative, but got -1");
    expect_error<ValueError>([&] { empty_strided({2, 3}, {1}, d); }, "empty_strided(): expected 'size' and 'stride'");
    expect_error<ValueError>([&] { empty_strided({2, 3}, {1, -1}, d); }, "empty_strided(): expected 'stride'");
    expect_error<ValueError>([&] { empty_strided({2, -3}, {1, 1}, d); }, "empty_strided(): expected 'size'");
  }
}

TEST(Factory, OutFormsResizeAndKeepMatchingShapes) {
  Tensor out = empty({7}, ScalarType::Long);
  EXPECT_TRUE(arange_out(out, 0, 3).is_same(out));
  EXPECT_EQ(to_vector<int64_t>(out), (std::vector<int64_t>{0, 1, 2}));
  arange_out(out, 4);
  EXPECT_EQ(to_vector<int64_t>(out), (std::vector<int64_t>{0, 1, 2, 3}));
  Tensor grid = empty({2, 2}, ScalarType::Float);  // numel matches: keeps its shape
  linspace_out(grid, 0, 3, 4);
  EXPECT_EQ(grid.sizes(), IntArrayRef({2, 2}));
  EXPECT_EQ(to_vector<float>(grid), (std::vector<float>{0, 1, 2, 3}));
  Tensor col = empty({6}, ScalarType::Float);
  Tensor strided = col.view({6});
  strided.impl()->set_sizes_and_strides({3}, {2}, 0);  // non-contiguous out
  logspace_out(strided, 0, 2, 3, 10.0);
  EXPECT_EQ(element(col, {0}).to_double(), 1.0);
  EXPECT_EQ(element(col, {2}).to_double(), 10.0);
  EXPECT_EQ(element(col, {4}).to_double(), 100.0);
  Tensor e = empty({0}, ScalarType::Int);
  eye_out(e, 2, 3);
  EXPECT_EQ(e.sizes(), IntArrayRef({2, 3}));
  EXPECT_EQ(to_vector<int32_t>(e), (std::vector<int32_t>{1, 0, 0, 0, 1, 0}));
  eye_out(e, 2);
  EXPECT_EQ(to_vector<int32_t>(e), (std::vector<int32_t>{1, 0, 0, 1}));
  Tensor m = empty({0}, Device("meta"));
  EXPECT_EQ(arange_out(m, 0, 10, 3).sizes(), IntArrayRef({4}));
  EXPECT_EQ(eye_out(m, 3, 5).sizes(), IntArrayRef({3, 5}));
}

TEST(Factory, MetaFactoriesGiveMetaTensorsOfTheRightShape) {
  Tensor z = zeros({2, 3}, Device("meta"));
  EXPECT_EQ(z.device(), Device("meta"));
  EXPECT_EQ(z.sizes(), IntArrayRef({2, 3}));
  EXPECT_EQ(z.dtype(), ScalarType::Float);
  EXPECT_EQ(full({4}, true, Device("meta")).dtype(), ScalarType::Bool);
  EXPECT_EQ(arange(10, Device("meta")).sizes(), IntArrayRef({10}));
  EXPECT_EQ(eye(3, Device("meta")).sizes(), IntArrayRef({3, 3}));
  EXPECT_EQ(zeros_like(z).device(), Device("meta"));
  EXPECT_EQ(tensor({{1, 2}, {3, 4}}, Device("meta")).sizes(), IntArrayRef({2, 2}));
  // A _like call may move: CPU input, meta result.
  EXPECT_EQ(ones_like(ones({2}), TensorOptions(Device("meta"))).device(), Device("meta"));
}

// ---- tensor(), element(), to_vector() ---------------------------------------------------------

TEST(TensorLiteral, InfersDtypeAndShapeAsTorchTensor) {
  Tensor f = tensor({1.0, 2.0});
  EXPECT_EQ(f.dtype(), ScalarType::Float);
  EXPECT_EQ(f.sizes(), IntArrayRef({2}));
  Tensor i = tensor({{1, 2}, {3, 4}});
  EXPECT_EQ(i.dtype(), ScalarType::Long);
  EXPECT_EQ(i.sizes(), IntArrayRef({2, 2}));
  EXPECT_EQ(element(i, {1, 0}).to_long(), 3);
  EXPECT_EQ(element(i, {-1, -1}).to_long(), 4);
  EXPECT_EQ(tensor({true, false}).dtype(), ScalarType::Bool);
  EXPECT_EQ(tensor({std::complex<double>(1, 2)}).dtype(), ScalarType::ComplexFloat);
  EXPECT_EQ(tensor(3.5).dim(), 0);
  EXPECT_EQ(tensor({{{1.5f}, {2.5f}}}).sizes(), IntArrayRef({1, 2, 1}));
  EXPECT_EQ(tensor({{{{1}}}}).dim(), 4);
  Tensor d = tensor({0.1, 0.2}, ScalarType::Double);
  EXPECT_EQ(to_vector<double>(d), (std::vector<double>{0.1, 0.2}));
  EXPECT_EQ(to_vector<float>(tensor({0.1})), std::vector<float>{0.1f});  // rounded to float32
  std::vector<std::vector<int>> nested{{1, 2, 3}, {4, 5, 6}};
  Tensor v = tensor(nested, ScalarType::Half);
  EXPECT_EQ(v.dtype(), ScalarType::Half);
  EXPECT_EQ(v.sizes(), IntArrayRef({2, 3}));
  EXPECT_EQ(to_vector<int64_t>(v), (std::vector<int64_t>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(tensor(std::vector<double>{}).sizes(), IntArrayRef({0}));
  EXPECT_EQ(tensor(std::vector<double>{}).dtype(), ScalarType::Float);
}

TEST(TensorLiteral, RaggedListsAndBadIndicesRaise) {
  std::vector<std::vector<double>> ragged{{1, 2}, {3}};
  EXPECT_THROW(tensor(ragged), ValueError);
  EXPECT_THROW(tensor({{1, 2}, {3}}), ValueError);
  Tensor t = tensor({{1, 2}, {3, 4}});
  EXPECT_THROW(element(t, {2, 0}), IndexError);
  EXPECT_THROW(element(t, {0}), IndexError);
  EXPECT_THROW(element(zeros({2}, Device("meta")), {0}), ValueError);
  EXPECT_THROW(to_vector<float>(zeros({2}, Device("meta"))), ValueError);
}

}  // namespace
}  // namespace ember
