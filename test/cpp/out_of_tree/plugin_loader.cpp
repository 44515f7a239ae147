// Loads an out-of-tree backend plugin (examples/out_of_tree_backend, built against the
// installed Ember package) into this process, runs tensors on its device, unloads it, and
// checks the dispatcher is exactly as it was before. The plugin's path comes from
// EMBER_TOY_PLUGIN; run_plugin_test.sh builds it and sets it.
//
// Not part of ember_cpp_tests (its name does not end in _test.cpp): the device name can be
// set once per process, and the test needs a process where no other test touched
// PrivateUse1.
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <link.h>

#include <cstdint>
#include <cstdlib>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "ember/generated/ops/empty.h"
#include "ember/generated/ops/view.h"
#include "test/cpp/ember_api.h"

namespace ember {
namespace {

// An operator of the loader's own, with a CPU kernel only: on toy tensors only the
// plugin's fallback serves it.
Tensor probe_binary_cpu(const Tensor& self, const Tensor&) { return self; }
EMBER_LIBRARY(ootprobe, m) { m.def("binary(Tensor self, Tensor other) -> Tensor"); }
EMBER_LIBRARY_IMPL(ootprobe, CPU, m) { m.impl("binary", EMBER_FN(probe_binary_cpu)); }

// Operators whose dispatch tables the plugin changes: two with toy kernels, and one that
// only its fallback serves.
constexpr const char* kOps[] = {"aten::empty.memory_format", "aten::view", "ootprobe::binary"};

std::string plugin_path() {
  const char* p = std::getenv("EMBER_TOY_PLUGIN");
  return p ? p : "";
}

const OperatorEntry& entry(const char* op) {
  return Dispatcher::singleton().find_op_or_throw(op).entry();
}

std::map<std::string, std::string> dump_tables() {
  std::map<std::string, std::string> tables;
  for (const char* op : kOps) tables[op] = entry(op).dump_table();
  return tables;
}

// Paths of the loaded objects named libember.so*: the plugin must bind to the copy this
// process already has (matched by SONAME), or it registers into a second dispatcher.
std::vector<std::string> loaded_libembers() {
  std::vector<std::string> paths;
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* out) {
        std::string_view path = info->dlpi_name ? info->dlpi_name : "";
        std::string_view base = path.substr(path.rfind('/') + 1);
        if (base.starts_with("libember.so")) {
          static_cast<std::vector<std::string>*>(out)->emplace_back(path);
        }
        return 0;
      },
      &paths);
  return paths;
}

// The plugin's extern "C" probes.
struct Probes {
  using Fn = int64_t (*)();
  Fn empty_calls = nullptr;
  Fn view_calls = nullptr;
  Fn fallback_calls = nullptr;
  Fn live_allocations = nullptr;
};

Probes find_probes(void* handle) {
  auto sym = [&](const char* name) {
    auto fn = reinterpret_cast<Probes::Fn>(dlsym(handle, name));
    EXPECT_NE(fn, nullptr) << "the plugin does not export " << name << ": " << dlerror();
    return fn;
  };
  return Probes{sym("toy_empty_calls"), sym("toy_view_calls"), sym("toy_fallback_calls"),
                sym("toy_live_allocations")};
}

// Everything done with toy tensors while the plugin is loaded; every tensor it makes is
// destroyed when it returns.
void use_toy_device(const Probes& probes) {
  const Device toy("toy");
  EXPECT_EQ(toy.type(), DeviceType::PrivateUse1);
  EXPECT_EQ(device_type_name(DeviceType::PrivateUse1), "toy");

  // A factory: BackendSelect routes it by the device argument to the toy kernel.
  Tensor t = empty({2, 3}, TensorOptions().device(toy));
  EXPECT_EQ(probes.empty_calls(), 1);
  EXPECT_EQ(probes.live_allocations(), 1);
  EXPECT_EQ(t.device(), toy);
  EXPECT_EQ(t.dtype(), ScalarType::Float);
  EXPECT_EQ(t.sizes().vec(), (std::vector<int64_t>{2, 3}));
  EXPECT_TRUE(t.key_set().has(DispatchKey::PrivateUse1));
  float* data = static_cast<float*>(t.data_ptr());
  ASSERT_NE(data, nullptr);
  for (int i = 0; i < 6; ++i) data[i] = static_cast<float>(i);

  // CPU tensors are untouched by the plugin.
  Tensor cpu = empty({4});
  EXPECT_EQ(cpu.device(), Device(DeviceType::CPU));
  EXPECT_EQ(probes.empty_calls(), 1);

  // view, unboxed and boxed: the toy kernel, sharing the storage.
  Tensor v = view(t, {3, -1});
  EXPECT_EQ(probes.view_calls(), 1);
  EXPECT_EQ(v.sizes().vec(), (std::vector<int64_t>{3, 2}));
  EXPECT_TRUE(v.storage().is_alias_of(t.storage()));
  EXPECT_EQ(static_cast<float*>(v.data_ptr())[5], 5.0f);
  Stack stack{IValue(t), IValue(std::vector<int64_t>{6})};
  Dispatcher::singleton().find_op_or_throw("aten::view").call_boxed(&stack);
  EXPECT_EQ(probes.view_calls(), 2);
  ASSERT_EQ(stack.size(), 1u);
  EXPECT_EQ(stack[0].to_tensor().sizes().vec(), (std::vector<int64_t>{6}));
  stack.clear();

  // An error raised inside the plugin's kernel reaches the caller with its type.
  EXPECT_THROW(view(t, {4}), ValueError);
  EXPECT_EQ(probes.view_calls(), 3);

  // An operator with a schema but no toy kernel: the plugin's boxed fallback names it.
  stack = {IValue(t), IValue(v)};
  try {
    Dispatcher::singleton().find_op_or_throw("ootprobe::binary").call_boxed(&stack);
    ADD_FAILURE() << "ootprobe::binary on toy tensors did not raise";
  } catch (const NotImplementedError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("ootprobe::binary"), std::string::npos) << msg;
    EXPECT_NE(msg.find("'toy' device"), std::string::npos) << msg;
  }
  EXPECT_EQ(probes.fallback_calls(), 1);
  stack.clear();
  EXPECT_EQ(probes.live_allocations(), 1);  // t and its views share one block
}

// What each probed operator has at PrivateUse1 ("missing kernel", or a kernel of Ember's).
std::map<std::string, std::string> before_entries() {
  std::map<std::string, std::string> out;
  for (const char* op : kOps) out[op] = entry(op).lookup(DispatchKey::PrivateUse1).debug;
  return out;
}

// One load/use/unload cycle; the dispatcher must come out of it as it went in.
void load_use_unload(const std::string& path) {
  const std::map<std::string, std::string> before = dump_tables();
  // Before the load: views have their CompositeExplicitAutograd kernel on every device
  // (geometry only), the other operators nothing at PrivateUse1.
  const std::map<std::string, std::string> expect_before = before_entries();
  for (const char* op : kOps) {
    ASSERT_EQ(entry(op).lookup(DispatchKey::PrivateUse1).debug.find("toy_backend.cpp"), std::string::npos)
        << op << " already has a toy entry before the plugin is loaded";
  }

  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(handle, nullptr) << "dlopen(" << path << "): " << dlerror();
  EXPECT_EQ(Dispatcher::singleton().library_errors(), std::vector<std::string>{});
  EXPECT_EQ(loaded_libembers().size(), 1u)
      << "the plugin loaded a second libember: " << ::testing::PrintToString(loaded_libembers());

  // The plugin's registrations are in the tables.
  for (const char* op : kOps) {
    const KernelFunction& k = entry(op).lookup(DispatchKey::PrivateUse1);
    EXPECT_NE(k.debug.find("toy_backend.cpp"), std::string::npos)
        << op << " at PrivateUse1: " << k.debug << "\n" << entry(op).dump_table();
  }
  EXPECT_NE(entry("aten::view").lookup(DispatchKey::PrivateUse1).unboxed, nullptr);
  EXPECT_EQ(entry("ootprobe::binary").lookup(DispatchKey::PrivateUse1).unboxed, nullptr)
      << "ootprobe::binary should reach the toy fallback";

  const Probes probes = find_probes(handle);
  if (!::testing::Test::HasFailure()) use_toy_device(probes);
  if (probes.live_allocations) {
    EXPECT_EQ(probes.live_allocations(), 0) << "toy tensors outlive the test; cannot unload";
  }

  ASSERT_EQ(dlclose(handle), 0) << dlerror();
  void* still = dlopen(path.c_str(), RTLD_NOW | RTLD_NOLOAD);
  EXPECT_EQ(still, nullptr) << "the plugin is still mapped after dlclose() (is it built with "
                               "-fno-gnu-unique?)";
  if (still != nullptr) dlclose(still);

  // Every registration was undone: the tables are as before, PrivateUse1 as it was,
  // and the allocator registry no longer points into the unloaded code.
  EXPECT_EQ(dump_tables(), before);
  EXPECT_EQ(before_entries(), expect_before);
  EXPECT_THROW(get_allocator(DeviceType::PrivateUse1), Error);
  EXPECT_EQ(Dispatcher::singleton().library_errors(), std::vector<std::string>{});
}

TEST(OutOfTreePlugin, LoadRunUnloadRestoresTheDispatcher) {
  const std::string path = plugin_path();
  ASSERT_FALSE(path.empty()) << "set EMBER_TOY_PLUGIN to the path of libember_toy_backend.so";
  // Twice: a second load re-registers cleanly (the device name is kept, and is the same).
  for (int round = 1; round <= 2 && !HasFatalFailure(); ++round) {
    SCOPED_TRACE("load #" + std::to_string(round));
    load_use_unload(path);
  }
}

}  // namespace
}  // namespace ember
