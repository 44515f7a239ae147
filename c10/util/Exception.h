#pragma once
/// Typed exceptions and the check macros that raise them (shared/STYLE.md, "Errors").

#include <exception>
#include <sstream>
#include <string>
#include <string_view>

#include "c10/macros/Export.h"

namespace ember {

/// Base of every error Ember raises; maps to Python's RuntimeError.
class EMBER_API Error : public std::exception {
 public:
  Error(std::string message, const char* file, int line);
  /// The message without the source location.
  const std::string& message() const noexcept { return message_; }
  /// Where the check failed, as "file:line".
  const std::string& where() const noexcept { return where_; }
  const char* what() const noexcept override { return message_.c_str(); }

 private:
  std::string message_;
  std::string where_;
};

/// A value outside what the argument accepts; maps to ValueError.
class EMBER_API ValueError : public Error { using Error::Error; };
/// An index out of range; maps to IndexError.
class EMBER_API IndexError : public Error { using Error::Error; };
/// An argument of the wrong type or dtype; maps to TypeError.
class EMBER_API TypeError : public Error { using Error::Error; };
/// A valid request Ember does not support (yet); maps to NotImplementedError.
class EMBER_API NotImplementedError : public Error { using Error::Error; };

namespace detail {

inline void str_append(std::ostringstream&) {}
template <class T, class... Rest>
void str_append(std::ostringstream& os, const T& first, const Rest&... rest) {
  os << first;
  str_append(os, rest...);
}

/// Throws E with the message; kept out of line so checks cost one branch.
template <class E>
[[noreturn]] EMBER_NOINLINE void throw_error(const char* file, int line, std::string msg) {
  throw E(std::move(msg), file, line);
}

}  // namespace detail

/// Concatenates anything printable with operator<< into one string.
template <class... Args>
std::string str(const Args&... args) {
  std::ostringstream os;
  detail::str_append(os, args...);
  return os.str();
}
inline std::string str(const std::string& s) { return s; }
inline std::string str(const char* s) { return s; }

}  // namespace ember

// The message is only built when the check fails.
#define EMBER_CHECK_IMPL(E, cond, ...)                                          \
  do {                                                                          \
    if (EMBER_UNLIKELY(!(cond))) {                                              \
      ::ember::detail::throw_error<E>(__FILE__, __LINE__, ::ember::str(__VA_ARGS__)); \
    }                                                                           \
  } while (0)

/// Raises ember::Error (RuntimeError) unless cond holds.
#define EMBER_CHECK(cond, ...) EMBER_CHECK_IMPL(::ember::Error, cond, __VA_ARGS__)
/// Raises ValueError unless cond holds.
#define EMBER_CHECK_VALUE(cond, ...) EMBER_CHECK_IMPL(::ember::ValueError, cond, __VA_ARGS__)
/// Raises IndexError unless cond holds.
#define EMBER_CHECK_INDEX(cond, ...) EMBER_CHECK_IMPL(::ember::IndexError, cond, __VA_ARGS__)
/// Raises TypeError unless cond holds.
#define EMBER_CHECK_TYPE(cond, ...) EMBER_CHECK_IMPL(::ember::TypeError, cond, __VA_ARGS__)
/// Raises NotImplementedError unless cond holds.
#define EMBER_CHECK_NOT_IMPLEMENTED(cond, ...) \
  EMBER_CHECK_IMPL(::ember::NotImplementedError, cond, __VA_ARGS__)
/// Unconditionally raises E with the message.
#define EMBER_THROW(E, ...) ::ember::detail::throw_error<E>(__FILE__, __LINE__, ::ember::str(__VA_ARGS__))
/// An invariant of Ember itself; failing it is a bug in Ember, reported as Error.
#define EMBER_INTERNAL_ASSERT(cond, ...)                                        \
  EMBER_CHECK_IMPL(::ember::Error, cond, "internal assert failed: " #cond " ", \
                   ##__VA_ARGS__, " (this is a bug in Ember, please report it)")
#ifdef NDEBUG
#define EMBER_DCHECK(cond, ...) do { } while (0)
#else
/// A debug-build-only invariant check for hot paths.
#define EMBER_DCHECK(cond, ...) EMBER_INTERNAL_ASSERT(cond, ##__VA_ARGS__)
#endif
