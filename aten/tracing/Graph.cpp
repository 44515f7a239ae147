// The traced graph (Graph.h): printing, invariants, and the interpreter that runs it.
#include "aten/tracing/Graph.h"

#include <algorithm>
#include <sstream>

#include "aten/autograd/GradMode.h"
#include "aten/native/fused.h"
#include "aten/tracing/Fusion.h"
#include "c10/util/Exception.h"
#include "ember/generated/ops/empty.h"

namespace ember::jit {
namespace {

const char* short_dtype(ScalarType t) {
  switch (t) {
    case ScalarType::Float: return "f32";
    case ScalarType::Double: return "f64";
    case ScalarType::Half: return "f16";
    case ScalarType::BFloat16: return "bf16";
    case ScalarType::Long: return "i64";
    case ScalarType::Int: return "i32";
    case ScalarType::Short: return "i16";
    case ScalarType::Char: return "i8";
    case ScalarType::Byte: return "u8";
    case ScalarType::Bool: return "bool";
    case ScalarType::ComplexFloat: return "c64";
    case ScalarType::ComplexDouble: return "c128";
    default: return scalar_type_name(t);
  }
}

std::vector<int64_t> contiguous_strides(const std::vector<int64_t>& sizes) {
  std::vector<int64_t> s(sizes.size());
  int64_t acc = 1;
  for (size_t i = sizes.size(); i-- > 0;) {
    s[i] = acc;
    acc *= std::max<int64_t>(sizes[i], 1);
  }
  return s;
}

std::string constant_str(const IValue& c) {
  if (c.is_tensor()) {
    const Tensor& t = c.to_tensor();
    if (!t.defined()) return "None";
    return "constant(" + TensorType::of(t).str() + ")";
  }
  return c.repr();
}

}  // namespace

TensorType TensorType::of(const Tensor& t) {
  TensorType ty;
  ty.dtype = t.dtype();
  ty.sizes = t.sizes().vec();
  ty.strides = t.strides().vec();
  ty.device = t.device();
  ty.requires_grad = t.requires_grad();
  return ty;
}

std::string TensorType::str() const {
  std::ostringstream os;
  os << short_dtype(dtype) << '[';
  for (size_t i = 0; i < sizes.size(); ++i) os << (i ? ", " : "") << sizes[i];
  os << ']';
  if (strides != contiguous_strides(sizes)) {
    os << "{strides ";
    for (size_t i = 0; i < strides.size(); ++i) os << (i ? ", " : "") << strides[i];
    os << '}';
  }
  if (!device.is_cpu()) os << '@' << device;
  if (requires_grad) os << " grad";
  return os.str();
}

Slot Slot::of_value(int v) {
  Slot s;
  s.kind = Kind::Value;
  s.value = v;
  return s;
}
Slot Slot::of_list(std::vector<int> vs) {
  Slot s;
  s.kind = Kind::ValueList;
  s.values = std::move(vs);
  return s;
}
Slot Slot::of_constant(IValue c) {
  Slot s;
  s.kind = Kind::Constant;
  s.constant = std::move(c);
  return s;
}

std::vector<int> Node::input_values() const {
  std::vector<int> out;
  for_each_input([&](int v) { out.push_back(v); });
  return out;
}

std::vector<int> Node::output_values() const {
  std::vector<int> out;
  for_each_output([&](int v) { out.push_back(v); });
  return out;
}

int Graph::add_value(TensorType type, std::string name, int producer) {
  values.push_back(Value{std::move(name), std::move(type), producer, Tensor()});
  return static_cast<int>(values.size()) - 1;
}

int Graph::add_constant(const Tensor& t) {
  values.push_back(Value{std::string(), TensorType::of(t), -1, t});
  return static_cast<int>(values.size()) - 1;
}

std::string Graph::value_name(int v) const {
  if (v >= 0 && v < static_cast<int>(values.size()) && !values[v].name.empty()) {
    return "%" + values[v].name;
  }
  return "%" + std::to_string(v);
}

std::string Graph::str() const {
  std::ostringstream os;
  auto slot_str = [&](const Slot& s) {
    switch (s.kind) {
      case Slot::Kind::Value: return value_name(s.value);
      case Slot::Kind::ValueList: {
        std::string r = "[";
        for (size_t i = 0; i < s.values.size(); ++i) r += (i ? ", " : "") + value_name(s.values[i]);
        return r + "]";
      }
      case Slot::Kind::Constant: return constant_str(s.constant);
    }
    return std::string();
  };
  os << "graph(";
  for (size_t i = 0; i < inputs.size(); ++i) {
    os << (i ? ",\n      " : "") << value_name(inputs[i]) << " : " << values[inputs[i]].type.str();
  }
  os << "):\n";
  for (size_t v = 0; v < values.size(); ++v) {
    if (is_constant(static_cast<int>(v))) {
      os << "  " << value_name(static_cast<int>(v)) << " : " << values[v].type.str() << " = constant\n";
    }
  }
  for (const Node& n : nodes) {
    const std::vector<int> outs = n.output_values();
    os << "  ";
    for (size_t i = 0; i < outs.size(); ++i) {
      os << (i ? ", " : "") << value_name(outs[i]) << " : " << values[outs[i]].type.str();
    }
    os << " = " << n.op << '(';
    for (size_t i = 0; i < n.inputs.size(); ++i) os << (i ? ", " : "") << slot_str(n.inputs[i]);
    os << ')';
    if (!n.source.empty()) os << "  # " << n.source;
    os << '\n';
    if (n.fused) {
      std::istringstream lines(n.fused->str());
      for (std::string line; std::getline(lines, line);) os << "      | " << line << '\n';
    }
  }
  os << "  return (";
  for (size_t i = 0; i < outputs.size(); ++i) os << (i ? ", " : "") << value_name(outputs[i]);
  os << ")\n";
  return os.str();
}

void Graph::verify() const {
  const int n = static_cast<int>(values.size());
  std::vector<int> defined_at(values.size(), -2);  // -2: not yet defined
  auto check_id = [&](int v, const char* what) {
    EMBER_CHECK(v >= 0 && v < n, "jit graph: ", what, " names value %", v, ", but the graph has ",
                n, " values");
  };
  for (int v : inputs) {
    check_id(v, "an input");
    EMBER_CHECK(defined_at[v] == -2, "jit graph: value ", value_name(v), " is defined twice");
    defined_at[v] = -1;
  }
  for (int v = 0; v < n; ++v) {
    if (is_constant(v)) {
      EMBER_CHECK(defined_at[v] == -2, "jit graph: the constant ", value_name(v), " is also an input");
      defined_at[v] = -1;
    }
  }
  for (size_t i = 0; i < nodes.size(); ++i) {
    const Node& node = nodes[i];
    EMBER_CHECK(node.handle.has_value() || node.fused, "jit graph: node ", i, " (", node.op,
                ") has no operator");
    node.for_each_input([&](int v) {
      if (v < 0) return;  // a None element of a list
      check_id(v, "a node input");
      EMBER_CHECK(defined_at[v] != -2, "jit graph: node ", i, " (", node.op, ") uses ",
                  value_name(v), " before it is defined");
    });
    node.for_each_output([&](int v) {
      check_id(v, "a node output");
      EMBER_CHECK(defined_at[v] == -2, "jit graph: value ", value_name(v), " is defined twice");
      defined_at[v] = static_cast<int>(i);
    });
  }
  for (int v : outputs) {
    check_id(v, "an output");
    EMBER_CHECK(defined_at[v] != -2, "jit graph: the output ", value_name(v), " is never defined");
  }
}

void Graph::compact() {
  std::vector<int> remap(values.size(), -1);
  std::vector<Value> kept;
  kept.reserve(values.size());
  auto define = [&](int v, int producer) {
    remap[v] = static_cast<int>(kept.size());
    Value value = std::move(values[v]);  // each value is defined once; values is replaced below
    value.producer = producer;
    kept.push_back(std::move(value));
  };
  for (int v : inputs) define(v, -1);
  std::vector<char> used(values.size(), 0);
  for (const Node& node : nodes) {
    node.for_each_input([&](int v) {
      if (v >= 0) used[v] = 1;
    });
  }
  for (int v : outputs) used[v] = 1;
  for (size_t v = 0; v < values.size(); ++v) {
    if (is_constant(static_cast<int>(v)) && used[v]) define(static_cast<int>(v), -1);
  }
  for (size_t i = 0; i < nodes.size(); ++i) {
    nodes[i].for_each_output([&](int v) { define(v, static_cast<int>(i)); });
  }
  auto fix = [&](Slot& s) {
    if (s.kind == Slot::Kind::Value) s.value = remap[s.value];
    if (s.kind == Slot::Kind::ValueList) {
      for (int& v : s.values) v = v < 0 ? v : remap[v];
    }
  };
  for (int& v : inputs) v = remap[v];
  for (Node& node : nodes) {
    for (Slot& s : node.inputs) fix(s);
    for (Slot& s : node.outputs) fix(s);
  }
  for (int& v : outputs) v = remap[v];
  values = std::move(kept);
}

std::vector<Tensor> call_node(const Node& node, const std::vector<Tensor>& env) {
  if (node.fused) {
    std::vector<Tensor> args;
    bool record = false;
    for (int v : node.input_values()) {
      args.push_back(env[v]);
      record = record || args.back().requires_grad();
    }
    if (!record || !autograd::GradMode::is_enabled()) return native::fused_elementwise(*node.fused, args);
    // Autograd must see the ops: run the chain it replaced, over the same registers.
    const FusedProgram& p = *node.fused;
    std::vector<Tensor> regs(static_cast<size_t>(p.num_registers));
    for (size_t i = 0; i < args.size(); ++i) regs[i] = args[i];
    for (const Node& u : p.unfused) {
      std::vector<Tensor> r = call_node(u, regs);
      const std::vector<int> outs = u.output_values();
      for (size_t k = 0; k < outs.size(); ++k) regs[outs[k]] = std::move(r[k]);
    }
    std::vector<Tensor> out;
    for (int r : p.outputs) out.push_back(regs[r]);
    return out;
  }
  Stack stack;
  stack.reserve(node.inputs.size());
  for (const Slot& s : node.inputs) {
    switch (s.kind) {
      case Slot::Kind::Value: stack.emplace_back(env[s.value]); break;
      case Slot::Kind::ValueList: {
        std::vector<Tensor> list;
        list.reserve(s.values.size());
        for (int v : s.values) list.push_back(v < 0 ? Tensor() : env[v]);
        stack.emplace_back(std::move(list));
        break;
      }
      case Slot::Kind::Constant: stack.push_back(s.constant); break;
    }
  }
  node.handle->call_boxed(&stack);
  std::vector<Tensor> out;
  EMBER_CHECK(stack.size() == node.outputs.size(), "jit graph: ", node.op, " returned ",
              stack.size(), " values, but the graph recorded ", node.outputs.size());
  for (size_t i = 0; i < node.outputs.size(); ++i) {
    const Slot& s = node.outputs[i];
    if (s.kind == Slot::Kind::Value) {
      out.push_back(std::move(stack[i]).to_tensor());
    } else {
      const std::vector<Tensor>& list = stack[i].to_tensor_list();
      EMBER_CHECK(list.size() == s.values.size(), "jit graph: ", node.op, " returned ", list.size(),
                  " tensors, but the graph recorded ", s.values.size(),
                  "; the number of results depends on the input's values or shape");
      out.insert(out.end(), list.begin(), list.end());
    }
  }
  return out;
}

std::vector<Tensor> run(const Graph& graph, const std::vector<Tensor>& inputs) {
  EMBER_CHECK_VALUE(inputs.size() == graph.inputs.size(), "jit graph: expected ",
                    graph.inputs.size(), " inputs, but got ", inputs.size());
  // The last node that reads each value, so the interpreter can drop it there.
  std::vector<int> last_use(graph.values.size(), -1);
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    graph.nodes[i].for_each_input([&](int v) {
      if (v >= 0) last_use[v] = static_cast<int>(i);
    });
  }
  for (int v : graph.outputs) last_use[v] = static_cast<int>(graph.nodes.size());
  std::vector<Tensor> env(graph.values.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Value& expected = graph.values[graph.inputs[i]];
    const Tensor& t = inputs[i];
    EMBER_CHECK_VALUE(t.defined(), "jit graph: input ", i, " (", graph.value_name(graph.inputs[i]),
                      ") is undefined");
    // A graph is specialised to the traced shapes: its view and reshape nodes hold the
    // traced sizes and a fused node its broadcast, so another shape is an error here, not a
    // wrong answer or a puzzling one further on (ember.compile retraces on a new shape).
    EMBER_CHECK_TYPE(t.dtype() == expected.type.dtype && t.sizes() == IntArrayRef(expected.type.sizes) &&
                         t.device() == expected.type.device,
                     "jit graph: expected input ", i, " (", graph.value_name(graph.inputs[i]), ") to be ",
                     expected.type.str(), " as traced, but got ", TensorType::of(t).str(),
                     " (a graph runs on the dtypes, shapes and devices it was traced with; trace "
                     "again, or use ember.compile, which retraces on a new shape)");
    env[graph.inputs[i]] = t;
  }
  for (size_t v = 0; v < graph.values.size(); ++v) {
    if (graph.is_constant(static_cast<int>(v))) env[v] = graph.values[v].constant;
  }
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    const Node& node = graph.nodes[i];
    std::vector<Tensor> results = call_node(node, env);
    size_t k = 0;
    node.for_each_output([&](int v) {
      if (last_use[v] >= 0) env[v] = std::move(results[k]);  // else unused
      ++k;
    });
    node.for_each_input([&](int v) {
      if (v >= 0 && last_use[v] == static_cast<int>(i)) env[v] = Tensor();
    });
  }
  std::vector<Tensor> out;
  out.reserve(graph.outputs.size());
  for (int v : graph.outputs) out.push_back(env[v]);
  return out;
}

}  // namespace ember::jit
