#include "aten/native/Parallel.h"

#include <omp.h>

#include <algorithm>
#include <exception>
#include <mutex>

#include "c10/core/Threads.h"

namespace ember {

bool in_parallel_region() { return omp_in_parallel() != 0; }

void parallel_for(int64_t begin, int64_t end, int64_t grain_size,
                  const std::function<void(int64_t, int64_t)>& f) {
  const int64_t n = end - begin;
  if (n <= 0) return;
  const int64_t grain = std::max<int64_t>(grain_size, 1);
  if (n <= grain) {
    f(begin, end);
    return;
  }
  const int max_threads = get_num_threads();
  if (max_threads <= 1 || in_parallel_region()) {
    f(begin, end);
    return;
  }
  const int threads = static_cast<int>(std::min<int64_t>(max_threads, (n + grain - 1) / grain));
  std::exception_ptr error;
  std::mutex error_mutex;
#pragma omp parallel num_threads(threads)
  {
    const int64_t t = omp_get_thread_num();
    const int64_t nt = omp_get_num_threads();
    const int64_t chunk = (n + nt - 1) / nt;
    const int64_t b = begin + t * chunk;
    const int64_t e = std::min(end, b + chunk);
    if (b < e) {
      try {
        f(b, e);
      } catch (...) {
        std::lock_guard<std::mutex> lock(error_mutex);
        if (!error) error = std::current_exception();
      }
    }
  }
  if (error) std::rethrow_exception(error);
}

}  // namespace ember
