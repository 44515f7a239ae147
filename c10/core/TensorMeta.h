#pragma once
/// What a structured op's meta function computes for each output: its sizes and dtype.

#include "c10/core/ScalarType.h"
#include "c10/util/DimVector.h"

namespace ember {

/// The shape and dtype of one output (see Note [Structured kernels] in aten/native/Structured.h).
struct TensorMeta {
  DimVector sizes;
  ScalarType dtype = ScalarType::Float;
};

}  // namespace ember
