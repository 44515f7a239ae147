#pragma once
/// A tensor a backward node saved from its forward op, checked against in-place writes
/// when it is used.

#include <memory>

#include "aten/autograd/Node.h"

namespace ember::autograd {

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
  void reset_data() { data_ = Tensor(); }

 private:
  Tensor data_;
  uint32_t saved_version_ = 0;
  uint32_t output_nr_ = 0;
  bool was_defined_ = false;
  bool is_output_ = false;
  bool requires_grad_ = false;
  bool is_leaf_ = false;
};

}  // namespace ember::autograd
