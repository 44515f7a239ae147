#include "c10/dispatch/SchemaDefaults.h"

#include <charconv>
#include <complex>

#include "c10/core/Device.h"
#include "c10/core/Layout.h"
#include "c10/core/MemoryFormat.h"
#include "c10/core/Reduction.h"
#include "c10/core/ScalarType.h"
#include "c10/util/Exception.h"

namespace ember::detail {
namespace {

using Literal = SchemaLiteral;

std::string expected(const Argument& arg, std::string_view rule) {
  return str("expected the default of '", arg.name, "' to ", rule);
}

LiteralValue int_value(const Argument& arg, std::string_view text) {
  int64_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size()) {
    return {std::nullopt, expected(arg, "fit in int64")};
  }
  return {IValue(v), {}};
}

// A number, inf, -inf or nan (from_chars reads all of them).
std::optional<double> float_number(std::string_view text) {
  double v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return v;
}

LiteralValue float_value(const Argument& arg, std::string_view text) {
  const std::optional<double> v = float_number(text);
  if (!v) return {std::nullopt, expected(arg, "be a float in range (or inf, -inf, nan)")};
  return {IValue(*v), {}};
}

// The string a quoted literal spells: quotes dropped, `\x` read as x (`\n` and `\t` as the
// control characters).
std::string unquote(std::string_view text) {
  std::string out;
  for (size_t i = 1; i + 1 < text.size(); ++i) {
    char c = text[i];
    if (c == '\\' && i + 2 < text.size()) {
      c = text[++i];
      if (c == 'n') c = '\n';
      if (c == 't') c = '\t';
    }
    out += c;
  }
  return out;
}

// A literal as itself, for Scalar and Any: an int, a double, a bool or a string.
LiteralValue plain_value(const Argument& arg, Literal lit, std::string_view text) {
  switch (lit) {
    case Literal::Int: return int_value(arg, text);
    case Literal::Float: return float_value(arg, text);
    case Literal::Bool: return {IValue(text == "True"), {}};
    case Literal::Str: return {IValue(unquote(text)), {}};
    case Literal::None:
    case Literal::Ident: break;
  }
  return {std::nullopt, expected(arg, "be a number, a bool or a string")};
}

}  // namespace

bool literal_fits(BaseType base, Literal lit) {
  switch (base) {
    case BaseType::Int:
    case BaseType::SymInt:
      // Enum-like ints such as `int reduction=Mean`.
      return lit == Literal::Int || lit == Literal::Ident;
    case BaseType::Float:
    case BaseType::Complex:
      return lit == Literal::Int || lit == Literal::Float;
    case BaseType::Bool:
      return lit == Literal::Bool;
    case BaseType::Str:
      return lit == Literal::Str;
    case BaseType::Scalar:
      return lit == Literal::Int || lit == Literal::Float || lit == Literal::Bool;
    case BaseType::ScalarType:
    case BaseType::Layout:
    case BaseType::MemoryFormat:
      // Spelled by name: `dtype=long`, `layout=strided`, `memory_format=contiguous_format`.
      return lit == Literal::Ident;
    case BaseType::Device:
    case BaseType::Dimname:
      return lit == Literal::Str || lit == Literal::Ident;
    case BaseType::Any:
      return true;
    case BaseType::Tensor:
    case BaseType::Generator:
    case BaseType::Storage:
    case BaseType::Stream:
      return false;
  }
  return false;
}

LiteralValue literal_value(const Argument& arg, Literal lit, std::string_view text) {
  switch (arg.type.base) {
    case BaseType::Int:
    case BaseType::SymInt:
      if (lit == Literal::Int) return int_value(arg, text);
      if (auto r = parse_reduction_schema_name(text)) return {IValue(static_cast<int64_t>(*r)), {}};
      return {std::nullopt, expected(arg, "be an int or a reduction (Mean or Sum)")};
    case BaseType::Float:
      return float_value(arg, text);
    case BaseType::Complex: {
      const std::optional<double> v = float_number(text);
      if (!v) return {std::nullopt, expected(arg, "be a float in range (or inf, -inf, nan)")};
      return {IValue(std::complex<double>(*v, 0.0)), {}};
    }
    case BaseType::Bool:
    case BaseType::Str:
    case BaseType::Scalar:
    case BaseType::Any:
      return plain_value(arg, lit, text);
    case BaseType::ScalarType:
      if (auto t = parse_scalar_type(text)) return {IValue(*t), {}};
      return {std::nullopt, expected(arg, "name a dtype (like 'float' or 'long')")};
    case BaseType::Layout:
      if (auto l = parse_layout(text)) return {IValue(*l), {}};
      return {std::nullopt, expected(arg, "name a layout (like 'strided')")};
    case BaseType::MemoryFormat:
      // Boxed as an int, as PyTorch boxes memory formats.
      if (auto m = parse_memory_format(text)) return {IValue(static_cast<int64_t>(*m)), {}};
      return {std::nullopt, expected(arg, "name a memory format (like 'contiguous_format')")};
    case BaseType::Device:
      try {
        return {IValue(Device(lit == Literal::Str ? unquote(text) : std::string(text))), {}};
      } catch (const ValueError&) {
        return {std::nullopt, expected(arg, "name a device (like 'cpu' or \"cuda:0\")")};
      }
    case BaseType::Dimname:
    case BaseType::Tensor:
    case BaseType::Generator:
    case BaseType::Storage:
    case BaseType::Stream:
      break;
  }
  return {};
}

std::optional<IValue> list_value(BaseType base, const std::vector<IValue>& items) {
  switch (base) {
    case BaseType::Int:
    case BaseType::SymInt: {
      std::vector<int64_t> v;
      for (const IValue& item : items) v.push_back(item.to_int());
      return IValue(std::move(v));
    }
    case BaseType::Float: {
      std::vector<double> v;
      for (const IValue& item : items) v.push_back(item.to_double());
      return IValue(std::move(v));
    }
    case BaseType::Bool: {
      std::vector<bool> v;
      for (const IValue& item : items) v.push_back(item.to_bool());
      return IValue(std::move(v));
    }
    case BaseType::Tensor:
      // Only an empty list: a tensor has no literal.
      return IValue(std::vector<Tensor>());
    default:
      return std::nullopt;
  }
}

}  // namespace ember::detail
