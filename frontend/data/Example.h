#pragma once
/// torch::data::Example: one sample of a dataset, its data and its target.

#include <optional>

#include "c10/core/Tensor.h"

namespace ember {

// libtorch programs spell these torch::optional / torch::nullopt (dataset size()).
using std::nullopt;
using std::optional;

namespace data {

/// The target of an example that has none (Example<Tensor, NoTarget>).
struct NoTarget {};

/// One sample: `.data` and `.target` (libtorch's torch::data::Example).
template <class Data = Tensor, class Target = Tensor>
struct Example {
  using DataType = Data;
  using TargetType = Target;

  Example() = default;
  Example(Data data, Target target) : data(std::move(data)), target(std::move(target)) {}

  Data data;
  Target target;
};

/// An example without a target.
template <class Data>
struct Example<Data, NoTarget> {
  using DataType = Data;
  using TargetType = NoTarget;

  Example() = default;
  /* implicit */ Example(Data data) : data(std::move(data)) {}
  operator Data&() { return data; }
  operator const Data&() const { return data; }

  Data data;
};

/// An example holding only a tensor.
using TensorExample = Example<Tensor, NoTarget>;

}  // namespace data
}  // namespace ember
