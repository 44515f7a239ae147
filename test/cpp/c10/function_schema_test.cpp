#include "c10/dispatch/FunctionSchema.h"

#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "c10/util/Exception.h"

namespace ember {
namespace {

// Parses s, reporting a parse error as a test failure rather than an uncaught exception.
std::string round_trip(const std::string& s) {
  try {
    return FunctionSchema::parse(s).str();
  } catch (const ValueError& e) {
    ADD_FAILURE() << e.what();
    return "";
  }
}

// Round-trips every schema line of a file: lines starting with `prefix`, the schema after it.
int round_trip_file(const std::string& name, const std::string& prefix) {
  const std::string path = std::string(EMBER_SOURCE_DIR) + "/" + name;
  std::ifstream in(path);
  EXPECT_TRUE(in) << "cannot open " << path;
  std::string line;
  int line_no = 0;
  int count = 0;
  while (std::getline(in, line)) {
    ++line_no;
    if (line.empty() || line.rfind(prefix, 0) != 0) continue;
    ++count;
    const std::string schema = line.substr(prefix.size());
    SCOPED_TRACE(name + ":" + std::to_string(line_no));
    EXPECT_EQ(round_trip(schema), schema);
  }
  return count;
}

TEST(FunctionSchemaTest, NativeFunctionsRoundTrip) {
  EXPECT_GE(round_trip_file("native_functions.yaml", "- func: "), 2);
}

// PyTorch's schemas for the operators Ember will grow into (a fixture kept beside this test).
TEST(FunctionSchemaTest, PyTorchSchemasRoundTrip) {
  EXPECT_GE(round_trip_file("test/cpp/c10/pytorch_schemas.txt", ""), 100);
}

TEST(FunctionSchemaTest, TrickyRoundTrips) {
  const std::vector<std::string> schemas = {
      "aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
      "aten::relu(Tensor self) -> Tensor",
      "__and__.Tensor(Tensor self, Tensor other) -> Tensor",
      "_foreach_add.List(Tensor[] self, Tensor[] other, *, Scalar alpha=1) -> Tensor[]",
      "_foreach_add_.List(Tensor(a!)[] self, Tensor[] other, *, Scalar alpha=1) -> ()",
      "record_stream(Tensor(a!) self, Stream s) -> ()",
      "f() -> ()",
      "f() -> Tensor",
      "f() -> (Tensor)",
      "f() -> (Tensor a)",
      "unbind.int(Tensor(a -> *) self, int dim=0) -> Tensor(a)[]",
      "f(Tensor(a! -> a|b) self) -> Tensor(a|b)",
      "f(Tensor(*) self) -> Tensor(*)",
      "f(Tensor(a|b!) x) -> Tensor(a!)",
      "topk.values(Tensor self, SymInt k, int dim=-1, bool largest=True, bool sorted=True, *, "
      "Tensor(a!) values, Tensor(b!) indices) -> (Tensor(a!) values, Tensor(b!) indices)",
      "native_layer_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight, Tensor? bias, "
      "float eps) -> (Tensor, Tensor, Tensor)",
      "index.Tensor(Tensor self, Tensor?[] indices) -> Tensor",
      "f(Tensor?[]? x=None, Tensor?[] y=[None, None]) -> Tensor",
      "f(int[2] a=0, int[2] b=[], int[1]? c=None, bool[3] d=[True, False, True]) -> Tensor",
      "f(int[2] padding=[1, 1], int[2] stride=[0,1], float[]? scales=None) -> Tensor",
      "upsample_nearest2d.vec(Tensor input, SymInt[]? output_size, float[]? scale_factors) "
      "-> Tensor",
      "gelu(Tensor self, *, str approximate='none') -> Tensor",
      "f(str reduce=\"mean\", str s='it\\'s', str e=\"a\\\"b\") -> Tensor",
      "f(str? rounding_mode=None, str sep=\",\", str close=\")\") -> Tensor",
      "f(float eps=1e-05, float a=-inf, float b=inf, float c=nan, float d=0.5, float e=-1) "
      "-> Tensor",
      "f(float x=1E+3, float y=2.5e-3, int z=-100, complex w=1) -> Tensor",
      "nll_loss(Tensor self, Tensor target, Tensor? weight=None, int reduction=Mean, "
      "SymInt ignore_index=-100) -> Tensor",
      "contiguous(Tensor(a) self, *, MemoryFormat memory_format=contiguous_format) -> Tensor(a)",
      "f(Layout layout=strided, ScalarType dtype=float, ScalarType? d2=long) -> Tensor",
      "f(Device device=\"cpu\", Device d2=cpu, Dimname n=\"N\", Any x=\"a\", "
      "Any[] y=[1, \"a\"]) -> Tensor",
      "f(Scalar alpha=1, Scalar beta=0.5, Scalar gamma=True, Scalar? min=None) -> Tensor",
      "f(*, Tensor self) -> Tensor",
      "f(Generator? generator=None, Storage? s=None, Stream? st=None) -> Tensor",
      "f(Tensor(a) self) -> (Tensor(a) values, Tensor indices)",
      "is_nonzero(Tensor self) -> bool",
      "item(Tensor self) -> Scalar",
      "f(Tensor self) -> (int, float, str, SymInt[])",
      "f(Dimname[1] dim) -> Tensor",
  };
  for (const std::string& s : schemas) {
    SCOPED_TRACE(s);
    EXPECT_EQ(round_trip(s), s);
  }
}

TEST(FunctionSchemaTest, WhitespaceIsCanonicalized) {
  EXPECT_EQ(FunctionSchema::parse("  add.Tensor(Tensor self,Tensor  other , * ,Scalar alpha = 1)"
                                  "->Tensor  ")
                .str(),
            "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor");
  EXPECT_EQ(FunctionSchema::parse("f(Tensor( a!->a | b ) x)->( Tensor ( a ) [ ] y )").str(),
            "f(Tensor(a! -> a|b) x) -> (Tensor(a)[] y)");
  EXPECT_EQ(FunctionSchema::parse("f(\tint [ 2 ] ? x=[1,\n2])\n-> ()").str(),
            "f(int[2]? x=[1,\n2]) -> ()");
}

TEST(FunctionSchemaTest, OperatorName) {
  const FunctionSchema a = FunctionSchema::parse("aten::add.Tensor(Tensor self) -> Tensor");
  EXPECT_EQ(a.name.ns, "aten");
  EXPECT_EQ(a.name.name, "add");
  EXPECT_EQ(a.name.overload, "Tensor");
  EXPECT_EQ(a.name.str(), "aten::add.Tensor");

  const FunctionSchema b = FunctionSchema::parse("__and__(Tensor self) -> Tensor");
  EXPECT_EQ(b.name.ns, "");
  EXPECT_EQ(b.name.name, "__and__");
  EXPECT_EQ(b.name.overload, "");
  EXPECT_EQ(b.name.str(), "__and__");

  EXPECT_EQ((OperatorName{"ember", "relu_", ""}).str(), "ember::relu_");
  EXPECT_EQ((OperatorName{"", "sum", "dim_IntList"}).str(), "sum.dim_IntList");
}

TEST(FunctionSchemaTest, ArgumentFields) {
  const FunctionSchema s = FunctionSchema::parse(
      "sum.IntList_out(Tensor self, int[1]? dim, bool keepdim=False, *, "
      "ScalarType? dtype=None, Tensor(a!) out) -> Tensor(a!)");
  EXPECT_EQ(s.name.overload, "IntList_out");
  ASSERT_EQ(s.arguments.size(), 5u);

  const Argument& self = s.arguments[0];
  EXPECT_EQ(self.name, "self");
  EXPECT_EQ(self.type, SchemaType{});
  EXPECT_FALSE(self.alias);
  EXPECT_FALSE(self.default_text);
  EXPECT_FALSE(self.kwarg_only);

  const Argument& dim = s.arguments[1];
  EXPECT_EQ(dim.type.base, BaseType::Int);
  EXPECT_TRUE(dim.type.is_list);
  EXPECT_EQ(dim.type.list_size, 1);
  EXPECT_TRUE(dim.type.optional);
  EXPECT_FALSE(dim.type.elem_optional);
  EXPECT_FALSE(dim.default_text);

  const Argument& keepdim = s.arguments[2];
  EXPECT_EQ(keepdim.type.base, BaseType::Bool);
  EXPECT_FALSE(keepdim.type.optional);
  EXPECT_EQ(keepdim.default_text, "False");
  EXPECT_FALSE(keepdim.kwarg_only);

  const Argument& dtype = s.arguments[3];
  EXPECT_EQ(dtype.type.base, BaseType::ScalarType);
  EXPECT_TRUE(dtype.type.optional);
  EXPECT_FALSE(dtype.type.is_list);
  EXPECT_EQ(dtype.default_text, "None");
  EXPECT_TRUE(dtype.kwarg_only);

  const Argument& out = s.arguments[4];
  EXPECT_TRUE(out.kwarg_only);
  ASSERT_TRUE(out.alias);
  EXPECT_EQ(out.alias->before, std::vector<std::string>{"a"});
  EXPECT_TRUE(out.alias->is_write);
  EXPECT_FALSE(out.alias->has_after);
  EXPECT_TRUE(out.alias->after.empty());

  ASSERT_EQ(s.returns.size(), 1u);
  EXPECT_FALSE(s.returns_parenthesized);
  EXPECT_EQ(s.returns[0].name, "");
  ASSERT_TRUE(s.returns[0].alias);
  EXPECT_TRUE(s.returns[0].alias->is_write);
  EXPECT_TRUE(s.is_mutable());
}

TEST(FunctionSchemaTest, ListAndOptionalFlags) {
  const FunctionSchema s = FunctionSchema::parse(
      "f(Tensor?[] a, float[]? b, Tensor?[]? c, SymInt[] d, bool[3] e, Tensor? g) -> Tensor");
  const SchemaType& a = s.arguments[0].type;
  EXPECT_TRUE(a.is_list && a.elem_optional && !a.optional);
  EXPECT_EQ(a.list_size, -1);
  const SchemaType& b = s.arguments[1].type;
  EXPECT_EQ(b.base, BaseType::Float);
  EXPECT_TRUE(b.is_list && !b.elem_optional && b.optional);
  const SchemaType& c = s.arguments[2].type;
  EXPECT_TRUE(c.is_list && c.elem_optional && c.optional);
  const SchemaType& d = s.arguments[3].type;
  EXPECT_EQ(d.base, BaseType::SymInt);
  EXPECT_TRUE(d.is_list && !d.optional);
  const SchemaType& e = s.arguments[4].type;
  EXPECT_EQ(e.base, BaseType::Bool);
  EXPECT_EQ(e.list_size, 3);
  const SchemaType& g = s.arguments[5].type;
  EXPECT_TRUE(!g.is_list && g.optional && !g.elem_optional);
  EXPECT_FALSE(s.is_mutable());
}

TEST(FunctionSchemaTest, AliasForms) {
  const FunctionSchema s = FunctionSchema::parse(
      "f(Tensor(a -> *) x, Tensor(a! -> a|b) y, Tensor(b)[] z) -> Tensor(a)[]");
  const AliasInfo& x = *s.arguments[0].alias;
  EXPECT_EQ(x.before, std::vector<std::string>{"a"});
  EXPECT_FALSE(x.is_write);
  EXPECT_TRUE(x.has_after);
  EXPECT_EQ(x.after, std::vector<std::string>{"*"});
  const AliasInfo& y = *s.arguments[1].alias;
  EXPECT_TRUE(y.is_write);
  EXPECT_EQ(y.after, (std::vector<std::string>{"a", "b"}));
  const Argument& z = s.arguments[2];
  EXPECT_TRUE(z.type.is_list);
  EXPECT_EQ(z.alias->before, std::vector<std::string>{"b"});
  EXPECT_TRUE(s.returns[0].type.is_list);
  EXPECT_EQ(s.returns[0].alias->before, std::vector<std::string>{"a"});
  EXPECT_TRUE(s.is_mutable());
}

TEST(FunctionSchemaTest, Returns) {
  const FunctionSchema named = FunctionSchema::parse(
      "max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)");
  EXPECT_TRUE(named.returns_parenthesized);
  ASSERT_EQ(named.returns.size(), 2u);
  EXPECT_EQ(named.returns[0].name, "values");
  EXPECT_EQ(named.returns[1].name, "indices");
  EXPECT_FALSE(named.is_mutable());

  const FunctionSchema none = FunctionSchema::parse("f(Tensor(a!) self) -> ()");
  EXPECT_TRUE(none.returns_parenthesized);
  EXPECT_TRUE(none.returns.empty());
  EXPECT_TRUE(none.is_mutable());

  const FunctionSchema one = FunctionSchema::parse("f() -> (Tensor)");
  EXPECT_TRUE(one.returns_parenthesized);
  EXPECT_EQ(one.returns.size(), 1u);
  EXPECT_TRUE(one.arguments.empty());

  // A schema built by hand prints parentheses wherever the grammar needs them.
  FunctionSchema built;
  built.name.name = "g";
  built.returns.resize(2);
  EXPECT_EQ(built.str(), "g() -> (Tensor, Tensor)");
  built.returns.resize(1);
  built.returns[0].name = "out";
  EXPECT_EQ(built.str(), "g() -> (Tensor out)");
}

TEST(FunctionSchemaTest, DefaultsAreVerbatim) {
  const FunctionSchema s = FunctionSchema::parse(
      "f(float eps=1e-05, int[2] p=[0,1], str a='none', int r=Mean, float m=-inf) -> Tensor");
  EXPECT_EQ(s.arguments[0].default_text, "1e-05");
  EXPECT_EQ(s.arguments[1].default_text, "[0,1]");
  EXPECT_EQ(s.arguments[2].default_text, "'none'");
  EXPECT_EQ(s.arguments[3].default_text, "Mean");
  EXPECT_EQ(s.arguments[4].default_text, "-inf");
}

TEST(FunctionSchemaTest, KwargOnlyPrintsOneStar) {
  FunctionSchema s = FunctionSchema::parse("f(Tensor a, *, Tensor b, Tensor c) -> Tensor");
  EXPECT_FALSE(s.arguments[0].kwarg_only);
  EXPECT_TRUE(s.arguments[1].kwarg_only);
  EXPECT_TRUE(s.arguments[2].kwarg_only);
  s.arguments[0].kwarg_only = true;
  EXPECT_EQ(s.str(), "f(*, Tensor a, Tensor b, Tensor c) -> Tensor");
}

TEST(FunctionSchemaTest, EveryBaseTypeParses) {
  const BaseType all[] = {
      BaseType::Tensor,     BaseType::Int,       BaseType::SymInt,       BaseType::Float,
      BaseType::Bool,       BaseType::Str,       BaseType::Scalar,       BaseType::ScalarType,
      BaseType::Device,     BaseType::Layout,    BaseType::MemoryFormat, BaseType::Generator,
      BaseType::Dimname,    BaseType::Storage,   BaseType::Stream,       BaseType::Complex,
      BaseType::Any,
  };
  for (BaseType t : all) {
    const std::string schema = std::string("f(") + base_type_name(t) + " x) -> " +
                               base_type_name(t) + "[]";
    SCOPED_TRACE(schema);
    const FunctionSchema s = FunctionSchema::parse(schema);
    EXPECT_EQ(s.arguments[0].type.base, t);
    EXPECT_EQ(s.returns[0].type.base, t);
    EXPECT_EQ(s.str(), schema);
  }
  EXPECT_STREQ(base_type_name(BaseType::Complex), "complex");
  EXPECT_STREQ(base_type_name(BaseType::SymInt), "SymInt");
}

struct BadSchema {
  const char* schema;
  const char* fragment;
};

TEST(FunctionSchemaTest, BadSchemasThrow) {
  const BadSchema cases[] = {
      {"", "expected an operator name at column 1, but got end of input"},
      {"(Tensor self) -> Tensor", "expected an operator name at column 1"},
      {".Tensor(Tensor self) -> Tensor", "expected an operator name at column 1"},
      {"aten::(Tensor self) -> Tensor", "expected an operator name after '::' at column 7"},
      {"add.(Tensor self) -> Tensor", "expected an overload name after '.' at column 5"},
      {"add.Tensor Tensor self) -> Tensor",
       "expected '(' after the operator name at column 12"},
      {"a::b::c(Tensor self) -> Tensor", "expected '(' after the operator name at column 5"},
      {"add.Tensor(Tensor self Tensor other) -> Tensor",
       "expected ')' after the arguments at column 24"},
      {"add(Tensor self", "expected ')' after the arguments at column 16, but got end of input"},
      {"add(Tensor, Tensor other) -> Tensor",
       "expected an argument name after the type at column 11"},
      {"add(Tensor self, Tensor self) -> Tensor", "duplicate argument name 'self' at column 25"},
      {"add(Tensr self) -> Tensor", "unknown type 'Tensr' at column 5"},
      {"add(Tensor self) -> Tenser", "unknown type 'Tenser' at column 21"},
      {"add(Tensor self, ) -> Tensor", "expected an argument type at column 18"},
      {"add(Tensor self,, Tensor b) -> Tensor", "expected an argument type at column 17"},
      {"add(Tensor self) Tensor", "expected '->' after the arguments at column 18"},
      {"add(Tensor self)", "expected '->' after the arguments at column 17"},
      {"add(Tensor self) ->", "expected a return type at column 20, but got end of input"},
      {"add(Tensor self) -> Tensor garbage", "named return to be written in parentheses"},
      {"add(Tensor self) -> Tensor )", "expected the end of the schema after the returns at "
                                       "column 28"},
      {"add(Tensor self) -> (Tensor, Tensor", "expected ')' after the returns at column 36"},
      {"add(Tensor self) -> (Tensor a, Tensor a)", "duplicate return name 'a' at column 39"},
      {"add(Tensor self) -> (Tensor a=1)", "expected no default on a return at column 30"},
      {"f(Tensor a, *, *, Tensor b) -> Tensor", "expected '*' to appear only once at column 16"},
      {"f(Tensor a, *) -> Tensor", "expected keyword-only arguments after '*' at column 14"},
      {"f(Tensor a, * Tensor b) -> Tensor", "expected ',' after '*' at column 15"},
      {"f(str s=\"mean) -> Tensor", "unterminated string at column 9"},
      {"f(str s='mean) -> Tensor", "unterminated string at column 9"},
      {"f(int x=\"a\") -> Tensor",
       "expected the default of 'x' to fit its type 'int' at column 9, but got '\"a\"'"},
      {"f(bool b=1.5) -> Tensor",
       "expected the default of 'b' to fit its type 'bool' at column 10"},
      {"f(bool b=1) -> Tensor", "to fit its type 'bool' at column 10"},
      {"f(int x=1.0) -> Tensor", "to fit its type 'int' at column 9"},
      {"f(int x=True) -> Tensor", "to fit its type 'int' at column 9"},
      {"f(float x=Mean) -> Tensor", "to fit its type 'float' at column 11"},
      {"f(str x=none) -> Tensor", "to fit its type 'str' at column 9"},
      {"f(ScalarType t=1) -> Tensor", "to fit its type 'ScalarType' at column 16"},
      {"f(Tensor x=None) -> Tensor",
       "expected None to be the default only of an optional type (like 'Tensor?') at column 12"},
      {"f(int[] x=None) -> Tensor", "(like 'int[]?') at column 11"},
      {"f(Tensor x=1) -> Tensor", "to fit its type 'Tensor' at column 12"},
      {"f(Generator g=1) -> Tensor", "to fit its type 'Generator' at column 15"},
      {"f(int[] x=[1.5]) -> Tensor", "to fit its type 'int[]' at column 12, but got '1.5'"},
      {"f(int[] x=[1, None]) -> Tensor", "to fit its type 'int[]' at column 15"},
      {"f(int[] x=1) -> Tensor", "to fit its type 'int[]' at column 11"},
      {"f(int x=[1]) -> Tensor", "to fit its type 'int' at column 9, but got a list"},
      {"f(int[2] x=[1, 2) -> Tensor", "expected ',' or ']' in the default list at column 17"},
      {"f(int x=) -> Tensor", "expected a default value at column 9"},
      {"f(int x=- 1) -> Tensor", "expected a number after '-' at column 9"},
      {"f(int x=1abc) -> Tensor", "malformed number at column 9, but got '1abc'"},
      {"f(float x=1.2.3) -> Tensor", "malformed number at column 11"},
      {"f(int x=1 2) -> Tensor", "expected ')' after the arguments at column 11"},
      {"f(int[2 x) -> Tensor", "expected ']' after the list size at column 9"},
      {"f(int[ x) -> Tensor",
       "expected ']' or a positive integer list size after '[' at column 8"},
      {"f(int[0] x) -> Tensor", "expected the list size to be a positive integer at column 7"},
      {"f(int[-1] x) -> Tensor", "list size after '[' at column 7, but got '-'"},
      {"f(int[1.5] x) -> Tensor", "expected the list size to be a positive integer at column 7"},
      {"f(int[99999999999999999999] x) -> Tensor", "positive integer at column 7"},
      {"f(int[][] x) -> Tensor", "expected no nested list type at column 8"},
      {"f(Tensor() x) -> Tensor", "expected an alias set (like 'a' or '*') in the alias "
                                  "annotation at column 10, but got ')'"},
      {"f(Tensor(a x) -> Tensor", "expected ')' to close the alias annotation at column 12"},
      {"f(Tensor(a ->) x) -> Tensor", "expected an alias set (like 'a' or '*') in the alias "
                                      "annotation at column 14"},
      {"f(Tensor(a|) x) -> Tensor", "alias annotation at column 12"},
      {"f(Tensor(!) x) -> Tensor", "alias annotation at column 10"},
      {"f(Tensor(a!!) x) -> Tensor", "expected ')' to close the alias annotation at column 12"},
      {"f(Tensor?(a) x) -> Tensor",
       "expected the alias annotation right after the base type name at column 10"},
      {"f(Tensor?? x) -> Tensor", "expected '?' to appear only once at column 10"},
      {"f(int[]?? x) -> Tensor", "expected '?' to appear only once at column 9"},
      {"f(Tensor @x) -> Tensor", "unexpected character at column 10, but got '@'"},
      {"f(Tensor x) -> Tensor\x01", "unexpected character at column 22, but got byte 0x01"},
      {"f(Tensor x\xc3\xa9) -> Tensor", "unexpected character at column 11, but got byte 0xc3"},
  };
  for (const BadSchema& c : cases) {
    SCOPED_TRACE(c.schema);
    try {
      FunctionSchema::parse(c.schema);
      ADD_FAILURE() << "no error for: " << c.schema;
    } catch (const ValueError& e) {
      const std::string message = e.what();
      EXPECT_EQ(message.rfind("invalid schema: ", 0), 0u) << message;
      EXPECT_NE(message.find(c.fragment), std::string::npos)
          << "expected fragment: " << c.fragment << "\nactual message: " << message;
    }
  }
}

TEST(FunctionSchemaTest, ErrorShowsCaret) {
  try {
    FunctionSchema::parse("add.Tensor(Tensor self Tensor other) -> Tensor");
    FAIL() << "no error";
  } catch (const ValueError& e) {
    EXPECT_EQ(std::string(e.what()),
              "invalid schema: expected ')' after the arguments at column 24, but got 'Tensor'\n"
              "  add.Tensor(Tensor self Tensor other) -> Tensor\n"
              "                         ^");
  }
  // Tabs and newlines print as spaces so the caret stays under its column.
  try {
    FunctionSchema::parse("f(\tTensr x)\n-> Tensor");
    FAIL() << "no error";
  } catch (const ValueError& e) {
    EXPECT_EQ(std::string(e.what()),
              "invalid schema: unknown type 'Tensr' at column 4\n"
              "  f( Tensr x) -> Tensor\n"
              "     ^");
  }
  // An error at the end of the input puts the caret just past the last character.
  try {
    FunctionSchema::parse("f(Tensor x)");
    FAIL() << "no error";
  } catch (const ValueError& e) {
    EXPECT_EQ(std::string(e.what()),
              "invalid schema: expected '->' after the arguments at column 12, but got end of "
              "input\n"
              "  f(Tensor x)\n"
              "             ^");
  }
}

}  // namespace
}  // namespace ember
