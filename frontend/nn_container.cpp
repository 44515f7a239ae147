// Sequential, ModuleList and Functional (frontend/nn/modules/container.h).

#include "frontend/nn/modules/container.h"

namespace ember::nn {

using detail::kModulePrefix;

Tensor AnyModule::forward(const Tensor& input) const {
  EMBER_CHECK(module_ != nullptr, "AnyModule::forward(): called on an empty AnyModule");
  EMBER_CHECK_TYPE(static_cast<bool>(forward_), "Sequential: the module ", module_->name(),
                   " has no forward(Tensor) returning a Tensor, so it cannot run in a Sequential");
  return forward_(input);
}

AnyModule AnyModule::clone(const std::optional<Device>& device) const {
  EMBER_CHECK(module_ != nullptr, "AnyModule::clone(): called on an empty AnyModule");
  return rebind_(module_->clone(device));
}

std::shared_ptr<Module> SequentialImpl::clone(const std::optional<Device>& device) const {
  auto copy = std::make_shared<SequentialImpl>();
  const auto names = children_.keys();
  for (size_t i = 0; i < modules_.size(); ++i) copy->push_back_any(names[i], modules_[i].clone(device));
  copy->train(is_training());
  return copy;
}

std::shared_ptr<Module> ModuleListImpl::clone(const std::optional<Device>& device) const {
  auto copy = std::make_shared<ModuleListImpl>();
  for (const auto& m : modules_) copy->push_back_module(m->clone(device));
  copy->train(is_training());
  return copy;
}

SequentialImpl::SequentialImpl(std::initializer_list<NamedAnyModule> named_modules) {
  for (const NamedAnyModule& m : named_modules) push_back_any(m.name(), m.module());
}

void SequentialImpl::pretty_print(std::ostream& stream) const { stream << kModulePrefix << "Sequential"; }

void SequentialImpl::push_back_any(std::string name, AnyModule module) {
  EMBER_CHECK_VALUE(!module.is_empty(), "Sequential::push_back(): expected a module, but got an ",
                    "empty one");
  register_module(std::move(name), module.ptr());
  modules_.push_back(std::move(module));
}

void SequentialImpl::extend(const SequentialImpl& other) {
  for (const AnyModule& m : other.modules_) push_back_any(std::to_string(modules_.size()), m);
}

Tensor SequentialImpl::forward(const Tensor& input) {
  EMBER_CHECK(!modules_.empty(), "Sequential::forward(): cannot call forward() on an empty Sequential");
  Tensor x = input;
  for (const AnyModule& m : modules_) x = m.forward(x);
  return x;
}

std::shared_ptr<Module> SequentialImpl::ptr(size_t index) const {
  EMBER_CHECK_INDEX(index < modules_.size(), "Sequential: index ", index,
                    " is out of range for a Sequential of size ", modules_.size());
  return modules_[index].ptr();
}

void ModuleListImpl::pretty_print(std::ostream& stream) const { stream << kModulePrefix << "ModuleList"; }

void ModuleListImpl::push_back_module(std::shared_ptr<Module> module) {
  EMBER_CHECK_VALUE(module != nullptr, "ModuleList::push_back(): expected a module, but got an ",
                    "empty one");
  register_module(std::to_string(modules_.size()), module);
  modules_.push_back(std::move(module));
}

void ModuleListImpl::extend(const ModuleListImpl& other) {
  for (const auto& m : other.modules_) push_back_module(m);
}

void ModuleListImpl::insert_module(size_t index, std::shared_ptr<Module> module) {
  EMBER_CHECK_INDEX(index <= modules_.size(), "ModuleList::insert(): index ", index,
                    " is out of range for a ModuleList of size ", modules_.size());
  EMBER_CHECK_VALUE(module != nullptr, "ModuleList::insert(): expected a module, but got an empty one");
  modules_.insert(modules_.begin() + static_cast<std::ptrdiff_t>(index), std::move(module));
  // Children are named by position: rename every one from index on.
  children_.clear();
  for (size_t i = 0; i < modules_.size(); ++i) children_.insert(std::to_string(i), modules_[i]);
}

std::shared_ptr<Module> ModuleListImpl::ptr(size_t index) const {
  EMBER_CHECK_INDEX(index < modules_.size(), "ModuleList: index ", index,
                    " is out of range for a ModuleList of size ", modules_.size());
  return modules_[index];
}

FunctionalImpl::FunctionalImpl(Function function) : function_(std::move(function)) {
  EMBER_CHECK_VALUE(static_cast<bool>(function_), "Functional: expected a function, but got an empty one");
}

void FunctionalImpl::pretty_print(std::ostream& stream) const { stream << kModulePrefix << "Functional()"; }

Tensor FunctionalImpl::forward(Tensor input) { return function_(std::move(input)); }

}  // namespace ember::nn
