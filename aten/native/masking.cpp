// Boolean masks: the argument check their backends share (masking.h) and argwhere
// (composite). The kernels of masked_fill, masked_select, masked_scatter and nonzero are in
// cpu/masking.cpp.
#include "aten/native/masking.h"

#include "c10/util/Exception.h"
#include "ember/generated/ops/nonzero.h"

namespace ember::native {

void check_mask(const char* op, const Tensor& mask) {
  EMBER_CHECK(mask.scalar_type() == ScalarType::Bool, op, "(): expected a bool 'mask', but got "
              "mask of dtype ", mask.scalar_type());
}

Tensor argwhere(const Tensor& self) { return ember::nonzero(self); }

}  // namespace ember::native
