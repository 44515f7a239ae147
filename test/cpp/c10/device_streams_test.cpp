// Note [Device streams] (c10/core/DeviceStreams.h), on a fake device whose driver counts
// the streams it creates: default and current streams per thread and device, the lazy
// round-robin pools per priority, and the device checks.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "c10/core/DeviceStreams.h"
#include "c10/util/Exception.h"

namespace ember {
namespace {

class FakeStreams final : public DeviceStreamDriver {
 public:
  Handle create_stream(int device, int priority) override {
    std::lock_guard<std::mutex> g(mutex);
    const Handle h = next++;
    created[h] = {device, priority};
    return h;
  }
  std::mutex mutex;
  Handle next = 100;
  std::map<Handle, std::pair<int, int>> created;  // handle -> (device, priority)
};

TEST(DeviceStreams, EveryThreadStartsOnTheDefaultStream) {
  FakeStreams d;
  DeviceStreamRegistry r(d, 2, "fake");
  EXPECT_EQ(r.current(0), (DeviceStream{0, 0}));
  EXPECT_EQ(r.current(1), (DeviceStream{1, 0}));
  EXPECT_EQ(r.default_stream(1), (DeviceStream{1, 0}));
  EXPECT_TRUE(d.created.empty()) << "nothing asked for a pool stream, so none was created";
}

TEST(DeviceStreams, PoolsAreCreatedOnFirstUseAndHandedOutRoundRobin) {
  FakeStreams d;
  DeviceStreamRegistry r(d, 2, "fake");
  std::vector<DeviceStream> got;
  for (int i = 0; i < DeviceStreamRegistry::kPoolSize + 2; ++i) got.push_back(r.from_pool(1, false));
  ASSERT_EQ(d.created.size(), size_t{DeviceStreamRegistry::kPoolSize}) << "one pool: device 1, normal priority";
  std::set<DeviceStreamDriver::Handle> distinct;
  for (int i = 0; i < DeviceStreamRegistry::kPoolSize; ++i) {
    EXPECT_EQ(got[static_cast<size_t>(i)].device, 1);
    EXPECT_NE(got[static_cast<size_t>(i)].handle, 0u);
    EXPECT_EQ(d.created[got[static_cast<size_t>(i)].handle], (std::pair<int, int>{1, 0}));
    distinct.insert(got[static_cast<size_t>(i)].handle);
  }
  EXPECT_EQ(distinct.size(), size_t{DeviceStreamRegistry::kPoolSize}) << "a full round gives every stream once";
  EXPECT_EQ(got[DeviceStreamRegistry::kPoolSize], got[0]) << "then it wraps around";
  EXPECT_EQ(got[DeviceStreamRegistry::kPoolSize + 1], got[1]);

  const DeviceStream high = r.from_pool(1, true);
  EXPECT_EQ(d.created.size(), size_t{2 * DeviceStreamRegistry::kPoolSize}) << "the high-priority pool is its own";
  EXPECT_EQ(d.created[high.handle], (std::pair<int, int>{1, 1}));
  EXPECT_EQ(distinct.count(high.handle), 0u);
  r.from_pool(0, false);
  EXPECT_EQ(d.created.size(), size_t{3 * DeviceStreamRegistry::kPoolSize}) << "and so is each device's";
}

TEST(DeviceStreams, TheCurrentStreamIsPerThreadAndPerDevice) {
  FakeStreams d;
  DeviceStreamRegistry r(d, 2, "fake");
  const DeviceStream s = r.from_pool(0, false);
  r.set_current(s);
  EXPECT_EQ(r.current(0), s);
  EXPECT_EQ(r.current(1), (DeviceStream{1, 0})) << "device 1 keeps its default stream";
  DeviceStream seen_elsewhere{-1, 1};
  std::thread([&] {
    seen_elsewhere = r.current(0);
    r.set_current(r.from_pool(0, false));  // changes the other thread's stream only
  }).join();
  EXPECT_EQ(seen_elsewhere, (DeviceStream{0, 0})) << "a new thread starts on the default stream";
  EXPECT_EQ(r.current(0), s);
  r.set_current(r.default_stream(0));
  EXPECT_EQ(r.current(0), (DeviceStream{0, 0}));
}

TEST(DeviceStreams, TwoRegistriesKeepTheirOwnCurrentStreams) {
  FakeStreams d;
  DeviceStreamRegistry a(d, 1, "fake"), b(d, 1, "fake");
  a.set_current(a.from_pool(0, false));
  EXPECT_NE(a.current(0).handle, 0u);
  EXPECT_EQ(b.current(0).handle, 0u);
}

TEST(DeviceStreams, PoolsAreSafeToRequestFromManyThreads) {
  FakeStreams d;
  DeviceStreamRegistry r(d, 1, "fake");
  std::vector<std::thread> threads;
  std::vector<DeviceStream> got(64);
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 16; ++i) got[static_cast<size_t>(t * 16 + i)] = r.from_pool(0, false);
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(d.created.size(), size_t{DeviceStreamRegistry::kPoolSize}) << "the pool is created once";
  std::map<DeviceStreamDriver::Handle, int> uses;
  for (const auto& s : got) ++uses[s.handle];
  EXPECT_EQ(uses.size(), size_t{DeviceStreamRegistry::kPoolSize});
  for (const auto& [h, n] : uses) EXPECT_EQ(n, 2) << "64 requests over 32 streams: each twice";
}

TEST(DeviceStreams, ADeviceOutOfRangeIsAValueErrorNamingTheCount) {
  FakeStreams d;
  DeviceStreamRegistry r(d, 2, "fake");
  for (int bad : {-1, 2, 7}) {
    try {
      r.current(bad);
      FAIL() << "expected a ValueError for device " << bad;
    } catch (const ValueError& e) {
      const std::string m = e.what();
      EXPECT_NE(m.find("fake:" + std::to_string(bad)), std::string::npos) << m;
      EXPECT_NE(m.find("2 devices"), std::string::npos) << m;
    }
  }
  EXPECT_THROW(r.from_pool(2, false), ValueError);
  EXPECT_THROW(r.set_current(DeviceStream{5, 0}), ValueError);
  EXPECT_TRUE(d.created.empty()) << "a bad request creates nothing";
  DeviceStreamRegistry none(d, 0, "fake");
  EXPECT_THROW(none.current(0), ValueError);
}

}  // namespace
}  // namespace ember
