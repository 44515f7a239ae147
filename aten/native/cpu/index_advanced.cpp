// index.Tensor and index_put_ on the CPU: whole rows of the dims the indices leave copied
// (or written, or added) at the offsets of an IndexPlan (index_advanced.h), as
// index_select does (Note [Index loops]).
// CPU copies: baseline only (row copies at computed offsets, not vector loops).
#include <cstring>
#include <vector>

#include "aten/TensorOperators.h"
#include "aten/native/CpuCapability.h"
#include "aten/native/DimUtils.h"
#include "aten/native/Dispatch.h"
#include "aten/native/IndexUtils.h"
#include "aten/native/Parallel.h"
#include "aten/native/TensorIterator.h"
#include "aten/native/index_advanced.h"
#include "c10/util/Exception.h"
#include "ember/generated/ops/empty.h"
#include "ember/generated/ops/index_put__native.h"

namespace ember::native {
EMBER_CPU_NAMESPACE_BEGIN

Tensor index_cpu(const Tensor& self, TensorList indices) {
  EMBER_CHECK_INDEX(!indices.empty(), "index(): expected at least one index tensor");
  const IndexPlan p = plan_index("index", self, indices);
  Tensor out = ember::empty(result_shape(p), TensorOptions().dtype(self.scalar_type()));
  if (out.numel() == 0) return out;
  const std::vector<int64_t> rest = dim_offsets(p.rest_sizes, p.rest_strides, 0, static_cast<int64_t>(p.rest_sizes.size()));
  const int64_t n_rest = static_cast<int64_t>(rest.size());
  const bool rest_contiguous = is_row_major_run(p.rest_sizes, p.rest_strides, 0, p.rest_sizes.size());
  const int64_t* off = static_cast<const int64_t*>(p.offsets.data_ptr());
  const char* src = static_cast<const char*>(p.self.data_ptr());
  char* dst = static_cast<char*>(out.data_ptr());
  dispatch_by_size(self.element_size(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    parallel_for(0, p.offsets.numel(), std::max<int64_t>(1, 32768 / n_rest), [&](int64_t b, int64_t e) {
      for (int64_t r = b; r < e; ++r) {
        const T* s = reinterpret_cast<const T*>(src) + off[r];
        T* d = reinterpret_cast<T*>(dst) + r * n_rest;
        if (rest_contiguous) std::memcpy(d, s, static_cast<size_t>(n_rest) * sizeof(T));
        else for (int64_t i = 0; i < n_rest; ++i) d[i] = s[rest[i]];
      }
    });
  });
  return out;
}

Tensor& index_put__cpu(Tensor& self, TensorList indices, const Tensor& values, bool accumulate) {
  EMBER_CHECK_INDEX(!indices.empty(), "index_put_(): expected at least one index tensor");
  check_no_internal_overlap("index_put_", self.sizes(), self.strides());
  const IndexPlan p = plan_index("index_put_", self, indices);
  EMBER_CHECK(values.scalar_type() == self.scalar_type(), "index_put_(): requires the source and "
              "destination dtypes to match, got ", self.scalar_type(), " for the destination and ",
              values.scalar_type(), " for the source");
  const DimVector shape = result_shape(p);
  {
    bool ok = values.dim() <= static_cast<int64_t>(shape.size());
    for (int64_t i = 0; ok && i < values.dim(); ++i) {
      const int64_t v = values.sizes()[values.dim() - 1 - i], s = shape[shape.size() - 1 - i];
      ok = v == s || v == 1;
    }
    EMBER_CHECK(ok, "index_put_(): shape mismatch: value tensor of shape ", values.sizes(),
                " cannot be broadcast to indexing result of shape ", IntArrayRef(shape));
  }
  if (p.offsets.numel() == 0 || self.numel() == 0) return self;
  const Tensor v = values.storage().is_alias_of(self.storage()) ? values.expand(shape).clone(MemoryFormat::Contiguous)
                                                               : values.expand(shape).contiguous();
  const std::vector<int64_t> rest = dim_offsets(p.rest_sizes, p.rest_strides, 0, static_cast<int64_t>(p.rest_sizes.size()));
  const int64_t n_rest = static_cast<int64_t>(rest.size());
  const int64_t* off = static_cast<const int64_t*>(p.offsets.data_ptr());
  dispatch_all_types(self.scalar_type(), "index_put_", [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* dst = static_cast<T*>(p.self.data_ptr());
    const T* src = static_cast<const T*>(v.data_ptr());
    for (int64_t r = 0; r < p.offsets.numel(); ++r) {
      T* d = dst + off[r];
      const T* s = src + r * n_rest;
      for (int64_t i = 0; i < n_rest; ++i) {
        if (!accumulate) d[rest[i]] = s[i];
        else if constexpr (std::is_same_v<T, bool>) d[rest[i]] = d[rest[i]] || s[i];
        else d[rest[i]] = static_cast<T>(d[rest[i]] + s[i]);
      }
    }
  });
  return self;
}

Tensor index_put_cpu(const Tensor& self, TensorList indices, const Tensor& values, bool accumulate) {
  Tensor out = self.clone();
  return index_put__cpu(out, indices, values, accumulate);
}

EMBER_CPU_NAMESPACE_END
}  // namespace ember::native
