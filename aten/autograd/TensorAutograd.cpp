// The autograd methods of Tensor (declared in c10/core/Tensor.h).
#include "aten/autograd/Engine.h"
#include "aten/autograd/Variable.h"
#include "c10/core/TensorOptions.h"

namespace ember {

bool Tensor::requires_grad() const { return autograd::requires_grad(*this); }

const Tensor& Tensor::requires_grad_(bool requires_grad) const {
  autograd::set_requires_grad(*this, requires_grad);
  return *this;
}

Tensor Tensor::grad() const { return autograd::grad(*this); }

bool Tensor::is_leaf() const { return autograd::is_leaf(*this); }

void Tensor::backward(const Tensor& gradient, std::optional<bool> retain_graph, bool create_graph) const {
  autograd::backward({*this}, {gradient}, retain_graph, create_graph);
}

Tensor Tensor::detach() const { return autograd::detach(*this); }

std::shared_ptr<autograd::Node> Tensor::grad_fn() const { return autograd::grad_fn(*this); }

// A factory's result is a fresh leaf, so requires_grad_ applies (with PyTorch's error for
// dtypes that cannot require grad).
Tensor TensorOptions::finish(Tensor t) const {
  if (requires_grad_.value_or(false)) t.requires_grad_(true);
  return t;
}

}  // namespace ember
