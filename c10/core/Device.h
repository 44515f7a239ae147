#pragma once
/// Where a tensor lives: a device type and an optional index ("cpu", "cuda:1").

#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>

#include "c10/macros/Export.h"

namespace ember {

/// The kinds of device Ember knows; PrivateUse1 is an out-of-tree device.
enum class DeviceType : int8_t { CPU, CUDA, Meta, PrivateUse1 };

// libtorch's device type constants (torch::kCPU, ...).
inline constexpr DeviceType kCPU = DeviceType::CPU;
inline constexpr DeviceType kCUDA = DeviceType::CUDA;
inline constexpr DeviceType kMeta = DeviceType::Meta;
inline constexpr DeviceType kPrivateUse1 = DeviceType::PrivateUse1;

/// The lower-case name ("cpu", "cuda", "meta", or PrivateUse1's registered name).
EMBER_API std::string device_type_name(DeviceType t);

/// Renames PrivateUse1 (default "privateuseone"), once per process; later renames to a
/// different name throw. The name must be a lower-case identifier not naming another type.
EMBER_API void rename_privateuse1_backend(std::string_view name);

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
