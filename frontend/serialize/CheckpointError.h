#pragma once
/// The error ember::load raises for a file it cannot read.

#include "c10/util/Exception.h"

namespace ember::serialize {

/// A checkpoint that load() cannot read: foreign, truncated, corrupted, or naming globals
/// outside the weights-only subset; or a value that does not fit what it is loaded into.
/// Its Python counterpart is ember.serialization.CheckpointError (a RuntimeError).
class EMBER_API CheckpointError : public Error { using Error::Error; };

}  // namespace ember::serialize

/// Raises ember::serialize::CheckpointError with "load(): " and the message unless cond.
#define EMBER_CHECK_CHECKPOINT(cond, ...) \
  EMBER_CHECK_IMPL(::ember::serialize::CheckpointError, cond, "load(): ", __VA_ARGS__)
