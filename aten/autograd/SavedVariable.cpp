#include "aten/autograd/SavedVariable.h"

#include "aten/autograd/Variable.h"
#include "c10/util/Exception.h"

namespace ember::autograd {

SavedVariable::SavedVariable(const Tensor& t, bool is_output) {
  if (!t.defined()) return;
  was_defined_ = true;
  is_output_ = is_output;
  saved_version_ = t.impl()->version();
  requires_grad_ = requires_grad(t);
  is_leaf_ = is_leaf(t);
  output_nr_ = output_nr(t);
  // An output is saved without its history: the node saving it is its grad_fn, and a
  // reference from the node to the tensor would make a cycle.
  data_ = is_output && requires_grad_ ? detach(t) : t;
}

Tensor SavedVariable::unpack(const std::shared_ptr<Node>& saved_for) const {
  if (!was_defined_) return Tensor();
  EMBER_CHECK(data_.defined(), "Trying to backward through the graph a second time (or directly "
              "access saved tensors after they have already been freed). Saved intermediate "
              "values of the graph are freed when you call .backward() or autograd.grad(). "
              "Specify retain_graph=True if you need to backward through the graph a second "
              "time or if you need to access saved tensors after calling backward.");
  const uint32_t version = data_.impl()->version();
  if (version != saved_version_) {
    std::string which;
    if (is_output_ && saved_for) {
      which = str(", which is output ", output_nr_, " of ", saved_for->name(), ",");
    } else if (auto fn = grad_fn(data_)) {
      which = str(", which is output ", output_nr_, " of ", fn->name(), ",");
    }
    EMBER_THROW(::ember::Error, "one of the variables needed for gradient computation has been "
                "modified by an inplace operation: [", data_.dtype(), " ", data_.sizes(), "]",
                which, " is at version ", version, "; expected version ", saved_version_,
                " instead. Hint: enable anomaly detection to find the operation that failed to "
                "compute its gradient, with ember.autograd.set_detect_anomaly(True).");
  }
  if (!is_output_ || !requires_grad_ || !saved_for || !GradMode::is_enabled()) return data_;
  // Gradients of gradients are being recorded: the saved output gets its history back.
  Tensor t = detach(data_);
  AutogradMeta& m = materialize_meta(t);
  m.grad_fn_ = saved_for;
  m.output_nr_ = output_nr_;
  return t;
}

}  // namespace ember::autograd
