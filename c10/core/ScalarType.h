#pragma once
/// Element types of tensors, their sizes and names, and PyTorch's promotion table.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <ostream>
#include <span>
#include <string_view>

#include "c10/macros/Export.h"

namespace ember {

/// A tensor's element type. The order is PyTorch's, which the promotion table relies on.
enum class ScalarType : int8_t {
  Byte,        ///< uint8
  Char,        ///< int8
  Short,       ///< int16
  Int,         ///< int32
  Long,        ///< int64
  Half,        ///< float16
  Float,       ///< float32
  Double,      ///< float64
  ComplexFloat,   ///< complex64
  ComplexDouble,  ///< complex128
  Bool,
  BFloat16,
  Undefined,
};

// libtorch's dtype constants (torch::kFloat32, torch::kLong, ...).
inline constexpr ScalarType kByte = ScalarType::Byte;
inline constexpr ScalarType kChar = ScalarType::Char;
inline constexpr ScalarType kShort = ScalarType::Short;
inline constexpr ScalarType kInt = ScalarType::Int;
inline constexpr ScalarType kLong = ScalarType::Long;
inline constexpr ScalarType kHalf = ScalarType::Half;
inline constexpr ScalarType kFloat = ScalarType::Float;
inline constexpr ScalarType kDouble = ScalarType::Double;
inline constexpr ScalarType kComplexFloat = ScalarType::ComplexFloat;
inline constexpr ScalarType kComplexDouble = ScalarType::ComplexDouble;
inline constexpr ScalarType kBool = ScalarType::Bool;
inline constexpr ScalarType kBFloat16 = ScalarType::BFloat16;
inline constexpr ScalarType kUInt8 = ScalarType::Byte;
inline constexpr ScalarType kInt8 = ScalarType::Char;
inline constexpr ScalarType kInt16 = ScalarType::Short;
inline constexpr ScalarType kInt32 = ScalarType::Int;
inline constexpr ScalarType kInt64 = ScalarType::Long;
inline constexpr ScalarType kFloat16 = ScalarType::Half;
inline constexpr ScalarType kFloat32 = ScalarType::Float;
inline constexpr ScalarType kFloat64 = ScalarType::Double;

/// The number of defined scalar types (Undefined excluded).
inline constexpr int kNumScalarTypes = static_cast<int>(ScalarType::Undefined);

/// Bytes per element; 0 for Undefined.
constexpr size_t itemsize(ScalarType t) {
  constexpr uint8_t sizes[] = {1, 1, 2, 4, 8, 2, 4, 8, 8, 16, 1, 2, 0};
  return sizes[static_cast<int>(t)];
}

/// PyTorch's name: "float32", "int64", "complex64", "bool", ...
EMBER_API const char* scalar_type_name(ScalarType t);
/// One name of a dtype, as schema defaults (`dtype=long`) and Python (`ember.long`) spell it.
struct ScalarTypeName {
  const char* name;
  ScalarType type;
};
/// Every dtype name: PyTorch's ("float32", "int64", ...) and their aliases ("float", "long").
EMBER_API std::span<const ScalarTypeName> scalar_type_names();
/// The type named by one of scalar_type_names() ("float32", "float", "long", ...), if any.
EMBER_API std::optional<ScalarType> parse_scalar_type(std::string_view name);

constexpr bool is_floating_point(ScalarType t) {
  return t == ScalarType::Half || t == ScalarType::Float || t == ScalarType::Double ||
         t == ScalarType::BFloat16;
}
constexpr bool is_complex(ScalarType t) {
  return t == ScalarType::ComplexFloat || t == ScalarType::ComplexDouble;
}
constexpr bool is_integral(ScalarType t, bool include_bool) {
  return (t >= ScalarType::Byte && t <= ScalarType::Long) ||
         (include_bool && t == ScalarType::Bool);
}

/// The floating-point type factories use when none is given (float32 until changed), as
/// torch.get_default_dtype.
EMBER_API ScalarType get_default_dtype();
/// Sets the default floating-point type; throws TypeError unless it is float16, bfloat16,
/// float32 or float64. Process-wide, like PyTorch's.
EMBER_API void set_default_dtype(ScalarType t);
/// The complex type matching the default dtype (complex64 for float32, else complex128).
EMBER_API ScalarType get_default_complex_dtype();

/// The smallest type both a and b convert to without loss, as torch.promote_types does.
/// Throws TypeError for Undefined.
EMBER_API ScalarType promote_types(ScalarType a, ScalarType b);

/// Whether a result of type `from` may be written into a tensor of type `to` (PyTorch's
/// canCast: no complex to real, no floating to integral, nothing but bool to bool).
constexpr bool can_cast(ScalarType from, ScalarType to) {
  if (is_complex(from) && !is_complex(to)) return false;
  if (is_floating_point(from) && is_integral(to, /*include_bool=*/true)) return false;
  if (from != ScalarType::Bool && to == ScalarType::Bool) return false;
  return true;
}

inline std::ostream& operator<<(std::ostream& os, ScalarType t) {
  return os << scalar_type_name(t);
}

}  // namespace ember
