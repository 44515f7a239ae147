#pragma once
/// Helpers the generated structured wrappers call.
///
/// Note [Structured kernels]: an op family (functional, in-place, out=) is one YAML entry
/// marked `structured: True` (the out= overload) plus `structured_delegate` entries. Its
/// author writes two functions: `<op>_meta(inputs...) -> TensorMeta` (checks arguments,
/// computes each output's sizes and dtype; no data) and `<op>_out_<backend>(inputs...,
/// out)` (writes into an output of exactly that shape and dtype). The generator builds the
/// three forms for each backend from them, and a Meta kernel that runs the meta function
/// alone.

#include <initializer_list>

#include "c10/core/Device.h"
#include "c10/core/DispatchKey.h"
#include "c10/core/Layout.h"
#include "c10/core/Tensor.h"
#include "c10/core/TensorMeta.h"

namespace ember {

/// A new tensor with the meta's sizes and dtype on device.
EMBER_API Tensor make_output(const TensorMeta& meta, Device device);
/// The backend key a factory with this device and layout runs on (BackendSelect's
/// wrappers): backend_key_of, and for CUDA, first the device check (a RuntimeError saying
/// why there is no device, as PyTorch raises) that also opens the kernels (Note [The CUDA
/// library]).
EMBER_API DispatchKey select_backend_key(Device device, Layout layout);
/// The device of a structured op's output on a device backend: the first operand that is
/// not a CPU 0-d tensor (which takes part as a number), else the first operand's.
EMBER_API Device output_device_of(std::initializer_list<const Tensor*> inputs);
/// Checks that an in-place op's result fits `self`: same sizes, dtype castable to self's.
EMBER_API void check_inplace(const TensorMeta& meta, const Tensor& self, const char* op);
/// Makes `out` fit the meta: checks that the result dtype can be cast to out's dtype (is
/// out's dtype, for a meta with exact_out_dtype), then resizes it (reusing its storage when
/// large enough).
EMBER_API void prepare_out(const TensorMeta& meta, const Tensor& out, const char* op);

}  // namespace ember
