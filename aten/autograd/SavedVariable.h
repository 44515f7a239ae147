#pragma once
/// A tensor a backward node saved from its forward op, checked against in-place writes
/// when it is used.

#include <memory>
#include <optional>
#include <string>

#include "aten/autograd/Node.h"

namespace ember::autograd {

/// Hooks that replace how saved tensors are stored (torch.autograd.graph.saved_tensors_hooks):
/// pack runs when a tensor is saved and returns what is kept instead; unpack runs when the
/// backward pass needs the tensor and returns it from that.
class EMBER_API SavedTensorHooks {
 public:
  virtual ~SavedTensorHooks();
  virtual std::shared_ptr<void> pack(const Tensor& t) = 0;
  virtual Tensor unpack(const std::shared_ptr<void>& packed) = 0;
};

/// Default hooks for tensors saved on this thread: the innermost pushed pair applies.
EMBER_API void push_saved_tensor_hooks(std::shared_ptr<SavedTensorHooks> hooks);
EMBER_API void pop_saved_tensor_hooks();
/// While a message is set, pushing default hooks raises it
/// (torch.autograd.graph.disable_saved_tensors_hooks); returns the previous one.
EMBER_API std::optional<std::string> set_saved_tensor_hooks_disabled(std::optional<std::string> message);

/// Saves a tensor with its version. An op's own output is saved without its history (it
/// would own the node that owns it) and gets it back on unpack.
class EMBER_API SavedVariable {
 public:
  SavedVariable() = default;
  /// is_output: t is an output of the node that saves it.
  SavedVariable(const Tensor& t, bool is_output);
  SavedVariable(const std::optional<Tensor>& t, bool is_output)
      : SavedVariable(t ? *t : Tensor(), is_output) {}

  /// The saved tensor; raises if it was freed (a second backward without retain_graph)
  /// or written in place since it was saved. saved_for: the node that saved it (gives
  /// a saved output its history back when gradients of gradients are recorded).
  Tensor unpack(const std::shared_ptr<Node>& saved_for = nullptr) const;
  /// Frees the tensor (after a backward that does not retain the graph).
  void reset_data() {
    data_ = Tensor();
    packed_.reset();
    freed_ = true;
  }
  /// Packs the saved tensor with hooks of its own (SavedTensor.register_hooks); raises if
  /// it already has hooks or was freed.
  void register_hooks(std::shared_ptr<SavedTensorHooks> hooks);
  bool was_defined() const { return was_defined_; }

 private:
  void pack_with(std::shared_ptr<SavedTensorHooks> hooks, const Tensor& t);

  Tensor data_;
  // With hooks, the packed form replaces data_ (the version check needs data_, so it is
  // skipped: the hooks own the tensor's life).
  std::shared_ptr<SavedTensorHooks> hooks_;
  std::shared_ptr<void> packed_;
  bool freed_ = false;
  uint32_t saved_version_ = 0;
  uint32_t output_nr_ = 0;
  bool was_defined_ = false;
  bool is_output_ = false;
  bool requires_grad_ = false;
  bool is_leaf_ = false;
};

}  // namespace ember::autograd
