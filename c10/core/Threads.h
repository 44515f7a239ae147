#pragma once
/// The number of threads CPU kernels may use (torch.set_num_threads / get_num_threads).

#include "c10/macros/Export.h"

namespace ember {

/// Threads CPU kernels may use; the machine's hardware threads until set.
EMBER_API int get_num_threads();
/// Sets the thread count for later kernels; throws ValueError unless n >= 1.
EMBER_API void set_num_threads(int n);

}  // namespace ember
