#pragma once
/// dispatch_types: dispatch_all_types for the CUDA kernels, which take every dtype but the
/// complex ones (NotImplementedError naming the op and the dtype for those).
#include "aten/native/Dispatch.h"
#include "c10/util/Exception.h"

namespace ember::native::cuda {

template <class F>
void dispatch_types(ScalarType t, const char* op, F&& f) {
  EMBER_CHECK_NOT_IMPLEMENTED(!is_complex(t), op, "(): complex dtypes have no CUDA kernels yet, but got ", t,
                              " (compute on the CPU: .cpu())");
  dispatch_all_types(t, op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (!kIsComplex<T>) f(tag);
  });
}

}  // namespace ember::native::cuda
