// nn::Module: registration, traversal, modes, conversion and printing.

#include "frontend/nn/module.h"

#include <cxxabi.h>

#include <cstdlib>
#include <typeinfo>

#include "aten/autograd/GradMode.h"
#include "aten/autograd/Variable.h"

namespace ember::nn {

namespace {

std::string join_name(const std::string& prefix, const std::string& name) {
  return prefix.empty() ? name : prefix + "." + name;
}

std::string demangle(const char* mangled) {
  int status = 0;
  char* out = abi::__cxa_demangle(mangled, nullptr, nullptr, &status);
  std::string result = (status == 0 && out) ? out : mangled;
  std::free(out);
  return result;
}

}  // namespace

Module::Module(std::string name) : name_(std::move(name)) {}

Module::Module() = default;

const std::string& Module::name() const noexcept {
  // The dynamic type is only known once construction is over, so the name is made lazily.
  if (!name_) name_ = demangle(typeid(*this).name());
  return *name_;
}

std::vector<Tensor> Module::parameters(bool recurse) const {
  return named_parameters(recurse).values();
}

OrderedDict<std::string, Tensor> Module::named_parameters(bool recurse) const {
  OrderedDict<std::string, Tensor> result("Parameter");
  if (!recurse) {
    for (const auto& p : parameters_) {
      if (p.value().defined()) result.insert(p.key(), p.value());
    }
    return result;
  }
  apply([&](const std::string& prefix, const Module& module) {
    for (const auto& p : module.parameters_) {
      if (p.value().defined()) result.insert(join_name(prefix, p.key()), p.value());
    }
  });
  return result;
}

std::vector<Tensor> Module::buffers(bool recurse) const { return named_buffers(recurse).values(); }

OrderedDict<std::string, Tensor> Module::named_buffers(bool recurse) const {
  OrderedDict<std::string, Tensor> result("Buffer");
  if (!recurse) {
    for (const auto& b : buffers_) {
      if (b.value().defined()) result.insert(b.key(), b.value());
    }
    return result;
  }
  apply([&](const std::string& prefix, const Module& module) {
    for (const auto& b : module.buffers_) {
      if (b.value().defined()) result.insert(join_name(prefix, b.key()), b.value());
    }
  });
  return result;
}

std::shared_ptr<Module> Module::shared_from_this_checked() const {
  std::shared_ptr<const Module> ptr = weak_from_this().lock();
  EMBER_CHECK(ptr != nullptr,
              "It looks like you attempted to retrieve your top-level module as a shared_ptr, but "
              "it is not stored in a shared_ptr. Use std::make_shared<", name(),
              ">() instead of creating your module on the stack, or pass include_self=false "
              "to modules() or named_modules()");
  return std::const_pointer_cast<Module>(ptr);
}

std::vector<std::shared_ptr<Module>> Module::modules(bool include_self) const {
  return named_modules("", include_self).values();
}

OrderedDict<std::string, std::shared_ptr<Module>> Module::named_modules(
    const std::string& name_prefix, bool include_self) const {
  OrderedDict<std::string, std::shared_ptr<Module>> result("Module");
  if (include_self) result.insert(name_prefix, shared_from_this_checked());
  for (const auto& child : children_) {
    child.value()->apply(
        [&](const std::string& name, const std::shared_ptr<Module>& module) {
          result.insert(name, module);
        },
        join_name(name_prefix, child.key()));
  }
  return result;
}

std::vector<std::shared_ptr<Module>> Module::children() const { return children_.values(); }

OrderedDict<std::string, std::shared_ptr<Module>> Module::named_children() const {
  return children_;
}

void Module::train(bool on) {
  for (auto& child : children_) child.value()->train(on);
  is_training_ = on;
}

void Module::eval() { train(false); }

bool Module::is_training() const noexcept { return is_training_; }

void Module::to_impl(std::optional<Device> device, std::optional<ScalarType> dtype) {
  autograd::NoGradGuard no_grad;
  auto convert = [&](const Tensor& t) {
    if (!t.defined()) return;
    const bool cast = dtype && is_floating_point(t.scalar_type());
    const ScalarType to_dtype = cast ? *dtype : t.scalar_type();
    const Device to_device = device ? *device : t.device();
    if (to_dtype == t.scalar_type() && to_device == t.device()) return;
    const Tensor converted = t.to(to_device, to_dtype);
    const Tensor grad = t.grad();
    // Note: a grad of the old dtype would fail set_grad's check once the data changes.
    if (grad.defined()) autograd::set_grad(t, Tensor());
    t.impl()->set_data(*converted.impl());
    if (grad.defined()) autograd::set_grad(t, grad.to(to_device, to_dtype));
  };
  for (auto& child : children_) child.value()->to_impl(device, dtype);
  for (auto& p : parameters_) convert(p.value());
  for (auto& b : buffers_) convert(b.value());
}

void Module::to(Device device, ScalarType dtype, bool) { to_impl(device, dtype); }
void Module::to(ScalarType dtype, bool) { to_impl(std::nullopt, dtype); }
void Module::to(Device device, bool) { to_impl(device, std::nullopt); }

void Module::zero_grad(bool set_to_none) {
  for (auto& child : children_) child.value()->zero_grad(set_to_none);
  for (auto& p : parameters_) {
    const Tensor& t = p.value();
    if (!t.defined()) continue;
    const Tensor grad = t.grad();
    if (!grad.defined()) continue;
    if (set_to_none) {
      autograd::set_grad(t, Tensor());
    } else {
      autograd::NoGradGuard no_grad;
      grad.detach().zero_();
    }
  }
}

void Module::apply(const ModuleApplyFunction& function) {
  function(*this);
  for (auto& child : children_) child.value()->apply(function);
}

void Module::apply(const ConstModuleApplyFunction& function) const {
  function(*this);
  for (const auto& child : children_) {
    static_cast<const Module&>(*child.value()).apply(function);
  }
}

void Module::apply(const NamedModuleApplyFunction& function, const std::string& name_prefix) {
  function(name_prefix, *this);
  for (auto& child : children_) {
    child.value()->apply(function, join_name(name_prefix, child.key()));
  }
}

void Module::apply(const ConstNamedModuleApplyFunction& function,
                   const std::string& name_prefix) const {
  function(name_prefix, *this);
  for (const auto& child : children_) {
    static_cast<const Module&>(*child.value()).apply(function, join_name(name_prefix, child.key()));
  }
}

void Module::apply(const ModulePointerApplyFunction& function) const {
  function(shared_from_this_checked());
  for (const auto& child : children_) child.value()->apply(function);
}

void Module::apply(const NamedModulePointerApplyFunction& function,
                   const std::string& name_prefix) const {
  function(name_prefix, shared_from_this_checked());
  for (const auto& child : children_) {
    child.value()->apply(function, join_name(name_prefix, child.key()));
  }
}

std::shared_ptr<Module> Module::clone(const std::optional<Device>&) const {
  EMBER_THROW(NotImplementedError, "clone() has not been implemented for ", name(),
              ". Subclass ember::nn::Cloneable<", name(), "> instead of ember::nn::Module to ",
              "inherit the ability to clone");
}

void Module::clone_(Module&, const std::optional<Device>&) {
  EMBER_THROW(NotImplementedError, "clone() has not been implemented for ", name(),
              ". Subclass ember::nn::Cloneable<", name(), "> instead of ember::nn::Module to ",
              "inherit the ability to clone");
}

void Module::copy_state_into(Module& copy, const std::optional<Device>& device) const {
  autograd::NoGradGuard no_grad;
  EMBER_CHECK(copy.parameters_.keys() == parameters_.keys() && copy.buffers_.keys() == buffers_.keys(),
              "clone(): the cloned ", name(), " does not have the same parameters and buffers as ",
              "the original after reset(); register them in reset(), not in the constructor");
  auto copy_tensor = [&](const Tensor& from, Tensor& to) {
    if (!from.defined()) {
      to = Tensor();
      return;
    }
    const Tensor data = device && from.device() != *device ? from.to(*device, from.scalar_type())
                                                           : from.clone();
    if (to.defined()) {
      to.impl()->set_data(*data.impl());
    } else {
      to = data;
    }
  };
  for (const auto& p : parameters_) copy_tensor(p.value(), copy.parameters_[p.key()]);
  for (const auto& b : buffers_) copy_tensor(b.value(), copy.buffers_[b.key()]);
  EMBER_CHECK(copy.children_.keys() == children_.keys(), "clone(): the cloned ", name(),
              " does not have the same submodules as the original after reset(); register ",
              "them in reset(), not in the constructor");
  for (const auto& child : children_) copy.children_[child.key()]->clone_(*child.value(), device);
  copy.is_training_ = is_training_;
}

void Module::pretty_print(std::ostream& stream) const { stream << name(); }

void Module::pretty_print_recursive(std::ostream& stream, const std::string& indentation) const {
  pretty_print(stream);
  if (children_.is_empty()) return;
  stream << "(\n";
  const std::string next = indentation + "  ";
  for (const auto& child : children_) {
    stream << next << "(" << child.key() << "): ";
    child.value()->pretty_print_recursive(stream, next);
    stream << '\n';
  }
  stream << indentation << ")";
}

void Module::check_module_name(const std::string& name) {
  EMBER_CHECK_VALUE(!name.empty(), "register_module(): expected a non-empty name");
  EMBER_CHECK_VALUE(name.find('.') == std::string::npos,
                    "register_module(): expected a name without dots, but got '", name, "'");
}

Tensor& Module::register_parameter(std::string name, Tensor tensor, bool requires_grad) {
  EMBER_CHECK_VALUE(!name.empty(), "register_parameter(): expected a non-empty name");
  EMBER_CHECK_VALUE(name.find('.') == std::string::npos,
                    "register_parameter(): expected a name without dots, but got '", name, "'");
  if (tensor.defined()) {
    // A parameter is a leaf: registering a computed tensor keeps its data, not its graph.
    if (!tensor.is_leaf()) tensor = tensor.detach();
    tensor.requires_grad_(requires_grad);
  }
  return parameters_.insert(std::move(name), std::move(tensor));
}

Tensor& Module::register_buffer(std::string name, Tensor tensor) {
  EMBER_CHECK_VALUE(!name.empty(), "register_buffer(): expected a non-empty name");
  EMBER_CHECK_VALUE(name.find('.') == std::string::npos,
                    "register_buffer(): expected a name without dots, but got '", name, "'");
  return buffers_.insert(std::move(name), std::move(tensor));
}

void Module::unregister_module(const std::string& name) { children_.erase(name); }

std::ostream& operator<<(std::ostream& stream, const Module& module) {
  module.pretty_print_recursive(stream, "");
  return stream;
}

}  // namespace ember::nn
