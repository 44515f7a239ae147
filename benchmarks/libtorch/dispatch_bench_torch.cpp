// libtorch's side of the dispatch benchmarks: the same five cases, with the same names, as
// benchmarks/cpp/dispatch_bench.cpp (benchmarks/run.py compares them; the case list and
// goals are in benchmarks/cases/dispatch.py):
//   noop_unboxed    a no-op operator called through its typed handle
//   noop_boxed      the same operator called with a torch::jit::Stack
//   key_extraction  computing the DispatchKeySet of the two arguments (TLS and mask included)
//   empty_4         at::empty({4})
//   view            t.view({2, 2}) on a 4-element tensor
// All tensors are float CPU tensors with requires_grad false, used as a libtorch user would:
// no InferenceMode, so at::empty and view run through libtorch's Autograd and
// ADInplaceOrView layers (Ember has no autograd layer yet; its keys fall through).
#include <benchmark/benchmark.h>

#include <cstdio>
#include <map>
#include <sstream>
#include <string>

#include <ATen/ATen.h>
#include <ATen/core/dispatch/DispatchKeyExtractor.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/core/stack.h>
#include <torch/library.h>

#include "torch_context.h"

namespace {

at::Tensor noop_cpu(const at::Tensor& self, const at::Tensor& other) { return self; }
void noop_void_cpu(const at::Tensor& self, const at::Tensor& other) {}

using NoopSig = at::Tensor(const at::Tensor&, const at::Tensor&);

const c10::TypedOperatorHandle<NoopSig>& noop_op() {
  static const auto op =
      c10::Dispatcher::singleton().findSchemaOrThrow("bench::noop", "").typed<NoopSig>();
  return op;
}

// Note [libtorch key extraction]: libtorch 2.13 has no public accessor for an operator's
// DispatchKeyExtractor (OperatorHandle::operatorDef_ is private). We build an identical one
// with the public API: DispatchKeyExtractor::make(schema), then
// setOperatorHasFallthroughForKey for every runtime key whose computed table entry is a
// fallthrough (read from dumpComputedTable(), as OperatorEntry sets them). Timing its
// getDispatchKeySetUnboxed(a, b) times the very code Dispatcher::call runs first:
// multi_dispatch_key_set over the arguments, then TLS included/excluded and the
// fallthrough mask, as Ember's dispatch_keys() does.
c10::DispatchKeyExtractor make_noop_extractor(const c10::OperatorHandle& op) {
  // The table names runtime keys as toString() spells them ("AutogradCPU").
  std::map<std::string, c10::DispatchKey> runtime_keys;
  for (c10::DispatchKey k : c10::DispatchKeySet(c10::DispatchKeySet::FULL)) {
    runtime_keys.emplace(c10::toString(k), k);
  }
  auto extractor = c10::DispatchKeyExtractor::make(op.schema());
  std::istringstream table(op.dumpComputedTable());
  for (std::string line; std::getline(table, line);) {
    auto colon = line.find(": ");
    if (colon == std::string::npos || line.compare(colon + 2, 11, "fallthrough") != 0) continue;
    auto key = runtime_keys.find(line.substr(0, colon));
    if (key != runtime_keys.end()) extractor.setOperatorHasFallthroughForKey(key->second, true);
  }
  return extractor;
}

void noop_unboxed(benchmark::State& state) {
  const auto& op = noop_op();
  at::Tensor a = at::empty({4});
  at::Tensor b = at::empty({4});
  for (auto _ : state) benchmark::DoNotOptimize(op.call(a, b));
}

void noop_boxed(benchmark::State& state) {
  const auto& op = noop_op();
  at::Tensor a = at::empty({4});
  at::Tensor b = at::empty({4});
  torch::jit::Stack stack;
  stack.reserve(2);
  for (auto _ : state) {
    // Reuse one stack: push the arguments, call, drop the return.
    stack.clear();
    stack.emplace_back(a);
    stack.emplace_back(b);
    op.callBoxed(&stack);
    benchmark::DoNotOptimize(stack.data());
  }
}

// The same without a returned tensor: dispatch alone, no refcount traffic for the result.
void noop_void_unboxed(benchmark::State& state) {
  static const auto op = c10::Dispatcher::singleton()
                             .findSchemaOrThrow("bench::noop_void", "")
                             .typed<void(const at::Tensor&, const at::Tensor&)>();
  at::Tensor a = at::empty({4});
  at::Tensor b = at::empty({4});
  for (auto _ : state) {
    op.call(a, b);
    benchmark::ClobberMemory();
  }
}

void noop_void_boxed(benchmark::State& state) {
  static const auto op = c10::Dispatcher::singleton().findSchemaOrThrow("bench::noop_void", "");
  at::Tensor a = at::empty({4});
  at::Tensor b = at::empty({4});
  torch::jit::Stack stack;
  stack.reserve(2);
  for (auto _ : state) {
    stack.emplace_back(a);
    stack.emplace_back(b);
    op.callBoxed(&stack);
    benchmark::DoNotOptimize(stack.data());
  }
}

void key_extraction(benchmark::State& state) {
  static const c10::DispatchKeyExtractor extractor = make_noop_extractor(noop_op());
  at::Tensor a = at::empty({4});
  at::Tensor b = at::empty({4});
  for (auto _ : state) benchmark::DoNotOptimize(extractor.getDispatchKeySetUnboxed(a, b));
}

void empty_4(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(at::empty({4}));
}

void view(benchmark::State& state) {
  at::Tensor t = at::empty({4});
  for (auto _ : state) benchmark::DoNotOptimize(t.view({2, 2}));
}

// The floor under every case that returns a tensor: copying a handle and dropping it
// (one atomic increment and decrement).
void tensor_copy(benchmark::State& state) {
  at::Tensor a = at::empty({4});
  for (auto _ : state) benchmark::DoNotOptimize(at::Tensor(a));
}

// libtorch alone, for the record: the op costs the issue quotes (at::add on small tensors,
// add_out, add when autograd records). Ember's side of these comes with its kernels.
void ref_add(benchmark::State& state) {
  at::Tensor a = at::empty({4}), b = at::empty({4});
  for (auto _ : state) benchmark::DoNotOptimize(at::add(a, b));
}

void ref_add_out(benchmark::State& state) {
  at::Tensor a = at::empty({4}), b = at::empty({4}), out = at::empty({4});
  for (auto _ : state) benchmark::DoNotOptimize(at::add_out(out, a, b));
}

void ref_add_autograd(benchmark::State& state) {
  at::Tensor a = at::ones({4}).requires_grad_(true), b = at::ones({4});
  for (auto _ : state) benchmark::DoNotOptimize(at::add(a, b));
}

// Checks that the cases measure what they claim; prints why not and returns false.
bool check_setup() {
  at::Tensor a = at::empty({4});
  at::Tensor b = at::empty({4});
  if (a.requires_grad() || !a.device().is_cpu() || a.scalar_type() != at::kFloat) {
    std::fprintf(stderr, "expected a float CPU tensor without requires_grad\n");
    return false;
  }
  const auto& op = noop_op();
  c10::DispatchKeySet keys = make_noop_extractor(op).getDispatchKeySetUnboxed(a, b);
  if (keys.highestPriorityTypeId() != c10::DispatchKey::CPU) {
    std::fprintf(stderr, "bench::noop dispatches to %s, not CPU; its computed table:\n%s\n",
                 c10::toString(keys.highestPriorityTypeId()), op.dumpComputedTable().c_str());
    return false;
  }
  if (!op.call(a, b).is_same(a)) {
    std::fprintf(stderr, "bench::noop did not return its first argument\n");
    return false;
  }
  return true;
}

}  // namespace

TORCH_LIBRARY(bench, m) {
  m.def("noop(Tensor self, Tensor other) -> Tensor");
  m.def("noop_void(Tensor self, Tensor other) -> ()");
}
// TORCH_FN: the compile-time kernel form, libtorch at its fastest (Ember uses EMBER_FN).
TORCH_LIBRARY_IMPL(bench, CPU, m) {
  m.impl("noop", TORCH_FN(noop_cpu));
  m.impl("noop_void", TORCH_FN(noop_void_cpu));
}
// Like-for-like with Ember, whose autograd keys fall through: without this, every call on
// CPU tensors would first stop at libtorch's Autograd key.
TORCH_LIBRARY_IMPL(bench, Autograd, m) {
  m.impl("noop", torch::CppFunction::makeFallthrough());
  m.impl("noop_void", torch::CppFunction::makeFallthrough());
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
  if (!check_setup()) return 1;
  benchmark::AddCustomContext("key_extraction",
                              "DispatchKeyExtractor::getDispatchKeySetUnboxed (see Note [libtorch key extraction])");
  benchmark::AddCustomContext("layers", "at::empty and view run through Autograd and ADInplaceOrView (no InferenceMode)");
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
