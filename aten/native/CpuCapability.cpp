// CPU capability detection (Note [CPU capabilities]).
#include "aten/native/CpuCapability.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace ember {
namespace {

CpuCapability detect() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq") &&
      __builtin_cpu_supports("avx512cd")) {
    return CpuCapability::AVX512;
  }
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
      __builtin_cpu_supports("bmi2")) {
    return CpuCapability::AVX2;
  }
#endif
  return CpuCapability::Default;
}

// The best capability both the CPU and this build have; EMBER_CPU_CAPABILITY lowers it; asking for more than the CPU has, or a
// value that is not a capability, is reported once on stderr and ignored (this runs while
// the library loads, where an exception could not be caught).
CpuCapability choose() {
  CpuCapability best = native_cpu_capability();
  while (!cpu_capability_compiled(best)) best = static_cast<CpuCapability>(static_cast<int>(best) - 1);
  const char* env = std::getenv("EMBER_CPU_CAPABILITY");
  if (!env || !*env) return best;
  CpuCapability want;
  if (std::strcmp(env, "default") == 0) want = CpuCapability::Default;
  else if (std::strcmp(env, "avx2") == 0) want = CpuCapability::AVX2;
  else if (std::strcmp(env, "avx512") == 0) want = CpuCapability::AVX512;
  else {
    std::fprintf(stderr, "ember: EMBER_CPU_CAPABILITY='%s' is not one of default, avx2, avx512; "
                 "using %s\n", env, cpu_capability_name(best));
    return best;
  }
  if (want > best) {
    std::fprintf(stderr, "ember: EMBER_CPU_CAPABILITY='%s' is beyond this CPU; using %s\n", env,
                 cpu_capability_name(best));
    return best;
  }
  return want;
}

}  // namespace

CpuCapability native_cpu_capability() {
  static const CpuCapability c = detect();
  return c;
}

CpuCapability cpu_capability() {
  static const CpuCapability c = choose();
  return c;
}

const char* cpu_capability_name(CpuCapability c) {
  switch (c) {
    case CpuCapability::AVX512: return "AVX512";
    case CpuCapability::AVX2: return "AVX2";
    case CpuCapability::Default: break;
  }
  return "DEFAULT";
}

bool cpu_capability_compiled(CpuCapability c) {
  switch (c) {
#ifdef EMBER_HAVE_CPU_AVX512
    case CpuCapability::AVX512: return true;
#endif
#ifdef EMBER_HAVE_CPU_AVX2
    case CpuCapability::AVX2: return true;
#endif
    case CpuCapability::Default: return true;
    default: return false;
  }
}

}  // namespace ember
