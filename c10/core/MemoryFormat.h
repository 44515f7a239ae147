#pragma once
/// The order in which a dense tensor's dimensions are laid out in memory.

#include <cstdint>

namespace ember {

/// `memory_format=` values; boxed as an int, as in PyTorch.
enum class MemoryFormat : int8_t { Contiguous, Preserve, ChannelsLast, ChannelsLast3d };

}  // namespace ember
