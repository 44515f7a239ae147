// Calls through the dispatcher: unboxed and boxed, each into the other kind of kernel;
// redispatch; fallthrough and fallbacks; registration errors and their rollback.
#include <gtest/gtest.h>

#include <atomic>
#include <fstream>

#include "dispatch_test_util.h"

namespace ember {
namespace {

using testing::tensor_on;
using K = DispatchKey;

std::string last_called;

Tensor add_cpu(const Tensor& a, const Tensor& b, const Scalar& alpha) {
  last_called = "add_cpu alpha=" + str(alpha);
  return a;
}
Tensor add_meta(const Tensor& a, const Tensor& b, const Scalar& alpha) {
  last_called = "add_meta";
  return b;
}
// A boxed kernel: reads (a, b, alpha) from the stack, returns b.
void add_boxed(const OperatorHandle& op, DispatchKeySet keys, Stack* stack) {
  last_called = "add_boxed alpha=" + str(stack->back().to_scalar()) + " key=" +
                dispatch_key_name(keys.highest());
  Tensor b = (*stack)[stack->size() - 2].to_tensor();
  stack->resize(stack->size() - 3);
  stack->emplace_back(std::move(b));
}

// A layer kernel that records and redispatches below itself.
std::vector<std::string> trace;
Tensor add_tracer(DispatchKeySet keys, const Tensor& a, const Tensor& b, const Scalar& alpha) {
  trace.push_back(str("tracer saw ", keys));
  static auto op = Dispatcher::singleton().find_op_or_throw("dt::add")
                       .typed<Tensor(const Tensor&, const Tensor&, const Scalar&)>();
  return op.redispatch(keys.below(K::Tracer), a, b, alpha);
}

class DispatcherTest : public ::testing::Test {
 protected:
  void SetUp() override {
    last_called.clear();
    lib_.def("add(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor");
  }
  OperatorHandle op() { return Dispatcher::singleton().find_op_or_throw("dt::add"); }
  auto typed() { return op().typed<Tensor(const Tensor&, const Tensor&, const Scalar&)>(); }
  Library lib_{Library::Kind::Def, "dt", std::nullopt, __FILE__, __LINE__};
};

TEST_F(DispatcherTest, UnboxedCallReachesUnboxedKernel) {
  lib_.impl("add", K::CPU, &add_cpu);
  Tensor a = tensor_on(Device("cpu")), b = tensor_on(Device("cpu"));
  Tensor r = typed().call(a, b, 2);
  EXPECT_EQ(last_called, "add_cpu alpha=2");
  EXPECT_TRUE(r.is_same(a));
}

TEST_F(DispatcherTest, CompileTimeKernelsWorkUnboxedBoxedAndWithKeys) {
  lib_.impl("add", K::CPU, EMBER_FN(add_cpu));
  lib_.impl("add", K::Tracer, EMBER_FN(add_tracer));
  EXPECT_EQ(op().entry().lookup(K::CPU).fn, reinterpret_cast<void*>(&add_cpu));
  Tensor a = tensor_on(Device("cpu"));
  EXPECT_TRUE(typed().call(a, tensor_on(Device("cpu")), 6).is_same(a));
  EXPECT_EQ(last_called, "add_cpu alpha=6");
  Stack stack{IValue(a), IValue(a), IValue(2.0)};
  trace.clear();
  IncludeDispatchKeyGuard g(K::Tracer);
  op().call_boxed(&stack);
  EXPECT_EQ(last_called, "add_cpu alpha=2");
  EXPECT_EQ(trace.size(), 1u);
  ASSERT_EQ(stack.size(), 1u);
  EXPECT_TRUE(stack[0].to_tensor().is_same(a));
}

TEST_F(DispatcherTest, KeysOfAllTensorArgumentsCount) {
  lib_.impl("add", K::CPU, &add_cpu);
  lib_.impl("add", K::Meta, &add_meta);
  // Meta outranks CPU, so a mixed call goes to Meta.
  typed().call(tensor_on(Device("cpu")), tensor_on(Device("meta")), 1);
  EXPECT_EQ(last_called, "add_meta");
  EXPECT_EQ(typed().dispatch_keys(tensor_on(Device("cpu")), Tensor(), 1), DispatchKeySet(K::CPU));
}

TEST_F(DispatcherTest, BoxedCallReachesUnboxedKernel) {
  lib_.impl("add", K::CPU, &add_cpu);
  Tensor a = tensor_on(Device("cpu"));
  Stack stack{IValue(a), IValue(tensor_on(Device("cpu"))), IValue(3.5)};
  op().call_boxed(&stack);
  EXPECT_EQ(last_called, "add_cpu alpha=3.5");
  ASSERT_EQ(stack.size(), 1u);
  EXPECT_TRUE(stack[0].to_tensor().is_same(a));
}

TEST_F(DispatcherTest, BoxedCallFillsDefaults) {
  lib_.impl("add", K::CPU, &add_cpu);
  Stack stack{IValue(tensor_on(Device("cpu"))), IValue(tensor_on(Device("cpu")))};
  op().call_boxed(&stack);
  EXPECT_EQ(last_called, "add_cpu alpha=1");
}

TEST_F(DispatcherTest, UnboxedCallReachesBoxedKernel) {
  lib_.impl("add", K::CPU, CppFunction::boxed(&add_boxed));
  Tensor b = tensor_on(Device("cpu"));
  Tensor r = typed().call(tensor_on(Device("cpu")), b, 4);
  EXPECT_EQ(last_called, "add_boxed alpha=4 key=CPU");
  EXPECT_TRUE(r.is_same(b));
}

TEST_F(DispatcherTest, BoxedCallReachesBoxedKernel) {
  lib_.impl("add", K::CPU, CppFunction::boxed(&add_boxed));
  Stack stack{IValue(tensor_on(Device("cpu"))), IValue(tensor_on(Device("cpu"))), IValue(int64_t{7})};
  op().call_boxed(&stack);
  EXPECT_EQ(last_called, "add_boxed alpha=7 key=CPU");
  EXPECT_EQ(stack.size(), 1u);
}

TEST_F(DispatcherTest, RedispatchGoesBelowTheCallingLayer) {
  lib_.impl("add", K::CPU, &add_cpu);
  lib_.impl("add", K::Tracer, &add_tracer);
  trace.clear();
  typed().call(tensor_on(Device("cpu")), tensor_on(Device("cpu")), 1);
  EXPECT_TRUE(trace.empty()) << "Tracer is not in the key set unless TLS includes it";
  {
    IncludeDispatchKeyGuard g(K::Tracer);
    typed().call(tensor_on(Device("cpu")), tensor_on(Device("cpu")), 1);
  }
  ASSERT_EQ(trace.size(), 1u);
  EXPECT_EQ(trace[0], "tracer saw DispatchKeySet(CPU, Tracer)");
  EXPECT_EQ(last_called, "add_cpu alpha=1");
}

TEST_F(DispatcherTest, ExcludedKeysAreSkipped) {
  lib_.impl("add", K::CPU, &add_cpu);
  lib_.impl("add", K::Meta, &add_meta);
  ExcludeDispatchKeyGuard g(K::Meta);
  typed().call(tensor_on(Device("meta")), tensor_on(Device("cpu")), 1);
  EXPECT_EQ(last_called, "add_cpu alpha=1");
}

// A boxed fallback that records the op and redispatches below itself.
std::vector<std::string> fallback_log;
void tracing_fallback(const OperatorHandle& op, DispatchKeySet keys, Stack* stack) {
  fallback_log.push_back(op.name().str());
  op.redispatch_boxed(keys.below(K::Tracer), stack);
}

TEST_F(DispatcherTest, BoxedFallbackServesEveryOpAndFallthroughSkipsIt) {
  lib_.def("sub(Tensor self, Tensor other) -> Tensor");
  lib_.impl("add", K::CPU, &add_cpu);
  lib_.impl("sub", K::CPU, +[](const Tensor& a, const Tensor&) { return a; });
  Library tracer(Library::Kind::Impl, "_", K::Tracer, __FILE__, __LINE__);
  tracer.fallback(CppFunction::boxed(&tracing_fallback));
  Library skip(Library::Kind::Impl, "dt", K::Tracer, __FILE__, __LINE__);
  skip.impl("sub", CppFunction::fallthrough());
  fallback_log.clear();
  IncludeDispatchKeyGuard g(K::Tracer);
  Tensor r = typed().call(tensor_on(Device("cpu")), tensor_on(Device("cpu")), 5);
  EXPECT_EQ(last_called, "add_cpu alpha=5");
  auto sub = Dispatcher::singleton().find_op_or_throw("dt::sub").typed<Tensor(const Tensor&, const Tensor&)>();
  sub.call(tensor_on(Device("cpu")), tensor_on(Device("cpu")));
  EXPECT_EQ(fallback_log, std::vector<std::string>{"dt::add"});
  EXPECT_FALSE(sub.entry().mask().has(K::Tracer));
  EXPECT_TRUE(typed().entry().mask().has(K::Tracer));
}

TEST_F(DispatcherTest, MissingKernelNamesOpKeyAndTheKeysThatHaveKernels) {
  lib_.impl("add", K::CPU, &add_cpu);
  try {
    typed().call(tensor_on(Device("cuda")), tensor_on(Device("cuda")), 1);
    FAIL() << "expected an error";
  } catch (const NotImplementedError& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("dt::add"), std::string::npos) << m;
    EXPECT_NE(m.find("no kernel for dispatch key CUDA"), std::string::npos) << m;
    EXPECT_NE(m.find("registered for: CPU"), std::string::npos) << m;
    EXPECT_NE(m.find("EMBER_LIBRARY_IMPL(dt, CUDA, m)"), std::string::npos) << m;
  }
  // The same through the boxed path.
  Stack stack{IValue(tensor_on(Device("cuda"))), IValue(tensor_on(Device("cuda")))};
  EXPECT_THROW(op().call_boxed(&stack), NotImplementedError);
}

TEST_F(DispatcherTest, NoTensorArgumentsGivesAClearError) {
  lib_.def("make(int n) -> Tensor");
  lib_.impl("make", K::CPU, +[](int64_t) { return Tensor(); });
  auto make = Dispatcher::singleton().find_op_or_throw("dt::make").typed<Tensor(int64_t)>();
  try {
    make.call(3);
    FAIL();
  } catch (const NotImplementedError& e) {
    EXPECT_NE(std::string(e.what()).find("no defined tensor argument"), std::string::npos) << e.what();
  }
}

TEST_F(DispatcherTest, UnknownOperator) {
  EXPECT_EQ(Dispatcher::singleton().find_op("dt::nope"), std::nullopt);
  try {
    Dispatcher::singleton().find_op_or_throw("dt::ad");
    FAIL();
  } catch (const ValueError& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("unknown operator 'dt::ad'"), std::string::npos) << m;
    EXPECT_NE(m.find("did you mean: dt::add"), std::string::npos) << m;
  }
}

TEST_F(DispatcherTest, SecondKernelForSameKeyInOneLibraryIsRefused) {
  lib_.impl("add", K::CPU, &add_cpu);
  try {
    lib_.impl("add", K::CPU, &add_meta);
    FAIL();
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("already registered by this library"), std::string::npos);
  }
  typed().call(tensor_on(Device("cpu")), tensor_on(Device("cpu")), 1);
  EXPECT_EQ(last_called, "add_cpu alpha=1") << "the refused kernel must not be in the table";
}

TEST_F(DispatcherTest, SignatureMismatchIsRefusedWithBothSignatures) {
  try {
    lib_.impl("add", K::CPU, +[](const Tensor& a, const Tensor&) { return a; });
    FAIL();
  } catch (const TypeError& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("(Tensor, Tensor) -> Tensor"), std::string::npos) << m;
    EXPECT_NE(m.find("(Tensor, Tensor, Scalar) -> Tensor"), std::string::npos) << m;
  }
  EXPECT_TRUE(op().entry().registered_keys().empty());
  EXPECT_THROW((op().typed<Tensor(const Tensor&)>()), TypeError);
  EXPECT_THROW((op().typed<void(const Tensor&, const Tensor&, const Scalar&)>()), TypeError);
}

TEST(CppSignature, SpellsTheSchemaTypesOfEveryReturnShape) {
  // Note [Signature names]: the names are compile-time arrays joined by one function.
  EXPECT_EQ((sig::Signature<Tensor(const Tensor&, const Scalar&)>::str()), "(Tensor, Scalar) -> Tensor");
  EXPECT_EQ((sig::Signature<void(Tensor&)>::str()), "(Tensor) -> ()");
  EXPECT_EQ((sig::Signature<void()>::str()), "() -> ()");
  EXPECT_EQ((sig::Signature<std::tuple<Tensor, Tensor&>(DispatchKeySet, const Tensor&,
                                                         std::optional<int64_t>)>::str()),
            "(Tensor, int?) -> (Tensor, Tensor)");
  EXPECT_EQ((sig::Signature<std::vector<Tensor>(TensorList, IntArrayRef)>::str()),
            "(Tensor[], int[]) -> Tensor[]");
}

TEST_F(DispatcherTest, KernelSpellingsThatMapToTheSameSchemaTypesAreAccepted) {
  // By-value Tensor, Scalar by value, int64_t for an int: all the canonical convention.
  lib_.def("mix(Tensor self, int n, float x, int[] sizes, Tensor? maybe, str mode) -> Tensor");
  lib_.impl("mix", K::CPU,
            +[](Tensor self, int64_t n, double x, IntArrayRef sizes, const std::optional<Tensor>& maybe,
                std::string_view mode) {
              last_called = str("mix n=", n, " x=", x, " sizes=", sizes, " maybe=", maybe.has_value(),
                                " mode=", mode);
              return self;
            });
  auto mix = Dispatcher::singleton().find_op_or_throw("dt::mix")
                 .typed<Tensor(const Tensor&, int64_t, double, IntArrayRef, const std::optional<Tensor>&,
                               std::string_view)>();
  mix.call(tensor_on(Device("cpu")), 2, 0.5, {1, 2}, std::nullopt, "fast");
  EXPECT_EQ(last_called, "mix n=2 x=0.5 sizes=[1, 2] maybe=0 mode=fast");
  Stack stack{IValue(tensor_on(Device("cpu"))), IValue(3), IValue(1), IValue(std::vector<int64_t>{4}),
              IValue(tensor_on(Device("cpu"))), IValue("slow")};
  Dispatcher::singleton().find_op_or_throw("dt::mix").call_boxed(&stack);
  EXPECT_EQ(last_called, "mix n=3 x=1 sizes=[4] maybe=1 mode=slow");
}

TEST_F(DispatcherTest, BoxedCallWithWrongArgumentsIsRefusedBeforeAnyKernelRuns) {
  lib_.impl("add", K::CPU, &add_cpu);
  Tensor t = tensor_on(Device("cpu"));
  struct Case {
    Stack stack;
    const char* fragment;
  };
  std::vector<Case> cases = {
      {{}, "missing argument 'self'"},
      {{IValue(t)}, "missing argument 'other'"},
      {{IValue(t), IValue(t), IValue(1), IValue(2)}, "expected at most 3 arguments, but got 4"},
      {{IValue(t), IValue(3)}, "expected argument 'other' to be Tensor, but got int"},
      {{IValue(t), IValue(t), IValue("x")}, "expected argument 'alpha' to be Scalar, but got str"},
      {{IValue(), IValue(t)}, "expected argument 'self' to be Tensor, but got None"},
  };
  for (auto& c : cases) {
    last_called.clear();
    try {
      op().call_boxed(&c.stack);
      ADD_FAILURE() << "expected an error containing: " << c.fragment;
    } catch (const TypeError& e) {
      EXPECT_NE(std::string(e.what()).find(c.fragment), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("dt::add()"), std::string::npos) << e.what();
    }
    EXPECT_EQ(last_called, "") << "a kernel ran for a refused call";
  }
}

TEST(Registration, DefinitionErrors) {
  Library lib(Library::Kind::Def, "regerr", std::nullopt, __FILE__, __LINE__);
  lib.def("f(Tensor self) -> Tensor");
  EXPECT_THROW(lib.def("f(Tensor self) -> Tensor"), ValueError);                 // twice
  EXPECT_THROW(lib.def("g(Tensor self -> Tensor"), ValueError);                  // malformed
  EXPECT_THROW(Library(Library::Kind::Def, "regerr", std::nullopt, __FILE__, __LINE__), ValueError);
  Library impl(Library::Kind::Impl, "regerr", K::CPU, __FILE__, __LINE__);
  EXPECT_THROW(impl.def("h(Tensor self) -> Tensor"), ValueError);
  EXPECT_THROW(impl.impl("other::f", +[](const Tensor& t) { return t; }), ValueError);
  EXPECT_THROW(impl.fallback(CppFunction(+[](const Tensor& t) { return t; })), ValueError);
  EXPECT_EQ(Dispatcher::singleton().find_op("regerr::g"), std::nullopt);
  EXPECT_EQ(Dispatcher::singleton().find_op("regerr::h"), std::nullopt);
}

TEST(Registration, ImplBeforeDefIsCheckedAtDef) {
  Library impl(Library::Kind::Impl, "early", K::CPU, __FILE__, __LINE__);
  impl.impl("f", +[](const Tensor& t) { return t; });
  Library def(Library::Kind::Def, "early", std::nullopt, __FILE__, __LINE__);
  try {
    def.def("f(Tensor self, int n) -> Tensor");
    FAIL();
  } catch (const TypeError& e) {
    EXPECT_NE(std::string(e.what()).find("(Tensor, int) -> Tensor"), std::string::npos) << e.what();
  }
  EXPECT_EQ(Dispatcher::singleton().find_op("early::f"), std::nullopt) << "nothing defined half-way";
  def.def("f(Tensor self) -> Tensor");
  auto f = Dispatcher::singleton().find_op_or_throw("early::f").typed<Tensor(const Tensor&)>();
  Tensor t = tensor_on(Device("cpu"));
  EXPECT_TRUE(f.call(t).is_same(t));
}

TEST(Registration, LibraryDestructionUndoesEverything) {
  {
    Library lib(Library::Kind::Def, "gone", std::nullopt, __FILE__, __LINE__);
    lib.def("f(Tensor self) -> Tensor", CppFunction(+[](const Tensor& t) { return t; }));
    ASSERT_TRUE(Dispatcher::singleton().find_op("gone::f").has_value());
  }
  EXPECT_EQ(Dispatcher::singleton().find_op("gone::f"), std::nullopt);
  // The namespace is free again.
  Library again(Library::Kind::Def, "gone", std::nullopt, __FILE__, __LINE__);
  again.def("f(Tensor self) -> Tensor");
  EXPECT_TRUE(Dispatcher::singleton().find_op_or_throw("gone::f").entry().registered_keys().empty());
}

int bad_init_ran = 0;
void bad_init(Library& m) {
  m.def("ok(Tensor self) -> Tensor");
  ++bad_init_ran;
  m.def("broken(Tensor self ->");
}

TEST(Registration, AFailingStaticLibraryIsRolledBackAndRecorded) {
  size_t before = Dispatcher::singleton().library_errors().size();
  detail::LibraryInit init(Library::Kind::Def, &bad_init, "badlib", std::nullopt, "bad.cpp", 7);
  EXPECT_EQ(bad_init_ran, 1);
  EXPECT_EQ(Dispatcher::singleton().find_op("badlib::ok"), std::nullopt);
  auto errors = Dispatcher::singleton().library_errors();
  ASSERT_EQ(errors.size(), before + 1);
  EXPECT_NE(errors.back().find("bad.cpp:7"), std::string::npos) << errors.back();
}

TEST(Registration, EveryYamlSchemaIsRegistered) {
  std::ifstream yaml(std::string(EMBER_SOURCE_DIR) + "/native_functions.yaml");
  ASSERT_TRUE(yaml);
  int checked = 0;
  for (std::string line; std::getline(yaml, line);) {
    if (line.rfind("- func: ", 0) != 0) continue;
    const FunctionSchema s = FunctionSchema::parse(line.substr(8));
    const std::string name = "aten::" + s.name.name + (s.name.overload.empty() ? "" : "." + s.name.overload);
    auto op = Dispatcher::singleton().find_op(name);
    ASSERT_TRUE(op.has_value()) << name;
    EXPECT_EQ(op->schema().str(), "aten::" + line.substr(8));
    ++checked;
  }
  EXPECT_GE(checked, 2);
}

}  // namespace
}  // namespace ember
