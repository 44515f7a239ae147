#pragma once
/// An operator's signature in PyTorch's schema grammar, parsed losslessly:
/// `str(FunctionSchema::parse(s)) == s` for every well-formed schema s.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "c10/macros/Export.h"

namespace ember {

/// "ns::name.overload"; the namespace and the overload may be empty.
struct EMBER_API OperatorName {
  std::string ns;        ///< "aten" in "aten::add.Tensor"; empty when not written.
  std::string name;      ///< "add"
  std::string overload;  ///< "Tensor"; empty for the default overload.

  /// "ns::name.overload", leaving out the parts that are empty.
  std::string str() const;
  bool operator==(const OperatorName&) const = default;
};

/// The element kind of an argument's type.
enum class BaseType : uint8_t {
  Tensor, Int, SymInt, Float, Bool, Str, Scalar, ScalarType, Device, Layout,
  MemoryFormat, Generator, Dimname, Storage, Stream, Complex, Any,
};

/// The schema spelling of a base type ("Tensor", "int", "SymInt", "float", ...).
EMBER_API const char* base_type_name(BaseType t);

/// An argument's or return's type: `Tensor`, `int[2]`, `Tensor?[]`, `float[]?`, ...
struct EMBER_API SchemaType {
  BaseType base = BaseType::Tensor;
  bool elem_optional = false;  ///< `Tensor?[]`: the elements may be None.
  bool is_list = false;        ///< `T[]` or `T[N]`.
  int64_t list_size = -1;      ///< N in `T[N]`; -1 when not written.
  bool optional = false;       ///< `T?` or `T[]?`: the whole value may be None.

  bool operator==(const SchemaType&) const = default;
};

/// An alias annotation: `(a)`, `(a!)`, `(a -> *)`, `(a! -> a|b)`.
struct EMBER_API AliasInfo {
  std::vector<std::string> before;  ///< alias sets before the arrow; "*" is the wildcard.
  bool is_write = false;            ///< written as `!`: the op writes through this alias.
  bool has_after = false;           ///< an `->` part is present.
  std::vector<std::string> after;   ///< alias sets after the arrow.

  bool operator==(const AliasInfo&) const = default;
};

/// One argument or return of a schema.
struct EMBER_API Argument {
  std::string name;                   ///< may be empty for returns.
  SchemaType type;
  std::optional<AliasInfo> alias;     ///< written right after the base type name.
  std::optional<std::string> default_text;  ///< the default exactly as written, e.g. "1e-05".
  bool kwarg_only = false;            ///< declared after `*`.
};

/// A parsed schema: `name.overload(args) -> returns`.
struct EMBER_API FunctionSchema {
  OperatorName name;
  std::vector<Argument> arguments;
  std::vector<Argument> returns;
  /// Returns written in parentheses (`-> (Tensor a, Tensor b)`, `-> ()`); a single
  /// unnamed return is written bare (`-> Tensor`).
  bool returns_parenthesized = false;

  /// Parses a schema; throws ember::ValueError naming the column and showing a caret.
  static FunctionSchema parse(std::string_view text);
  /// Prints the schema back in canonical form (the form the parser accepts).
  std::string str() const;
  /// True when some argument is annotated as written to (`Tensor(a!)`).
  bool is_mutable() const;
};

}  // namespace ember
