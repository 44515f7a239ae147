// The dispatch table, cell by cell, for each combination of registrations that matters
// (Note [Dispatch table precedence]).
#include <gtest/gtest.h>

#include "dispatch_test_util.h"

namespace ember {
namespace {

Tensor k_cpu(const Tensor& t) { return t; }
Tensor k_cuda(const Tensor& t) { return t; }
Tensor k_autograd_cpu(const Tensor& t) { return t; }
Tensor k_cea(const Tensor& t) { return t; }
Tensor k_cia(const Tensor& t) { return t; }
Tensor k_autograd(const Tensor& t) { return t; }
void boxed_fallback(const OperatorHandle&, DispatchKeySet, Stack*) {}

void* fn(Tensor (*f)(const Tensor&)) { return reinterpret_cast<void*>(f); }

// What a cell of the table holds, in words.
std::string cell(const OperatorHandle& op, DispatchKey k) {
  const KernelFunction& kf = op.entry().lookup(k);
  if (kf.fallthrough) return "fallthrough";
  if (kf.debug == "missing kernel") return "missing";
  if (kf.fn == fn(&k_cpu)) return "cpu";
  if (kf.fn == fn(&k_cuda)) return "cuda";
  if (kf.fn == fn(&k_autograd_cpu)) return "autograd_cpu";
  if (kf.fn == fn(&k_cea)) return "cea";
  if (kf.fn == fn(&k_cia)) return "cia";
  if (kf.fn == fn(&k_autograd)) return "autograd";
  if (kf.fn == reinterpret_cast<void*>(&boxed_fallback)) return "fallback";
  // aten/native/sparse/'s SparseCPU fallback: the missing-kernel error, or the op on the dense
  // form inside ember.sparse.densify_fallback().
  if (kf.debug.find("SparseCompressed.cpp") != std::string::npos) return "sparse fallback";
  return "unknown";
}

struct Row {
  const char* name;
  std::vector<DispatchKey> registered;
  // Expected cells: CPU, CUDA, Meta, SparseCPU, AutogradCPU, AutogradCUDA, AutogradOther
  std::vector<std::string> expected;
};

Tensor (*kernel_for(DispatchKey k))(const Tensor&) {
  switch (k) {
    case DispatchKey::CPU: return &k_cpu;
    case DispatchKey::CUDA: return &k_cuda;
    case DispatchKey::AutogradCPU: return &k_autograd_cpu;
    case DispatchKey::CompositeExplicitAutograd: return &k_cea;
    case DispatchKey::CompositeImplicitAutograd: return &k_cia;
    case DispatchKey::Autograd: return &k_autograd;
    default: return nullptr;
  }
}

using K = DispatchKey;
const K kColumns[] = {K::CPU, K::CUDA, K::Meta, K::SparseCPU, K::AutogradCPU, K::AutogradCUDA,
                      K::AutogradOther};

// Autograd keys fall through by default until the autograd layer lands (DefaultFallbacks.cpp).
const std::string ft = "fallthrough";
const std::vector<Row> kRows = {
    {"nothing", {}, {"missing", "missing", "missing", "sparse fallback", ft, ft, ft}},
    {"CPU", {K::CPU}, {"cpu", "missing", "missing", "sparse fallback", ft, ft, ft}},
    {"CPU+CUDA", {K::CPU, K::CUDA}, {"cpu", "cuda", "missing", "sparse fallback", ft, ft, ft}},
    // Composites fill the dense backends only; SparseCPU (a layout key) takes only its own
    // kernels (Note [Layout keys]), else the sparse fallback (the missing-kernel error, or
    // the dense form under densify_fallback). A sparse tensor still meets a CIA kernel at
    // AutogradCPU.
    {"CEA", {K::CompositeExplicitAutograd}, {"cea", "cea", "cea", "sparse fallback", ft, ft, ft}},
    {"CEA+CPU", {K::CompositeExplicitAutograd, K::CPU}, {"cpu", "cea", "cea", "sparse fallback", ft, ft, ft}},
    {"CIA", {K::CompositeImplicitAutograd}, {"cia", "cia", "cia", "sparse fallback", "cia", "cia", "cia"}},
    {"CIA+CPU", {K::CompositeImplicitAutograd, K::CPU},
     {"cpu", "cia", "cia", "sparse fallback", ft, "cia", "cia"}},
    {"CIA+CEA", {K::CompositeImplicitAutograd, K::CompositeExplicitAutograd},
     {"cea", "cea", "cea", "sparse fallback", ft, ft, ft}},
    {"Autograd+CPU", {K::Autograd, K::CPU},
     {"cpu", "missing", "missing", "sparse fallback", "autograd", "autograd", "autograd"}},
    {"CIA+Autograd+CPU", {K::CompositeImplicitAutograd, K::Autograd, K::CPU},
     {"cpu", "cia", "cia", "sparse fallback", "autograd", "cia", "cia"}},
    {"AutogradCPU+Autograd+CPU", {K::AutogradCPU, K::Autograd, K::CPU},
     {"cpu", "missing", "missing", "sparse fallback", "autograd_cpu", "autograd", "autograd"}},
    {"CIA+CUDA", {K::CompositeImplicitAutograd, K::CUDA},
     {"cia", "cuda", "cia", "sparse fallback", "cia", ft, "cia"}},
};

TEST(DispatchTablePrecedence, EveryCell) {
  for (size_t r = 0; r < kRows.size(); ++r) {
    const Row& row = kRows[r];
    Library lib(Library::Kind::Def, "prec" + std::to_string(r), std::nullopt, __FILE__, __LINE__);
    lib.def("f(Tensor self) -> Tensor");
    for (DispatchKey k : row.registered) lib.impl("f", k, CppFunction(kernel_for(k)));
    auto op = *Dispatcher::singleton().find_op("prec" + std::to_string(r) + "::f");
    for (size_t c = 0; c < std::size(kColumns); ++c) {
      EXPECT_EQ(cell(op, kColumns[c]), row.expected[c])
          << "row " << row.name << ", key " << dispatch_key_name(kColumns[c]);
    }
  }
}

TEST(DispatchTablePrecedence, BackendFallbackComesAfterOpKernels) {
  Library lib(Library::Kind::Def, "precfb", std::nullopt, __FILE__, __LINE__);
  lib.def("plain(Tensor self) -> Tensor").def("composite(Tensor self) -> Tensor");
  lib.impl("composite", K::CompositeExplicitAutograd, CppFunction(&k_cea));
  auto plain = *Dispatcher::singleton().find_op("precfb::plain");
  auto composite = *Dispatcher::singleton().find_op("precfb::composite");
  EXPECT_EQ(cell(plain, K::PrivateUse1), "missing");
  {
    Library fb(Library::Kind::Impl, "_", K::PrivateUse1, __FILE__, __LINE__);
    fb.fallback(CppFunction::boxed(&boxed_fallback));
    EXPECT_EQ(cell(plain, K::PrivateUse1), "fallback");
    EXPECT_EQ(cell(composite, K::PrivateUse1), "cea");
  }
  // The fallback's library is gone, and so is the fallback.
  EXPECT_EQ(cell(plain, K::PrivateUse1), "missing");
}

TEST(DispatchTablePrecedence, LaterRegistrationWinsAndRemovalRestores) {
  Library def(Library::Kind::Def, "precover", std::nullopt, __FILE__, __LINE__);
  def.def("f(Tensor self) -> Tensor");
  Library first(Library::Kind::Impl, "precover", K::CPU, __FILE__, __LINE__);
  first.impl("f", CppFunction(&k_cpu));
  auto op = *Dispatcher::singleton().find_op("precover::f");
  {
    Library second(Library::Kind::Impl, "precover", K::CPU, __FILE__, __LINE__);
    second.impl("f", CppFunction(&k_cuda));
    EXPECT_EQ(cell(op, K::CPU), "cuda");
  }
  EXPECT_EQ(cell(op, K::CPU), "cpu");
}

}  // namespace
}  // namespace ember
