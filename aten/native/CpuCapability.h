#pragma once
/// CPU capabilities: the instruction sets the CPU kernels are compiled for, and the one
/// this process runs them with.
///
/// Note [CPU capabilities]: every kernel file in aten/native/cpu/ is compiled once per
/// capability: baseline x86-64 (the library's own flags), AVX2 (x86-64-v3) and AVX-512
/// (x86-64-v4, 512-bit vectors). The baseline copy defines its kernels in ember::native,
/// matching NativeFunctions.h; the others put the same definitions in
/// ember::native::cpu_avx2 / cpu_avx512 (EMBER_CPU_NAMESPACE_BEGIN/END). The generated
/// CPU registrations declare those copies weak and pick one per kernel when the library
/// loads (pick_cpu_kernel): a kernel with no copy for the capability (its file is not in
/// aten/native/cpu/, or the build has none) resolves to null and the baseline one runs.
/// So one indirect call chooses, nothing per element, and a kernel file needs nothing
/// but the namespace macros. A kernel-file function that code compiled once calls directly
/// (not through the dispatcher) is declared with EMBER_DECLARE_CPU_KERNEL and called
/// through EMBER_CPU_KERNEL(name), which picks the same way. Headers the kernel files include for their loops (Loops.h,
/// Vectorized.h) also sit inside the macros: their inline functions differ per ISA and
/// must not be merged across copies. Inline functions of other headers (c10's) can be
/// emitted by every copy; the linker keeps the first, and the baseline objects come
/// first on the link line (CMakeLists.txt), so the kept one runs on any x86-64.
/// The capability is the best both the CPU (CPUID) and the build support, lowered by
/// EMBER_CPU_CAPABILITY=default|avx2|avx512; it is fixed for the life of the process.

#include <cstdint>

#include "c10/macros/Export.h"

namespace ember {

enum class CpuCapability : uint8_t { Default = 0, AVX2 = 1, AVX512 = 2 };

/// The capability this process runs its CPU kernels with.
EMBER_API CpuCapability cpu_capability();
/// The best capability this CPU supports (ignoring EMBER_CPU_CAPABILITY).
EMBER_API CpuCapability native_cpu_capability();
/// "DEFAULT", "AVX2" or "AVX512" (PyTorch's spelling in torch.backends.cpu).
EMBER_API const char* cpu_capability_name(CpuCapability c);
/// Whether this build compiled its kernels for `c` (Default always).
EMBER_API bool cpu_capability_compiled(CpuCapability c);

/// The kernel to run: the copy of `cpu_capability()` when it exists (non-null), else the
/// best lower one present; `base` always exists.
template <class F>
F pick_cpu_kernel(F base, F avx2, F avx512) {
  const CpuCapability c = cpu_capability();
  if (c >= CpuCapability::AVX512 && avx512) return avx512;
  if (c >= CpuCapability::AVX2 && avx2) return avx2;
  return base;
}

}  // namespace ember

// Opens/closes the namespace of the capability being compiled, inside ember::native
// (Note [CPU capabilities]).
#if defined(EMBER_CPU_CAPABILITY_AVX512)
#define EMBER_CPU_NAMESPACE_BEGIN namespace cpu_avx512 {
#define EMBER_CPU_NAMESPACE_END }
#elif defined(EMBER_CPU_CAPABILITY_AVX2)
#define EMBER_CPU_NAMESPACE_BEGIN namespace cpu_avx2 {
#define EMBER_CPU_NAMESPACE_END }
#else
#define EMBER_CPU_NAMESPACE_BEGIN
#define EMBER_CPU_NAMESPACE_END
#endif

/// Whether this translation unit is a wide-vector copy (AVX2 or AVX-512) of a kernel file.
/// A file may keep only its float loops in the wide copies and send the other dtypes to
/// the baseline copy (Note [Reduction copies], Note [Binary copies]).
namespace ember {
#if defined(EMBER_CPU_CAPABILITY_AVX2) || defined(EMBER_CPU_CAPABILITY_AVX512)
inline constexpr bool kWideCpuCopy = true;
#else
inline constexpr bool kWideCpuCopy = false;
#endif
}  // namespace ember

/// Declares kernel `name` of ember::native and its capability copies (inside namespace
/// ember::native; Note [CPU capabilities]).
#define EMBER_DECLARE_CPU_KERNEL(ret, name, params)     \
  ret name params;                                      \
  namespace cpu_avx2 {                                  \
  [[gnu::weak]] ret name params;                        \
  }                                                     \
  namespace cpu_avx512 {                                \
  [[gnu::weak]] ret name params;                        \
  }
/// The copy of kernel `name` (declared by EMBER_DECLARE_CPU_KERNEL) for this process.
#define EMBER_CPU_KERNEL(name) \
  ::ember::pick_cpu_kernel(&::ember::native::name, &::ember::native::cpu_avx2::name, \
                           &::ember::native::cpu_avx512::name)
