// CPU autocast from C++ (aten/amp/Autocast.h): the guard opens and restores a region; inside
// it the lower-precision list runs in the region's dtype, the float32 list in float32, the
// promote list at float32 when one input is, and the unlisted ops, out= forms and float64
// inputs as they are. Values against the same ops on inputs cast by hand.
#include <gtest/gtest.h>

#include "ember/generated/ops/add.h"
#include "ember/generated/ops/cat.h"
#include "ember/generated/ops/mm.h"
#include "ember/generated/ops/mse_loss.h"
#include "ember/generated/ops/randn.h"
#include "ember/generated/ops/zeros.h"
#include "test/cpp/ember_api.h"

namespace ember {
namespace {

using amp::CpuAutocastGuard;

TEST(Autocast, GuardOpensAndRestoresTheRegion) {
  EXPECT_FALSE(amp::cpu_autocast_state().enabled);
  {
    CpuAutocastGuard region(ScalarType::Half);
    EXPECT_TRUE(amp::cpu_autocast_state().enabled);
    EXPECT_EQ(amp::cpu_autocast_state().dtype, ScalarType::Half);
    {
      CpuAutocastGuard off(ScalarType::BFloat16, /*enabled=*/false);
      EXPECT_FALSE(amp::cpu_autocast_state().enabled);
    }
    EXPECT_TRUE(amp::cpu_autocast_state().enabled);
    EXPECT_EQ(amp::cpu_autocast_state().dtype, ScalarType::Half);
  }
  EXPECT_FALSE(amp::cpu_autocast_state().enabled);
}

TEST(Autocast, ListsCastAsPyTorchs) {
  const Tensor a = randn({4, 5}), b = randn({5, 3});
  CpuAutocastGuard region;
  const Tensor p = mm(a, b);
  EXPECT_EQ(p.scalar_type(), ScalarType::BFloat16);
  Tensor expected;
  {
    CpuAutocastGuard off(ScalarType::BFloat16, false);
    expected = mm(a.to(ScalarType::BFloat16), b.to(ScalarType::BFloat16));
  }
  EXPECT_TRUE(p.equal(expected));
  EXPECT_EQ(add(a, a).scalar_type(), ScalarType::Float);                        // unlisted
  EXPECT_EQ(mse_loss(p, zeros({4, 3}, ScalarType::BFloat16)).scalar_type(), ScalarType::Float);
  EXPECT_EQ(cat({p, zeros({1, 3})}).scalar_type(), ScalarType::Float);         // promote
  EXPECT_EQ(cat({p, p}).scalar_type(), ScalarType::BFloat16);
  EXPECT_EQ(mm(a.to(ScalarType::Double), b.to(ScalarType::Double)).scalar_type(), ScalarType::Double);
  Tensor out = zeros({4, 3});
  mm_out(out, a, b);                                                            // out=: not cast
  EXPECT_EQ(out.scalar_type(), ScalarType::Float);
}

TEST(Autocast, PromoteOfMixedLowerPrecisionsRaises) {
  CpuAutocastGuard region(ScalarType::Half);
  const Tensor h = zeros({2}, ScalarType::Half), bf = zeros({2}, ScalarType::BFloat16);
  EXPECT_THROW(cat({h, bf}), Error);
}

TEST(Autocast, OnlyLowerPrecisionDtypes) {
  EXPECT_THROW(amp::set_cpu_autocast_state({true, ScalarType::Double}), ValueError);
  EXPECT_FALSE(amp::cpu_autocast_state().enabled);
  // A disabled region may carry any dtype (torch.autocast(dtype=float32) warns and keeps it).
  const amp::AutocastState before = amp::cpu_autocast_state();
  amp::set_cpu_autocast_state({false, ScalarType::Float});
  EXPECT_EQ(amp::cpu_autocast_state().dtype, ScalarType::Float);
  EXPECT_FALSE(amp::cpu_autocast_state().enabled);
  amp::set_cpu_autocast_state(before);
}

}  // namespace
}  // namespace ember
