// Matrix products: the kernels (mm, bmm, addmm, baddbmm, mv, addmv, dot, vdot), all one
// call of gemm_batched (Blas.h; the *_dense ones serve CPU and CUDA, whose gemm_batched is
// cuBLAS's), and the composites built on them (matmul, linear, outer,
// addbmm, tensordot, kron; einsum is in einsum.cpp).
#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

#include "aten/TensorOperators.h"
#include "aten/native/DimUtils.h"
#include "aten/native/RangeFactories.h"
#include "aten/native/TensorIterator.h"
#include "aten/native/linalg/Blas.h"
#include "aten/native/linalg/LinalgChecks.h"
#include "c10/util/Exception.h"
#include "ember/generated/ops/_conj_physical.h"
#include "ember/generated/ops/addmm.h"
#include "ember/generated/ops/addmm_native.h"
#include "ember/generated/ops/addmm__native.h"
#include "ember/generated/ops/addmv_native.h"
#include "ember/generated/ops/baddbmm_native.h"
#include "ember/generated/ops/baddbmm__native.h"
#include "ember/generated/ops/bmm.h"
#include "ember/generated/ops/bmm_native.h"
#include "ember/generated/ops/dot.h"
#include "ember/generated/ops/dot_native.h"
#include "ember/generated/ops/empty.h"
#include "ember/generated/ops/matmul.h"
#include "ember/generated/ops/mm.h"
#include "ember/generated/ops/mm_native.h"
#include "ember/generated/ops/mv.h"
#include "ember/generated/ops/mv_native.h"
#include "ember/generated/ops/outer_native.h"

namespace ember::native {
namespace {

using namespace linalg_checks;

void check_dim(const char* op, const char* arg, const Tensor& t, int64_t dim) {
  EMBER_CHECK(t.dim() == dim, op, "(): expected '", arg, "' to be a ", dim, "-d tensor, but got a ",
              t.dim(), "-d tensor of shape ", t.sizes());
}


void check_out(const char* op, const Tensor& out, ScalarType dt, std::initializer_list<const Tensor*> inputs) {
  EMBER_CHECK(out.scalar_type() == dt, op, "(): expected 'out' of dtype ", dt, ", but got ",
              out.scalar_type());
  check_output_overlap(out, inputs);
}

// [n, k] @ [k, p]: the shapes checked ("mm(): mat1 and mat2 shapes cannot be multiplied
// (3x4 and 5x6)").
void check_mm_shapes(const char* op, const Tensor& a, const Tensor& b) {
  EMBER_CHECK(a.sizes()[a.dim() - 1] == b.sizes()[b.dim() - 2], op, "(): mat1 and mat2 shapes "
              "cannot be multiplied (", shape_str(a.sizes(), ShapeStyle::Times), " and ",
              shape_str(b.sizes(), ShapeStyle::Times), ")");
}

// out (already sized [n, p]) = beta * out + alpha * a @ b for 2-d a and b.
void mm_into(const Tensor& out, const Tensor& a, const Tensor& b, const Scalar& alpha, const Scalar& beta) {
  gemm_batched(out.unsqueeze(0), a.unsqueeze(0), b.unsqueeze(0), alpha, beta);
}

void bmm_checks(const char* op, const Tensor& self, const Tensor& mat2) {
  // PyTorch's bmm refuses bool before comparing dtypes (its kernel dispatches on self's).
  EMBER_CHECK_NOT_IMPLEMENTED(self.scalar_type() != ScalarType::Bool, op, "(): not implemented for "
                              "dtype bool");
  check_dim(op, "self", self, 3);
  check_dim(op, "mat2", mat2, 3);
  check_same_dtype(op, self, "self", mat2, "mat2");
  EMBER_CHECK(self.sizes()[0] == mat2.sizes()[0] && self.sizes()[2] == mat2.sizes()[1], op,
              "(): expected 'mat2' of size [", self.sizes()[0], ", ", self.sizes()[2], ", *] for "
              "'self' of size ", self.sizes(), ", but got ", mat2.sizes());
}

void mm_checks(const char* op, const Tensor& self, const Tensor& mat2, const char* an = "self",
               const char* bn = "mat2") {
  check_dim(op, an, self, 2);
  check_dim(op, bn, mat2, 2);
  check_same_dtype(op, self, an, mat2, bn);
  check_mm_shapes(op, self, mat2);
}

// self broadcast to `sizes`, the addend of addmm/addmv/baddbmm.
Tensor addend(const char* op, const Tensor& self, IntArrayRef sizes) {
  bool ok = self.dim() <= static_cast<int64_t>(sizes.size());
  for (int64_t i = 1; ok && i <= self.dim(); ++i) {
    const int64_t s = self.sizes()[self.dim() - i];
    ok = s == 1 || s == sizes[sizes.size() - i];
  }
  EMBER_CHECK(ok, op, "(): 'self' of shape ", self.sizes(), " cannot be broadcast to the "
              "product's shape ", sizes);
  return self.expand(sizes);
}

// out = beta * self + alpha * product, the product written by `product(out, beta')`.
template <class F>
Tensor& add_product_out(const char* op, const Tensor& self, IntArrayRef sizes, const Scalar& beta,
                        Tensor& out, F&& product) {
  resize_out(out, sizes);
  check_no_internal_overlap(op, out.sizes(), out.strides());
  if (beta.to_double() != 0.0 && !out.is_same(self)) out.copy_(addend(op, self, sizes));
  product(out, out.is_same(self) || beta.to_double() != 0.0 ? beta : Scalar(0));
  return out;
}

}  // namespace

// ---- kernels ------------------------------------------------------------------------------

Tensor& mm_out_dense(const Tensor& self, const Tensor& mat2, Tensor& out) {
  mm_checks("mm", self, mat2);
  check_out("mm", out, self.scalar_type(), {&self, &mat2});
  resize_out(out, {self.sizes()[0], mat2.sizes()[1]});
  check_no_internal_overlap("mm", out.sizes(), out.strides());
  mm_into(out, self, mat2, 1, 0);
  return out;
}

Tensor mm_dense(const Tensor& self, const Tensor& mat2) {
  mm_checks("mm", self, mat2);
  Tensor out = ember::empty({self.sizes()[0], mat2.sizes()[1]}, self.options());
  mm_into(out, self, mat2, 1, 0);
  return out;
}

Tensor& bmm_out_dense(const Tensor& self, const Tensor& mat2, Tensor& out) {
  bmm_checks("bmm", self, mat2);
  check_out("bmm", out, self.scalar_type(), {&self, &mat2});
  resize_out(out, {self.sizes()[0], self.sizes()[1], mat2.sizes()[2]});
  check_no_internal_overlap("bmm", out.sizes(), out.strides());
  gemm_batched(out, self, mat2, 1, 0);
  return out;
}

Tensor bmm_dense(const Tensor& self, const Tensor& mat2) {
  bmm_checks("bmm", self, mat2);
  Tensor out = ember::empty({self.sizes()[0], self.sizes()[1], mat2.sizes()[2]}, self.options());
  gemm_batched(out, self, mat2, 1, 0);
  return out;
}

Tensor& addmm_out_dense(const Tensor& self, const Tensor& mat1, const Tensor& mat2, const Scalar& beta,
                      const Scalar& alpha, Tensor& out) {
  mm_checks("addmm", mat1, mat2, "mat1", "mat2");
  check_same_dtype("addmm", self, "self", mat1, "mat1");
  check_out("addmm", out, mat1.scalar_type(), {&mat1, &mat2});
  const int64_t sizes[] = {mat1.sizes()[0], mat2.sizes()[1]};
  return add_product_out("addmm", self, sizes, beta, out, [&](const Tensor& o, const Scalar& b) {
    mm_into(o, mat1, mat2, alpha, b);
  });
}

Tensor addmm_dense(const Tensor& self, const Tensor& mat1, const Tensor& mat2, const Scalar& beta,
                 const Scalar& alpha) {
  Tensor out = ember::empty({0}, mat1.options());
  return addmm_out_dense(self, mat1, mat2, beta, alpha, out);
}

Tensor& addmm__dense(Tensor& self, const Tensor& mat1, const Tensor& mat2, const Scalar& beta,
                   const Scalar& alpha) {
  mm_checks("addmm_", mat1, mat2, "mat1", "mat2");
  check_same_dtype("addmm_", self, "self", mat1, "mat1");
  EMBER_CHECK(self.dim() == 2 && self.sizes()[0] == mat1.sizes()[0] && self.sizes()[1] == mat2.sizes()[1],
              "addmm_(): expected 'self' of shape [", mat1.sizes()[0], ", ", mat2.sizes()[1],
              "], but got ", self.sizes());
  check_output_overlap(self, {&mat1, &mat2});
  check_no_internal_overlap("addmm_", self.sizes(), self.strides());
  mm_into(self, mat1, mat2, alpha, beta);
  return self;
}

Tensor& baddbmm_out_dense(const Tensor& self, const Tensor& batch1, const Tensor& batch2,
                        const Scalar& beta, const Scalar& alpha, Tensor& out) {
  bmm_checks("baddbmm", batch1, batch2);
  check_same_dtype("baddbmm", self, "self", batch1, "batch1");
  check_out("baddbmm", out, batch1.scalar_type(), {&batch1, &batch2});
  const int64_t sizes[] = {batch1.sizes()[0], batch1.sizes()[1], batch2.sizes()[2]};
  return add_product_out("baddbmm", self, sizes, beta, out, [&](const Tensor& o, const Scalar& b) {
    gemm_batched(o, batch1, batch2, alpha, b);
  });
}

Tensor baddbmm_dense(const Tensor& self, const Tensor& batch1, const Tensor& batch2, const Scalar& beta,
                   const Scalar& alpha) {
  Tensor out = ember::empty({0}, batch1.options());
  return baddbmm_out_dense(self, batch1, batch2, beta, alpha, out);
}

Tensor& baddbmm__dense(Tensor& self, const Tensor& batch1, const Tensor& batch2, const Scalar& beta,
                     const Scalar& alpha) {
  bmm_checks("baddbmm_", batch1, batch2);
  check_same_dtype("baddbmm_", self, "self", batch1, "batch1");
  const int64_t sizes[] = {batch1.sizes()[0], batch1.sizes()[1], batch2.sizes()[2]};
  EMBER_CHECK(self.sizes() == IntArrayRef(sizes), "baddbmm_(): expected 'self' of shape ",
              IntArrayRef(sizes), ", but got ", self.sizes());
  check_output_overlap(self, {&batch1, &batch2});
  check_no_internal_overlap("baddbmm_", self.sizes(), self.strides());
  gemm_batched(self, batch1, batch2, alpha, beta);
  return self;
}

Tensor& addmv_out_cpu(const Tensor& self, const Tensor& mat, const Tensor& vec, const Scalar& beta,
                      const Scalar& alpha, Tensor& out) {
  check_dim("addmv", "mat", mat, 2);
  check_dim("addmv", "vec", vec, 1);
  check_same_dtype("addmv", mat, "mat", vec, "vec");
  check_same_dtype("addmv", self, "self", mat, "mat");
  EMBER_CHECK(mat.sizes()[1] == vec.sizes()[0], "addmv(): size mismatch, got input (",
              mat.sizes()[0], "), mat (", shape_str(mat.sizes(), ShapeStyle::Times), "), vec (",
              vec.sizes()[0], ")");
  check_out("addmv", out, mat.scalar_type(), {&mat, &vec});
  const int64_t sizes[] = {mat.sizes()[0]};
  return add_product_out("addmv", self, sizes, beta, out, [&](const Tensor& o, const Scalar& b) {
    mm_into(o.unsqueeze(1), mat, vec.unsqueeze(1), alpha, b);
  });
}

Tensor addmv_cpu(const Tensor& self, const Tensor& mat, const Tensor& vec, const Scalar& beta,
                 const Scalar& alpha) {
  Tensor out = ember::empty({0}, mat.options());
  return addmv_out_cpu(self, mat, vec, beta, alpha, out);
}

Tensor mv_cpu(const Tensor& self, const Tensor& vec) {
  // A 0-d argument is an IndexError in PyTorch (it reads size(0) first).
  EMBER_CHECK_INDEX(self.dim() > 0, "mv(): expected 'self' to be a 2-d tensor, but got a 0-d tensor");
  check_dim("mv", "self", self, 2);
  check_dim("mv", "vec", vec, 1);
  check_same_dtype("mv", self, "self", vec, "vec");
  EMBER_CHECK(self.sizes()[1] == vec.sizes()[0], "mv(): size mismatch, got 'self' of shape ",
              self.sizes(), " and 'vec' of shape [", vec.sizes()[0], "]");
  Tensor out = ember::empty({self.sizes()[0]}, self.options());
  mm_into(out.unsqueeze(1), self, vec.unsqueeze(1), 1, 0);
  return out;
}

Tensor& mv_out_cpu(const Tensor& self, const Tensor& vec, Tensor& out) {
  const Tensor r = mv_cpu(self, vec);
  check_out("mv", out, self.scalar_type(), {&self, &vec});
  resize_out(out, r.sizes());
  out.copy_(r);
  return out;
}

namespace {
void dot_checks(const char* op, const Tensor& self, const Tensor& other) {
  EMBER_CHECK(self.dim() == 1 && other.dim() == 1, op, "(): 1D tensors expected, but got ",
              self.dim(), "D and ", other.dim(), "D tensors");
  check_same_dtype(op, self, "self", other, "other");
  EMBER_CHECK(self.numel() == other.numel(), op, "(): inconsistent tensor size, expected tensor [",
              self.numel(), "] and src [", other.numel(), "] to have the same number of elements, "
              "but got ", self.numel(), " and ", other.numel(), " elements respectively");
}
}  // namespace

Tensor dot_cpu(const Tensor& self, const Tensor& tensor) {
  dot_checks("dot", self, tensor);
  Tensor out = ember::empty({}, self.options());
  mm_into(out.reshape({1, 1}), self.unsqueeze(0), tensor.unsqueeze(1), 1, 0);
  return out;
}

Tensor vdot_cpu(const Tensor& self, const Tensor& other) {
  dot_checks("vdot", self, other);
  return dot_cpu(is_complex(self.scalar_type()) ? ember::_conj_physical(self) : self, other);
}

// ---- composites -----------------------------------------------------------------------------

Tensor outer(const Tensor& self, const Tensor& vec2) {
  EMBER_CHECK(self.dim() == 1 && vec2.dim() == 1, "outer(): expected 1-d vectors, but got ",
              self.dim(), "-d and ", vec2.dim(), "-d tensors");
  return self.reshape({-1, 1}) * vec2;
}

Tensor ger(const Tensor& self, const Tensor& vec2) { return native::outer(self, vec2); }

Tensor trace(const Tensor& self) {
  EMBER_CHECK(self.dim() == 2, "trace(): expected a 2-d tensor, but got a ", self.dim(), "-d tensor");
  EMBER_CHECK_NOT_IMPLEMENTED(self.scalar_type() != ScalarType::Bool, "trace(): not implemented "
                              "for 'Bool' (as PyTorch)");
  return self.diagonal().sum();
}

Tensor addbmm(const Tensor& self, const Tensor& batch1, const Tensor& batch2, const Scalar& beta,
              const Scalar& alpha) {
  // sum_b batch1[b] @ batch2[b] is one product: [n, B*k] @ [B*k, p].
  bmm_checks("addbmm", batch1, batch2);
  const int64_t b = batch1.sizes()[0], n = batch1.sizes()[1], k = batch1.sizes()[2];
  const int64_t p = batch2.sizes()[2];
  return ember::addmm(self, batch1.permute({1, 0, 2}).reshape({n, b * k}), batch2.reshape({b * k, p}),
                      beta, alpha);
}

Tensor matmul(const Tensor& self, const Tensor& other) {
  const int64_t d1 = self.dim(), d2 = other.dim();
  EMBER_CHECK(d1 > 0 && d2 > 0, "matmul(): both arguments need at least 1 dimension, but got ",
              d1, "-d and ", d2, "-d tensors");
  if (d1 == 1 && d2 == 1) return ember::dot(self, other);
  if (d1 == 2 && d2 == 1) return ember::mv(self, other);
  if (d1 == 1 && d2 == 2) return ember::mm(self.unsqueeze(0), other).squeeze(0);
  if (d1 == 2 && d2 == 2) return ember::mm(self, other);
  check_same_dtype("matmul", self, "self", other, "other");
  if (d1 >= 3 && d2 <= 2) {
    // Batch dims of self fold into its rows: one mm.
    const int64_t k = self.sizes()[d1 - 1];
    EMBER_CHECK(k == other.sizes()[0], "matmul(): mat1 and mat2 shapes cannot be multiplied (",
                shape_str(self.sizes(), ShapeStyle::Times), " and ",
                shape_str(other.sizes(), ShapeStyle::Times), ")");
    DimVector out_sizes(IntArrayRef(self.sizes().data(), static_cast<size_t>(d1 - 1)));
    int64_t rows = 1;
    for (int64_t s : out_sizes) rows *= s;
    const Tensor folded = self.reshape({rows, k});
    if (d2 == 1) return ember::mv(folded, other).view(out_sizes);
    out_sizes.push_back(other.sizes()[1]);
    return ember::mm(folded, other).view(out_sizes);
  }
  // Broadcast batch dims, one bmm.
  const int64_t n = d1 == 1 ? 1 : self.sizes()[d1 - 2], k = self.sizes()[d1 - 1];
  const int64_t k2 = d2 == 1 ? other.sizes()[0] : other.sizes()[d2 - 2];
  const int64_t p = d2 == 1 ? 1 : other.sizes()[d2 - 1];
  EMBER_CHECK(k == k2, "matmul(): mat1 and mat2 shapes cannot be multiplied (",
              shape_str(self.sizes(), ShapeStyle::Times), " and ",
              shape_str(other.sizes(), ShapeStyle::Times), ")");
  const IntArrayRef b1(self.sizes().data(), static_cast<size_t>(std::max<int64_t>(d1 - 2, 0)));
  const IntArrayRef b2(other.sizes().data(), static_cast<size_t>(std::max<int64_t>(d2 - 2, 0)));
  const size_t nb = std::max(b1.size(), b2.size());
  DimVector batch(nb, 1);
  for (size_t i = 0; i < nb; ++i) {
    const int64_t s1 = i < b1.size() ? b1[b1.size() - 1 - i] : 1;
    const int64_t s2 = i < b2.size() ? b2[b2.size() - 1 - i] : 1;
    EMBER_CHECK(s1 == s2 || s1 == 1 || s2 == 1, "matmul(): the batch dimensions of ",
                self.sizes(), " and ", other.sizes(), " cannot be broadcast "
                "(size ", s1, " against ", s2, " at batch dimension ", nb - 1 - i, ")");
    batch[nb - 1 - i] = s1 == 1 ? s2 : s1;
  }
  const int64_t bn = std::accumulate(batch.begin(), batch.end(), int64_t{1}, std::multiplies<>());
  DimVector e1(batch), e2(batch);
  e1.push_back(n);
  e1.push_back(k);
  e2.push_back(k);
  e2.push_back(p);
  const Tensor a = (d1 == 1 ? self.unsqueeze(0) : self).expand(e1).reshape({bn, n, k});
  const Tensor b = (d2 == 1 ? other.unsqueeze(1) : other).expand(e2).reshape({bn, k, p});
  DimVector out_sizes(batch);
  if (d1 > 1) out_sizes.push_back(n);
  if (d2 > 1) out_sizes.push_back(p);
  return ember::bmm(a, b).view(out_sizes);
}

Tensor linear(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias) {
  EMBER_CHECK(weight.dim() == 1 || weight.dim() == 2, "linear(): expected 'weight' to be 1-d or 2-d, "
              "but got a ", weight.dim(), "-d tensor");
  EMBER_CHECK(input.dim() >= 1, "linear(): expected 'input' to have at least 1 dimension");
  if (input.dim() == 2 && weight.dim() == 2 && bias && bias->defined()) {
    return ember::addmm(*bias, input, weight.t());
  }
  Tensor out = ember::matmul(input, weight.t());
  if (bias && bias->defined()) out = out + *bias;
  return out;
}

Tensor tensordot(const Tensor& self, const Tensor& other, IntArrayRef dims_self, IntArrayRef dims_other) {
  EMBER_CHECK(dims_self.size() == dims_other.size(), "tensordot(): both dimension lists should have "
              "the same length, but got ", dims_self.size(), " and ", dims_other.size());
  check_same_dtype("tensordot", self, "self", other, "other");
  const DimVector da = wrap_dims("tensordot", "dims_self", dims_self, self.dim());
  const DimVector db = wrap_dims("tensordot", "dims_other", dims_other, other.dim());
  int64_t k = 1;
  for (size_t i = 0; i < da.size(); ++i) {
    const int64_t sa = self.sizes()[da[i]], sb = other.sizes()[db[i]];
    EMBER_CHECK(sa == sb, "tensordot(): contracted dimensions need to match, but first has size ",
                sa, " in dim ", da[i], " and second has size ", sb, " in dim ", db[i]);
    k *= sa;
  }
  std::vector<int64_t> perm_a, perm_b, out_sizes;
  int64_t m = 1, p = 1;
  for (int64_t d = 0; d < self.dim(); ++d) {
    if (std::find(da.begin(), da.end(), d) == da.end()) {
      perm_a.push_back(d);
      out_sizes.push_back(self.sizes()[d]);
      m *= self.sizes()[d];
    }
  }
  perm_a.insert(perm_a.end(), da.begin(), da.end());
  perm_b.assign(db.begin(), db.end());
  for (int64_t d = 0; d < other.dim(); ++d) {
    if (std::find(db.begin(), db.end(), d) == db.end()) {
      perm_b.push_back(d);
      out_sizes.push_back(other.sizes()[d]);
      p *= other.sizes()[d];
    }
  }
  const Tensor a = self.permute(perm_a).reshape({m, k});
  const Tensor b = other.permute(perm_b).reshape({k, p});
  return ember::mm(a, b).view(out_sizes);
}

Tensor kron(const Tensor& self, const Tensor& other) {
  const int64_t nd = std::max(self.dim(), other.dim());
  DimVector a_sizes(nd, 1), b_sizes(nd, 1), ia, ib, out_sizes;
  for (int64_t i = 0; i < self.dim(); ++i) a_sizes[nd - self.dim() + i] = self.sizes()[i];
  for (int64_t i = 0; i < other.dim(); ++i) b_sizes[nd - other.dim() + i] = other.sizes()[i];
  for (int64_t i = 0; i < nd; ++i) {
    ia.push_back(a_sizes[i]);
    ia.push_back(1);
    ib.push_back(1);
    ib.push_back(b_sizes[i]);
    out_sizes.push_back(a_sizes[i] * b_sizes[i]);
  }
  return (self.reshape(ia) * other.reshape(ib)).reshape(out_sizes);
}

}  // namespace ember::native
