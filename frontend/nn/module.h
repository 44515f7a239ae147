#pragma once
/// nn::Module: libtorch's base of every module: registered parameters, buffers and
/// submodules (named, in registration order), train/eval mode, conversion, printing.

#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "c10/core/Device.h"
#include "c10/core/ScalarType.h"
#include "c10/core/Tensor.h"
#include "c10/macros/Export.h"
#include "frontend/nn/ordered_dict.h"
#include "frontend/nn/pimpl.h"

namespace ember::nn {

namespace detail {
/// What the built-in modules' printed names start with ("ember::nn::Linear(...)"), as
/// libtorch's start with "torch::nn::".
inline constexpr const char* kModulePrefix = "ember::nn::";
}  // namespace detail

/// The base class of modules. Subclasses register their parameters, buffers and
/// submodules in the constructor; forward() is the subclass's own (not virtual).
class EMBER_API Module : public std::enable_shared_from_this<Module> {
 public:
  using ModuleApplyFunction = std::function<void(Module&)>;
  using ConstModuleApplyFunction = std::function<void(const Module&)>;
  using NamedModuleApplyFunction = std::function<void(const std::string&, Module&)>;
  using ConstNamedModuleApplyFunction = std::function<void(const std::string&, const Module&)>;
  using ModulePointerApplyFunction = std::function<void(const std::shared_ptr<Module>&)>;
  using NamedModulePointerApplyFunction =
      std::function<void(const std::string&, const std::shared_ptr<Module>&)>;

  /// A module named `name` (what pretty printing shows for a module that does not
  /// print itself).
  explicit Module(std::string name);
  /// A module named after its dynamic type ("Net", "ember::nn::LinearImpl").
  Module();
  Module(const Module&) = default;
  Module& operator=(const Module&) = default;
  Module(Module&&) noexcept = default;
  Module& operator=(Module&&) noexcept = default;
  virtual ~Module() = default;

  /// The module's name: the one given, else its demangled type name.
  const std::string& name() const noexcept;

  /// The parameters of this module and (when recurse) its descendants, in order.
  std::vector<Tensor> parameters(bool recurse = true) const;
  /// The parameters with dotted names ("fc1.weight").
  OrderedDict<std::string, Tensor> named_parameters(bool recurse = true) const;
  /// The buffers of this module and (when recurse) its descendants.
  std::vector<Tensor> buffers(bool recurse = true) const;
  /// The buffers with dotted names ("bn.running_mean").
  OrderedDict<std::string, Tensor> named_buffers(bool recurse = true) const;
  /// This module (when include_self) and its descendants, depth first. Including self
  /// needs the module to live in a shared_ptr.
  std::vector<std::shared_ptr<Module>> modules(bool include_self = true) const;
  /// modules() with dotted names ("" for self, "0", "block.conv", ...).
  OrderedDict<std::string, std::shared_ptr<Module>> named_modules(
      const std::string& name_prefix = std::string(), bool include_self = true) const;
  /// The direct submodules.
  std::vector<std::shared_ptr<Module>> children() const;
  /// The direct submodules by name.
  OrderedDict<std::string, std::shared_ptr<Module>> named_children() const;

  /// Sets training mode here and in every descendant.
  virtual void train(bool on = true);
  /// train(false).
  void eval();
  /// Whether the module is in training mode.
  virtual bool is_training() const noexcept;

  /// Moves and casts the floating-point parameters and buffers (and their grads) in
  /// place, keeping each tensor's identity: tensors held elsewhere see the change.
  virtual void to(Device device, ScalarType dtype, bool non_blocking = false);
  /// Casts the floating-point parameters and buffers to dtype.
  virtual void to(ScalarType dtype, bool non_blocking = false);
  /// Moves the parameters and buffers to device.
  virtual void to(Device device, bool non_blocking = false);

  /// Clears the gradients of every parameter (set_to_none) or zeroes them.
  virtual void zero_grad(bool set_to_none = true);

  /// Calls function on this module and every descendant, depth first.
  void apply(const ModuleApplyFunction& function);
  void apply(const ConstModuleApplyFunction& function) const;
  /// Calls function with each module's dotted name (prefixed by name_prefix).
  void apply(const NamedModuleApplyFunction& function, const std::string& name_prefix = std::string());
  void apply(const ConstNamedModuleApplyFunction& function,
             const std::string& name_prefix = std::string()) const;
  /// Calls function with a shared pointer to each module (needs self in a shared_ptr).
  void apply(const ModulePointerApplyFunction& function) const;
  void apply(const NamedModulePointerApplyFunction& function,
             const std::string& name_prefix = std::string()) const;

  /// This module as ModuleType (an Impl type or a holder type), or null.
  template <class ModuleType>
  auto* as() noexcept {
    if constexpr (is_module_holder_v<ModuleType>) {
      return dynamic_cast<typename ModuleType::ContainedType*>(this);
    } else {
      return dynamic_cast<ModuleType*>(this);
    }
  }
  template <class ModuleType>
  const auto* as() const noexcept {
    if constexpr (is_module_holder_v<ModuleType>) {
      return dynamic_cast<const typename ModuleType::ContainedType*>(this);
    } else {
      return dynamic_cast<const ModuleType*>(this);
    }
  }

  /// A deep copy of the module (its own parameters, buffers and submodules), optionally on
  /// device. Modules derived from Cloneable<Derived> have one; others throw.
  virtual std::shared_ptr<Module> clone(const std::optional<Device>& device = std::nullopt) const;

  /// Writes the module's one-line description (without its children); the default is
  /// name().
  virtual void pretty_print(std::ostream& stream) const;

  /// Registers a parameter (an undefined tensor reserves the name, as a `bias=false`);
  /// requires_grad marks it for training. Returns the stored tensor.
  Tensor& register_parameter(std::string name, Tensor tensor, bool requires_grad = true);
  /// Registers a buffer: state that is saved but not trained (running statistics).
  Tensor& register_buffer(std::string name, Tensor tensor);
  /// Registers a submodule; returns it.
  template <class ModuleType>
  std::shared_ptr<ModuleType> register_module(std::string name, std::shared_ptr<ModuleType> module) {
    check_module_name(name);
    EMBER_CHECK_VALUE(module != nullptr, "register_module(): expected a module for '", name,
                      "', but got an empty one");
    children_.insert(std::move(name), std::static_pointer_cast<Module>(module));
    return module;
  }
  template <class ModuleType>
  std::shared_ptr<ModuleType> register_module(std::string name, ModuleHolder<ModuleType> module_holder) {
    return register_module(std::move(name), module_holder.ptr());
  }
  /// Replaces the submodule registered as name; returns the new one.
  template <class ModuleType>
  std::shared_ptr<ModuleType> replace_module(const std::string& name, std::shared_ptr<ModuleType> module) {
    children_[name] = std::static_pointer_cast<Module>(module);
    return module;
  }
  template <class ModuleType>
  std::shared_ptr<ModuleType> replace_module(const std::string& name, ModuleHolder<ModuleType> module_holder) {
    return replace_module(name, module_holder.ptr());
  }
  /// Removes the submodule registered as name.
  void unregister_module(const std::string& name);

  /// Writes the module and its children, indented, as libtorch prints a module.
  void pretty_print_recursive(std::ostream& stream, const std::string& indentation) const;

 protected:
  /// Makes this module a deep copy of other (of the same type): how clone() copies children.
  virtual void clone_(Module& other, const std::optional<Device>& device);

  /// clone() of a Derived module: a copy of it rebuilt by reset(), then given copies of the
  /// original's tensors; children are cloned into the rebuilt ones.
  template <class Derived>
  static std::shared_ptr<Module> clone_as(const Derived& self, const std::optional<Device>& device) {
    auto copy = std::make_shared<Derived>(self);
    copy->parameters_.clear();
    copy->buffers_.clear();
    copy->children_.clear();
    copy->reset();
    self.copy_state_into(*copy, device);
    return copy;
  }
  /// other.clone() as a Derived (throws when other is another type).
  template <class Derived>
  static Derived clone_checked(Module& other, const std::optional<Device>& device) {
    auto copy = std::dynamic_pointer_cast<Derived>(other.clone(device));
    EMBER_CHECK(copy != nullptr, "clone(): cannot copy a ", other.name(), " into another type");
    return std::move(*copy);
  }
  // The second half of clone_as (out of line): checks copy was rebuilt with the same
  // names, copies tensors (to device) and clones children into copy's.
  void copy_state_into(Module& copy, const std::optional<Device>& device) const;

  /// The module's own parameters, buffers and children (not its descendants').
  OrderedDict<std::string, Tensor> parameters_{"Parameter"};
  OrderedDict<std::string, Tensor> buffers_{"Buffer"};
  OrderedDict<std::string, std::shared_ptr<Module>> children_{"Submodule"};

 private:
  // Throws ValueError for an empty name or one with a dot.
  static void check_module_name(const std::string& name);
  std::shared_ptr<Module> shared_from_this_checked() const;
  void to_impl(std::optional<Device> device, std::optional<ScalarType> dtype);

  mutable std::optional<std::string> name_;
  bool is_training_ = true;
};

/// Writes module as libtorch does: its description, then its children indented.
EMBER_API std::ostream& operator<<(std::ostream& stream, const Module& module);

/// A module whose submodules and parameters can be rebuilt by reset() (libtorch's base of
/// the built-in modules).
template <class Derived>
class Cloneable : public Module {
 public:
  using Module::Module;
  /// (Re)creates the module's parameters, buffers and submodules from its options.
  virtual void reset() = 0;
  std::shared_ptr<Module> clone(const std::optional<Device>& device = std::nullopt) const override {
    return clone_as(static_cast<const Derived&>(*this), device);
  }

 protected:
  void clone_(Module& other, const std::optional<Device>& device) override {
    *static_cast<Derived*>(this) = clone_checked<Derived>(other, device);
  }
};

}  // namespace ember::nn
