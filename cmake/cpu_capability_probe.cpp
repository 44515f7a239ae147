// Prints the widest kernel copy this machine runs (the test of aten/native/CpuCapability.cpp's
// detect()): configure time's answer for EMBER_CPU_COPIES=host.
#include <cstdio>

int main() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq") &&
      __builtin_cpu_supports("avx512cd")) {
    std::puts("avx512");
    return 0;
  }
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && __builtin_cpu_supports("bmi2")) {
    std::puts("avx2");
    return 0;
  }
#endif
  std::puts("default");
  return 0;
}
