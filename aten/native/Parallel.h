#pragma once
/// parallel_for: the one way CPU kernels use several threads (OpenMP underneath).

#include <cstdint>
#include <functional>

#include "c10/macros/Export.h"

namespace ember {

/// Calls f(chunk_begin, chunk_end) over chunks covering [begin, end): on this thread when
/// the range is below grain_size or get_num_threads() is 1, else split evenly across up to
/// get_num_threads() threads (never chunks smaller than grain_size). Exceptions thrown by
/// f reach the caller (the first one, after every chunk has finished).
EMBER_API void parallel_for(int64_t begin, int64_t end, int64_t grain_size,
                            const std::function<void(int64_t, int64_t)>& f);

/// Whether the calling thread is inside a parallel_for chunk (nested calls run serially).
EMBER_API bool in_parallel_region();

}  // namespace ember
