// CPU autocast (see Autocast.h): a boxed fallback at DispatchKey::AutocastCPU.
#include "aten/amp/Autocast.h"

#include <string_view>
#include <unordered_map>

#include "c10/core/LocalDispatchKeySet.h"
#include "c10/dispatch/Library.h"
#include "c10/dispatch/OperatorHandle.h"
#include "c10/util/Exception.h"
#include "c10/core/Tensor.h"

namespace ember::amp {
namespace {

thread_local ScalarType tls_dtype = ScalarType::BFloat16;

// PyTorch 2.13's CPU lists (aten/src/ATen/autocast_mode.cpp), by the names Ember's YAML
// gives those ops; the ones Ember composes in Python (conv2d, prelu, scaled_dot_product_
// attention, ...) reach these through the ops they call (convolution, matmul, bmm).
const std::unordered_map<std::string_view, CastPolicy>& policies() {
  static const auto* table = [] {
    auto* t = new std::unordered_map<std::string_view, CastPolicy>;
    for (const char* n : {"mm", "bmm", "addmm", "baddbmm", "addbmm", "matmul", "linear",
                          "convolution", "linalg_vecdot", "conv_tbc", "prelu",
                          "_prelu_kernel"}) {
      t->emplace(n, CastPolicy::LowerPrecision);
    }
    for (const char* n :
         {"avg_pool3d", "binary_cross_entropy", "grid_sampler", "grid_sampler_2d", "polar",
          "prod", "quantile", "nanquantile", "stft", "cdist", "trace", "view_as_complex",
          "cholesky", "cholesky_inverse", "cholesky_solve", "inverse", "lu_solve", "orgqr",
          "ormqr", "pinverse", "max_pool3d", "max_unpool2d", "max_unpool3d",
          "adaptive_avg_pool3d", "reflection_pad1d", "reflection_pad2d", "replication_pad1d",
          "replication_pad2d", "replication_pad3d", "mse_loss", "cosine_embedding_loss",
          "nll_loss", "nll_loss2d", "hinge_embedding_loss", "poisson_nll_loss",
          "smooth_l1_loss", "cross_entropy_loss", "l1_loss", "huber_loss",
          "margin_ranking_loss", "soft_margin_loss", "triplet_margin_loss", "multi_margin_loss",
          "ctc_loss", "kl_div", "multilabel_margin_loss", "binary_cross_entropy_with_logits",
          "_fft_c2c", "_fft_r2c", "_fft_c2r", "linalg_cond", "linalg_matrix_rank",
          "linalg_solve", "linalg_cholesky", "linalg_svdvals", "linalg_eigvals",
          "linalg_eigvalsh", "linalg_inv", "linalg_householder_product", "linalg_tensorinv",
          "linalg_tensorsolve", "geqrf", "_lu_with_info", "qr", "svd", "triangular_solve",
          "fractional_max_pool2d", "fractional_max_pool3d", "adaptive_max_pool3d",
          "linalg_qr", "linalg_cholesky_ex", "linalg_svd", "linalg_eig", "linalg_eigh",
          "linalg_lstsq", "linalg_inv_ex"}) {
      t->emplace(n, CastPolicy::Float32);
    }
    for (const char* n : {"cat", "stack", "index_copy"}) t->emplace(n, CastPolicy::Promote);
    return t;
  }();
  return *table;
}

// Autocast casts floating CPU tensors other than float64 (PyTorch's is_eligible).
bool eligible(const Tensor& t) {
  return t.defined() && t.device().is_cpu() && is_floating_point(t.scalar_type()) &&
         t.scalar_type() != ScalarType::Double;
}

template <typename F>
void for_each_tensor(Stack& stack, size_t first, F&& f) {
  for (size_t i = first; i < stack.size(); ++i) {
    IValue& v = stack[i];
    if (v.is_tensor()) {
      f(v.to_tensor(), [&](Tensor t) { v = IValue(std::move(t)); });
    } else if (v.is_tensor_list()) {
      std::vector<Tensor> list = v.to_tensor_list();
      bool changed = false;
      for (Tensor& t : list) f(t, [&](Tensor c) { t = std::move(c); changed = true; });
      if (changed) v = IValue(std::move(list));
    }
  }
}

void autocast_op(const OperatorHandle& op, DispatchKeySet keys, Stack* stack) {
  const DispatchKeySet below = keys.below(DispatchKey::AutocastCPU);
  const CastPolicy policy = cpu_cast_policy(op.name().name.c_str());
  const FunctionSchema& schema = op.schema();
  // out= and in-place forms are on no list (as in PyTorch): they write the dtype they have.
  if (policy == CastPolicy::None || schema.is_mutable()) {
    op.redispatch_boxed(below, stack);
    return;
  }
  const size_t n = schema.arguments.size();
  EMBER_INTERNAL_ASSERT(stack->size() >= n, "autocast: fewer arguments on the stack than the schema has");
  const size_t first = stack->size() - n;
  ExcludeDispatchKeyGuard no_autocast(DispatchKey::AutocastCPU);
  ScalarType to = policy == CastPolicy::Float32 ? ScalarType::Float : tls_dtype;
  if (policy == CastPolicy::Promote) {
    // PyTorch's promote: from the region's dtype, float32 wins over the lower precisions;
    // float64 and non-floating tensors take no part and are not cast.
    for_each_tensor(*stack, first, [&](const Tensor& t, auto&&) {
      if (!eligible(t) || t.scalar_type() == to) return;
      EMBER_CHECK(to == ScalarType::Float || t.scalar_type() == ScalarType::Float,
                  op.name().name, "(): in an autocast region of dtype ", scalar_type_name(tls_dtype),
                  ", expected the floating tensors to be float32 or ", scalar_type_name(tls_dtype),
                  ", but got ", scalar_type_name(t.scalar_type()));
      to = ScalarType::Float;
    });
  }
  for_each_tensor(*stack, first, [&](const Tensor& t, auto&& replace) {
    if (eligible(t) && t.scalar_type() != to) replace(t.to(to));
  });
  op.redispatch_boxed(below, stack);
}

}  // namespace

CastPolicy cpu_cast_policy(const char* op_name) {
  const auto& table = policies();
  auto it = table.find(op_name);
  return it == table.end() ? CastPolicy::None : it->second;
}

AutocastState cpu_autocast_state() {
  return {local_dispatch_key_set().included.has(DispatchKey::AutocastCPU), tls_dtype};
}

void set_cpu_autocast_state(AutocastState state) {
  // A disabled region may name any dtype (torch.autocast keeps float32 there and warns).
  EMBER_CHECK_VALUE(!state.enabled || state.dtype == ScalarType::BFloat16 ||
                        state.dtype == ScalarType::Half,
                    "autocast(): CPU autocast casts to bfloat16 or float16, not ",
                    scalar_type_name(state.dtype));
  tls_dtype = state.dtype;
  auto tls = local_dispatch_key_set();
  const DispatchKeySet key(DispatchKey::AutocastCPU);
  set_local_dispatch_key_set(
      {state.enabled ? tls.included | key : tls.included - key, tls.excluded});
}

}  // namespace ember::amp

EMBER_LIBRARY_IMPL(_, AutocastCPU, m) {
  m.fallback(ember::CppFunction::boxed(&ember::amp::autocast_op));
}
