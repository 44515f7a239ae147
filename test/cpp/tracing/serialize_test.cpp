// Graph files from C++ (aten/tracing/Serialize.h): a function traced in C++, optimised,
// saved, loaded and run without Python, against the eager run; gradients through a loaded
// program; and the bad files: truncated at every length, a flipped byte, an unknown op, a
// changed schema, a newer format version, an index out of range, a missing tensor.
// test/python/test_jit.py covers ember.jit.save / ember.jit.load of modules.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "ember/generated/ops/add.h"
#include "ember/generated/ops/exp.h"
#include "ember/generated/ops/linear.h"
#include "ember/generated/ops/mul.h"
#include "ember/generated/ops/randn.h"
#include "ember/generated/ops/relu.h"
#include "ember/generated/ops/sum.h"
#include "ember/generated/ops/tanh.h"
#include "frontend/serialize/CheckpointError.h"
#include "frontend/serialize/Zip.h"
#include "test/cpp/ember_api.h"

namespace {

using namespace ember;
using serialize::CheckpointError;

// relu(exp(x) * tanh(w) + x) and a linear layer after it: elementwise ops the fusion pass
// joins, and a node it leaves alone.
Tensor f(const Tensor& x, const Tensor& w, const Tensor& lw) {
  return ember::linear(ember::relu(ember::add(ember::mul(ember::exp(x), ember::tanh(w)), x)), lw);
}

struct Traced {
  jit::TracedProgram program;
  Tensor w, lw;
};

Traced trace_f(bool optimize, bool parameters_need_grad = false) {
  Traced t;
  t.w = ember::randn({8}).requires_grad_(parameters_need_grad);
  t.lw = ember::randn({3, 8}).requires_grad_(parameters_need_grad);
  const Tensor x = ember::randn({5, 8});
  jit::begin_trace({{"x", x}, {"w", t.w}, {"lw", t.lw}});
  Tensor y;
  try {
    y = f(x, t.w, t.lw);
  } catch (...) {
    jit::abort_trace();
    throw;
  }
  t.program.graph = jit::end_trace({y});
  if (optimize) jit::optimize(t.program.graph);
  t.program.bound = {{"w", t.w}, {"lw", t.lw}};
  return t;
}

std::string bytes_of(const jit::TracedProgram& p) {
  std::ostringstream out;
  jit::save(p, out);
  return out.str();
}

jit::TracedProgram load_bytes(const std::string& bytes) {
  std::istringstream in(bytes);
  return jit::load(in);
}

// The archive with graph.txt passed through edit (the records rewritten with fresh CRCs, so
// only the description's own checks can catch the edit).
std::string with_graph_text(const std::string& bytes, std::string (*edit)(std::string)) {
  serialize::ZipReader zip{std::string(bytes)};
  const std::string text = edit(std::string(zip.data("graph.txt")));
  const std::string tensors(zip.data("tensors.pt"));
  std::ostringstream out;
  serialize::write_zip(out, {{"graph.txt", text.data(), text.size()},
                             {"tensors.pt", tensors.data(), tensors.size()}});
  return out.str();
}

std::string replace(std::string s, const std::string& from, const std::string& to) {
  const size_t at = s.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) s.replace(at, from.size(), to);
  return s;
}

// Expects load to raise a CheckpointError whose message holds `part`.
void expect_load_error(const std::string& bytes, const std::string& part) {
  try {
    load_bytes(bytes);
    ADD_FAILURE() << "loaded; expected an error naming '" << part << "'";
  } catch (const CheckpointError& e) {
    EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
  }
}

void expect_equal(const Tensor& a, const Tensor& b) {
  ASSERT_EQ(a.sizes(), b.sizes());
  EXPECT_TRUE(a.detach().allclose(b.detach(), 1e-6, 1e-6));
}

TEST(GraphFile, ATracedOptimisedProgramRoundTripsThroughAFile) {
  Traced t = trace_f(/*optimize=*/true);
  bool fused = false;
  for (const jit::Node& n : t.program.graph.nodes) fused |= n.op == "ember::fused_elementwise";
  ASSERT_TRUE(fused) << t.program.graph.str();

  const std::string path = (std::filesystem::temp_directory_path() /
                            ("ember_graph_" + std::to_string(::getpid()) + ".ember")).string();
  jit::save(t.program, path);
  jit::TracedProgram loaded = jit::load(path);
  std::filesystem::remove(path);

  EXPECT_EQ(loaded.free_inputs(), std::vector<std::string>{"x"});
  EXPECT_EQ(loaded.graph.str(), t.program.graph.str());
  const Tensor x = ember::randn({5, 8});
  std::vector<Tensor> y = loaded.run({x});
  ASSERT_EQ(y.size(), 1u);
  expect_equal(y[0], f(x, t.w, t.lw));
  // The graph is specialised to the traced shapes: another is an error naming the input.
  try {
    loaded.run({ember::randn({2, 8})});
    ADD_FAILURE() << "ran on another shape";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("expected input 0 (%x) to be f32[5, 8] as traced"),
              std::string::npos) << e.what();
  }
}

TEST(GraphFile, AnUnoptimisedProgramRoundTripsThroughAStream) {
  Traced t = trace_f(/*optimize=*/false);
  jit::TracedProgram loaded = load_bytes(bytes_of(t.program));
  EXPECT_EQ(loaded.graph.nodes.size(), t.program.graph.nodes.size());
  const Tensor x = ember::randn({5, 8});
  expect_equal(loaded.run({x})[0], f(x, t.w, t.lw));
}

TEST(GraphFile, GradientsFlowThroughALoadedProgram) {
  Traced t = trace_f(/*optimize=*/true, /*parameters_need_grad=*/true);
  jit::TracedProgram loaded = load_bytes(bytes_of(t.program));
  const Tensor x = ember::randn({5, 8}).requires_grad_();
  loaded.run({x})[0].sum().backward();

  const Tensor x2 = x.detach().requires_grad_();
  const Tensor w2 = t.w.detach().requires_grad_();
  const Tensor lw2 = t.lw.detach().requires_grad_();
  f(x2, w2, lw2).sum().backward();
  expect_equal(x.grad(), x2.grad());
  for (const auto& [name, tensor] : loaded.bound) {
    EXPECT_TRUE(tensor.requires_grad()) << name;  // a parameter comes back as one
    expect_equal(tensor.grad(), name == "w" ? w2.grad() : lw2.grad());
  }
}

TEST(GraphFile, ATruncatedFileIsAnErrorAtEveryLength) {
  const std::string bytes = bytes_of(trace_f(true).program);
  for (size_t n = 0; n < bytes.size(); n += (n < 64 ? 1 : 37)) {
    EXPECT_THROW(load_bytes(bytes.substr(0, n)), CheckpointError) << "length " << n;
  }
}

TEST(GraphFile, AFlippedByteIsAnError) {
  const std::string bytes = bytes_of(trace_f(true).program);
  for (size_t at = 0; at < bytes.size(); at += 53) {
    std::string bad = bytes;
    bad[at] = static_cast<char>(bad[at] ^ 0x20);
    EXPECT_THROW(load_bytes(bad), CheckpointError) << "byte " << at;
  }
}

TEST(GraphFile, AnUnknownOpIsAnErrorNamingIt) {
  const std::string bytes = bytes_of(trace_f(false).program);
  expect_load_error(with_graph_text(bytes, [](std::string s) {
                      return replace(s, "10:aten::tanh ", "10:aten::tanx ");
                    }),
                    "unknown operator aten::tanx");
}

TEST(GraphFile, AChangedSchemaIsAnErrorNamingBoth) {
  const std::string bytes = bytes_of(trace_f(false).program);
  expect_load_error(with_graph_text(bytes, [](std::string s) {
                      return replace(s, "33:aten::tanh(Tensor self) -> Tensor",
                                     "42:aten::tanh(Tensor self, int k=0) -> Tensor");
                    }),
                    "the schema of aten::tanh changed since the graph was saved");
}

TEST(GraphFile, ANewerFormatOrABadIndexIsAnError) {
  const std::string bytes = bytes_of(trace_f(false).program);
  expect_load_error(with_graph_text(bytes, [](std::string s) {
                      return replace(s, "ember-graph 1 ", "ember-graph 2 ");
                    }),
                    "format version 2");
  expect_load_error(with_graph_text(bytes, [](std::string s) {
                      return replace(s, "outputs 1 ", "outputs 1 9");
                    }),
                    "out of range");
  expect_load_error(with_graph_text(bytes, [](std::string s) {
                      return replace(s, "bound 2 1:w ", "bound 2 1:q ");
                    }),
                    "bound input 'q' is missing");
}

TEST(GraphFile, AnotherCheckpointIsNotAGraphFile) {
  std::ostringstream out;
  serialize::save_state_dict({{"w", ember::randn({2})}}, out);
  expect_load_error(out.str(), "not a graph file");
  expect_load_error("not a zip at all", "");
  EXPECT_THROW(jit::load("/nonexistent/graph.ember"), CheckpointError);
}

// A chain ending in a row sum: the fused reduction's fields round-trip, and a program whose
// reduction does not tile its rows is refused.
TEST(GraphFile, AFusedReductionRoundTripsAndIsChecked) {
  const Tensor x = ember::randn({7, 300});
  const Tensor w = ember::randn({300});
  jit::begin_trace({{"x", x}, {"w", w}});
  Tensor y;
  try {
    y = ember::sum(ember::mul(ember::exp(x), w), std::vector<int64_t>{-1});
  } catch (...) {
    jit::abort_trace();
    throw;
  }
  jit::TracedProgram p;
  p.graph = jit::end_trace({y});
  jit::optimize(p.graph);
  ASSERT_EQ(p.graph.nodes.size(), 1u) << p.graph.str();
  ASSERT_NE(p.graph.str().find("= sum(r3, inner=300)"), std::string::npos) << p.graph.str();
  const std::string bytes = bytes_of(p);
  jit::TracedProgram loaded = load_bytes(bytes);
  EXPECT_EQ(loaded.graph.str(), p.graph.str());
  const Tensor x2 = ember::randn({7, 300});
  expect_equal(loaded.run({x2, w})[0], ember::sum(ember::mul(ember::exp(x2), w), std::vector<int64_t>{-1}));
  expect_load_error(with_graph_text(bytes, [](std::string s) { return replace(s, " 300 1 7 ", " 299 1 7 "); }),
                    "fused reduction");
}

TEST(GraphFile, RunChecksTheInputCount) {
  jit::TracedProgram loaded = load_bytes(bytes_of(trace_f(true).program));
  EXPECT_THROW(loaded.run({}), Error);
}

}  // namespace
