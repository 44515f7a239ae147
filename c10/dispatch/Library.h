#pragma once
/// The registration API: EMBER_LIBRARY (define a namespace's operators),
/// EMBER_LIBRARY_FRAGMENT (define more), EMBER_LIBRARY_IMPL (kernels for one key).
/// Registrations are undone when the Library is destroyed (e.g. when its .so unloads).

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "c10/dispatch/Dispatcher.h"

namespace ember {

/// A set of registrations with one owner and one lifetime.
class EMBER_API Library {
 public:
  enum class Kind { Def, Fragment, Impl };

  /// For Impl, `key` is the dispatch key every impl() and fallback() registers for
  /// (ns "_" means any namespace, for fallbacks).
  Library(Kind kind, std::string ns, std::optional<DispatchKey> key, const char* file, int line);
  Library(const Library&) = delete;
  Library& operator=(const Library&) = delete;
  ~Library();

  /// Defines an operator from its schema ("add.Tensor(Tensor self, Tensor other) -> Tensor").
  Library& def(std::string_view schema);
  /// Defines an operator with a CompositeImplicitAutograd kernel.
  Library& def(std::string_view schema, CppFunction f);
  /// Registers f for the operator ("add.Tensor") under this library's key.
  Library& impl(std::string_view op, CppFunction f);
  /// Registers f under an explicit key (Def/Fragment libraries).
  Library& impl(std::string_view op, DispatchKey key, CppFunction f);
  /// The backend fallback for this library's key (boxed, or CppFunction::fallthrough()).
  Library& fallback(CppFunction f);

  /// Undoes every registration, newest first.
  void reset();

 private:
  OperatorName qualify(std::string_view op) const;
  std::string debug() const;

  Kind kind_;
  std::string ns_;
  std::optional<DispatchKey> key_;
  std::string file_;
  int line_;
  std::vector<RegistrationHandle> registrations_;
};

namespace detail {
/// Runs a library's init function at static-initialisation time. An error rolls the
/// library back completely and is recorded in Dispatcher::library_errors().
class EMBER_API LibraryInit {
 public:
  LibraryInit(Library::Kind kind, void (*init)(Library&), const char* ns,
              std::optional<DispatchKey> key, const char* file, int line);

 private:
  std::optional<Library> lib_;
};
}  // namespace detail

}  // namespace ember

/// Defines the operators of namespace `ns`: EMBER_LIBRARY(myops, m) { m.def("..."); }
#define EMBER_LIBRARY(ns, m) EMBER_LIBRARY_IMPL_(Def, ns, std::nullopt, m, EMBER_UID)
/// Defines more operators in a namespace another EMBER_LIBRARY owns.
#define EMBER_LIBRARY_FRAGMENT(ns, m) EMBER_LIBRARY_IMPL_(Fragment, ns, std::nullopt, m, EMBER_UID)
/// Registers kernels for one dispatch key: EMBER_LIBRARY_IMPL(aten, CPU, m) { m.impl(...); }
#define EMBER_LIBRARY_IMPL(ns, key, m) \
  EMBER_LIBRARY_IMPL_(Impl, ns, ::ember::DispatchKey::key, m, EMBER_UID)

#define EMBER_LIBRARY_IMPL_(kind, ns, key, m, uid)                                       \
  static void EMBER_CONCAT(uid, _init)(::ember::Library&);                              \
  static const ::ember::detail::LibraryInit EMBER_CONCAT(uid, _lib)(                     \
      ::ember::Library::Kind::kind, &EMBER_CONCAT(uid, _init), #ns, key, __FILE__, __LINE__); \
  void EMBER_CONCAT(uid, _init)(::ember::Library & m)
