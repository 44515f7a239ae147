// The tracer (Tracer.h): a boxed fallback at DispatchKey::Tracer that records calls.
#include "aten/tracing/Tracer.h"

#include <memory>
#include <unordered_map>

#include "c10/core/LocalDispatchKeySet.h"
#include "c10/dispatch/Library.h"
#include "c10/util/Exception.h"

namespace ember::jit {
namespace {

struct TraceState {
  Graph graph;
  // The value each tensor seen so far stands for. The tensors are kept alive by `seen`
  // while the trace runs, so an address is never reused by another tensor.
  std::unordered_map<const TensorImpl*, int> value_of;
  std::vector<Tensor> seen;
};

thread_local std::unique_ptr<TraceState> tls_trace;
SourceHook source_hook = nullptr;

std::string source_line() { return source_hook ? source_hook() : std::string(); }

// The value standing for t: the one that made it, else a new constant (Note [Graph values]).
int value_for(TraceState& st, const Tensor& t) {
  auto it = st.value_of.find(t.impl());
  if (it != st.value_of.end()) return it->second;
  const int v = st.graph.add_constant(t);
  st.value_of.emplace(t.impl(), v);
  st.seen.push_back(t);
  return v;
}

int define(TraceState& st, const Tensor& t, int producer) {
  const int v = st.graph.add_value(TensorType::of(t), {}, producer);
  st.value_of[t.impl()] = v;
  st.seen.push_back(t);
  return v;
}

bool is_traced(const TraceState& st, const Tensor& t) {
  if (!t.defined()) return false;
  auto it = st.value_of.find(t.impl());
  return it != st.value_of.end() && !st.graph.is_constant(it->second);
}

[[noreturn]] void data_read_error(const char* what, const std::string& where) {
  EMBER_CHECK(false, "jit.trace(): ", what, " reads the value of a traced tensor",
              where.empty() ? std::string() : " (at " + where + ")",
              "; a trace records ops, not the values that chose them, so the graph would "
              "silently keep this one. Pass the value in as an input, compute it outside the "
              "traced function, or branch with ember.cond(pred, true_fn, false_fn, operands)");
}

void trace_op(const OperatorHandle& op, DispatchKeySet keys, Stack* stack) {
  TraceState* st = tls_trace.get();
  const DispatchKeySet below = keys.below(DispatchKey::Tracer);
  if (st == nullptr) {
    op.redispatch_boxed(below, stack);
    return;
  }
  const FunctionSchema& schema = op.schema();
  const size_t n = schema.arguments.size();
  EMBER_INTERNAL_ASSERT(stack->size() >= n, "tracer: fewer arguments on the stack than the schema has");
  const size_t first = stack->size() - n;

  for (const Argument& r : schema.returns) {
    if (r.type.base == BaseType::Tensor) continue;
    for (size_t i = first; i < stack->size(); ++i) {
      const IValue& a = (*stack)[i];
      if (a.is_tensor() && is_traced(*st, a.to_tensor())) {
        const std::string name = op.name().str();
        const std::string what = name == "aten::_local_scalar_dense" ? "item()" : name + "()";
        data_read_error(what.c_str(), source_line());
      }
    }
  }

  Node node;
  node.op = op.name().str();
  node.handle = op;
  node.source = source_line();
  node.inputs.reserve(n);
  for (size_t i = first; i < stack->size(); ++i) {
    const IValue& a = (*stack)[i];
    if (a.is_tensor() && a.to_tensor().defined()) {
      node.inputs.push_back(Slot::of_value(value_for(*st, a.to_tensor())));
    } else if (a.is_tensor_list()) {
      std::vector<int> vs;
      for (const Tensor& t : a.to_tensor_list()) vs.push_back(t.defined() ? value_for(*st, t) : -1);
      node.inputs.push_back(Slot::of_list(std::move(vs)));
    } else if (a.is_tensor()) {
      node.inputs.push_back(Slot::of_constant(IValue()));
    } else {
      node.inputs.push_back(Slot::of_constant(a));
    }
  }
  {
    ExcludeDispatchKeyGuard no_retrace(DispatchKey::Tracer);
    op.redispatch_boxed(below, stack);
  }
  const int index = static_cast<int>(st->graph.nodes.size());
  const size_t m = schema.returns.size();
  EMBER_INTERNAL_ASSERT(stack->size() >= m, "tracer: fewer returns on the stack than the schema has");
  for (size_t i = stack->size() - m; i < stack->size(); ++i) {
    const IValue& r = (*stack)[i];
    if (r.is_tensor_list()) {
      std::vector<int> vs;
      for (const Tensor& t : r.to_tensor_list()) vs.push_back(define(*st, t, index));
      node.outputs.push_back(Slot::of_list(std::move(vs)));
    } else {
      EMBER_CHECK(r.is_tensor() && r.to_tensor().defined(), "jit.trace(): ", node.op,
                  " returned an undefined tensor or a non-tensor, which a graph cannot hold");
      node.outputs.push_back(Slot::of_value(define(*st, r.to_tensor(), index)));
    }
  }
  st->graph.nodes.push_back(std::move(node));
}

}  // namespace

void begin_trace(const std::vector<std::pair<std::string, Tensor>>& inputs) {
  EMBER_CHECK(!tls_trace, "jit.trace(): a trace is already running on this thread; traces do "
              "not nest");
  auto st = std::make_unique<TraceState>();
  for (const auto& [name, t] : inputs) {
    EMBER_CHECK_VALUE(t.defined(), "jit.trace(): input '", name, "' is an undefined tensor");
    EMBER_CHECK_VALUE(!st->value_of.count(t.impl()), "jit.trace(): input '", name,
                      "' is the same tensor as an earlier input; pass each tensor once");
    const int v = st->graph.add_value(TensorType::of(t), name);
    st->graph.inputs.push_back(v);
    st->value_of.emplace(t.impl(), v);
    st->seen.push_back(t);
  }
  tls_trace = std::move(st);
  auto tls = local_dispatch_key_set();
  set_local_dispatch_key_set({tls.included | DispatchKeySet(DispatchKey::Tracer), tls.excluded});
}

void abort_trace() {
  if (!tls_trace) return;
  tls_trace.reset();
  auto tls = local_dispatch_key_set();
  set_local_dispatch_key_set({tls.included - DispatchKeySet(DispatchKey::Tracer), tls.excluded});
}

Graph end_trace(const std::vector<Tensor>& outputs) {
  EMBER_CHECK(tls_trace, "jit.trace(): no trace is running on this thread");
  std::unique_ptr<TraceState> st = std::move(tls_trace);
  auto tls = local_dispatch_key_set();
  set_local_dispatch_key_set({tls.included - DispatchKeySet(DispatchKey::Tracer), tls.excluded});
  for (size_t i = 0; i < outputs.size(); ++i) {
    const Tensor& t = outputs[i];
    EMBER_CHECK_VALUE(t.defined(), "jit.trace(): output ", i, " is an undefined tensor");
    auto it = st->value_of.find(t.impl());
    EMBER_CHECK_VALUE(it != st->value_of.end(), "jit.trace(): output ", i,
                      " was not computed by the traced function (a tensor made outside it, or "
                      "by code the dispatcher did not see); pass it in as an input or return a "
                      "copy computed from the inputs");
    st->graph.outputs.push_back(it->second);
  }
  Graph g = std::move(st->graph);
  g.compact();
  g.verify();
  return g;
}

bool is_tracing() { return tls_trace != nullptr; }

void check_data_read(const Tensor& t, const char* what) {
  const TraceState* st = tls_trace.get();
  if (st != nullptr && is_traced(*st, t)) data_read_error(what, source_line());
}

void set_source_hook(SourceHook hook) { source_hook = hook; }

}  // namespace ember::jit

EMBER_LIBRARY_IMPL(_, Tracer, m) {
  m.fallback(ember::CppFunction::boxed(&ember::jit::trace_op));
}
