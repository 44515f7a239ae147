#pragma once
/// EMBER_ARG (also spelled TORCH_ARG): a field of an options object with libtorch's
/// builder-style setter `opts.name(v)` (returns the options) and getter `opts.name()`.

#include <utility>

#define EMBER_ARG(T, name)                                                   \
 public:                                                                     \
  inline auto name(const T& new_##name)->decltype(*this) {                   \
    this->name##_ = new_##name;                                              \
    return *this;                                                            \
  }                                                                          \
  inline auto name(T&& new_##name)->decltype(*this) {                        \
    this->name##_ = std::move(new_##name);                                   \
    return *this;                                                            \
  }                                                                          \
  inline const T& name() const noexcept { return this->name##_; }            \
  inline T& name() noexcept { return this->name##_; }                        \
                                                                             \
 private:                                                                    \
  T name##_

#ifndef TORCH_ARG
#define TORCH_ARG(T, name) EMBER_ARG(T, name)
#endif
