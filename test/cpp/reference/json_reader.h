#pragma once
/// A small JSON reader for the golden data that test/cpp/reference/*.py scripts write.
/// Numbers keep their text, so int64 values stay exact and Python's NaN / Infinity /
/// -Infinity (which its json module writes) parse as doubles.

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace ember::test {

/// One JSON value: null, bool, number, string, array or object.
class JsonValue {
 public:
  enum class Kind { Null, Bool, Number, String, Array, Object };

  Kind kind() const { return kind_; }
  bool is_null() const { return kind_ == Kind::Null; }
  bool as_bool() const { return expect(Kind::Bool), bool_; }
  /// The number as double (NaN and +-Infinity included).
  double as_double() const { return expect(Kind::Number), std::strtod(text_.c_str(), nullptr); }
  /// The number as int64, exactly.
  int64_t as_int() const { return expect(Kind::Number), std::strtoll(text_.c_str(), nullptr, 10); }
  const std::string& as_string() const { return expect(Kind::String), text_; }
  const std::vector<JsonValue>& as_array() const { return expect(Kind::Array), array_; }
  /// The member named key; throws when there is none.
  const JsonValue& operator[](const std::string& key) const {
    expect(Kind::Object);
    auto it = object_->find(key);
    if (it == object_->end()) throw std::runtime_error("json: no member '" + key + "'");
    return it->second;
  }
  const JsonValue& operator[](size_t i) const { return as_array().at(i); }
  size_t size() const { return as_array().size(); }

  /// Parses a whole document; throws std::runtime_error with the offset of a syntax error.
  static JsonValue parse(const std::string& text) {
    size_t pos = 0;
    JsonValue v = parse_value(text, pos);
    skip_space(text, pos);
    if (pos != text.size()) fail(pos, "trailing characters");
    return v;
  }
  /// Reads and parses a file; throws when it cannot be read.
  static JsonValue parse_file(const std::string& path) {
    std::ifstream in(path);
    if (!in) throw std::runtime_error("json: cannot read " + path);
    std::stringstream buffer;
    buffer << in.rdbuf();
    return parse(buffer.str());
  }

 private:
  void expect(Kind k) const {
    if (kind_ != k) throw std::runtime_error("json: value has another type");
  }
  [[noreturn]] static void fail(size_t pos, const std::string& what) {
    throw std::runtime_error("json: " + what + " at offset " + std::to_string(pos));
  }
  static void skip_space(const std::string& s, size_t& pos) {
    while (pos < s.size() && (s[pos] == ' ' || s[pos] == '\n' || s[pos] == '\t' || s[pos] == '\r'))
      ++pos;
  }
  static bool consume(const std::string& s, size_t& pos, const std::string& word) {
    if (s.compare(pos, word.size(), word) != 0) return false;
    pos += word.size();
    return true;
  }

  static JsonValue parse_value(const std::string& s, size_t& pos) {
    skip_space(s, pos);
    if (pos >= s.size()) fail(pos, "unexpected end");
    JsonValue v;
    const char c = s[pos];
    if (c == '{') {
      v.kind_ = Kind::Object;
      v.object_ = std::make_shared<std::map<std::string, JsonValue>>();
      ++pos;
      skip_space(s, pos);
      if (pos < s.size() && s[pos] == '}') return ++pos, v;
      while (true) {
        skip_space(s, pos);
        JsonValue key = parse_value(s, pos);
        if (key.kind_ != Kind::String) fail(pos, "expected a string key");
        skip_space(s, pos);
        if (!consume(s, pos, ":")) fail(pos, "expected ':'");
        (*v.object_)[key.text_] = parse_value(s, pos);
        skip_space(s, pos);
        if (consume(s, pos, "}")) return v;
        if (!consume(s, pos, ",")) fail(pos, "expected ',' or '}'");
      }
    }
    if (c == '[') {
      v.kind_ = Kind::Array;
      ++pos;
      skip_space(s, pos);
      if (pos < s.size() && s[pos] == ']') return ++pos, v;
      while (true) {
        v.array_.push_back(parse_value(s, pos));
        skip_space(s, pos);
        if (consume(s, pos, "]")) return v;
        if (!consume(s, pos, ",")) fail(pos, "expected ',' or ']'");
      }
    }
    if (c == '"') return parse_string(s, pos);
    if (consume(s, pos, "true")) return v.kind_ = Kind::Bool, v.bool_ = true, v;
    if (consume(s, pos, "false")) return v.kind_ = Kind::Bool, v.bool_ = false, v;
    if (consume(s, pos, "null")) return v;
    const size_t start = pos;
    for (const char* word : {"NaN", "Infinity", "-Infinity"}) {
      if (consume(s, pos, word)) return v.kind_ = Kind::Number, v.text_ = word, v;
    }
    while (pos < s.size() && std::string_view("+-0123456789.eE").find(s[pos]) != std::string::npos)
      ++pos;
    if (pos == start) fail(pos, "unexpected character");
    v.kind_ = Kind::Number;
    v.text_ = s.substr(start, pos - start);
    return v;
  }

  static JsonValue parse_string(const std::string& s, size_t& pos) {
    JsonValue v;
    v.kind_ = Kind::String;
    ++pos;  // opening quote
    while (true) {
      if (pos >= s.size()) fail(pos, "unterminated string");
      const char c = s[pos++];
      if (c == '"') return v;
      if (c != '\\') {
        v.text_ += c;
        continue;
      }
      if (pos >= s.size()) fail(pos, "unterminated escape");
      const char e = s[pos++];
      switch (e) {
        case 'n': v.text_ += '\n'; break;
        case 't': v.text_ += '\t'; break;
        case 'r': v.text_ += '\r'; break;
        case 'b': v.text_ += '\b'; break;
        case 'f': v.text_ += '\f'; break;
        case 'u': {  // only ASCII code points occur in the golden files
          if (pos + 4 > s.size()) fail(pos, "short \\u escape");
          const long code = std::strtol(s.substr(pos, 4).c_str(), nullptr, 16);
          if (code > 0x7f) fail(pos, "non-ASCII \\u escape");
          v.text_ += static_cast<char>(code);
          pos += 4;
          break;
        }
        default: v.text_ += e;  // \" \\ \/
      }
    }
  }

  Kind kind_ = Kind::Null;
  bool bool_ = false;
  std::string text_;  // a string's value, or a number's text
  std::vector<JsonValue> array_;
  std::shared_ptr<std::map<std::string, JsonValue>> object_;  // shared: cheap copies
};

}  // namespace ember::test
