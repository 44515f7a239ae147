#pragma once
/// The argument checks the linear-algebra ops share: each raises naming the op and the
/// argument, before anything is written.

#include "c10/core/Tensor.h"
#include "c10/util/Exception.h"

namespace ember::native::linalg_checks {

/// A float32 or float64 tensor (what LAPACK and the composites over it compute in).
inline void check_dtype(const char* op, const char* arg, const Tensor& t) {
  const ScalarType dt = t.scalar_type();
  EMBER_CHECK(dt == ScalarType::Float || dt == ScalarType::Double, op, "(): expected '", arg,
              "' to be a float32 or float64 tensor, but got ", dt);
}

/// A (batch of) float32/float64 matrices.
inline void check_matrix(const char* op, const char* arg, const Tensor& t) {
  EMBER_CHECK(t.dim() >= 2, op, "(): expected '", arg, "' to have at least 2 dimensions, but got a ",
              t.dim(), "-d tensor");
  check_dtype(op, arg, t);
}

/// A (batch of) square float32/float64 matrices.
inline void check_square(const char* op, const char* arg, const Tensor& t) {
  check_matrix(op, arg, t);
  EMBER_CHECK(t.size(-1) == t.size(-2), op, "(): expected '", arg, "' to be a batch of square "
              "matrices, but got shape ", t.sizes());
}

inline void check_same_dtype(const char* op, const Tensor& a, const char* an, const Tensor& b,
                             const char* bn) {
  EMBER_CHECK(a.scalar_type() == b.scalar_type(), op, "(): expected '", an, "' and '", bn,
              "' to have the same dtype, but got ", a.scalar_type(), " and ", b.scalar_type());
}

}  // namespace ember::native::linalg_checks
