// Factories, Ember side (benchmarks/libtorch/factory_bench_torch.cpp is the twin):
//   zeros_4, full_4   4-element float32 tensors: per-call overhead of a factory that writes
//   arange_1000       1000 int64 values
//   randn_1m          1M float32 normal samples from the default CPU generator
#include <benchmark/benchmark.h>

#include <ember/ember.h>

namespace {

void zeros_4(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(ember::zeros({4}));
}

void full_4(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(ember::full({4}, 1.5));
}

void arange_1000(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(ember::arange(1000));
}

void randn_1m(benchmark::State& state) {
  ember::manual_seed(0);
  for (auto _ : state) benchmark::DoNotOptimize(ember::randn({1 << 20}));
}

}  // namespace

BENCHMARK(zeros_4);
BENCHMARK(full_4);
BENCHMARK(arange_1000);
BENCHMARK(randn_1m)->Unit(benchmark::kMicrosecond);

BENCHMARK_MAIN();
