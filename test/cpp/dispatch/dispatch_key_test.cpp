#include <gtest/gtest.h>

#include <thread>

#include "dispatch_test_util.h"

namespace ember {
namespace {

TEST(DispatchKeySet, PriorityFollowsTheDesignOrder) {
  // Low to high, as shared/DESIGN.md lists them.
  const DispatchKey order[] = {
      DispatchKey::CPU,           DispatchKey::CUDA,          DispatchKey::Meta,
      DispatchKey::PrivateUse1,   DispatchKey::PrivateUse2,   DispatchKey::PrivateUse3,
      DispatchKey::PrivateUse4,   DispatchKey::MkldnnCPU,     DispatchKey::SparseCPU,
      DispatchKey::SparseCUDA,    DispatchKey::SparseCsrCPU,  DispatchKey::SparseCsrCUDA,
      DispatchKey::BackendSelect, DispatchKey::ADInplaceOrView, DispatchKey::AutogradOther,
      DispatchKey::AutogradCPU,   DispatchKey::AutogradCUDA,  DispatchKey::AutogradPrivateUse1,
      DispatchKey::AutogradPrivateUse2, DispatchKey::AutogradPrivateUse3, DispatchKey::AutogradPrivateUse4,
      DispatchKey::Tracer,        DispatchKey::Profiler};
  for (size_t i = 0; i + 1 < std::size(order); ++i) {
    DispatchKeySet s{order[i], order[i + 1]};
    EXPECT_EQ(s.highest(), order[i + 1]) << dispatch_key_name(order[i]);
    EXPECT_LT(static_cast<int>(order[i]), static_cast<int>(order[i + 1]));
  }
}

TEST(DispatchKeySet, SetOperations) {
  DispatchKeySet s{DispatchKey::CPU, DispatchKey::AutogradCPU};
  EXPECT_TRUE(s.has(DispatchKey::CPU));
  EXPECT_FALSE(s.has(DispatchKey::CUDA));
  EXPECT_FALSE(s.has(DispatchKey::Undefined));
  EXPECT_EQ(s.highest(), DispatchKey::AutogradCPU);
  EXPECT_EQ(s.below(DispatchKey::AutogradCPU), DispatchKeySet(DispatchKey::CPU));
  EXPECT_EQ(s.remove(DispatchKey::CPU).highest(), DispatchKey::AutogradCPU);
  EXPECT_EQ(DispatchKeySet().highest(), DispatchKey::Undefined);
  EXPECT_TRUE((s - s).empty());
  EXPECT_EQ((s | DispatchKeySet(DispatchKey::Tracer)).highest(), DispatchKey::Tracer);
  EXPECT_EQ(s.str(), "DispatchKeySet(CPU, AutogradCPU)");
  EXPECT_FALSE(DispatchKeySet::full().has(DispatchKey::Undefined));
}

TEST(DispatchKeySet, TensorKeySets) {
  EXPECT_EQ(tensor_key_set(Device("cpu")),
            (DispatchKeySet{DispatchKey::CPU, DispatchKey::AutogradCPU, DispatchKey::ADInplaceOrView}));
  EXPECT_EQ(tensor_key_set(Device("cuda:1")).highest(), DispatchKey::AutogradCUDA);
  EXPECT_EQ(tensor_key_set(Device("cpu"), Layout::Sparse),
            (DispatchKeySet{DispatchKey::SparseCPU, DispatchKey::AutogradCPU, DispatchKey::ADInplaceOrView}));
  EXPECT_TRUE(tensor_key_set(Device("cpu"), Layout::Mkldnn).has(DispatchKey::MkldnnCPU));
  EXPECT_TRUE(tensor_key_set(Device("meta")).has(DispatchKey::AutogradOther));
  EXPECT_TRUE(tensor_key_set(Device(DeviceType::PrivateUse1)).has(DispatchKey::AutogradPrivateUse1));
  EXPECT_THROW(tensor_key_set(Device("meta"), Layout::Sparse), NotImplementedError);
}

TEST(DispatchKeySet, AliasKeys) {
  auto cea = DispatchKeySet::of_alias(DispatchKey::CompositeExplicitAutograd);
  auto cia = DispatchKeySet::of_alias(DispatchKey::CompositeImplicitAutograd);
  auto ag = DispatchKeySet::of_alias(DispatchKey::Autograd);
  EXPECT_TRUE(cea.has(DispatchKey::CPU) && cea.has(DispatchKey::SparseCPU));
  EXPECT_FALSE(cea.has(DispatchKey::AutogradCPU));
  EXPECT_EQ(cia, cea | ag);
  EXPECT_FALSE(ag.has(DispatchKey::CPU));
  EXPECT_TRUE(is_alias_key(DispatchKey::Autograd));
  EXPECT_EQ(parse_dispatch_key("AutogradCPU"), DispatchKey::AutogradCPU);
  EXPECT_EQ(parse_dispatch_key("Nope"), std::nullopt);
}

TEST(LocalDispatchKeySet, DefaultsIncludeBackendSelect) {
  auto tls = local_dispatch_key_set();
  EXPECT_EQ(tls.included, DispatchKeySet(DispatchKey::BackendSelect));
  EXPECT_TRUE(tls.excluded.empty());
}

TEST(LocalDispatchKeySet, GuardsNestAndRestore) {
  {
    IncludeDispatchKeyGuard tracer(DispatchKey::Tracer);
    EXPECT_TRUE(local_dispatch_key_set().included.has(DispatchKey::Tracer));
    {
      IncludeDispatchKeyGuard again(DispatchKey::Tracer);  // already there: adds nothing
      ExcludeDispatchKeyGuard no_autograd(DispatchKey::AutogradCPU);
      EXPECT_TRUE(local_dispatch_key_set().excluded.has(DispatchKey::AutogradCPU));
    }
    // The inner include guard must not remove what the outer one added.
    EXPECT_TRUE(local_dispatch_key_set().included.has(DispatchKey::Tracer));
    EXPECT_TRUE(local_dispatch_key_set().excluded.empty());
  }
  EXPECT_FALSE(local_dispatch_key_set().included.has(DispatchKey::Tracer));
  EXPECT_TRUE(local_dispatch_key_set().included.has(DispatchKey::BackendSelect));
}

TEST(LocalDispatchKeySet, ExcludingADefaultKeyAndRestoring) {
  {
    ExcludeDispatchKeyGuard g(DispatchKey::BackendSelect);
    EXPECT_TRUE(local_dispatch_key_set().excluded.has(DispatchKey::BackendSelect));
  }
  EXPECT_TRUE(local_dispatch_key_set().excluded.empty());
}

TEST(LocalDispatchKeySet, IsPerThread) {
  IncludeDispatchKeyGuard g(DispatchKey::Profiler);
  bool other_sees_it = true;
  std::thread([&] { other_sees_it = local_dispatch_key_set().included.has(DispatchKey::Profiler); }).join();
  EXPECT_FALSE(other_sees_it);
  EXPECT_TRUE(local_dispatch_key_set().included.has(DispatchKey::Profiler));
}

}  // namespace
}  // namespace ember
