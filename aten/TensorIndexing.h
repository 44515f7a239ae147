#pragma once
/// Python's indexing from C++: `indexing::get(t, {Slice(1, None), 0, None, idx})` is
/// `t[1:, 0, None, idx]`, and `indexing::set(t, {...}, v)` is `t[...] = v`, with NumPy's
/// rules (as PyTorch's Tensor::index and Tensor::index_put_).
///
/// Note [Indexing]: integers, slices, None and Ellipsis become views (select, slice,
/// unsqueeze); tensor indices (integer tensors, bool masks, Python bools) are then applied
/// by one index.Tensor call on the view with the indexed dims permuted to the front. The
/// result's indexed dims take the place of the first tensor index when all tensor indices
/// are next to each other, else they lead (NumPy's rule). Assignment builds the same view
/// and writes with copy_ (no tensor index) or index_put_ (on the permuted view), so both are
/// differentiable, and writes through the view reach self.

#include <initializer_list>
#include <optional>
#include <variant>

#include "c10/core/Scalar.h"
#include "c10/core/Tensor.h"
#include "c10/macros/Export.h"

namespace ember::indexing {

/// Python's `None` among indices (a new dim of size 1), and an omitted slice bound.
inline constexpr std::nullopt_t None = std::nullopt;

/// `...`: as many full slices as the other indices leave dims.
struct EllipsisIndexType {};
inline constexpr EllipsisIndexType Ellipsis{};

/// `start:stop:step`; omitted bounds are None.
struct Slice {
  std::optional<int64_t> start, stop, step;
  Slice(std::optional<int64_t> start_ = None, std::optional<int64_t> stop_ = None,
        std::optional<int64_t> step_ = None)
      : start(start_), stop(stop_), step(step_) {}
};

/// One index: None, Ellipsis (also spelled "..."), an integer, a bool, a Slice or a tensor.
class EMBER_API TensorIndex {
 public:
  TensorIndex(std::nullopt_t) : v_(std::monostate{}) {}
  TensorIndex(EllipsisIndexType) : v_(EllipsisIndexType{}) {}
  /// "..." is Ellipsis, as in libtorch; any other string throws ValueError (a string must
  /// not decay to a pointer and then to `true`).
  TensorIndex(const char* text);
  TensorIndex(int64_t i) : v_(i) {}
  TensorIndex(int i) : v_(static_cast<int64_t>(i)) {}
  TensorIndex(bool b) : v_(b) {}
  TensorIndex(Slice s) : v_(s) {}
  TensorIndex(Tensor t) : v_(std::move(t)) {}

  bool is_none() const { return std::holds_alternative<std::monostate>(v_); }
  bool is_ellipsis() const { return std::holds_alternative<EllipsisIndexType>(v_); }
  bool is_integer() const { return std::holds_alternative<int64_t>(v_); }
  bool is_boolean() const { return std::holds_alternative<bool>(v_); }
  bool is_slice() const { return std::holds_alternative<Slice>(v_); }
  bool is_tensor() const { return std::holds_alternative<Tensor>(v_); }
  int64_t integer() const { return std::get<int64_t>(v_); }
  bool boolean() const { return std::get<bool>(v_); }
  const Slice& slice() const { return std::get<Slice>(v_); }
  const Tensor& tensor() const { return std::get<Tensor>(v_); }

 private:
  std::variant<std::monostate, EllipsisIndexType, int64_t, bool, Slice, Tensor> v_;
};

/// self[indices].
EMBER_API Tensor get(const Tensor& self, ArrayRef<TensorIndex> indices);
inline Tensor get(const Tensor& self, std::initializer_list<TensorIndex> indices) {
  return get(self, ArrayRef<TensorIndex>(indices.begin(), indices.size()));
}

/// self[indices] = value (value broadcast to the indexed shape, converted to self's dtype).
EMBER_API void set(const Tensor& self, ArrayRef<TensorIndex> indices, const Tensor& value);
EMBER_API void set(const Tensor& self, ArrayRef<TensorIndex> indices, const Scalar& value);
inline void set(const Tensor& self, std::initializer_list<TensorIndex> indices, const Tensor& value) {
  set(self, ArrayRef<TensorIndex>(indices.begin(), indices.size()), value);
}
inline void set(const Tensor& self, std::initializer_list<TensorIndex> indices, const Scalar& value) {
  set(self, ArrayRef<TensorIndex>(indices.begin(), indices.size()), value);
}

}  // namespace ember::indexing
