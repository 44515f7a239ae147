#pragma once
/// The `reduction` argument of losses: an `int` in schemas, as in PyTorch.

#include <cstdint>
#include <optional>
#include <string_view>

namespace ember {

// Note [Reduction enum]: a plain enum in a namespace, as PyTorch's at::Reduction, rather
// than an enum class: the schema type is `int reduction`, so kernels receive an int64_t
// and compare it with `reduction == Reduction::Mean` directly.
namespace Reduction {
/// What a loss returns: the per-element losses, their mean, or their sum.
enum Reduction : int64_t { None = 0, Mean = 1, Sum = 2 };
}  // namespace Reduction

/// The number of Reduction values.
inline constexpr int kNumReductions = 3;

/// The spelling of `reduction=` in Python (ember.nn.functional): "none", "mean", "sum";
/// null for an int that is no Reduction.
constexpr const char* reduction_name(int64_t r) {
  switch (r) {
    case Reduction::None: return "none";
    case Reduction::Mean: return "mean";
    case Reduction::Sum: return "sum";
    default: return nullptr;
  }
}

/// The spelling of a schema default, PyTorch's `int reduction=Mean`: "Mean" or "Sum" (None
/// has none: `None` is the None literal, so the default is written 0).
constexpr const char* reduction_schema_name(int64_t r) {
  switch (r) {
    case Reduction::Mean: return "Mean";
    case Reduction::Sum: return "Sum";
    default: return nullptr;
  }
}

/// The Reduction whose schema spelling is `name` ("Mean", "Sum"), if any.
constexpr std::optional<Reduction::Reduction> parse_reduction_schema_name(std::string_view name) {
  for (int64_t r = 0; r < kNumReductions; ++r) {
    const char* s = reduction_schema_name(r);
    if (s != nullptr && name == s) return static_cast<Reduction::Reduction>(r);
  }
  return std::nullopt;
}

}  // namespace ember
