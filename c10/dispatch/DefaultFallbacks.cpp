// Keys that most operators skip: a layer with nothing to do for an op falls through to
// the next key down, at no cost (fallthrough keys are masked out before the lookup).
#include "c10/dispatch/Library.h"

// BackendSelect only matters for factories (which register a kernel for it).
EMBER_LIBRARY_IMPL(_, BackendSelect, m) { m.fallback(ember::CppFunction::fallthrough()); }
// ADInplaceOrView bumps versions and records views once the autograd layer registers
// kernels for in-place and view ops; everything else skips it.
EMBER_LIBRARY_IMPL(_, ADInplaceOrView, m) { m.fallback(ember::CppFunction::fallthrough()); }
// Until the autograd layer lands, autograd keys fall through to the backend.
EMBER_LIBRARY_IMPL(_, AutogradOther, m) { m.fallback(ember::CppFunction::fallthrough()); }
EMBER_LIBRARY_IMPL(_, AutogradCPU, m) { m.fallback(ember::CppFunction::fallthrough()); }
EMBER_LIBRARY_IMPL(_, AutogradCUDA, m) { m.fallback(ember::CppFunction::fallthrough()); }
EMBER_LIBRARY_IMPL(_, AutogradPrivateUse1, m) { m.fallback(ember::CppFunction::fallthrough()); }
