#include "c10/core/TensorOptions.h"

#include "c10/util/Exception.h"

namespace ember {

Tensor TensorOptions::finish(Tensor t) const {
  EMBER_CHECK_NOT_IMPLEMENTED(!requires_grad_.value_or(false),
                              "TensorOptions: requires_grad=True needs the autograd layer, which "
                              "Ember does not have yet");
  return t;
}

}  // namespace ember
