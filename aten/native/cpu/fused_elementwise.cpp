// The fused elementwise kernel (aten/native/fused.h): a program of elementwise ops run over
// cache-sized tiles, one pass over memory.
//
// Note [Fused tiles]: the output's elements are cut into tiles of kTile (a multiple of the
// vector width). Each register of the program is a tile buffer; an instruction runs over a
// whole tile before the next one starts, so the loop of each op is the same vector loop the
// eager kernel runs, and the intermediates stay in L1/L2 instead of going to memory. Each op
// computes each element with the eager kernel's own expression: the vector functions of
// Vectorized.h and the functors of ActivationFunctors.h where the eager op has a `vec` form
// (those put every element through it, Loops.h), the scalar expression where it has not, the
// compiler's arithmetic for + - * /. So a fused chain gives the eager chain's results to
// the last bit. A contiguous input is read in place and a contiguous output written in place
// (full tiles); the last, partial tile and broadcast or strided inputs go through buffers
// padded to whole vectors. Outputs too large for the caches (kStreamBytes) are computed in
// the tile buffers and streamed to memory with non-temporal stores.
#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "aten/native/CpuCapability.h"
#include "aten/native/Parallel.h"
#include "aten/native/fused.h"
#include "aten/native/cpu/ActivationFunctors.h"
#include "aten/native/cpu/Vectorized.h"
#include "aten/tracing/Fusion.h"
#include "c10/util/Exception.h"
#include "c10/util/Half.h"

namespace ember::native {
EMBER_CPU_NAMESPACE_BEGIN
namespace {

using jit::FusedInstr;
using jit::FusedOp;
using jit::FusedProgram;

constexpr int64_t kTile = 256;

// Outputs at least this large are written with non-temporal stores: they cannot stay in the
// caches (this machine's L3 is 32 MiB, shared), and streaming them skips the read that a
// plain store of a missing line makes first, a third of a two-input chain's traffic.
constexpr int64_t kStreamBytes = int64_t{16} << 20;

// Copies a full tile (a whole number of 64-byte lines; `s` 64-byte aligned) to the 64-byte
// aligned `d` with non-temporal stores. The caller fences (_mm_sfence) before it returns.
void stream_copy(void* d, const void* s, int64_t bytes) {
  auto* dst = static_cast<char*>(d);
  const auto* src = static_cast<const char*>(s);
#if defined(EMBER_CPU_CAPABILITY_AVX512)
  for (int64_t i = 0; i < bytes; i += 64) {
    _mm512_stream_si512(reinterpret_cast<__m512i*>(dst + i), _mm512_load_si512(src + i));
  }
#elif defined(EMBER_CPU_CAPABILITY_AVX2)
  for (int64_t i = 0; i < bytes; i += 32) {
    _mm256_stream_si256(reinterpret_cast<__m256i*>(dst + i),
                        _mm256_load_si256(reinterpret_cast<const __m256i*>(src + i)));
  }
#else
  for (int64_t i = 0; i < bytes; i += 16) {
    _mm_stream_si128(reinterpret_cast<__m128i*>(dst + i), _mm_load_si128(reinterpret_cast<const __m128i*>(src + i)));
  }
#endif
}

template <class T, class F>
void map_vec(T* d, const T* a, int64_t n, F f) {
  constexpr int64_t K = Vectorized<T>::kSize;
  for (int64_t i = 0; i < n; i += K) f(Vectorized<T>::loadu(a + i)).store(d + i);
}

template <class T, class F>
__attribute__((noinline)) void map_scalar(T* __restrict d, const T* __restrict a, int64_t n, F f) {
  for (int64_t i = 0; i < n; ++i) d[i] = f(a[i]);
}

template <class T, class F>
__attribute__((noinline)) void map2(T* __restrict d, const T* __restrict a, const T* __restrict b,
                                    int64_t n, F f) {
  for (int64_t i = 0; i < n; ++i) d[i] = f(a[i], b[i]);
}

// An activation functor: its vec form when it has one for T (as the eager loop takes it),
// else its scalar form.
template <class T, class F>
void map_functor(T* d, const T* a, int64_t n, const F& f) {
  if constexpr (HasVec<F, T>) {
    map_vec<T>(d, a, n, [&](Vectorized<T> x) { return f.vec(x); });
  } else {
    map_scalar<T>(d, a, n, [&](T x) { return f(x); });
  }
}

template <class T>
void run_instr(const FusedInstr& in, T* d, const T* a, const T* b, const T* c, int64_t n) {
  using V = Vectorized<T>;
  const T s0 = static_cast<T>(in.s0);
  const T s1 = static_cast<T>(in.s1);
  switch (in.op) {
    case FusedOp::Neg: map_scalar<T>(d, a, n, [](T x) { return -x; }); break;
    case FusedOp::Abs: map_scalar<T>(d, a, n, [](T x) { return std::abs(x); }); break;
    case FusedOp::Relu:
    case FusedOp::Clamp: {
      // clamp's form (cpu/pointwise.cpp): NaN stays NaN; a NaN bound makes every element NaN.
      const T lo = in.op == FusedOp::Relu ? T(0) : s0;
      const T hi = in.op == FusedOp::Relu ? std::numeric_limits<T>::infinity() : s1;
      const bool nan_bound = std::isnan(lo) || std::isnan(hi);
      const T nan_value = std::isnan(lo) ? lo : hi;
      map_scalar<T>(d, a, n, [lo, hi, nan_bound, nan_value](T x) {
        T y = x < lo ? lo : x;
        y = y > hi ? hi : y;
        return nan_bound ? nan_value : y;
      });
      break;
    }
    case FusedOp::Exp: map_vec<T>(d, a, n, [](V x) { return vec::exp(x); }); break;
    case FusedOp::Expm1: map_vec<T>(d, a, n, [](V x) { return vec::expm1(x); }); break;
    case FusedOp::Log: map_vec<T>(d, a, n, [](V x) { return vec::log(x); }); break;
    case FusedOp::Log1p: map_vec<T>(d, a, n, [](V x) { return vec::log1p(x); }); break;
    case FusedOp::Log2: map_vec<T>(d, a, n, [](V x) { return vec::log2(x); }); break;
    case FusedOp::Sqrt: map_vec<T>(d, a, n, [](V x) { return vec::sqrt(x); }); break;
    case FusedOp::Rsqrt: map_vec<T>(d, a, n, [](V x) { return V(1) / vec::sqrt(x); }); break;
    case FusedOp::Sin: map_vec<T>(d, a, n, [](V x) { return vec::sin(x); }); break;
    case FusedOp::Cos: map_vec<T>(d, a, n, [](V x) { return vec::cos(x); }); break;
    case FusedOp::Tanh: map_vec<T>(d, a, n, [](V x) { return vec::tanh(x); }); break;
    case FusedOp::Sigmoid: map_vec<T>(d, a, n, [](V x) { return V(1) / (V(1) + vec::exp(-x)); }); break;
    case FusedOp::Erf: map_vec<T>(d, a, n, [](V x) { return vec::erf(x); }); break;
    case FusedOp::Gelu: map_functor<T>(d, a, n, gelu_fn{}); break;
    case FusedOp::GeluTanh: map_functor<T>(d, a, n, gelu_tanh_fn{}); break;
    case FusedOp::Silu: map_functor<T>(d, a, n, silu_fn{}); break;
    case FusedOp::Reciprocal: map_scalar<T>(d, a, n, [](T x) { return T(1) / x; }); break;
    case FusedOp::Square: map_scalar<T>(d, a, n, [](T x) { return x * x; }); break;
    // add/sub as cpu/binary_arith.cpp computes them: a + alpha * b (sub negates alpha).
    // alpha = ±1 skips the product: 1 * y is y exactly, so the sum is the same bits.
    case FusedOp::Add:
      if (s1 == T(1)) {
        map2<T>(d, a, b, n, [](T x, T y) { return x + y; });
      } else {
        map2<T>(d, a, b, n, [s1](T x, T y) { return x + s1 * y; });
      }
      break;
    case FusedOp::Sub:
      if (s1 == T(1)) {
        map2<T>(d, a, b, n, [](T x, T y) { return x - y; });
      } else {
        map2<T>(d, a, b, n, [s1](T x, T y) { return x + (-s1) * y; });
      }
      break;
    case FusedOp::Mul: map2<T>(d, a, b, n, [](T x, T y) { return x * y; }); break;
    case FusedOp::Div: map2<T>(d, a, b, n, [](T x, T y) { return x / y; }); break;
    case FusedOp::Maximum:
      map2<T>(d, a, b, n, [](T x, T y) { return x != x ? x : (y != y ? y : (x > y ? x : y)); });
      break;
    case FusedOp::Minimum:
      map2<T>(d, a, b, n, [](T x, T y) { return x != x ? x : (y != y ? y : (x < y ? x : y)); });
      break;
    case FusedOp::AddScalar: map_scalar<T>(d, a, n, [s0, s1](T x) { return x + s1 * s0; }); break;
    case FusedOp::SubScalar: map_scalar<T>(d, a, n, [s0, s1](T x) { return x + (-s1) * s0; }); break;
    case FusedOp::MulScalar: map_scalar<T>(d, a, n, [s0](T x) { return x * s0; }); break;
    case FusedOp::DivScalar: map_scalar<T>(d, a, n, [s0](T x) { return x / s0; }); break;
    case FusedOp::RSubScalar: map_scalar<T>(d, a, n, [s0](T x) { return s0 - x; }); break;
    case FusedOp::Where:
      for (int64_t i = 0; i < n; ++i) d[i] = c[i] != T(0) ? a[i] : b[i];
      break;
    case FusedOp::Cast: map_scalar<T>(d, a, n, [](T x) { return x; }); break;
  }
}

// How one input register is read: in its own dtype (the program's, or another that the
// loader converts: a where() condition, a cast's source).
struct Input {
  const void* data = nullptr;
  ScalarType dtype = ScalarType::Float;
  bool contiguous = false;
  std::vector<int64_t> strides;  // elements, broadcast dims 0
};

// One element of S as T, as the eager copy kernel converts it (the 16-bit floats through float).
template <class T, class S>
T element_as(S x) {
  if constexpr (std::is_same_v<S, Half> || std::is_same_v<S, BFloat16>) {
    return static_cast<T>(static_cast<float>(x));
  } else {
    return static_cast<T>(x);
  }
}

// Converts elements [begin, begin + n) of an input (in the output's index order) to buf.
template <class S, class T>
void gather(const Input& in, const std::vector<int64_t>& sizes, int64_t begin, int64_t n, T* buf) {
  const S* data = static_cast<const S*>(in.data);
  if (in.contiguous) {
    if constexpr (std::is_same_v<S, T>) {
      std::memcpy(buf, data + begin, static_cast<size_t>(n) * sizeof(T));
    } else {
      for (int64_t i = 0; i < n; ++i) buf[i] = element_as<T>(data[begin + i]);
    }
    return;
  }
  const size_t nd = sizes.size();
  if (nd == 0) {
    std::fill(buf, buf + n, element_as<T>(data[0]));
    return;
  }
  std::vector<int64_t> idx(nd);
  int64_t rest = begin;
  int64_t offset = 0;
  for (size_t k = nd; k-- > 0;) {
    idx[k] = rest % sizes[k];
    rest /= sizes[k];
    offset += idx[k] * in.strides[k];
  }
  const int64_t inner = sizes[nd - 1];
  const int64_t inner_stride = in.strides[nd - 1];
  int64_t i = 0;
  while (i < n) {
    const int64_t run = std::min(inner - idx[nd - 1], n - i);
    if (inner_stride == 0) {
      std::fill(buf + i, buf + i + run, element_as<T>(data[offset]));
    } else {
      for (int64_t j = 0; j < run; ++j) buf[i + j] = element_as<T>(data[offset + j * inner_stride]);
    }
    i += run;
    offset += run * inner_stride;
    idx[nd - 1] += run;
    for (size_t k = nd - 1; k > 0 && idx[k] == sizes[k]; --k) {
      offset -= idx[k] * in.strides[k];
      idx[k] = 0;
      ++idx[k - 1];
      offset += in.strides[k - 1];
    }
  }
}

template <class T>
void load(const Input& in, const std::vector<int64_t>& sizes, int64_t begin, int64_t n, T* buf) {
  switch (in.dtype) {
    case ScalarType::Bool: return gather<bool, T>(in, sizes, begin, n, buf);
    case ScalarType::Byte: return gather<uint8_t, T>(in, sizes, begin, n, buf);
    case ScalarType::Char: return gather<int8_t, T>(in, sizes, begin, n, buf);
    case ScalarType::Short: return gather<int16_t, T>(in, sizes, begin, n, buf);
    case ScalarType::Int: return gather<int32_t, T>(in, sizes, begin, n, buf);
    case ScalarType::Long: return gather<int64_t, T>(in, sizes, begin, n, buf);
    case ScalarType::Half: return gather<Half, T>(in, sizes, begin, n, buf);
    case ScalarType::BFloat16: return gather<BFloat16, T>(in, sizes, begin, n, buf);
    case ScalarType::Float: return gather<float, T>(in, sizes, begin, n, buf);
    case ScalarType::Double: return gather<double, T>(in, sizes, begin, n, buf);
    default: EMBER_CHECK(false, "fused_elementwise(): cannot load an input of dtype ", in.dtype);
  }
}

// Note [Fused reductions]: a program may end in a reduction of one register over its
// trailing `inner` elements. Each tile's values are reduced as soon as the tile is computed,
// piece by piece where rows begin and end inside it (16 double lanes a piece), so the reduced register never reaches
// memory unless it is an output too. Rows are split between threads (a row's pieces stay in
// order on one thread); a single row (a full reduction) is split by tiles into per-chunk
// partials combined in chunk order, so results do not depend on scheduling. Sums accumulate
// in double: within float rounding of eager sum, and closer to the exact sum.
// amax/amin propagate NaN.
template <class T>
double piece_sum(const T* x, int64_t n) {
  constexpr int L = 16;
  double lanes[L] = {};
  int64_t i = 0;
  for (; i + L <= n; i += L) {
    for (int j = 0; j < L; ++j) lanes[j] += static_cast<double>(x[i + j]);
  }
  double s = 0;
  for (; i < n; ++i) s += static_cast<double>(x[i]);
  for (int j = 0; j < L; ++j) s += static_cast<double>(lanes[j]);
  return s;
}

template <class T>
double piece_extreme(const T* x, int64_t n, bool max) {
  T m = max ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::infinity();
  for (int64_t i = 0; i < n; ++i) {
    const T v = x[i];
    if (v != v) return static_cast<double>(v);
    m = max ? (v > m ? v : m) : (v < m ? v : m);
  }
  return static_cast<double>(m);
}

struct Reducer {
  jit::FusedReduce op;
  int64_t inner;
  bool sums() const { return op == jit::FusedReduce::Sum || op == jit::FusedReduce::Mean; }
  double init() const {
    if (sums()) return 0;
    return op == jit::FusedReduce::Amax ? -std::numeric_limits<double>::infinity()
                                        : std::numeric_limits<double>::infinity();
  }
  template <class T>
  double piece(const T* x, int64_t n) const {
    return sums() ? piece_sum<T>(x, n) : piece_extreme<T>(x, n, op == jit::FusedReduce::Amax);
  }
  double combine(double acc, double p) const {
    if (sums()) return acc + p;
    if (acc != acc) return acc;
    if (p != p) return p;
    return op == jit::FusedReduce::Amax ? (p > acc ? p : acc) : (p < acc ? p : acc);
  }
  template <class T>
  T finish(double acc) const {
    return static_cast<T>(op == jit::FusedReduce::Mean ? acc / static_cast<double>(inner) : acc);
  }
};

template <class T>
void run_program(const FusedProgram& p, const std::vector<Tensor>& inputs, const std::vector<Tensor>& outputs) {
  // The dims the tiles walk: the program's, or in the outputs' memory order (p.perm; the
  // inputs come permuted to match, fused.cpp).
  std::vector<int64_t> sizes = p.sizes;
  for (size_t k = 0; k < p.perm.size(); ++k) sizes[k] = p.sizes[static_cast<size_t>(p.perm[k])];
  int64_t numel = 1;
  for (int64_t s : sizes) numel *= s;
  if (numel == 0) return;
  constexpr int64_t K = Vectorized<T>::kSize;
  static_assert(kTile % (4 * 16) == 0, "tiles are whole vectors of every width");
  std::vector<Input> ins(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    ins[i].data = inputs[i].data_ptr();
    ins[i].dtype = inputs[i].dtype();
    ins[i].contiguous = inputs[i].is_contiguous();
    ins[i].strides = inputs[i].strides().vec();
  }
  // The output register of each elementwise output, and each register's output (or -1).
  const size_t n_out = p.elementwise_outputs();
  std::vector<int> out_of(static_cast<size_t>(p.num_registers), -1);
  for (size_t k = 0; k < n_out; ++k) out_of[p.outputs[k]] = static_cast<int>(k);
  std::vector<T*> out_data(n_out);
  for (size_t k = 0; k < n_out; ++k) out_data[k] = outputs[k].data_ptr<T>();

  // Large outputs are streamed to memory from the tile buffers (kStreamBytes).
  int64_t out_bytes = 0;
  for (size_t k = 0; k < n_out; ++k) out_bytes += numel * static_cast<int64_t>(sizeof(T));
  const bool stream = out_bytes >= kStreamBytes;

  // Runs the program over elements [e0, e1) tile by tile; on_tile(begin, n, values of the
  // reduced register) sees each tile once it is computed.
  auto run_range = [&](int64_t e0, int64_t e1, auto&& on_tile) {
    std::vector<T> storage(static_cast<size_t>(p.num_registers) * kTile + 64);
    T* base = reinterpret_cast<T*>((reinterpret_cast<uintptr_t>(storage.data()) + 63) & ~uintptr_t{63});
    std::vector<const T*> src(static_cast<size_t>(p.num_registers));
    for (int64_t begin = e0; begin < e1; begin += kTile) {
      const int64_t n = std::min(kTile, e1 - begin);
      const bool full = n == kTile;
      const int64_t padded = (n + K - 1) / K * K;
      for (int r = 0; r < p.num_inputs; ++r) {
        const Input& in = ins[r];
        if (in.contiguous && full && in.dtype == p.dtype) {
          src[r] = static_cast<const T*>(in.data) + begin;
          continue;
        }
        T* buf = base + static_cast<int64_t>(r) * kTile;
        load<T>(in, sizes, begin, n, buf);
        std::fill(buf + n, buf + padded, T(0));
        src[r] = buf;
      }
      // A full tile's outputs are written in place, or streamed from their buffers when
      // large and 64-byte aligned; other tiles' are copied from the buffers.
      bool streamed = stream && full;
      for (size_t k = 0; k < n_out && streamed; ++k) {
        streamed = reinterpret_cast<uintptr_t>(out_data[k] + begin) % 64 == 0;
      }
      const bool in_place = full && !streamed;
      for (const FusedInstr& instr : p.code) {
        T* dst = in_place && out_of[instr.dst] >= 0 ? out_data[out_of[instr.dst]] + begin
                                                    : base + static_cast<int64_t>(instr.dst) * kTile;
        run_instr<T>(instr, dst, instr.a >= 0 ? src[instr.a] : nullptr,
                     instr.b >= 0 ? src[instr.b] : nullptr, instr.c >= 0 ? src[instr.c] : nullptr, padded);
        src[instr.dst] = dst;
      }
      for (size_t k = 0; k < n_out && !in_place; ++k) {
        const auto bytes = static_cast<size_t>(n) * sizeof(T);
        const T* from = src[p.outputs[k]];
        // An input returned as it is (an output register no instruction writes) is not in a buffer.
        const bool buffered = reinterpret_cast<uintptr_t>(from) % 64 == 0 && from >= base &&
                              from < base + static_cast<int64_t>(p.num_registers) * kTile;
        if (streamed && buffered) {
          stream_copy(out_data[k] + begin, from, static_cast<int64_t>(bytes));
        } else {
          std::memcpy(out_data[k] + begin, from, bytes);
        }
      }
      if (p.reduces()) on_tile(begin, n, src[p.reduction.reg]);
    }
    if (stream) _mm_sfence();  // the streamed stores are visible before the caller joins
  };

  const int64_t tiles = (numel + kTile - 1) / kTile;
  if (!p.reduces()) {
    parallel_for(0, tiles, 32, [&](int64_t t0, int64_t t1) {
      run_range(t0 * kTile, std::min(t1 * kTile, numel), [](int64_t, int64_t, const T*) {});
    });
    return;
  }
  const Reducer red{p.reduction.op, p.reduction.inner};
  const int64_t inner = p.reduction.inner;
  const int64_t outer = numel / inner;
  T* result = outputs.back().data_ptr<T>();
  if (outer == 1) {
    std::vector<double> partial(static_cast<size_t>(tiles), red.init());
    std::vector<char> used(static_cast<size_t>(tiles), 0);
    parallel_for(0, tiles, 32, [&](int64_t t0, int64_t t1) {
      double acc = red.init();
      run_range(t0 * kTile, std::min(t1 * kTile, numel),
                [&](int64_t, int64_t n, const T* v) { acc = red.combine(acc, red.piece<T>(v, n)); });
      partial[static_cast<size_t>(t0)] = acc;
      used[static_cast<size_t>(t0)] = 1;
    });
    double acc = red.init();
    for (size_t t = 0; t < partial.size(); ++t) {
      if (used[t]) acc = red.combine(acc, partial[t]);
    }
    result[0] = red.finish<T>(acc);
    return;
  }
  const int64_t grain = std::max<int64_t>(1, 32 * kTile / inner);
  parallel_for(0, outer, grain, [&](int64_t r0, int64_t r1) {
    std::vector<double> acc(static_cast<size_t>(r1 - r0), red.init());
    run_range(r0 * inner, r1 * inner, [&](int64_t begin, int64_t n, const T* v) {
      for (int64_t e = begin; e < begin + n;) {
        const int64_t row = e / inner;
        const int64_t stop = std::min((row + 1) * inner, begin + n);
        double& a = acc[static_cast<size_t>(row - r0)];
        a = red.combine(a, red.piece<T>(v + (e - begin), stop - e));
        e = stop;
      }
    });
    for (int64_t r = r0; r < r1; ++r) result[r] = red.finish<T>(acc[static_cast<size_t>(r - r0)]);
  });
}

}  // namespace

void fused_elementwise_kernel_cpu(const FusedProgram& p, const std::vector<Tensor>& inputs,
                                  const std::vector<Tensor>& outputs) {
  if (p.dtype == ScalarType::Float) {
    run_program<float>(p, inputs, outputs);
  } else {
    EMBER_CHECK(p.dtype == ScalarType::Double, "fused_elementwise(): expected a float32 or float64 "
                "program, but got ", p.dtype);
    run_program<double>(p, inputs, outputs);
  }
}

EMBER_CPU_NAMESPACE_END
}  // namespace ember::native
