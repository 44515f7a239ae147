#include "c10/dispatch/FunctionSchema.h"

#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "c10/core/Layout.h"
#include "c10/core/MemoryFormat.h"
#include "c10/core/Reduction.h"
#include "c10/core/ScalarType.h"
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

// The value of argument i's default (failing the test when it has none).
IValue default_of(const FunctionSchema& s, size_t i) {
  const Argument& a = s.arguments.at(i);
  EXPECT_TRUE(a.default_value.has_value()) << "no value for the default of " << a.name;
  return a.default_value.value_or(IValue());
}

TEST(FunctionSchemaTest, NumberDefaultsAreTyped) {
  const FunctionSchema s = FunctionSchema::parse(
      "f(int a=-2, SymInt b=1, float c=1e-05, float d=inf, float e=-inf, float g=nan, "
      "float h=2, float k=1E+3, bool i=True, bool j=False, complex w=1, int? n=None) -> Tensor");
  EXPECT_EQ(default_of(s, 0).to_int(), -2);
  EXPECT_EQ(default_of(s, 1).to_int(), 1);
  ASSERT_TRUE(default_of(s, 2).is_double());
  EXPECT_EQ(default_of(s, 2).to_double(), 1e-05);
  EXPECT_EQ(default_of(s, 3).to_double(), std::numeric_limits<double>::infinity());
  EXPECT_EQ(default_of(s, 4).to_double(), -std::numeric_limits<double>::infinity());
  EXPECT_TRUE(std::isnan(default_of(s, 5).to_double()));
  // An int written for a float is the float: `float h=2` boxes as 2.0.
  ASSERT_TRUE(default_of(s, 6).is_double());
  EXPECT_EQ(default_of(s, 6).to_double(), 2.0);
  EXPECT_EQ(default_of(s, 7).to_double(), 1000.0);
  EXPECT_TRUE(default_of(s, 8).to_bool());
  ASSERT_TRUE(default_of(s, 9).is_bool());
  EXPECT_FALSE(default_of(s, 9).to_bool());
  EXPECT_EQ(default_of(s, 10).to_complex(), std::complex<double>(1.0, 0.0));
  EXPECT_TRUE(default_of(s, 11).is_none());
}

TEST(FunctionSchemaTest, ScalarDefaultsKeepTheirKind) {
  const FunctionSchema s = FunctionSchema::parse(
      "f(Scalar a=1, Scalar b=0.5, Scalar c=True, Scalar d=-1, Scalar? e=None) -> Tensor");
  ASSERT_TRUE(default_of(s, 0).is_int());
  EXPECT_EQ(default_of(s, 0).to_int(), 1);
  ASSERT_TRUE(default_of(s, 1).is_double());
  EXPECT_EQ(default_of(s, 1).to_double(), 0.5);
  ASSERT_TRUE(default_of(s, 2).is_bool());
  EXPECT_EQ(default_of(s, 3).to_int(), -1);
  EXPECT_TRUE(default_of(s, 4).is_none());
}

TEST(FunctionSchemaTest, ListDefaultsAreTyped) {
  const FunctionSchema s = FunctionSchema::parse(
      "f(int[2] p=1, int[3] z=0, int[] q=[0, 1], int[] r=[-2,-1], int[1] dim=[], "
      "float[] f=[0.5, 2], bool[3] m=[True, False, True], int[2]? o=None, Tensor[] t=[], "
      "SymInt[2] s=[1, 2]) -> Tensor");
  // One element for all N: `int[2] p=1` is [1, 1].
  EXPECT_EQ(default_of(s, 0).to_int_list(), (std::vector<int64_t>{1, 1}));
  EXPECT_EQ(default_of(s, 1).to_int_list(), (std::vector<int64_t>{0, 0, 0}));
  EXPECT_EQ(default_of(s, 2).to_int_list(), (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(default_of(s, 3).to_int_list(), (std::vector<int64_t>{-2, -1}));
  ASSERT_TRUE(default_of(s, 4).is_int_list());
  EXPECT_TRUE(default_of(s, 4).to_int_list().empty());
  EXPECT_EQ(default_of(s, 5).to_double_list(), (std::vector<double>{0.5, 2.0}));
  EXPECT_EQ(default_of(s, 6).to_bool_list(), (std::vector<bool>{true, false, true}));
  EXPECT_TRUE(default_of(s, 7).is_none());
  ASSERT_TRUE(default_of(s, 8).is_tensor_list());
  EXPECT_TRUE(default_of(s, 8).to_tensor_list().empty());
  EXPECT_EQ(default_of(s, 9).to_int_list(), (std::vector<int64_t>{1, 2}));
}

TEST(FunctionSchemaTest, StringDefaultsLoseQuotesAndEscapes) {
  const FunctionSchema s = FunctionSchema::parse(
      "f(str a='none', str b=\"it's\", str c='a\\'b', str d=\"x\\\\y\", str? e=None) -> Tensor");
  EXPECT_EQ(default_of(s, 0).to_string(), "none");
  EXPECT_EQ(default_of(s, 1).to_string(), "it's");
  EXPECT_EQ(default_of(s, 2).to_string(), "a'b");
  EXPECT_EQ(default_of(s, 3).to_string(), "x\\y");
  EXPECT_TRUE(default_of(s, 4).is_none());
  EXPECT_EQ(s.arguments[2].default_text, "'a\\'b'");
}

TEST(FunctionSchemaTest, EnumDefaultsAreTyped) {
  const FunctionSchema s = FunctionSchema::parse(
      "f(ScalarType d=long, ScalarType e=float32, ScalarType? n=None, Layout l=strided, "
      "MemoryFormat m=contiguous_format, MemoryFormat c=channels_last, "
      "MemoryFormat p=preserve_format, int r=Mean, int u=Sum, SymInt v=Mean, "
      "Device dev=\"cpu\", Device d2=cpu, Device? d3=None) -> Tensor");
  EXPECT_EQ(default_of(s, 0).to_scalar_type(), ScalarType::Long);
  EXPECT_EQ(default_of(s, 1).to_scalar_type(), ScalarType::Float);
  EXPECT_TRUE(default_of(s, 2).is_none());
  EXPECT_EQ(default_of(s, 3).to_layout(), Layout::Strided);
  // Memory formats box as ints, as PyTorch's.
  EXPECT_EQ(default_of(s, 4).to_int(), static_cast<int64_t>(MemoryFormat::Contiguous));
  EXPECT_EQ(default_of(s, 5).to_int(), static_cast<int64_t>(MemoryFormat::ChannelsLast));
  EXPECT_EQ(default_of(s, 6).to_int(), static_cast<int64_t>(MemoryFormat::Preserve));
  EXPECT_EQ(default_of(s, 7).to_int(), Reduction::Mean);
  EXPECT_EQ(default_of(s, 8).to_int(), Reduction::Sum);
  EXPECT_EQ(default_of(s, 9).to_int(), 1);
  EXPECT_EQ(default_of(s, 10).to_device(), Device(DeviceType::CPU));
  EXPECT_EQ(default_of(s, 11).to_device(), Device(DeviceType::CPU));
  EXPECT_TRUE(default_of(s, 12).is_none());
  EXPECT_EQ(s.arguments[7].default_text, "Mean");
}

TEST(FunctionSchemaTest, EnumNamesAreDefinedOnce) {
  // The lookups the parser uses, and the spellings codegen/cpp.py maps to enumerators.
  EXPECT_EQ(Reduction::None, 0);
  EXPECT_EQ(Reduction::Mean, 1);
  EXPECT_EQ(Reduction::Sum, 2);
  EXPECT_EQ(parse_reduction_schema_name("Mean"), Reduction::Mean);
  EXPECT_EQ(parse_reduction_schema_name("Sum"), Reduction::Sum);
  EXPECT_EQ(parse_reduction_schema_name("None"), std::nullopt);
  EXPECT_STREQ(reduction_name(Reduction::None), "none");
  EXPECT_STREQ(reduction_name(Reduction::Mean), "mean");
  EXPECT_STREQ(reduction_name(Reduction::Sum), "sum");
  EXPECT_EQ(reduction_name(3), nullptr);
  for (int i = 0; i < kNumMemoryFormats; ++i) {
    const auto m = static_cast<MemoryFormat>(i);
    EXPECT_EQ(parse_memory_format(memory_format_name(m)), m);
  }
  EXPECT_STREQ(memory_format_name(MemoryFormat::ChannelsLast3d), "channels_last_3d");
  for (int i = 0; i < kNumLayouts; ++i) {
    const auto l = static_cast<Layout>(i);
    EXPECT_EQ(parse_layout(layout_short_name(l)), l);
    EXPECT_EQ(std::string(layout_name(l)), std::string("torch.") + layout_short_name(l));
  }
  for (const ScalarTypeName& n : scalar_type_names()) {
    EXPECT_EQ(parse_scalar_type(n.name), n.type) << n.name;
  }
}

TEST(FunctionSchemaTest, DefaultsWithoutAValueArePrintedOnly) {
  // Types no IValue holds keep the default as text only.
  const FunctionSchema s = FunctionSchema::parse(
      "f(Dimname n=\"N\", Tensor?[] y=[None, None], Any[] z=[1, \"a\"], Tensor x, "
      "Any w=\"a\") -> Tensor");
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_TRUE(s.arguments[i].default_text.has_value()) << i;
    EXPECT_FALSE(s.arguments[i].default_value.has_value()) << i;
  }
  EXPECT_FALSE(s.arguments[3].default_text.has_value());
  EXPECT_FALSE(s.arguments[3].default_value.has_value());
  EXPECT_EQ(default_of(s, 4).to_string(), "a");
}

TEST(FunctionSchemaTest, NativeFunctionsDefaultsAllHaveValues) {
  // Every default the YAML writes boxes (boxed calls and the Python parser rely on it).
  const std::string path = std::string(EMBER_SOURCE_DIR) + "/native_functions.yaml";
  std::ifstream in(path);
  ASSERT_TRUE(in) << "cannot open " << path;
  std::string line;
  int defaults = 0;
  while (std::getline(in, line)) {
    if (line.rfind("- func: ", 0) != 0) continue;
    const FunctionSchema s = FunctionSchema::parse(line.substr(8));
    for (const Argument& a : s.arguments) {
      if (!a.default_text) continue;
      ++defaults;
      EXPECT_TRUE(a.default_value.has_value()) << s.name.str() << ": " << a.name;
    }
  }
  EXPECT_GE(defaults, 100);
}

TEST(FunctionSchemaTest, ParsesSignaturesWithoutReturns) {
  const FunctionSchema s = FunctionSchema::parse_without_returns(
      "zeros(int[] size, *, ScalarType? dtype=None, MemoryFormat memory_format=preserve_format, "
      "bool requires_grad=False)");
  EXPECT_EQ(s.name.name, "zeros");
  ASSERT_EQ(s.arguments.size(), 4u);
  EXPECT_TRUE(s.returns.empty());
  EXPECT_TRUE(s.arguments[1].kwarg_only);
  EXPECT_EQ(default_of(s, 2).to_int(), static_cast<int64_t>(MemoryFormat::Preserve));
  EXPECT_FALSE(default_of(s, 3).to_bool());
  try {
    FunctionSchema::parse_without_returns("f(Tensor x) -> Tensor");
    FAIL() << "no error";
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find(
                  "expected the end of the signature after the arguments at column 13"),
              std::string::npos)
        << e.what();
  }
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
      // Defaults that fit the type's literals but name or hold nothing (Note [Typed defaults]).
      {"f(ScalarType t=foo) -> Tensor", "expected the default of 't' to name a dtype (like "
                                        "'float' or 'long') at column 16, but got 'foo'"},
      {"f(ScalarType? t=float33) -> Tensor",
       "to name a dtype (like 'float' or 'long') at column 17"},
      {"f(int r=Average) -> Tensor", "expected the default of 'r' to be an int or a reduction "
                                     "(Mean or Sum) at column 9, but got 'Average'"},
      {"f(int r=mean) -> Tensor", "to be an int or a reduction (Mean or Sum) at column 9"},
      {"f(int[] r=[0, Bogus]) -> Tensor", "to be an int or a reduction (Mean or Sum) at column 15"},
      {"f(MemoryFormat m=channels_first) -> Tensor",
       "expected the default of 'm' to name a memory format (like 'contiguous_format') at column "
       "18, but got 'channels_first'"},
      {"f(Layout l=dense) -> Tensor", "expected the default of 'l' to name a layout (like "
                                      "'strided') at column 12, but got 'dense'"},
      {"f(Device d=\"gpu\") -> Tensor", "expected the default of 'd' to name a device"},
      {"f(Device d=cuda:0) -> Tensor", "unexpected character at column 16, but got ':'"},
      {"f(int x=99999999999999999999) -> Tensor",
       "expected the default of 'x' to fit in int64 at column 9, but got '99999999999999999999'"},
      {"f(int[] x=[-99999999999999999999]) -> Tensor", "to fit in int64 at column 12"},
      {"f(float x=1e999) -> Tensor", "expected the default of 'x' to be a float in range (or inf, "
                                     "-inf, nan) at column 11, but got '1e999'"},
      {"f(int[2] p=[1, 2, 3]) -> Tensor",
       "expected the default of 'p' to have 2 elements (or none) at column 12, but got 3"},
      {"f(bool[3] m=[True]) -> Tensor", "to have 3 elements (or none) at column 13, but got 1"},
      {"f(Any x=foo) -> Tensor",
       "expected the default of 'x' to be a number, a bool or a string at column 9"},
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
