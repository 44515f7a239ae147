// Keys that most operators skip: a layer with nothing to do for an op falls through to
// the next key down, at no cost (fallthrough keys are masked out before the lookup).
#include "c10/dispatch/Library.h"

// BackendSelect only matters for factories (which register a kernel for it).
EMBER_LIBRARY_IMPL(_, BackendSelect, m) { m.fallback(ember::CppFunction::fallthrough()); }
// ADInplaceOrView: version bumps and view records happen in the Autograd kernels (one
// hop less per call; see Note [Autograd kernels] in aten/autograd/Variable.h), so every op
// skips this key.
EMBER_LIBRARY_IMPL(_, ADInplaceOrView, m) { m.fallback(ember::CppFunction::fallthrough()); }
// Ops without an Autograd kernel (non-differentiable ones, whose outputs never require
// grad) fall through to the backend.
EMBER_LIBRARY_IMPL(_, AutogradOther, m) { m.fallback(ember::CppFunction::fallthrough()); }
EMBER_LIBRARY_IMPL(_, AutogradCPU, m) { m.fallback(ember::CppFunction::fallthrough()); }
EMBER_LIBRARY_IMPL(_, AutogradCUDA, m) { m.fallback(ember::CppFunction::fallthrough()); }
EMBER_LIBRARY_IMPL(_, AutogradPrivateUse1, m) { m.fallback(ember::CppFunction::fallthrough()); }
EMBER_LIBRARY_IMPL(_, AutogradPrivateUse2, m) { m.fallback(ember::CppFunction::fallthrough()); }
EMBER_LIBRARY_IMPL(_, AutogradPrivateUse3, m) { m.fallback(ember::CppFunction::fallthrough()); }
EMBER_LIBRARY_IMPL(_, AutogradPrivateUse4, m) { m.fallback(ember::CppFunction::fallthrough()); }
