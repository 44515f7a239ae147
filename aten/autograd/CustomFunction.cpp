#include "aten/autograd/CustomFunction.h"

namespace ember::autograd {

variable_list AutogradContext::get_saved_variables() const {
  EMBER_CHECK(!released_, "Trying to backward through the graph a second time (or directly "
              "access saved tensors after they have already been freed). Specify "
              "retain_graph=True if you need to backward through the graph a second time.");
  variable_list out;
  auto node = node_.lock();
  for (const SavedVariable& v : saved_) out.push_back(v.unpack(node));
  return out;
}

void AutogradContext::mark_non_differentiable(const variable_list& outputs) {
  for (const Tensor& t : outputs) non_differentiable_.insert(t.impl());
}

void AutogradContext::save_variables(const variable_list& outputs, const std::shared_ptr<Node>& node) {
  node_ = node;
  for (const Tensor& t : to_save_) {
    bool is_output = false;
    for (const Tensor& o : outputs) is_output = is_output || o.is_same(t);
    saved_.emplace_back(t, is_output && node != nullptr);
  }
  to_save_.clear();
}

}  // namespace ember::autograd
