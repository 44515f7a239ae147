#pragma once
/// The error a linear-algebra op raises for an input its algorithm cannot handle (a singular
/// or non-positive-definite matrix, no convergence): ember.linalg.LinAlgError in Python, a
/// RuntimeError, as PyTorch's torch.linalg.LinAlgError.

#include "c10/util/Exception.h"

namespace ember {

/// A matrix the decomposition or solver cannot handle; maps to ember.linalg.LinAlgError.
class EMBER_API LinAlgError : public Error { using Error::Error; };

}  // namespace ember

/// Raises LinAlgError unless cond holds.
#define EMBER_CHECK_LINALG(cond, ...) EMBER_CHECK_IMPL(::ember::LinAlgError, cond, __VA_ARGS__)
