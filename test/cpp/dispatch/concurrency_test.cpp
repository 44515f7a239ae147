// Calls from 8 threads while another thread registers and deregisters kernels and
// defines new operators: calls never see a torn table and always reach a valid kernel.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "dispatch_test_util.h"

namespace ember {
namespace {

std::atomic<long> cpu_calls{0}, meta_calls{0};
Tensor conc_cpu(const Tensor& t) { cpu_calls.fetch_add(1, std::memory_order_relaxed); return t; }
Tensor conc_meta(const Tensor& t) { meta_calls.fetch_add(1, std::memory_order_relaxed); return t; }
Tensor conc_meta2(const Tensor& t) { meta_calls.fetch_add(1, std::memory_order_relaxed); return t; }

TEST(Concurrency, CallsWhileRegistering) {
  Library def(Library::Kind::Def, "conc", std::nullopt, __FILE__, __LINE__);
  def.def("f(Tensor self) -> Tensor");
  Library cpu(Library::Kind::Impl, "conc", DispatchKey::CPU, __FILE__, __LINE__);
  cpu.impl("f", &conc_cpu);
  auto f = Dispatcher::singleton().find_op_or_throw("conc::f").typed<Tensor(const Tensor&)>();

  constexpr int kCallers = 8;
  constexpr int kCallsPerThread = 20000;
  std::atomic<bool> stop{false};
  std::atomic<long> missing{0};
  std::thread registrar([&] {
    int round = 0;
    while (!stop.load()) {
      Library meta(Library::Kind::Impl, "conc", DispatchKey::Meta, __FILE__, __LINE__);
      meta.impl("f", round % 2 ? &conc_meta : &conc_meta2);
      Library extra(Library::Kind::Fragment, "conc", std::nullopt, __FILE__, __LINE__);
      extra.def("g" + std::to_string(round++ % 64) + "(Tensor self) -> Tensor");
    }
  });
  std::vector<std::thread> callers;
  for (int i = 0; i < kCallers; ++i) {
    callers.emplace_back([&, i] {
      Tensor c = testing::tensor_on(Device("cpu"));
      Tensor m = testing::tensor_on(Device("meta"));
      for (int n = 0; n < kCallsPerThread; ++n) {
        EXPECT_TRUE(f.call(c).is_same(c));
        try {
          f.call(m);  // Meta kernel present or not, depending on the registrar
        } catch (const NotImplementedError&) {
          missing.fetch_add(1);
        }
        if (n % 64 == i) Dispatcher::singleton().find_op("conc::g" + std::to_string(n % 64));
      }
    });
  }
  for (auto& t : callers) t.join();
  stop = true;
  registrar.join();
  EXPECT_EQ(cpu_calls.load(), long{kCallers} * kCallsPerThread);
  EXPECT_EQ(meta_calls.load() + missing.load(), long{kCallers} * kCallsPerThread);
  // The table is back to its state before the registrar ran.
  EXPECT_EQ(f.entry().lookup(DispatchKey::Meta).debug, "missing kernel");
}

}  // namespace
}  // namespace ember
