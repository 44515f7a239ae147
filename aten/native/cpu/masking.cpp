// Boolean masks on the CPU: masked_fill, masked_select, masked_scatter, nonzero.
// CPU copies: baseline only (mask counts and element moves, not vector loops).
//
// masked_select and nonzero run in two passes over chunks of the (contiguous) mask: count
// the true elements of each chunk, then, from each chunk's prefix sum, write its results;
// both passes split the chunks across threads.
#include <algorithm>
#include <cstring>
#include <vector>

#include "aten/native/CpuCapability.h"
#include "aten/native/DimUtils.h"
#include "aten/native/Dispatch.h"
#include "aten/native/IndexUtils.h"
#include "aten/native/Parallel.h"
#include "aten/native/RangeFactories.h"
#include "aten/native/TensorIterator.h"
#include "aten/native/masking.h"
#include "c10/core/Threads.h"
#include "c10/util/Exception.h"
#include "ember/generated/ops/empty.h"
#include "ember/generated/ops/masked_fill__native.h"
#include "ember/generated/ops/masked_scatter__native.h"
#include "ember/generated/ops/masked_select_native.h"
#include "ember/generated/ops/nonzero_native.h"
#include "ember/generated/ops/where.h"

namespace ember::native {
EMBER_CPU_NAMESPACE_BEGIN
namespace {

// Chunks of a range of n elements for the two passes (one per thread, at least 64K each).
std::vector<int64_t> chunk_bounds(int64_t n) {
  const int64_t threads = std::max<int64_t>(1, get_num_threads());
  const int64_t chunks = std::clamp<int64_t>(n / 65536, 1, threads * 4);
  std::vector<int64_t> b(static_cast<size_t>(chunks) + 1);
  for (int64_t c = 0; c <= chunks; ++c) b[c] = n * c / chunks;
  return b;
}

// Per chunk, the number of true elements before it; total in the last entry.
std::vector<int64_t> mask_prefix(const bool* m, const std::vector<int64_t>& bounds) {
  const int64_t chunks = static_cast<int64_t>(bounds.size()) - 1;
  std::vector<int64_t> count(static_cast<size_t>(chunks) + 1, 0);
  parallel_for(0, chunks, 1, [&](int64_t b, int64_t e) {
    for (int64_t c = b; c < e; ++c) {
      int64_t k = 0;
      for (int64_t i = bounds[c]; i < bounds[c + 1]; ++i) k += m[i];
      count[c + 1] = k;
    }
  });
  for (int64_t c = 0; c < chunks; ++c) count[c + 1] += count[c];
  return count;
}

}  // namespace

Tensor& masked_fill__cpu(Tensor& self, const Tensor& mask, const Tensor& value) {
  check_mask("masked_fill_", mask);
  EMBER_CHECK(value.dim() == 0, "masked_fill_(): only supports a 0-dimensional value tensor, but "
              "got a tensor with ", value.dim(), " dimension(s)");
  const DimVector shape = broadcast_shapes(self.sizes(), mask.sizes(), "masked_fill_");
  EMBER_CHECK(IntArrayRef(shape) == self.sizes(), "masked_fill_(): 'mask' of shape ", mask.sizes(),
              " does not broadcast to self's shape ", self.sizes());
  EMBER_CHECK(can_cast(value.scalar_type(), self.scalar_type()) || value.scalar_type() == self.scalar_type(),
              "masked_fill_(): value of dtype ", value.scalar_type(), " can't be cast to self's dtype ",
              self.scalar_type());
  if (self.numel() == 0) return self;
  self.copy_(ember::where(mask, value.to(self.scalar_type()), self));
  return self;
}

Tensor& masked_fill__cpu(Tensor& self, const Tensor& mask, const Scalar& value) {
  Tensor v = ember::empty({}, TensorOptions().dtype(self.scalar_type()));
  v.fill_(value);
  return masked_fill__cpu(self, mask, v);
}

Tensor masked_fill_cpu(const Tensor& self, const Tensor& mask, const Tensor& value) {
  check_mask("masked_fill", mask);
  Tensor out = self.expand(broadcast_shapes(self.sizes(), mask.sizes(), "masked_fill")).clone(MemoryFormat::Contiguous);
  return masked_fill__cpu(out, mask, value);
}

Tensor masked_fill_cpu(const Tensor& self, const Tensor& mask, const Scalar& value) {
  check_mask("masked_fill", mask);
  Tensor out = self.expand(broadcast_shapes(self.sizes(), mask.sizes(), "masked_fill")).clone(MemoryFormat::Contiguous);
  return masked_fill__cpu(out, mask, value);
}

Tensor& masked_select_out_cpu(const Tensor& self, const Tensor& mask, Tensor& out) {
  check_mask("masked_select", mask);
  EMBER_CHECK(out.scalar_type() == self.scalar_type(), "masked_select(): expected 'out' of dtype ",
              self.scalar_type(), " (self's), but got ", out.scalar_type());
  check_no_internal_overlap("masked_select", out.sizes(), out.strides());
  const DimVector shape = broadcast_shapes(self.sizes(), mask.sizes(), "masked_select");
  const Tensor m = mask.expand(shape).contiguous();
  const Tensor s = self.expand(shape).contiguous();
  const bool* mp = static_cast<const bool*>(m.data_ptr());
  const std::vector<int64_t> bounds = chunk_bounds(m.numel());
  const std::vector<int64_t> prefix = mask_prefix(mp, bounds);
  const int64_t total = prefix.back();
  resize_out(out, {total});
  if (total == 0) return out;
  const bool fresh = out.is_contiguous() && !out.storage().is_alias_of(self.storage());
  Tensor dst = fresh ? out : ember::empty({total}, TensorOptions().dtype(self.scalar_type()));
  dispatch_by_size(self.element_size(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* sp = static_cast<const T*>(s.data_ptr());
    T* op = static_cast<T*>(dst.data_ptr());
    parallel_for(0, static_cast<int64_t>(bounds.size()) - 1, 1, [&](int64_t b, int64_t e) {
      for (int64_t c = b; c < e; ++c) {
        // Branchless: every element is written and the cursor moves past selected ones;
        // the chunk stops once its last selected element is in (a write past it would
        // land beyond the output's end in the last chunk).
        T* w = op + prefix[c];
        T* const end = op + prefix[c + 1];
        for (int64_t i = bounds[c]; i < bounds[c + 1] && w != end; ++i) {
          *w = sp[i];
          w += mp[i];
        }
      }
    });
  });
  if (!fresh) out.copy_(dst);
  return out;
}

Tensor masked_select_cpu(const Tensor& self, const Tensor& mask) {
  Tensor out = ember::empty({0}, TensorOptions().dtype(self.scalar_type()));
  return masked_select_out_cpu(self, mask, out);
}

Tensor& masked_scatter__cpu(Tensor& self, const Tensor& mask, const Tensor& source) {
  check_mask("masked_scatter_", mask);
  EMBER_CHECK(source.scalar_type() == self.scalar_type(), "masked_scatter_(): expected 'source' of "
              "dtype ", self.scalar_type(), " (self's), but got ", source.scalar_type());
  const DimVector shape = broadcast_shapes(self.sizes(), mask.sizes(), "masked_scatter_");
  EMBER_CHECK(IntArrayRef(shape) == self.sizes(), "masked_scatter_(): 'mask' of shape ", mask.sizes(),
              " does not broadcast to self's shape ", self.sizes());
  const Tensor m = mask.expand(shape).contiguous();
  const bool* mp = static_cast<const bool*>(m.data_ptr());
  int64_t total = 0;
  for (int64_t i = 0; i < m.numel(); ++i) total += mp[i];
  EMBER_CHECK(total <= source.numel(), "masked_scatter_(): the mask selects ", total,
              " elements but 'source' has only ", source.numel());
  if (total == 0) return self;
  const Tensor src = source.reshape({-1}).contiguous();
  Tensor work = self.is_contiguous() ? self : self.contiguous();
  dispatch_by_size(self.element_size(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* sp = static_cast<const T*>(src.data_ptr());
    T* wp = static_cast<T*>(work.data_ptr());
    for (int64_t i = 0, k = 0; i < m.numel(); ++i) {
      if (mp[i]) wp[i] = sp[k++];
    }
  });
  if (!work.is_same(self)) self.copy_(work);
  return self;
}

Tensor masked_scatter_cpu(const Tensor& self, const Tensor& mask, const Tensor& source) {
  check_mask("masked_scatter", mask);
  Tensor out = self.expand(broadcast_shapes(self.sizes(), mask.sizes(), "masked_scatter")).clone(MemoryFormat::Contiguous);
  return masked_scatter__cpu(out, mask, source);
}

Tensor& nonzero_out_cpu(const Tensor& self, Tensor& out) {
  EMBER_CHECK(out.scalar_type() == ScalarType::Long, "nonzero(): expected 'out' of dtype int64, but "
              "got ", out.scalar_type());
  const int64_t nd = self.dim();
  const Tensor m = (self.scalar_type() == ScalarType::Bool ? self : self.ne(0)).contiguous();
  const bool* mp = static_cast<const bool*>(m.data_ptr());
  const std::vector<int64_t> bounds = chunk_bounds(m.numel());
  const std::vector<int64_t> prefix = mask_prefix(mp, bounds);
  const int64_t total = prefix.back();
  // PyTorch's layout: coordinates of one dim are contiguous (strides (1, N)), from a
  // row-major [dim, N] buffer.
  if (out.sizes() != IntArrayRef({total, nd})) {
    out.impl()->resize({nd, total});
    out.impl()->set_sizes_and_strides({total, nd}, {1, total}, out.storage_offset());
  }
  check_no_internal_overlap("nonzero", out.sizes(), out.strides());
  if (total == 0 || nd == 0) return out;
  Tensor dst = ember::empty({total, nd}, TensorOptions().dtype(ScalarType::Long));
  int64_t* op = static_cast<int64_t*>(dst.data_ptr());
  const IntArrayRef sizes = self.sizes();
  parallel_for(0, static_cast<int64_t>(bounds.size()) - 1, 1, [&](int64_t b, int64_t e) {
    for (int64_t c = b; c < e; ++c) {
      // The coordinates of the chunk's first element, then an odometer.
      DimVector coord(static_cast<size_t>(nd), 0);
      int64_t rest = bounds[c];
      for (int64_t d = nd - 1; d >= 0; --d) {
        coord[d] = rest % sizes[d];
        rest /= sizes[d];
      }
      int64_t* w = op + prefix[c] * nd;
      for (int64_t i = bounds[c]; i < bounds[c + 1]; ++i) {
        if (mp[i]) {
          std::copy(coord.begin(), coord.end(), w);
          w += nd;
        }
        for (int64_t d = nd - 1; d >= 0 && ++coord[d] == sizes[d]; --d) coord[d] = 0;
      }
    }
  });
  out.copy_(dst);
  return out;
}

Tensor nonzero_cpu(const Tensor& self) {
  Tensor out = ember::empty({0}, TensorOptions().dtype(ScalarType::Long));
  return nonzero_out_cpu(self, out);
}

EMBER_CPU_NAMESPACE_END
}  // namespace ember::native
