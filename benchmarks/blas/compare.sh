#!/usr/bin/env bash
# Builds gemm_candidates.cpp against each BLAS candidate (MKL 2026.2; OpenBLAS 0.3.34
# from scipy-openblas64 and oneDNN 3.13's sgemm from a side virtualenv, build/blas-candidates,
# and Debian's oneDNN 2.6,
# made on first use: oneDNN 3's headers must stay out of .venv, whose include directory the
# build uses beside Debian's oneDNN 2.6) and prints their timings at 1 and 2 threads beside
# PyTorch's matmul on the same shapes.   benchmarks/blas/compare.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
V=$PWD/.venv
C=$PWD/build/blas-candidates
if [ ! -x "$C/bin/python" ]; then
  python3 -m venv "$C"
fi
if [ ! -f "$C/lib/libmkl_core.so.3" ]; then
  "$C/bin/python" -m pip install -q "onednn-devel==2026.1.0" "scipy-openblas64==0.3.34.481.3" "mkl-devel==2026.2.0"
fi
OB=$C/lib/python3.11/site-packages/scipy_openblas64/lib
out=$(mktemp -d)
src=benchmarks/blas/gemm_candidates.cpp
g++ -O2 -std=c++20 -DUSE_MKL -I"$C/include" "$src" -o "$out/mkl" -L"$C/lib" -Wl,-rpath,"$C/lib" \
  -l:libmkl_intel_lp64.so.3 -l:libmkl_gnu_thread.so.3 -l:libmkl_core.so.3 -fopenmp
g++ -O2 -std=c++20 -DUSE_OPENBLAS "$src" -o "$out/openblas" -L"$OB" -Wl,-rpath,"$OB" -lscipy_openblas64_
g++ -O2 -std=c++20 -DUSE_DNNL -I"$C/include" "$src" -o "$out/onednn" -L"$C/lib" -Wl,--disable-new-dtags,-rpath,"$C/lib" -ldnnl
# Debian's oneDNN 2.6 (libdnnl-dev, OpenMP): the one Ember links (Note [float32 GEMM]).
g++ -O2 -std=c++20 -DUSE_DNNL '-DDNNL_NAME="onednn2.6"' -I/usr/include "$src" -o "$out/onednn26" -L/usr/lib/x86_64-linux-gnu -ldnnl -fopenmp
# One thread runs pinned to one core: oneDNN's PyPI build threads with TBB, which ignores
# OMP_NUM_THREADS but keeps to the process's CPU affinity.
for t in 1 2; do
  pin=(); [ "$t" = 1 ] && pin=(taskset -c 0)
  for lib in mkl openblas onednn onednn26; do "${pin[@]}" "$out/$lib" $t; done
  "${pin[@]}" "$V/bin/python" - "$t" <<'PY'
import sys, time, torch
t = int(sys.argv[1]); torch.set_num_threads(t)
cases = [("matmul512", 1, 512, 512, 512), ("matmul1024", 1, 1024, 1024, 1024),
         ("matmul2048", 1, 2048, 2048, 2048), ("bmm64x128", 64, 128, 128, 128),
         ("linear128x784x512", 1, 128, 512, 784), ("lstmstep32x1024x256", 1, 32, 1024, 256)]
for name, b, m, n, k in cases:
    x = torch.randn(b, m, k); w = torch.randn(b, k, n)
    flops = 2.0 * b * m * n * k; reps = max(3, int(2e9 / flops)); ms = []
    for r in range(reps + 2):
        t0 = time.perf_counter(); torch.matmul(x, w); t1 = time.perf_counter()
        if r >= 2: ms.append((t1 - t0) * 1e3)
    ms.sort(); med = ms[len(ms) // 2]
    print(f"torch {name} {t} {med:.3f} {flops / med / 1e6:.1f}")
PY
done
rm -rf "$out"
