#pragma once
/// A boxed value of any argument type: the currency of boxed calls (a Stack of IValues).

#include <complex>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "c10/core/Device.h"
#include "c10/core/Generator.h"
#include "c10/core/Layout.h"
#include "c10/core/Scalar.h"
#include "c10/core/ScalarType.h"
#include "c10/core/Tensor.h"
#include "c10/util/ArrayRef.h"

namespace ember {

namespace detail {
/// A heap value an IValue points to (strings, lists, complex numbers).
template <class T>
struct HeapBox final : IntrusiveTarget {
  explicit HeapBox(T v) : value(std::move(v)) {}
  T value;
};
}  // namespace detail

/// A tagged union of the values an operator takes or returns; 16 bytes.
/// Scalars are stored by kind (Int, Double, Bool, Complex), as PyTorch does.
class EMBER_API IValue {
 public:
  enum class Tag : uint8_t {
    None, Tensor, Int, Double, Bool, Complex, String, IntList, DoubleList, BoolList,
    TensorList, Device, ScalarType, Layout, Generator,
  };

  IValue() : tag_(Tag::None) { v_.i = 0; }
  IValue(std::nullopt_t) : IValue() {}
  IValue(const Tensor& t) : tag_(Tag::Tensor) {
    v_.t = t.impl();
    Tensor::retain(v_.t);
  }
  IValue(Tensor&& t) : tag_(Tag::Tensor) { v_.t = t.release(); }
  template <class T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int> = 0>
  IValue(T i) : tag_(Tag::Int) { v_.i = static_cast<int64_t>(i); }
  IValue(double d) : tag_(Tag::Double) { v_.d = d; }
  IValue(bool b) : tag_(Tag::Bool) { v_.i = b; }
  IValue(std::complex<double> c) : tag_(Tag::Complex) { v_.heap = box(c); }
  IValue(const Scalar& s);
  IValue(std::string s) : tag_(Tag::String) { v_.heap = box(std::move(s)); }
  IValue(std::string_view s) : IValue(std::string(s)) {}
  IValue(const char* s) : IValue(std::string(s)) {}
  IValue(std::vector<int64_t> v) : tag_(Tag::IntList) { v_.heap = box(std::move(v)); }
  IValue(IntArrayRef v) : IValue(v.vec()) {}
  IValue(std::vector<double> v) : tag_(Tag::DoubleList) { v_.heap = box(std::move(v)); }
  IValue(std::vector<bool> v) : tag_(Tag::BoolList) { v_.heap = box(std::move(v)); }
  IValue(std::vector<Tensor> v) : tag_(Tag::TensorList) { v_.heap = box(std::move(v)); }
  IValue(TensorList v) : IValue(v.vec()) {}
  IValue(Device d) : tag_(Tag::Device) { v_.device = {d.type(), d.index()}; }
  IValue(ScalarType t) : tag_(Tag::ScalarType) { v_.i = static_cast<int64_t>(t); }
  IValue(Layout l) : tag_(Tag::Layout) { v_.i = static_cast<int64_t>(l); }
  /// An undefined Generator boxes as None.
  IValue(const Generator& g) : IValue() {
    if (g.defined()) {
      tag_ = Tag::Generator;
      v_.heap = g.impl();
      intrusive_retain(v_.heap);
    }
  }
  template <class T>
  IValue(std::optional<T> o) : IValue() {
    if (o) *this = IValue(std::move(*o));
  }

  IValue(const IValue& o) : tag_(o.tag_), v_(o.v_) { retain(); }
  IValue(IValue&& o) noexcept : tag_(o.tag_), v_(o.v_) { o.tag_ = Tag::None; }
  IValue& operator=(const IValue& o) {
    IValue(o).swap(*this);
    return *this;
  }
  IValue& operator=(IValue&& o) noexcept {
    IValue(std::move(o)).swap(*this);
    return *this;
  }
  ~IValue() { release(); }
  void swap(IValue& o) noexcept {
    std::swap(tag_, o.tag_);
    std::swap(v_, o.v_);
  }

  Tag tag() const { return tag_; }
  bool is_none() const { return tag_ == Tag::None; }
  bool is_tensor() const { return tag_ == Tag::Tensor; }
  bool is_int() const { return tag_ == Tag::Int; }
  bool is_double() const { return tag_ == Tag::Double; }
  bool is_bool() const { return tag_ == Tag::Bool; }
  bool is_complex() const { return tag_ == Tag::Complex; }
  /// Int, Double, Bool or Complex: what a `Scalar` argument accepts.
  bool is_scalar() const {
    return tag_ == Tag::Int || tag_ == Tag::Double || tag_ == Tag::Bool || tag_ == Tag::Complex;
  }
  bool is_string() const { return tag_ == Tag::String; }
  bool is_int_list() const { return tag_ == Tag::IntList; }
  bool is_double_list() const { return tag_ == Tag::DoubleList; }
  bool is_bool_list() const { return tag_ == Tag::BoolList; }
  bool is_tensor_list() const { return tag_ == Tag::TensorList; }
  bool is_device() const { return tag_ == Tag::Device; }
  bool is_scalar_type() const { return tag_ == Tag::ScalarType; }
  bool is_layout() const { return tag_ == Tag::Layout; }
  bool is_generator() const { return tag_ == Tag::Generator; }

  // Accessors throw TypeError naming both tags when the value holds something else.
  const Tensor& to_tensor() const& {
    expect(Tag::Tensor);
    return *reinterpret_cast<const Tensor*>(&v_.t);
  }
  /// Moves the tensor out, leaving None.
  Tensor to_tensor() &&;
  int64_t to_int() const {
    expect(Tag::Int);
    return v_.i;
  }
  /// A Double, or an Int widened to double (as Python passes 1 for a float).
  double to_double() const;
  bool to_bool() const {
    expect(Tag::Bool);
    return v_.i != 0;
  }
  std::complex<double> to_complex() const;
  Scalar to_scalar() const;
  const std::string& to_string() const { return unbox<std::string>(Tag::String); }
  const std::vector<int64_t>& to_int_list() const { return unbox<std::vector<int64_t>>(Tag::IntList); }
  const std::vector<double>& to_double_list() const {
    return unbox<std::vector<double>>(Tag::DoubleList);
  }
  const std::vector<bool>& to_bool_list() const { return unbox<std::vector<bool>>(Tag::BoolList); }
  const std::vector<Tensor>& to_tensor_list() const {
    return unbox<std::vector<Tensor>>(Tag::TensorList);
  }
  Device to_device() const {
    expect(Tag::Device);
    return Device(v_.device.type, v_.device.index);
  }
  ScalarType to_scalar_type() const {
    expect(Tag::ScalarType);
    return static_cast<ScalarType>(v_.i);
  }
  // libtorch's spellings (c10::IValue), for C++ written against it: the same accessors.
  bool isNone() const { return is_none(); }
  bool isTensor() const { return is_tensor(); }
  bool isInt() const { return is_int(); }
  bool isDouble() const { return is_double(); }
  bool isBool() const { return is_bool(); }
  bool isString() const { return is_string(); }
  bool isTensorList() const { return is_tensor_list(); }
  const Tensor& toTensor() const& { return to_tensor(); }
  int64_t toInt() const { return to_int(); }
  double toDouble() const { return to_double(); }
  bool toBool() const { return to_bool(); }
  Scalar toScalar() const { return to_scalar(); }
  const std::string& toStringRef() const { return to_string(); }
  const std::vector<int64_t>& toIntVector() const { return to_int_list(); }
  const std::vector<double>& toDoubleVector() const { return to_double_list(); }
  const std::vector<Tensor>& toTensorVector() const { return to_tensor_list(); }
  Device toDevice() const { return to_device(); }
  ScalarType toScalarType() const { return to_scalar_type(); }
  Layout to_layout() const {
    expect(Tag::Layout);
    return static_cast<Layout>(v_.i);
  }
  Generator to_generator() const {
    expect(Tag::Generator);
    return Generator(IntrusivePtr<GeneratorImpl>(static_cast<GeneratorImpl*>(v_.heap)));
  }

  /// "Tensor", "int", "float", "int[]", ... (schema spellings).
  static const char* tag_name(Tag t);
  const char* type_name() const { return tag_name(tag_); }
  /// A short printable form, for error messages.
  std::string repr() const;

 private:
  template <class T>
  static IntrusiveTarget* box(T v) {
    auto* b = new detail::HeapBox<T>(std::move(v));
    intrusive_retain(b);
    return b;
  }
  template <class T>
  const T& unbox(Tag t) const {
    expect(t);
    return static_cast<detail::HeapBox<T>*>(v_.heap)->value;
  }
  bool is_heap() const {
    return (tag_ >= Tag::Complex && tag_ <= Tag::TensorList) || tag_ == Tag::Generator;
  }
  void retain() {
    if (tag_ == Tag::Tensor) Tensor::retain(v_.t);
    else if (is_heap()) intrusive_retain(v_.heap);
  }
  void release() {
    if (tag_ == Tag::Tensor) Tensor::release(v_.t);
    else if (is_heap()) intrusive_release(v_.heap);
  }
  void expect(Tag t) const {
    if (EMBER_UNLIKELY(tag_ != t)) throw_wrong_tag(t);
  }
  [[noreturn]] void throw_wrong_tag(Tag expected) const;

  Tag tag_;
  union Payload {
    int64_t i;
    double d;
    TensorImpl* t;
    IntrusiveTarget* heap;
    struct {
      DeviceType type;
      int8_t index;
    } device;
  } v_;
};

/// The argument and return stack of a boxed call.
using Stack = std::vector<IValue>;

}  // namespace ember
