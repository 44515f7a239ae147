"""ember.backends.cpu: the instruction set the CPU kernels run with."""
from ember import _C


def get_cpu_capability() -> str:
    """"DEFAULT", "AVX2" or "AVX512": the best the CPU and the build support, lowered by the
    EMBER_CPU_CAPABILITY environment variable (default|avx2|avx512) when the process starts."""
    return _C._get_cpu_capability()
