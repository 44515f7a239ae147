// Per-call overhead of Ember's dispatcher, case for case the same as
// benchmarks/libtorch/dispatch_bench_torch.cpp (benchmarks/run.py compares them; the case
// list and goals are in benchmarks/cases/dispatch.py):
//   noop_unboxed    a no-op operator called through its typed handle
//   noop_boxed      the same operator called with a Stack of IValues
//   key_extraction  computing the DispatchKeySet of the two arguments (TLS and mask included)
//   empty_4         ember::empty({4}): BackendSelect, then the CPU kernel and an allocation
//   view            ember::view(t, {2, 2}) on a 4-element tensor
// All tensors are float32 CPU tensors. Autograd keys fall through in Ember (no autograd
// layer yet), so every call goes straight to the CPU kernel.
#include <benchmark/benchmark.h>

#include <cstdio>

#include <ember/ember.h>

namespace {

ember::Tensor noop_cpu(const ember::Tensor& self, const ember::Tensor& other) { return self; }
void noop_void_cpu(const ember::Tensor& self, const ember::Tensor& other) {}

using NoopSig = ember::Tensor(const ember::Tensor&, const ember::Tensor&);

const ember::TypedOperatorHandle<NoopSig>& noop_op() {
  static const auto op = ember::Dispatcher::singleton().find_op_or_throw("bench::noop").typed<NoopSig>();
  return op;
}

void noop_unboxed(benchmark::State& state) {
  const auto& op = noop_op();
  ember::Tensor a = ember::empty({4});
  ember::Tensor b = ember::empty({4});
  for (auto _ : state) benchmark::DoNotOptimize(op.call(a, b));
}

void noop_boxed(benchmark::State& state) {
  const auto& op = noop_op();
  ember::Tensor a = ember::empty({4});
  ember::Tensor b = ember::empty({4});
  ember::Stack stack;
  stack.reserve(2);
  for (auto _ : state) {
    // Reuse one stack: push the arguments, call, drop the return.
    stack.clear();
    stack.emplace_back(a);
    stack.emplace_back(b);
    op.call_boxed(&stack);
    benchmark::DoNotOptimize(stack.data());
  }
}

// The same without a returned tensor: dispatch alone, no refcount traffic for the result.
void noop_void_unboxed(benchmark::State& state) {
  static const auto op = ember::Dispatcher::singleton()
                             .find_op_or_throw("bench::noop_void")
                             .typed<void(const ember::Tensor&, const ember::Tensor&)>();
  ember::Tensor a = ember::empty({4});
  ember::Tensor b = ember::empty({4});
  for (auto _ : state) {
    op.call(a, b);
    benchmark::ClobberMemory();
  }
}

void noop_void_boxed(benchmark::State& state) {
  static const auto op = ember::Dispatcher::singleton().find_op_or_throw("bench::noop_void");
  ember::Tensor a = ember::empty({4});
  ember::Tensor b = ember::empty({4});
  ember::Stack stack;
  stack.reserve(2);
  for (auto _ : state) {
    stack.emplace_back(a);
    stack.emplace_back(b);
    op.call_boxed(&stack);
    benchmark::DoNotOptimize(stack.data());
  }
}

void key_extraction(benchmark::State& state) {
  const auto& op = noop_op();
  ember::Tensor a = ember::empty({4});
  ember::Tensor b = ember::empty({4});
  for (auto _ : state) benchmark::DoNotOptimize(op.dispatch_keys(a, b));
}

void empty_4(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(ember::empty({4}));
}

void view(benchmark::State& state) {
  ember::Tensor t = ember::empty({4});
  for (auto _ : state) benchmark::DoNotOptimize(ember::view(t, {2, 2}));
}

// The floor under every case that returns a tensor: copying a handle and dropping it
// (one atomic increment and decrement).
void tensor_copy(benchmark::State& state) {
  ember::Tensor a = ember::empty({4});
  for (auto _ : state) benchmark::DoNotOptimize(ember::Tensor(a));
}

// The CPU-kernels issue's overhead case: ember::add on 4-element tensors (libtorch ~570 ns
// here with 1.13), allocating and with out=.
void ref_add(benchmark::State& state) {
  ember::Tensor a = ember::ones({4}), b = ember::ones({4});
  for (auto _ : state) benchmark::DoNotOptimize(ember::add(a, b));
}

void ref_add_out(benchmark::State& state) {
  ember::Tensor a = ember::ones({4}), b = ember::ones({4}), out = ember::empty({4});
  for (auto _ : state) benchmark::DoNotOptimize(ember::add_out(out, a, b));
}

// The autograd issue's overhead case: add recording a node (a requires grad); the output
// and its node are dropped each iteration, as libtorch's side does.
void ref_add_autograd(benchmark::State& state) {
  ember::Tensor a = ember::ones({4}).requires_grad_(true), b = ember::ones({4});
  for (auto _ : state) benchmark::DoNotOptimize(ember::add(a, b));
}

}  // namespace

EMBER_LIBRARY(bench, m) {
  m.def("noop(Tensor self, Tensor other) -> Tensor");
  m.def("noop_void(Tensor self, Tensor other) -> ()");
}
// EMBER_FN: the compile-time kernel form, as libtorch's side uses TORCH_FN.
EMBER_LIBRARY_IMPL(bench, CPU, m) {
  m.impl("noop", EMBER_FN(noop_cpu));
  m.impl("noop_void", EMBER_FN(noop_void_cpu));
}

BENCHMARK(noop_unboxed);
BENCHMARK(noop_boxed);
BENCHMARK(noop_void_unboxed);
BENCHMARK(noop_void_boxed);
BENCHMARK(key_extraction);
BENCHMARK(empty_4);
BENCHMARK(view);
BENCHMARK(tensor_copy);
BENCHMARK(ref_add);
BENCHMARK(ref_add_out);
BENCHMARK(ref_add_autograd);

int main(int argc, char** argv) {
  // Static registration cannot throw; a failed EMBER_LIBRARY shows up here instead.
  for (const auto& e : ember::Dispatcher::singleton().library_errors()) {
    std::fprintf(stderr, "library error: %s\n", e.c_str());
    return 1;
  }
  benchmark::AddCustomContext("library", "ember");
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
