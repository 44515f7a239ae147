// Connectionist temporal classification (Graves et al., 2006) on the CPU: the alpha
// recursion that gives each sample's negative log likelihood and the beta recursion that
// gives its gradient with respect to log_probs, samples split across threads.
// CPU copies: baseline only (log-space recursions along the targets, not vector loops).
//
// Note [CTC in log space]: as PyTorch's LossCTC.cpp. A target of length L is extended with
// blanks to l' of length 2L + 1 (l'[s] = blank for even s, target[s / 2] for odd s).
// log_alpha[n, t, s] sums, in log space, the paths over log_probs[0..t] that end in l'[s];
// each step is a log-sum-exp of at most three predecessors (s, s - 1, and s - 2 when l'[s]
// differs from l'[s - 2]) shifted by their maximum (0 when all are -inf). The likelihood is
// log_alpha at the last step in the final blank or the last label. The backward runs the
// mirrored beta recursion, sums alpha * beta per (t, label) in log space, and returns
// PyTorch's gradient exp(lp) - exp(log(alpha * beta) + nll - lp), times the output gradient:
// the derivative through a log_softmax that produced log_probs (its exp(lp) term vanishes
// there), not the derivative in log_probs taken alone. Entries of log_alpha beyond a sample's
// input or extended target length are -inf (PyTorch leaves them uninitialised).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <tuple>
#include <vector>

#include "aten/native/CpuCapability.h"
#include "aten/native/Dispatch.h"
#include "aten/native/Parallel.h"
#include "aten/native/ctc_loss.h"
#include "c10/util/Exception.h"
#include "ember/generated/ops/empty.h"

namespace ember::native {
EMBER_CPU_NAMESPACE_BEGIN
namespace {

// Checks that each sample's first target_lengths[i] targets are labels in [0, C).
void check_ctc_labels(const char* op, const CtcLayout& l, IntArrayRef target_lengths) {
  const int64_t* tg = static_cast<const int64_t*>(l.targets.data_ptr());
  for (int64_t i = 0; i < l.n; ++i) {
    for (int64_t s = 0; s < target_lengths[i]; ++s) {
      const int64_t label = tg[l.offsets[i] + s];
      EMBER_CHECK_INDEX(label >= 0 && label < l.c, op, "(): expected targets in [0, ", l.c, "), but sample ", i,
                        " has target ", label);
    }
  }
}

// log(exp(a) + exp(b) + exp(c)), shifted by the maximum (Note [CTC in log space]).
template <class T>
T log_sum3(T a, T b, T c) {
  constexpr T kNegInf = -std::numeric_limits<T>::infinity();
  T m = std::max(a, std::max(b, c));
  if (m == kNegInf) m = T(0);
  return std::log(std::exp(a - m) + std::exp(b - m) + std::exp(c - m)) + m;
}

template <class F>
void dispatch_ctc_type(ScalarType dt, F&& f) {
  if (dt == ScalarType::Float) f(TypeTag<float>{});
  else f(TypeTag<double>{});
}

}  // namespace

std::tuple<Tensor, Tensor> ctc_loss_cpu(const Tensor& log_probs, const Tensor& targets, IntArrayRef input_lengths,
                                        IntArrayRef target_lengths, int64_t blank, bool zero_infinity) {
  const CtcLayout l = check_ctc("_ctc_loss", log_probs, targets, input_lengths, target_lengths, blank);
  check_ctc_labels("_ctc_loss", l, target_lengths);
  const int64_t states = 2 * l.max_target + 1;
  Tensor nll = ember::empty({l.n}, log_probs.options());
  Tensor log_alpha = ember::empty({l.n, l.t, states}, log_probs.options());
  dispatch_ctc_type(log_probs.scalar_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    constexpr T kNegInf = -std::numeric_limits<T>::infinity();
    const T* lp = static_cast<const T*>(log_probs.data_ptr());
    const int64_t st = log_probs.strides()[0], sn = log_probs.strides()[1], sc = log_probs.strides()[2];
    const int64_t* tg = static_cast<const int64_t*>(l.targets.data_ptr());
    T* pa = static_cast<T*>(log_alpha.data_ptr());
    T* pn = static_cast<T*>(nll.data_ptr());
    parallel_for(0, l.n, 1, [&](int64_t begin, int64_t end) {
      for (int64_t b = begin; b < end; ++b) {
        const int64_t in_len = input_lengths[b], tg_len = target_lengths[b];
        const int64_t* tgt = tg + l.offsets[b];
        const T* lpb = lp + b * sn;
        T* alpha = pa + b * l.t * states;
        std::fill(alpha, alpha + l.t * states, kNegInf);
        auto prime = [&](int64_t s) { return s % 2 == 0 ? blank : tgt[s / 2]; };
        if (in_len == 0) {
          pn[b] = -(tg_len == 0 ? T(0) : kNegInf);
          continue;
        }
        alpha[0] = lpb[blank * sc];
        if (tg_len > 0) alpha[1] = lpb[prime(1) * sc];
        for (int64_t t = 1; t < in_len; ++t) {
          const T* prev = alpha + (t - 1) * states;
          T* cur = alpha + t * states;
          for (int64_t s = 0; s < 2 * tg_len + 1; ++s) {
            const int64_t label = prime(s);
            const T la2 = s > 0 ? prev[s - 1] : kNegInf;
            const T la3 = s > 1 && prime(s - 2) != label ? prev[s - 2] : kNegInf;
            cur[s] = log_sum3(prev[s], la2, la3) + lpb[t * st + label * sc];
          }
        }
        const T* last = alpha + (in_len - 1) * states;
        if (tg_len == 0) {
          pn[b] = -last[0];
        } else {
          const T l1 = last[2 * tg_len], l2 = last[2 * tg_len - 1];
          T m = std::max(l1, l2);
          if (m == kNegInf) m = T(0);
          pn[b] = -(std::log(std::exp(l1 - m) + std::exp(l2 - m)) + m);
        }
      }
    });
  });
  return {nll, log_alpha};
}

Tensor ctc_loss_backward_cpu(const Tensor& grad, const Tensor& log_probs, const Tensor& targets,
                             IntArrayRef input_lengths, IntArrayRef target_lengths, const Tensor& neg_log_likelihood,
                             const Tensor& log_alpha, int64_t blank, bool zero_infinity) {
  const char* op = "_ctc_loss_backward";
  const CtcLayout l = check_ctc(op, log_probs, targets, input_lengths, target_lengths, blank);
  check_ctc_labels(op, l, target_lengths);
  const int64_t states = 2 * l.max_target + 1;
  check_ctc_backward(op, l, log_probs, grad, neg_log_likelihood, log_alpha);
  const ScalarType dt = log_probs.scalar_type();
  Tensor out = ember::empty({l.t, l.n, l.c}, log_probs.options());
  dispatch_ctc_type(dt, [&](auto tag) {
    using T = typename decltype(tag)::type;
    constexpr T kNegInf = -std::numeric_limits<T>::infinity();
    const T* lp = static_cast<const T*>(log_probs.data_ptr());
    const int64_t st = log_probs.strides()[0], sn = log_probs.strides()[1], sc = log_probs.strides()[2];
    const T* pa = static_cast<const T*>(log_alpha.data_ptr());
    const int64_t as0 = log_alpha.strides()[0], as1 = log_alpha.strides()[1], as2 = log_alpha.strides()[2];
    const T* pg = static_cast<const T*>(grad.data_ptr());
    const T* pn = static_cast<const T*>(neg_log_likelihood.data_ptr());
    const int64_t gs = grad.strides()[0], ns = neg_log_likelihood.strides()[0];
    const int64_t* tg = static_cast<const int64_t*>(l.targets.data_ptr());
    T* po = static_cast<T*>(out.data_ptr());
    const int64_t ot = l.n * l.c;  // out's stride in t
    parallel_for(0, l.n, 1, [&](int64_t begin, int64_t end) {
      std::vector<T> beta(static_cast<size_t>(l.t * states));
      for (int64_t b = begin; b < end; ++b) {
        const T nll = pn[b * ns];
        T* g = po + b * l.c;  // g[t * ot + c]
        if (zero_infinity && nll == std::numeric_limits<T>::infinity()) {
          for (int64_t t = 0; t < l.t; ++t) std::fill(g + t * ot, g + t * ot + l.c, T(0));
          continue;
        }
        for (int64_t t = 0; t < l.t; ++t) std::fill(g + t * ot, g + t * ot + l.c, kNegInf);
        const int64_t in_len = input_lengths[b], tg_len = target_lengths[b], ext = 2 * tg_len + 1;
        const int64_t* tgt = tg + l.offsets[b];
        const T* lpb = lp + b * sn;
        auto alpha = [&](int64_t t, int64_t s) { return pa[b * as0 + t * as1 + s * as2]; };
        auto prime = [&](int64_t s) { return s % 2 == 0 ? blank : tgt[s / 2]; };
        if (in_len > 0) {
          T* last = beta.data() + (in_len - 1) * states;
          std::fill(last, last + states, kNegInf);
          T* gl = g + (in_len - 1) * ot;
          last[2 * tg_len] = lpb[(in_len - 1) * st + blank * sc];
          gl[blank] = alpha(in_len - 1, 2 * tg_len) + last[2 * tg_len];
          if (tg_len > 0) {
            const int64_t label = prime(2 * tg_len - 1);
            last[2 * tg_len - 1] = lpb[(in_len - 1) * st + label * sc];
            // A blank and a label: different entries, so no log-sum needed.
            gl[label] = alpha(in_len - 1, 2 * tg_len - 1) + last[2 * tg_len - 1];
          }
        }
        for (int64_t t = in_len - 2; t >= 0; --t) {
          const T* next = beta.data() + (t + 1) * states;
          T* cur = beta.data() + t * states;
          for (int64_t s = ext - 1; s >= 0; --s) {
            const int64_t label = prime(s);
            const T lb2 = s < 2 * tg_len ? next[s + 1] : kNegInf;
            const T lb3 = s < 2 * tg_len - 1 && prime(s + 2) != label ? next[s + 2] : kNegInf;
            cur[s] = log_sum3(next[s], lb2, lb3) + lpb[t * st + label * sc];
            // Several s share a label: accumulate alpha * beta in log space.
            const T ab = alpha(t, s) + cur[s];
            T& acc = g[t * ot + label];
            if (acc == kNegInf) {
              acc = ab;
            } else {
              const T m = std::max(acc, ab);
              acc = std::log(std::exp(acc - m) + std::exp(ab - m)) + m;
            }
          }
        }
        const T gr = pg[b * gs];
        for (int64_t t = 0; t < in_len; ++t) {
          for (int64_t c = 0; c < l.c; ++c) {
            T& res = g[t * ot + c];
            const T v = lpb[t * st + c * sc];
            res = (std::exp(v) - std::exp(res + nll - v)) * gr;
          }
        }
        for (int64_t t = in_len; t < l.t; ++t) std::fill(g + t * ot, g + t * ot + l.c, T(0));
      }
    });
  });
  return out;
}

EMBER_CPU_NAMESPACE_END
}  // namespace ember::native
