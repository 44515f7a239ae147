// The autograd methods of Tensor (declared in c10/core/Tensor.h).
#include "aten/autograd/Engine.h"
#include "aten/autograd/Variable.h"

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

}  // namespace ember
