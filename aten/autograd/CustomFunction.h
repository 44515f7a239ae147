#pragma once
/// Custom autograd functions in C++: a class T with static `forward(AutogradContext*,
/// args...)` and `backward(AutogradContext*, variable_list grad_outputs)`, called through
/// `Function<T>::apply(args...)` (PyTorch's torch::autograd::Function).

#include <algorithm>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "aten/autograd/SavedVariable.h"
#include "c10/core/IValue.h"
#include "aten/autograd/Variable.h"
#include "c10/util/Exception.h"

namespace ember::autograd {

/// What forward hands to backward: saved tensors, which inputs need gradients, and which
/// outputs are not differentiable.
class EMBER_API AutogradContext {
 public:
  /// Saves tensors for backward (inputs or outputs of forward), checked against in-place
  /// writes when backward reads them.
  void save_for_backward(variable_list to_save) { to_save_ = std::move(to_save); }
  /// The saved tensors (in backward).
  variable_list get_saved_variables() const;
  /// Outputs that get no gradient (integer indices, masks).
  void mark_non_differentiable(const variable_list& outputs);
  /// Whether forward's tensor input i needs a gradient.
  bool needs_input_grad(size_t i) const { return i < needs_input_grad_.size() && needs_input_grad_[i]; }

  /// Non-tensor values forward keeps for backward.
  std::unordered_map<std::string, IValue> saved_data;

  // Used by Function<T>.
  void set_needs_input_grad(std::vector<bool> v) { needs_input_grad_ = std::move(v); }
  bool is_non_differentiable(const Tensor& t) const { return non_differentiable_.count(t.impl()) > 0; }
  /// Turns the tensors passed to save_for_backward into saved variables, once the outputs
  /// are known (an output is saved without its history).
  void save_variables(const variable_list& outputs, const std::shared_ptr<Node>& node);
  void release() { saved_.clear(); released_ = true; }

 private:
  variable_list to_save_;
  std::vector<SavedVariable> saved_;
  std::weak_ptr<Node> node_;
  std::unordered_set<TensorImpl*> non_differentiable_;
  std::vector<bool> needs_input_grad_;
  bool released_ = false;
};

namespace detail {
template <class A>
void collect_tensor(variable_list& out, std::vector<bool>& is_tensor, const A& a) {
  if constexpr (std::is_same_v<std::decay_t<A>, Tensor>) {
    out.push_back(a);
    is_tensor.push_back(true);
  } else {
    is_tensor.push_back(false);
  }
}
}  // namespace detail

/// The node of a custom function: calls T::backward and keeps the gradients of the
/// tensor arguments.
template <class T>
class CppNode final : public Node {
 public:
  variable_list apply(variable_list&& grads) override {
    variable_list outs = T::backward(&ctx_, std::move(grads));
    // Extra trailing gradients are dropped when all are undefined (as libtorch's CppNode):
    // forward's defaulted arguments (`Tensor bias = Tensor()`) are not among apply's.
    if (outs.size() > is_tensor_.size() &&
        std::all_of(outs.begin() + static_cast<std::ptrdiff_t>(is_tensor_.size()), outs.end(),
                    [](const Tensor& g) { return !g.defined(); })) {
      outs.resize(is_tensor_.size());
    }
    EMBER_CHECK(outs.size() == is_tensor_.size(), "function ", name(), " backward returned an "
                "incorrect number of gradients (expected ", is_tensor_.size(), ", got ",
                outs.size(), ")");
    variable_list result;
    for (size_t i = 0; i < outs.size(); ++i) {
      if (is_tensor_[i]) result.push_back(std::move(outs[i]));
    }
    return result;
  }
  std::string name() const override { return "CppNode"; }
  void release_variables() override { ctx_.release(); }

  AutogradContext ctx_;
  std::vector<bool> is_tensor_;
};

/// Base for custom functions: `struct MyFn : Function<MyFn> { static ... forward(...);
/// static variable_list backward(...); };` then `MyFn::apply(x, 2.0)`.
template <class T>
struct Function {
  template <class... Args>
  static auto apply(Args&&... args) {
    auto node = std::make_shared<CppNode<T>>();
    variable_list inputs;
    (detail::collect_tensor(inputs, node->is_tensor_, args), ...);
    bool rg = false;
    std::vector<bool> needs;
    for (const Tensor& t : inputs) {
      needs.push_back(requires_grad(t));
      rg = rg || needs.back();
    }
    rg = rg && GradMode::is_enabled();
    node->ctx_.set_needs_input_grad(std::move(needs));
    auto out = [&] {
      AutoGradMode no_grad(false);
      return T::forward(&node->ctx_, std::forward<Args>(args)...);
    }();
    variable_list outputs;
    if constexpr (std::is_same_v<decltype(out), Tensor>) {
      outputs.push_back(out);
    } else {
      outputs = out;
    }
    if (rg) {
      std::vector<Edge> edges;
      for (const Tensor& t : inputs) edges.push_back(gradient_edge(t));
      node->set_next_edges(std::move(edges));
      for (const Tensor& o : outputs) {
        if (o.defined() && !node->ctx_.is_non_differentiable(o)) set_history(o, node);
      }
    }
    node->ctx_.save_variables(outputs, rg ? std::shared_ptr<Node>(node) : nullptr);
    return out;
  }
};

}  // namespace ember::autograd
