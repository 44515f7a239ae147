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
#include "c10/util/Exception.h"
#include "ember/generated/Functions.h"
#include "ember/generated/NativeFunctions.h"

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
    using V = Vectorized<T>;
    constexpr int64_t kW = V::kSize;
    const T* gp = static_cast<const T*>(g_in.data_ptr());
    const T* cp = static_cast<const T*>(c_in.data_ptr());
    T* hp = static_cast<T*>(hy.data_ptr());
    T* yp = static_cast<T*>(cy.data_ptr());
    T* wp = static_cast<T*>(ws.data_ptr());
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
    using V = Vectorized<T>;
    constexpr int64_t kW = V::kSize;
    const T* dhp = has_dh ? static_cast<const T*>(dh_in.data_ptr()) : nullptr;
    const T* dcp = has_dc ? static_cast<const T*>(dc_in.data_ptr()) : nullptr;
    const T* cp = static_cast<const T*>(c_in.data_ptr());
    const T* yp = static_cast<const T*>(y_in.data_ptr());
    const T* wp = static_cast<const T*>(w_in.data_ptr());
    T* dgp = output_mask[0] ? static_cast<T*>(d_gates.data_ptr()) : nullptr;
    T* dxp = output_mask[1] ? static_cast<T*>(d_cx.data_ptr()) : nullptr;
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
  });
  return {d_gates, d_cx};
}

EMBER_CPU_NAMESPACE_END
}  // namespace ember::native
