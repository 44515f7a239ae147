// Connectionist temporal classification (Graves et al., 2006) on the CPU: the alpha
// recursion that gives each sample's negative log likelihood, the beta recursion that gives
// its gradient with respect to log_probs, and the ctc_loss composites with their reductions.
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
#include <limits>
#include <vector>

#include "aten/TensorOperators.h"
#include "aten/native/Dispatch.h"
#include "aten/native/Parallel.h"
#include "c10/core/Reduction.h"
#include "c10/util/Exception.h"
#include "ember/generated/Functions.h"
#include "ember/generated/NativeFunctions.h"

namespace ember::native {
namespace {

// Where each sample's targets lie in the int64 copy of `targets`.
struct CtcLayout {
  int64_t t = 0, n = 0, c = 0;    // log_probs sizes
  int64_t max_target = 0;         // the longest target_length
  std::vector<int64_t> offsets;   // first target of each sample
  Tensor targets;                 // int64, contiguous
};

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
  const int64_t* tg = static_cast<const int64_t*>(l.targets.data_ptr());
  for (int64_t i = 0; i < l.n; ++i) {
    for (int64_t s = 0; s < target_lengths[i]; ++s) {
      const int64_t label = tg[l.offsets[i] + s];
      EMBER_CHECK_INDEX(label >= 0 && label < l.c, op, "(): expected targets in [0, ", l.c, "), but sample ", i,
                        " has target ", label);
    }
  }
  return l;
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

namespace {

Tensor ctc_loss_impl(const Tensor& log_probs, const Tensor& targets, IntArrayRef input_lengths,
                     IntArrayRef target_lengths, int64_t blank, int64_t reduction, bool zero_infinity) {
  EMBER_CHECK_VALUE(reduction >= Reduction::None && reduction <= Reduction::Sum,
                    "ctc_loss(): expected reduction 0 (none), 1 (mean) or 2 (sum), but got ",
                    reduction);
  // An unbatched (T, C) input is a batch of one.
  const bool batched = log_probs.dim() == 3;
  const Tensor lp = batched ? log_probs : log_probs.unsqueeze(1);
  Tensor res = std::get<0>(ember::_ctc_loss(lp, targets.to(ScalarType::Long), input_lengths, target_lengths, blank,
                                            zero_infinity));
  if (zero_infinity) {
    res = ember::where(res.eq(std::numeric_limits<double>::infinity()), ember::zeros({}, res.options()), res);
  }
  if (reduction == Reduction::Mean) {
    Tensor lengths = ember::empty({static_cast<int64_t>(target_lengths.size())}, TensorOptions().dtype(ScalarType::Long));
    std::copy(target_lengths.begin(), target_lengths.end(), static_cast<int64_t*>(lengths.data_ptr()));
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
  const Tensor il = input_lengths.to(ScalarType::Long).contiguous();
  const Tensor tl = target_lengths.to(ScalarType::Long).contiguous();
  const IntArrayRef ila(static_cast<const int64_t*>(il.data_ptr()), static_cast<size_t>(il.numel()));
  const IntArrayRef tla(static_cast<const int64_t*>(tl.data_ptr()), static_cast<size_t>(tl.numel()));
  return ctc_loss_impl(log_probs, targets, ila, tla, blank, reduction, zero_infinity);
}

}  // namespace ember::native
