#pragma once
/// libtorch's C++-only overloads of the std/var family: `ember::std(t, 1)` reduces over
/// dim 1. Without them an int argument picks `std(Tensor, bool unbiased)` (int to bool is a
/// standard conversion, which beats the user-defined one to a dim list); Tensor::std(int)
/// and Tensor::var(int) are their method forms (c10/core/Tensor.h).

#include <tuple>

#include "ember/generated/ops/std.h"
#include "ember/generated/ops/std_mean.h"
#include "ember/generated/ops/var.h"
#include "ember/generated/ops/var_mean.h"

namespace ember {

/// The standard deviation over dim (Bessel's correction).
inline Tensor std(const Tensor& self, int dim) { return ember::std(self, OptionalIntArrayRef(dim)); }
/// The variance over dim (Bessel's correction).
inline Tensor var(const Tensor& self, int dim) { return ember::var(self, OptionalIntArrayRef(dim)); }
/// The standard deviation and mean over dim.
inline std::tuple<Tensor, Tensor> std_mean(const Tensor& self, int dim) {
  return ember::std_mean(self, OptionalIntArrayRef(dim));
}
/// The variance and mean over dim.
inline std::tuple<Tensor, Tensor> var_mean(const Tensor& self, int dim) {
  return ember::var_mean(self, OptionalIntArrayRef(dim));
}

}  // namespace ember
