#include "c10/core/Threads.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <thread>

#include "c10/util/Exception.h"

namespace ember {
namespace {
std::atomic<int> num_threads{0};  // 0: not set

// The leading positive integer of an environment variable (OpenMP's list form "4,2" gives
// 4), or 0 when it is unset or does not start with one.
int threads_from_env(const char* name) {
  const char* v = std::getenv(name);
  if (v == nullptr) return 0;
  char* end = nullptr;
  const long n = std::strtol(v, &end, 10);
  if (end == v || n < 1 || n > 4096 || (*end != '\0' && *end != ',')) return 0;
  return static_cast<int>(n);
}

// The default as PyTorch's: EMBER_NUM_THREADS, else OMP_NUM_THREADS (which torch's OpenMP
// pool honours, so `OMP_NUM_THREADS=1 python train.py` means one thread in both), else the
// hardware's count. Values that are not a positive integer are ignored. Read once: the
// environment and hardware_concurrency() (a sysfs read) are not asked per op.
int default_threads() {
  if (const int n = threads_from_env("EMBER_NUM_THREADS")) return n;
  if (const int n = threads_from_env("OMP_NUM_THREADS")) return n;
  return std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
}
}  // namespace

int get_num_threads() {
  const int n = num_threads.load(std::memory_order_relaxed);
  if (n > 0) return n;
  static const int fallback = default_threads();
  return fallback;
}

void set_num_threads(int n) {
  EMBER_CHECK_VALUE(n >= 1, "set_num_threads(): expected a positive number of threads, but got ", n);
  num_threads.store(n, std::memory_order_relaxed);
}

}  // namespace ember
