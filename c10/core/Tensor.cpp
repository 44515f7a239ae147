#include "c10/core/Tensor.h"

#include <atomic>
#include <complex>

#include "c10/util/Exception.h"
#include "c10/util/Half.h"

namespace ember {
namespace {

int64_t wrap_dim(const char* op, int64_t d, int64_t dim) {
  EMBER_CHECK_INDEX(d >= -dim && d < dim, op, "(): expected 'dim' in [", -dim, ", ",
                    dim - 1, "] for a ", dim, "-D tensor, but got ", d);
  return d < 0 ? d + dim : d;
}

template <class T> constexpr ScalarType scalar_type_of = ScalarType::Undefined;
template <> constexpr ScalarType scalar_type_of<uint8_t> = ScalarType::Byte;
template <> constexpr ScalarType scalar_type_of<int8_t> = ScalarType::Char;
template <> constexpr ScalarType scalar_type_of<int16_t> = ScalarType::Short;
template <> constexpr ScalarType scalar_type_of<int32_t> = ScalarType::Int;
template <> constexpr ScalarType scalar_type_of<int64_t> = ScalarType::Long;
template <> constexpr ScalarType scalar_type_of<float> = ScalarType::Float;
template <> constexpr ScalarType scalar_type_of<double> = ScalarType::Double;
template <> constexpr ScalarType scalar_type_of<bool> = ScalarType::Bool;
template <> constexpr ScalarType scalar_type_of<std::complex<float>> = ScalarType::ComplexFloat;
template <> constexpr ScalarType scalar_type_of<std::complex<double>> = ScalarType::ComplexDouble;
template <> constexpr ScalarType scalar_type_of<Half> = ScalarType::Half;
template <> constexpr ScalarType scalar_type_of<BFloat16> = ScalarType::BFloat16;

}  // namespace

int64_t Tensor::size(int64_t d) const { return sizes()[wrap_dim("size", d, dim())]; }
int64_t Tensor::stride(int64_t d) const { return strides()[wrap_dim("stride", d, dim())]; }

template <class T>
T* Tensor::data_ptr_as() const {
  EMBER_CHECK_TYPE(scalar_type() == scalar_type_of<T>, "data_ptr(): expected a tensor of dtype ",
                   scalar_type_of<T>, ", but got ", scalar_type());
  return static_cast<T*>(data_ptr());
}

void Tensor::check_accessor(size_t n) const {
  EMBER_CHECK_VALUE(dim() == static_cast<int64_t>(n), "accessor(): expected a ", n,
                    "-D tensor (the accessor's rank), but got a ", dim(), "-D tensor");
}

#define EMBER_INSTANTIATE_DATA_PTR(T) template EMBER_API T* Tensor::data_ptr_as<T>() const;
EMBER_INSTANTIATE_DATA_PTR(uint8_t)
EMBER_INSTANTIATE_DATA_PTR(int8_t)
EMBER_INSTANTIATE_DATA_PTR(int16_t)
EMBER_INSTANTIATE_DATA_PTR(int32_t)
EMBER_INSTANTIATE_DATA_PTR(int64_t)
EMBER_INSTANTIATE_DATA_PTR(float)
EMBER_INSTANTIATE_DATA_PTR(double)
EMBER_INSTANTIATE_DATA_PTR(bool)
EMBER_INSTANTIATE_DATA_PTR(Half)
EMBER_INSTANTIATE_DATA_PTR(BFloat16)
EMBER_INSTANTIATE_DATA_PTR(std::complex<float>)
EMBER_INSTANTIATE_DATA_PTR(std::complex<double>)
#undef EMBER_INSTANTIATE_DATA_PTR

// Note [Tensor printing hook]: printing in PyTorch's style needs dtype conversions and
// summarisation logic that live in aten (aten/Print.cpp), and c10 includes nothing of
// aten. So c10 keeps a function pointer, which aten's printer sets during libember's static
// initialisation, before any user code can print. A pointer rather than a c10 declaration
// defined in aten keeps c10 linkable and testable on its own; the atomic is constant-
// initialised, so no static-initialisation order matters.
namespace {
constinit std::atomic<TensorPrinter> tensor_printer{nullptr};
}  // namespace

void set_tensor_printer(TensorPrinter printer) {
  tensor_printer.store(printer, std::memory_order_release);
}

std::string Tensor::str() const {
  if (!defined()) return "Tensor(undefined)";
  if (TensorPrinter print = tensor_printer.load(std::memory_order_acquire)) return print(*this);
  // Only without aten's printer (c10 on its own): the geometry, no values.
  return ember::str("Tensor(sizes=", sizes(), ", dtype=", scalar_type(), ", device=", device(),
                    ")");
}

}  // namespace ember
