#include "c10/core/LocalDispatchKeySet.h"

namespace ember::detail {

// Zero-initialised: see Note [TLS key sets].
constinit thread_local RawLocalKeySets tls_key_sets __attribute__((tls_model("initial-exec")));

}  // namespace ember::detail
