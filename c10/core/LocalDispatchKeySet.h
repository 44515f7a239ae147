#pragma once
/// Thread-local dispatch keys: included in (Tracer, BackendSelect) or excluded from
/// (a layer running below itself) every call on this thread; RAII guards change them.

#include "c10/core/DispatchKeySet.h"

namespace ember {

/// Keys every call includes by default: BackendSelect, so factories find their backend.
inline constexpr DispatchKeySet kDefaultIncludedKeys{DispatchKey::BackendSelect};

namespace detail {
// Note [TLS key sets]: stored as XOR against the defaults so that the zero-initialised
// (constinit, no TLS guard) state means "defaults", and initial-exec so a read is one
// %fs-relative load even from code inlined into other modules.
struct RawLocalKeySets {
  uint64_t included_xor = 0;
  uint64_t excluded = 0;
};
extern EMBER_API constinit thread_local RawLocalKeySets tls_key_sets
    __attribute__((tls_model("initial-exec")));
}  // namespace detail

/// This thread's included and excluded keys.
struct LocalDispatchKeySet {
  DispatchKeySet included;
  DispatchKeySet excluded;
};

EMBER_ALWAYS_INLINE LocalDispatchKeySet local_dispatch_key_set() {
  const auto& raw = detail::tls_key_sets;
  return {DispatchKeySet::from_raw(raw.included_xor ^ kDefaultIncludedKeys.raw()),
          DispatchKeySet::from_raw(raw.excluded)};
}

/// Sets this thread's key sets (guards use it to restore).
inline void set_local_dispatch_key_set(LocalDispatchKeySet s) {
  detail::tls_key_sets.included_xor = s.included.raw() ^ kDefaultIncludedKeys.raw();
  detail::tls_key_sets.excluded = s.excluded.raw();
}

/// Adds keys to this thread's included set for the guard's scope; on exit removes only
/// the keys it added, so nested guards compose.
class IncludeDispatchKeyGuard {
 public:
  explicit IncludeDispatchKeyGuard(DispatchKeySet keys) {
    auto now = local_dispatch_key_set();
    added_ = keys - now.included;
    set_local_dispatch_key_set({now.included | added_, now.excluded});
  }
  explicit IncludeDispatchKeyGuard(DispatchKey k) : IncludeDispatchKeyGuard(DispatchKeySet(k)) {}
  IncludeDispatchKeyGuard(const IncludeDispatchKeyGuard&) = delete;
  IncludeDispatchKeyGuard& operator=(const IncludeDispatchKeyGuard&) = delete;
  ~IncludeDispatchKeyGuard() {
    auto now = local_dispatch_key_set();
    set_local_dispatch_key_set({now.included - added_, now.excluded});
  }

 private:
  DispatchKeySet added_;
};

/// Adds keys to this thread's excluded set for the guard's scope; on exit removes only
/// the keys it added.
class ExcludeDispatchKeyGuard {
 public:
  explicit ExcludeDispatchKeyGuard(DispatchKeySet keys) {
    auto now = local_dispatch_key_set();
    added_ = keys - now.excluded;
    set_local_dispatch_key_set({now.included, now.excluded | added_});
  }
  explicit ExcludeDispatchKeyGuard(DispatchKey k) : ExcludeDispatchKeyGuard(DispatchKeySet(k)) {}
  ExcludeDispatchKeyGuard(const ExcludeDispatchKeyGuard&) = delete;
  ExcludeDispatchKeyGuard& operator=(const ExcludeDispatchKeyGuard&) = delete;
  ~ExcludeDispatchKeyGuard() {
    auto now = local_dispatch_key_set();
    set_local_dispatch_key_set({now.included, now.excluded - added_});
  }

 private:
  DispatchKeySet added_;
};

}  // namespace ember
