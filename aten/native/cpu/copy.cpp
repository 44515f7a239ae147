// copy_ and fill_ on CPU and Meta, and reading one element (_local_scalar_dense, item()).
#include <algorithm>
#include <cstring>
#include <type_traits>

#if defined(EMBER_CPU_CAPABILITY_AVX2) || defined(EMBER_CPU_CAPABILITY_AVX512)
#include <immintrin.h>
#endif

#include "aten/native/CpuCapability.h"
#include "aten/native/Dispatch.h"
#include "aten/native/Parallel.h"
#include "aten/native/cpu/StridedLoop.h"
#include "aten/native/cpu/Widen.h"
#include "ember/generated/ops/copy__native.h"

namespace ember::native {
EMBER_CPU_NAMESPACE_BEGIN
namespace {

// src's strides for reading it broadcast to self's shape (0 along broadcast dimensions);
// ValueError unless src broadcasts to exactly self's shape.
DimVector broadcast_src_strides(const Tensor& self, const Tensor& src) {
  const IntArrayRef ss = self.sizes(), rs = src.sizes(), rt = src.strides();
  const size_t nd = ss.size(), sd = rs.size();
  bool ok = sd <= nd;
  DimVector strides(nd, 0);
  for (size_t i = 0; ok && i < sd; ++i) {
    const size_t d = nd - 1 - i, e = sd - 1 - i;
    if (rs[e] == ss[d]) strides[d] = rt[e];
    else ok = rs[e] == 1;
  }
  EMBER_CHECK_VALUE(ok, "copy_(): expected 'src' to be broadcastable to self's shape ", ss,
                    ", but got shape ", rs);
  return strides;
}

// Writing through a stride-0 dimension of size > 1 would write one location many times
// (an empty tensor writes nothing, whatever its strides).
void check_no_internal_overlap(const Tensor& self) {
  if (self.numel() == 0) return;
  for (int64_t d = 0; d < self.dim(); ++d) {
    EMBER_CHECK_VALUE(self.sizes()[d] < 2 || self.strides()[d] != 0,
                      "copy_(): expected 'self' to have no internal overlap (more than one of its "
                      "elements refers to a single memory location: sizes ", self.sizes(),
                      ", strides ", self.strides(), "); clone() it first");
  }
}

// [first byte, one past the last byte] that t's elements occupy.
std::pair<const char*, const char*> byte_range(const Tensor& t) {
  const char* begin = static_cast<const char*>(t.data_ptr());
  int64_t last = 0;
  for (int64_t d = 0; d < t.dim(); ++d) last += (t.sizes()[d] - 1) * t.strides()[d];
  return {begin, begin + (last + 1) * static_cast<int64_t>(t.element_size())};
}

bool same_elements(const Tensor& a, const Tensor& b) {
  return a.storage().is_alias_of(b.storage()) && a.storage_offset() == b.storage_offset() &&
         a.scalar_type() == b.scalar_type() && a.sizes() == b.sizes() && a.strides() == b.strides();
}

bool may_overlap(const Tensor& a, const Tensor& b) {
  if (a.numel() == 0 || b.numel() == 0 || !a.storage().is_alias_of(b.storage())) return false;
  auto [a0, a1] = byte_range(a);
  auto [b0, b1] = byte_range(b);
  return a0 < b1 && b0 < a1;
}

// Note [Transposing copy]: a 2-d copy whose destination is row-major and whose source is
// column-major (x.t().contiguous()) walks one side with a large stride whatever the loop
// order. It goes tile by tile instead (32 x 32 elements: both tiles stay in L1), with rows
// of tiles split across threads.
#if defined(EMBER_CPU_CAPABILITY_AVX2) || defined(EMBER_CPU_CAPABILITY_AVX512)
// dst[i][j] = src[j][i] for an 8 x 8 block of 4-byte elements, in registers.
inline void transpose_8x8(uint32_t* dst, int64_t dst_ld, const uint32_t* src, int64_t src_ld) {
  __m256 r[8], t[8];
  for (int k = 0; k < 8; ++k) r[k] = _mm256_loadu_ps(reinterpret_cast<const float*>(src + k * src_ld));
  for (int k = 0; k < 8; k += 2) {
    t[k] = _mm256_unpacklo_ps(r[k], r[k + 1]);
    t[k + 1] = _mm256_unpackhi_ps(r[k], r[k + 1]);
  }
  for (int k = 0; k < 8; k += 4) {
    r[k] = _mm256_shuffle_ps(t[k], t[k + 2], 0x44);
    r[k + 1] = _mm256_shuffle_ps(t[k], t[k + 2], 0xEE);
    r[k + 2] = _mm256_shuffle_ps(t[k + 1], t[k + 3], 0x44);
    r[k + 3] = _mm256_shuffle_ps(t[k + 1], t[k + 3], 0xEE);
  }
  const int lo[4] = {0, 1, 2, 3};
  for (int k = 0; k < 4; ++k) {
    t[lo[k]] = _mm256_permute2f128_ps(r[k], r[k + 4], 0x20);
    t[lo[k] + 4] = _mm256_permute2f128_ps(r[k], r[k + 4], 0x31);
  }
  for (int k = 0; k < 8; ++k) _mm256_storeu_ps(reinterpret_cast<float*>(dst + k * dst_ld), t[k]);
}
#endif

template <class T>
void transpose_tiles(T* dst, const T* src, int64_t rows, int64_t cols, int64_t dst_ld, int64_t src_ld) {
  constexpr int64_t kTile = 32;
  // One block [i, i_end) x [j, j_end): 8 x 8 register transposes for 4-byte elements where
  // the instructions exist, else element by element (reading src's columns contiguously).
  auto block = [&](int64_t i, int64_t i_end, int64_t j, int64_t j_end) {
#if defined(EMBER_CPU_CAPABILITY_AVX2) || defined(EMBER_CPU_CAPABILITY_AVX512)
    if constexpr (sizeof(T) == 4) {
      if (i_end - i == 8 && j_end - j == 8) {
        transpose_8x8(reinterpret_cast<uint32_t*>(dst) + i * dst_ld + j, dst_ld,
                      reinterpret_cast<const uint32_t*>(src) + j * src_ld + i, src_ld);
        return;
      }
    }
#endif
    for (int64_t jj = j; jj < j_end; ++jj) {
      const T* s = src + jj * src_ld;
      for (int64_t ii = i; ii < i_end; ++ii) dst[ii * dst_ld + jj] = s[ii];
    }
  };
  const int64_t row_tiles = (rows + kTile - 1) / kTile;
  parallel_for(0, row_tiles, 1, [&](int64_t b, int64_t e) {
    for (int64_t t = b; t < e; ++t) {
      const int64_t i0 = t * kTile, i1 = std::min(rows, i0 + kTile);
      for (int64_t j0 = 0; j0 < cols; j0 += kTile) {
        const int64_t j1 = std::min(cols, j0 + kTile);
        for (int64_t i = i0; i < i1; i += 8) {
          for (int64_t j = j0; j < j1; j += 8) block(i, std::min(i + 8, i1), j, std::min(j + 8, j1));
        }
      }
    }
  });
}

bool try_transpose_copy(const Tensor& self, const Tensor& src, IntArrayRef src_strides) {
  if (self.dim() != 2 || self.scalar_type() != src.scalar_type() || self.numel() < (1 << 14)) return false;
  const int64_t rows = self.sizes()[0], cols = self.sizes()[1];
  if (self.strides()[1] != 1 || self.strides()[0] < cols) return false;
  if (src_strides[0] != 1 || src_strides[1] < rows) return false;
  const int64_t dst_ld = self.strides()[0], src_ld = src_strides[1];
  bool done = true;
  switch (self.element_size()) {
    case 1: transpose_tiles(static_cast<uint8_t*>(self.data_ptr()), static_cast<const uint8_t*>(src.data_ptr()), rows, cols, dst_ld, src_ld); break;
    case 2: transpose_tiles(static_cast<uint16_t*>(self.data_ptr()), static_cast<const uint16_t*>(src.data_ptr()), rows, cols, dst_ld, src_ld); break;
    case 4: transpose_tiles(static_cast<uint32_t*>(self.data_ptr()), static_cast<const uint32_t*>(src.data_ptr()), rows, cols, dst_ld, src_ld); break;
    case 8: transpose_tiles(static_cast<uint64_t*>(self.data_ptr()), static_cast<const uint64_t*>(src.data_ptr()), rows, cols, dst_ld, src_ld); break;
    default: done = false;
  }
  return done;
}

// Note [Copy copies]: the wide copies of this file hold the casts that float workloads
// run: between the real dtypes (integers, bool, floats) except integers to and from the
// 16-bit floats. The other casts (complex ones, and those: 56 of the 144 dtype pairs, each a
// loop nest, and the most expensive to compile) run the baseline copy. Copies within one
// dtype move bytes, one loop per element size.
template <class T>
constexpr bool kRealFloating = std::is_floating_point_v<T> || std::is_same_v<T, Half> ||
                               std::is_same_v<T, BFloat16>;
template <class T>
constexpr bool kReal = kRealFloating<T> || std::is_integral_v<T>;
template <class T>
constexpr bool kWord = std::is_same_v<T, float> || std::is_same_v<T, double>;
template <class D, class S>
constexpr bool kWideCast = std::is_same_v<D, S> || (kReal<D> && kReal<S> && (kWord<D> || kWord<S>)) ||
                           (kRealFloating<D> && kRealFloating<S>) ||
                           (std::is_integral_v<D> && std::is_integral_v<S>);

bool real_floating(ScalarType t) {
  return t == ScalarType::Float || t == ScalarType::Double || t == ScalarType::Half ||
         t == ScalarType::BFloat16;
}
bool wide_cast(ScalarType d, ScalarType s) {
  const auto real = [](ScalarType t) { return real_floating(t) || is_integral(t, true); };
  const auto word = [](ScalarType t) { return t == ScalarType::Float || t == ScalarType::Double; };
  return d == s || (real(d) && real(s) && (word(d) || word(s))) ||
         (real_floating(d) && real_floating(s)) || (is_integral(d, true) && is_integral(s, true));
}

template <class D, class S>
void copy_loop(const StridedLoop<2>& loop, void* dst, const void* src) {
  D* const d0 = static_cast<D*>(dst);
  const S* const s0 = static_cast<const S*>(src);
  loop.run([&](const std::array<int64_t, 2>& off, const std::array<int64_t, 2>& st, int64_t n) {
    D* d = d0 + off[0];
    const S* s = s0 + off[1];
    constexpr bool kNarrow = std::is_same_v<S, float> && (std::is_same_v<D, Half> || std::is_same_v<D, BFloat16>);
    constexpr bool kWiden = std::is_same_v<D, float> && (std::is_same_v<S, Half> || std::is_same_v<S, BFloat16>);
    if constexpr (kNarrow) {
      // float -> 16-bit: the vector conversions of cpu/Widen.h (rounding as convert's).
      if (st[1] == 1) return narrow<D>(s, reinterpret_cast<char*>(d), st[0] * int64_t(sizeof(D)), n);
    } else if constexpr (kWiden) {
      if (st[0] == 1 && st[1] != 0) return widen<S>(reinterpret_cast<const char*>(s), st[1] * int64_t(sizeof(S)), n, d);
    }
    if (st[0] == 1 && st[1] == 1) {
      for (int64_t i = 0; i < n; ++i) d[i] = convert<D>(s[i]);
    } else if (st[1] == 0) {
      const D v = convert<D>(*s);
      for (int64_t i = 0; i < n; ++i) d[i * st[0]] = v;
    } else {
      for (int64_t i = 0; i < n; ++i) d[i * st[0]] = convert<D>(s[i * st[1]]);
    }
  });
}

}  // namespace

Tensor& copy_cpu(Tensor& self, const Tensor& src, bool non_blocking) {
  const DimVector src_strides = broadcast_src_strides(self, src);
  if (self.is_same(src) || same_elements(self, src)) return self;
  check_no_internal_overlap(self);
  if (self.numel() == 0) return self;
  if (may_overlap(self, src)) {
    // Reading src while writing self would see values already overwritten: copy it first.
    const Tensor staged = src.clone(MemoryFormat::Contiguous);
    return copy_cpu(self, staged, non_blocking);
  }
  if (self.scalar_type() == src.scalar_type() && self.numel() == src.numel() &&
      self.is_contiguous() && src.is_contiguous()) {
    // Large copies split across threads (one memcpy per chunk).
    const int64_t bytes = self.numel() * static_cast<int64_t>(self.element_size());
    char* d = static_cast<char*>(self.data_ptr());
    const char* s = static_cast<const char*>(src.data_ptr());
    parallel_for(0, bytes, 1 << 20, [&](int64_t b, int64_t e) { std::memcpy(d + b, s + b, e - b); });
    return self;
  }
  if (try_transpose_copy(self, src, src_strides)) return self;
  const StridedLoop<2> loop(self.sizes(), {self.strides(), src_strides.ref()});
  if (self.scalar_type() == src.scalar_type()) {
    // Same dtype: the elements move as bytes, one loop per element size.
    switch (self.element_size()) {
      case 1: copy_loop<uint8_t, uint8_t>(loop, self.data_ptr(), src.data_ptr()); return self;
      case 2: copy_loop<uint16_t, uint16_t>(loop, self.data_ptr(), src.data_ptr()); return self;
      case 4: copy_loop<uint32_t, uint32_t>(loop, self.data_ptr(), src.data_ptr()); return self;
      case 8: copy_loop<uint64_t, uint64_t>(loop, self.data_ptr(), src.data_ptr()); return self;
      default: break;
    }
  }
  if (kWideCpuCopy && !wide_cast(self.scalar_type(), src.scalar_type())) {
    ::ember::native::copy_cpu(self, src, non_blocking);
    return self;
  }
  dispatch_all_types(self.scalar_type(), "copy_", [&](auto dst_tag) {
    using D = typename decltype(dst_tag)::type;
    dispatch_all_types(src.scalar_type(), "copy_", [&](auto src_tag) {
      using S = typename decltype(src_tag)::type;
      // Same dtypes of up to 8 bytes moved as bytes above.
      constexpr bool kMoved = std::is_same_v<D, S> && sizeof(D) <= 8;
      if constexpr (!kMoved && (!kWideCpuCopy || kWideCast<D, S>)) copy_loop<D, S>(loop, self.data_ptr(), src.data_ptr());
      else EMBER_INTERNAL_ASSERT(false, "copy_(): no loop here from ", src.scalar_type(), " to ", self.scalar_type());
    });
  });
  return self;
}

Tensor& copy_meta(Tensor& self, const Tensor& src, bool non_blocking) {
  broadcast_src_strides(self, src);
  EMBER_CHECK_NOT_IMPLEMENTED(self.device().type() == DeviceType::Meta,
                              "copy_(): cannot copy out of a meta tensor into a ", self.device(),
                              " tensor: meta tensors have no data");
  return self;
}

Tensor& fill_scalar_cpu(Tensor& self, const Scalar& value) {
  dispatch_all_types(self.scalar_type(), "fill_", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T v = checked_scalar_to<T>(value, "fill_", "value");
    T* const base = static_cast<T*>(self.data_ptr());
    if (self.is_contiguous()) {
      std::fill(base, base + self.numel(), v);
      return;
    }
    const StridedLoop<1> loop(self.sizes(), {self.strides()});
    loop.run([&](const std::array<int64_t, 1>& off, const std::array<int64_t, 1>& st, int64_t n) {
      T* p = base + off[0];
      for (int64_t i = 0; i < n; ++i) p[i * st[0]] = v;
    });
  });
  return self;
}

Tensor& fill_scalar_meta(Tensor& self, const Scalar& value) {
  dispatch_all_types(self.scalar_type(), "fill_", [&](auto tag) {
    checked_scalar_to<typename decltype(tag)::type>(value, "fill_", "value");
  });
  return self;
}

Scalar _local_scalar_dense_cpu(const Tensor& self) {
  EMBER_CHECK_VALUE(self.numel() > 0,
                    "_local_scalar_dense(): expected a non-empty tensor, but got sizes ",
                    self.sizes());
  return dispatch_all_types(self.scalar_type(), "_local_scalar_dense", [&](auto tag) -> Scalar {
    using T = typename decltype(tag)::type;
    const T v = *static_cast<const T*>(self.data_ptr());
    if constexpr (std::is_same_v<T, bool> || kIsComplex<T>) return Scalar(v);
    else if constexpr (std::is_integral_v<T>) return Scalar(static_cast<int64_t>(v));
    else return Scalar(static_cast<double>(v));
  });
}

Scalar _local_scalar_dense_meta(const Tensor& self) {
  EMBER_THROW(NotImplementedError,
              "item(): cannot read a value from a meta tensor (meta tensors have no data)");
}

EMBER_CPU_NAMESPACE_END
}  // namespace ember::native
