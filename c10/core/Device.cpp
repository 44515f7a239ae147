#include "c10/core/Device.h"

#include <mutex>

#include "c10/util/Exception.h"

namespace ember {
namespace {

// Note [Device slots]: out-of-tree devices take one of kNumPrivateUseSlots device types
// (PrivateUse1 ... PrivateUse4, each with its dispatch key and autograd key) by name when
// they load, and give it back when they unload, so several backends share one process and
// none hard-codes a slot. torch's rename_privateuse1_backend names slot 0 for good.
const char* const kDefaultSlotNames[kNumPrivateUseSlots] = {"privateuseone", "privateusetwo", "privateusethree",
                                                            "privateusefour"};

struct Slot {
  std::string name;
  bool named = false;      // renamed or registered
  bool permanent = false;  // named by rename_privateuse1_backend: never released
};

std::mutex slots_mutex;
Slot slots[kNumPrivateUseSlots] = {{kDefaultSlotNames[0]}, {kDefaultSlotNames[1]}, {kDefaultSlotNames[2]},
                                   {kDefaultSlotNames[3]}};

std::string slot_name(int i) {
  std::lock_guard<std::mutex> lock(slots_mutex);
  return slots[i].name;
}

bool is_identifier(std::string_view s) {
  if (s.empty() || !(s[0] >= 'a' && s[0] <= 'z')) return false;
  for (char c : s) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
  }
  return true;
}

void check_slot_name(const char* op, std::string_view name) {
  EMBER_CHECK_VALUE(is_identifier(name), op, "(): expected 'name' to be a lower-case identifier, but got '", name,
                    "'");
  EMBER_CHECK_VALUE(name != "cpu" && name != "cuda" && name != "meta", op,
                    "(): expected 'name' not to name a built-in device, but got '", name, "'");
}

DeviceType slot_type(int i) { return static_cast<DeviceType>(static_cast<int>(DeviceType::PrivateUse1) + i); }

}  // namespace

std::string device_type_name(DeviceType t) {
  switch (t) {
    case DeviceType::CPU: return "cpu";
    case DeviceType::CUDA: return "cuda";
    case DeviceType::Meta: return "meta";
    case DeviceType::PrivateUse1:
    case DeviceType::PrivateUse2:
    case DeviceType::PrivateUse3:
    case DeviceType::PrivateUse4: return slot_name(privateuse_slot(t));
  }
  return "invalid";
}

void rename_privateuse1_backend(std::string_view name) {
  check_slot_name("rename_privateuse1_backend", name);
  std::lock_guard<std::mutex> lock(slots_mutex);
  for (int i = 1; i < kNumPrivateUseSlots; ++i) {
    EMBER_CHECK(!slots[i].named || slots[i].name != name, "rename_privateuse1_backend(): '", name,
                "' already names device slot ", i + 1, "; a name can be given to one slot only");
  }
  Slot& s = slots[0];
  if (s.named) {
    EMBER_CHECK(s.name == name, "rename_privateuse1_backend(): PrivateUse1 is already named '", s.name,
                "'; it can be renamed only once per process, but got '", name,
                "' (a backend that shares the process with others takes a slot with register_device_type)");
    s.permanent = true;
    return;
  }
  s = Slot{std::string(name), true, true};
}

DeviceType register_device_type(std::string_view name) {
  check_slot_name("register_device_type", name);
  std::lock_guard<std::mutex> lock(slots_mutex);
  for (int i = 0; i < kNumPrivateUseSlots; ++i) {
    if (slots[i].named && slots[i].name == name) return slot_type(i);
  }
  for (int i = 0; i < kNumPrivateUseSlots; ++i) {
    if (!slots[i].named) {
      slots[i] = Slot{std::string(name), true, false};
      return slot_type(i);
    }
  }
  std::string taken;
  for (int i = 0; i < kNumPrivateUseSlots; ++i) taken += (i ? ", '" : "'") + slots[i].name + "'";
  EMBER_THROW(Error, "register_device_type(): all ", kNumPrivateUseSlots, " out-of-tree device slots are taken (",
              taken, "), so '", name, "' cannot be added; unload a backend first");
}

void release_device_type(DeviceType t) {
  EMBER_CHECK_VALUE(is_privateuse(t), "release_device_type(): expected an out-of-tree device type, but got '",
                    device_type_name(t), "'");
  std::lock_guard<std::mutex> lock(slots_mutex);
  Slot& s = slots[privateuse_slot(t)];
  EMBER_CHECK_VALUE(s.named && !s.permanent, "release_device_type(): device slot ", privateuse_slot(t) + 1, " ('",
                    s.name, "') ", s.named ? "was named by rename_privateuse1_backend and stays" : "is not taken");
  s = Slot{kDefaultSlotNames[privateuse_slot(t)]};
}

std::optional<DeviceType> find_device_type(std::string_view name) {
  if (name == "cpu") return DeviceType::CPU;
  if (name == "cuda") return DeviceType::CUDA;
  if (name == "meta") return DeviceType::Meta;
  std::lock_guard<std::mutex> lock(slots_mutex);
  for (int i = 0; i < kNumPrivateUseSlots; ++i) {
    if (slots[i].name == name) return slot_type(i);
  }
  return std::nullopt;
}

Device::Device(std::string_view text) : type_(DeviceType::CPU), index_(-1) {
  auto colon = text.find(':');
  std::string_view type = text.substr(0, colon);
  if (const auto t = find_device_type(type)) {
    type_ = *t;
  } else {
    std::string known = "cpu, cuda, meta";
    {
      std::lock_guard<std::mutex> lock(slots_mutex);
      for (const Slot& s : slots) known += s.named ? ", " + s.name : "";
    }
    EMBER_THROW(ValueError, "Device(): expected a device type (", known, "), but got '", text, "'");
  }
  if (colon == std::string_view::npos) return;
  std::string_view digits = text.substr(colon + 1);
  EMBER_CHECK_VALUE(!digits.empty() && digits.size() <= 3 &&
                        digits.find_first_not_of("0123456789") == std::string_view::npos,
                    "Device(): expected a device index after ':' in '", text,
                    "', e.g. 'cuda:1'");
  int value = std::stoi(std::string(digits));
  EMBER_CHECK_VALUE(value <= 127, "Device(): expected a device index below 128, but got ",
                    value);
  index_ = static_cast<int8_t>(value);
}

std::string Device::str() const {
  std::string s = device_type_name(type_);
  if (index_ >= 0) s += ":" + std::to_string(index_);
  return s;
}

}  // namespace ember
