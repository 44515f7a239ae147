#pragma once
/// Shared by the ctc_loss composites and the CTC kernels: the checks of _ctc_loss's and
/// _ctc_loss_backward's arguments that do not read tensor data, and where each sample's
/// targets lie.

#include <cstdint>
#include <vector>

#include "c10/core/Tensor.h"

namespace ember::native {

/// Where each sample's targets lie in the int64 copy of `targets`.
struct CtcLayout {
  int64_t t = 0, n = 0, c = 0;    // log_probs sizes
  int64_t max_target = 0;         // the longest target_length
  std::vector<int64_t> offsets;   // first target of each sample
  Tensor targets;                 // int64, contiguous
};

/// Checks _ctc_loss's arguments (dtypes, shapes, blank, lengths; not the labels themselves,
/// which the kernels check as they read them) and returns their layout. `op` names the
/// caller in messages.
CtcLayout check_ctc(const char* op, const Tensor& log_probs, const Tensor& targets, IntArrayRef input_lengths,
                    IntArrayRef target_lengths, int64_t blank);

/// Checks _ctc_loss_backward's grad, neg_log_likelihood and log_alpha against the layout
/// of its other arguments: shapes (N), (N) and (N, T, >= 2 * max_target + 1), log_probs'
/// dtype.
void check_ctc_backward(const char* op, const CtcLayout& l, const Tensor& log_probs, const Tensor& grad,
                        const Tensor& neg_log_likelihood, const Tensor& log_alpha);

}  // namespace ember::native
