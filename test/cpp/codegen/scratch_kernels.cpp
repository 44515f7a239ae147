// The one kernel file of the scratch operator library (scratch_ops.yaml).
#include "c10/util/Exception.h"
#include "ember/generated/ops/empty.h"
#include "scratch/generated/Functions.h"
#include "scratch/generated/NativeFunctions.h"

namespace ember::native {

TensorMeta scratch_axpy_meta(const Tensor& self, const Tensor& other, const Scalar& alpha) {
  EMBER_CHECK_TYPE(self.scalar_type() == ScalarType::Float && other.scalar_type() == ScalarType::Float,
                   "scratch_axpy(): expected float32 tensors, but got ", self.scalar_type(), " and ",
                   other.scalar_type());
  EMBER_CHECK_VALUE(self.sizes() == other.sizes(), "scratch_axpy(): expected 'other' to have the shape ",
                    self.sizes(), " of 'self', but got ", other.sizes());
  EMBER_CHECK_VALUE(self.is_contiguous() && other.is_contiguous(),
                    "scratch_axpy(): expected contiguous inputs");
  return TensorMeta{DimVector(self.sizes()), ScalarType::Float};
}

void scratch_axpy_out_cpu(const Tensor& self, const Tensor& other, const Scalar& alpha, const Tensor& out) {
  const float a = alpha.to<float>();
  const float* x = self.data_ptr_as<float>();
  const float* y = other.data_ptr_as<float>();
  float* o = out.data_ptr_as<float>();
  for (int64_t i = 0; i < out.numel(); ++i) o[i] = x[i] + a * y[i];
}

Tensor scratch_double(const Tensor& self) { return scratch_axpy(self, self, 1); }

Tensor scratch_defaults(const Tensor& self, int64_t reduction, MemoryFormat memory_format,
                        ScalarType dtype, IntArrayRef pad) {
  EMBER_CHECK_VALUE(pad.size() == 2, "scratch_defaults(): expected 'pad' of 2 ints, but got ", pad);
  Tensor out = empty({5}, TensorOptions(ScalarType::Long).device(self.device()));
  int64_t* p = out.data_ptr_as<int64_t>();
  p[0] = reduction;
  p[1] = static_cast<int64_t>(memory_format);
  p[2] = static_cast<int64_t>(dtype);
  p[3] = pad[0];
  p[4] = pad[1];
  return out;
}

}  // namespace ember::native
