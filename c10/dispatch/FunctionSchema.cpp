#include "c10/dispatch/FunctionSchema.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <utility>

#include "c10/dispatch/SchemaDefaults.h"
#include "c10/util/Exception.h"

namespace ember {

namespace {

constexpr std::array<std::pair<BaseType, const char*>, 17> kBaseTypeNames = {{
    {BaseType::Tensor, "Tensor"},
    {BaseType::Int, "int"},
    {BaseType::SymInt, "SymInt"},
    {BaseType::Float, "float"},
    {BaseType::Bool, "bool"},
    {BaseType::Str, "str"},
    {BaseType::Scalar, "Scalar"},
    {BaseType::ScalarType, "ScalarType"},
    {BaseType::Device, "Device"},
    {BaseType::Layout, "Layout"},
    {BaseType::MemoryFormat, "MemoryFormat"},
    {BaseType::Generator, "Generator"},
    {BaseType::Dimname, "Dimname"},
    {BaseType::Storage, "Storage"},
    {BaseType::Stream, "Stream"},
    {BaseType::Complex, "complex"},
    {BaseType::Any, "Any"},
}};

std::optional<BaseType> base_type_from_name(std::string_view name) {
  for (const auto& [type, spelling] : kBaseTypeNames) {
    if (name == spelling) return type;
  }
  return std::nullopt;
}

std::string join(const std::vector<std::string>& parts, const char* sep) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) out += sep;
    out += parts[i];
  }
  return out;
}

std::string alias_str(const AliasInfo& alias) {
  std::string out = "(" + join(alias.before, "|");
  if (alias.is_write) out += "!";
  if (alias.has_after) out += " -> " + join(alias.after, "|");
  return out + ")";
}

std::string type_str(const SchemaType& type, const std::optional<AliasInfo>& alias) {
  std::string out = base_type_name(type.base);
  if (alias) out += alias_str(*alias);
  if (type.is_list) {
    if (type.elem_optional) out += "?";
    out += "[";
    if (type.list_size >= 0) out += std::to_string(type.list_size);
    out += "]";
  }
  if (type.optional) out += "?";
  return out;
}

std::string argument_str(const Argument& arg) {
  std::string out = type_str(arg.type, arg.alias);
  if (!arg.name.empty()) out += " " + arg.name;
  if (arg.default_text) out += "=" + *arg.default_text;
  return out;
}

std::string quote(std::string_view text) { return "'" + std::string(text) + "'"; }

bool is_ident_start(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_ident_char(char c) { return is_ident_start(c) || is_digit(c); }
bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

enum class Tok : uint8_t { Ident, Number, String, Punct, End };

struct Token {
  Tok kind = Tok::End;
  std::string_view text;
  size_t pos = 0;
};

using detail::literal_fits;
using Literal = detail::SchemaLiteral;

/// Recursive-descent parser over a one-token-lookahead lexer.
class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) { advance(); }

  FunctionSchema parse_schema() {
    FunctionSchema schema;
    schema.name = parse_operator_name();
    expect("(", "after the operator name");
    parse_arguments(schema.arguments);
    expect("->", "after the arguments");
    parse_returns(schema);
    if (tok_.kind != Tok::End) fail_here("expected the end of the schema after the returns");
    return schema;
  }

  FunctionSchema parse_without_returns() {
    FunctionSchema schema;
    schema.name = parse_operator_name();
    expect("(", "after the operator name");
    parse_arguments(schema.arguments);
    if (tok_.kind != Tok::End) fail_here("expected the end of the signature after the arguments");
    return schema;
  }

 private:
  [[noreturn]] void fail(size_t pos, std::string_view problem, std::string_view got = {}) const {
    // Tabs and newlines would break the caret's alignment, so show them as spaces.
    std::string shown(text_);
    std::replace_if(shown.begin(), shown.end(), is_space, ' ');
    EMBER_THROW(::ember::ValueError, "invalid schema: ", problem, " at column ", pos + 1,
                got.empty() ? "" : ", but got ", got, "\n  ", shown, "\n  ",
                std::string(pos, ' '), "^");
  }

  [[noreturn]] void fail_here(std::string_view problem) const {
    fail(tok_.pos, problem, tok_.kind == Tok::End ? std::string("end of input") : quote(tok_.text));
  }

  void advance() {
    prev_end_ = tok_.pos + tok_.text.size();
    tok_ = lex();
  }

  Token lex() {
    while (cursor_ < text_.size() && is_space(text_[cursor_])) ++cursor_;
    const size_t start = cursor_;
    auto token = [&](Tok kind) {
      return Token{kind, text_.substr(start, cursor_ - start), start};
    };
    if (cursor_ == text_.size()) return token(Tok::End);
    const char c = text_[cursor_];
    if (is_ident_start(c)) {
      while (cursor_ < text_.size() && is_ident_char(text_[cursor_])) ++cursor_;
      return token(Tok::Ident);
    }
    if (is_digit(c)) return lex_number(start);
    if (c == '"' || c == '\'') {
      ++cursor_;
      while (cursor_ < text_.size() && text_[cursor_] != c) {
        cursor_ += text_[cursor_] == '\\' ? 2u : 1u;
      }
      if (cursor_ >= text_.size()) fail(start, "unterminated string");
      ++cursor_;
      return token(Tok::String);
    }
    const std::string_view rest = text_.substr(start);
    if (rest.starts_with("::") || rest.starts_with("->")) {
      cursor_ += 2;
      return token(Tok::Punct);
    }
    if (std::string_view("()[],?!*|=.-").find(c) != std::string_view::npos) {
      ++cursor_;
      return token(Tok::Punct);
    }
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte >= 0x7f) {
      // Control and non-ASCII bytes would garble the message, so show their code.
      const char* hex = "0123456789abcdef";
      fail(start, "unexpected character", str("byte 0x", hex[byte >> 4], hex[byte & 15]));
    }
    fail(start, "unexpected character", quote(std::string_view(&c, 1)));
  }

  /// Lexes `digits ['.' digits] [('e'|'E') ['+'|'-'] digits]`; a sign is the parser's business.
  Token lex_number(size_t start) {
    auto digits = [&] {
      while (cursor_ < text_.size() && is_digit(text_[cursor_])) ++cursor_;
    };
    digits();
    if (cursor_ < text_.size() && text_[cursor_] == '.') {
      ++cursor_;
      digits();
    }
    if (cursor_ < text_.size() && (text_[cursor_] == 'e' || text_[cursor_] == 'E')) {
      size_t exp = cursor_ + 1;
      if (exp < text_.size() && (text_[exp] == '+' || text_[exp] == '-')) ++exp;
      if (exp < text_.size() && is_digit(text_[exp])) {
        cursor_ = exp;
        digits();
      }
    }
    if (cursor_ < text_.size() && (is_ident_char(text_[cursor_]) || text_[cursor_] == '.')) {
      while (cursor_ < text_.size() &&
             (is_ident_char(text_[cursor_]) || text_[cursor_] == '.')) {
        ++cursor_;
      }
      fail(start, "malformed number", quote(text_.substr(start, cursor_ - start)));
    }
    return Token{Tok::Number, text_.substr(start, cursor_ - start), start};
  }

  bool is(std::string_view punct) const { return tok_.kind == Tok::Punct && tok_.text == punct; }

  bool accept(std::string_view punct) {
    if (!is(punct)) return false;
    advance();
    return true;
  }

  void expect(std::string_view punct, std::string_view where) {
    if (!accept(punct)) fail_here(str("expected '", punct, "' ", where));
  }

  std::string expect_ident(std::string_view problem) {
    if (tok_.kind != Tok::Ident) fail_here(problem);
    std::string out(tok_.text);
    advance();
    return out;
  }

  OperatorName parse_operator_name() {
    OperatorName op;
    op.name = expect_ident("expected an operator name");
    if (accept("::")) {
      op.ns = std::move(op.name);
      op.name = expect_ident("expected an operator name after '::'");
    }
    if (accept(".")) op.overload = expect_ident("expected an overload name after '.'");
    return op;
  }

  void parse_arguments(std::vector<Argument>& args) {
    if (accept(")")) return;
    bool kwarg_only = false;
    for (;;) {
      if (is("*")) {
        if (kwarg_only) fail(tok_.pos, "expected '*' to appear only once");
        advance();
        kwarg_only = true;
        if (is(")")) fail_here("expected keyword-only arguments after '*'");
        expect(",", "after '*'");
        continue;
      }
      args.push_back(parse_argument(args, /*is_return=*/false));
      args.back().kwarg_only = kwarg_only;
      if (accept(",")) continue;
      if (accept(")")) return;
      fail_here("expected ')' after the arguments");
    }
  }

  void parse_returns(FunctionSchema& schema) {
    if (!accept("(")) {
      schema.returns.push_back(parse_argument(schema.returns, /*is_return=*/true));
      if (!schema.returns.back().name.empty()) {
        fail(name_pos_, "expected a named return to be written in parentheses");
      }
      return;
    }
    schema.returns_parenthesized = true;
    if (accept(")")) return;
    for (;;) {
      schema.returns.push_back(parse_argument(schema.returns, /*is_return=*/true));
      if (accept(",")) continue;
      if (accept(")")) return;
      fail_here("expected ')' after the returns");
    }
  }

  /// Parses `type [name] ['=' default]`, where `earlier` holds the names already taken.
  Argument parse_argument(const std::vector<Argument>& earlier, bool is_return) {
    Argument arg;
    arg.type = parse_type(arg.alias, is_return);
    if (tok_.kind == Tok::Ident) {
      name_pos_ = tok_.pos;
      arg.name = tok_.text;
      for (const Argument& other : earlier) {
        if (other.name == arg.name) {
          fail(name_pos_, str("duplicate ", is_return ? "return" : "argument", " name '",
                              arg.name, "'"));
        }
      }
      advance();
    } else if (!is_return) {
      fail_here("expected an argument name after the type");
    }
    if (is("=")) {
      if (is_return) fail_here("expected no default on a return");
      advance();
      parse_default(arg);
    }
    return arg;
  }

  /// Parses `Base [alias] ['?'] ['[' [N] ']' ['?']]`.
  SchemaType parse_type(std::optional<AliasInfo>& alias, bool is_return) {
    if (tok_.kind != Tok::Ident) {
      fail_here(is_return ? "expected a return type" : "expected an argument type");
    }
    const std::optional<BaseType> base = base_type_from_name(tok_.text);
    if (!base) fail(tok_.pos, str("unknown type '", tok_.text, "'"));
    advance();
    SchemaType type;
    type.base = *base;
    if (is("(")) alias = parse_alias();
    type.optional = accept("?");
    if (is("?")) fail(tok_.pos, "expected '?' to appear only once");
    if (accept("[")) {
      type.is_list = true;
      std::swap(type.elem_optional, type.optional);
      if (tok_.kind == Tok::Number) {
        const std::string_view digits = tok_.text;
        auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(),
                                         type.list_size);
        if (ec != std::errc() || end != digits.data() + digits.size() || type.list_size <= 0) {
          fail_here("expected the list size to be a positive integer");
        }
        advance();
      } else if (!is("]")) {
        fail_here("expected ']' or a positive integer list size after '['");
      }
      expect("]", "after the list size");
      type.optional = accept("?");
      if (is("?")) fail(tok_.pos, "expected '?' to appear only once");
      if (is("[")) fail_here("expected no nested list type");
    }
    if (is("(")) fail_here("expected the alias annotation right after the base type name");
    return type;
  }

  /// Parses `'(' sets ['!'] ['->' sets] ')'`, where sets is like `a|b|*`.
  AliasInfo parse_alias() {
    advance();
    AliasInfo alias;
    parse_alias_sets(alias.before);
    alias.is_write = accept("!");
    if (accept("->")) {
      alias.has_after = true;
      parse_alias_sets(alias.after);
    }
    expect(")", "to close the alias annotation");
    return alias;
  }

  void parse_alias_sets(std::vector<std::string>& sets) {
    do {
      if (tok_.kind != Tok::Ident && !is("*")) {
        fail_here("expected an alias set (like 'a' or '*') in the alias annotation");
      }
      sets.emplace_back(tok_.text);
      advance();
    } while (accept("|"));
  }

  /// Parses one default value, checks it against the argument's type, and stores it verbatim
  /// and as a value (Note [Typed defaults]).
  void parse_default(Argument& arg) {
    const SchemaType& type = arg.type;
    const size_t start = tok_.pos;
    auto mismatch = [&](size_t pos, std::string_view got) {
      fail(pos, str("expected the default of '", arg.name, "' to fit its type '",
                    type_str(type, std::nullopt), "'"), got);
    };
    // The value of a literal that fits the type, failing at pos when it names nothing.
    auto value_of = [&](Literal lit, std::string_view text, size_t pos) {
      detail::LiteralValue v = detail::literal_value(arg, lit, text);
      if (!v.problem.empty()) fail(pos, v.problem, quote(text));
      return std::move(v.value);
    };
    std::optional<IValue> value;
    if (accept("[")) {
      if (!type.is_list) mismatch(start, "a list");
      std::vector<IValue> items;
      bool boxable = true;  // no None element, and every element has a value
      size_t count = 0;
      if (!accept("]")) {
        for (;;) {
          const size_t pos = tok_.pos;
          const auto [lit, text] = parse_literal();
          if (lit == Literal::None ? !type.elem_optional : !literal_fits(type.base, lit)) {
            mismatch(pos, quote(text));
          }
          ++count;
          std::optional<IValue> item;
          if (lit != Literal::None) item = value_of(lit, text, pos);
          boxable = boxable && item.has_value();
          if (item) items.push_back(std::move(*item));
          if (accept(",")) continue;
          if (accept("]")) break;
          fail_here("expected ',' or ']' in the default list");
        }
      }
      // `int[2] stride=[]` is PyTorch's "the op's own default"; any other length must be N.
      if (type.list_size > 0 && count != 0 && count != static_cast<size_t>(type.list_size)) {
        fail(start, str("expected the default of '", arg.name, "' to have ", type.list_size,
                        " elements (or none)"), str(count));
      }
      if (boxable) value = detail::list_value(type.base, items);
    } else {
      const auto [lit, text] = parse_literal();
      if (lit == Literal::None) {
        if (!type.optional) {
          fail(start, str("expected None to be the default only of an optional type (like '",
                          type_str(type, std::nullopt), "?')"));
        }
        value = IValue();
      } else if (type.is_list) {
        // PyTorch lets a fixed-size list default to one element, repeated: `int[2] padding=0`.
        if (type.list_size < 0 || !literal_fits(type.base, lit)) mismatch(start, quote(text));
        if (std::optional<IValue> item = value_of(lit, text, start)) {
          value = detail::list_value(type.base, std::vector<IValue>(type.list_size, *item));
        }
      } else {
        if (!literal_fits(type.base, lit)) mismatch(start, quote(text));
        value = value_of(lit, text, start);
      }
    }
    arg.default_text = std::string(text_.substr(start, prev_end_ - start));
    arg.default_value = std::move(value);
  }

  std::pair<Literal, std::string_view> parse_literal() {
    const size_t start = tok_.pos;
    auto done = [&](Literal lit) {
      advance();
      return std::make_pair(lit, text_.substr(start, prev_end_ - start));
    };
    if (accept("-")) {
      // A sign binds only to a number or `inf` written right after it.
      const bool adjacent = tok_.pos == start + 1;
      if (adjacent && tok_.kind == Tok::Number) return done(number_kind(tok_.text));
      if (adjacent && tok_.kind == Tok::Ident && tok_.text == "inf") return done(Literal::Float);
      fail(start, "expected a number after '-'");
    }
    switch (tok_.kind) {
      case Tok::Number:
        return done(number_kind(tok_.text));
      case Tok::String:
        return done(Literal::Str);
      case Tok::Ident:
        if (tok_.text == "True" || tok_.text == "False") return done(Literal::Bool);
        if (tok_.text == "None") return done(Literal::None);
        if (tok_.text == "inf" || tok_.text == "nan") return done(Literal::Float);
        return done(Literal::Ident);
      case Tok::Punct:
      case Tok::End:
        break;
    }
    fail_here("expected a default value");
  }

  static Literal number_kind(std::string_view text) {
    return text.find_first_of(".eE") == std::string_view::npos ? Literal::Int : Literal::Float;
  }

  std::string_view text_;
  size_t cursor_ = 0;    // where the lexer resumes, just past tok_
  size_t prev_end_ = 0;  // end of the last consumed token
  size_t name_pos_ = 0;  // column of the last argument or return name
  Token tok_;
};

}  // namespace

const char* base_type_name(BaseType t) {
  for (const auto& [type, spelling] : kBaseTypeNames) {
    if (type == t) return spelling;
  }
  EMBER_THROW(::ember::ValueError, "base_type_name(): expected a BaseType, but got ",
              static_cast<int>(t));
}

std::string OperatorName::str() const {
  std::string out = ns.empty() ? name : ns + "::" + name;
  if (!overload.empty()) out += "." + overload;
  return out;
}

FunctionSchema FunctionSchema::parse(std::string_view text) {
  return Parser(text).parse_schema();
}

FunctionSchema FunctionSchema::parse_without_returns(std::string_view text) {
  return Parser(text).parse_without_returns();
}

std::string FunctionSchema::str() const {
  std::string out = name.str() + "(";
  bool star_written = false;
  for (size_t i = 0; i < arguments.size(); ++i) {
    if (i > 0) out += ", ";
    if (arguments[i].kwarg_only && !star_written) {
      out += "*, ";
      star_written = true;
    }
    out += argument_str(arguments[i]);
  }
  out += ") -> ";
  const bool parens =
      returns_parenthesized || returns.size() != 1 || !returns.front().name.empty();
  if (parens) out += "(";
  for (size_t i = 0; i < returns.size(); ++i) {
    if (i > 0) out += ", ";
    out += argument_str(returns[i]);
  }
  if (parens) out += ")";
  return out;
}

bool FunctionSchema::is_mutable() const {
  return std::any_of(arguments.begin(), arguments.end(), [](const Argument& arg) {
    return arg.alias && arg.alias->is_write;
  });
}

}  // namespace ember
