#include "aten/autograd/Node.h"

#include "aten/native/sparse/SparseTensor.h"

#include <algorithm>

#include "aten/autograd/Variable.h"
#include "c10/util/Exception.h"

namespace ember::autograd {

namespace {
// Sequence numbers order a backward pass: a node created later runs earlier.
constinit thread_local uint64_t tls_sequence_nr __attribute__((tls_model("initial-exec"))) = 0;
// Note [Iterative release]: destroying a node drops its edges, which may destroy the
// next nodes, and so on down a chain of a million ops: a recursion that would overflow
// the stack. The outermost release_node drains a thread's list; nested releases (from
// destructors running inside it) only append to it. The list is kept (no allocation per
// release).
constinit thread_local bool tls_releasing __attribute__((tls_model("initial-exec"))) = false;
// Allocated on a thread's first release and kept (a plain pointer: no TLS guard to check).
constinit thread_local std::vector<std::shared_ptr<Node>>* tls_release_list
    __attribute__((tls_model("initial-exec"))) = nullptr;
// Frees a thread's list when the thread ends (constructed with the list, so threads that
// never release a node pay nothing).
struct ReleaseListOwner {
  ~ReleaseListOwner() {
    delete tls_release_list;
    tls_release_list = nullptr;
  }
};
std::vector<std::shared_ptr<Node>>& release_list() {
  if (!tls_release_list) {
    thread_local ReleaseListOwner owner;
    (void)owner;
    tls_release_list = new std::vector<std::shared_ptr<Node>>();
  }
  return *tls_release_list;
}
}  // namespace

Node::Node() : sequence_nr_(tls_sequence_nr++) {}

Node::~Node() {
  for (Edge& e : next_edges_) release_node(std::move(e.function));
}

void release_node(std::shared_ptr<Node>&& fn) {
  if (!fn) return;
  if (fn.use_count() > 1) {
    fn.reset();
    return;
  }
  auto& pending = release_list();
  pending.push_back(std::move(fn));
  if (tls_releasing) return;
  tls_releasing = true;
  while (!pending.empty()) {
    std::shared_ptr<Node> last = std::move(pending.back());
    pending.pop_back();
    last.reset();  // may append to pending
  }
  tls_releasing = false;
}

void Node::collect_next_edges(std::initializer_list<const Tensor*> inputs) {
  next_edges_.clear();
  for (const Tensor* t : inputs) next_edges_.push_back(t ? gradient_edge(*t) : Edge{});
}

void Node::collect_next_edges(TensorList inputs) {
  next_edges_.clear();
  for (const Tensor& t : inputs) next_edges_.push_back(gradient_edge(t));
}

uint32_t Node::add_input_metadata(const Tensor& t) {
  input_metadata_.push_back({DimVector(t.sizes()), t.dtype(), t.device(), t.layout(),
                             t.layout() == Layout::Strided ? Tensor() : native::sparse_shallow_copy(t)});
  return static_cast<uint32_t>(input_metadata_.size() - 1);
}

void Node::add_pre_hook(uint32_t input_nr, TensorHook hook, uint64_t id) {
  pre_hooks_.push_back({id, input_nr, std::move(hook)});
}

bool Node::remove_pre_hook(uint64_t id) {
  auto it = std::find_if(pre_hooks_.begin(), pre_hooks_.end(), [&](const PreHook& h) { return h.id == id; });
  if (it == pre_hooks_.end()) return false;
  pre_hooks_.erase(it);
  return true;
}

void Node::set_retain_grad_hook(uint32_t input_nr, std::function<void(const Tensor&)> hook) {
  for (auto& [nr, fn] : retain_grad_hooks_) {
    if (nr == input_nr) {
      fn = std::move(hook);
      return;
    }
  }
  retain_grad_hooks_.emplace_back(input_nr, std::move(hook));
}

void Node::run_pre_hooks(variable_list& grads) const {
  // Copies: a hook may register or remove hooks while it runs.
  const auto hooks = pre_hooks_;
  for (const PreHook& h : hooks) {
    if (h.input_nr >= grads.size() || !grads[h.input_nr].defined()) continue;
    Tensor replaced = h.fn(grads[h.input_nr]);
    if (replaced.defined()) grads[h.input_nr] = std::move(replaced);
  }
  // retain_grad runs last, so .grad holds what the other hooks made of the gradient.
  const auto retains = retain_grad_hooks_;
  for (const auto& [nr, fn] : retains) {
    if (nr < grads.size() && grads[nr].defined()) fn(grads[nr]);
  }
  const auto node_hooks = node_pre_hooks_;
  for (const auto& [id, fn] : node_hooks) fn(grads);
}

void Node::run_post_hooks(variable_list& grad_inputs, const variable_list& grad_outputs) const {
  const auto hooks = node_post_hooks_;
  for (const auto& [id, fn] : hooks) fn(grad_inputs, grad_outputs);
}

bool Node::remove_node_hook(uint64_t id) {
  auto drop = [id](auto& hooks) {
    for (auto it = hooks.begin(); it != hooks.end(); ++it) {
      if (it->first == id) {
        hooks.erase(it);
        return true;
      }
    }
    return false;
  };
  return drop(node_pre_hooks_) || drop(node_post_hooks_);
}

GraphRoot::GraphRoot(std::vector<Edge> roots, variable_list grads) : Node(UINT64_MAX), grads_(std::move(grads)) {
  set_next_edges(std::move(roots));
}

variable_list NotImplementedNode::apply(variable_list&&) {
  EMBER_THROW(::ember::NotImplementedError, "the derivative for '", op_, "' is not implemented.");
  return {};
}

}  // namespace ember::autograd
