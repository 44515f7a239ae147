#pragma once
/// Reductions: the loop nest of one reduction (ReducePlan), built from an input and the
/// dimensions it reduces, the CPU kernel that runs a ReduceKind over it, and the dtype
/// rules and meta helpers of the reductions written as functors (Note [Reduction functors]
/// in cpu/reduce.cpp).
///
/// Note [Reduction plan]: a reduction reads an input of any strides and writes one element
/// per output position (the input's shape with the reduced dimensions removed). The plan
/// splits the input's dimensions into reduced ones and kept ones, drops size-1 dimensions,
/// orders each group fastest first by input stride and merges neighbours that step as one
/// (in the input, and for kept dimensions in the output too). Strides are in elements; an
/// output offset is the same for every output of a call (outputs are contiguous tensors of
/// one shape). The kernel picks one of two walks:
///   - inner: the fastest input dimension is reduced. Each output reduces runs along it
///     (vectorisable lane accumulators; cascade sums), outputs split across threads.
///   - vertical: the fastest input dimension is kept. A block of neighbouring outputs
///     accumulates whole rows of the input (a 4096x4096 sum over dim 0 streams rows, it
///     does not stride down columns), blocks split across threads.
/// A few long reductions (a full sum) split the reduced range into fixed-size chunks whose
/// partial results combine pairwise: the chunks do not depend on the thread count, so
/// results are the same for any number of threads.

#include <array>
#include <cstdint>
#include <optional>

#include "aten/native/CpuCapability.h"
#include "c10/core/Tensor.h"
#include "c10/core/TensorMeta.h"
#include "c10/util/DimVector.h"

namespace ember::native {

/// One dimension of a ReducePlan: its size and element strides in the input and output
/// (0 in the output for a reduced dimension).
struct ReduceDim {
  int64_t size = 1;
  int64_t in_stride = 0;
  int64_t out_stride = 0;
};

/// The most dimensions a plan holds (a tensor's dimensions, before merging).
inline constexpr int kMaxReduceDims = 16;

/// The loop nest of one reduction (Note [Reduction plan]).
struct ReducePlan {
  std::array<ReduceDim, kMaxReduceDims> reduced{};  ///< fastest first
  std::array<ReduceDim, kMaxReduceDims> kept{};     ///< fastest first
  int n_reduced = 0;
  int n_kept = 0;
  int64_t numel_reduced = 1;  ///< elements reduced into each output
  int64_t numel_out = 1;      ///< outputs
  /// Whether the fastest input dimension is reduced (the inner walk), else the vertical walk.
  bool inner = true;
};

/// The plan for reducing `self` over the dimensions in `mask` (bit d set: dimension d
/// reduced) into contiguous outputs.
EMBER_API ReducePlan make_reduce_plan(const Tensor& self, uint64_t mask);

/// What a reduction computes. Each kind's input dtype is the computation's dtype (the front
/// ends convert first) and its outputs are contiguous, of the dtypes listed.
enum class ReduceKind {
  Sum,           ///< out: self's dtype; scale multiplies the sum (mean)
  NanSum,        ///< as Sum, NaN counted as 0
  Prod,          ///< out: self's dtype
  Max,           ///< out: self's dtype; NaN propagates
  Min,           ///< out: self's dtype; NaN propagates
  All,           ///< out: bool or uint8
  Any,           ///< out: bool or uint8
  CountNonzero,  ///< out: int64
  NotNanCount,   ///< out: self's dtype, the count of non-NaN elements (nanmean)
  ArgMax,        ///< out: int64, the first index of the maximum (or of the first NaN)
  ArgMin,        ///< out: int64
  MaxWithIndex,  ///< outs: self's dtype, int64
  MinWithIndex,  ///< outs: self's dtype, int64
  MinMax,        ///< outs: self's dtype (min), self's dtype (max)
  NormP,         ///< out: self's real dtype; (sum |x|^p)^(1/p), p = 0, 1, 2, inf, -inf or any
  SquaredDeviation,  ///< out: self's real dtype; scale * sum |x - center|^2, sqrt if root
  ExpShifted,    ///< out: self's dtype; log(sum exp(x - center)) + center (logsumexp)
};

/// The arguments of one reduction kernel call.
struct ReduceArgs {
  ReduceKind kind = ReduceKind::Sum;
  const Tensor* self = nullptr;
  std::array<const Tensor*, 2> outs{};  ///< contiguous, of the plan's output shape
  /// Per-output values of SquaredDeviation (the mean) and ExpShifted (the maximum): a
  /// contiguous tensor of the outputs' shape, in the computation's accumulation dtype
  /// (float32 for 16-bit floats; the real dtype's complex for complex inputs).
  const Tensor* center = nullptr;
  double scale = 1.0;  ///< multiplies Sum and SquaredDeviation results
  double p = 2.0;      ///< NormP's order
  bool root = false;   ///< SquaredDeviation: the square root (std)
};

/// Runs a reduction on the CPU (aten/native/cpu/reduce.cpp).
EMBER_DECLARE_CPU_KERNEL(void, reduce_kernel_cpu, (const ReduceArgs& args, const ReducePlan& plan))

/// The CUDA reduction kernel (aten/native/cuda/reduce.cu, Note [CUDA reductions]), which
/// libember_cuda installs when it loads; run_reduction calls it for CUDA tensors.
using ReduceKernelFn = void (*)(const ReduceArgs& args, const ReducePlan& plan);
EMBER_API void set_cuda_reduce_kernel(ReduceKernelFn kernel);

// ---- shared by the reduction front ends (aten/native/reduce.cpp) ----------------------------

/// dim wrapped into [0, ndim) (a 0-d tensor takes 0 and -1); IndexError otherwise.
int64_t wrap_dim(int64_t dim, int64_t ndim);
/// The reduced dimensions as a bit mask: all of them for none or an empty list; IndexError
/// for one out of range, RuntimeError for one given twice.
uint64_t dim_mask(const Tensor& self, std::optional<IntArrayRef> dims);
/// self's sizes without the reduced dimensions (size 1 with keepdim).
DimVector reduced_sizes(const Tensor& self, uint64_t mask, bool keepdim);
/// Refuses a reduced dimension of size 0 ("<op>(): Expected reduction dim d to have non-zero
/// size."), as IndexError or RuntimeError as PyTorch raises it for op.
void check_nonempty_dims(const Tensor& self, uint64_t mask, const char* op, bool index_error);
/// Copies a result into out (converting); RuntimeError for an out whose elements share
/// memory (a stride-0 dimension).
void copy_into_out(const Tensor& out, const Tensor& result);
/// RuntimeError unless out has dtype `expected`.
void check_out_dtype(const Tensor& out, ScalarType expected);
/// Runs args over self's dimensions in mask into n_outs (1 or 2) results of the given
/// dtypes, written into outs[i] when given (resized, converted), else new tensors.
std::array<Tensor, 2> run_reduction(ReduceArgs args, const Tensor& self, uint64_t mask,
                                    bool keepdim, std::array<ScalarType, 2> dtypes,
                                    std::array<const Tensor*, 2> outs, int n_outs);
/// run_reduction with one output.
Tensor reduce_one(ReduceKind kind, const Tensor& self, uint64_t mask, bool keepdim,
                  ScalarType dtype, const Tensor* out, double scale);
/// The real dtype of t: float32 for complex64, float64 for complex128, else t itself.
ScalarType real_of(ScalarType t);

// ---- the functor path (Note [Reduction functors] in cpu/reduce.cpp) -------------------------

/// The dtype rule of a reduction functor: which input dtypes it takes, and its result's.
enum class ReduceDtypes {
  Same,    ///< any dtype; the result has self's dtype
  ToReal,  ///< floating and complex dtypes (RuntimeError otherwise); the result is the real dtype
};

/// The result dtype of rule r for an input of dtype t; RuntimeError naming op when r refuses t.
ScalarType reduce_result_type(ReduceDtypes r, const char* op, ScalarType t);

/// The meta of a reduction of self over dim (all dimensions for []): the reduced sizes
/// (size 1 with keepdim), rule r's dtype, and an out= that must have that dtype exactly.
EMBER_API TensorMeta reduce_op_meta(ReduceDtypes r, const char* op, const Tensor& self,
                                    IntArrayRef dim, bool keepdim);

// The meta helpers of the YAML's `meta:` key (Note [Shared meta helpers] in codegen/model.py),
// one per rule, for `(Tensor self, int[1] dim, bool keepdim=False)`.
/// reduce_op_meta with rule Same (`meta: reduce_same_meta`).
TensorMeta reduce_same_meta(const char* op, const Tensor& self, IntArrayRef dim, bool keepdim);
/// reduce_op_meta with rule ToReal (`meta: reduce_to_real_meta`).
TensorMeta reduce_to_real_meta(const char* op, const Tensor& self, IntArrayRef dim, bool keepdim);

}  // namespace ember::native
