// Graph passes (Passes.h).
#include "aten/tracing/Passes.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <sstream>
#include <unordered_map>

#include "aten/autograd/GradMode.h"
#include "aten/native/fused.h"
#include "aten/tracing/Fusion.h"
#include "c10/util/Exception.h"

namespace ember::jit {
namespace {

// ---- analysis (Note [Mutation barrier]) ----------------------------------------------------

struct Analysis {
  std::vector<char> mutable_value;  // per value
  std::vector<char> writes;         // per node
  std::vector<char> random;         // per node
};

bool is_random_op(const Node& node) {
  if (!node.handle) return false;
  for (const Argument& a : node.handle->schema().arguments) {
    if (a.type.base == BaseType::Generator) return true;
  }
  const std::string& name = node.handle->schema().name.name;
  return name.find("dropout") != std::string::npos || name.rfind("rand", 0) == 0 ||
         name == "bernoulli" || name == "bernoulli_" || name == "normal" || name == "multinomial" ||
         name == "rrelu" || name == "rrelu_" || name == "poisson";
}

int find(std::vector<int>& parent, int v) {
  while (parent[v] != v) v = parent[v] = parent[parent[v]];
  return v;
}

Analysis analyze(const Graph& g) {
  const size_t nv = g.values.size();
  std::vector<int> parent(nv);
  std::iota(parent.begin(), parent.end(), 0);
  std::vector<char> written_root(nv, 0), wild(nv, 0);
  Analysis a;
  a.writes.assign(g.nodes.size(), 0);
  a.random.assign(g.nodes.size(), 0);
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& node = g.nodes[i];
    a.random[i] = is_random_op(node);
    if (!node.handle) continue;
    const FunctionSchema& schema = node.handle->schema();
    std::map<std::string, std::vector<int>> sets;  // alias set -> the values in it
    std::vector<int> written;
    auto note = [&](const Argument& arg, const Slot& slot) {
      if (!arg.alias) return;
      std::vector<int> vs;
      if (slot.kind == Slot::Kind::Value) vs.push_back(slot.value);
      if (slot.kind == Slot::Kind::ValueList) {
        for (int v : slot.values) if (v >= 0) vs.push_back(v);
      }
      for (const std::string& set : arg.alias->before) {
        for (int v : vs) {
          if (set == "*") wild[v] = 1;
          sets[set].push_back(v);
        }
      }
      if (arg.alias->is_write) written.insert(written.end(), vs.begin(), vs.end());
    };
    for (size_t k = 0; k < schema.arguments.size() && k < node.inputs.size(); ++k) {
      note(schema.arguments[k], node.inputs[k]);
    }
    for (size_t k = 0; k < schema.returns.size() && k < node.outputs.size(); ++k) {
      note(schema.returns[k], node.outputs[k]);
    }
    for (auto& [set, vs] : sets) {
      for (size_t k = 1; k < vs.size(); ++k) parent[find(parent, vs[k])] = find(parent, vs[0]);
    }
    if (!written.empty()) a.writes[i] = 1;
    for (int v : written) written_root[v] = 1;  // resolved to roots below
  }
  std::vector<char> root_written(nv, 0);
  for (size_t v = 0; v < nv; ++v) {
    if (written_root[v] || wild[v]) root_written[find(parent, static_cast<int>(v))] = 1;
  }
  a.mutable_value.assign(nv, 0);
  for (size_t v = 0; v < nv; ++v) a.mutable_value[v] = root_written[find(parent, static_cast<int>(v))];
  return a;
}

bool touches_mutable(const Node& node, const Analysis& a) {
  bool touched = false;
  node.for_each_input([&](int v) { touched = touched || (v >= 0 && a.mutable_value[v]); });
  node.for_each_output([&](int v) { touched = touched || a.mutable_value[v]; });
  return touched;
}

// Replaces every use of value `from` by `to` (node arguments and graph outputs).
void replace_uses(Graph& g, const std::vector<int>& remap) {
  auto fix = [&](int v) { return v >= 0 && remap[v] >= 0 ? remap[v] : v; };
  for (Node& node : g.nodes) {
    for (Slot& s : node.inputs) {
      if (s.kind == Slot::Kind::Value) s.value = fix(s.value);
      if (s.kind == Slot::Kind::ValueList) for (int& v : s.values) v = fix(v);
    }
  }
  for (int& v : g.outputs) v = fix(v);
}

// Appends a key that tells constants apart (the common kinds without printing them).
void append_constant_key(std::string& key, const IValue& c) {
  key += std::to_string(static_cast<int>(c.tag()));
  key += ':';
  if (c.is_none()) return;
  if (c.is_int()) {
    key += std::to_string(c.to_int());
  } else if (c.is_bool()) {
    key += c.to_bool() ? '1' : '0';
  } else if (c.is_double()) {
    const double d = c.to_double();
    key.append(reinterpret_cast<const char*>(&d), sizeof d);
  } else if (c.is_int_list()) {
    for (int64_t v : c.to_int_list()) {
      key += std::to_string(v);
      key += ',';
    }
  } else if (c.is_tensor()) {
    std::ostringstream os;
    os << c.to_tensor().impl();
    key += os.str();
  } else if (c.is_bool_list()) {
    for (bool b : c.to_bool_list()) key += b ? '1' : '0';
  } else {
    key += c.repr();
  }
}

std::optional<double> constant_number(const Slot& s) {
  if (s.kind != Slot::Kind::Constant) return std::nullopt;
  const IValue& c = s.constant;
  if (c.is_int()) return static_cast<double>(c.to_int());
  if (c.is_double()) return c.to_double();
  if (c.is_bool()) return c.to_bool() ? 1.0 : 0.0;
  return std::nullopt;
}

// The value of a one-element constant tensor argument, when it is one.
std::optional<double> constant_tensor_number(const Graph& g, const Slot& s) {
  if (s.kind != Slot::Kind::Value || !g.is_constant(s.value)) return std::nullopt;
  const Tensor& t = g.values[s.value].constant;
  if (t.numel() != 1 || is_complex(t.dtype())) return std::nullopt;
  return t.item().to_double();
}

}  // namespace

// ---- prune ------------------------------------------------------------------------------------

int prune(Graph& g) {
  const Analysis a = analyze(g);
  std::vector<char> live(g.values.size(), 0);
  for (int v : g.outputs) live[v] = 1;
  std::vector<char> keep(g.nodes.size(), 0);
  for (size_t i = g.nodes.size(); i-- > 0;) {
    const Node& node = g.nodes[i];
    bool k = a.writes[i] || a.random[i];
    node.for_each_output([&](int v) { k = k || live[v]; });
    if (!k) continue;
    keep[i] = 1;
    node.for_each_input([&](int v) { if (v >= 0) live[v] = 1; });
  }
  const int removed = static_cast<int>(std::count(keep.begin(), keep.end(), 0));
  if (removed == 0) return 0;
  std::vector<Node> kept;
  kept.reserve(g.nodes.size() - static_cast<size_t>(removed));
  for (size_t i = 0; i < g.nodes.size(); ++i) if (keep[i]) kept.push_back(std::move(g.nodes[i]));
  g.nodes = std::move(kept);
  g.compact();
  return removed;
}

// ---- common subexpressions --------------------------------------------------------------------

int eliminate_common_subexpressions(Graph& g) {
  const Analysis a = analyze(g);
  std::unordered_map<std::string, size_t> first;  // key -> node index
  std::vector<int> remap(g.values.size(), -1);
  std::vector<char> drop(g.nodes.size(), 0);
  int merged = 0;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    Node& node = g.nodes[i];
    // Earlier merges rename this node's arguments first.
    for (Slot& s : node.inputs) {
      if (s.kind == Slot::Kind::Value && remap[s.value] >= 0) s.value = remap[s.value];
      if (s.kind == Slot::Kind::ValueList) for (int& v : s.values) if (v >= 0 && remap[v] >= 0) v = remap[v];
    }
    if (!node.handle || a.writes[i] || a.random[i] || touches_mutable(node, a)) continue;
    std::string key = node.op;
    for (const Slot& s : node.inputs) {
      key += '|';
      if (s.kind == Slot::Kind::Value) (key += 'v') += std::to_string(s.value);
      if (s.kind == Slot::Kind::ValueList) for (int v : s.values) (key += 'l') += std::to_string(v);
      if (s.kind == Slot::Kind::Constant) {
        key += 'c';
        append_constant_key(key, s.constant);
      }
    }
    auto [it, inserted] = first.emplace(std::move(key), i);
    if (inserted) continue;
    const std::vector<int> mine = node.output_values();
    const std::vector<int> theirs = g.nodes[it->second].output_values();
    if (mine.size() != theirs.size()) continue;
    for (size_t k = 0; k < mine.size(); ++k) remap[mine[k]] = theirs[k];
    drop[i] = 1;
    ++merged;
  }
  if (merged == 0) return 0;
  replace_uses(g, remap);
  std::vector<Node> kept;
  for (size_t i = 0; i < g.nodes.size(); ++i) if (!drop[i]) kept.push_back(std::move(g.nodes[i]));
  g.nodes = std::move(kept);
  g.compact();
  return merged;
}

// ---- constant folding -------------------------------------------------------------------------

int fold_constants(Graph& g, int64_t max_elements) {
  const Analysis a = analyze(g);
  std::vector<char> drop(g.nodes.size(), 0);
  int folded = 0;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& node = g.nodes[i];
    if (!node.handle || a.writes[i] || a.random[i] || touches_mutable(node, a)) continue;
    bool all_constant = true;
    for (int v : node.input_values()) {
      if (v < 0) continue;
      all_constant = all_constant && g.is_constant(v) && !g.values[v].constant.requires_grad();
    }
    if (!all_constant) continue;
    bool small = true;
    for (int v : node.output_values()) {
      int64_t n = 1;
      for (int64_t s : g.values[v].type.sizes) n *= s;
      small = small && n <= max_elements;
    }
    if (!small) continue;
    std::vector<Tensor> env(g.values.size());
    for (int v : node.input_values()) if (v >= 0) env[v] = g.values[v].constant;
    std::vector<Tensor> results;
    {
      autograd::AutoGradMode no_grad(false);
      results = call_node(node, env);
    }
    const std::vector<int> outs = node.output_values();
    for (size_t k = 0; k < outs.size(); ++k) {
      g.values[outs[k]].constant = results[k];
      g.values[outs[k]].producer = -1;
      g.values[outs[k]].type.requires_grad = false;
    }
    drop[i] = 1;
    ++folded;
  }
  if (folded == 0) return 0;
  std::vector<Node> kept;
  for (size_t i = 0; i < g.nodes.size(); ++i) if (!drop[i]) kept.push_back(std::move(g.nodes[i]));
  g.nodes = std::move(kept);
  g.compact();
  return folded;
}

// ---- no-ops -----------------------------------------------------------------------------------

int remove_noops(Graph& g) {
  const Analysis a = analyze(g);
  std::vector<int> remap(g.values.size(), -1);
  int removed = 0;
  auto resolve = [&](int v) {
    while (v >= 0 && remap[v] >= 0) v = remap[v];
    return v;
  };
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& node = g.nodes[i];
    if (!node.handle || a.writes[i] || a.random[i] || touches_mutable(node, a)) continue;
    if (node.inputs.empty() || node.inputs[0].kind != Slot::Kind::Value || node.outputs.size() != 1 ||
        node.outputs[0].kind != Slot::Kind::Value) {
      continue;
    }
    const int x = resolve(node.inputs[0].value);
    const int y = node.outputs[0].value;
    const TensorType& tx = g.values[x].type;
    const TensorType& ty = g.values[y].type;
    const std::string& op = node.op;
    const bool transpose = op == "aten::t" || op == "aten::transpose.int";
    // (a transpose changes the shape; the pair's result is checked against its base below)
    if (tx.dtype != ty.dtype || (!transpose && tx.sizes != ty.sizes) || tx.device != ty.device) continue;
    auto number = [&](size_t k) -> std::optional<double> {
      if (k >= node.inputs.size()) return std::nullopt;
      if (auto c = constant_number(node.inputs[k])) return c;
      return constant_tensor_number(g, node.inputs[k]);
    };
    bool noop = false;
    if (op == "aten::mul.Tensor" || op == "aten::mul.Scalar" || op == "aten::div.Tensor" ||
        op == "aten::div.Scalar") {
      noop = number(1) == 1.0;
    } else if (op == "aten::add.Tensor" || op == "aten::add.Scalar" || op == "aten::sub.Tensor" ||
               op == "aten::sub.Scalar") {
      noop = number(1) == 0.0;
    } else if (op == "aten::contiguous" || op == "aten::to.dtype" || op == "aten::reshape" ||
               op == "aten::view" || op == "aten::expand") {
      // Same shape and dtype checked above; contiguous and to() also keep the strides.
      noop = tx.strides == ty.strides;
      if (op == "aten::to.dtype" && node.inputs.size() > 3) {
        noop = noop && !(node.inputs[3].kind == Slot::Kind::Constant && node.inputs[3].constant.is_bool() &&
                         node.inputs[3].constant.to_bool());  // copy=True asks for a new tensor
      }
    } else if (transpose) {
      // A transpose of a transpose of x, over the same pair of dims.
      const Value& xv = g.values[x];
      if (xv.producer >= 0) {
        const Node& inner = g.nodes[xv.producer];
        auto dims = [](const Node& n) -> std::optional<std::pair<int64_t, int64_t>> {
          if (n.op == "aten::t") return std::pair<int64_t, int64_t>{0, 1};
          if (n.op == "aten::transpose.int" && n.inputs.size() == 3) {
            int64_t a0 = n.inputs[1].constant.to_int(), a1 = n.inputs[2].constant.to_int();
            return std::pair<int64_t, int64_t>{std::min(a0, a1), std::max(a0, a1)};
          }
          return std::nullopt;
        };
        auto d_outer = dims(node), d_inner = dims(inner);
        const int64_t rank = static_cast<int64_t>(tx.sizes.size());
        auto norm = [rank](std::pair<int64_t, int64_t> p) {
          int64_t a0 = p.first < 0 ? p.first + rank : p.first, a1 = p.second < 0 ? p.second + rank : p.second;
          return std::pair<int64_t, int64_t>{std::min(a0, a1), std::max(a0, a1)};
        };
        if (d_outer && d_inner && norm(*d_outer) == norm(*d_inner) && inner.inputs[0].kind == Slot::Kind::Value &&
            !a.mutable_value[inner.inputs[0].value]) {
          const int base = resolve(inner.inputs[0].value);
          if (g.values[base].type.strides == ty.strides && g.values[base].type.sizes == ty.sizes) {
            remap[y] = base;
            ++removed;
          }
        }
      }
      continue;
    }
    if (noop) {
      remap[y] = x;
      ++removed;
    }
  }
  if (removed == 0) return 0;
  std::vector<int> final_map(g.values.size(), -1);
  for (size_t v = 0; v < g.values.size(); ++v) {
    if (remap[v] >= 0) final_map[v] = resolve(static_cast<int>(v));
  }
  replace_uses(g, final_map);
  prune(g);
  return removed;
}

// ---- elementwise fusion -----------------------------------------------------------------------

namespace {

// How a fusable op reads its arguments.
struct FusableOp {
  FusedOp op;
  int tensors;  // leading tensor arguments (Where: condition, self, other)
};

const std::unordered_map<std::string, FusableOp>& fusable_ops() {
  static const std::unordered_map<std::string, FusableOp> ops = {
      {"aten::neg", {FusedOp::Neg, 1}},          {"aten::abs", {FusedOp::Abs, 1}},
      {"aten::relu", {FusedOp::Relu, 1}},        {"aten::exp", {FusedOp::Exp, 1}},
      {"aten::expm1", {FusedOp::Expm1, 1}},      {"aten::log", {FusedOp::Log, 1}},
      {"aten::log1p", {FusedOp::Log1p, 1}},      {"aten::log2", {FusedOp::Log2, 1}},
      {"aten::sqrt", {FusedOp::Sqrt, 1}},        {"aten::rsqrt", {FusedOp::Rsqrt, 1}},
      {"aten::sin", {FusedOp::Sin, 1}},          {"aten::cos", {FusedOp::Cos, 1}},
      {"aten::tanh", {FusedOp::Tanh, 1}},        {"aten::sigmoid", {FusedOp::Sigmoid, 1}},
      {"aten::erf", {FusedOp::Erf, 1}},          {"aten::gelu", {FusedOp::Gelu, 1}},
      {"aten::silu", {FusedOp::Silu, 1}},        {"aten::reciprocal", {FusedOp::Reciprocal, 1}},
      {"aten::square", {FusedOp::Square, 1}},    {"aten::add.Tensor", {FusedOp::Add, 2}},
      {"aten::sub.Tensor", {FusedOp::Sub, 2}},   {"aten::mul.Tensor", {FusedOp::Mul, 2}},
      {"aten::div.Tensor", {FusedOp::Div, 2}},   {"aten::maximum", {FusedOp::Maximum, 2}},
      {"aten::minimum", {FusedOp::Minimum, 2}},  {"aten::add.Scalar", {FusedOp::AddScalar, 1}},
      {"aten::sub.Scalar", {FusedOp::SubScalar, 1}}, {"aten::mul.Scalar", {FusedOp::MulScalar, 1}},
      {"aten::div.Scalar", {FusedOp::DivScalar, 1}}, {"aten::rsub.Scalar", {FusedOp::RSubScalar, 1}},
      {"aten::clamp", {FusedOp::Clamp, 1}},      {"aten::clamp_min", {FusedOp::Clamp, 1}},
      {"aten::clamp_max", {FusedOp::Clamp, 1}},  {"aten::where.self", {FusedOp::Where, 3}},
      {"aten::to.dtype", {FusedOp::Cast, 1}},
  };
  return ops;
}

bool is_contiguous_type(const TensorType& t) {
  // (no elements: contiguous whatever the strides, as is_contiguous() says)
  if (std::find(t.sizes.begin(), t.sizes.end(), 0) != t.sizes.end()) return true;
  int64_t acc = 1;
  for (size_t i = t.sizes.size(); i-- > 0;) {
    if (t.sizes[i] != 1 && t.strides[i] != acc) return false;
    acc *= t.sizes[i];
  }
  return true;
}

// The dims of a dense (non-overlapping, gap-free) layout in memory order, outermost first:
// empty for row-major, nullopt when the layout is not dense. Dims of size 1 keep their place.
std::optional<std::vector<int64_t>> dense_order(const TensorType& t) {
  if (is_contiguous_type(t)) return std::vector<int64_t>{};
  const int64_t nd = static_cast<int64_t>(t.sizes.size());
  std::vector<int64_t> perm(static_cast<size_t>(nd));
  std::iota(perm.begin(), perm.end(), 0);
  std::stable_sort(perm.begin(), perm.end(), [&](int64_t x, int64_t y) {
    if (t.sizes[x] == 1 || t.sizes[y] == 1) return false;
    return t.strides[x] > t.strides[y];
  });
  int64_t acc = 1;
  for (size_t k = perm.size(); k-- > 0;) {
    const int64_t d = perm[k];
    if (t.sizes[d] != 1 && t.strides[d] != acc) return std::nullopt;
    acc *= t.sizes[d];
  }
  return perm;
}

// Whether two types of the same sizes lay their elements out alike (strides of size-1 dims,
// and of tensors with no elements, do not matter).
bool same_layout(const TensorType& a, const std::vector<int64_t>& strides) {
  if (std::find(a.sizes.begin(), a.sizes.end(), 0) != a.sizes.end()) return true;
  for (size_t d = 0; d < a.sizes.size(); ++d) {
    if (a.sizes[d] != 1 && a.strides[d] != strides[d]) return false;
  }
  return true;
}

bool broadcasts_to(const std::vector<int64_t>& from, const std::vector<int64_t>& to) {
  if (from.size() > to.size()) return false;
  for (size_t i = 0; i < from.size(); ++i) {
    const int64_t f = from[from.size() - 1 - i], t = to[to.size() - 1 - i];
    if (f != t && f != 1) return false;
  }
  return true;
}

// The instruction node `n` stands for, with its scalar operands; nullopt when it cannot join
// a fused program of dtype `dtype` over `sizes`.
std::optional<FusedInstr> as_instr(const Graph& g, const Node& n, const Analysis& a, size_t index,
                                   ScalarType dtype, const std::vector<int64_t>& sizes) {
  if (!n.handle || a.writes[index] || a.random[index] || touches_mutable(n, a)) return std::nullopt;
  auto it = fusable_ops().find(n.op);
  if (it == fusable_ops().end()) return std::nullopt;
  if (n.outputs.size() != 1 || n.outputs[0].kind != Slot::Kind::Value) return std::nullopt;
  const TensorType& out = g.values[n.outputs[0].value].type;
  if (out.dtype != dtype || out.sizes != sizes || !out.device.is_cpu() || !dense_order(out)) {
    return std::nullopt;
  }
  const FusableOp f = it->second;
  if (static_cast<int>(n.inputs.size()) < f.tensors) return std::nullopt;
  for (int k = 0; k < f.tensors; ++k) {
    const Slot& s = n.inputs[k];
    if (s.kind != Slot::Kind::Value) return std::nullopt;
    const TensorType& t = g.values[s.value].type;
    const bool condition = f.op == FusedOp::Where && k == 0;
    // A cast reads another dtype the tile loader converts (a same-dtype to() is self itself).
    const bool dtype_ok = condition ? t.dtype == ScalarType::Bool
                          : f.op == FusedOp::Cast ? t.dtype != dtype && native::fused_loads(t.dtype)
                                                  : t.dtype == dtype;
    if (!dtype_ok || !t.device.is_cpu() || !broadcasts_to(t.sizes, sizes)) return std::nullopt;
  }
  FusedInstr in;
  in.op = f.op;
  auto number = [&](size_t k, double fallback) -> std::optional<double> {
    if (k >= n.inputs.size()) return fallback;
    const Slot& s = n.inputs[k];
    if (s.kind == Slot::Kind::Constant && s.constant.is_none()) return fallback;
    return constant_number(s);
  };
  switch (f.op) {
    case FusedOp::Add: case FusedOp::Sub: {
      auto alpha = number(2, 1.0);
      if (!alpha) return std::nullopt;
      in.s1 = *alpha;
      break;
    }
    case FusedOp::AddScalar: case FusedOp::SubScalar: {
      auto other = number(1, 0.0), alpha = number(2, 1.0);
      if (!other || !alpha || n.inputs[1].constant.is_none()) return std::nullopt;
      in.s0 = *other;
      in.s1 = *alpha;
      break;
    }
    case FusedOp::MulScalar: case FusedOp::DivScalar: {
      auto other = number(1, 0.0);
      if (!other || n.inputs[1].constant.is_none()) return std::nullopt;
      in.s0 = *other;
      break;
    }
    case FusedOp::RSubScalar: {
      auto other = number(1, 0.0), alpha = number(2, 1.0);
      if (!other || !alpha || *alpha != 1.0 || n.inputs[1].constant.is_none()) return std::nullopt;
      in.s0 = *other;
      break;
    }
    case FusedOp::Clamp: {
      const double inf = std::numeric_limits<double>::infinity();
      if (n.op == "aten::clamp_min" || n.op == "aten::clamp_max") {
        auto bound = number(1, 0.0);
        if (!bound || n.inputs[1].constant.is_none()) return std::nullopt;
        in.s0 = n.op == "aten::clamp_min" ? *bound : -inf;
        in.s1 = n.op == "aten::clamp_max" ? *bound : inf;
      } else {
        auto lo = number(1, -inf), hi = number(2, inf);
        if (!lo || !hi) return std::nullopt;
        in.s0 = *lo;
        in.s1 = *hi;
      }
      break;
    }
    case FusedOp::Cast: {
      // to.dtype(self, dtype, non_blocking, copy, memory_format): a layout request other than
      // preserve is left to the op (the fused output is contiguous, which the check above
      // asked of the traced result anyway).
      if (n.inputs.size() > 4) {
        const Slot& m = n.inputs[4];
        if (m.kind != Slot::Kind::Constant) return std::nullopt;
        // (a MemoryFormat travels as its int)
        if (!m.constant.is_none() &&
            !(m.constant.is_int() && m.constant.to_int() == static_cast<int64_t>(MemoryFormat::Preserve))) {
          return std::nullopt;
        }
      }
      break;
    }
    case FusedOp::Gelu: {
      if (n.inputs.size() > 1) {
        const Slot& s = n.inputs[1];
        if (s.kind != Slot::Kind::Constant || !s.constant.is_string()) return std::nullopt;
        if (s.constant.to_string() == "tanh") in.op = FusedOp::GeluTanh;
        else if (s.constant.to_string() != "none") return std::nullopt;
      }
      break;
    }
    default:
      break;
  }
  return in;
}

// The reduction node `n` stands for when it reads a result of the chain `sizes` of `dtype`
// and reduces trailing dims in the chain's dtype (Note [Fused reductions]); nullopt when not.
std::optional<FusedReduction> as_reduction(const Graph& g, const Node& n, const Analysis& a, size_t index,
                                           ScalarType dtype, const std::vector<int64_t>& sizes) {
  static const std::unordered_map<std::string, FusedReduce> ops = {
      {"aten::sum", FusedReduce::Sum},   {"aten::sum.dim_IntList", FusedReduce::Sum},
      {"aten::mean", FusedReduce::Mean}, {"aten::mean.dim", FusedReduce::Mean},
      {"aten::amax", FusedReduce::Amax}, {"aten::amin", FusedReduce::Amin},
  };
  if (!n.handle || a.writes[index] || a.random[index] || touches_mutable(n, a)) return std::nullopt;
  auto it = ops.find(n.op);
  if (it == ops.end() || n.inputs.empty() || n.inputs[0].kind != Slot::Kind::Value) return std::nullopt;
  if (n.outputs.size() != 1 || n.outputs[0].kind != Slot::Kind::Value) return std::nullopt;
  const TensorType& in = g.values[n.inputs[0].value].type;
  const TensorType& out = g.values[n.outputs[0].value].type;
  if (in.dtype != dtype || in.sizes != sizes || out.dtype != dtype || !out.device.is_cpu() ||
      !is_contiguous_type(out)) {
    return std::nullopt;
  }
  int64_t numel = 1;
  for (int64_t s : sizes) numel *= s;
  if (numel == 0) return std::nullopt;
  // The dims: sum(self, dtype) and mean(self, dtype) reduce everything; the others take
  // (self, dim, keepdim[, dtype]) with dim None or [] for everything.
  const bool whole = n.op == "aten::sum" || n.op == "aten::mean";
  const size_t dtype_arg = whole ? 1 : 3;
  if (it->second != FusedReduce::Amax && it->second != FusedReduce::Amin && n.inputs.size() > dtype_arg) {
    const Slot& d = n.inputs[dtype_arg];
    if (d.kind != Slot::Kind::Constant || !d.constant.is_none()) return std::nullopt;
  }
  const int64_t nd = static_cast<int64_t>(sizes.size());
  std::vector<int64_t> dims;
  if (!whole && n.inputs.size() > 1) {
    const Slot& d = n.inputs[1];
    if (d.kind != Slot::Kind::Constant) return std::nullopt;
    if (d.constant.is_int_list()) dims = d.constant.to_int_list();
    else if (!d.constant.is_none()) return std::nullopt;
  }
  FusedReduction r;
  r.op = it->second;
  r.sizes = out.sizes;
  if (dims.empty()) {
    r.inner = numel;
    return r;
  }
  std::vector<char> reduced(static_cast<size_t>(std::max<int64_t>(nd, 1)), 0);
  for (int64_t d : dims) {
    const int64_t w = d < 0 ? d + std::max<int64_t>(nd, 1) : d;
    if (w < 0 || w >= std::max<int64_t>(nd, 1) || reduced[static_cast<size_t>(w)]) return std::nullopt;
    reduced[static_cast<size_t>(w)] = 1;
  }
  // Trailing dims only: a reduced dim followed by a kept one is a strided reduction.
  r.inner = 1;
  bool seen = false;
  for (int64_t d = 0; d < nd; ++d) {
    if (reduced[static_cast<size_t>(d)]) {
      seen = true;
      r.inner *= sizes[static_cast<size_t>(d)];
    } else if (seen) {
      return std::nullopt;
    }
  }
  return r;
}

// Folds a multiply by a scalar into the add or sub that reads it: a + 1*(s*y) becomes
// a + s*y (Add with alpha s) and a + (-1)*(s*y) becomes a + (-s)*y (Sub with alpha s), one
// tile pass fewer. Bitwise the same: (-1)*(s*y) = -(s*y) = (-s)*y exactly, and addition
// commutes. Only where alpha is 1 (else alpha*(s*y) and (alpha*s)*y round differently) and
// the product is read by that instruction alone, once, and is no output.
void fold_scaled_operands(FusedProgram& p) {
  std::vector<int> reads(static_cast<size_t>(p.num_registers), 0);
  for (const FusedInstr& in : p.code) {
    for (int r : {in.a, in.b, in.c}) if (r >= 0) ++reads[static_cast<size_t>(r)];
  }
  for (int r : p.outputs) reads[static_cast<size_t>(r)] += 2;
  if (p.reduction.reg >= 0) reads[static_cast<size_t>(p.reduction.reg)] += 2;
  std::vector<int> producer(static_cast<size_t>(p.num_registers), -1);
  for (size_t i = 0; i < p.code.size(); ++i) producer[static_cast<size_t>(p.code[i].dst)] = static_cast<int>(i);
  std::vector<char> dead(p.code.size(), 0);
  for (FusedInstr& in : p.code) {
    if ((in.op != FusedOp::Add && in.op != FusedOp::Sub) || in.s1 != 1 || in.a == in.b) continue;
    auto scaled = [&](int r) -> FusedInstr* {
      const int k = producer[static_cast<size_t>(r)];
      if (k < 0 || dead[static_cast<size_t>(k)] || reads[static_cast<size_t>(r)] != 1) return nullptr;
      FusedInstr& m = p.code[static_cast<size_t>(k)];
      return m.op == FusedOp::MulScalar ? &m : nullptr;
    };
    if (in.op == FusedOp::Add && !scaled(in.b) && scaled(in.a)) std::swap(in.a, in.b);
    FusedInstr* m = scaled(in.b);
    if (!m) continue;
    in.b = m->a;
    in.s1 = m->s0;
    dead[static_cast<size_t>(producer[static_cast<size_t>(m->dst)])] = 1;
  }
  size_t kept = 0;
  for (size_t i = 0; i < p.code.size(); ++i) {
    if (!dead[i]) p.code[kept++] = p.code[i];
  }
  p.code.resize(kept);
}

struct Group {
  ScalarType dtype = ScalarType::Float;
  std::vector<int64_t> sizes;
  std::vector<size_t> members;           // node indices
  std::unordered_map<int, int> reg_of;   // graph value -> register
  std::vector<int> input_values;         // registers 0..n-1, in order
  std::vector<std::pair<FusedInstr, std::vector<int>>> instrs;  // with the tensor values read
  std::vector<int64_t> strides;          // the members' results', all the same dense layout
  std::optional<size_t> reduce_node;     // a reduction ending the chain
  FusedReduction reduction;              // its reg is the graph value it reads
};

}  // namespace

int fuse_elementwise(Graph& g) {
  const Analysis a = analyze(g);
  // Which nodes read each value, and whether the graph returns it.
  // (Flat: value v's readers are reader[first_reader[v] .. first_reader[v + 1]).)
  std::vector<size_t> first_reader(g.values.size() + 1, 0), reader;
  for (const Node& node : g.nodes) node.for_each_input([&](int v) { if (v >= 0) ++first_reader[v + 1]; });
  for (size_t v = 0; v < g.values.size(); ++v) first_reader[v + 1] += first_reader[v];
  reader.resize(first_reader.back());
  {
    std::vector<size_t> fill(first_reader.begin(), first_reader.end() - 1);
    for (size_t i = 0; i < g.nodes.size(); ++i) {
      g.nodes[i].for_each_input([&](int v) { if (v >= 0) reader[fill[v]++] = i; });
    }
  }
  std::vector<char> returned(g.values.size(), 0);
  for (int v : g.outputs) returned[v] = 1;

  std::vector<Node> out_nodes;
  out_nodes.reserve(g.nodes.size());
  int fused_away = 0;
  Group group;
  std::vector<char> in_group(g.nodes.size(), 0);
  // Graph value -> register of the group being closed (-1 elsewhere; reset after each group).
  std::vector<int> reg(g.values.size(), -1);

  auto close = [&] {
    if (group.members.empty()) return;
    if (group.members.size() == 1 && !group.reduce_node) {
      out_nodes.push_back(std::move(g.nodes[group.members[0]]));
    } else {
      auto p = std::make_shared<FusedProgram>();
      p->dtype = group.dtype;
      p->sizes = group.sizes;
      TensorType layout;
      layout.sizes = group.sizes;
      layout.strides = group.strides;
      p->perm = *dense_order(layout);
      p->num_inputs = static_cast<int>(group.input_values.size());
      // Registers: inputs first, then one per member's result, in order.
      for (size_t k = 0; k < group.input_values.size(); ++k) reg[group.input_values[k]] = static_cast<int>(k);
      std::vector<int> assigned(group.input_values.begin(), group.input_values.end());
      const auto reg_at = [&](int v) {
        EMBER_INTERNAL_ASSERT(v >= 0 && reg[v] >= 0, "fusion: a member reads a value outside its group");
        return reg[v];
      };
      int next = p->num_inputs;
      Node fused;
      fused.op = "ember::fused_elementwise";
      fused.source = g.nodes[group.members[0]].source;
      for (int v : group.input_values) fused.inputs.push_back(Slot::of_value(v));
      for (size_t m = 0; m < group.members.size(); ++m) {
        const size_t idx = group.members[m];
        FusedInstr in = group.instrs[m].first;
        const std::vector<int>& reads = group.instrs[m].second;
        in.dst = static_cast<int16_t>(next);
        if (in.op == FusedOp::Where) {
          in.c = static_cast<int16_t>(reg_at(reads[0]));
          in.a = static_cast<int16_t>(reg_at(reads[1]));
          in.b = static_cast<int16_t>(reg_at(reads[2]));
        } else {
          in.a = static_cast<int16_t>(reg_at(reads[0]));
          if (reads.size() > 1) in.b = static_cast<int16_t>(reg_at(reads[1]));
        }
        p->code.push_back(in);
        // The unfused form, over registers, for runs autograd records.
        // (The member's node moves: the fused node replaces it in the graph.)
        Node u = std::move(g.nodes[idx]);
        for (Slot& s : u.inputs) if (s.kind == Slot::Kind::Value) s.value = reg_at(s.value);
        const int result = u.outputs[0].value;
        u.outputs[0].value = next;
        p->unfused.push_back(std::move(u));
        reg[result] = next++;
        assigned.push_back(result);
        // Results read outside the group (or returned) become the fused node's outputs.
        bool escapes = returned[result];
        for (size_t k = first_reader[result]; k < first_reader[result + 1]; ++k) {
          escapes = escapes || !in_group[reader[k]];
        }
        if (escapes) {
          p->outputs.push_back(reg[result]);
          fused.outputs.push_back(Slot::of_value(result));
        }
      }
      if (group.reduce_node) {
        Node u = std::move(g.nodes[*group.reduce_node]);
        p->reduction = group.reduction;
        p->reduction.reg = reg_at(group.reduction.reg);
        for (Slot& s : u.inputs) if (s.kind == Slot::Kind::Value) s.value = reg_at(s.value);
        const int result = u.outputs[0].value;
        u.outputs[0].value = next;
        p->unfused.push_back(std::move(u));
        p->outputs.push_back(next++);
        fused.outputs.push_back(Slot::of_value(result));
        fused_away += 1;
      }
      p->num_registers = next;
      EMBER_INTERNAL_ASSERT(next < 32767, "fusion: too many registers");
      for (int v : assigned) reg[v] = -1;
      fold_scaled_operands(*p);
      fused.fused = std::move(p);
      out_nodes.push_back(std::move(fused));
      fused_away += static_cast<int>(group.members.size()) - 1;
    }
    for (size_t idx : group.members) in_group[idx] = 0;
    if (group.reduce_node) in_group[*group.reduce_node] = 0;
    group = Group();
  };

  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& node = g.nodes[i];
    // A reduction of a result of the chain ends it (Note [Fused reductions]).
    if (!group.members.empty() && !node.inputs.empty() && node.inputs[0].kind == Slot::Kind::Value) {
      auto r = group.reg_of.find(node.inputs[0].value);
      if (r != group.reg_of.end() && r->second == 1 && is_contiguous_type(g.values[node.inputs[0].value].type)) {
        if (auto red = as_reduction(g, node, a, i, group.dtype, group.sizes)) {
          group.reduction = *red;
          group.reduction.reg = node.inputs[0].value;
          group.reduce_node = i;
          in_group[i] = 1;
          close();
          continue;
        }
      }
    }
    std::optional<FusedInstr> instr;
    const bool shaped = node.outputs.size() == 1 && node.outputs[0].kind == Slot::Kind::Value;
    if (shaped) {
      const TensorType& t = g.values[node.outputs[0].value].type;
      if (!group.members.empty() &&
          (t.dtype != group.dtype || t.sizes != group.sizes || !same_layout(t, group.strides))) {
        // A different shape, dtype or layout starts its own chain only if it could fuse at all.
        if (as_instr(g, node, a, i, t.dtype, t.sizes)) close();
      }
      if (t.dtype == ScalarType::Float || t.dtype == ScalarType::Double) {
        instr = as_instr(g, node, a, i, t.dtype, t.sizes);
      }
    }
    bool reads_group = false;
    node.for_each_input([&](int v) { reads_group = reads_group || (v >= 0 && group.reg_of.count(v)); });
    if (!instr) {
      if (reads_group) close();
      out_nodes.push_back(std::move(g.nodes[i]));
      continue;
    }
    const TensorType& t = g.values[node.outputs[0].value].type;
    if (group.members.empty()) {
      group.dtype = t.dtype;
      group.sizes = t.sizes;
      group.strides = t.strides;
    }
    const int tensors = fusable_ops().at(node.op).tensors;
    std::vector<int> reads;
    for (int k = 0; k < tensors; ++k) {
      const int v = node.inputs[k].value;
      reads.push_back(v);
      if (!group.reg_of.count(v)) {
        group.reg_of[v] = -1;  // an input of the group
        group.input_values.push_back(v);
      }
    }
    group.reg_of[node.outputs[0].value] = 1;
    group.members.push_back(i);
    in_group[i] = 1;
    group.instrs.emplace_back(*instr, std::move(reads));
  }
  close();
  g.nodes = std::move(out_nodes);
  g.compact();
  return fused_away;
}

std::vector<std::pair<std::string, int>> optimize(Graph& g, const OptimizeOptions& o) {
  std::vector<std::pair<std::string, int>> changed;
  auto step = [&](const char* name, int n) {
    if (n > 0) changed.emplace_back(name, n);
  };
  if (o.remove_noops) step("remove_noops", remove_noops(g));
  if (o.fold_constants) step("fold_constants", fold_constants(g));
  if (o.eliminate_common_subexpressions) step("eliminate_common_subexpressions", eliminate_common_subexpressions(g));
  step("prune", prune(g));
  if (o.fuse) step("fuse_elementwise", fuse_elementwise(g));
  g.verify();
  return changed;
}

}  // namespace ember::jit
