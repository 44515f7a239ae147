#include "c10/core/IValue.h"

#include <sstream>

#include "c10/util/Exception.h"

namespace ember {

IValue::IValue(const Scalar& s) {
  switch (s.kind()) {
    case Scalar::Kind::Bool: tag_ = Tag::Bool; v_.i = s.to_long(); break;
    case Scalar::Kind::Int: tag_ = Tag::Int; v_.i = s.to_long(); break;
    case Scalar::Kind::Double: tag_ = Tag::Double; v_.d = s.to_double(); break;
    case Scalar::Kind::Complex: tag_ = Tag::Complex; v_.heap = box(s.to_complex()); break;
  }
}

Tensor IValue::to_tensor() && {
  expect(Tag::Tensor);
  tag_ = Tag::None;
  return Tensor::adopt(v_.t);
}

double IValue::to_double() const {
  if (tag_ == Tag::Int) return static_cast<double>(v_.i);
  expect(Tag::Double);
  return v_.d;
}

std::complex<double> IValue::to_complex() const {
  if (tag_ != Tag::Complex) return to_double();
  return static_cast<detail::HeapBox<std::complex<double>>*>(v_.heap)->value;
}

Scalar IValue::to_scalar() const {
  switch (tag_) {
    case Tag::Int: return Scalar(v_.i);
    case Tag::Double: return Scalar(v_.d);
    case Tag::Bool: return Scalar(v_.i != 0);
    case Tag::Complex: return Scalar(to_complex());
    default:
      EMBER_THROW(TypeError, "expected a Scalar (int, float, bool or complex), but got ",
                  type_name());
  }
}

const char* IValue::tag_name(Tag t) {
  switch (t) {
    case Tag::None: return "None";
    case Tag::Tensor: return "Tensor";
    case Tag::Int: return "int";
    case Tag::Double: return "float";
    case Tag::Bool: return "bool";
    case Tag::Complex: return "complex";
    case Tag::String: return "str";
    case Tag::IntList: return "int[]";
    case Tag::DoubleList: return "float[]";
    case Tag::BoolList: return "bool[]";
    case Tag::TensorList: return "Tensor[]";
    case Tag::Device: return "Device";
    case Tag::ScalarType: return "ScalarType";
    case Tag::Layout: return "Layout";
    case Tag::Generator: return "Generator";
  }
  return "invalid";
}

void IValue::throw_wrong_tag(Tag expected) const {
  EMBER_THROW(TypeError, "expected an IValue holding ", tag_name(expected), ", but it holds ",
              type_name());
}

std::string IValue::repr() const {
  std::ostringstream os;
  switch (tag_) {
    case Tag::None: os << "None"; break;
    case Tag::Tensor: os << to_tensor().str(); break;
    case Tag::Int: os << v_.i; break;
    case Tag::Double: os << v_.d; break;
    case Tag::Bool: os << (v_.i ? "True" : "False"); break;
    case Tag::Complex: os << to_complex(); break;
    case Tag::String: os << '"' << to_string() << '"'; break;
    case Tag::IntList: os << IntArrayRef(to_int_list()); break;
    case Tag::DoubleList: os << ArrayRef<double>(to_double_list()); break;
    case Tag::BoolList: os << "bool[" << to_bool_list().size() << "]"; break;
    case Tag::TensorList: os << "Tensor[" << to_tensor_list().size() << "]"; break;
    case Tag::Device: os << to_device(); break;
    case Tag::ScalarType: os << to_scalar_type(); break;
    case Tag::Layout: os << to_layout(); break;
    case Tag::Generator: os << "Generator(" << to_generator().device() << ")"; break;
  }
  return os.str();
}

}  // namespace ember
