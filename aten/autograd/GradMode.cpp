#include "aten/autograd/GradMode.h"

namespace ember::autograd {

namespace detail {
constinit thread_local bool tls_grad_disabled = false;
constinit thread_local bool tls_inference_mode = false;
}  // namespace detail

InferenceMode::InferenceMode(bool enabled)
    : prev_grad_(GradMode::is_enabled()),
      prev_inference_(detail::tls_inference_mode),
      prev_excluded_(::ember::detail::tls_key_sets.excluded) {
  detail::tls_inference_mode = enabled;
  GradMode::set_enabled(!enabled);
  if (enabled) {
    ::ember::detail::tls_key_sets.excluded = prev_excluded_ | kAutogradKeys.raw();
  } else {
    ::ember::detail::tls_key_sets.excluded = prev_excluded_ & ~kAutogradKeys.raw();
  }
}

InferenceMode::~InferenceMode() {
  GradMode::set_enabled(prev_grad_);
  detail::tls_inference_mode = prev_inference_;
  ::ember::detail::tls_key_sets.excluded = prev_excluded_;
}

}  // namespace ember::autograd
