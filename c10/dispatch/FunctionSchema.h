#pragma once
/// An operator's signature in PyTorch's schema grammar, parsed losslessly:
/// `str(FunctionSchema::parse(s)) == s` for every well-formed schema s. The one schema model:
/// the dispatcher, boxed calls and the Python argument parser all read it, defaults included.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "c10/core/IValue.h"
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
  /// The default as a value of the argument's type (Note [Typed defaults]); nullopt without a
  /// default, and for a default of a type no IValue holds.
  std::optional<IValue> default_value;
  bool kwarg_only = false;            ///< declared after `*`.
};

// Note [Typed defaults]: FunctionSchema::parse reads each default into the IValue a boxed
// call passes for it, by the argument's type: `float eps=1` is the double 1.0, `float a=-inf`
// and `nan` are doubles, `Scalar alpha=1` the int 1 and `Scalar b=0.5` a double, `int[2] p=1`
// the list [1, 1] (one element for all N), `int[1] dim=[]` the empty list, `str s='it\'s'`
// the string without quotes or escapes, `ScalarType dtype=long` a ScalarType (the names of
// scalar_type_names()), `Layout layout=strided` a Layout (layout_short_name), `MemoryFormat
// m=contiguous_format` the format as an int (memory_format_name; boxed calls pass formats
// as ints, as PyTorch's), `int reduction=Mean` the int of Reduction::Mean
// (reduction_schema_name), `Device d="cpu"` a Device, and None an IValue of None. A default
// that names nothing (`dtype=foo`, `reduction=Average`), overflows, or gives a fixed-size
// list a wrong length is a parse error naming the argument. Defaults of the types no IValue
// holds have no value (nullopt) and are only printed: Dimname, and lists other than int[],
// float[], bool[] and Tensor[] (or with None elements, `Tensor?[] l=[None]`).

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
  /// Parses `name(args)`, a schema without its `-> returns` (the Python bindings' signatures,
  /// Note [Python signatures] in python/csrc/ArgParser.h); the result has no returns.
  static FunctionSchema parse_without_returns(std::string_view text);
  /// Prints the schema back in canonical form (the form the parser accepts).
  std::string str() const;
  /// True when some argument is annotated as written to (`Tensor(a!)`).
  bool is_mutable() const;
};

}  // namespace ember
