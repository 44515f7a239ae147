#include "c10/core/Threads.h"

#include <algorithm>
#include <atomic>
#include <thread>

#include "c10/util/Exception.h"

namespace ember {
namespace {
std::atomic<int> num_threads{0};  // 0: not set
}  // namespace

int get_num_threads() {
  const int n = num_threads.load(std::memory_order_relaxed);
  if (n > 0) return n;
  // hardware_concurrency() reads sysfs on every call: ask once.
  static const int hw = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  return hw;
}

void set_num_threads(int n) {
  EMBER_CHECK_VALUE(n >= 1, "set_num_threads(): expected a positive number of threads, but got ", n);
  num_threads.store(n, std::memory_order_relaxed);
}

}  // namespace ember
