// Note [Device slots] (c10/core/Device.cpp): out-of-tree device types taken and freed by name.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "c10/core/Device.h"
#include "c10/core/DispatchKey.h"
#include "c10/core/DispatchKeySet.h"
#include "c10/util/Exception.h"

namespace ember {
namespace {

TEST(DeviceSlots, TakenByNameFreedAndRunOut) {
  // Other tests may have named slots for good (rename_privateuse1_backend): count the free ones.
  std::vector<DeviceType> taken;
  for (int i = 0; i < kNumPrivateUseSlots + 1; ++i) {
    const std::string name = "slot_test_" + std::to_string(i);
    try {
      const DeviceType t = register_device_type(name);
      EXPECT_TRUE(is_privateuse(t));
      EXPECT_EQ(device_type_name(t), name);
      EXPECT_EQ(Device(name + ":1"), Device(t, 1));
      EXPECT_EQ(register_device_type(name), t);  // the same name, the same slot
      // each slot has a backend key and an autograd key of its own
      const DispatchKey k = backend_key_of(Device(t));
      EXPECT_EQ(static_cast<int>(k), static_cast<int>(DispatchKey::PrivateUse1) + privateuse_slot(t));
      EXPECT_EQ(static_cast<int>(autograd_key_of(k)),
                static_cast<int>(DispatchKey::AutogradPrivateUse1) + privateuse_slot(t));
      EXPECT_TRUE(DispatchKeySet::of_alias(DispatchKey::CompositeExplicitAutograd).has(k));
      taken.push_back(t);
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("out-of-tree device slots are taken"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("'slot_test_0'"), std::string::npos) << e.what();
      break;
    }
  }
  ASSERT_FALSE(taken.empty());
  EXPECT_LE(taken.size(), static_cast<size_t>(kNumPrivateUseSlots));
  for (DeviceType t : taken) release_device_type(t);
  EXPECT_FALSE(find_device_type("slot_test_0").has_value());
  EXPECT_THROW(Device("slot_test_0"), ValueError);
  EXPECT_THROW(release_device_type(taken[0]), ValueError);  // free already
  EXPECT_THROW(release_device_type(DeviceType::CPU), ValueError);
  EXPECT_THROW(register_device_type("Not A Name"), ValueError);
  EXPECT_THROW(register_device_type("cuda"), ValueError);
}

}  // namespace
}  // namespace ember
