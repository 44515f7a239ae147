#pragma once
/// The autograd graph: a Node per recorded op (its backward function), Edges to the nodes
/// of the op's inputs, and the metadata the engine checks gradients against.

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "c10/core/Tensor.h"
#include "c10/util/DimVector.h"
#include "c10/util/SmallVector.h"

namespace ember::autograd {

class Node;
class SavedVariable;
struct Edge;
using variable_list = std::vector<Tensor>;
using tensor_list = std::vector<Tensor>;  // libtorch spells it both ways
/// A node's edges: inline for the usual one or two inputs of an op.
using edge_list = SmallVector<Edge, 2>;
/// A hook on the gradient of a tensor: returns a replacement, or an undefined tensor to
/// keep the gradient as it is.
using TensorHook = std::function<Tensor(const Tensor&)>;

/// Where a gradient goes: input `input_nr` of `function` (which is the output_nr of the
/// forward tensor it belongs to).
struct Edge {
  std::shared_ptr<Node> function;
  uint32_t input_nr = 0;

  bool is_valid() const { return function != nullptr; }
};

/// What a gradient flowing into a node input must look like: the forward output's sizes,
/// dtype, device and layout. The engine sums a wider (broadcast) gradient down to these
/// sizes and casts it to this dtype. Note [Sparse gradients]: for a sparse output, `pattern`
/// is a detached tensor with its indices (shared, not copied), and a dense gradient is
/// projected onto it (PyTorch's masked semantics: a sparse tensor's gradient is sparse on
/// its own pattern); a sparse gradient of another layout is converted, and a sparse gradient
/// of a strided output is made dense.
struct InputMetadata {
  DimVector sizes;
  ScalarType dtype = ScalarType::Undefined;
  Device device = Device(DeviceType::CPU);
  Layout layout = Layout::Strided;
  Tensor pattern;
};

/// A backward function: takes the gradients of the forward op's outputs (its inputs) and
/// returns the gradients of the forward op's inputs (its outputs), one per next edge.
class EMBER_API Node : public std::enable_shared_from_this<Node> {
 public:
  /// A node with the next sequence number of this thread (later ops run first backward).
  Node();
  explicit Node(uint64_t sequence_nr) : sequence_nr_(sequence_nr) {}
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;
  virtual ~Node();

  /// The backward computation; grads has one entry per input (undefined where no
  /// gradient arrived).
  virtual variable_list apply(variable_list&& grads) = 0;
  /// "MulBackward0", "AccumulateGrad", ...
  virtual std::string name() const = 0;
  /// The forward op this node differentiates ("aten::mul.Tensor"), for error messages.
  virtual const char* forward_op() const { return nullptr; }
  /// Frees saved tensors after a backward pass that does not retain the graph.
  virtual void release_variables() {}

  uint64_t sequence_nr() const { return sequence_nr_; }

  size_t num_outputs() const { return next_edges_.size(); }
  const Edge& next_edge(size_t i) const { return next_edges_[i]; }
  const edge_list& next_edges() const { return next_edges_; }
  void set_next_edges(edge_list&& edges) { next_edges_ = std::move(edges); }
  void set_next_edges(std::vector<Edge>&& edges) {
    next_edges_.clear();
    for (Edge& e : edges) next_edges_.push_back(std::move(e));
  }
  /// Sets the edges to the gradient edges of the inputs (null: an input with none).
  void collect_next_edges(std::initializer_list<const Tensor*> inputs);
  /// One edge per element of a Tensor[] input (cat's tensors).
  void collect_next_edges(TensorList inputs);
  /// Whether gradient i is wanted (its edge leads somewhere).
  bool should_compute_output(size_t i) const {
    return i < next_edges_.size() && next_edges_[i].is_valid();
  }

  /// Records the metadata of a forward output that now flows into this node; returns its
  /// input number (the output's output_nr).
  uint32_t add_input_metadata(const Tensor& t);
  size_t num_inputs() const { return input_metadata_.size(); }
  const InputMetadata& input_metadata(size_t i) const { return input_metadata_[i]; }

  /// Hooks on the gradient of input `input_nr` (a non-leaf tensor's register_hook); they
  /// run in registration order before apply; id is the caller's, for remove_pre_hook.
  void add_pre_hook(uint32_t input_nr, TensorHook hook, uint64_t id);
  bool remove_pre_hook(uint64_t id);
  /// retain_grad(): stores the gradient of input `input_nr` after the other hooks ran.
  void set_retain_grad_hook(uint32_t input_nr, std::function<void(const Tensor&)> hook);
  /// Runs the pre-hooks and retain-grad hooks on grads (the engine calls this).
  void run_pre_hooks(variable_list& grads) const;
  bool has_pre_hooks() const {
    return !pre_hooks_.empty() || !retain_grad_hooks_.empty() || !node_pre_hooks_.empty();
  }

  /// Hooks on the whole node (torch's Node.register_prehook / register_hook): a pre-hook
  /// sees the gradients flowing in (after the tensor hooks) and may replace them in place;
  /// a post-hook sees the gradients apply returned and those it got, and may replace the
  /// former. id is the caller's, for remove_node_hook.
  using NodePreHook = std::function<void(variable_list& grad_outputs)>;
  using NodePostHook = std::function<void(variable_list& grad_inputs, const variable_list& grad_outputs)>;
  void add_node_pre_hook(NodePreHook hook, uint64_t id) { node_pre_hooks_.emplace_back(id, std::move(hook)); }
  void add_node_post_hook(NodePostHook hook, uint64_t id) { node_post_hooks_.emplace_back(id, std::move(hook)); }
  bool remove_node_hook(uint64_t id);
  bool has_post_hooks() const { return !node_post_hooks_.empty(); }
  /// Runs the post-hooks on apply's result (the engine calls this).
  void run_post_hooks(variable_list& grad_inputs, const variable_list& grad_outputs) const;

  /// The tensors this node saved, by the forward argument's name ("self", "result"):
  /// generated nodes list theirs (grad_fn._saved_self, grad_fn._raw_saved_self).
  virtual std::vector<std::pair<const char*, SavedVariable*>> saved_variables() { return {}; }

 protected:
  uint64_t sequence_nr_;
  edge_list next_edges_;
  SmallVector<InputMetadata, 1> input_metadata_;

 private:
  struct PreHook {
    uint64_t id;
    uint32_t input_nr;
    TensorHook fn;
  };
  std::vector<PreHook> pre_hooks_;
  std::vector<std::pair<uint32_t, std::function<void(const Tensor&)>>> retain_grad_hooks_;
  std::vector<std::pair<uint64_t, NodePreHook>> node_pre_hooks_;
  std::vector<std::pair<uint64_t, NodePostHook>> node_post_hooks_;
};

/// Drops a reference to a node without recursion: when it is the last one, the node and
/// every node it alone keeps alive are destroyed iteratively (Note [Iterative release]).
EMBER_API void release_node(std::shared_ptr<Node>&& fn);

/// The node that starts a backward pass with several roots: returns the given gradients.
class EMBER_API GraphRoot final : public Node {
 public:
  GraphRoot(std::vector<Edge> roots, variable_list grads);
  variable_list apply(variable_list&&) override { return grads_; }
  std::string name() const override { return "GraphRoot"; }

 private:
  variable_list grads_;
};

/// A node whose backward is not implemented: raises, naming the op, when a gradient
/// reaches it.
class EMBER_API NotImplementedNode final : public Node {
 public:
  explicit NotImplementedNode(std::string op) : op_(std::move(op)) {}
  variable_list apply(variable_list&&) override;
  std::string name() const override { return "NotImplemented"; }

 private:
  std::string op_;
};

}  // namespace ember::autograd
