#pragma once
/// ModuleHolder: the shared handle that libtorch's module names are (`Linear` holds a
/// `std::shared_ptr<LinearImpl>`), and EMBER_MODULE / TORCH_MODULE, which declare one.

#include <cstddef>
#include <memory>
#include <ostream>
#include <type_traits>
#include <utility>

#include "c10/util/Exception.h"

namespace ember::nn {

namespace detail {
/// The base of every holder, so templates can tell holders from other types.
struct ModuleHolderIndicator {};
}  // namespace detail

/// Whether T is a ModuleHolder (Linear, Conv2d, a user's TORCH_MODULE(Net), ...).
template <class T>
inline constexpr bool is_module_holder_v =
    std::is_base_of_v<detail::ModuleHolderIndicator, std::decay_t<T>>;

/// A shared pointer to a Contained module with value-like construction:
/// `Linear fc(3, 2)` makes a LinearImpl(3, 2); `Linear fc{nullptr}` is empty.
template <class Contained>
class ModuleHolder : detail::ModuleHolderIndicator {
 protected:
  std::shared_ptr<Contained> impl_;

 public:
  using ContainedType = Contained;

  /// Default-constructs the module (only for modules with a default constructor; give
  /// others `{nullptr}` for the empty state).
  ModuleHolder() : impl_(default_construct()) {}
  /// The empty state: no module until one is assigned.
  ModuleHolder(std::nullptr_t) {}  // NOLINT(google-explicit-constructor)
  /// Constructs the module from the arguments (`Linear(3, 2)`, `Linear(LinearOptions(3, 2))`).
  template <class Head, class... Tail,
            class = std::enable_if_t<!(sizeof...(Tail) == 0 &&
                                       (std::is_same_v<std::decay_t<Head>, std::nullptr_t> ||
                                        std::is_base_of_v<ModuleHolder, std::decay_t<Head>> ||
                                        std::is_convertible_v<Head&&, std::shared_ptr<Contained>>))>>
  explicit ModuleHolder(Head&& head, Tail&&... tail)
      : impl_(std::make_shared<Contained>(std::forward<Head>(head), std::forward<Tail>(tail)...)) {}
  /// Holds an existing module.
  ModuleHolder(std::shared_ptr<Contained> module)  // NOLINT(google-explicit-constructor)
      : impl_(std::move(module)) {}

  /// Whether a module is held.
  explicit operator bool() const noexcept { return !is_empty(); }
  /// The module's members.
  Contained* operator->() { return get(); }
  const Contained* operator->() const { return get(); }
  /// The module.
  Contained& operator*() { return *get(); }
  const Contained& operator*() const { return *get(); }
  /// The shared pointer to the module.
  const std::shared_ptr<Contained>& ptr() const {
    check_not_empty();
    return impl_;
  }
  /// The module (throws when empty).
  Contained* get() {
    check_not_empty();
    return impl_.get();
  }
  const Contained* get() const {
    check_not_empty();
    return impl_.get();
  }
  /// Calls the module's forward: `fc(x)` is `fc->forward(x)`.
  template <class... Args>
  decltype(auto) operator()(Args&&... args) {
    return get()->forward(std::forward<Args>(args)...);
  }
  /// Forwards indexing to the module (`seq[0]`).
  template <class Arg>
  decltype(auto) operator[](Arg&& arg) {
    return (*get())[std::forward<Arg>(arg)];
  }
  /// Whether no module is held.
  bool is_empty() const noexcept { return impl_ == nullptr; }

 private:
  static std::shared_ptr<Contained> default_construct() {
    if constexpr (std::is_default_constructible_v<Contained>) {
      return std::make_shared<Contained>();
    } else {
      return nullptr;
    }
  }
  void check_not_empty() const {
    EMBER_CHECK(!is_empty(), "Accessing an empty ModuleHolder: construct the module, or ",
                "assign one (e.g. from register_module()) before using it");
  }
};

/// Prints the held module (see Module's operator<<).
template <class Contained>
std::ostream& operator<<(std::ostream& stream, const ModuleHolder<Contained>& module) {
  return stream << *module;
}

}  // namespace ember::nn

/// Declares `Name`, a holder of `ImplType`.
#define EMBER_MODULE_IMPL(Name, ImplType)                              \
  class Name : public ::ember::nn::ModuleHolder<ImplType> {            \
   public:                                                             \
    using ::ember::nn::ModuleHolder<ImplType>::ModuleHolder;           \
    using Impl = ImplType;                                             \
  }

/// Declares `Name`, the holder of `Name##Impl` (libtorch's TORCH_MODULE).
#define EMBER_MODULE(Name) EMBER_MODULE_IMPL(Name, Name##Impl)

#ifndef TORCH_MODULE
#define TORCH_MODULE(Name) EMBER_MODULE(Name)
#define TORCH_MODULE_IMPL(Name, ImplType) EMBER_MODULE_IMPL(Name, ImplType)
#endif
