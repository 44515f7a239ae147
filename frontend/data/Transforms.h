#pragma once
/// torch::data::transforms: what `.map()` applies to a dataset's batches: Lambda and
/// BatchLambda, TensorTransform / TensorLambda, Normalize and Stack.

#include <functional>
#include <utility>
#include <vector>

#include "c10/util/ArrayRef.h"
#include "frontend/data/Example.h"

namespace ember::data::transforms {

/// Maps a whole batch to another (apply_batch).
template <class InputBatch, class OutputBatch>
class BatchTransform {
 public:
  using InputBatchType = InputBatch;
  using OutputBatchType = OutputBatch;

  virtual ~BatchTransform() = default;
  /// The transformed batch.
  virtual OutputBatch apply_batch(InputBatch input_batch) = 0;
};

/// A BatchTransform that turns a list of examples into one batch (Stack is one).
template <class Batch, class Examples = std::vector<Batch>>
using Collation = BatchTransform<Examples, Batch>;

/// Maps each example of a batch (apply), so the batch keeps its length.
template <class Input, class Output>
class Transform : public BatchTransform<std::vector<Input>, std::vector<Output>> {
 public:
  using InputType = Input;
  using OutputType = Output;

  /// The transformed example.
  virtual Output apply(Input input) = 0;

  std::vector<Output> apply_batch(std::vector<Input> input_batch) override {
    std::vector<Output> out;
    out.reserve(input_batch.size());
    for (Input& x : input_batch) out.push_back(apply(std::move(x)));
    return out;
  }
};

/// A Transform from a function of one example.
template <class Input, class Output = Input>
class Lambda : public Transform<Input, Output> {
 public:
  using FunctionType = std::function<Output(Input)>;

  explicit Lambda(FunctionType function) : function_(std::move(function)) {}
  Output apply(Input input) override { return function_(std::move(input)); }

 private:
  FunctionType function_;
};

/// A BatchTransform from a function of a batch.
template <class Input, class Output = Input>
class BatchLambda : public BatchTransform<Input, Output> {
 public:
  using FunctionType = std::function<Output(Input)>;

  explicit BatchLambda(FunctionType function) : function_(std::move(function)) {}
  Output apply_batch(Input input_batch) override { return function_(std::move(input_batch)); }

 private:
  FunctionType function_;
};

/// Maps each example's data tensor (operator()), keeping its target.
template <class Target = Tensor>
class TensorTransform : public Transform<Example<Tensor, Target>, Example<Tensor, Target>> {
 public:
  using E = Example<Tensor, Target>;

  /// The transformed data tensor.
  virtual Tensor operator()(Tensor input) = 0;

  E apply(E input) override {
    input.data = (*this)(std::move(input.data));
    return input;
  }
};

/// A TensorTransform from a function of the data tensor.
template <class Target = Tensor>
class TensorLambda : public TensorTransform<Target> {
 public:
  using FunctionType = std::function<Tensor(Tensor)>;

  explicit TensorLambda(FunctionType function) : function_(std::move(function)) {}
  Tensor operator()(Tensor input) override { return function_(std::move(input)); }

 private:
  FunctionType function_;
};

namespace detail {
/// mean (or stddev) as a float32 tensor of shape (C, 1, 1): one value per channel of a
/// (C, H, W) image.
EMBER_API Tensor channel_values(ArrayRef<double> values, const char* what);
/// (input - mean) / stddev.
EMBER_API Tensor normalize(const Tensor& input, const Tensor& mean, const Tensor& stddev);
/// torch::stack of the tensors, as a batch (dim 0).
EMBER_API Tensor stack_batch(const std::vector<Tensor>& tensors);
}  // namespace detail

/// (data - mean) / stddev per channel: one mean and stddev for all channels, or one per
/// channel of a (C, H, W) data tensor.
template <class Target = Tensor>
class Normalize : public TensorTransform<Target> {
 public:
  Normalize(ArrayRef<double> mean, ArrayRef<double> stddev)
      : mean(detail::channel_values(mean, "mean")),
        stddev(detail::channel_values(stddev, "stddev")) {}

  Tensor operator()(Tensor input) override { return detail::normalize(input, mean, stddev); }

  Tensor mean, stddev;
};

/// Stacks a batch of examples into one example: data and targets each stacked on a new
/// dim 0 (libtorch's Stack<>, for Example<> and TensorExample).
template <class E = Example<>>
struct Stack;

template <>
struct Stack<Example<>> : public BatchTransform<std::vector<Example<>>, Example<>> {
  Example<> apply_batch(std::vector<Example<>> examples) override {
    std::vector<Tensor> data, targets;
    data.reserve(examples.size());
    targets.reserve(examples.size());
    for (Example<>& e : examples) {
      data.push_back(std::move(e.data));
      targets.push_back(std::move(e.target));
    }
    return {detail::stack_batch(data), detail::stack_batch(targets)};
  }
};

template <>
struct Stack<TensorExample> : public BatchTransform<std::vector<TensorExample>, TensorExample> {
  TensorExample apply_batch(std::vector<TensorExample> examples) override {
    std::vector<Tensor> data;
    data.reserve(examples.size());
    for (TensorExample& e : examples) data.push_back(std::move(e.data));
    return detail::stack_batch(data);
  }
};

}  // namespace ember::data::transforms
