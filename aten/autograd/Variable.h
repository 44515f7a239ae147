#pragma once
/// AutogradMeta, what autograd keeps on a tensor, and the functions that read and change
/// it: requires_grad, grad, grad_fn, leaves and their accumulators, views, history.

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "aten/autograd/GradMode.h"
#include "aten/autograd/Node.h"
#include "aten/autograd/Pool.h"

namespace ember::autograd {

/// Autograd's state on a TensorImpl (created on first need; a tensor without one does
/// not require grad and has no history).
struct EMBER_API AutogradMeta final : AutogradMetaInterface {
  /// The accumulated gradient of a leaf (or of a non-leaf that retains its grad).
  Tensor grad_;
  /// The node that computed this tensor; null for leaves.
  std::shared_ptr<Node> grad_fn_;
  /// A leaf's AccumulateGrad (Note [Leaf accumulators]).
  std::shared_ptr<Node> grad_accumulator_;
  /// Hooks on a leaf's gradient, run before accumulation (non-leaf hooks live on grad_fn).
  std::vector<std::pair<uint64_t, TensorHook>> hooks_;
  /// Hooks run with the leaf after its .grad was updated.
  std::vector<std::pair<uint64_t, std::function<void(const Tensor&)>>> post_accumulate_hooks_;
  /// Which output of grad_fn this tensor is.
  uint32_t output_nr_ = 0;
  bool requires_grad_ = false;
  bool retains_grad_ = false;
  /// A non-leaf's retained gradient (retain_grad()), shared with the hook that fills it.
  std::shared_ptr<Tensor> retained_grad_;
  // Note [Views]: a view remembers its base (the root: never itself a view) so that an
  // in-place op on the view can rewrite the base's history (CopySlices), and the base's
  // version when the view's grad_fn was last set: an in-place op on the base or another
  // view bumps the shared version, and the view's grad_fn is then rebuilt from the base's
  // history (as_strided of the base's gradient).
  bool is_view_ = false;
  Tensor base_;
  uint32_t attr_version_ = 0;

  ~AutogradMeta() override;

  // From the pool (Note [Autograd pool]): every recorded output and view allocates one.
  static void* operator new(size_t size) { return pool_allocate(size); }
  static void operator delete(void* p, size_t size) noexcept { pool_free(p, size); }
};

/// The tensor's AutogradMeta, or null.
inline AutogradMeta* get_meta(const Tensor& t) {
  return static_cast<AutogradMeta*>(t.impl()->autograd_meta());
}
/// The tensor's AutogradMeta, created if missing (t must be defined).
EMBER_API AutogradMeta& materialize_meta(const Tensor& t);

/// Whether t requires grad: a leaf marked so, or a tensor with history.
inline bool requires_grad(const Tensor& t) {
  const AutogradMeta* m = get_meta(t);
  return m && (m->requires_grad_ || m->grad_fn_);
}
/// Whether any of the tensors requires grad (undefined ones do not).
template <class... Ts>
bool any_requires_grad(const Ts&... ts) {
  return (requires_grad(ts) || ...);
}
inline bool requires_grad(const std::optional<Tensor>& t) { return t && requires_grad(*t); }
inline bool requires_grad(TensorList ts) {
  for (const Tensor& t : ts) {
    if (requires_grad(t)) return true;
  }
  return false;
}

/// requires_grad_(): marks a leaf; the errors of PyTorch for non-leaves and for dtypes
/// that cannot require grad.
EMBER_API void set_requires_grad(const Tensor& t, bool requires_grad);
/// Whether t is a leaf: no grad_fn.
EMBER_API bool is_leaf(const Tensor& t);
/// The node that computed t (rebuilt for a view whose base changed in place), or null.
EMBER_API std::shared_ptr<Node> grad_fn(const Tensor& t);
/// Which output of its grad_fn t is.
EMBER_API uint32_t output_nr(const Tensor& t);
/// Where t's gradient goes: (grad_fn, output_nr), (AccumulateGrad, 0) for a leaf that
/// requires grad, or an invalid edge.
EMBER_API Edge gradient_edge(const Tensor& t);
/// The AccumulateGrad of a leaf that requires grad (created on first use).
EMBER_API std::shared_ptr<Node> grad_accumulator(const Tensor& t);
/// t.grad (undefined when none).
EMBER_API Tensor grad(const Tensor& t);
/// Sets t.grad; checks the shape, dtype and device agree with t's.
EMBER_API void set_grad(const Tensor& t, const Tensor& grad);

/// Prepares `result` to become an output of fn: checks its dtype, records its metadata
/// on fn; returns its meta with output_nr set (set_history then stores fn).
EMBER_API AutogradMeta& prepare_history(const Tensor& result, Node& fn);
// Note [Autograd kernels]: each op with a tensor input gets a generated Autograd-key kernel
// (codegen/gen_autograd.py) unless it is CompositeImplicitAutograd or non-differentiable
// (those fall through). The kernel records a node when grad mode is on and an input
// requires grad, calls the kernel below with the autograd keys excluded in TLS
// (AutoDispatchBelowAutograd: ops that kernel calls are not recorded again), then bumps the
// version of what it wrote (in-place self, out=) and marks view outputs (make_view). The
// version bumps and view records are PyTorch's ADInplaceOrView layer, folded in here: one
// dispatch hop less per call, and equivalent since the two layers are only ever excluded
// together (inference mode).

/// Records that `result` is output `add_input_metadata` of fn.
template <class T>
void set_history(const Tensor& result, const std::shared_ptr<T>& fn) {
  prepare_history(result, *fn).grad_fn_ = fn;
}
/// The edges of the inputs' gradients (an invalid edge for those that need none).
EMBER_API std::vector<Edge> collect_next_edges(std::initializer_list<const Tensor*> inputs);
/// After an in-place op: self's new history is fn; on a view, the base's history is
/// rewritten through a CopySlices node (PyTorch's behaviour).
EMBER_API void rebase_history(const Tensor& self, const std::shared_ptr<Node>& fn);
/// The in-place checks of a recording op: a leaf that requires grad may not be written
/// while grad mode is on; op names the op in the message.
EMBER_API void check_inplace(const Tensor& self, const char* op);
/// Marks `view` a view of `base` (Note [Views]).
EMBER_API void make_view(const Tensor& view, const Tensor& base);
/// Whether t is a view with view metadata.
EMBER_API bool is_view(const Tensor& t);
/// The view's base (undefined for a non-view).
EMBER_API Tensor view_base(const Tensor& t);

/// A new tensor sharing t's storage, geometry and version counter, with no autograd
/// history (Tensor.detach()).
EMBER_API Tensor detach(const Tensor& t);
/// Makes t a leaf that does not require grad (Tensor.detach_()).
EMBER_API void detach_(const Tensor& t);
/// A tensor over t's storage with the given geometry (no autograd history).
EMBER_API Tensor alias_with_geometry(const Tensor& t, IntArrayRef sizes, IntArrayRef strides,
                                     int64_t storage_offset);

/// Registers a hook on t's gradient; returns an id for remove_hook. Errors when t does not
/// require grad.
EMBER_API uint64_t register_hook(const Tensor& t, TensorHook hook);
EMBER_API void remove_hook(const Tensor& t, uint64_t id);
/// Registers a hook called with a leaf after its .grad was updated.
EMBER_API uint64_t register_post_accumulate_grad_hook(const Tensor& t,
                                                      std::function<void(const Tensor&)> hook);
EMBER_API void remove_post_accumulate_grad_hook(const Tensor& t, uint64_t id);
/// retain_grad(): a non-leaf keeps its gradient in .grad.
EMBER_API void retain_grad(const Tensor& t);
EMBER_API bool retains_grad(const Tensor& t);

/// A fresh id for a hook.
EMBER_API uint64_t next_hook_id();

}  // namespace ember::autograd
