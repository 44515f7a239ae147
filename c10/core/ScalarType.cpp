#include "c10/core/ScalarType.h"

#include <atomic>

#include "c10/util/Exception.h"

namespace ember {

const char* scalar_type_name(ScalarType t) {
  static constexpr const char* names[] = {
      "uint8",   "int8",    "int16",     "int32",      "int64", "float16", "float32",
      "float64", "complex64", "complex128", "bool", "bfloat16", "undefined"};
  auto i = static_cast<int>(t);
  return (i >= 0 && i <= kNumScalarTypes) ? names[i] : "invalid";
}

std::span<const ScalarTypeName> scalar_type_names() {
  static constexpr ScalarTypeName names[] = {
      {"uint8", ScalarType::Byte},    {"int8", ScalarType::Char},
      {"int16", ScalarType::Short},   {"short", ScalarType::Short},
      {"int32", ScalarType::Int},     {"int", ScalarType::Int},
      {"int64", ScalarType::Long},    {"long", ScalarType::Long},
      {"float16", ScalarType::Half},  {"half", ScalarType::Half},
      {"float32", ScalarType::Float}, {"float", ScalarType::Float},
      {"float64", ScalarType::Double}, {"double", ScalarType::Double},
      {"complex64", ScalarType::ComplexFloat}, {"cfloat", ScalarType::ComplexFloat},
      {"complex128", ScalarType::ComplexDouble}, {"cdouble", ScalarType::ComplexDouble},
      {"bool", ScalarType::Bool},     {"bfloat16", ScalarType::BFloat16},
  };
  return names;
}

std::optional<ScalarType> parse_scalar_type(std::string_view name) {
  for (const ScalarTypeName& n : scalar_type_names()) {
    if (n.name == name) return n.type;
  }
  return std::nullopt;
}

namespace {
std::atomic<ScalarType> default_dtype{ScalarType::Float};
}  // namespace

ScalarType get_default_dtype() { return default_dtype.load(std::memory_order_relaxed); }

void set_default_dtype(ScalarType t) {
  EMBER_CHECK_TYPE(is_floating_point(t),
                   "set_default_dtype(): expected a floating-point dtype (float16, bfloat16, "
                   "float32 or float64), but got ", scalar_type_name(t));
  default_dtype.store(t, std::memory_order_relaxed);
}

ScalarType get_default_complex_dtype() {
  return get_default_dtype() == ScalarType::Double ? ScalarType::ComplexDouble
                                                   : ScalarType::ComplexFloat;
}

ScalarType promote_types(ScalarType a, ScalarType b) {
  EMBER_CHECK_TYPE(a != ScalarType::Undefined && b != ScalarType::Undefined,
                   "promote_types(): expected defined dtypes, but got ", a, " and ", b);
  if (a == b) return a;
  // Note [Promotion table]: PyTorch's table (c10 ScalarType.h), rows and columns in the
  // enum's order: u1 i1 i2 i4 i8 f2 f4 f8 c4 c8 b1 bf.
  constexpr auto u1 = ScalarType::Byte, i1 = ScalarType::Char, i2 = ScalarType::Short,
                 i4 = ScalarType::Int, i8 = ScalarType::Long, f2 = ScalarType::Half,
                 f4 = ScalarType::Float, f8 = ScalarType::Double,
                 c4 = ScalarType::ComplexFloat, c8 = ScalarType::ComplexDouble,
                 b1 = ScalarType::Bool, bf = ScalarType::BFloat16;
  static constexpr ScalarType table[kNumScalarTypes][kNumScalarTypes] = {
      /*        u1  i1  i2  i4  i8  f2  f4  f8  c4  c8  b1  bf */
      /* u1 */ {u1, i2, i2, i4, i8, f2, f4, f8, c4, c8, u1, bf},
      /* i1 */ {i2, i1, i2, i4, i8, f2, f4, f8, c4, c8, i1, bf},
      /* i2 */ {i2, i2, i2, i4, i8, f2, f4, f8, c4, c8, i2, bf},
      /* i4 */ {i4, i4, i4, i4, i8, f2, f4, f8, c4, c8, i4, bf},
      /* i8 */ {i8, i8, i8, i8, i8, f2, f4, f8, c4, c8, i8, bf},
      /* f2 */ {f2, f2, f2, f2, f2, f2, f4, f8, c4, c8, f2, f4},
      /* f4 */ {f4, f4, f4, f4, f4, f4, f4, f8, c4, c8, f4, f4},
      /* f8 */ {f8, f8, f8, f8, f8, f8, f8, f8, c8, c8, f8, f8},
      /* c4 */ {c4, c4, c4, c4, c4, c4, c4, c8, c4, c8, c4, c4},
      /* c8 */ {c8, c8, c8, c8, c8, c8, c8, c8, c8, c8, c8, c8},
      /* b1 */ {u1, i1, i2, i4, i8, f2, f4, f8, c4, c8, b1, bf},
      /* bf */ {bf, bf, bf, bf, bf, f4, f4, f8, c4, c8, bf, bf},
  };
  return table[static_cast<int>(a)][static_cast<int>(b)];
}

}  // namespace ember
