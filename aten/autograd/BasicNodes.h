#pragma once
/// The nodes autograd itself creates: AccumulateGrad (a leaf's sink), CopySlices (an
/// in-place op on a view, seen from its base) and AsStridedViewBackward (a view's history
/// rebuilt from its base's).

#include "aten/autograd/Node.h"

namespace ember::autograd {

/// Accumulates the gradient of a leaf into its .grad, after the leaf's hooks.
///
/// Note [Leaf accumulators]: the leaf's AutogradMeta owns its AccumulateGrad (so recording
/// an op on a leaf does not build a new one each time) and the node points back at the leaf
/// without owning it (no cycle); the meta's destructor clears that pointer, and a gradient
/// that reaches the node of a leaf already gone is dropped.
class EMBER_API AccumulateGrad final : public Node {
 public:
  explicit AccumulateGrad(const Tensor& variable);
  variable_list apply(variable_list&& grads) override;
  std::string name() const override { return "AccumulateGrad"; }
  /// The leaf (undefined once it was destroyed).
  Tensor variable() const;
  /// Called by the leaf's AutogradMeta when it is destroyed.
  void forget_variable() { variable_ = nullptr; }
  /// Adds new_grad to the leaf's .grad (the engine also calls it for backward(inputs=)).
  static void accumulate(const Tensor& variable, Tensor new_grad);

 private:
  TensorImpl* variable_;
};

/// The geometry of a strided tensor, kept to rebuild a view over another buffer.
struct Geometry {
  DimVector sizes;
  DimVector strides;
  int64_t storage_offset = 0;

  static Geometry of(const Tensor& t) { return {DimVector(t.sizes()), DimVector(t.strides()), t.storage_offset()}; }
};

/// An in-place op `fn` applied to a view, recorded on the view's base: the base's
/// gradient is passed through unchanged outside the view's elements, and through fn's
/// backward inside them.
class EMBER_API CopySlices final : public Node {
 public:
  CopySlices(const Tensor& base, const Tensor& view, std::shared_ptr<Node> fn);
  variable_list apply(variable_list&& grads) override;
  std::string name() const override { return "CopySlices"; }
  void release_variables() override;

 private:
  Geometry base_;
  Geometry view_;
  ScalarType dtype_;
  std::shared_ptr<Node> fn_;
};

/// A view's history rebuilt from its base's: the gradient of the view, scattered into a
/// zero gradient of the base's shape.
class EMBER_API AsStridedViewBackward final : public Node {
 public:
  AsStridedViewBackward(const Tensor& base, const Tensor& view);
  variable_list apply(variable_list&& grads) override;
  std::string name() const override { return "AsStridedBackward0"; }

 private:
  Geometry base_;
  Geometry view_;
  ScalarType dtype_;
};

}  // namespace ember::autograd
