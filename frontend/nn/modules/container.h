#pragma once
/// Containers: Sequential (modules applied in order), ModuleList (an indexable list of
/// submodules) and Functional (a function as a module).

#include <concepts>
#include <functional>
#include <initializer_list>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "c10/core/Tensor.h"
#include "c10/macros/Export.h"
#include "c10/util/Exception.h"
#include "frontend/nn/module.h"
#include "frontend/nn/pimpl.h"

namespace ember::nn {

/// A type-erased module for Sequential: the module and, when its forward maps one Tensor
/// to a Tensor, a call of that forward.
class EMBER_API AnyModule {
 public:
  AnyModule() = default;
  /// From a shared_ptr to a module.
  template <class ModuleType, class = std::enable_if_t<std::is_base_of_v<Module, ModuleType>>>
  explicit AnyModule(std::shared_ptr<ModuleType> module) : module_(module) {
    rebind_ = [](std::shared_ptr<Module> m) {
      auto typed = std::dynamic_pointer_cast<ModuleType>(std::move(m));
      EMBER_CHECK(typed != nullptr, "AnyModule::clone(): the clone has another type");
      return AnyModule(std::move(typed));
    };
    if constexpr (requires(ModuleType& m, const Tensor& x) {
                    { m.forward(x) } -> std::convertible_to<Tensor>;
                  }) {
      forward_ = [raw = module.get()](const Tensor& x) -> Tensor { return raw->forward(x); };
    }
  }
  /// From a holder (Linear, a user's TORCH_MODULE, ...).
  template <class ModuleType>
  explicit AnyModule(const ModuleHolder<ModuleType>& holder) : AnyModule(holder.ptr()) {}
  /// From a module value (moved into a shared_ptr).
  template <class ModuleType, class = std::enable_if_t<std::is_base_of_v<Module, std::decay_t<ModuleType>> &&
                                                       !std::is_reference_v<ModuleType>>>
  explicit AnyModule(ModuleType&& module)
      : AnyModule(std::make_shared<std::decay_t<ModuleType>>(std::move(module))) {}

  /// Calls the module's forward(Tensor); throws when it has none.
  Tensor forward(const Tensor& input) const;
  /// A deep copy of the module (Module::clone), keeping its type.
  AnyModule clone(const std::optional<Device>& device = std::nullopt) const;
  /// The module.
  const std::shared_ptr<Module>& ptr() const { return module_; }
  /// Whether a module is held.
  bool is_empty() const noexcept { return module_ == nullptr; }

 private:
  std::shared_ptr<Module> module_;
  std::function<Tensor(const Tensor&)> forward_;
  std::function<AnyModule(std::shared_ptr<Module>)> rebind_;
};

/// A (name, module) pair: `Sequential({{"fc", Linear(3, 2)}, {"act", ReLU()}})`.
class NamedAnyModule {
 public:
  template <class ModuleType>
  NamedAnyModule(std::string name, ModuleType&& module)
      : name_(std::move(name)), module_(make(std::forward<ModuleType>(module))) {}
  const std::string& name() const noexcept { return name_; }
  const AnyModule& module() const noexcept { return module_; }

 private:
  template <class M>
  static AnyModule make(M&& m) {
    if constexpr (std::is_same_v<std::decay_t<M>, AnyModule>) {
      return m;
    } else if constexpr (is_module_holder_v<M>) {
      return AnyModule(m);
    } else {
      return AnyModule(std::forward<M>(m));
    }
  }
  std::string name_;
  AnyModule module_;
};

/// Modules applied in order: forward(x) is m_n(...m_1(x)). Children are named "0", "1",
/// ... unless given names.
class EMBER_API SequentialImpl : public Cloneable<SequentialImpl> {
 public:
  SequentialImpl() = default;
  /// From modules (holders, shared_ptrs or module values).
  template <class... Modules,
            class = std::enable_if_t<(sizeof...(Modules) > 0) &&
                                     !(sizeof...(Modules) == 1 &&
                                       (std::is_same_v<std::decay_t<Modules>, SequentialImpl> && ...))>>
  explicit SequentialImpl(Modules&&... modules) {
    (push_back(std::forward<Modules>(modules)), ...);
  }
  /// From named modules.
  explicit SequentialImpl(std::initializer_list<NamedAnyModule> named_modules);
  void reset() override {}
  /// A Sequential of clones of the modules, with the same names.
  std::shared_ptr<Module> clone(const std::optional<Device>& device = std::nullopt) const override;
  void pretty_print(std::ostream& stream) const override;

  /// Appends a module, named by its position.
  template <class M>
  void push_back(M&& module) {
    push_back(std::to_string(modules_.size()), std::forward<M>(module));
  }
  /// Appends a module under name.
  template <class M>
  void push_back(std::string name, M&& module) {
    push_back_any(std::move(name), to_any(std::forward<M>(module)));
  }
  /// Appends the modules of other.
  void extend(const SequentialImpl& other);

  /// Runs the modules in order.
  Tensor forward(const Tensor& input);
  /// forward() with the return type spelled (libtorch's `seq->forward<Tensor>(x)`).
  template <class ReturnType>
  ReturnType forward(const Tensor& input) {
    return forward(input);
  }

  /// The module at index.
  std::shared_ptr<Module> ptr(size_t index) const;
  /// The module at index as T (throws when it is not one).
  template <class T>
  std::shared_ptr<T> ptr(size_t index) const {
    auto p = std::dynamic_pointer_cast<T>(ptr(index));
    EMBER_CHECK_TYPE(p != nullptr, "Sequential::ptr(): the module at index ", index,
                     " is not of the requested type");
    return p;
  }
  /// The module at index as T&.
  template <class T>
  T& at(size_t index) {
    return *ptr<T>(index);
  }
  /// The module at index.
  std::shared_ptr<Module> operator[](size_t index) const { return ptr(index); }
  /// The number of modules.
  size_t size() const noexcept { return modules_.size(); }
  bool is_empty() const noexcept { return modules_.empty(); }
  /// The modules, in order.
  std::vector<AnyModule>::const_iterator begin() const { return modules_.begin(); }
  std::vector<AnyModule>::const_iterator end() const { return modules_.end(); }

 private:
  template <class M>
  static AnyModule to_any(M&& m) {
    if constexpr (std::is_same_v<std::decay_t<M>, AnyModule>) {
      return m;
    } else if constexpr (is_module_holder_v<M>) {
      return AnyModule(m);
    } else {
      return AnyModule(std::forward<M>(m));
    }
  }
  void push_back_any(std::string name, AnyModule module);

  std::vector<AnyModule> modules_;
};

/// The holder of SequentialImpl, also constructible from named modules.
class Sequential : public ModuleHolder<SequentialImpl> {
 public:
  using ModuleHolder<SequentialImpl>::ModuleHolder;
  using Impl = SequentialImpl;
  Sequential() : ModuleHolder() {}
  /// `Sequential({{"fc", Linear(3, 2)}, {"act", ReLU()}})`.
  Sequential(std::initializer_list<NamedAnyModule> named_modules)
      : ModuleHolder(std::make_shared<SequentialImpl>(named_modules)) {}
};

/// A list of submodules named "0", "1", ...; it has no forward of its own.
class EMBER_API ModuleListImpl : public Cloneable<ModuleListImpl> {
 public:
  ModuleListImpl() = default;
  /// From modules (holders or shared_ptrs).
  template <class... Modules, class = std::enable_if_t<(sizeof...(Modules) > 0)>>
  explicit ModuleListImpl(Modules&&... modules) {
    (push_back(std::forward<Modules>(modules)), ...);
  }
  void reset() override {}
  /// A ModuleList of clones of the modules.
  std::shared_ptr<Module> clone(const std::optional<Device>& device = std::nullopt) const override;
  void pretty_print(std::ostream& stream) const override;

  /// Appends a module.
  template <class ModuleType>
  void push_back(std::shared_ptr<ModuleType> module) {
    push_back_module(std::static_pointer_cast<Module>(std::move(module)));
  }
  template <class ModuleType>
  void push_back(const ModuleHolder<ModuleType>& holder) {
    push_back(holder.ptr());
  }
  template <class ModuleType,
            class = std::enable_if_t<std::is_base_of_v<Module, std::decay_t<ModuleType>> &&
                                     !std::is_reference_v<ModuleType>>>
  void push_back(ModuleType&& module) {
    push_back(std::make_shared<std::decay_t<ModuleType>>(std::move(module)));
  }
  /// Appends the modules of other.
  void extend(const ModuleListImpl& other);
  /// Inserts a module before index (renumbering the ones after it).
  template <class ModuleType>
  void insert(size_t index, const ModuleHolder<ModuleType>& holder) {
    insert_module(index, holder.ptr());
  }
  template <class ModuleType>
  void insert(size_t index, std::shared_ptr<ModuleType> module) {
    insert_module(index, std::static_pointer_cast<Module>(std::move(module)));
  }

  /// The module at index.
  std::shared_ptr<Module> ptr(size_t index) const;
  template <class T>
  std::shared_ptr<T> ptr(size_t index) const {
    auto p = std::dynamic_pointer_cast<T>(ptr(index));
    EMBER_CHECK_TYPE(p != nullptr, "ModuleList::ptr(): the module at index ", index,
                     " is not of the requested type");
    return p;
  }
  template <class T>
  T& at(size_t index) {
    return *ptr<T>(index);
  }
  std::shared_ptr<Module> operator[](size_t index) const { return ptr(index); }
  size_t size() const noexcept { return modules_.size(); }
  bool is_empty() const noexcept { return modules_.empty(); }
  std::vector<std::shared_ptr<Module>>::const_iterator begin() const { return modules_.begin(); }
  std::vector<std::shared_ptr<Module>>::const_iterator end() const { return modules_.end(); }

 private:
  void push_back_module(std::shared_ptr<Module> module);
  void insert_module(size_t index, std::shared_ptr<Module> module);

  std::vector<std::shared_ptr<Module>> modules_;
};
EMBER_MODULE(ModuleList);

/// A function Tensor -> Tensor as a module: `Functional(torch::relu)`, or with extra
/// arguments bound after the input: `Functional(torch::leaky_relu, 0.2)`.
class EMBER_API FunctionalImpl : public Cloneable<FunctionalImpl> {
 public:
  using Function = std::function<Tensor(Tensor)>;
  explicit FunctionalImpl(Function function);
  template <class SomeFunction, class... Args,
            class = std::enable_if_t<(sizeof...(Args) > 0)>>
  explicit FunctionalImpl(SomeFunction original_function, Args&&... args)
      : FunctionalImpl(Function(
            [f = std::move(original_function),
             ... bound = std::forward<Args>(args)](Tensor input) -> Tensor {
              return f(input, bound...);
            })) {}
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(Tensor input);
  Tensor operator()(Tensor input) { return forward(std::move(input)); }

 private:
  Function function_;
};
EMBER_MODULE(Functional);

}  // namespace ember::nn
