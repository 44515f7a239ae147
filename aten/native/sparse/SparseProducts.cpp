// Sparse products (issue 24): mm, addmm, bmm for sparse @ dense, dense @ sparse and
// sparse @ sparse in every layout, sampled_addmm (SDDMM) and sparse_mask.
//
// Note [Sparse products]: every product runs on CSR, the layout whose rows give both the
// sparse-dense loops (SparseBlas.h, one kernel per CPU capability) and SpGEMM their
// parallelism; a COO or CSC operand is converted first (one pass over its entries, a sort for
// an uncoalesced COO). The result takes torch's layouts: dense for sparse x dense, the first
// operand's layout for sparse x sparse. bmm folds its batch into one block-diagonal mm.
#include <algorithm>
#include <complex>
#include <numeric>
#include <vector>

#include "aten/native/Dispatch.h"
#include "aten/native/Parallel.h"
#include "aten/native/sparse/SparseBlas.h"
#include "aten/native/sparse/SparseTensor.h"
#include "c10/core/Threads.h"
#include "c10/util/Exception.h"
#include "ember/generated/ops/add.h"
#include "ember/generated/ops/addmm_native.h"
#include "ember/generated/ops/bmm_native.h"
#include "ember/generated/ops/div.h"
#include "ember/generated/ops/empty.h"
#include "ember/generated/ops/expand.h"
#include "ember/generated/ops/index.h"
#include "ember/generated/ops/mm_native.h"
#include "ember/generated/ops/mul.h"
#include "ember/generated/ops/reshape.h"
#include "ember/generated/ops/sparse_mask_native.h"
#include "ember/generated/ops/sparse_sampled_addmm_native.h"
#include "ember/generated/ops/sub.h"
#include "ember/generated/ops/sum.h"
#include "ember/generated/ops/transpose.h"
#include "ember/generated/ops/zeros.h"

namespace ember::native {
namespace {

// The CSR form of a sparse 2-D operand (Note [Sparse products]).
Tensor as_csr(const Tensor& t, const char* op) {
  if (t.layout() == Layout::SparseCsr) return t;
  return to_sparse_compressed(t, Layout::SparseCsr, std::nullopt, op);
}

int64_t dense_dim_of(const Tensor& t) {
  if (t.layout() == Layout::Sparse) return sparse_coo_impl(t, "mm").dense_dim();
  return sparse_compressed_impl(t, "mm").dense_dim();
}

void check_mm(const char* op, const Tensor& a, const Tensor& b) {
  EMBER_CHECK_VALUE(a.dim() == 2 && b.dim() == 2, op, "(): expected 2-D self and mat2, but got ", a.dim(),
                    "-D and ", b.dim(), "-D tensors");
  EMBER_CHECK_VALUE(a.sizes()[1] == b.sizes()[0], op, "(): self and mat2 shapes cannot be multiplied (",
                    a.sizes()[0], "x", a.sizes()[1], " and ", b.sizes()[0], "x", b.sizes()[1], ")");
  EMBER_CHECK_TYPE(a.dtype() == b.dtype(), op, "(): expected self and mat2 of one dtype, but got ", a.dtype(),
                   " and ", b.dtype());
  for (const Tensor* t : {&a, &b}) {
    if (is_sparse_layout(t->layout())) {
      EMBER_CHECK_NOT_IMPLEMENTED(dense_dim_of(*t) == 0, op, "(): hybrid sparse operands (dense_dim > 0) are "
                                  "not supported; convert with .to_dense() first");
    }
  }
}

struct Csr {
  Tensor crow, col, values;
};

Csr members_of(const Tensor& csr) {
  const SparseCsrTensorImpl& s = sparse_compressed_impl(csr, "mm");
  return {s.compressed_indices(), s.plain_indices(), s.values().contiguous()};
}

// C = A @ B for CSR A [m, k] and B [k, n]: Gustavson's, row by row.
template <class T, class I>
Tensor spgemm_typed(const Csr& a, const Csr& b, int64_t m, int64_t n, ScalarType dtype, ScalarType idx) {
  // Two passes, as scipy's: count each result row's entries (a marker per column), then fill
  // the rows in place at their offsets (a dense accumulator per thread). Rows run in parallel.
  const I* ac = a.crow.data_ptr<I>();
  const I* ai = a.col.data_ptr<I>();
  const T* av = a.values.data_ptr<T>();
  const I* bc = b.crow.data_ptr<I>();
  const I* bi = b.col.data_ptr<I>();
  const T* bv = b.values.data_ptr<T>();
  std::vector<int64_t> row_nnz(static_cast<size_t>(m) + 1, 0);
  int64_t work = 0;
  for (int64_t i = 0; i < m; ++i) {
    for (I ka = ac[i]; ka < ac[i + 1]; ++ka) work += bc[ai[ka] + 1] - bc[ai[ka]];
  }
  const int64_t grain = std::max<int64_t>(1, m * 32768 / std::max<int64_t>(1, work));
  parallel_for(0, m, grain, [&](int64_t r0, int64_t r1) {
    std::vector<int64_t> mark(static_cast<size_t>(n), -1);
    for (int64_t i = r0; i < r1; ++i) {
      int64_t count = 0;
      for (I ka = ac[i]; ka < ac[i + 1]; ++ka) {
        const I r = ai[ka];
        for (I kb = bc[r]; kb < bc[r + 1]; ++kb) {
          const auto j = static_cast<size_t>(bi[kb]);
          if (mark[j] != i) {
            mark[j] = i;
            ++count;
          }
        }
      }
      row_nnz[static_cast<size_t>(i) + 1] = count;
    }
  });
  std::partial_sum(row_nnz.begin(), row_nnz.end(), row_nnz.begin());
  const int64_t nnz = row_nnz.back();
  EMBER_CHECK_VALUE(idx == ScalarType::Long || nnz <= INT32_MAX, "mm(): the product has ", nnz,
                    " entries, more than int32 indices can address; convert the operands to int64 indices");
  Tensor crow = ember::empty({m + 1}, TensorOptions().dtype(idx));
  Tensor col = ember::empty({nnz}, TensorOptions().dtype(idx));
  Tensor values = ember::empty({nnz}, TensorOptions().dtype(dtype));
  I* cp = crow.data_ptr<I>();
  for (int64_t i = 0; i <= m; ++i) cp[i] = static_cast<I>(row_nnz[static_cast<size_t>(i)]);
  I* ci = col.data_ptr<I>();
  T* cv = values.data_ptr<T>();
  parallel_for(0, m, grain, [&](int64_t r0, int64_t r1) {
    std::vector<T> acc(static_cast<size_t>(n));
    std::vector<int64_t> mark(static_cast<size_t>(n), -1);
    for (int64_t i = r0; i < r1; ++i) {
      I* oc = ci + row_nnz[static_cast<size_t>(i)];
      int64_t count = 0;
      for (I ka = ac[i]; ka < ac[i + 1]; ++ka) {
        const T x = av[ka];
        const I r = ai[ka];
        for (I kb = bc[r]; kb < bc[r + 1]; ++kb) {
          const auto j = static_cast<size_t>(bi[kb]);
          if (mark[j] != i) {
            mark[j] = i;
            acc[j] = x * bv[kb];
            oc[count++] = static_cast<I>(j);
          } else {
            acc[j] += x * bv[kb];
          }
        }
      }
      // Columns in the order first met, as scipy's and MKL's: the result is non-canonical,
      // which every kernel takes (sorting each row cost more than the product).
      T* ov = cv + row_nnz[static_cast<size_t>(i)];
      for (int64_t q = 0; q < count; ++q) ov[q] = acc[static_cast<size_t>(oc[q])];
    }
  });
  return make_sparse_compressed(crow, col, values, {m, n}, Layout::SparseCsr, false, "mm");
}

Tensor spgemm(const Tensor& self, const Tensor& mat2) {
  const Tensor a = as_csr(self, "mm"), b = as_csr(mat2, "mm");
  const SparseCsrTensorImpl& sa = sparse_compressed_impl(a, "mm");
  const SparseCsrTensorImpl& sb = sparse_compressed_impl(b, "mm");
  // One index dtype for both: int32 only when both are.
  const ScalarType idx = sa.compressed_indices().dtype() == ScalarType::Int && sb.compressed_indices().dtype() == ScalarType::Int
                             ? ScalarType::Int : ScalarType::Long;
  // int32 and int64 operands meet in int64: the index members widened, nothing else redone.
  auto widened = [&](const Tensor& t) {
    Csr m = members_of(t);
    if (m.crow.dtype() != idx) {
      m.crow = m.crow.to(TensorOptions().dtype(idx));
      m.col = m.col.to(TensorOptions().dtype(idx));
    }
    return m;
  };
  const Csr ma = widened(a), mb = widened(b);
  const int64_t m = self.sizes()[0], n = mat2.sizes()[1];
  Tensor c;
  dispatch_all_types(self.dtype(), "mm", [&](auto vt) {
    using T = typename decltype(vt)::type;
    if constexpr (std::is_same_v<T, bool> || std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>) {
      EMBER_THROW(TypeError, "mm(): sparse products take float, double, complex and integer values, but got ",
                  self.dtype());
    } else if (idx == ScalarType::Int) {
      c = spgemm_typed<T, int32_t>(ma, mb, m, n, self.dtype(), idx);
    } else {
      c = spgemm_typed<T, int64_t>(ma, mb, m, n, self.dtype(), idx);
    }
  });
  if (self.layout() == Layout::Sparse) return compressed_to_coo(c);
  return c;  // CSR for CSR and CSC operands, as torch
}

}  // namespace

Tensor mm_sparse(const Tensor& self, const Tensor& mat2) {
  check_mm("mm", self, mat2);
  const bool a_sparse = is_sparse_layout(self.layout()), b_sparse = is_sparse_layout(mat2.layout());
  if (a_sparse && b_sparse) return spgemm(self, mat2);
  const int64_t m = self.sizes()[0], n = mat2.sizes()[1];
  if (a_sparse) {
    EMBER_CHECK_VALUE(mat2.layout() == Layout::Strided, "mm(): expected a strided or sparse mat2, but got ", mat2.layout());
    if (self.layout() == Layout::SparseCsc) {
      // CSC (a transposed CSR, as the backward of a CSR product makes): its own loop, no conversion.
      Tensor out = ember::zeros({m, n}, TensorOptions().dtype(self.dtype()));
      const Csr a = members_of(self);
      EMBER_CPU_KERNEL(csc_dense_mm_kernel)(a.crow, a.col, a.values, mat2.contiguous(), out);
      return out;
    }
    Tensor out = ember::empty({m, n}, TensorOptions().dtype(self.dtype()));
    const Csr a = members_of(as_csr(self, "mm"));
    EMBER_CPU_KERNEL(csr_dense_mm_kernel)(a.crow, a.col, a.values, mat2.contiguous(), out);
    return out;
  }
  Tensor out = ember::zeros({m, n}, TensorOptions().dtype(self.dtype()));
  {
    EMBER_CHECK_VALUE(self.layout() == Layout::Strided, "mm(): expected a strided or sparse self, but got ", self.layout());
    const Csr b = members_of(as_csr(mat2, "mm"));
    EMBER_CPU_KERNEL(dense_csr_mm_kernel)(self.contiguous(), b.crow, b.col, b.values, out);
  }
  return out;
}

Tensor addmm_sparse(const Tensor& self, const Tensor& mat1, const Tensor& mat2, const Scalar& beta, const Scalar& alpha) {
  Tensor prod = mm_sparse(mat1, mat2);
  const bool beta_zero = beta.toComplexDouble() == std::complex<double>(0.0, 0.0);
  if (prod.layout() != Layout::Strided) {
    // sparse x sparse: a sparse sum in the product's layout (torch's).
    EMBER_CHECK_VALUE(is_sparse_layout(self.layout()) || beta_zero, "addmm(): with two sparse operands, self must "
                      "be sparse too (or beta 0), but got a ", self.layout(), " self");
    Tensor scaled = ember::mul(prod, alpha);
    if (beta_zero) return scaled;
    return ember::add(ember::mul(self, beta), scaled, Scalar(1));
  }
  EMBER_CHECK_VALUE(self.dim() <= 2, "addmm(): expected self of at most 2 dims, but got ", self.dim());
  const Tensor dense_self = is_sparse_layout(self.layout()) ? sparse_to_dense(self) : self;
  if (beta_zero) return ember::mul(prod, alpha);
  return ember::add(ember::mul(dense_self.expand(prod.sizes()), beta), prod, alpha);
}

namespace {

void check_bmm(const Tensor& self, const Tensor& mat2) {
  EMBER_CHECK_VALUE(self.dim() == 3 && mat2.dim() == 3, "bmm(): expected 3-D self and mat2, but got ", self.dim(),
                    "-D and ", mat2.dim(), "-D tensors");
  EMBER_CHECK_VALUE(mat2.sizes()[0] == self.sizes()[0] && mat2.sizes()[1] == self.sizes()[2], "bmm(): expected mat2 of [",
                    self.sizes()[0], ", ", self.sizes()[2], ", p], but got ", mat2.sizes());
  EMBER_CHECK_TYPE(self.dtype() == mat2.dtype(), "bmm(): expected self and mat2 of one dtype, but got ", self.dtype(),
                   " and ", mat2.dtype());
}

// Batch b's 2-D members of a batched compressed tensor (batch_dim 1, no dense dims).
Csr batch_members(const Tensor& t, int64_t b) {
  const SparseCsrTensorImpl& s = sparse_compressed_impl(t, "bmm");
  return {s.compressed_indices().select(0, b).contiguous(), s.plain_indices().select(0, b).contiguous(),
          s.values().select(0, b).contiguous()};
}

// bmm with a batched CSR or CSC operand [B, r, c] (batch_dim 1) and a dense one: the 2-D
// kernels of mm once per batch, on the batch's members, with no conversion to COO.
Tensor bmm_compressed_dense(const Tensor& self, const Tensor& mat2) {
  const int64_t nb = self.sizes()[0], n = self.sizes()[1], p = mat2.sizes()[2];
  const Tensor& sparse = is_sparse_compressed(self.layout()) ? self : mat2;
  const SparseCsrTensorImpl& s = sparse_compressed_impl(sparse, "bmm");
  EMBER_CHECK_NOT_IMPLEMENTED(s.batch_dim() == 1 && s.dense_dim() == 0, "bmm(): expected a ",
                              layout_name(sparse.layout()), " operand with 1 batch dim and no dense dims, but got ",
                              s.batch_dim(), " batch and ", s.dense_dim(), " dense dims");
  const TensorOptions opts = TensorOptions().dtype(self.dtype());
  if (is_sparse_compressed(self.layout())) {
    const Tensor dense = mat2.contiguous();
    const bool csc = self.layout() == Layout::SparseCsc;
    Tensor out = csc ? ember::zeros({nb, n, p}, opts) : ember::empty({nb, n, p}, opts);
    for (int64_t b = 0; b < nb; ++b) {
      const Csr a = batch_members(self, b);
      if (csc) {
        EMBER_CPU_KERNEL(csc_dense_mm_kernel)(a.crow, a.col, a.values, dense.select(0, b), out.select(0, b));
      } else {
        EMBER_CPU_KERNEL(csr_dense_mm_kernel)(a.crow, a.col, a.values, dense.select(0, b), out.select(0, b));
      }
    }
    return out;
  }
  // dense @ compressed: the row loop over the CSR form of mat2 (a CSC converts, batch by batch).
  const Tensor csr = mat2.layout() == Layout::SparseCsr ? mat2
                                                         : to_sparse_compressed(mat2, Layout::SparseCsr, std::nullopt, "bmm");
  const Tensor dense = self.contiguous();
  Tensor out = ember::zeros({nb, n, p}, opts);
  for (int64_t b = 0; b < nb; ++b) {
    const Csr m = batch_members(csr, b);
    EMBER_CPU_KERNEL(dense_csr_mm_kernel)(dense.select(0, b), m.crow, m.col, m.values, out.select(0, b));
  }
  return out;
}

}  // namespace

Tensor bmm_sparse_compressed(const Tensor& self, const Tensor& mat2) {
  check_bmm(self, mat2);
  if (self.layout() == Layout::Strided || mat2.layout() == Layout::Strided) return bmm_compressed_dense(self, mat2);
  // Both sparse: the COO product (one block-diagonal SpGEMM), back in self's layout when every
  // batch of the product has the same number of entries (a batched compressed tensor's rule).
  auto coo = [](const Tensor& t) { return is_sparse_compressed(t.layout()) ? compressed_to_coo(t) : t; };
  const Tensor c = bmm_sparse(coo(self), coo(mat2));
  if (!is_sparse_compressed(self.layout())) return c;
  return coo_to_compressed(c, self.layout(), sparse_compressed_impl(self, "bmm").compressed_indices().dtype(), "bmm");
}

Tensor bmm_sparse(const Tensor& self, const Tensor& mat2) {
  check_bmm(self, mat2);
  const int64_t b = self.sizes()[0], n = self.sizes()[1], k = self.sizes()[2], p = mat2.sizes()[2];
  EMBER_CHECK_NOT_IMPLEMENTED(self.layout() == Layout::Sparse || self.layout() == Layout::Strided, "bmm(): ",
                              self.layout(), " operands are not supported; COO (sparse_dim 3) is");
  EMBER_CHECK_NOT_IMPLEMENTED(mat2.layout() == Layout::Sparse || mat2.layout() == Layout::Strided, "bmm(): ",
                              mat2.layout(), " operands are not supported; COO (sparse_dim 3) is");
  // The batch as one block-diagonal matrix: entry (b, i, j) of a [B, r, c] operand sits at
  // (b * r + i, b * c + j) of [B * r, B * c]; a dense operand stacks its batches.
  auto block = [&](const Tensor& t) {
    const SparseTensorImpl& s = sparse_coo_impl(t, "bmm");
    EMBER_CHECK_NOT_IMPLEMENTED(s.sparse_dim() == 3, "bmm(): expected a COO operand with 3 sparse dims, but got ",
                                s.sparse_dim());
    const int64_t r = t.sizes()[1], c = t.sizes()[2];
    const Tensor idx = s.indices();
    const Tensor rows = ember::add(ember::mul(idx.select(0, 0), Scalar(r)), idx.select(0, 1), Scalar(1));
    const Tensor cols = ember::add(ember::mul(idx.select(0, 0), Scalar(c)), idx.select(0, 2), Scalar(1));
    Tensor both = ember::empty({2, s.nnz()}, TensorOptions().dtype(ScalarType::Long));
    both.select(0, 0).copy_(rows);
    both.select(0, 1).copy_(cols);
    return make_sparse_coo(both, s.values(), {b * r, b * c}, false, "bmm");
  };
  if (self.layout() == Layout::Sparse && mat2.layout() == Layout::Strided) {
    return ember::reshape(mm_sparse(block(self), ember::reshape(mat2, {b * k, p})), {b, n, p});
  }
  if (self.layout() == Layout::Strided) {
    // dense @ sparse, batch by batch as (S^T D^T)^T: D^T stacked is [B * k, n].
    const Tensor dt = ember::reshape(ember::transpose(self, 1, 2), {b * k, n});
    const Tensor st = block(ember::transpose(mat2, 1, 2));  // [B * p, B * k]
    return ember::transpose(ember::reshape(mm_sparse(st, dt), {b, p, n}), 1, 2).contiguous();
  }
  // sparse @ sparse: one block-diagonal SpGEMM, its entries back to (b, i, j).
  const Tensor c = mm_sparse(block(self), block(mat2));
  const SparseTensorImpl& s = sparse_coo_impl(c, "bmm");
  const Tensor idx = s.indices();
  Tensor out_idx = ember::empty({3, s.nnz()}, TensorOptions().dtype(ScalarType::Long));
  const Tensor bi = ember::div(idx.select(0, 0), Scalar(n), std::string_view("floor"));
  out_idx.select(0, 0).copy_(bi);
  out_idx.select(0, 1).copy_(ember::sub(idx.select(0, 0), ember::mul(bi, Scalar(n)), Scalar(1)));
  out_idx.select(0, 2).copy_(ember::sub(idx.select(0, 1), ember::mul(bi, Scalar(p)), Scalar(1)));
  return make_sparse_coo(out_idx, s.values(), {b, n, p}, true, "bmm");
}

Tensor sampled_addmm_sparse_csr(const Tensor& self, const Tensor& mat1, const Tensor& mat2, const Scalar& beta,
                                const Scalar& alpha) {
  EMBER_CHECK_VALUE(self.layout() == Layout::SparseCsr, "sampled_addmm(): expected a sparse_csr self, but got ",
                    self.layout());
  EMBER_CHECK_VALUE(mat1.layout() == Layout::Strided && mat2.layout() == Layout::Strided,
                    "sampled_addmm(): expected strided mat1 and mat2");
  EMBER_CHECK_VALUE(self.dim() == 2 && mat1.dim() == 2 && mat2.dim() == 2, "sampled_addmm(): expected 2-D "
                    "self, mat1 and mat2");
  EMBER_CHECK_VALUE(mat1.sizes()[1] == mat2.sizes()[0] && mat1.sizes()[0] == self.sizes()[0] &&
                        mat2.sizes()[1] == self.sizes()[1],
                    "sampled_addmm(): expected self [m, n], mat1 [m, k] and mat2 [k, n], but got ", self.sizes(),
                    ", ", mat1.sizes(), " and ", mat2.sizes());
  EMBER_CHECK_TYPE(self.dtype() == mat1.dtype() && self.dtype() == mat2.dtype(), "sampled_addmm(): expected one "
                   "dtype, but got ", self.dtype(), ", ", mat1.dtype(), " and ", mat2.dtype());
  const SparseCsrTensorImpl& s = sparse_compressed_impl(self, "sampled_addmm");
  EMBER_CHECK_NOT_IMPLEMENTED(s.dense_dim() == 0 && s.batch_dim() == 0, "sampled_addmm(): batched or hybrid self "
                              "is not supported");
  // (mat1 @ mat2)[i, j] for each entry (i, j) of self: rows of mat1 against columns of mat2.
  const Tensor coo = compressed_to_coo(self);
  const Tensor idx = sparse_coo_impl(coo, "sampled_addmm").indices();
  const Tensor a = ember::index(mat1, {idx.select(0, 0)});                        // [nnz, k]
  const Tensor b = ember::index(ember::transpose(mat2, 0, 1), {idx.select(0, 1)});  // [nnz, k]
  Tensor dots = ember::sum(ember::mul(a, b), IntArrayRef{1}, false, std::nullopt);
  Tensor values = beta.toComplexDouble() == std::complex<double>(0.0, 0.0)
                      ? ember::mul(dots, alpha)
                      : ember::add(ember::mul(s.values(), beta), dots, alpha);
  return compressed_with_values(self, values, "sampled_addmm");
}

Tensor sparse_mask_sparse(const Tensor& self, const Tensor& mask) {
  EMBER_CHECK_VALUE(self.layout() == Layout::Strided, "sparse_mask(): expected a strided self, but got ",
                    self.layout());
  EMBER_CHECK_VALUE(is_sparse_layout(mask.layout()), "sparse_mask(): expected a sparse mask, but got ", mask.layout());
  EMBER_CHECK_VALUE(self.sizes() == mask.sizes(), "sparse_mask(): expected self and mask of one size, but got ",
                    self.sizes(), " and ", mask.sizes());
  if (is_sparse_compressed(mask.layout())) {
    const SparseCsrTensorImpl& s = sparse_compressed_impl(mask, "sparse_mask");
    const Tensor coo = sparse_mask_sparse(self, compressed_to_coo(mask));
    // The COO entries follow the compressed order, so its values are the compressed values.
    std::vector<int64_t> vshape(s.values().sizes().begin(), s.values().sizes().end());
    return compressed_with_values(mask, ember::reshape(sparse_coo_impl(coo, "sparse_mask").values(), vshape),
                                  "sparse_mask");
  }
  const SparseTensorImpl& s = sparse_coo_impl(mask, "sparse_mask");
  std::vector<Tensor> rows;
  for (int64_t d = 0; d < s.sparse_dim(); ++d) rows.push_back(s.indices().select(0, d));
  const Tensor values = s.sparse_dim() == 0 ? ember::reshape(self, s.values().sizes()) : ember::index(self, rows);
  return make_sparse_coo(s.indices(), values, mask.sizes(), s.coalesced(), "sparse_mask");
}

}  // namespace ember::native
