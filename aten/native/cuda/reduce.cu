// The reductions on CUDA (Note [CUDA reductions]): the CPU's front ends (aten/native/reduce.cpp:
// sum, mean, prod, max/min/argmax, amax, all/any, norms, var/std, logsumexp) plan the loop
// nest (Note [Reduction plan]) and call this kernel for CUDA tensors through the hook that
// libember_cuda installs (set_cuda_reduce_kernel, aten/native/Reduce.h).
//
// Note [CUDA reductions]: one block per output. Each thread folds the reduced elements
// r = threadIdx.x, threadIdx.x + blockDim.x, ... (offsets from the plan's reduced
// dimensions), then the block folds its threads' partial results in shared memory. Sums
// accumulate in float32 for the 16-bit floats and float32 (as PyTorch's CUDA sums), in
// float64 for float64, in the type itself for integers. An index reduction reduces a single
// dimension (the front ends flatten for dim=None), so r is the index; ties keep the first
// index, and NaN wins (the first NaN), as on the CPU.
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "aten/native/Reduce.h"
#include "aten/native/cuda/CudaDispatch.h"
#include "aten/native/cuda/CudaUtils.h"
#include "aten/native/cuda/Loops.cuh"

namespace ember::native {
namespace {

using cuda::OpMath;

struct DevicePlan {
  int n_reduced = 0, n_kept = 0;
  int64_t numel_reduced = 1;
  int64_t r_size[kMaxReduceDims], r_stride[kMaxReduceDims];
  int64_t k_size[kMaxReduceDims], k_in[kMaxReduceDims], k_out[kMaxReduceDims];
};

DevicePlan device_plan(const ReducePlan& p) {
  DevicePlan d;
  d.n_reduced = p.n_reduced;
  d.n_kept = p.n_kept;
  d.numel_reduced = p.numel_reduced;
  for (int i = 0; i < p.n_reduced; ++i) {
    d.r_size[i] = p.reduced[static_cast<size_t>(i)].size;
    d.r_stride[i] = p.reduced[static_cast<size_t>(i)].in_stride;
  }
  for (int i = 0; i < p.n_kept; ++i) {
    d.k_size[i] = p.kept[static_cast<size_t>(i)].size;
    d.k_in[i] = p.kept[static_cast<size_t>(i)].in_stride;
    d.k_out[i] = p.kept[static_cast<size_t>(i)].out_stride;
  }
  return d;
}

template <class T>
__device__ bool is_nan(T v) {
  if constexpr (std::is_floating_point_v<T>) return v != v;
  else return false;
}

// Each op: Acc, identity(), map(x, r, out_offset), combine(a, b), write(out_offset, acc).
template <class T>
struct SumOp {
  using Acc = std::conditional_t<std::is_same_v<T, bool>, int64_t, OpMath<T>>;
  T* out;
  Acc scale;
  bool nan_as_zero, count_not_nan;
  __device__ Acc identity() const { return Acc(0); }
  __device__ Acc map(T x, int64_t, int64_t) const {
    const Acc v = static_cast<Acc>(static_cast<OpMath<T>>(x));
    if (count_not_nan) return is_nan(v) ? Acc(0) : Acc(1);
    if (nan_as_zero && is_nan(v)) return Acc(0);
    return v;
  }
  __device__ Acc combine(Acc a, Acc b) const { return a + b; }
  __device__ void write(int64_t o, Acc a) const {
    if constexpr (std::is_floating_point_v<Acc>) out[o] = static_cast<T>(a * scale);
    else out[o] = static_cast<T>(a);
  }
};

template <class T>
struct ProdOp {
  using Acc = OpMath<T>;
  T* out;
  __device__ Acc identity() const { return Acc(1); }
  __device__ Acc map(T x, int64_t, int64_t) const { return static_cast<Acc>(x); }
  __device__ Acc combine(Acc a, Acc b) const {
    if constexpr (std::is_same_v<Acc, bool>) return a && b;
    else return a * b;
  }
  __device__ void write(int64_t o, Acc a) const { out[o] = static_cast<T>(a); }
};

// Max / Min (NaN propagates), with or without the index; MinMax writes both extremes.
template <class T, bool kMax, bool kIndex>
struct ExtremeOp {
  struct Acc {
    OpMath<T> v;
    int64_t i;
    bool valid;
  };
  T* out;
  int64_t* index;  // null without kIndex
  bool index_only;
  __device__ Acc identity() const { return Acc{OpMath<T>(0), 0, false}; }
  __device__ Acc map(T x, int64_t r, int64_t) const { return Acc{static_cast<OpMath<T>>(x), r, true}; }
  __device__ Acc combine(Acc a, Acc b) const {
    if (!a.valid) return b;
    if (!b.valid) return a;
    const bool an = is_nan(a.v), bn = is_nan(b.v);
    if (an || bn) {
      if (an && bn) return a.i <= b.i ? a : b;
      return an ? a : b;
    }
    const bool better = kMax ? b.v > a.v : b.v < a.v;
    if (better) return b;
    if (b.v == a.v && b.i < a.i) return b;
    return a;
  }
  __device__ void write(int64_t o, Acc a) const {
    if (!index_only) out[o] = static_cast<T>(a.v);
    if constexpr (kIndex) index[o] = a.i;
  }
};

template <class T>
struct MinMaxOp {
  struct Acc {
    OpMath<T> lo, hi;
    bool valid;
  };
  T* lo;
  T* hi;
  __device__ Acc identity() const { return Acc{OpMath<T>(0), OpMath<T>(0), false}; }
  __device__ Acc map(T x, int64_t, int64_t) const {
    const auto v = static_cast<OpMath<T>>(x);
    return Acc{v, v, true};
  }
  __device__ Acc combine(Acc a, Acc b) const {
    if (!a.valid) return b;
    if (!b.valid) return a;
    Acc r{a.lo, a.hi, true};
    r.lo = (is_nan(a.lo) || is_nan(b.lo)) ? (is_nan(a.lo) ? a.lo : b.lo) : (b.lo < a.lo ? b.lo : a.lo);
    r.hi = (is_nan(a.hi) || is_nan(b.hi)) ? (is_nan(a.hi) ? a.hi : b.hi) : (b.hi > a.hi ? b.hi : a.hi);
    return r;
  }
  __device__ void write(int64_t o, Acc a) const {
    lo[o] = static_cast<T>(a.lo);
    hi[o] = static_cast<T>(a.hi);
  }
};

// All / Any (bool or uint8 results), CountNonzero (int64).
template <class T, class Out>
struct LogicalOp {
  using Acc = int64_t;
  Out* out;
  int mode;  // 0 all, 1 any, 2 count
  __device__ Acc identity() const { return mode == 0 ? 1 : 0; }
  __device__ Acc map(T x, int64_t, int64_t) const { return static_cast<OpMath<T>>(x) != OpMath<T>(0) ? 1 : 0; }
  __device__ Acc combine(Acc a, Acc b) const { return mode == 0 ? (a && b) : mode == 1 ? (a || b) : a + b; }
  __device__ void write(int64_t o, Acc a) const { out[o] = static_cast<Out>(a); }
};

// p-norms: 0 (nonzero count), 1, 2, inf, -inf and general p, of the real dtypes.
template <class T>
struct NormOp {
  using Acc = OpMath<T>;
  T* out;
  Acc p;
  __device__ Acc identity() const {
    if (isinf(p)) return p > 0 ? Acc(0) : std::numeric_limits<Acc>::infinity();
    return Acc(0);
  }
  __device__ Acc map(T x, int64_t, int64_t) const {
    const Acc a = fabs(static_cast<Acc>(x));
    if (isinf(p)) return a;
    if (p == 0) return a != Acc(0) ? Acc(1) : Acc(0);
    if (p == 1) return a;
    if (p == 2) return a * a;
    return pow(a, p);
  }
  __device__ Acc combine(Acc a, Acc b) const {
    if (isinf(p)) {
      if (is_nan(a) || is_nan(b)) return is_nan(a) ? a : b;
      return p > 0 ? (b > a ? b : a) : (b < a ? b : a);
    }
    return a + b;
  }
  __device__ void write(int64_t o, Acc a) const {
    if (isinf(p) || p == 0 || p == 1) out[o] = static_cast<T>(a);
    else if (p == 2) out[o] = static_cast<T>(sqrt(a));
    else out[o] = static_cast<T>(pow(a, Acc(1) / p));
  }
};

// var/std: scale * sum (x - center)^2 (sqrt if root); logsumexp: log(sum exp(x - c)) + c.
template <class T>
struct CenteredOp {
  using Acc = OpMath<T>;
  T* out;
  const Acc* center;
  Acc scale;
  bool root, logsumexp;
  __device__ Acc identity() const { return Acc(0); }
  __device__ Acc map(T x, int64_t, int64_t o) const {
    const Acc d = static_cast<Acc>(x) - center[o];
    if (logsumexp) return isinf(center[o]) ? Acc(0) : exp(d);
    return d * d;
  }
  __device__ Acc combine(Acc a, Acc b) const { return a + b; }
  __device__ void write(int64_t o, Acc a) const {
    if (logsumexp) {
      out[o] = static_cast<T>(isinf(center[o]) ? center[o] : log(a) + center[o]);
    } else {
      const Acc v = a * scale;
      out[o] = static_cast<T>(root ? sqrt(v) : v);
    }
  }
};

template <class T, class Op>
__global__ void reduce_kernel(DevicePlan p, const T* in, Op op, int64_t numel_out) {
  using Acc = typename Op::Acc;
  extern __shared__ unsigned char shared_raw[];
  Acc* shared = reinterpret_cast<Acc*>(shared_raw);
  for (int64_t o = blockIdx.x; o < numel_out; o += gridDim.x) {
    int64_t rest = o, in_base = 0, out_off = 0;
    for (int d = 0; d < p.n_kept; ++d) {
      const int64_t i = rest % p.k_size[d];
      rest /= p.k_size[d];
      in_base += i * p.k_in[d];
      out_off += i * p.k_out[d];
    }
    Acc acc = op.identity();
    for (int64_t r = threadIdx.x; r < p.numel_reduced; r += blockDim.x) {
      int64_t left = r, off = in_base;
      for (int d = 0; d < p.n_reduced; ++d) {
        off += (left % p.r_size[d]) * p.r_stride[d];
        left /= p.r_size[d];
      }
      acc = op.combine(acc, op.map(in[off], r, out_off));
    }
    shared[threadIdx.x] = acc;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s /= 2) {
      if (threadIdx.x < s) shared[threadIdx.x] = op.combine(shared[threadIdx.x], shared[threadIdx.x + s]);
      __syncthreads();
    }
    if (threadIdx.x == 0) op.write(out_off, shared[0]);
    __syncthreads();
  }
}

template <class T, class Op>
void run(const ReduceArgs& args, const ReducePlan& plan, const Op& op) {
  if (plan.numel_out == 0) return;
  unsigned threads = 1;
  while (threads < 256 && threads < static_cast<uint64_t>(plan.numel_reduced)) threads *= 2;
  const auto blocks = static_cast<unsigned>(std::min<int64_t>(plan.numel_out, int64_t{1} << 20));
  const cudaStream_t stream = cuda::current_stream_of(*args.self);
  reduce_kernel<T, Op><<<blocks, threads, threads * sizeof(typename Op::Acc), stream>>>(
      device_plan(plan), static_cast<const T*>(args.self->impl()->data()), op, plan.numel_out);
  cuda::check_launch("reduce");
}

template <class T>
T* out_ptr(const ReduceArgs& args, int i) {
  return static_cast<T*>(args.outs[static_cast<size_t>(i)]->impl()->data());
}

[[noreturn]] void unsupported(const char* what, ScalarType t) {
  EMBER_THROW(NotImplementedError, "reduction on CUDA: ", what, " is not implemented for ", t);
}

template <class T>
void reduce_typed(const ReduceArgs& args, const ReducePlan& plan) {
  using A = OpMath<T>;
  constexpr bool floating = std::is_floating_point_v<A>;
  switch (args.kind) {
    case ReduceKind::Sum:
    case ReduceKind::NanSum:
    case ReduceKind::NotNanCount:
      if constexpr (!std::is_same_v<T, bool>) {
        run<T>(args, plan, SumOp<T>{out_ptr<T>(args, 0), static_cast<typename SumOp<T>::Acc>(args.scale),
                                    args.kind == ReduceKind::NanSum, args.kind == ReduceKind::NotNanCount});
        return;
      }
      break;
    case ReduceKind::Prod: run<T>(args, plan, ProdOp<T>{out_ptr<T>(args, 0)}); return;
    case ReduceKind::Max: run<T>(args, plan, ExtremeOp<T, true, false>{out_ptr<T>(args, 0), nullptr, false}); return;
    case ReduceKind::Min: run<T>(args, plan, ExtremeOp<T, false, false>{out_ptr<T>(args, 0), nullptr, false}); return;
    case ReduceKind::ArgMax:
      run<T>(args, plan, ExtremeOp<T, true, true>{nullptr, out_ptr<int64_t>(args, 0), true});
      return;
    case ReduceKind::ArgMin:
      run<T>(args, plan, ExtremeOp<T, false, true>{nullptr, out_ptr<int64_t>(args, 0), true});
      return;
    case ReduceKind::MaxWithIndex:
      run<T>(args, plan, ExtremeOp<T, true, true>{out_ptr<T>(args, 0), out_ptr<int64_t>(args, 1), false});
      return;
    case ReduceKind::MinWithIndex:
      run<T>(args, plan, ExtremeOp<T, false, true>{out_ptr<T>(args, 0), out_ptr<int64_t>(args, 1), false});
      return;
    case ReduceKind::MinMax: run<T>(args, plan, MinMaxOp<T>{out_ptr<T>(args, 0), out_ptr<T>(args, 1)}); return;
    case ReduceKind::All:
    case ReduceKind::Any: {
      const int mode = args.kind == ReduceKind::All ? 0 : 1;
      if (args.outs[0]->scalar_type() == ScalarType::Byte) run<T>(args, plan, LogicalOp<T, uint8_t>{out_ptr<uint8_t>(args, 0), mode});
      else run<T>(args, plan, LogicalOp<T, bool>{out_ptr<bool>(args, 0), mode});
      return;
    }
    case ReduceKind::CountNonzero: run<T>(args, plan, LogicalOp<T, int64_t>{out_ptr<int64_t>(args, 0), 2}); return;
    case ReduceKind::NormP:
      if constexpr (floating) {
        run<T>(args, plan, NormOp<T>{out_ptr<T>(args, 0), static_cast<A>(args.p)});
        return;
      }
      break;
    case ReduceKind::SquaredDeviation:
    case ReduceKind::ExpShifted:
      if constexpr (floating) {
        run<T>(args, plan, CenteredOp<T>{out_ptr<T>(args, 0), static_cast<const A*>(args.center->impl()->data()),
                                         static_cast<A>(args.scale), args.root, args.kind == ReduceKind::ExpShifted});
        return;
      }
      break;
  }
  unsupported("this reduction", args.self->scalar_type());
}

void reduce_kernel_cuda(const ReduceArgs& args, const ReducePlan& plan) {
  cuda::DeviceGuard guard(args.self->device());
  cuda::dispatch_types(args.self->scalar_type(), "reduce", [&](auto tag) {
    reduce_typed<typename decltype(tag)::type>(args, plan);
  });
}

[[maybe_unused]] const bool installed = (set_cuda_reduce_kernel(&reduce_kernel_cuda), true);

}  // namespace
}  // namespace ember::native
