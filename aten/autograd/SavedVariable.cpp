#include "aten/autograd/SavedVariable.h"

#include "aten/autograd/Variable.h"
#include "c10/util/Exception.h"

namespace ember::autograd {

SavedTensorHooks::~SavedTensorHooks() = default;

namespace {
thread_local std::vector<std::shared_ptr<SavedTensorHooks>> tls_hooks;
thread_local std::optional<std::string> tls_hooks_disabled;
}  // namespace

void push_saved_tensor_hooks(std::shared_ptr<SavedTensorHooks> hooks) {
  EMBER_CHECK(!tls_hooks_disabled, *tls_hooks_disabled);
  tls_hooks.push_back(std::move(hooks));
}

void pop_saved_tensor_hooks() {
  EMBER_CHECK(!tls_hooks.empty(), "pop_saved_tensor_hooks(): no saved tensor hooks are set");
  tls_hooks.pop_back();
}

std::optional<std::string> set_saved_tensor_hooks_disabled(std::optional<std::string> message) {
  std::swap(tls_hooks_disabled, message);
  return message;
}

void SavedVariable::pack_with(std::shared_ptr<SavedTensorHooks> hooks, const Tensor& t) {
  // Copy the hooks first: pack may push or pop hooks, or raise (then nothing changes).
  std::shared_ptr<void> packed = hooks->pack(t);
  hooks_ = std::move(hooks);
  packed_ = std::move(packed);
  data_ = Tensor();
}

void SavedVariable::register_hooks(std::shared_ptr<SavedTensorHooks> hooks) {
  EMBER_CHECK(was_defined_, "register_hooks(): the saved tensor is None; hooks cannot be "
              "registered on it");
  EMBER_CHECK(!hooks_, "register_hooks(): calling register_hooks on a saved tensor that already "
              "has hooks is not allowed. Hint: do not register hooks inside a "
              "saved_tensors_hooks context");
  EMBER_CHECK(!freed_, "register_hooks(): trying to register hooks on a saved tensor after it "
              "was freed (after backward without retain_graph=True)");
  pack_with(std::move(hooks), data_);
}

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
  if (!tls_hooks.empty()) pack_with(tls_hooks.back(), data_);
}

Tensor SavedVariable::unpack(const std::shared_ptr<Node>& saved_for) const {
  if (!was_defined_) return Tensor();
  EMBER_CHECK(!freed_, "Trying to backward through the graph a second time (or directly "
              "access saved tensors after they have already been freed). Saved intermediate "
              "values of the graph are freed when you call .backward() or autograd.grad(). "
              "Specify retain_graph=True if you need to backward through the graph a second "
              "time or if you need to access saved tensors after calling backward.");
  Tensor data;
  if (hooks_) {
    data = hooks_->unpack(packed_);
  } else {
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
    data = data_;
  }
  if (!is_output_ || !requires_grad_ || !saved_for || !GradMode::is_enabled()) return data;
  // Gradients of gradients are being recorded: the saved output gets its history back.
  Tensor t = detach(data);
  AutogradMeta& m = materialize_meta(t);
  m.grad_fn_ = saved_for;
  m.output_nr_ = output_nr_;
  return t;
}

}  // namespace ember::autograd
