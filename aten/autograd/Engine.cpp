#include "aten/autograd/Engine.h"

#include "aten/native/sparse/SparseTensor.h"

#include <atomic>
#include <queue>
#include <unordered_map>
#include <unordered_set>

#include "aten/autograd/BasicNodes.h"
#include "aten/autograd/Variable.h"
#include "c10/util/Exception.h"
#include "ember/generated/ops/mode.h"
#include "ember/generated/ops/ones_like.h"
#include "ember/generated/ops/sum.h"

namespace ember::autograd {

namespace {
std::atomic<bool> g_anomaly{false};

bool is_expandable_to(IntArrayRef shape, IntArrayRef desired) {
  if (shape.size() > desired.size()) return false;
  const size_t off = desired.size() - shape.size();
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] != desired[off + i] && shape[i] != 1) return false;
  }
  return true;
}

// Adds g into the gradient buffer slot; in place when nothing else can see the slot's
// tensor (PyTorch's rule: no other handle on the tensor or on its storage).
void accumulate_into(Tensor& slot, Tensor&& g, bool create_graph) {
  if (!slot.defined()) {
    slot = std::move(g);
    return;
  }
  if (!g.defined()) return;
  if (!create_graph && slot.layout() == Layout::Strided && g.layout() == Layout::Strided &&
      slot.use_count() == 1 && slot.storage().use_count() == 1 &&
      slot.sizes() == g.sizes() && slot.dtype() == g.dtype() && !requires_grad(slot)) {
    slot.add_(g);
  } else {
    slot = slot.add(g);
  }
}

// Checks and adapts the gradients a node returned to what the next nodes expect.
void validate_outputs(const Node& fn, variable_list& grads) {
  EMBER_CHECK(grads.size() == fn.num_outputs(), "Function ", fn.name(), " returned an incorrect "
              "number of gradients (expected ", fn.num_outputs(), ", got ", grads.size(), ")");
  for (size_t i = 0; i < grads.size(); ++i) {
    const Edge& e = fn.next_edge(i);
    Tensor& g = grads[i];
    if (!e.is_valid() || !g.defined()) continue;
    const InputMetadata& meta = e.function->input_metadata(e.input_nr);
    if (g.sizes() != IntArrayRef(meta.sizes)) {
      EMBER_CHECK(is_expandable_to(meta.sizes, g.sizes()), "Function ", fn.name(), " returned an "
                  "invalid gradient at index ", i, " - got ", g.sizes(), " but expected shape "
                  "compatible with ", IntArrayRef(meta.sizes));
      g = sum_to(g, meta.sizes);
    }
    if (g.dtype() != meta.dtype) g = g.to(meta.dtype);
    if (g.layout() != meta.layout) g = native::sparse_gradient(g, meta.layout, meta.pattern);
    if (AnomalyMode::is_enabled() && is_floating_point(g.dtype())) {
      EMBER_CHECK(g.isnan().sum().item().to_long() == 0, "Function '", fn.name(),
                  "' returned nan values in its ", i, "th output",
                  fn.forward_op() ? str(" (the backward of ", fn.forward_op(), ")") : std::string(), ".");
    }
  }
}

struct Order {
  bool operator()(Node* a, Node* b) const { return a->sequence_nr() < b->sequence_nr(); }
};

}  // namespace

bool AnomalyMode::is_enabled() { return g_anomaly.load(std::memory_order_relaxed); }
void AnomalyMode::set_enabled(bool enabled) { g_anomaly.store(enabled, std::memory_order_relaxed); }

namespace {
constinit thread_local bool tls_relaxed_layout = false;
}  // namespace
bool GradLayoutPolicy::is_enforced() { return !tls_relaxed_layout; }
void GradLayoutPolicy::set_enforced(bool enforced) { tls_relaxed_layout = !enforced; }

Tensor sum_to(const Tensor& grad, IntArrayRef sizes) {
  const int64_t lead = grad.dim() - static_cast<int64_t>(sizes.size());
  std::vector<int64_t> dims;
  for (int64_t d = 0; d < grad.dim(); ++d) {
    if (d < lead || (sizes[d - lead] == 1 && grad.sizes()[d] != 1)) dims.push_back(d);
  }
  if (dims.empty()) return grad;
  Tensor summed = ember::sum(grad, IntArrayRef(dims), /*keepdim=*/true);
  return summed.view(sizes);
}

variable_list run_backward(const variable_list& outputs, const variable_list& grad_outputs,
                           bool keep_graph, bool create_graph, const variable_list& inputs,
                           bool allow_unused, bool accumulate_grad,
                           const std::vector<Edge>& input_edges_after) {
  EMBER_CHECK_VALUE(grad_outputs.empty() || grad_outputs.size() == outputs.size(),
                    "backward(): got ", grad_outputs.size(), " gradients for ", outputs.size(),
                    " tensors; expected one per tensor");
  EMBER_CHECK(!outputs.empty(), "backward(): expected at least one tensor to differentiate");
  std::vector<Edge> roots;
  variable_list seeds;
  for (size_t i = 0; i < outputs.size(); ++i) {
    const Tensor& out = outputs[i];
    Edge e = gradient_edge(out);
    EMBER_CHECK(e.is_valid(), "element ", i, " of tensors does not require grad and does not "
                "have a grad_fn");
    Tensor g = grad_outputs.empty() ? Tensor() : grad_outputs[i];
    if (!g.defined()) {
      EMBER_CHECK(out.numel() == 1, "grad can be implicitly created only for scalar outputs");
      g = ember::ones_like(out);
    } else {
      EMBER_CHECK(g.sizes() == out.sizes(), "Mismatch in shape: grad_output[", i, "] has a shape of ",
                  g.sizes(), " and output[", i, "] has a shape of ", out.sizes(), ".");
    }
    roots.push_back(std::move(e));
    seeds.push_back(std::move(g));
  }
  auto root = std::make_shared<GraphRoot>(std::move(roots), std::move(seeds));

  // Which gradients to capture: (node, input_nr) -> index into `inputs`.
  std::vector<Edge> input_edges;
  for (size_t i = 0; i < inputs.size(); ++i) {
    Edge e = gradient_edge(inputs[i]);
    EMBER_CHECK(e.is_valid(), "One of the differentiated Tensors does not require grad");
    input_edges.push_back(std::move(e));
  }
  for (const Edge& e : input_edges_after) {
    EMBER_CHECK_VALUE(e.is_valid(), "grad(): a GradientEdge input has no node");
    input_edges.push_back(e);
  }
  std::unordered_map<Node*, std::vector<std::pair<uint32_t, size_t>>> captures;
  for (size_t i = 0; i < input_edges.size(); ++i) {
    captures[input_edges[i].function.get()].emplace_back(input_edges[i].input_nr, i);
  }

  // Every node reachable from the root, in an order where a node comes after all nodes
  // that point to it would not be guaranteed; what matters is the set and the edges.
  std::vector<Node*> order;
  std::unordered_set<Node*> seen{root.get()};
  std::vector<Node*> stack{root.get()};
  while (!stack.empty()) {
    Node* n = stack.back();
    stack.pop_back();
    order.push_back(n);
    for (const Edge& e : n->next_edges()) {
      if (e.is_valid() && seen.insert(e.function.get()).second) stack.push_back(e.function.get());
    }
  }
  // With inputs, a node is needed when it leads to an input's edge; executed when one of
  // its next nodes is needed (a captured node that leads nowhere else only hands over
  // its gradient). Without inputs, every node runs.
  std::unordered_set<Node*> needed;
  const bool with_inputs = !input_edges.empty();
  if (with_inputs) {
    // Fixed point by reverse reachability: iterate until no change (graphs are DAGs, so
    // one pass over a reverse topological order suffices; compute that order first).
    std::unordered_map<Node*, int> pending_out;
    std::unordered_map<Node*, std::vector<Node*>> preds;
    for (Node* n : order) {
      int count = 0;
      for (const Edge& e : n->next_edges()) {
        if (!e.is_valid()) continue;
        ++count;
        preds[e.function.get()].push_back(n);
      }
      pending_out[n] = count;
    }
    std::vector<Node*> ready;
    for (Node* n : order) {
      if (pending_out[n] == 0) ready.push_back(n);
    }
    while (!ready.empty()) {
      Node* n = ready.back();
      ready.pop_back();
      bool need = captures.count(n) > 0;
      if (!need) {
        for (const Edge& e : n->next_edges()) {
          if (e.is_valid() && needed.count(e.function.get())) {
            need = true;
            break;
          }
        }
      }
      if (need) needed.insert(n);
      for (Node* p : preds[n]) {
        if (--pending_out[p] == 0) ready.push_back(p);
      }
    }
    if (!needed.count(root.get())) needed.insert(root.get());
  }
  auto is_needed = [&](Node* n) { return !with_inputs || needed.count(n) > 0; };
  auto executes = [&](Node* n) {
    if (!with_inputs) return true;
    if (auto* acc = dynamic_cast<AccumulateGrad*>(n)) {
      // backward(inputs=): only the inputs' accumulators run; grad(): none.
      return accumulate_grad && captures.count(acc) > 0;
    }
    for (const Edge& e : n->next_edges()) {
      if (e.is_valid() && needed.count(e.function.get())) return true;
    }
    return false;
  };

  std::unordered_map<Node*, int> deps;
  for (Node* n : order) {
    if (!is_needed(n)) continue;
    for (const Edge& e : n->next_edges()) {
      if (e.is_valid() && is_needed(e.function.get())) ++deps[e.function.get()];
    }
  }

  variable_list captured(input_edges.size());
  std::unordered_map<Node*, variable_list> buffers;
  std::priority_queue<Node*, std::vector<Node*>, Order> ready;
  ready.push(root.get());
  // Keeps every node alive while the pass runs (a hook may drop the last tensor).
  std::vector<std::shared_ptr<Node>> alive;
  alive.reserve(order.size());
  for (Node* n : order) alive.push_back(n->shared_from_this());

  while (!ready.empty()) {
    Node* fn = ready.top();
    ready.pop();
    variable_list grads;
    if (auto it = buffers.find(fn); it != buffers.end()) {
      grads = std::move(it->second);
      buffers.erase(it);
    }
    grads.resize(std::max(grads.size(), fn->num_inputs()));
    if (fn->has_pre_hooks()) fn->run_pre_hooks(grads);
    if (auto it = captures.find(fn); it != captures.end()) {
      for (auto [nr, idx] : it->second) {
        if (nr < grads.size()) captured[idx] = grads[nr];
      }
    }
    if (!executes(fn)) continue;
    variable_list outs;
    {
      AutoGradMode mode(create_graph);
      if (fn->has_post_hooks()) {
        const variable_list grad_outputs = grads;
        outs = fn->apply(std::move(grads));
        fn->run_post_hooks(outs, grad_outputs);
      } else {
        outs = fn->apply(std::move(grads));
      }
    }
    if (!keep_graph) fn->release_variables();
    if (fn->num_outputs() == 0) continue;
    validate_outputs(*fn, outs);
    for (size_t i = 0; i < outs.size(); ++i) {
      const Edge& e = fn->next_edge(i);
      if (!e.is_valid() || !is_needed(e.function.get())) continue;
      Node* next = e.function.get();
      variable_list& buf = buffers[next];
      if (buf.size() < next->num_inputs()) buf.resize(next->num_inputs());
      accumulate_into(buf[e.input_nr], std::move(outs[i]), create_graph);
      if (--deps[next] == 0) ready.push(next);
    }
  }

  if (with_inputs) {
    for (size_t i = 0; i < input_edges.size(); ++i) {
      if (!captured[i].defined()) {
        EMBER_CHECK(allow_unused || accumulate_grad, "One of the differentiated Tensors appears "
                    "to not have been used in the graph. Set allow_unused=True if this is the "
                    "desired behavior.");
        continue;
      }
      if (accumulate_grad && i < inputs.size() && !is_leaf(inputs[i])) {
        Tensor g = std::move(captured[i]);
        AutogradMeta& m = materialize_meta(inputs[i]);
        if (!m.grad_.defined()) {
          m.grad_ = create_graph ? g : detach(g);
        } else {
          m.grad_ = m.grad_.add(g);
        }
      }
    }
  }
  return accumulate_grad ? variable_list{} : captured;
}

void backward(const variable_list& tensors, const variable_list& grad_tensors,
              std::optional<bool> retain_graph, bool create_graph, const variable_list& inputs) {
  run_backward(tensors, grad_tensors, retain_graph.value_or(create_graph), create_graph, inputs,
               /*allow_unused=*/true, /*accumulate_grad=*/true);
}

variable_list grad(const variable_list& outputs, const variable_list& inputs,
                   const variable_list& grad_outputs, std::optional<bool> retain_graph,
                   bool create_graph, bool allow_unused) {
  EMBER_CHECK(!inputs.empty(), "grad(): expected at least one input to differentiate with respect to");
  return run_backward(outputs, grad_outputs, retain_graph.value_or(create_graph), create_graph,
                      inputs, allow_unused, /*accumulate_grad=*/false);
}

}  // namespace ember::autograd
