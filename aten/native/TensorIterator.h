#pragma once
/// Elementwise iteration over broadcast operands, and PyTorch's type promotion.
///
/// Note [TensorIterator]: the operands of an elementwise op (outputs first, then inputs)
/// are broadcast to one shape; each gets byte strides over it (0 where it broadcasts). The
/// dimensions are then ordered fastest first by the operands' strides (PyTorch's
/// reorder_dimensions, so a transposed input is walked in memory order) and neighbours
/// every operand walks as one are merged. for_each() hands a kernel 2-D blocks: `size0`
/// elements along the innermost dimension times `size1` rows, with per-operand strides,
/// splitting the work across threads above a grain size; operands that disagree on the
/// fastest dimension are walked in tiles (Note [Tiles]). Kernels see one dtype per
/// operand; the structured wrappers give them outputs of the computed dtype and shape.

#include <array>
#include <cstdint>
#include <functional>

#include "c10/core/Scalar.h"
#include "c10/core/Tensor.h"
#include "c10/core/TensorMeta.h"
#include "c10/util/DimVector.h"

namespace ember {

/// Collects the dtypes of an op's operands by PyTorch's categories (tensors with
/// dimensions, 0-d tensors, Python/C++ scalars), so that 0-d tensors and scalars only
/// raise the result's category, never its width within a category.
class EMBER_API ResultType {
 public:
  ResultType& add(const Tensor& t);
  ResultType& add(const Scalar& s);
  /// The promoted dtype; Undefined when nothing was added.
  ScalarType get() const;

 private:
  ScalarType dim_ = ScalarType::Undefined;
  ScalarType zero_ = ScalarType::Undefined;
  ScalarType wrapped_ = ScalarType::Undefined;
};

/// The broadcast of two shapes; throws ValueError naming `op` when they do not broadcast.
EMBER_API DimVector broadcast_shapes(IntArrayRef a, IntArrayRef b, const char* op);

/// The meta of an elementwise result: the inputs' broadcast shape, the given dtype and
/// PyTorch's output strides (the inputs' memory order; contiguous when they are).
EMBER_API TensorMeta elementwise_meta(std::initializer_list<const Tensor*> inputs, ScalarType dtype,
                                      const char* op);

/// Refuses an output that would write one memory location twice (a stride-0 dimension),
/// or that partly overlaps an input (full overlap, `a.add_(b)` with out = a, is fine);
/// RuntimeError with PyTorch's message.
EMBER_API void check_output_overlap(const Tensor& out, std::initializer_list<const Tensor*> inputs);

/// A 2-D block of an elementwise loop: data[k] points at operand k's first element,
/// strides[k] / strides[ntensors + k] are its byte strides along the inner / outer
/// dimension.
using Loop2d = std::function<void(char** data, const int64_t* strides, int64_t size0, int64_t size1)>;

class EMBER_API TensorIterator {
 public:
  /// Operands: outputs first (defined, already of the broadcast shape), then inputs; all
  /// must outlive the iterator.
  TensorIterator(std::initializer_list<const Tensor*> outputs,
                 std::initializer_list<const Tensor*> inputs, const char* op);

  int64_t numel() const { return numel_; }
  int ntensors() const { return ntensors_; }
  const Tensor& operand(int i) const { return *operands_[static_cast<size_t>(i)]; }
  /// The iteration shape after reordering and merging (fastest dimension first).
  IntArrayRef shape() const { return shape_; }
  /// Operand i's byte strides over shape().
  IntArrayRef strides(int i) const { return strides_[static_cast<size_t>(i)]; }

  /// Runs loop over every element, on several threads when numel() >= grain_size.
  void for_each(const Loop2d& loop, int64_t grain_size = kGrainSize) const;
  /// Runs loop over the elements [begin, end) of the iteration order, on this thread.
  void serial_for_each(const Loop2d& loop, int64_t begin, int64_t end) const;

  /// Elements below which a loop stays on one thread.
  static constexpr int64_t kGrainSize = 32768;
  /// The most operands an iterator takes.
  static constexpr int kMaxOperands = 4;

 private:
  bool tiled() const;
  void tiled_for_each(const Loop2d& loop, int64_t grain_size) const;

  // The operands are borrowed: an iterator lives within the call that made it. Fixed
  // arrays keep construction free of heap allocations (it runs once per op call).
  std::array<const Tensor*, kMaxOperands> operands_{};
  int ntensors_ = 0;
  DimVector shape_;
  std::array<DimVector, kMaxOperands> strides_;
  int64_t numel_ = 1;
};

}  // namespace ember
