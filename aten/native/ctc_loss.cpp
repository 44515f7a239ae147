// ctc_loss: the composites (the reductions over _ctc_loss's per-sample losses, lengths as
// lists or tensors) and the argument checks the CTC kernels share (ctc_loss.h). The alpha
// and beta recursions are in cpu/ctc_loss.cpp.
#include "aten/native/ctc_loss.h"

#include <algorithm>
#include <limits>
#include <vector>

#include "aten/TensorFactories.h"
#include "aten/TensorOperators.h"
#include "c10/core/Reduction.h"
#include "c10/util/Exception.h"
#include "ember/generated/ops/_ctc_loss.h"
#include "ember/generated/ops/where.h"
#include "ember/generated/ops/zeros.h"

namespace ember::native {

CtcLayout check_ctc(const char* op, const Tensor& log_probs, const Tensor& targets, IntArrayRef input_lengths,
                    IntArrayRef target_lengths, int64_t blank) {
  EMBER_CHECK_NOT_IMPLEMENTED(log_probs.scalar_type() == ScalarType::Float ||
                                  log_probs.scalar_type() == ScalarType::Double,
                              op, "(): not implemented for log_probs of dtype ", log_probs.scalar_type());
  EMBER_CHECK(targets.scalar_type() == ScalarType::Long || targets.scalar_type() == ScalarType::Int, op,
              "(): expected targets of dtype int64 or int32, but got ", targets.scalar_type());
  EMBER_CHECK(log_probs.dim() == 3, op, "(): expected log_probs of shape (T, N, C), but got ", log_probs.sizes());
  EMBER_CHECK(log_probs.numel() > 0, op, "(): expected a non-empty log_probs, but got shape ", log_probs.sizes());
  EMBER_CHECK(targets.dim() == 1 || targets.dim() == 2, op, "(): expected targets padded (N, S) or concatenated "
              "(sum(target_lengths),), but got shape ", targets.sizes());
  CtcLayout l;
  l.t = log_probs.sizes()[0];
  l.n = log_probs.sizes()[1];
  l.c = log_probs.sizes()[2];
  EMBER_CHECK(blank >= 0 && blank < l.c, op, "(): expected blank in the label range [0, ", l.c, "), but got ",
              blank);
  EMBER_CHECK(static_cast<int64_t>(input_lengths.size()) == l.n, op, "(): expected input_lengths of the batch "
              "size ", l.n, ", but got ", input_lengths.size(), " lengths");
  EMBER_CHECK(static_cast<int64_t>(target_lengths.size()) == l.n, op, "(): expected target_lengths of the batch "
              "size ", l.n, ", but got ", target_lengths.size(), " lengths");
  int64_t total = 0;
  for (int64_t i = 0; i < l.n; ++i) {
    EMBER_CHECK(target_lengths[i] >= 0, op, "(): expected target_lengths to be at least 0, but got ",
                target_lengths[i], " for sample ", i);
    EMBER_CHECK(input_lengths[i] >= 0 && input_lengths[i] <= l.t, op, "(): expected input_lengths in [0, ",
                l.t, "] (log_probs' T), but got ", input_lengths[i], " for sample ", i);
    l.max_target = std::max(l.max_target, target_lengths[i]);
    total += target_lengths[i];
  }
  l.targets = targets.to(ScalarType::Long).contiguous();
  l.offsets.resize(static_cast<size_t>(l.n));
  if (targets.dim() == 1) {
    EMBER_CHECK(targets.sizes()[0] == total, op, "(): expected concatenated targets of sum(target_lengths) = ",
                total, " elements, but got ", targets.sizes()[0]);
    for (int64_t i = 0, pos = 0; i < l.n; pos += target_lengths[i], ++i) l.offsets[i] = pos;
  } else {
    EMBER_CHECK(targets.sizes()[0] == l.n, op, "(): expected padded targets with the batch size ", l.n,
                " rows, but got shape ", targets.sizes());
    EMBER_CHECK(targets.sizes()[1] >= l.max_target, op, "(): expected padded targets with at least the longest "
                "target length ", l.max_target, " columns, but got shape ", targets.sizes());
    for (int64_t i = 0; i < l.n; ++i) l.offsets[i] = i * targets.sizes()[1];
  }
  return l;
}

void check_ctc_backward(const char* op, const CtcLayout& l, const Tensor& log_probs, const Tensor& grad,
                        const Tensor& neg_log_likelihood, const Tensor& log_alpha) {
  const int64_t states = 2 * l.max_target + 1;
  EMBER_CHECK(grad.dim() == 1 && grad.sizes()[0] == l.n && neg_log_likelihood.dim() == 1 &&
                  neg_log_likelihood.sizes()[0] == l.n,
              op, "(): expected grad and neg_log_likelihood of shape (", l.n, "), but got ", grad.sizes(), " and ",
              neg_log_likelihood.sizes());
  EMBER_CHECK(log_alpha.dim() == 3 && log_alpha.sizes()[0] == l.n && log_alpha.sizes()[1] == l.t &&
                  log_alpha.sizes()[2] >= states,
              op, "(): expected log_alpha of shape (", l.n, ", ", l.t, ", ", states, "), but got ", log_alpha.sizes());
  const ScalarType dt = log_probs.scalar_type();
  EMBER_CHECK(grad.scalar_type() == dt && neg_log_likelihood.scalar_type() == dt && log_alpha.scalar_type() == dt,
              op, "(): expected grad, neg_log_likelihood and log_alpha of log_probs' dtype ", dt, ", but got ",
              grad.scalar_type(), ", ", neg_log_likelihood.scalar_type(), " and ", log_alpha.scalar_type());
}

namespace {


Tensor ctc_loss_impl(const Tensor& log_probs, const Tensor& targets, IntArrayRef input_lengths,
                     IntArrayRef target_lengths, int64_t blank, int64_t reduction, bool zero_infinity) {
  EMBER_CHECK_VALUE(reduction >= Reduction::None && reduction <= Reduction::Sum,
                    "ctc_loss(): expected reduction 0 (none), 1 (mean) or 2 (sum), but got ", reduction);
  // An unbatched (T, C) input is a batch of one.
  const bool batched = log_probs.dim() == 3;
  const Tensor lp = batched ? log_probs : log_probs.unsqueeze(1);
  Tensor res = std::get<0>(ember::_ctc_loss(lp, targets.to(ScalarType::Long), input_lengths, target_lengths, blank,
                                            zero_infinity));
  if (zero_infinity) {
    res = ember::where(res.eq(std::numeric_limits<double>::infinity()), ember::zeros({}, res.options()), res);
  }
  if (reduction == Reduction::Mean) {
    const Tensor lengths = ember::tensor(std::vector<int64_t>(target_lengths.begin(), target_lengths.end()),
                                         TensorOptions().dtype(ScalarType::Long));
    return (res / lengths.to(res.scalar_type()).clamp_min(1)).mean();
  }
  if (reduction == Reduction::Sum) return res.sum();
  return batched ? res : res.squeeze(0);
}

}  // namespace

Tensor ctc_loss(const Tensor& log_probs, const Tensor& targets, IntArrayRef input_lengths, IntArrayRef target_lengths,
                int64_t blank, int64_t reduction, bool zero_infinity) {
  return ctc_loss_impl(log_probs, targets, input_lengths, target_lengths, blank, reduction, zero_infinity);
}

Tensor ctc_loss(const Tensor& log_probs, const Tensor& targets, const Tensor& input_lengths,
                const Tensor& target_lengths, int64_t blank, int64_t reduction, bool zero_infinity) {
  auto integral = [](const Tensor& t) { return is_integral(t.scalar_type(), /*include_bool=*/false); };
  EMBER_CHECK(integral(input_lengths), "ctc_loss(): expected integral input_lengths, but got ",
              input_lengths.scalar_type());
  EMBER_CHECK(integral(target_lengths), "ctc_loss(): expected integral target_lengths, but got ",
              target_lengths.scalar_type());
  const std::vector<int64_t> il = to_vector<int64_t>(input_lengths);
  const std::vector<int64_t> tl = to_vector<int64_t>(target_lengths);
  return ctc_loss_impl(log_probs, targets, il, tl, blank, reduction, zero_infinity);
}

}  // namespace ember::native
