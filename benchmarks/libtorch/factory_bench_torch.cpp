// Factories, libtorch side (twin of benchmarks/cpp/factory_bench.cpp; same case names).
#include <benchmark/benchmark.h>

#include <ATen/ATen.h>

#include "torch_context.h"

namespace {

void zeros_4(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(at::zeros({4}));
}

void full_4(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(at::full({4}, 1.5));
}

void arange_1000(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(at::arange(1000));
}

void randn_1m(benchmark::State& state) {
  at::manual_seed(0);
  for (auto _ : state) benchmark::DoNotOptimize(at::randn({1 << 20}));
}

}  // namespace

BENCHMARK(zeros_4);
BENCHMARK(full_4);
BENCHMARK(arange_1000);
BENCHMARK(randn_1m)->Unit(benchmark::kMicrosecond);

BENCHMARK_MAIN();
