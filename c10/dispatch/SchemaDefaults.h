#pragma once
/// The values of schema defaults (Note [Typed defaults] in FunctionSchema.h), for the
/// schema parser: what a literal means for an argument's type.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "c10/core/IValue.h"
#include "c10/dispatch/FunctionSchema.h"

namespace ember::detail {

/// What a default literal looks like, before it is checked against the type.
enum class SchemaLiteral : uint8_t { Int, Float, Bool, None, Str, Ident };

/// Whether a non-None literal can be the default of (an element of) type `base`.
bool literal_fits(BaseType base, SchemaLiteral lit);

/// A literal's value: the IValue, or none for a type no IValue holds; or why it has none.
struct LiteralValue {
  std::optional<IValue> value;
  std::string problem;  ///< non-empty: the literal names nothing, or overflows.
};

/// The value of a literal that fits (literal_fits) the base type of `arg` (an element of it,
/// for lists); `text` is the literal as written (`-1`, `'none'`, `long`).
LiteralValue literal_value(const Argument& arg, SchemaLiteral lit, std::string_view text);

/// The list of `items` (values of literal_value) as one IValue: int[], float[], bool[] and
/// an empty Tensor[]; none for the other list types.
std::optional<IValue> list_value(BaseType base, const std::vector<IValue>& items);

}  // namespace ember::detail
