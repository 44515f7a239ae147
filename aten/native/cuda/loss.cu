// nll_loss on CUDA, forward and backward, as the CPU's (cpu/loss.cpp): the same argument
// checks (aten/native/loss.h), the targets checked on the host before anything is written
// (a bad class is an IndexError, not a device assertion), one thread per target.
#include <cuda_runtime.h>

#include <cstdint>
#include <optional>
#include <tuple>

#include "aten/native/Dispatch.h"
#include "aten/native/cuda/CudaUtils.h"
#include "aten/native/loss.h"
#include "c10/util/Exception.h"
#include "ember/generated/ops/div.h"
#include "ember/generated/ops/empty.h"
#include "ember/generated/ops/zeros.h"

namespace ember::native {
namespace {

constexpr int kThreads = 256;

template <class T>
__global__ void nll_terms(const T* x, const int64_t* target, const T* weight, T* loss, T* wsum, NllShape sh,
                          int64_t ignore_index) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= sh.n * sh.s) return;
  const int64_t n = i / sh.s, s = i % sh.s, cls = target[i];
  if (cls == ignore_index) {
    loss[i] = T(0);
    wsum[i] = T(0);
    return;
  }
  const T w = weight ? weight[cls] : T(1);
  loss[i] = -w * x[(n * sh.c + cls) * sh.s + s];
  wsum[i] = w;
}

template <class T>
__global__ void nll_grad(const T* g, const int64_t* target, const T* weight, const T* total, T* gi, NllShape sh,
                         int64_t ignore_index, int reduction) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= sh.n * sh.s) return;
  const int64_t n = i / sh.s, s = i % sh.s, cls = target[i];
  if (cls == ignore_index) return;
  const T w = weight ? weight[cls] : T(1);
  T scale = reduction == Reduction::None ? g[i] : g[0];
  if (reduction == Reduction::Mean) scale /= total[0];
  gi[(n * sh.c + cls) * sh.s + s] = -w * scale;
}

unsigned blocks_for(int64_t n) { return static_cast<unsigned>((n + kThreads - 1) / kThreads); }

}  // namespace

std::tuple<Tensor, Tensor> nll_loss_forward_cuda(const Tensor& self, const Tensor& target,
                                                 const std::optional<Tensor>& weight, int64_t reduction,
                                                 int64_t ignore_index) {
  check_reduction("nll_loss", reduction);
  const NllShape sh = nll_shape(self, target, weight);
  const bool has_w = weight && weight->defined();
  if (has_w) cuda::check_same_device("nll_loss", {&self, &target, &*weight});
  else cuda::check_same_device("nll_loss", {&self, &target});
  cuda::DeviceGuard guard(self.device());
  const Tensor t = nll_targets(target.cpu(), sh.c, ignore_index).to(self.device());
  const Tensor x = self.contiguous();
  const Tensor w = has_w ? weight->contiguous() : Tensor();
  Tensor loss = ember::empty({sh.n * sh.s}, self.options());
  Tensor wsum = ember::empty({sh.n * sh.s}, self.options());
  dispatch_loss_type(self.scalar_type(), "nll_loss", [&](auto tag) {
    using T = typename decltype(tag)::type;
    if (loss.numel() == 0) return;
    nll_terms<T><<<blocks_for(loss.numel()), kThreads, 0, cuda::current_stream_of(self)>>>(
        static_cast<const T*>(x.data_ptr()), static_cast<const int64_t*>(t.data_ptr()),
        has_w ? static_cast<const T*>(w.data_ptr()) : nullptr, static_cast<T*>(loss.data_ptr()),
        static_cast<T*>(wsum.data_ptr()), sh, ignore_index);
    cuda::check_launch("nll_loss");
  });
  // The sums in float64, as the CPU's; PyTorch reports a total weight of 0 when a batch is
  // not reduced (a 1-d input's single term keeps its weight).
  const Tensor total = wsum.to(ScalarType::Double).sum().to(self.scalar_type());
  if (reduction == Reduction::None) {
    Tensor out = loss.view(target.sizes());
    return {out, self.dim() > 1 ? ember::zeros({}, self.options()) : total};
  }
  const Tensor sum = loss.to(ScalarType::Double).sum();
  if (reduction == Reduction::Sum) return {sum.to(self.scalar_type()), total};
  return {ember::div(sum, wsum.to(ScalarType::Double).sum()).to(self.scalar_type()), total};  // 0/0: NaN
}

Tensor nll_loss_backward_cuda(const Tensor& grad_output, const Tensor& self, const Tensor& target,
                              const std::optional<Tensor>& weight, int64_t reduction, int64_t ignore_index,
                              const Tensor& total_weight) {
  check_reduction("nll_loss_backward", reduction);
  const NllShape sh = nll_shape(self, target, weight);
  check_nll_loss_backward(grad_output, self, target, total_weight, reduction);
  const bool has_w = weight && weight->defined();
  cuda::check_same_device("nll_loss_backward", {&grad_output, &self, &target, &total_weight});
  cuda::DeviceGuard guard(self.device());
  const Tensor t = nll_targets(target.cpu(), sh.c, ignore_index).to(self.device());
  const Tensor w = has_w ? weight->contiguous() : Tensor();
  const Tensor g = grad_output.contiguous();
  const Tensor total = total_weight.to(self.scalar_type()).contiguous();
  Tensor gi = ember::zeros(self.sizes(), self.options());
  dispatch_loss_type(self.scalar_type(), "nll_loss_backward", [&](auto tag) {
    using T = typename decltype(tag)::type;
    if (t.numel() == 0) return;
    nll_grad<T><<<blocks_for(t.numel()), kThreads, 0, cuda::current_stream_of(self)>>>(
        static_cast<const T*>(g.data_ptr()), static_cast<const int64_t*>(t.data_ptr()),
        has_w ? static_cast<const T*>(w.data_ptr()) : nullptr, static_cast<const T*>(total.data_ptr()),
        static_cast<T*>(gi.data_ptr()), sh, ignore_index, static_cast<int>(reduction));
    cuda::check_launch("nll_loss_backward");
  });
  return gi;
}

}  // namespace ember::native
