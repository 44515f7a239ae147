#pragma once
/// Dispatch keys: which layer (autograd, tracer) or backend (CPU, CUDA, ...) handles a call.

#include <cstdint>
#include <optional>
#include <ostream>
#include <string_view>

#include "c10/core/Device.h"
#include "c10/core/Layout.h"
#include "c10/macros/Export.h"

namespace ember {

// Note [Dispatch key order]: a runtime key's value is its bit in DispatchKeySet, and a
// higher bit is a higher priority: a call goes to the highest key present. Gaps leave
// room for more keys without renumbering. Alias keys (>= 64) never appear in a key set;
// they exist only at registration and stand for several runtime keys.
enum class DispatchKey : uint8_t {
  Undefined = 0,
  // Dense backends.
  CPU = 1,
  CUDA = 2,
  Meta = 3,
  PrivateUse1 = 4,  // Note [Device slots]: one key per out-of-tree device slot
  PrivateUse2 = 5,
  PrivateUse3 = 6,
  PrivateUse4 = 7,
  // Layout backends.
  MkldnnCPU = 10,
  SparseCPU = 11,
  SparseCUDA = 12,
  SparseCsrCPU = 13,
  SparseCsrCUDA = 14,
  // Layers above the backends.
  BackendSelect = 20,
  ADInplaceOrView = 22,
  AutogradOther = 25,
  AutogradCPU = 26,
  AutogradCUDA = 27,
  AutogradPrivateUse1 = 28,
  AutogradPrivateUse2 = 29,
  AutogradPrivateUse3 = 30,
  AutogradPrivateUse4 = 31,
  Tracer = 40,
  AutocastCPU = 42,  // above the tracer, as in PyTorch: a trace records autocast's casts
  Profiler = 45,
  // Alias keys, registration only.
  Autograd = 64,
  CompositeExplicitAutograd = 65,
  CompositeImplicitAutograd = 66,
};

/// Number of runtime keys (bits of a DispatchKeySet).
inline constexpr int kNumRuntimeKeys = 64;

/// "CPU", "AutogradCPU", "CompositeImplicitAutograd", ...
EMBER_API const char* dispatch_key_name(DispatchKey k);
/// The key with that name, if any.
EMBER_API std::optional<DispatchKey> parse_dispatch_key(std::string_view name);

constexpr bool is_alias_key(DispatchKey k) { return static_cast<uint8_t>(k) >= 64; }
/// Dense and layout backends: the keys CompositeExplicitAutograd covers.
constexpr bool is_backend_key(DispatchKey k) {
  auto v = static_cast<uint8_t>(k);
  return (v >= 1 && v <= 9) || (v >= 10 && v <= 19);
}
/// Note [Layout keys]: the dense backends (CPU, CUDA, Meta, PrivateUse1-4) are the keys that
/// CompositeExplicitAutograd and CompositeImplicitAutograd kernels fill in for; the layout
/// backends (MkldnnCPU, Sparse*, SparseCsr*) take only kernels registered for them.
constexpr bool is_dense_backend_key(DispatchKey k) {
  auto v = static_cast<uint8_t>(k);
  return v >= 1 && v <= 9;
}
constexpr bool is_autograd_key(DispatchKey k) {
  auto v = static_cast<uint8_t>(k);
  return v >= 25 && v <= 34;
}

/// The autograd key of a backend: AutogradCPU for CPU, SparseCPU, MkldnnCPU and
/// SparseCsrCPU; AutogradOther where no per-backend key exists (Meta).
EMBER_API DispatchKey autograd_key_of(DispatchKey backend);
/// The backend key for tensors on a device with a layout (CPU + Sparse -> SparseCPU).
/// PrivateUse1-4 (out-of-tree device slots) have PrivateUse1-4 and AutogradPrivateUse1-4.
EMBER_API DispatchKey backend_key_of(Device device, Layout layout = Layout::Strided);

inline std::ostream& operator<<(std::ostream& os, DispatchKey k) {
  return os << dispatch_key_name(k);
}

}  // namespace ember
