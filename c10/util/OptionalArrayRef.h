#pragma once
/// An optional ArrayRef that can own a single element, so `t.sum(1)` passes a list of one
/// dim that lives as long as the argument itself.
///
/// Note [Optional array refs]: `std::optional<IntArrayRef>` built from an `int` constructs
/// the IntArrayRef inside optional's converting constructor, from a temporary int64_t made
/// there; the temporary dies when that constructor returns, and the optional is left
/// pointing at it (PyTorch's gh-44409). OptionalArrayRef stores a lone number in itself
/// instead. Public C++ entry points take `int[]?` and `float[]?` arguments as this type
/// (codegen/cpp.py); the canonical calling convention keeps `std::optional<ArrayRef<T>>`,
/// which the entry point's argument converts to for the call's duration.

#include <initializer_list>
#include <optional>
#include <type_traits>
#include <vector>

#include "c10/util/ArrayRef.h"
#include "c10/util/Exception.h"

namespace ember {

/// Either nothing or a view of a list of T, constructible from a single number (owned) or
/// from anything an ArrayRef<T> binds to (borrowed, valid for the call).
template <class T>
class OptionalArrayRef {
  // A number that may stand for a one-element list: integers for int lists (never bool),
  // any integer or floating value for float lists.
  template <class U>
  static constexpr bool kOneElement =
      std::is_arithmetic_v<U> && !std::is_same_v<U, bool> &&
      (std::is_floating_point_v<T> || std::is_integral_v<U>);

 public:
  constexpr OptionalArrayRef() noexcept = default;
  constexpr OptionalArrayRef(std::nullopt_t) noexcept {}
  /// A one-element list holding `one` (owned, so the list outlives the caller's temporary).
  template <class U, std::enable_if_t<kOneElement<U>, int> = 0>
  constexpr OptionalArrayRef(U one) noexcept
      : has_value_(true), owns_(true), one_(static_cast<T>(one)) {}
  /// Binds to a braced list; valid until the end of the full expression (the call).
  constexpr OptionalArrayRef(std::initializer_list<T> list) noexcept
      : has_value_(true), ref_(list) {}
  constexpr OptionalArrayRef(ArrayRef<T> ref) noexcept : has_value_(true), ref_(ref) {}
  OptionalArrayRef(const std::vector<T>& v) noexcept : has_value_(true), ref_(v) {}
  constexpr OptionalArrayRef(const std::optional<ArrayRef<T>>& o) noexcept
      : has_value_(o.has_value()), ref_(o.value_or(ArrayRef<T>())) {}
  /// Anything else that converts to ArrayRef<T> (a DimVector, a C array).
  template <class U,
            std::enable_if_t<!std::is_arithmetic_v<std::remove_cvref_t<U>> &&
                                 !std::is_same_v<std::remove_cvref_t<U>, OptionalArrayRef> &&
                                 !std::is_same_v<std::remove_cvref_t<U>, std::nullopt_t> &&
                                 std::is_constructible_v<ArrayRef<T>, const U&>,
                             int> = 0>
  constexpr OptionalArrayRef(const U& u) noexcept : has_value_(true), ref_(ArrayRef<T>(u)) {}

  // Copies of an owning ref own their own element (the view is recomputed, never copied).
  constexpr OptionalArrayRef(const OptionalArrayRef& o) noexcept = default;
  constexpr OptionalArrayRef& operator=(const OptionalArrayRef& o) noexcept = default;

  constexpr bool has_value() const noexcept { return has_value_; }
  constexpr explicit operator bool() const noexcept { return has_value_; }
  /// The list; throws RuntimeError when empty (as std::optional::value throws).
  constexpr ArrayRef<T> value() const {
    EMBER_CHECK(has_value_, "OptionalArrayRef::value(): expected a value, but got nullopt");
    return view();
  }
  constexpr ArrayRef<T> operator*() const noexcept { return view(); }
  constexpr ArrayRef<T> value_or(ArrayRef<T> other) const noexcept {
    return has_value_ ? view() : other;
  }
  /// The canonical calling convention's spelling (Note [Optional array refs]).
  constexpr operator std::optional<ArrayRef<T>>() const noexcept {
    return has_value_ ? std::optional<ArrayRef<T>>(view()) : std::nullopt;
  }

  friend bool operator==(const OptionalArrayRef& a, std::nullopt_t) { return !a.has_value_; }

 private:
  constexpr ArrayRef<T> view() const noexcept {
    return owns_ ? ArrayRef<T>(&one_, 1) : ref_;
  }

  bool has_value_ = false;
  bool owns_ = false;
  T one_{};
  ArrayRef<T> ref_;
};

/// `int[]?` in public C++ signatures.
using OptionalIntArrayRef = OptionalArrayRef<int64_t>;

}  // namespace ember
