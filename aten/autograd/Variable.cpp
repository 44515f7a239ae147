#include "aten/autograd/Variable.h"

#include "aten/native/sparse/SparseTensor.h"

#include <algorithm>
#include <atomic>

#include "aten/autograd/BasicNodes.h"
#include "c10/util/Exception.h"

namespace ember::autograd {

AutogradMeta::~AutogradMeta() {
  if (grad_accumulator_) static_cast<AccumulateGrad*>(grad_accumulator_.get())->forget_variable();
  release_node(std::move(grad_accumulator_));
  release_node(std::move(grad_fn_));
}

AutogradMeta& materialize_meta(const Tensor& t) {
  EMBER_INTERNAL_ASSERT(t.defined(), "autograd metadata of an undefined tensor");
  TensorImpl* impl = t.impl();
  if (!impl->autograd_meta()) impl->set_autograd_meta(std::make_unique<AutogradMeta>());
  return *static_cast<AutogradMeta*>(impl->autograd_meta());
}

uint64_t next_hook_id() {
  static std::atomic<uint64_t> next{1};
  return next.fetch_add(1, std::memory_order_relaxed);
}

bool is_leaf(const Tensor& t) { return grad_fn(t) == nullptr; }

void set_requires_grad(const Tensor& t, bool requires_it) {
  EMBER_CHECK(t.defined(), "requires_grad_(): expected a defined tensor");
  if (!requires_it) {
    EMBER_CHECK(is_leaf(t), "you can only change requires_grad flags of leaf variables. If you "
                "want to use a computed variable in a subgraph that doesn't require "
                "differentiation use var_no_grad = var.detach().");
    if (AutogradMeta* m = get_meta(t)) m->requires_grad_ = false;
    return;
  }
  const ScalarType dt = t.dtype();
  EMBER_CHECK(is_floating_point(dt) || is_complex(dt), "only Tensors of floating point and complex dtype can "
              "require gradients (got a tensor of dtype ", dt, ")");
  if (!is_leaf(t)) return;  // a non-leaf with history already requires grad
  materialize_meta(t).requires_grad_ = true;
}

std::shared_ptr<Node> grad_fn(const Tensor& t) {
  AutogradMeta* m = get_meta(t);
  if (!m) return nullptr;
  if (m->is_view_) {
    const uint32_t version = t.impl()->version();
    if (m->attr_version_ != version) {
      // Note [Views]: the base (or another view of it) was written in place since this
      // view's history was set; the view's history is now that of its elements of the base.
      m->attr_version_ = version;
      if (requires_grad(m->base_)) {
        auto fn = std::make_shared<AsStridedViewBackward>(m->base_, t);
        fn->set_next_edges({gradient_edge(m->base_)});
        std::shared_ptr<Node> old = std::move(m->grad_fn_);
        m->output_nr_ = fn->add_input_metadata(t);
        m->grad_fn_ = std::move(fn);
        release_node(std::move(old));
      }
    }
  }
  return m->grad_fn_;
}

uint32_t output_nr(const Tensor& t) {
  const AutogradMeta* m = get_meta(t);
  return m ? m->output_nr_ : 0;
}

std::shared_ptr<Node> grad_accumulator(const Tensor& t) {
  AutogradMeta* m = get_meta(t);
  if (!m || !m->requires_grad_) return nullptr;
  if (!m->grad_accumulator_) m->grad_accumulator_ = std::make_shared<AccumulateGrad>(t);
  return m->grad_accumulator_;
}

Edge gradient_edge(const Tensor& t) {
  if (!t.defined()) return {};
  if (auto fn = grad_fn(t)) return {std::move(fn), output_nr(t)};
  return {grad_accumulator(t), 0};
}

Tensor grad(const Tensor& t) {
  const AutogradMeta* m = get_meta(t);
  if (!m) return Tensor();
  if (m->retains_grad_ && m->retained_grad_ && m->grad_fn_) return *m->retained_grad_;
  return m->grad_;
}

void set_grad(const Tensor& t, const Tensor& g) {
  if (g.defined()) {
    EMBER_CHECK(!g.is_same(t), "can't assign Variable as its own grad");
    EMBER_CHECK(g.dtype() == t.dtype(), "assigned grad has data of a different type (expected ",
                t.dtype(), ", got ", g.dtype(), ")");
    EMBER_CHECK(g.device() == t.device(), "assigned grad has data located on a different device");
    EMBER_CHECK(g.sizes() == t.sizes(), "assigned grad has data of a different size (expected ",
                t.sizes(), ", got ", g.sizes(), ")");
  } else if (!get_meta(t)) {
    return;
  }
  AutogradMeta& m = materialize_meta(t);
  if (m.retains_grad_ && m.retained_grad_ && m.grad_fn_) {
    *m.retained_grad_ = g;
  } else {
    m.grad_ = g;
  }
}

AutogradMeta& prepare_history(const Tensor& result, Node& fn) {
  EMBER_CHECK(is_floating_point(result.dtype()) || is_complex(result.dtype()),
              "Autograd not support dtype: ", result.dtype(), " (an integer or bool result of an op "
              "whose input requires grad; pass dtype= a floating type or detach the input)");
  AutogradMeta& m = materialize_meta(result);
  m.output_nr_ = fn.add_input_metadata(result);
  if (m.is_view_) m.attr_version_ = result.impl()->version();
  return m;
}

std::vector<Edge> collect_next_edges(std::initializer_list<const Tensor*> inputs) {
  std::vector<Edge> edges;
  edges.reserve(inputs.size());
  for (const Tensor* t : inputs) edges.push_back(t ? gradient_edge(*t) : Edge{});
  return edges;
}

void check_inplace(const Tensor& self, const char* op) {
  if (!GradMode::is_enabled()) return;
  const AutogradMeta* m = get_meta(self);
  if (!m) return;
  if (m->is_view_) {
    const AutogradMeta* bm = get_meta(m->base_);
    EMBER_CHECK(!(bm && bm->requires_grad_ && !bm->grad_fn_), op, "(): a view of a leaf Variable "
                "that requires grad is being used in an in-place operation.");
  }
  EMBER_CHECK(!(m->requires_grad_ && !m->grad_fn_), op, "(): a leaf Variable that requires grad "
              "is being used in an in-place operation.");
}

void rebase_history(const Tensor& self, const std::shared_ptr<Node>& fn) {
  AutogradMeta& m = materialize_meta(self);
  if (!m.is_view_) {
    std::shared_ptr<Node> old = std::move(m.grad_fn_);
    m.output_nr_ = fn->add_input_metadata(self);
    m.grad_fn_ = fn;
    release_node(std::move(old));
    return;
  }
  // An in-place op on a view writes the base: the base's history becomes CopySlices
  // (its old history outside the view, fn's backward inside), and the view's history is
  // rebuilt from the base's.
  fn->add_input_metadata(self);
  const Tensor base = m.base_;
  auto copy_slices = std::make_shared<CopySlices>(base, self, fn);
  AutogradMeta& bm = materialize_meta(base);
  std::shared_ptr<Node> old_base = std::move(bm.grad_fn_);
  bm.output_nr_ = copy_slices->add_input_metadata(base);
  bm.grad_fn_ = copy_slices;
  auto view_fn = std::make_shared<AsStridedViewBackward>(base, self);
  view_fn->set_next_edges({Edge{copy_slices, 0}});
  std::shared_ptr<Node> old_view = std::move(m.grad_fn_);
  m.output_nr_ = view_fn->add_input_metadata(self);
  m.grad_fn_ = std::move(view_fn);
  m.attr_version_ = self.impl()->version();
  release_node(std::move(old_base));
  release_node(std::move(old_view));
}

void make_view(const Tensor& view, const Tensor& base) {
  AutogradMeta& m = materialize_meta(view);
  m.is_view_ = true;
  const AutogradMeta* bm = get_meta(base);
  m.base_ = bm && bm->is_view_ ? bm->base_ : base;
  m.attr_version_ = view.impl()->version();
}

bool is_view(const Tensor& t) {
  const AutogradMeta* m = get_meta(t);
  return m && m->is_view_;
}

Tensor view_base(const Tensor& t) {
  const AutogradMeta* m = get_meta(t);
  return m && m->is_view_ ? m->base_ : Tensor();
}

Tensor alias_with_geometry(const Tensor& t, IntArrayRef sizes, IntArrayRef strides, int64_t storage_offset) {
  TensorImpl* src = t.impl();
  auto impl = make_intrusive<TensorImpl>(src->storage(), src->key_set(), src->dtype());
  impl->set_sizes_and_strides(sizes, strides, storage_offset);
  impl->share_version_counter(*src);
  return Tensor(std::move(impl));
}

Tensor detach(const Tensor& t) {
  if (!t.defined()) return t;
  if (t.layout() != Layout::Strided && t.layout() != Layout::Mkldnn) {
    // A sparse tensor has no storage to alias: a new one over the same members.
    Tensor d = native::sparse_shallow_copy(t);
    d.impl()->share_version_counter(*t.impl());
    return d;
  }
  return alias_with_geometry(t, t.sizes(), t.strides(), t.storage_offset());
}

void detach_(const Tensor& t) {
  AutogradMeta* m = get_meta(t);
  if (!m) return;
  EMBER_CHECK(!m->is_view_, "detach_(): Can't detach views in-place. Use detach() instead.");
  std::shared_ptr<Node> old = std::move(m->grad_fn_);
  m->requires_grad_ = false;
  m->output_nr_ = 0;
  release_node(std::move(old));
}

uint64_t register_hook(const Tensor& t, TensorHook hook) {
  EMBER_CHECK(requires_grad(t), "register_hook(): cannot register a hook on a tensor that "
              "doesn't require gradient");
  const uint64_t id = next_hook_id();
  if (auto fn = grad_fn(t)) {
    fn->add_pre_hook(output_nr(t), std::move(hook), id);  // a non-leaf's hooks live on its node
  } else {
    materialize_meta(t).hooks_.emplace_back(id, std::move(hook));
  }
  return id;
}

void remove_hook(const Tensor& t, uint64_t id) {
  if (auto fn = grad_fn(t); fn && fn->remove_pre_hook(id)) return;
  if (AutogradMeta* m = get_meta(t)) {
    std::erase_if(m->hooks_, [&](const auto& h) { return h.first == id; });
  }
}

uint64_t register_post_accumulate_grad_hook(const Tensor& t, std::function<void(const Tensor&)> hook) {
  EMBER_CHECK(requires_grad(t), "register_post_accumulate_grad_hook(): cannot register a hook "
              "on a tensor that doesn't require gradient");
  EMBER_CHECK(is_leaf(t), "register_post_accumulate_grad_hook(): post accumulate grad hooks "
              "cannot be registered on non-leaf tensors");
  const uint64_t id = next_hook_id();
  materialize_meta(t).post_accumulate_hooks_.emplace_back(id, std::move(hook));
  return id;
}

void remove_post_accumulate_grad_hook(const Tensor& t, uint64_t id) {
  if (AutogradMeta* m = get_meta(t)) {
    std::erase_if(m->post_accumulate_hooks_, [&](const auto& h) { return h.first == id; });
  }
}

namespace {
// What a retained gradient is kept in: shared by the tensor's meta and the hook on its
// node, so the hook holds no reference to the tensor (which owns the node).
struct RetainedGrad {
  Tensor grad;
};
}  // namespace

void retain_grad(const Tensor& t) {
  EMBER_CHECK(requires_grad(t), "retain_grad(): can't retain_grad on Tensor that has "
              "requires_grad=False");
  if (is_leaf(t)) return;  // leaves keep their gradient anyway
  AutogradMeta& m = materialize_meta(t);
  if (m.retains_grad_) return;
  m.retains_grad_ = true;
  auto slot = std::make_shared<Tensor>();
  m.retained_grad_ = slot;
  grad_fn(t)->set_retain_grad_hook(output_nr(t), [slot](const Tensor& g) {
    if (!slot->defined()) {
      *slot = g.clone();
    } else if (!GradMode::is_enabled()) {
      slot->add_(g);
    } else {
      *slot = slot->add(g);
    }
  });
}

bool retains_grad(const Tensor& t) {
  const AutogradMeta* m = get_meta(t);
  return m && m->retains_grad_;
}

}  // namespace ember::autograd
