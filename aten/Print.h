#pragma once
/// Printing tensors as PyTorch's repr() does: `tensor([[1., 2.]], dtype=torch.float64)`.

#include <cstdint>
#include <optional>
#include <string>

#include "c10/core/Tensor.h"

namespace ember {

/// Print options, with torch.set_printoptions's names and defaults.
struct PrintOptions {
  /// Digits after the decimal point of floating-point values.
  int64_t precision = 4;
  /// Tensors with more elements than this are summarised (`...`); may be infinite.
  double threshold = 1000;
  /// Items shown at each end of a summarised dimension.
  int64_t edgeitems = 3;
  /// Characters per line before a row wraps.
  int64_t linewidth = 80;
  /// Scientific notation forced on or off; unset lets the values decide, as PyTorch does.
  std::optional<bool> sci_mode;
  /// What precedes a dtype's name in `dtype=...` ("torch." as PyTorch prints; the Python
  /// module sets "ember.").
  std::string dtype_prefix = "torch.";
};

/// The options to_string and operator<< use (process-wide, like PyTorch's).
EMBER_API PrintOptions print_options();
/// Replaces the process-wide print options; throws ValueError for a negative field.
EMBER_API void set_print_options(const PrintOptions& options);

/// What repr(t) gives in PyTorch, for a tensor on the CPU or the Meta device.
EMBER_API std::string to_string(const Tensor& t);
/// The same with explicit options (the process-wide ones are left alone).
EMBER_API std::string to_string(const Tensor& t, const PrintOptions& options);

}  // namespace ember
