#pragma once
/// Where a tensor lives: a device type and an optional index ("cpu", "cuda:1").

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>

#include "c10/macros/Export.h"

namespace ember {

/// The kinds of device Ember knows. PrivateUse1 to PrivateUse4 are the slots of out-of-tree
/// devices, each named at run time (Note [Device slots] in Device.cpp).
enum class DeviceType : int8_t { CPU, CUDA, Meta, PrivateUse1, PrivateUse2, PrivateUse3, PrivateUse4 };

/// How many out-of-tree device types one process can hold at once.
inline constexpr int kNumPrivateUseSlots = 4;
inline constexpr int kNumDeviceTypes = 7;

/// PrivateUse1 ... PrivateUse4.
constexpr bool is_privateuse(DeviceType t) {
  return static_cast<int>(t) >= static_cast<int>(DeviceType::PrivateUse1) &&
         static_cast<int>(t) < static_cast<int>(DeviceType::PrivateUse1) + kNumPrivateUseSlots;
}
/// 0 for PrivateUse1 ... 3 for PrivateUse4.
constexpr int privateuse_slot(DeviceType t) {
  return static_cast<int>(t) - static_cast<int>(DeviceType::PrivateUse1);
}

// libtorch's device type constants (torch::kCPU, ...).
inline constexpr DeviceType kCPU = DeviceType::CPU;
inline constexpr DeviceType kCUDA = DeviceType::CUDA;
inline constexpr DeviceType kMeta = DeviceType::Meta;
inline constexpr DeviceType kPrivateUse1 = DeviceType::PrivateUse1;

/// The lower-case name ("cpu", "cuda", "meta", or a slot's registered name; an unnamed
/// slot is "privateuseone" ... "privateusefour").
EMBER_API std::string device_type_name(DeviceType t);

/// Renames PrivateUse1 (default "privateuseone"), once per process; later renames to a
/// different name throw. The name must be a lower-case identifier not naming another type.
/// (torch's API; a backend that may share the process with others calls
/// register_device_type instead.)
EMBER_API void rename_privateuse1_backend(std::string_view name);

/// The device type named `name`: the slot that already has the name, else the first free
/// slot, which takes it. Throws ValueError for a name that is not a lower-case identifier
/// or names a built-in type, and Error (RuntimeError in Python) when every slot is taken.
EMBER_API DeviceType register_device_type(std::string_view name);
/// Frees a slot register_device_type gave out (a backend's unload): its name is forgotten
/// and its default name comes back. Releasing a free slot or a built-in type throws.
EMBER_API void release_device_type(DeviceType t);
/// The type a name means now ("cpu", ..., or a named slot), if any.
EMBER_API std::optional<DeviceType> find_device_type(std::string_view name);

/// A device type plus an index (-1: "the current one").
class EMBER_API Device {
 public:
  constexpr Device(DeviceType type, int8_t index = -1) : type_(type), index_(index) {}
  /// Parses "cpu", "cuda", "cuda:1", "meta", or the PrivateUse1 name; throws ValueError.
  explicit Device(std::string_view text);

  constexpr DeviceType type() const { return type_; }
  constexpr int8_t index() const { return index_; }
  constexpr bool has_index() const { return index_ >= 0; }
  constexpr bool is_cpu() const { return type_ == DeviceType::CPU; }
  constexpr bool is_cuda() const { return type_ == DeviceType::CUDA; }
  constexpr bool operator==(const Device&) const = default;
  /// "cpu", "cuda:1".
  std::string str() const;

 private:
  DeviceType type_;
  int8_t index_;
};

inline std::ostream& operator<<(std::ostream& os, const Device& d) { return os << d.str(); }

}  // namespace ember
