// Included by every libtorch benchmark executable: adds to Google Benchmark's JSON context
// what benchmarks/run.py reports about the reference, namely the torch version and what its
// settings came to (ATEN_CPU_CAPABILITY -> the SIMD kernels picked, OMP_NUM_THREADS -> the
// intra-op thread count). A static initialiser (one per executable: include it from the
// file with main()), so an executable using BENCHMARK_MAIN() needs nothing else.
#pragma once

#include <string>

#include <ATen/Parallel.h>
#include <ATen/Version.h>
#include <benchmark/benchmark.h>
#include <torch/version.h>

namespace ember_bench {

[[maybe_unused]] static const bool kTorchContextAdded = [] {
  benchmark::AddCustomContext("library", "libtorch");
  benchmark::AddCustomContext("torch_version", TORCH_VERSION);
  benchmark::AddCustomContext("cpu_capability", at::get_cpu_capability());
  benchmark::AddCustomContext("num_threads", std::to_string(at::get_num_threads()));
  return true;
}();

}  // namespace ember_bench
