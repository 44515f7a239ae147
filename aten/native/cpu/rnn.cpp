// The fused LSTM cell on the CPU: _fused_lstm_cell and its backward.
//
// Note [Fused LSTM cell]: one LSTM step is gates = x W_ih^T + b + h W_hh^T (one addmm over
// the step's precomputed input projection), then the pointwise part
//   i, f, g, o = sigmoid(gates[:, 0:H]), sigmoid(gates[:, H:2H]), tanh(gates[:, 2H:3H]),
//                sigmoid(gates[:, 3H:4H])
//   cy = f * cx + i * g,   hy = o * tanh(cy)
// Written with ember ops that is eleven kernels and eleven autograd nodes per step; here it
// is one pass over each row, and the backward is another. The forward also returns the
// activated gates (i, f, g, o), the workspace its backward reads, so the backward computes
// only tanh(cy) again. Rows (batch entries) split across threads.
#include <algorithm>
#include <cmath>
#include <tuple>

#include "aten/native/CpuCapability.h"
#include "aten/native/Dispatch.h"
#include "aten/native/Parallel.h"
#include "aten/native/cpu/Vectorized.h"
#include "aten/native/linalg/Blas.h"
#include "c10/core/Threads.h"
#include "c10/util/Exception.h"
#include "ember/generated/ops/cat.h"
#include "ember/generated/ops/empty.h"
#include "ember/generated/ops/zeros.h"

namespace ember::native {
EMBER_CPU_NAMESPACE_BEGIN
namespace {

void check_dtype(ScalarType t, const char* op) {
  EMBER_CHECK_NOT_IMPLEMENTED(t == ScalarType::Float || t == ScalarType::Double, op,
                              "(): not implemented for dtype ", t, " (float32 and float64 are)");
}

template <class F>
void dispatch_lstm(ScalarType t, const char* op, F&& f) {
  check_dtype(t, op);
  if (t == ScalarType::Float) f(TypeTag<float>{});
  else f(TypeTag<double>{});
}

// A (B, H) state argument: its shape and dtype against gates' (B, 4H).
void check_state(const char* op, const char* arg, const Tensor& t, int64_t B, int64_t H, ScalarType dt) {
  EMBER_CHECK(t.dim() == 2 && t.sizes()[0] == B && t.sizes()[1] == H, op, "(): expected ", arg,
              " of shape [", B, ", ", H, "], but got ", t.sizes());
  EMBER_CHECK(t.scalar_type() == dt, op, "(): expected ", arg, " of dtype ", dt, ", but got ", t.scalar_type());
}

// Rows per task: about 16K elements of state.
int64_t row_grain(int64_t H) { return std::max<int64_t>(1, 16384 / std::max<int64_t>(H, 1)); }

template <class T>
T sigmoid_scalar(T x) { return T(1) / (T(1) + std::exp(-x)); }

// The cell's pointwise forward over B rows: gates g (B, 4H) and cx c (B, H) give the
// activated gates w (B, 4H), cy y and hy h (B, H). All contiguous.
template <class T>
void lstm_cell_forward(const T* gp, const T* cp, T* wp, T* yp, T* hp, int64_t B, int64_t H) {
  using V = Vectorized<T>;
  constexpr int64_t kW = V::kSize;
  parallel_for(0, B, row_grain(H), [&](int64_t b0, int64_t b1) {
    const V one(T(1));
    for (int64_t b = b0; b < b1; ++b) {
      const T* g = gp + b * 4 * H;
      const T* c = cp + b * H;
      T* w = wp + b * 4 * H;
      T* h = hp + b * H;
      T* y = yp + b * H;
      int64_t j = 0;
      for (; j + kW <= H; j += kW) {
        const V i = one / (one + vec::exp(-V::loadu(g + j)));
        const V f = one / (one + vec::exp(-V::loadu(g + H + j)));
        const V gg = vec::tanh(V::loadu(g + 2 * H + j));
        const V o = one / (one + vec::exp(-V::loadu(g + 3 * H + j)));
        const V cn = f * V::loadu(c + j) + i * gg;
        i.store(w + j);
        f.store(w + H + j);
        gg.store(w + 2 * H + j);
        o.store(w + 3 * H + j);
        cn.store(y + j);
        (o * vec::tanh(cn)).store(h + j);
      }
      for (; j < H; ++j) {
        const T i = sigmoid_scalar(g[j]), f = sigmoid_scalar(g[H + j]);
        const T gg = std::tanh(g[2 * H + j]), o = sigmoid_scalar(g[3 * H + j]);
        const T cn = f * c[j] + i * gg;
        w[j] = i;
        w[H + j] = f;
        w[2 * H + j] = gg;
        w[3 * H + j] = o;
        y[j] = cn;
        h[j] = o * std::tanh(cn);
      }
    }
  });
}

// The cell's pointwise backward over B rows: from grad_hy dh and grad_cy dcn (either may be
// null: zeros), cx c, cy y and the activated gates w, the gates' gradient dg (B, 4H) and
// cx's dx (B, H); either output may be null (not asked).
template <class T>
void lstm_cell_backward(const T* dhp, const T* dcp, const T* cp, const T* yp, const T* wp, T* dgp, T* dxp,
                        int64_t B, int64_t H) {
  using V = Vectorized<T>;
  constexpr int64_t kW = V::kSize;
  parallel_for(0, B, row_grain(H), [&](int64_t b0, int64_t b1) {
    const V one(T(1)), zero(T(0));
    for (int64_t b = b0; b < b1; ++b) {
      const T* w = wp + b * 4 * H;
      const T* c = cp + b * H;
      const T* y = yp + b * H;
      const T* dh = dhp ? dhp + b * H : nullptr;
      const T* dcn = dcp ? dcp + b * H : nullptr;
      T* dg = dgp ? dgp + b * 4 * H : nullptr;
      T* dx = dxp ? dxp + b * H : nullptr;
      int64_t j = 0;
      for (; j + kW <= H; j += kW) {
        const V i = V::loadu(w + j), f = V::loadu(w + H + j), gg = V::loadu(w + 2 * H + j),
                o = V::loadu(w + 3 * H + j);
        const V tc = vec::tanh(V::loadu(y + j));
        const V gh = dh ? V::loadu(dh + j) : zero;
        const V dc = (dcn ? V::loadu(dcn + j) : zero) + gh * o * (one - tc * tc);
        if (dg) {
          (dc * gg * i * (one - i)).store(dg + j);
          (dc * V::loadu(c + j) * f * (one - f)).store(dg + H + j);
          (dc * i * (one - gg * gg)).store(dg + 2 * H + j);
          (gh * tc * o * (one - o)).store(dg + 3 * H + j);
        }
        if (dx) (dc * f).store(dx + j);
      }
      for (; j < H; ++j) {
        const T i = w[j], f = w[H + j], gg = w[2 * H + j], o = w[3 * H + j];
        const T tc = std::tanh(y[j]);
        const T gh = dh ? dh[j] : T(0);
        const T dc = (dcn ? dcn[j] : T(0)) + gh * o * (T(1) - tc * tc);
        if (dg) {
          dg[j] = dc * gg * i * (T(1) - i);
          dg[H + j] = dc * c[j] * f * (T(1) - f);
          dg[2 * H + j] = dc * i * (T(1) - gg * gg);
          dg[3 * H + j] = gh * tc * o * (T(1) - o);
        }
        if (dx) dx[j] = dc * f;
      }
    }
  });
}

}  // namespace

std::tuple<Tensor, Tensor, Tensor> fused_lstm_cell_cpu(const Tensor& gates, const Tensor& cx) {
  const char* op = "_fused_lstm_cell";
  EMBER_CHECK(gates.dim() == 2 && gates.sizes()[1] % 4 == 0, op,
              "(): expected gates of shape [batch, 4 * hidden_size], but got ", gates.sizes());
  check_dtype(gates.scalar_type(), op);
  const int64_t B = gates.sizes()[0], H = gates.sizes()[1] / 4;
  check_state(op, "cx", cx, B, H, gates.scalar_type());
  Tensor hy = ember::empty({B, H}, gates.options());
  Tensor cy = ember::empty({B, H}, gates.options());
  Tensor ws = ember::empty({B, 4 * H}, gates.options());
  const Tensor g_in = gates.contiguous(), c_in = cx.contiguous();
  dispatch_lstm(gates.scalar_type(), op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    lstm_cell_forward<T>(static_cast<const T*>(g_in.data_ptr()), static_cast<const T*>(c_in.data_ptr()),
                         static_cast<T*>(ws.data_ptr()), static_cast<T*>(cy.data_ptr()),
                         static_cast<T*>(hy.data_ptr()), B, H);
  });
  return {hy, cy, ws};
}

std::tuple<Tensor, Tensor> fused_lstm_cell_backward_cpu(const std::optional<Tensor>& grad_hy,
                                                        const std::optional<Tensor>& grad_cy, const Tensor& cx,
                                                        const Tensor& cy, const Tensor& workspace,
                                                        std::array<bool, 2> output_mask) {
  const char* op = "_fused_lstm_cell_backward";
  EMBER_CHECK(workspace.dim() == 2 && workspace.sizes()[1] % 4 == 0, op,
              "(): expected workspace of shape [batch, 4 * hidden_size], but got ", workspace.sizes());
  const int64_t B = workspace.sizes()[0], H = workspace.sizes()[1] / 4;
  const ScalarType dt = workspace.scalar_type();
  check_dtype(dt, op);
  check_state(op, "cx", cx, B, H, dt);
  check_state(op, "cy", cy, B, H, dt);
  const bool has_dh = grad_hy && grad_hy->defined(), has_dc = grad_cy && grad_cy->defined();
  if (has_dh) check_state(op, "grad_hy", *grad_hy, B, H, dt);
  if (has_dc) check_state(op, "grad_cy", *grad_cy, B, H, dt);
  Tensor d_gates = output_mask[0] ? ember::empty({B, 4 * H}, workspace.options()) : Tensor();
  Tensor d_cx = output_mask[1] ? ember::empty({B, H}, workspace.options()) : Tensor();
  if (!output_mask[0] && !output_mask[1]) return {d_gates, d_cx};
  const Tensor dh_in = has_dh ? grad_hy->contiguous() : Tensor(), dc_in = has_dc ? grad_cy->contiguous() : Tensor();
  const Tensor c_in = cx.contiguous(), y_in = cy.contiguous(), w_in = workspace.contiguous();
  dispatch_lstm(dt, op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    lstm_cell_backward<T>(has_dh ? static_cast<const T*>(dh_in.data_ptr()) : nullptr,
                          has_dc ? static_cast<const T*>(dc_in.data_ptr()) : nullptr,
                          static_cast<const T*>(c_in.data_ptr()), static_cast<const T*>(y_in.data_ptr()),
                          static_cast<const T*>(w_in.data_ptr()),
                          output_mask[0] ? static_cast<T*>(d_gates.data_ptr()) : nullptr,
                          output_mask[1] ? static_cast<T*>(d_cx.data_ptr()) : nullptr, B, H);
  });
  return {d_gates, d_cx};
}

namespace {

// out (1, M, N) = a (1, M, K) @ b (1, K, N) + beta * out, N split across the threads, each
// running a one-thread GEMM on its columns. The step GEMMs of a layer have M = batch (32
// say): oneDNN's own threading gains 1.3x from two threads there, a column split nearly 2x.
void step_gemm(const Tensor& out, const Tensor& a, const Tensor& b, double beta) {
  const int64_t N = out.sizes()[2];
  const int64_t threads = in_parallel_region() ? 1 : std::min<int64_t>(get_num_threads(), N / 64);
  if (threads <= 1) {
    gemm_batched(out, a, b, 1, beta);
    return;
  }
  parallel_for(0, threads, 1, [&](int64_t t0, int64_t t1) {
    for (int64_t t = t0; t < t1; ++t) {
      const int64_t c0 = N * t / threads, c1 = N * (t + 1) / threads;
      gemm_batched(out.narrow(2, c0, c1 - c0), a, b.narrow(2, c0, c1 - c0), 1, beta);
    }
  });
}

}  // namespace

// Note [LSTM layer]: _lstm_layer runs one direction of one LSTM layer over a sequence in one
// op: per step a GEMM gates = input_gates[t] + h W_hh^T (into a buffer, the precomputed input
// projection as C with beta 1), then the fused cell (Note [Fused LSTM cell]). It keeps each
// step's activated gates (workspace) and cell state (cells) for the backward, which walks
// the steps back: the cell's backward gives the step's gate gradient, and one GEMM carries
// it to the previous hidden state (dh = dgates W_hh). W_hh's gradient is then a single GEMM
// over every step, dgates^T [h_prev], and input_gates' gradient is dgates itself. So a
// layer costs T small GEMMs forward, T backward and one large one, with no per-step
// dispatch or autograd node.
std::tuple<Tensor, Tensor, Tensor, Tensor, Tensor> lstm_layer_cpu(const Tensor& input_gates, const Tensor& h0,
                                                                  const Tensor& c0, const Tensor& weight_hh,
                                                                  bool reverse) {
  const char* op = "_lstm_layer";
  EMBER_CHECK(input_gates.dim() == 3 && input_gates.sizes()[2] % 4 == 0, op,
              "(): expected input_gates of shape [seq_len, batch, 4 * hidden_size], but got ", input_gates.sizes());
  const ScalarType dt = input_gates.scalar_type();
  check_dtype(dt, op);
  const int64_t T = input_gates.sizes()[0], B = input_gates.sizes()[1], H = input_gates.sizes()[2] / 4;
  check_state(op, "h0", h0, B, H, dt);
  check_state(op, "c0", c0, B, H, dt);
  EMBER_CHECK(weight_hh.dim() == 2 && weight_hh.sizes()[0] == 4 * H && weight_hh.sizes()[1] == H, op,
              "(): expected weight_hh of shape [", 4 * H, ", ", H, "], but got ", weight_hh.sizes());
  EMBER_CHECK(weight_hh.scalar_type() == dt, op, "(): expected weight_hh of dtype ", dt, ", but got ",
              weight_hh.scalar_type());
  const TensorOptions opts = input_gates.options();
  Tensor output = ember::empty({T, B, H}, opts);
  Tensor workspace = ember::empty({T, B, 4 * H}, opts);
  Tensor cells = ember::empty({T, B, H}, opts);
  const Tensor gx = input_gates.contiguous();
  const Tensor w_t = weight_hh.t().unsqueeze(0);  // (1, H, 4H): W_hh^T, read transposed
  Tensor h = h0.contiguous(), c = c0.contiguous();
  Tensor gates = ember::empty({1, B, 4 * H}, opts);
  for (int64_t s = 0; s < T; ++s) {
    const int64_t t = reverse ? T - 1 - s : s;
    gates.select(0, 0).copy_(gx.select(0, t));
    step_gemm(gates, h.unsqueeze(0), w_t, 1);
    dispatch_lstm(dt, op, [&](auto tag) {
      using U = typename decltype(tag)::type;
      lstm_cell_forward<U>(static_cast<const U*>(gates.data_ptr()), static_cast<const U*>(c.data_ptr()),
                           static_cast<U*>(workspace.select(0, t).data_ptr()), static_cast<U*>(cells.select(0, t).data_ptr()),
                           static_cast<U*>(output.select(0, t).data_ptr()), B, H);
    });
    h = output.select(0, t);
    c = cells.select(0, t);
  }
  return {output, T ? h.clone() : h0.clone(), T ? c.clone() : c0.clone(), workspace, cells};
}

std::tuple<Tensor, Tensor, Tensor, Tensor> lstm_layer_backward_cpu(
    const std::optional<Tensor>& grad_output, const std::optional<Tensor>& grad_hn,
    const std::optional<Tensor>& grad_cn, const Tensor& h0, const Tensor& c0, const Tensor& weight_hh,
    const Tensor& output, const Tensor& workspace, const Tensor& cells, bool reverse,
    std::array<bool, 4> output_mask) {
  const char* op = "_lstm_layer_backward";
  EMBER_CHECK(workspace.dim() == 3 && workspace.sizes()[2] % 4 == 0, op,
              "(): expected workspace of shape [seq_len, batch, 4 * hidden_size], but got ", workspace.sizes());
  const ScalarType dt = workspace.scalar_type();
  check_dtype(dt, op);
  const int64_t T = workspace.sizes()[0], B = workspace.sizes()[1], H = workspace.sizes()[2] / 4;
  check_state(op, "h0", h0, B, H, dt);
  check_state(op, "c0", c0, B, H, dt);
  EMBER_CHECK(weight_hh.dim() == 2 && weight_hh.sizes()[0] == 4 * H && weight_hh.sizes()[1] == H &&
                  weight_hh.scalar_type() == dt,
              op, "(): expected weight_hh of shape [", 4 * H, ", ", H, "] and dtype ", dt, ", but got ",
              weight_hh.sizes(), " of ", weight_hh.scalar_type());
  auto check_seq = [&](const char* arg, const Tensor& t) {
    EMBER_CHECK(t.dim() == 3 && t.sizes()[0] == T && t.sizes()[1] == B && t.sizes()[2] == H, op,
                "(): expected ", arg, " of shape [", T, ", ", B, ", ", H, "], but got ", t.sizes());
    EMBER_CHECK(t.scalar_type() == dt, op, "(): expected ", arg, " of dtype ", dt, ", but got ", t.scalar_type());
  };
  check_seq("output", output);
  check_seq("cells", cells);
  const bool has_go = grad_output && grad_output->defined();
  const bool has_dh = grad_hn && grad_hn->defined(), has_dc = grad_cn && grad_cn->defined();
  if (has_go) check_seq("grad_output", *grad_output);
  if (has_dh) check_state(op, "grad_hn", *grad_hn, B, H, dt);
  if (has_dc) check_state(op, "grad_cn", *grad_cn, B, H, dt);
  const TensorOptions opts = workspace.options();
  Tensor d_gates = ember::empty({T, B, 4 * H}, opts);
  Tensor dh = has_dh ? grad_hn->contiguous().clone() : ember::zeros({B, H}, opts);
  Tensor dc = has_dc ? grad_cn->contiguous().clone() : ember::zeros({B, H}, opts);
  Tensor dc_prev = ember::empty({B, H}, opts);
  const Tensor go = has_go ? grad_output->contiguous() : Tensor();
  const Tensor ws = workspace.contiguous(), cs = cells.contiguous(), c0c = c0.contiguous();
  const Tensor w = weight_hh.unsqueeze(0);  // (1, 4H, H)
  for (int64_t s = T - 1; s >= 0; --s) {
    const int64_t t = reverse ? T - 1 - s : s;
    const int64_t t_prev = reverse ? t + 1 : t - 1;
    if (has_go) dh.add_(go.select(0, t));
    const Tensor c_prev = s == 0 ? c0c : cs.select(0, t_prev);
    dispatch_lstm(dt, op, [&](auto tag) {
      using U = typename decltype(tag)::type;
      lstm_cell_backward<U>(static_cast<const U*>(dh.data_ptr()), static_cast<const U*>(dc.data_ptr()),
                            static_cast<const U*>(c_prev.data_ptr()), static_cast<const U*>(cs.select(0, t).data_ptr()),
                            static_cast<const U*>(ws.select(0, t).data_ptr()), static_cast<U*>(d_gates.select(0, t).data_ptr()),
                            static_cast<U*>(dc_prev.data_ptr()), B, H);
    });
    std::swap(dc, dc_prev);
    step_gemm(dh.unsqueeze(0), d_gates.select(0, t).unsqueeze(0), w, 0);
  }
  Tensor d_weight;
  if (output_mask[3] && T > 0) {  // with no steps W_hh is unused: no gradient (as autograd gives)
    // h_prev of each step in time order: h0 before the first processed step.
    Tensor h_prev;
    if (reverse) {
      h_prev = ember::cat({output.slice(0, 1, T), h0.unsqueeze(0)}, 0);
    } else {
      h_prev = ember::cat({h0.unsqueeze(0), output.slice(0, 0, T - 1)}, 0);
    }
    d_weight = ember::empty({1, 4 * H, H}, opts);
    gemm_batched(d_weight, d_gates.reshape({1, T * B, 4 * H}).transpose(1, 2), h_prev.reshape({1, T * B, H}), 1, 0);
    d_weight = d_weight.squeeze(0);
  }
  return {output_mask[0] ? d_gates : Tensor(), output_mask[1] ? dh : Tensor(), output_mask[2] ? dc : Tensor(),
          d_weight};
}

EMBER_CPU_NAMESPACE_END
}  // namespace ember::native
