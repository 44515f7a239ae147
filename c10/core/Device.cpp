#include "c10/core/Device.h"

#include <mutex>

#include "c10/util/Exception.h"

namespace ember {
namespace {

std::mutex privateuse1_mutex;
std::string privateuse1_name = "privateuseone";
bool privateuse1_renamed = false;

std::string current_privateuse1_name() {
  std::lock_guard<std::mutex> lock(privateuse1_mutex);
  return privateuse1_name;
}

bool is_identifier(std::string_view s) {
  if (s.empty() || !(s[0] >= 'a' && s[0] <= 'z')) return false;
  for (char c : s) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
  }
  return true;
}

}  // namespace

std::string device_type_name(DeviceType t) {
  switch (t) {
    case DeviceType::CPU: return "cpu";
    case DeviceType::CUDA: return "cuda";
    case DeviceType::Meta: return "meta";
    case DeviceType::PrivateUse1: return current_privateuse1_name();
  }
  return "invalid";
}

void rename_privateuse1_backend(std::string_view name) {
  EMBER_CHECK_VALUE(is_identifier(name),
                    "rename_privateuse1_backend(): expected 'name' to be a lower-case "
                    "identifier, but got '", name, "'");
  EMBER_CHECK_VALUE(name != "cpu" && name != "cuda" && name != "meta",
                    "rename_privateuse1_backend(): expected 'name' not to name a built-in "
                    "device, but got '", name, "'");
  std::lock_guard<std::mutex> lock(privateuse1_mutex);
  if (privateuse1_renamed) {
    EMBER_CHECK(privateuse1_name == name,
                "rename_privateuse1_backend(): PrivateUse1 is already named '",
                privateuse1_name, "'; it can be renamed only once per process, but got '",
                name, "'");
    return;
  }
  privateuse1_name = std::string(name);
  privateuse1_renamed = true;
}

Device::Device(std::string_view text) : type_(DeviceType::CPU), index_(-1) {
  auto colon = text.find(':');
  std::string_view type = text.substr(0, colon);
  if (type == "cpu") {
    type_ = DeviceType::CPU;
  } else if (type == "cuda") {
    type_ = DeviceType::CUDA;
  } else if (type == "meta") {
    type_ = DeviceType::Meta;
  } else if (type == current_privateuse1_name()) {
    type_ = DeviceType::PrivateUse1;
  } else {
    EMBER_THROW(ValueError, "Device(): expected a device type (cpu, cuda, meta, ",
                current_privateuse1_name(), "), but got '", text, "'");
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
