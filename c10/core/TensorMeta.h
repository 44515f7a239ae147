#pragma once
/// What a structured op's meta function computes for each output: its sizes and dtype.

#include "c10/core/ScalarType.h"
#include "c10/util/DimVector.h"

namespace ember {

/// The shape, dtype and (optionally) strides of one output (see Note [Structured kernels]
/// in aten/native/Structured.h).
struct TensorMeta {
  DimVector sizes;
  ScalarType dtype = ScalarType::Float;
  /// Strides of a new output; empty means contiguous (elementwise ops follow their inputs'
  /// memory order, as PyTorch's TensorIterator does).
  DimVector strides;
  /// Whether an out= tensor must have `dtype` exactly (RuntimeError otherwise), as PyTorch's
  /// structured ops whose result dtype does not follow out's (norms), instead of any dtype
  /// the result casts to.
  bool exact_out_dtype = false;
};

}  // namespace ember
