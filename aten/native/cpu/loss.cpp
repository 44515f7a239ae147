// nll_loss on the CPU: the forward (the loss and its total weight) and the backward, one
// pass over the targets each, in the element type (the forward sums in double).
// CPU copies: baseline only (a gather per target, not a vector loop).
#include <cstdint>
#include <optional>
#include <tuple>

#include "aten/native/CpuCapability.h"
#include "aten/native/Dispatch.h"
#include "aten/native/loss.h"
#include "c10/util/Exception.h"
#include "ember/generated/ops/empty.h"
#include "ember/generated/ops/zeros.h"

namespace ember::native {
EMBER_CPU_NAMESPACE_BEGIN

Tensor nll_targets(const Tensor& target, int64_t classes, int64_t ignore_index) {
  EMBER_INTERNAL_ASSERT(target.device().is_cpu(), "nll_targets(): the targets are checked on the host");
  Tensor t = target.to(ScalarType::Long).contiguous();
  const int64_t* p = static_cast<const int64_t*>(t.data_ptr());
  for (int64_t i = 0; i < t.numel(); ++i) {
    EMBER_CHECK_INDEX(p[i] == ignore_index || (p[i] >= 0 && p[i] < classes), "Target ", p[i], " is out of bounds.");
  }
  return t;
}

std::tuple<Tensor, Tensor> nll_loss_forward_cpu(const Tensor& self, const Tensor& target,
                                                const std::optional<Tensor>& weight, int64_t reduction,
                                                int64_t ignore_index) {
  check_reduction("nll_loss", reduction);
  const NllShape sh = nll_shape(self, target, weight);
  const Tensor t = nll_targets(target, sh.c, ignore_index);
  const Tensor x = self.contiguous();
  const bool has_w = weight && weight->defined();
  const Tensor w = has_w ? weight->contiguous() : Tensor();
  Tensor out = reduction == Reduction::None ? ember::empty(target.sizes(), self.options())
                                  : ember::empty({}, self.options());
  Tensor total = ember::empty({}, self.options());
  dispatch_loss_type(self.scalar_type(), "nll_loss", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* px = static_cast<const T*>(x.data_ptr());
    const T* pw = has_w ? static_cast<const T*>(w.data_ptr()) : nullptr;
    const int64_t* pt = static_cast<const int64_t*>(t.data_ptr());
    T* po = static_cast<T*>(out.data_ptr());
    double sum = 0, wsum = 0;
    for (int64_t n = 0; n < sh.n; ++n) {
      for (int64_t s = 0; s < sh.s; ++s) {
        const int64_t i = n * sh.s + s, cls = pt[i];
        if (cls == ignore_index) {
          if (reduction == Reduction::None) po[i] = T(0);
          continue;
        }
        const T wi = pw ? pw[cls] : T(1);
        const T li = -wi * px[(n * sh.c + cls) * sh.s + s];
        if (reduction == Reduction::None) po[i] = li;
        sum += static_cast<double>(li);
        wsum += static_cast<double>(wi);
      }
    }
    // PyTorch reports a total weight of 0 when a batch is not reduced (a 1-d input's
    // single term keeps its weight).
    *static_cast<T*>(total.data_ptr()) = static_cast<T>(reduction == Reduction::None && self.dim() > 1 ? 0.0 : wsum);
    if (reduction == Reduction::Sum) *po = static_cast<T>(sum);
    if (reduction == Reduction::Mean) *po = static_cast<T>(sum / wsum);  // 0/0: NaN, as PyTorch
  });
  return {out, total};
}

Tensor nll_loss_backward_cpu(const Tensor& grad_output, const Tensor& self, const Tensor& target,
                             const std::optional<Tensor>& weight, int64_t reduction, int64_t ignore_index,
                             const Tensor& total_weight) {
  check_reduction("nll_loss_backward", reduction);
  const NllShape sh = nll_shape(self, target, weight);
  const Tensor t = nll_targets(target, sh.c, ignore_index);
  check_nll_loss_backward(grad_output, self, target, total_weight, reduction);
  const bool has_w = weight && weight->defined();
  const Tensor w = has_w ? weight->contiguous() : Tensor();
  const Tensor g = grad_output.contiguous();
  Tensor gi = ember::zeros(self.sizes(), self.options());
  dispatch_loss_type(self.scalar_type(), "nll_loss_backward", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* pw = has_w ? static_cast<const T*>(w.data_ptr()) : nullptr;
    const int64_t* pt = static_cast<const int64_t*>(t.data_ptr());
    const T* pg = static_cast<const T*>(g.data_ptr());
    T* pi = static_cast<T*>(gi.data_ptr());
    T scale = reduction == Reduction::None ? T(1) : pg[0];
    if (reduction == Reduction::Mean) scale /= total_weight.to(self.scalar_type()).item().to<T>();
    for (int64_t n = 0; n < sh.n; ++n) {
      for (int64_t s = 0; s < sh.s; ++s) {
        const int64_t i = n * sh.s + s, cls = pt[i];
        if (cls == ignore_index) continue;
        const T wi = pw ? pw[cls] : T(1);
        pi[(n * sh.c + cls) * sh.s + s] = -wi * (reduction == Reduction::None ? pg[i] : scale);
      }
    }
  });
  return gi;
}

EMBER_CPU_NAMESPACE_END
}  // namespace ember::native
