#pragma once
/// The order in which a dense tensor's dimensions are laid out in memory.

#include <cstdint>
#include <optional>
#include <string_view>

namespace ember {

/// `memory_format=` values; boxed as an int, as in PyTorch.
enum class MemoryFormat : int8_t { Contiguous, Preserve, ChannelsLast, ChannelsLast3d };

/// The number of MemoryFormat values.
inline constexpr int kNumMemoryFormats = 4;

/// The name in schema defaults (`memory_format=contiguous_format`) and in Python
/// (`ember.contiguous_format`): "contiguous_format", "preserve_format", "channels_last",
/// "channels_last_3d".
constexpr const char* memory_format_name(MemoryFormat m) {
  switch (m) {
    case MemoryFormat::Contiguous: return "contiguous_format";
    case MemoryFormat::Preserve: return "preserve_format";
    case MemoryFormat::ChannelsLast: return "channels_last";
    case MemoryFormat::ChannelsLast3d: return "channels_last_3d";
  }
  return "invalid";
}

/// The format memory_format_name spells `name`, if any.
constexpr std::optional<MemoryFormat> parse_memory_format(std::string_view name) {
  for (int i = 0; i < kNumMemoryFormats; ++i) {
    const auto m = static_cast<MemoryFormat>(i);
    if (name == memory_format_name(m)) return m;
  }
  return std::nullopt;
}

}  // namespace ember
