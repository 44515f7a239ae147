// Graph files (Serialize.h, Note [Graph files]): a token writer and a strict reader.
#include "aten/tracing/Serialize.h"

#include <charconv>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <sstream>
#include <unordered_map>

#include "aten/tracing/Fusion.h"
#include "c10/dispatch/Dispatcher.h"
#include "c10/util/Exception.h"
#include "frontend/serialize/CheckpointError.h"
#include "frontend/serialize/Serialize.h"
#include "frontend/serialize/Zip.h"

namespace ember::jit {
namespace {

using serialize::CheckpointError;

constexpr int kFormatVersion = 1;
constexpr const char* kMagic = "ember-graph";

// ---- writing ---------------------------------------------------------------------------------

class Writer {
 public:
  void word(const char* w) { out_ << w << ' '; }
  void integer(int64_t v) { out_ << v << ' '; }
  void number(double v) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%a", v);  // exact (hex float); strtod reads it back
    out_ << buf << ' ';
  }
  void str(const std::string& s) { out_ << s.size() << ':' << s << ' '; }
  void line() { out_ << '\n'; }
  std::string text() const { return out_.str(); }

 private:
  std::ostringstream out_;
};

void write_ivalue(Writer& w, const IValue& v) {
  if (v.is_none()) return w.word("n");
  if (v.is_bool()) { w.word("b"); return w.integer(v.to_bool()); }
  if (v.is_int()) { w.word("i"); return w.integer(v.to_int()); }
  if (v.is_double()) { w.word("d"); return w.number(v.to_double()); }
  if (v.is_complex()) {
    w.word("x");
    w.number(v.to_complex().real());
    return w.number(v.to_complex().imag());
  }
  if (v.is_string()) { w.word("s"); return w.str(v.to_string()); }
  // A list: its tag, its length, then each element as put writes it.
  auto list = [&w](const char* tag, const auto& xs, auto put) {
    w.word(tag);
    w.integer(static_cast<int64_t>(xs.size()));
    for (auto x : xs) put(x);
  };
  if (v.is_int_list()) return list("I", v.to_int_list(), [&w](int64_t x) { w.integer(x); });
  if (v.is_double_list()) return list("D", v.to_double_list(), [&w](double x) { w.number(x); });
  if (v.is_bool_list()) return list("B", v.to_bool_list(), [&w](bool x) { w.integer(x); });
  if (v.is_device()) {
    w.word("e");
    w.integer(static_cast<int64_t>(v.to_device().type()));
    return w.integer(v.to_device().index());
  }
  if (v.is_scalar_type()) { w.word("t"); return w.integer(static_cast<int64_t>(v.to_scalar_type())); }
  if (v.is_layout()) { w.word("y"); return w.integer(static_cast<int64_t>(v.to_layout())); }
  EMBER_CHECK_VALUE(!v.is_generator(), "jit.save(): the graph passes a Generator to an op; a "
                    "generator cannot be saved (trace with the default generator)");
  EMBER_CHECK_VALUE(false, "jit.save(): a node holds a constant of a kind a graph file cannot hold");
}

void write_slot(Writer& w, const Slot& s) {
  switch (s.kind) {
    case Slot::Kind::Value: w.word("v"); w.integer(s.value); return;
    case Slot::Kind::ValueList:
      w.word("l");
      w.integer(static_cast<int64_t>(s.values.size()));
      for (int v : s.values) w.integer(v);
      return;
    case Slot::Kind::Constant: w.word("c"); write_ivalue(w, s.constant); return;
  }
}

void write_node(Writer& w, const Node& n);

void write_program(Writer& w, const FusedProgram& p) {
  w.integer(static_cast<int64_t>(p.dtype));
  w.integer(static_cast<int64_t>(p.sizes.size()));
  for (int64_t s : p.sizes) w.integer(s);
  w.integer(static_cast<int64_t>(p.perm.size()));
  for (int64_t d : p.perm) w.integer(d);
  w.integer(p.num_inputs);
  w.integer(p.num_registers);
  w.integer(static_cast<int64_t>(p.code.size()));
  for (const FusedInstr& in : p.code) {
    w.integer(static_cast<int64_t>(in.op));
    w.integer(in.dst);
    w.integer(in.a);
    w.integer(in.b);
    w.integer(in.c);
    w.number(in.s0);
    w.number(in.s1);
  }
  w.integer(static_cast<int64_t>(p.outputs.size()));
  for (int r : p.outputs) w.integer(r);
  w.integer(static_cast<int64_t>(p.reduction.op));
  if (p.reduces()) {
    w.integer(p.reduction.reg);
    w.integer(p.reduction.inner);
    w.integer(static_cast<int64_t>(p.reduction.sizes.size()));
    for (int64_t s : p.reduction.sizes) w.integer(s);
  }
  w.integer(static_cast<int64_t>(p.unfused.size()));
  for (const Node& u : p.unfused) write_node(w, u);
}

void write_node(Writer& w, const Node& n) {
  w.str(n.op);
  w.str(n.handle ? n.handle->schema().str() : std::string());
  w.str(n.source);
  w.integer(static_cast<int64_t>(n.inputs.size()));
  for (const Slot& s : n.inputs) write_slot(w, s);
  w.integer(static_cast<int64_t>(n.outputs.size()));
  for (const Slot& s : n.outputs) write_slot(w, s);
  w.integer(n.fused ? 1 : 0);
  if (n.fused) write_program(w, *n.fused);
  w.line();
}

std::string constant_name(int v) { return "constant." + std::to_string(v); }
std::string bound_name(const std::string& name) { return "input." + name; }

// ---- reading ---------------------------------------------------------------------------------

class Reader {
 public:
  Reader(std::string_view text, const std::string& where) : text_(text), where_(where) {}

  [[noreturn]] void fail(const std::string& what) const {
    throw CheckpointError("jit.load(" + where_ + "): graph.txt at byte " + std::to_string(pos_) +
                          ": " + what, __FILE__, __LINE__);
  }
  std::string_view token() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\n')) ++pos_;
    const size_t start = pos_;
    while (pos_ < text_.size() && text_[pos_] != ' ' && text_[pos_] != '\n') ++pos_;
    if (start == pos_) fail("the description ends early (a truncated or damaged file)");
    return text_.substr(start, pos_ - start);
  }
  void expect(const char* word) {
    const std::string_view t = token();
    if (t != word) fail("expected '" + std::string(word) + "', found '" + std::string(t) + "'");
  }
  int64_t integer(int64_t lo = INT64_MIN, int64_t hi = INT64_MAX) {
    const std::string_view t = token();
    int64_t v = 0;
    auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
    if (ec != std::errc() || end != t.data() + t.size()) fail("expected an integer, found '" + std::string(t) + "'");
    if (v < lo || v > hi) {
      fail("the number " + std::to_string(v) + " is out of range [" + std::to_string(lo) + ", " +
           std::to_string(hi) + "]");
    }
    return v;
  }
  int count() { return static_cast<int>(integer(0, 1 << 24)); }
  double number() {
    const std::string t(token());
    char* end = nullptr;
    const double v = std::strtod(t.c_str(), &end);
    if (end != t.c_str() + t.size()) fail("expected a number, found '" + t + "'");
    return v;
  }
  std::string str() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\n')) ++pos_;
    const size_t colon = text_.find(':', pos_);
    if (colon == std::string_view::npos) fail("expected a string");
    size_t n = 0;
    auto [end, ec] = std::from_chars(text_.data() + pos_, text_.data() + colon, n);
    if (ec != std::errc() || end != text_.data() + colon) fail("expected a string's length");
    if (colon + 1 + n > text_.size()) fail("a string runs past the end (a truncated file)");
    std::string s(text_.substr(colon + 1, n));
    pos_ = colon + 1 + n;
    return s;
  }

 private:
  std::string_view text_;
  std::string where_;
  size_t pos_ = 0;
};

ScalarType read_dtype(Reader& r) {
  return static_cast<ScalarType>(r.integer(0, static_cast<int64_t>(ScalarType::BFloat16)));
}

IValue read_ivalue(Reader& r) {
  const std::string kind(r.token());
  if (kind == "n") return IValue();
  if (kind == "b") return IValue(r.integer(0, 1) != 0);
  if (kind == "i") return IValue(r.integer());
  if (kind == "d") return IValue(r.number());
  if (kind == "x") {
    const double re = r.number();
    return IValue(std::complex<double>(re, r.number()));
  }
  if (kind == "s") return IValue(r.str());
  if (kind == "I") {
    std::vector<int64_t> v(static_cast<size_t>(r.count()));
    for (int64_t& x : v) x = r.integer();
    return IValue(std::move(v));
  }
  if (kind == "D") {
    std::vector<double> v(static_cast<size_t>(r.count()));
    for (double& x : v) x = r.number();
    return IValue(std::move(v));
  }
  if (kind == "B") {
    std::vector<bool> v(static_cast<size_t>(r.count()));
    for (size_t i = 0; i < v.size(); ++i) v[i] = r.integer(0, 1) != 0;
    return IValue(std::move(v));
  }
  if (kind == "e") {
    const auto type = static_cast<DeviceType>(r.integer(0, static_cast<int64_t>(kNumDeviceTypes) - 1));
    return IValue(Device(type, static_cast<int8_t>(r.integer(-1, 127))));
  }
  if (kind == "t") return IValue(read_dtype(r));
  if (kind == "y") return IValue(static_cast<Layout>(r.integer(0, static_cast<int64_t>(kNumLayouts - 1))));
  r.fail("unknown constant kind '" + kind + "'");
}

Slot read_slot(Reader& r, int limit) {
  const std::string kind(r.token());
  if (kind == "v") return Slot::of_value(static_cast<int>(r.integer(0, limit - 1)));
  if (kind == "l") {
    std::vector<int> vs(static_cast<size_t>(r.count()));
    for (int& v : vs) v = static_cast<int>(r.integer(-1, limit - 1));
    return Slot::of_list(std::move(vs));
  }
  if (kind == "c") return Slot::of_constant(read_ivalue(r));
  r.fail("unknown slot kind '" + kind + "'");
}

Node read_node(Reader& r, int limit);

std::shared_ptr<const FusedProgram> read_program(Reader& r) {
  auto p = std::make_shared<FusedProgram>();
  p->dtype = read_dtype(r);
  if (p->dtype != ScalarType::Float && p->dtype != ScalarType::Double) r.fail("a fused program of a dtype other than float32/float64");
  p->sizes.resize(static_cast<size_t>(r.integer(0, 64)));
  for (int64_t& s : p->sizes) s = r.integer(0);
  // A memory order is a permutation of the dims (each once).
  p->perm.resize(static_cast<size_t>(r.integer(0, 64)));
  std::vector<char> seen(p->sizes.size(), 0);
  for (int64_t& d : p->perm) {
    d = r.integer(0, static_cast<int64_t>(p->sizes.size()) - 1);
    if (seen[static_cast<size_t>(d)]++) r.fail("a fused program whose memory order repeats a dim");
  }
  if (!p->perm.empty() && p->perm.size() != p->sizes.size()) {
    r.fail("a fused program whose memory order does not list every dim");
  }
  p->num_registers = 0;
  p->num_inputs = static_cast<int>(r.integer(0, 32766));
  p->num_registers = static_cast<int>(r.integer(p->num_inputs, 32766));
  const int regs = p->num_registers;
  p->code.resize(static_cast<size_t>(r.count()));
  for (FusedInstr& in : p->code) {
    in.op = static_cast<FusedOp>(r.integer(0, static_cast<int64_t>(FusedOp::Cast)));
    in.dst = static_cast<int16_t>(r.integer(p->num_inputs, regs - 1));
    in.a = static_cast<int16_t>(r.integer(-1, regs - 1));
    in.b = static_cast<int16_t>(r.integer(-1, regs - 1));
    in.c = static_cast<int16_t>(r.integer(-1, regs - 1));
    in.s0 = r.number();
    in.s1 = r.number();
  }
  // Each instruction reads registers written before it (the inputs or earlier results), as
  // many as its op takes, and writes a register once: the kernel trusts these.
  std::vector<char> defined(static_cast<size_t>(regs), 0);
  for (int k = 0; k < p->num_inputs; ++k) defined[static_cast<size_t>(k)] = 1;
  for (const FusedInstr& in : p->code) {
    const bool binary = in.op >= FusedOp::Add && in.op <= FusedOp::Minimum;
    const bool where = in.op == FusedOp::Where;
    auto ok = [&](int16_t reg, bool needed) {
      return needed ? reg >= 0 && defined[static_cast<size_t>(reg)] : reg < 0;
    };
    if (!ok(in.a, true) || !ok(in.b, binary || where) || !ok(in.c, where) ||
        defined[static_cast<size_t>(in.dst)]) {
      r.fail("a fused instruction (" + std::string(fused_op_name(in.op)) + ") reads a register "
             "not yet written, lacks an operand, or writes a register twice");
    }
    defined[static_cast<size_t>(in.dst)] = 1;
  }
  p->outputs.resize(static_cast<size_t>(r.count()));
  const std::vector<int>& outs = p->outputs;
  for (int& o : p->outputs) o = static_cast<int>(r.integer(0, regs - 1));
  p->reduction.op = static_cast<FusedReduce>(r.integer(0, static_cast<int64_t>(FusedReduce::Amin)));
  int64_t numel = 1;
  for (int64_t s : p->sizes) {
    if (__builtin_mul_overflow(numel, s, &numel)) r.fail("a fused program whose sizes overflow");
  }
  if (p->reduces() && !p->perm.empty()) r.fail("a fused reduction over a permuted memory order");
  if (p->reduces()) {
    // The reduction reads a register written before it and writes the last one, the last output,
    // over a whole number of trailing rows.
    p->reduction.reg = static_cast<int>(r.integer(0, regs - 1));
    p->reduction.inner = r.integer(1);
    p->reduction.sizes.resize(static_cast<size_t>(r.integer(0, 64)));
    int64_t reduced = 1;
    for (int64_t& s : p->reduction.sizes) {
      s = r.integer(0);
      if (__builtin_mul_overflow(reduced, s, &reduced)) r.fail("a fused reduction whose sizes overflow");
    }
    if (!defined[static_cast<size_t>(p->reduction.reg)] || defined[static_cast<size_t>(regs - 1)] ||
        outs.empty() || outs.back() != regs - 1 || numel % p->reduction.inner != 0 ||
        reduced != numel / p->reduction.inner) {
      r.fail("a fused reduction that reads a register not written, or whose result or sizes do not "
             "match its program");
    }
    defined[static_cast<size_t>(regs - 1)] = 1;
  }
  for (int o : outs) {
    if (!defined[static_cast<size_t>(o)]) r.fail("a fused program returns a register it never writes");
  }
  p->unfused.resize(static_cast<size_t>(r.count()));
  for (Node& u : p->unfused) u = read_node(r, regs);
  if (p->unfused.size() != p->code.size() + (p->reduces() ? 1 : 0)) {
    r.fail("a fused program whose unfused form differs in length");
  }
  return p;
}

Node read_node(Reader& r, int limit) {
  Node n;
  n.op = r.str();
  const std::string schema = r.str();
  n.source = r.str();
  n.inputs.resize(static_cast<size_t>(r.count()));
  for (Slot& s : n.inputs) s = read_slot(r, limit);
  n.outputs.resize(static_cast<size_t>(r.count()));
  for (Slot& s : n.outputs) {
    s = read_slot(r, limit);
    if (s.kind == Slot::Kind::Constant) r.fail("a node output that is not a value");
  }
  if (r.integer(0, 1)) {
    if (n.op != "ember::fused_elementwise") r.fail("a fused program on node " + n.op);
    n.fused = read_program(r);
    bool values = true;
    for (const Slot& s : n.inputs) values = values && s.kind == Slot::Kind::Value;
    for (const Slot& s : n.outputs) values = values && s.kind == Slot::Kind::Value;
    if (!values || static_cast<int>(n.inputs.size()) != n.fused->num_inputs ||
        n.outputs.size() != n.fused->outputs.size()) {
      r.fail("a fused node whose slots do not match its program");
    }
  } else {
    std::optional<OperatorHandle> op = Dispatcher::singleton().find_op(n.op);
    if (!op) r.fail("unknown operator " + n.op + " (saved by a build that had it?)");
    const std::string now = op->schema().str();
    if (now != schema) {
      r.fail("the schema of " + n.op + " changed since the graph was saved: saved '" + schema +
             "', now '" + now + "'");
    }
    n.handle = op;
    if (n.inputs.size() != op->schema().arguments.size() || n.outputs.size() != op->schema().returns.size()) {
      r.fail("node " + n.op + " has " + std::to_string(n.inputs.size()) + " arguments and " +
             std::to_string(n.outputs.size()) + " results; its schema has others");
    }
  }
  return n;
}

}  // namespace

std::vector<std::string> TracedProgram::free_inputs() const {
  std::vector<std::string> out;
  for (int v : graph.inputs) {
    const std::string& name = graph.values[v].name;
    bool is_bound = false;
    for (const auto& [b, t] : bound) is_bound = is_bound || b == name;
    if (!is_bound) out.push_back(name);
  }
  return out;
}

std::vector<Tensor> TracedProgram::run(const std::vector<Tensor>& inputs) const {
  std::unordered_map<std::string, const Tensor*> by_name;
  for (const auto& [name, t] : bound) by_name[name] = &t;
  std::vector<Tensor> all;
  all.reserve(graph.inputs.size());
  size_t next = 0;
  for (int v : graph.inputs) {
    auto it = by_name.find(graph.values[v].name);
    if (it != by_name.end()) {
      all.push_back(*it->second);
    } else {
      EMBER_CHECK_VALUE(next < inputs.size(), "TracedProgram::run(): expected ",
                        free_inputs().size(), " inputs, but got ", inputs.size());
      all.push_back(inputs[next++]);
    }
  }
  EMBER_CHECK_VALUE(next == inputs.size(), "TracedProgram::run(): expected ", next,
                    " inputs, but got ", inputs.size());
  return jit::run(graph, all);
}

void save(const TracedProgram& p, std::ostream& out) {
  const Graph& g = p.graph;
  g.verify();
  Writer w;
  w.word(kMagic);
  w.integer(kFormatVersion);
  w.line();
  serialize::NamedTensors tensors;
  w.word("values");
  w.integer(static_cast<int64_t>(g.values.size()));
  w.line();
  for (size_t v = 0; v < g.values.size(); ++v) {
    const Value& val = g.values[v];
    w.str(val.name);
    w.integer(static_cast<int64_t>(val.type.dtype));
    w.integer(static_cast<int64_t>(val.type.device.type()));
    w.integer(val.type.device.index());
    w.integer(val.type.requires_grad);
    w.integer(static_cast<int64_t>(val.type.sizes.size()));
    for (int64_t s : val.type.sizes) w.integer(s);
    for (int64_t s : val.type.strides) w.integer(s);
    w.integer(val.producer);
    w.integer(val.constant.defined() ? 1 : 0);
    if (val.constant.defined()) tensors.emplace_back(constant_name(static_cast<int>(v)), val.constant);
    w.line();
  }
  w.word("inputs");
  w.integer(static_cast<int64_t>(g.inputs.size()));
  for (int v : g.inputs) w.integer(v);
  w.line();
  w.word("outputs");
  w.integer(static_cast<int64_t>(g.outputs.size()));
  for (int v : g.outputs) w.integer(v);
  w.line();
  w.word("nodes");
  w.integer(static_cast<int64_t>(g.nodes.size()));
  w.line();
  for (const Node& n : g.nodes) write_node(w, n);
  w.word("bound");
  w.integer(static_cast<int64_t>(p.bound.size()));
  for (const auto& [name, t] : p.bound) {
    w.str(name);
    tensors.emplace_back(bound_name(name), t);
  }
  w.word("end");
  w.line();
  const std::string text = w.text();
  std::ostringstream tensor_bytes;
  serialize::save_state_dict(tensors, tensor_bytes);
  const std::string tb = tensor_bytes.str();
  serialize::write_zip(out, {{"graph.txt", text.data(), text.size()}, {"tensors.pt", tb.data(), tb.size()}});
}

void save(const TracedProgram& p, const std::string& path) {
  std::ostringstream bytes;
  save(p, bytes);
  const std::string tmp = path + ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    EMBER_CHECK(f.good(), "jit.save(): cannot write ", tmp);
    const std::string data = bytes.str();
    f.write(data.data(), static_cast<std::streamsize>(data.size()));
    f.close();
    EMBER_CHECK(f.good(), "jit.save(): writing ", tmp, " failed");
  }
  EMBER_CHECK(std::rename(tmp.c_str(), path.c_str()) == 0, "jit.save(): cannot rename ", tmp,
              " to ", path);
}

namespace {

TracedProgram load_bytes(std::string bytes, const std::string& where) {
  serialize::ZipReader zip(std::move(bytes));
  if (!zip.has("graph.txt") || !zip.has("tensors.pt")) {
    throw CheckpointError("jit.load(" + where + "): not a graph file (no graph.txt and "
                          "tensors.pt records; ember.jit.save writes graph files)", __FILE__, __LINE__);
  }
  std::istringstream tensor_stream(std::string(zip.data("tensors.pt")));
  serialize::NamedTensors tensors = serialize::load_state_dict(tensor_stream);
  std::unordered_map<std::string, Tensor> by_name(tensors.begin(), tensors.end());

  Reader r(zip.data("graph.txt"), where);
  r.expect(kMagic);
  const int64_t version = r.integer();
  if (version != kFormatVersion) {
    r.fail("format version " + std::to_string(version) + "; this build reads version " +
           std::to_string(kFormatVersion));
  }
  TracedProgram p;
  Graph& g = p.graph;
  r.expect("values");
  const int nv = r.count();
  g.values.resize(static_cast<size_t>(nv));
  for (int v = 0; v < nv; ++v) {
    Value& val = g.values[static_cast<size_t>(v)];
    val.name = r.str();
    val.type.dtype = read_dtype(r);
    const auto type = static_cast<DeviceType>(r.integer(0, static_cast<int64_t>(kNumDeviceTypes) - 1));
    val.type.device = Device(type, static_cast<int8_t>(r.integer(-1, 127)));
    val.type.requires_grad = r.integer(0, 1) != 0;
    const size_t rank = static_cast<size_t>(r.integer(0, 64));
    val.type.sizes.resize(rank);
    val.type.strides.resize(rank);
    for (int64_t& s : val.type.sizes) s = r.integer(0);
    for (int64_t& s : val.type.strides) s = r.integer();
    val.producer = static_cast<int>(r.integer(-1, 1 << 24));
    if (r.integer(0, 1)) {
      auto it = by_name.find(constant_name(v));
      if (it == by_name.end()) r.fail("constant %" + std::to_string(v) + " is missing from tensors.pt");
      val.constant = it->second;
    }
  }
  r.expect("inputs");
  g.inputs.resize(static_cast<size_t>(r.count()));
  for (int& v : g.inputs) v = static_cast<int>(r.integer(0, nv - 1));
  r.expect("outputs");
  g.outputs.resize(static_cast<size_t>(r.count()));
  for (int& v : g.outputs) v = static_cast<int>(r.integer(0, nv - 1));
  r.expect("nodes");
  g.nodes.resize(static_cast<size_t>(r.count()));
  for (Node& n : g.nodes) n = read_node(r, nv);
  r.expect("bound");
  const int nb = r.count();
  for (int i = 0; i < nb; ++i) {
    const std::string name = r.str();
    auto it = by_name.find(bound_name(name));
    if (it == by_name.end()) r.fail("bound input '" + name + "' is missing from tensors.pt");
    // A parameter comes back as one: the traced input's type says whether it needed grad.
    for (int v : g.inputs) {
      const Value& val = g.values[static_cast<size_t>(v)];
      if (val.name == name && val.type.requires_grad && is_floating_point(it->second.dtype())) {
        it->second.requires_grad_(true);
      }
    }
    p.bound.emplace_back(name, it->second);
  }
  r.expect("end");
  try {
    g.verify();
  } catch (const Error& e) {
    throw CheckpointError("jit.load(" + where + "): the graph is not well formed: " + e.what(), __FILE__, __LINE__);
  }
  return p;
}

}  // namespace

TracedProgram load(std::istream& in) {
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return load_bytes(std::move(bytes), "<stream>");
}

TracedProgram load(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw CheckpointError("jit.load(" + path + "): cannot open the file", __FILE__, __LINE__);
  std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  return load_bytes(std::move(bytes), path);
}

}  // namespace ember::jit
