// The CUDA goals that C++ can measure on its own (scripts/gpu_check runs it on a GPU
// machine): the device-to-device copy bandwidth, add of 256M float32 with out= against
// it, and the per-op time of a small add (launch overhead). Times are medians of repeats,
// measured with CUDA events on the current stream (per-op times with the host clock).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <vector>

#include "c10/cuda/CudaRuntime.h"
#include "ember/ember.h"

using namespace ember;

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Milliseconds of one run of f on the device, median of `repeats` after a warm-up.
double device_ms(const std::function<void()>& f, int repeats) {
  void* a = cuda::event_create(true, false);
  void* b = cuda::event_create(true, false);
  f();
  std::vector<double> t;
  for (int i = 0; i < repeats; ++i) {
    cuda::event_record(a, cuda::current_stream(0));
    f();
    cuda::event_record(b, cuda::current_stream(0));
    cuda::event_synchronize(b);
    t.push_back(cuda::event_elapsed_ms(a, b));
  }
  cuda::event_destroy(a);
  cuda::event_destroy(b);
  return median(t);
}

}  // namespace

int main() {
  if (cuda::device_count() == 0) {
    std::printf("no CUDA device: %s\n", cuda::unavailable_reason().c_str());
    return 0;
  }
  const auto props = cuda::device_properties(0);
  std::printf("device: %s (sm_%d%d, %zu MiB)\n", props.name.c_str(), props.major, props.minor,
              props.total_memory >> 20);
  const int64_t n = int64_t{256} << 20;
  const auto opts = TensorOptions().device(Device(DeviceType::CUDA, 0));
  Tensor a = ember::ones({n}, opts), b = ember::ones({n}, opts), out = ember::empty({n}, opts);
  const double bytes = static_cast<double>(n) * 4;
  const double copy_ms = device_ms([&] { out.copy_(a); }, 20);
  const double copy_tbs = 2 * bytes / (copy_ms * 1e-3) / 1e12;
  const double add_ms = device_ms([&] { ember::add_out(out, a, b); }, 20);
  const double add_tbs = 3 * bytes / (add_ms * 1e-3) / 1e12;
  std::printf("copy 256M float32 (device to device): %.3f ms, %.2f TB/s (reads + writes)\n", copy_ms, copy_tbs);
  std::printf("add 256M float32, out=: %.3f ms, %.2f TB/s = %.2f of the copy bandwidth (goal >= 0.85)\n", add_ms,
              add_tbs, add_tbs / copy_tbs);
  // Launch overhead: a + b on 1024 elements, host time per op with the queue kept busy.
  Tensor x = ember::ones({1024}, opts), y = ember::ones({1024}, opts);
  std::vector<double> per_op;
  for (int r = 0; r < 7; ++r) {
    cuda::synchronize(0);
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < 2000; ++i) (void)(x + y);
    cuda::synchronize(0);
    per_op.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() / 2000);
  }
  std::printf("small add (1024 float32, C++): %.2f us per op\n", median(per_op));
  return 0;
}
