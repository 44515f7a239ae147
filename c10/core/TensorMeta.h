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
};

}  // namespace ember
