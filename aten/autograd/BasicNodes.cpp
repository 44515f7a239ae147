#include "aten/autograd/BasicNodes.h"

#include "aten/autograd/Engine.h"
#include "aten/autograd/Variable.h"
#include "aten/native/MemoryFormats.h"
#include "c10/util/Exception.h"
#include "ember/generated/ops/empty_strided.h"

namespace ember::autograd {

AccumulateGrad::AccumulateGrad(const Tensor& variable) : Node(UINT64_MAX), variable_(variable.impl()) {
  add_input_metadata(variable);
}

Tensor AccumulateGrad::variable() const {
  if (!variable_) return Tensor();
  Tensor::retain(variable_);
  return Tensor::adopt(variable_);
}

namespace {
// Note [Gradient layout]: as PyTorch's AccumulateGrad (its "layout contract"), a leaf's
// first gradient takes the leaf's strides when the leaf is non-overlapping and dense, and
// contiguous strides otherwise, whatever strides the backward formulas produced: so
// `p.grad.view(-1)` works for every contiguous parameter (LBFGS, gradient flattening), and
// a transposed leaf gets a transposed gradient. Later gradients add into it in place.

// Whether grad's strides already follow the contract for variable (size-1 dims aside);
// dense: whether variable is non-overlapping and dense.
bool obeys_layout(const Tensor& grad, const Tensor& variable, bool dense) {
  if (!dense) return grad.is_contiguous();
  const IntArrayRef sizes = grad.sizes(), gs = grad.strides(), vs = variable.strides();
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (sizes[d] > 1 && gs[d] != vs[d]) return false;
  }
  return true;
}

// A copy of grad laid out by the contract (with history when grad mode is on).
Tensor copy_obeying_layout(const Tensor& grad, const Tensor& variable, bool dense) {
  if (!dense) return grad.clone(MemoryFormat::Contiguous);
  Tensor out = ember::empty_strided(variable.sizes(), variable.strides(),
                                    TensorOptions().dtype(grad.dtype()).device(grad.device()));
  out.copy_(grad);
  return out;
}
}  // namespace

void AccumulateGrad::accumulate(const Tensor& variable, Tensor new_grad) {
  AutogradMeta& m = materialize_meta(variable);
  if (!m.grad_.defined() && variable.layout() != Layout::Strided) {
    // A sparse leaf's gradient is a sparse tensor of its layout (Note [Sparse gradients]).
    const bool steal = !GradMode::is_enabled() && new_grad.use_count() == 1 && !requires_grad(new_grad);
    m.grad_ = steal ? std::move(new_grad) : new_grad.clone();
  } else if (!m.grad_.defined()) {
    // The engine's gradient is stolen when nothing else holds it and it has the leaf's layout
    // (no copy), as PyTorch does; otherwise the leaf gets a copy of its own (with history
    // under create_graph), laid out by Note [Gradient layout].
    const bool dense = native::is_non_overlapping_and_dense(variable.sizes(), variable.strides());
    const bool steal = !GradMode::is_enabled() && new_grad.use_count() == 1 &&
                       !requires_grad(new_grad) &&
                       (!GradLayoutPolicy::is_enforced() || obeys_layout(new_grad, variable, dense));
    m.grad_ = steal ? std::move(new_grad) : copy_obeying_layout(new_grad, variable, dense);
  } else if (!GradMode::is_enabled() && m.grad_.layout() == new_grad.layout()) {
    m.grad_.add_(new_grad);
  } else {
    m.grad_ = m.grad_.add(new_grad);
  }
}

variable_list AccumulateGrad::apply(variable_list&& grads) {
  Tensor new_grad = std::move(grads[0]);
  grads.clear();
  const Tensor variable = this->variable();
  if (!new_grad.defined() || !variable.defined()) return {};
  AutogradMeta* m = get_meta(variable);
  if (!m) return {};
  const auto hooks = m->hooks_;  // a copy: a hook may add or remove hooks
  for (const auto& [id, hook] : hooks) {
    Tensor replaced = hook(new_grad);
    if (replaced.defined()) new_grad = std::move(replaced);
  }
  if (!m->requires_grad_) return {};
  accumulate(variable, std::move(new_grad));
  const auto post = m->post_accumulate_hooks_;
  for (const auto& [id, hook] : post) hook(variable);
  return {};
}

namespace {
// A gradient buffer with `base`'s geometry (offsets relative to base's first element).
Tensor buffer_like(const Geometry& base, ScalarType dtype, Device device) {
  return ember::empty_strided(base.sizes, base.strides, TensorOptions().dtype(dtype).device(device));
}
Tensor slice_of(const Tensor& buffer, const Geometry& base, const Geometry& view) {
  return alias_with_geometry(buffer, view.sizes, view.strides, view.storage_offset - base.storage_offset);
}
}  // namespace

CopySlices::CopySlices(const Tensor& base, const Tensor& view, std::shared_ptr<Node> fn)
    : base_(Geometry::of(base)), view_(Geometry::of(view)), dtype_(base.dtype()), fn_(std::move(fn)) {
  edge_list edges = fn_->next_edges();
  EMBER_INTERNAL_ASSERT(!edges.empty(), "CopySlices of a node without edges");
  edges[0] = gradient_edge(base);
  set_next_edges(std::move(edges));
}

variable_list CopySlices::apply(variable_list&& grads) {
  variable_list out(num_outputs());
  const Tensor& grad = grads[0];
  if (!grad.defined()) return out;
  Tensor result = buffer_like(base_, dtype_, grad.device());
  result.copy_(grad);
  Tensor grad_slice = slice_of(result, base_, view_);
  variable_list res = fn_->apply({grad_slice.clone()});
  for (size_t i = 0; i < out.size(); ++i) {
    if (i == 0) {
      if (res.size() > 0 && res[0].defined()) {
        grad_slice.copy_(res[0]);
      } else {
        grad_slice.zero_();
      }
      out[0] = result;
    } else if (i < res.size()) {
      out[i] = std::move(res[i]);
    }
  }
  return out;
}

void CopySlices::release_variables() { fn_->release_variables(); }

AsStridedViewBackward::AsStridedViewBackward(const Tensor& base, const Tensor& view)
    : base_(Geometry::of(base)), view_(Geometry::of(view)), dtype_(base.dtype()) {}

variable_list AsStridedViewBackward::apply(variable_list&& grads) {
  const Tensor& grad = grads[0];
  if (!grad.defined()) return {Tensor()};
  Tensor result = buffer_like(base_, dtype_, grad.device());
  result.zero_();
  slice_of(result, base_, view_).copy_(grad);
  return {result};
}

}  // namespace ember::autograd
