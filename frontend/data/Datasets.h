#pragma once
/// torch::data::datasets: the CRTP bases a dataset derives from (BatchDataset, Dataset),
/// MapDataset (what `.map(transform)` returns) and MNIST.

#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "c10/util/ArrayRef.h"
#include "frontend/data/Example.h"

namespace ember::data::datasets {

template <class Source, class Transform>
class MapDataset;

/// A dataset that produces a whole batch for a request (by default, a list of indices).
/// Self is the deriving class (CRTP), which `.map()` returns wrapped.
template <class Self, class Batch = std::vector<Example<>>, class BatchRequest = ArrayRef<size_t>>
class BatchDataset {
 public:
  using SelfType = Self;
  using BatchType = Batch;
  using BatchRequestType = BatchRequest;
  static constexpr bool is_stateful = false;

  virtual ~BatchDataset() = default;
  /// The batch for request.
  virtual Batch get_batch(BatchRequest request) = 0;
  /// The number of examples, if known.
  virtual std::optional<size_t> size() const = 0;

  /// This dataset with transform applied to each batch it produces.
  template <class Transform>
  MapDataset<Self, Transform> map(Transform transform) & {
    return MapDataset<Self, Transform>(static_cast<Self&>(*this), std::move(transform));
  }
  template <class Transform>
  MapDataset<Self, Transform> map(Transform transform) && {
    return MapDataset<Self, Transform>(std::move(static_cast<Self&>(*this)), std::move(transform));
  }
};

/// A dataset of single examples: implement get(index) and size(); a batch is the examples
/// at its indices, in order.
template <class Self, class SingleExample = Example<>>
class Dataset : public BatchDataset<Self, std::vector<SingleExample>> {
 public:
  using ExampleType = SingleExample;

  /// The example at index.
  virtual SingleExample get(size_t index) = 0;

  std::vector<SingleExample> get_batch(ArrayRef<size_t> indices) override {
    std::vector<SingleExample> batch;
    batch.reserve(indices.size());
    for (size_t i : indices) batch.push_back(get(i));
    return batch;
  }
};

/// A dataset whose batches pass through a transform (its apply_batch()).
template <class Source, class Transform>
class MapDataset : public BatchDataset<MapDataset<Source, Transform>,
                                       typename Transform::OutputBatchType,
                                       typename Source::BatchRequestType> {
 public:
  using DatasetType = Source;
  using TransformType = Transform;
  using BatchRequestType = typename Source::BatchRequestType;
  using OutputBatchType = typename Transform::OutputBatchType;

  MapDataset(Source dataset, Transform transform)
      : dataset_(std::move(dataset)), transform_(std::move(transform)) {}

  OutputBatchType get_batch(BatchRequestType request) override {
    return transform_.apply_batch(dataset_.get_batch(std::move(request)));
  }
  std::optional<size_t> size() const override { return dataset_.size(); }

  /// The wrapped dataset and transform.
  const Source& dataset() const { return dataset_; }
  const Transform& transform() const { return transform_; }

 private:
  Source dataset_;
  Transform transform_;
};

/// The rows of a tensor as examples without targets (libtorch's TensorDataset).
class EMBER_API TensorDataset : public Dataset<TensorDataset, TensorExample> {
 public:
  /// Over tensors[0] (libtorch's signature); ValueError unless exactly one is given.
  explicit TensorDataset(const std::vector<Tensor>& tensors);
  explicit TensorDataset(Tensor tensor);

  /// Row index of the tensor.
  TensorExample get(size_t index) override;
  std::optional<size_t> size() const override;

  Tensor tensor;
};

/// The MNIST digits from the four IDX files that yann.lecun.com distributes, unpacked in
/// root: images as float32 in [0, 1] of shape (N, 1, 28, 28), targets as int64 (N).
/// Files are checked as libtorch checks them (magic numbers, 28x28 images, one label per
/// image); unlike libtorch, any count is accepted (a cut-down copy loads too).
class EMBER_API MNIST : public Dataset<MNIST> {
 public:
  /// Which of the two splits to read.
  enum class Mode { kTrain, kTest };

  /// Reads the split's images and labels; ValueError naming the file for a missing,
  /// truncated or malformed one.
  explicit MNIST(const std::string& root, Mode mode = Mode::kTrain);

  /// Image index (1, 28, 28) and its label.
  Example<> get(size_t index) override;
  std::optional<size_t> size() const override;
  /// Whether this is the training split.
  bool is_train() const noexcept { return is_train_; }
  /// All images (N, 1, 28, 28).
  const Tensor& images() const { return images_; }
  /// All labels (N).
  const Tensor& targets() const { return targets_; }

 private:
  Tensor images_, targets_;
  bool is_train_;
};

}  // namespace ember::data::datasets
