#pragma once
/// A set of runtime dispatch keys as a 64-bit bitset; the highest bit wins a call.

#include <cstdint>
#include <initializer_list>
#include <ostream>
#include <string>

#include "c10/core/DispatchKey.h"

namespace ember {

/// A set of runtime DispatchKeys (see Note [Dispatch key order]).
class DispatchKeySet {
 public:
  constexpr DispatchKeySet() = default;
  constexpr explicit DispatchKeySet(DispatchKey k)
      : bits_(k == DispatchKey::Undefined ? 0 : uint64_t{1} << static_cast<uint8_t>(k)) {}
  constexpr DispatchKeySet(std::initializer_list<DispatchKey> keys) {
    for (auto k : keys) bits_ |= DispatchKeySet(k).bits_;
  }
  /// Every runtime key.
  static constexpr DispatchKeySet full() { return from_raw(~uint64_t{0} & ~uint64_t{1}); }
  static constexpr DispatchKeySet from_raw(uint64_t bits) {
    DispatchKeySet s;
    s.bits_ = bits;
    return s;
  }
  /// The keys of an alias key (Autograd, CompositeExplicitAutograd, ...) or {k} itself.
  EMBER_API static DispatchKeySet of_alias(DispatchKey k);

  constexpr uint64_t raw() const { return bits_; }
  constexpr bool empty() const { return bits_ == 0; }
  constexpr bool has(DispatchKey k) const {
    return k != DispatchKey::Undefined && (bits_ >> static_cast<uint8_t>(k)) & 1;
  }
  constexpr DispatchKeySet operator|(DispatchKeySet o) const { return from_raw(bits_ | o.bits_); }
  constexpr DispatchKeySet operator&(DispatchKeySet o) const { return from_raw(bits_ & o.bits_); }
  /// Set difference.
  constexpr DispatchKeySet operator-(DispatchKeySet o) const { return from_raw(bits_ & ~o.bits_); }
  constexpr DispatchKeySet add(DispatchKey k) const { return *this | DispatchKeySet(k); }
  constexpr DispatchKeySet remove(DispatchKey k) const { return *this - DispatchKeySet(k); }
  constexpr bool operator==(const DispatchKeySet&) const = default;

  /// The highest-priority key, Undefined for the empty set.
  constexpr DispatchKey highest() const {
    // bits_ | 1 keeps the empty set at bit 0 (Undefined) without a branch.
    return static_cast<DispatchKey>(63 - __builtin_clzll(bits_ | 1));
  }
  /// The keys strictly below k: what a layer at k redispatches to.
  constexpr DispatchKeySet below(DispatchKey k) const {
    return from_raw(bits_ & ((uint64_t{1} << static_cast<uint8_t>(k)) - 1));
  }

  /// "DispatchKeySet(CPU, ADInplaceOrView, AutogradCPU)".
  EMBER_API std::string str() const;

 private:
  uint64_t bits_ = 0;
};

inline std::ostream& operator<<(std::ostream& os, DispatchKeySet s) { return os << s.str(); }

/// The keys of a fresh tensor on a device with a layout: backend, autograd, ADInplaceOrView.
EMBER_API DispatchKeySet tensor_key_set(Device device, Layout layout = Layout::Strided);

}  // namespace ember
