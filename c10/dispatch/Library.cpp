#include "c10/dispatch/Library.h"

#include "c10/util/Exception.h"

namespace ember {

Library::Library(Kind kind, std::string ns, std::optional<DispatchKey> key, const char* file,
                 int line)
    : kind_(kind), ns_(std::move(ns)), key_(key), file_(file), line_(line) {
  EMBER_CHECK_VALUE(kind != Kind::Impl || key.has_value(),
                    "Library: an IMPL library needs a dispatch key");
  if (kind == Kind::Def) {
    registrations_.push_back(Dispatcher::singleton().claim_namespace(ns_, debug()));
  }
}

Library::~Library() { reset(); }

void Library::reset() {
  while (!registrations_.empty()) registrations_.pop_back();
}

std::string Library::debug() const { return str(file_, ":", line_); }

OperatorName Library::qualify(std::string_view op) const {
  OperatorName name;
  auto sep = op.find("::");
  if (sep != std::string_view::npos) {
    name.ns = std::string(op.substr(0, sep));
    op.remove_prefix(sep + 2);
    EMBER_CHECK_VALUE(ns_ == "_" || name.ns == ns_, "Library.impl(): operator '", name.ns, "::", op,
                      "' is outside this library's namespace '", ns_, "'");
  } else {
    EMBER_CHECK_VALUE(ns_ != "_", "Library.impl(): a library for any namespace ('_') needs "
                      "qualified operator names ('aten::add.Tensor'), but got '", op, "'");
    name.ns = ns_;
  }
  auto dot = op.find('.');
  name.name = std::string(op.substr(0, dot));
  if (dot != std::string_view::npos) name.overload = std::string(op.substr(dot + 1));
  EMBER_CHECK_VALUE(!name.name.empty(), "Library.impl(): expected an operator name, but got '", op, "'");
  return name;
}

Library& Library::def(std::string_view schema) {
  EMBER_CHECK_VALUE(kind_ != Kind::Impl, "Library.def(): an IMPL library (", debug(),
                    ") cannot define operators; use EMBER_LIBRARY or EMBER_LIBRARY_FRAGMENT");
  FunctionSchema s = FunctionSchema::parse(schema);
  EMBER_CHECK_VALUE(s.name.ns.empty() || s.name.ns == ns_, "Library.def(): schema namespace '",
                    s.name.ns, "' differs from the library's '", ns_, "'");
  s.name.ns = ns_;
  registrations_.push_back(Dispatcher::singleton().def(std::move(s), debug()));
  return *this;
}

Library& Library::def(std::string_view schema, CppFunction f) {
  def(schema);
  FunctionSchema s = FunctionSchema::parse(schema);
  std::string name = s.name.name + (s.name.overload.empty() ? "" : "." + s.name.overload);
  return impl(name, DispatchKey::CompositeImplicitAutograd, std::move(f));
}

Library& Library::impl(std::string_view op, CppFunction f) {
  EMBER_CHECK_VALUE(key_.has_value(), "Library.impl(): this library (", debug(),
                    ") has no dispatch key; pass one: impl(\"", op, "\", DispatchKey::CPU, f)");
  return impl(op, *key_, std::move(f));
}

Library& Library::impl(std::string_view op, DispatchKey key, CppFunction f) {
  EMBER_CHECK_VALUE(!key_.has_value() || *key_ == key, "Library.impl(): this library is for key ",
                    dispatch_key_name(*key_), ", but got ", dispatch_key_name(key));
  EMBER_CHECK_VALUE(key != DispatchKey::Undefined, "Library.impl(): expected a dispatch key, but got Undefined");
  KernelFunction k = std::move(f).release();
  k.debug = debug();
  registrations_.push_back(Dispatcher::singleton().impl(qualify(op), key, std::move(k), this));
  return *this;
}

Library& Library::fallback(CppFunction f) {
  EMBER_CHECK_VALUE(kind_ == Kind::Impl, "Library.fallback(): fallbacks are registered from "
                    "EMBER_LIBRARY_IMPL(_, Key, m)");
  KernelFunction k = std::move(f).release();
  k.debug = debug();
  registrations_.push_back(Dispatcher::singleton().fallback(*key_, std::move(k), this));
  return *this;
}

namespace detail {

LibraryInit::LibraryInit(Library::Kind kind, void (*init)(Library&), const char* ns,
                         std::optional<DispatchKey> key, const char* file, int line) {
  try {
    lib_.emplace(kind, ns, key, file, line);
    init(*lib_);
  } catch (const std::exception& e) {
    lib_.reset();  // undoes everything it registered
    Dispatcher::singleton().record_library_error(str(file, ":", line, ": ", e.what()));
  }
}

}  // namespace detail
}  // namespace ember
