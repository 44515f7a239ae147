#pragma once
/// Grad mode and inference mode: thread-local switches that decide whether ops record
/// autograd history (no_grad, enable_grad, set_grad_enabled, inference_mode).

#include "c10/core/LocalDispatchKeySet.h"
#include "c10/macros/Export.h"

namespace ember::autograd {

namespace detail {
// Note [Grad mode]: stored inverted so the zero-initialised (constinit) state means
// "enabled", the default, with no TLS guard on the read.
extern EMBER_API constinit thread_local bool tls_grad_disabled
    __attribute__((tls_model("initial-exec")));
extern EMBER_API constinit thread_local bool tls_inference_mode
    __attribute__((tls_model("initial-exec")));
}  // namespace detail

/// Whether ops called on this thread record history for tensors that require grad.
struct EMBER_API GradMode {
  static bool is_enabled() { return !detail::tls_grad_disabled; }
  static void set_enabled(bool enabled) { detail::tls_grad_disabled = !enabled; }
};

/// Sets grad mode for a scope and restores the previous mode on exit.
class AutoGradMode {
 public:
  explicit AutoGradMode(bool enabled) : prev_(GradMode::is_enabled()) {
    GradMode::set_enabled(enabled);
  }
  AutoGradMode(const AutoGradMode&) = delete;
  AutoGradMode& operator=(const AutoGradMode&) = delete;
  ~AutoGradMode() { GradMode::set_enabled(prev_); }

 private:
  bool prev_;
};

/// torch.no_grad() in C++.
struct NoGradGuard : AutoGradMode {
  NoGradGuard() : AutoGradMode(false) {}
};

/// The keys autograd owns: the Autograd* keys and ADInplaceOrView.
inline constexpr DispatchKeySet kAutogradKeys{
    DispatchKey::ADInplaceOrView, DispatchKey::AutogradOther, DispatchKey::AutogradCPU,
    DispatchKey::AutogradCUDA, DispatchKey::AutogradPrivateUse1, DispatchKey::AutogradPrivateUse2,
    DispatchKey::AutogradPrivateUse3, DispatchKey::AutogradPrivateUse4};

/// Excludes the autograd keys for a scope: what an Autograd kernel does around its call
/// to the kernel below, so that ops that kernel calls are not recorded a second time.
class AutoDispatchBelowAutograd {
 public:
  AutoDispatchBelowAutograd() : prev_(::ember::detail::tls_key_sets.excluded) {
    ::ember::detail::tls_key_sets.excluded = prev_ | kAutogradKeys.raw();
  }
  AutoDispatchBelowAutograd(const AutoDispatchBelowAutograd&) = delete;
  AutoDispatchBelowAutograd& operator=(const AutoDispatchBelowAutograd&) = delete;
  ~AutoDispatchBelowAutograd() { ::ember::detail::tls_key_sets.excluded = prev_; }

 private:
  uint64_t prev_;
};

/// torch.inference_mode(): no recording and no version counting (the autograd keys are
/// excluded, so neither the Autograd kernels nor their version bumps run). Nests; the
/// disabled form (enabled=false) restores normal recording inside an inference scope.
class EMBER_API InferenceMode {
 public:
  explicit InferenceMode(bool enabled = true);
  InferenceMode(const InferenceMode&) = delete;
  InferenceMode& operator=(const InferenceMode&) = delete;
  ~InferenceMode();
  /// Whether this thread is inside an enabled inference_mode scope.
  static bool is_enabled() { return detail::tls_inference_mode; }

 private:
  bool prev_grad_;
  bool prev_inference_;
  uint64_t prev_excluded_;
};

}  // namespace ember::autograd

namespace ember {

// libtorch's names: torch::NoGradGuard, torch::AutoGradMode, torch::InferenceMode.
using autograd::AutoGradMode;
using autograd::GradMode;
using autograd::InferenceMode;
using autograd::NoGradGuard;

}  // namespace ember
