// Derivatives of the LAPACK ops (aten/native/linalg/lapack.cpp), written with ember ops so
// that they are differentiable themselves. Real matrices: adjoints are transposes. An
// undefined gradient of a multi-output op stands for zeros.
#include <algorithm>
#include <string>

#include "aten/TensorOperators.h"
#include "aten/autograd/FunctionsManual.h"
#include "c10/util/Exception.h"
#include "ember/generated/ops/abs.h"
#include "ember/generated/ops/amax.h"
#include "ember/generated/ops/cat.h"
#include "ember/generated/ops/conj_physical.h"
#include "ember/generated/ops/diag_embed.h"
#include "ember/generated/ops/diagonal.h"
#include "ember/generated/ops/eq.h"
#include "ember/generated/ops/eye.h"
#include "ember/generated/ops/gt.h"
#include "ember/generated/ops/linalg_det.h"
#include "ember/generated/ops/linalg_solve.h"
#include "ember/generated/ops/linalg_solve_triangular.h"
#include "ember/generated/ops/linalg_svd.h"
#include "ember/generated/ops/lu_unpack.h"
#include "ember/generated/ops/matmul.h"
#include "ember/generated/ops/prod.h"
#include "ember/generated/ops/sum.h"
#include "ember/generated/ops/tril.h"
#include "ember/generated/ops/triu.h"
#include "ember/generated/ops/view_as_real.h"
#include "ember/generated/ops/where.h"
#include "ember/generated/ops/zeros_like.h"

namespace ember::autograd {
namespace {

Tensor mT(const Tensor& t) { return t.transpose(-2, -1); }

// The n x n identity of t's dtype.
Tensor eye_of(int64_t n, const Tensor& t) { return ember::eye(n, t.options()); }

// B is a batch of vectors for A: linalg_solve's rule (lapack.cpp).
bool is_vector_rhs(const Tensor& A, const Tensor& B) {
  if (B.dim() == 1) return true;
  return B.dim() == A.dim() - 1 && std::equal(B.sizes().begin(), B.sizes().end(), A.sizes().begin());
}

// a + b where either may be undefined (zero).
Tensor add_defined(const Tensor& a, const Tensor& b) {
  if (!a.defined()) return b;
  if (!b.defined()) return a;
  return a + b;
}

// QR backward for m >= n (Q m x n, R n x n):
// gA = [gQ + Q sym(triu(gR R^T - Q^T gQ))] R^{-T}, sym(T) = T + T^T - diag(T).
Tensor qr_backward_tall(const Tensor& gQ, const Tensor& gR, const Tensor& Q, const Tensor& R) {
  Tensor M;
  if (gR.defined()) M = ember::matmul(gR, mT(R));
  if (gQ.defined()) M = M.defined() ? M - ember::matmul(mT(Q), gQ) : -ember::matmul(mT(Q), gQ);
  M = ember::triu(M);
  Tensor b = ember::matmul(Q, M + mT(M) - ember::diag_embed(ember::diagonal(M, 0, -2, -1)));
  b = add_defined(b, gQ);
  return ember::linalg_solve_triangular(mT(R), b, /*upper=*/false, /*left=*/false, false);
}

// The square LU backward without P: A = L U (L unit lower), M = L^{-1} dA U^{-1} splits into
// L^{-1} dL (strictly lower) and dU U^{-1} (upper), so gA = L^{-T} (tril_{-1}(L^T gL) + triu(gU U^T)) U^{-T}.
Tensor lu_backward_square(const Tensor& gL, const Tensor& gU, const Tensor& L, const Tensor& U) {
  Tensor phi;
  if (gL.defined()) phi = ember::tril(ember::matmul(mT(L), gL), -1);
  if (gU.defined()) phi = add_defined(phi, ember::triu(ember::matmul(gU, mT(U))));
  const Tensor X = ember::linalg_solve_triangular(mT(L), phi, /*upper=*/true, /*left=*/true, /*unitriangular=*/true);
  return ember::linalg_solve_triangular(mT(U), X, /*upper=*/false, /*left=*/false, false);
}

// The real and imaginary parts of a complex tensor, as real tensors.
std::pair<Tensor, Tensor> re_im(const Tensor& z) {
  const Tensor r = ember::view_as_real(z.contiguous());
  return {r.select(-1, 0), r.select(-1, 1)};
}

// Re(X) for the complex X with C X = B, through the real system [[Cr, -Ci], [Ci, Cr]] [Xr; Xi] =
// [Br; Bi] (linalg_solve is real).
Tensor real_of_complex_solve(const Tensor& C, const Tensor& B) {
  auto [Cr, Ci] = re_im(C);
  auto [Br, Bi] = re_im(B);
  const Tensor big = ember::cat({ember::cat({Cr, -Ci}, -1), ember::cat({Ci, Cr}, -1)}, -2);
  const Tensor X = ember::linalg_solve(big, ember::cat({Br, Bi}, -2), true);
  return X.narrow(-2, 0, C.size(-1));
}

}  // namespace

Tensor linalg_eig_backward(const Tensor& gL, const Tensor& gV, const Tensor& L, const Tensor& V) {
  // With M = V^-1 dA V: dL = diag(M), dV = V (M / E + diag(c)) where E_ij = L_j - L_i off the
  // diagonal and the real c keeps the columns unit (Re(v_i^H dv_i) = 0). Collecting the terms:
  // gA = Re(V^-H Q V^H), Q = (G - V^H V diag(Re G)) / conj(E) off the diagonal, diag(Q) = gL,
  // with G = V^H gV (A is real: eig refuses complex input).
  if (!gL.defined() && !gV.defined()) return Tensor();
  const int64_t n = L.size(-1);
  const Tensor Vh = ember::conj_physical(mT(V));
  const Tensor eye = eye_of(n, V);
  Tensor Q;
  if (gV.defined()) {
    const Tensor G = ember::matmul(Vh, gV);
    auto [reG, imG] = re_im(G.diagonal(0, -2, -1));
    // A loss that depends on each eigenvector's phase (v -> v e^{i phi}) has no gradient.
    if (G.numel() > 0) {
      const double scale = 1.0 + ember::amax(ember::abs(G), {}, false).item().to_double();
      const double tol = V.scalar_type() == ScalarType::ComplexFloat ? 1e-3 : 1e-6;
      EMBER_CHECK(ember::amax(ember::abs(imG), {}, false).item().to_double() <= tol * scale,
                  "linalg_eig_backward(): the eigenvectors are only defined up to a phase e^{i phi} and the "
                  "loss depends on it, so its gradient is not defined; use a loss invariant to the phases "
                  "(of |V|, for instance)");
    }
    const Tensor P = G - ember::matmul(Vh, V * reG.unsqueeze(-2));
    const Tensor Lc = ember::conj_physical(L);
    Q = P / (Lc.unsqueeze(-2) - Lc.unsqueeze(-1) + eye) * (1 - eye);
  }
  if (gL.defined()) Q = add_defined(Q, ember::diag_embed(gL));
  return real_of_complex_solve(Vh, ember::matmul(Q, Vh));
}

Tensor linalg_lu_factor_ex_backward(const Tensor& grad, const Tensor& LU, const Tensor& pivots) {
  if (!grad.defined()) return Tensor();
  auto [P, L, U] = ember::lu_unpack(LU, pivots, true, true);
  const int64_t m = LU.size(-2), n = LU.size(-1), k = std::min(m, n);
  const Tensor gL = ember::tril(grad, -1).narrow(-1, 0, k);
  const Tensor gU = ember::triu(grad).narrow(-2, 0, k);
  Tensor gA;
  if (m == n) {
    gA = lu_backward_square(gL, gU, L, U);
  } else if (m > n) {
    // P^T A = [L1; L2] U: L2 = A2 U^{-1}, so gA2 = gL2 U^{-T} and U also gets -L2^T gA2.
    const Tensor L1 = L.narrow(-2, 0, n), L2 = L.narrow(-2, n, m - n);
    const Tensor gA2 = ember::linalg_solve_triangular(mT(U), gL.narrow(-2, n, m - n), false, false, false);
    const Tensor gA1 = lu_backward_square(gL.narrow(-2, 0, n), gU - ember::matmul(mT(L2), gA2), L1, U);
    gA = ember::cat({gA1, gA2}, -2);
  } else {
    // P^T A = L [U1 U2]: U2 = L^{-1} A2, so gA2 = L^{-T} gU2 and L also gets -gA2 U2^T.
    const Tensor U1 = U.narrow(-1, 0, m), U2 = U.narrow(-1, m, n - m);
    const Tensor gA2 = ember::linalg_solve_triangular(mT(L), gU.narrow(-1, m, n - m), true, true, true);
    const Tensor gA1 = lu_backward_square(gL - ember::matmul(gA2, mT(U2)), gU.narrow(-1, 0, m), L, U1);
    gA = ember::cat({gA1, gA2}, -1);
  }
  return ember::matmul(P, gA);
}

std::tuple<Tensor, Tensor> linalg_solve_backward(const Tensor& grad, const Tensor& A, const Tensor& B,
                                                 const Tensor& X, bool left,
                                                 const std::array<bool, 2>& grad_input_mask) {
  if (!grad.defined()) return {};
  // AX = B: gB = A^{-T} gX, gA = -gB X^T.  XA = B: gB = gX A^{-T}, gA = -X^T gB.
  const bool vector = is_vector_rhs(A, B);
  const Tensor gX = vector ? grad.unsqueeze(-1) : grad;
  const Tensor X_ = vector ? X.unsqueeze(-1) : X;
  const Tensor gB = ember::linalg_solve(mT(A), gX, left);
  Tensor gA;
  if (grad_input_mask[0]) gA = left ? -ember::matmul(gB, mT(X_)) : -ember::matmul(mT(X_), gB);
  return {gA, grad_input_mask[1] ? (vector ? gB.squeeze(-1) : gB) : Tensor()};
}

std::tuple<Tensor, Tensor> linalg_solve_triangular_backward(const Tensor& grad, const Tensor& A,
                                                            const Tensor& X, bool upper, bool left,
                                                            bool unitriangular,
                                                            const std::array<bool, 2>& grad_input_mask) {
  if (!grad.defined()) return {};
  const Tensor gB = ember::linalg_solve_triangular(mT(A), grad, !upper, left, unitriangular);
  Tensor gA;
  if (grad_input_mask[0]) {
    gA = left ? -ember::matmul(gB, mT(X)) : -ember::matmul(mT(X), gB);
    // Only the triangle that was read (without the diagonal when unitriangular) moves X.
    gA = upper ? ember::triu(gA, unitriangular ? 1 : 0) : ember::tril(gA, unitriangular ? -1 : 0);
  }
  return {gA, grad_input_mask[1] ? gB : Tensor()};
}

Tensor slogdet_backward(const Tensor& grad_logabsdet, const Tensor& A, const Tensor& sign,
                        const Tensor& logabsdet) {
  if (!grad_logabsdet.defined()) return Tensor();
  // d log|det A| = tr(A^{-1} dA): gA = g A^{-T}.
  return ember::linalg_solve(mT(A), eye_of(A.size(-1), A) * grad_logabsdet.unsqueeze(-1).unsqueeze(-1));
}

Tensor det_backward(const Tensor& grad, const Tensor& A, const Tensor& det) {
  if (!grad.defined()) return Tensor();
  if (det.numel() == 0 || ember::sum(ember::eq(det, 0)).item().to<int64_t>() == 0) {
    // d det A = det A tr(A^{-1} dA): gA = g det A^{-T}.
    return ember::linalg_solve(mT(A), eye_of(A.size(-1), A) * (grad * det).unsqueeze(-1).unsqueeze(-1));
  }
  // A singular matrix: with A = U diag(S) Vh, det A = det U det Vh prod(S), so
  // gA = g det U det Vh U diag(prod_{j != i} S_j) Vh, defined for every A.
  auto [U, S, Vh] = ember::linalg_svd(A, false, std::nullopt);
  const Tensor alpha = ember::linalg_det(U) * ember::linalg_det(Vh);
  const Tensor eye = eye_of(S.size(-1), S);
  const Tensor others = ember::where(ember::gt(eye, 0), 1, S.unsqueeze(-2).expand(A.sizes()));
  const Tensor D = ember::prod(others, -1) * (grad * alpha).unsqueeze(-1);
  return ember::matmul(U * D.unsqueeze(-2), Vh);
}

Tensor cholesky_backward(const Tensor& grad, bool upper, const Tensor& L) {
  if (!grad.defined()) return Tensor();
  // A = L L^T (Murray, arXiv:1602.07527): gA = L^{-T} sym(Phi(L^T gL)) L^{-1}, Phi taking the
  // lower triangle with half the diagonal; the gradient is symmetric, as A is.
  const Tensor L_ = upper ? mT(L) : L;
  const Tensor gL = upper ? mT(grad) : grad;
  const Tensor P = ember::tril(ember::matmul(mT(L_), gL));
  const Tensor S = (P + mT(ember::tril(P, -1))) * 0.5;
  const Tensor Y = ember::linalg_solve_triangular(mT(L_), S, /*upper=*/true, /*left=*/true, false);
  return ember::linalg_solve_triangular(L_, Y, /*upper=*/false, /*left=*/false, false);
}

Tensor linalg_qr_backward(const Tensor& gQ, const Tensor& gR, const Tensor& Q, const Tensor& R,
                          std::string_view mode) {
  EMBER_CHECK(mode != "r", "linalg_qr_backward(): the derivative of linalg_qr depends on Q, which "
              "mode='r' does not compute; use mode='reduced' to differentiate through linalg_qr");
  const int64_t m = Q.size(-2), n = R.size(-1);
  EMBER_CHECK(mode != "complete" || m <= n, "linalg_qr_backward(): linalg_qr is not differentiable "
              "with mode='complete' when A has more rows than columns (", m, " > ", n, ")");
  if (m >= n) return qr_backward_tall(gQ, gR, Q, R);
  // A = [X | Y] with X = Q R1 square and Y = Q R2: Y's part of R moves Q through X.
  const Tensor R1 = R.narrow(-1, 0, m), R2 = R.narrow(-1, m, n - m);
  const Tensor gR1 = gR.defined() ? gR.narrow(-1, 0, m) : Tensor();
  const Tensor gR2 = gR.defined() ? gR.narrow(-1, m, n - m) : Tensor();
  Tensor gQ1 = gQ;
  if (gR2.defined()) gQ1 = add_defined(gQ1, ember::matmul(ember::matmul(Q, R2), mT(gR2)));
  const Tensor gX = qr_backward_tall(gQ1, gR1, Q, R1);
  const Tensor gY = gR2.defined() ? ember::matmul(Q, gR2) : ember::zeros_like(R2);
  return ember::cat({gX, gY}, -1);
}

Tensor linalg_eigh_backward(const Tensor& gL, const Tensor& gV, const Tensor& L, const Tensor& V) {
  // gA = V (diag(gL) + skew(V^T gV) / E) V^T with E_ij = L_j - L_i (symmetric, as A is).
  Tensor inner;
  if (gV.defined()) {
    const Tensor VtgV = ember::matmul(mT(V), gV);
    const Tensor E = L.unsqueeze(-2) - L.unsqueeze(-1) + eye_of(V.size(-1), V);
    inner = (VtgV - mT(VtgV)) * 0.5 / E;
  }
  if (gL.defined()) inner = add_defined(inner, ember::diag_embed(gL));
  return ember::matmul(V, ember::matmul(inner, mT(V)));
}

Tensor linalg_svd_backward(const Tensor& gU_, const Tensor& gS, const Tensor& gVh_, const Tensor& U_,
                           const Tensor& S, const Tensor& Vh_, bool full_matrices) {
  const int64_t m = U_.size(-2), n = Vh_.size(-1), k = S.size(-1);
  // Only the first k singular vectors move with A: the rest of a full U or Vh is arbitrary.
  const Tensor U = full_matrices ? U_.narrow(-1, 0, k) : U_;
  const Tensor Vh = full_matrices ? Vh_.narrow(-2, 0, k) : Vh_;
  const Tensor gU = gU_.defined() && full_matrices ? gU_.narrow(-1, 0, k) : gU_;
  const Tensor gVh = gVh_.defined() && full_matrices ? gVh_.narrow(-2, 0, k) : gVh_;
  if (!gU.defined() && !gVh.defined()) {
    return m >= n ? ember::matmul(U, gS.unsqueeze(-1) * Vh) : ember::matmul(U * gS.unsqueeze(-2), Vh);
  }
  // gA = U [skew(U^T gU) S / E + S skew(V^T gV) / E + diag(gS)] V^T (+ the parts outside the
  // span of U or V when A is not square), E_ij = S_j^2 - S_i^2, skew(X) = X - X^T.
  const Tensor V = mT(Vh);
  const Tensor S2 = S * S;
  const Tensor E = S2.unsqueeze(-2) - S2.unsqueeze(-1) + eye_of(S.size(-1), S);
  Tensor inner;
  if (gU.defined()) {
    const Tensor UtgU = ember::matmul(mT(U), gU);
    inner = (UtgU - mT(UtgU)) * S.unsqueeze(-2);
  }
  if (gVh.defined()) {
    const Tensor VtgV = ember::matmul(Vh, mT(gVh));
    inner = add_defined(inner, S.unsqueeze(-1) * (VtgV - mT(VtgV)));
  }
  Tensor gA = inner / E;
  if (gS.defined()) gA = gA + ember::diag_embed(gS);
  if (m > n && gU.defined()) {
    // + (I - U U^T) gU S^{-1} V^T
    gA = ember::matmul(U, gA);
    const Tensor gUSinv = gU / S.unsqueeze(-2);
    gA = gA + gUSinv - ember::matmul(U, ember::matmul(mT(U), gUSinv));
    return ember::matmul(gA, Vh);
  }
  if (m < n && gVh.defined()) {
    // + U S^{-1} gV^T (I - V V^T)
    gA = ember::matmul(gA, Vh);
    const Tensor SinvgVh = gVh / S.unsqueeze(-1);
    gA = gA + SinvgVh - ember::matmul(ember::matmul(SinvgVh, V), Vh);
    return ember::matmul(U, gA);
  }
  return m >= n ? ember::matmul(U, ember::matmul(gA, Vh)) : ember::matmul(ember::matmul(U, gA), Vh);
}

}  // namespace ember::autograd
