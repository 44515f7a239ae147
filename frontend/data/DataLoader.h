#pragma once
/// torch::data::make_data_loader and what it returns: a loader that walks a dataset in
/// batches chosen by a sampler, on the calling thread or (workers > 0) on worker threads
/// that prefetch batches and hand them over in order.
///   auto loader = torch::data::make_data_loader(
///       std::move(dataset), torch::data::DataLoaderOptions().batch_size(64).workers(2));
///   for (auto& batch : *loader) { ... }

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <exception>
#include <functional>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <thread>
#include <utility>
#include <vector>

#include "c10/util/Exception.h"
#include "frontend/data/Samplers.h"

namespace ember::data {

/// How a data loader batches (libtorch's builder: `DataLoaderOptions().batch_size(64)`;
/// each setter returns the options, each getter of the same name reads them).
class DataLoaderOptions {
 public:
  DataLoaderOptions() = default;
  /* implicit */ DataLoaderOptions(size_t batch_size) : batch_size_(batch_size) {}

#define EMBER_DATA_OPTION(T, name)                          \
  DataLoaderOptions& name(const T& value) {                 \
    name##_ = value;                                        \
    return *this;                                           \
  }                                                         \
  const T& name() const noexcept { return name##_; }        \
  T& name() noexcept { return name##_; }

  /// Examples per batch (default 1).
  EMBER_DATA_OPTION(size_t, batch_size)
  /// Worker threads (default 0: batches are made on the calling thread).
  EMBER_DATA_OPTION(size_t, workers)
  /// Batches in flight at once (default 2 * workers).
  EMBER_DATA_OPTION(std::optional<size_t>, max_jobs)
  /// How long to wait for a worker's batch before throwing (default: forever).
  EMBER_DATA_OPTION(std::optional<std::chrono::milliseconds>, timeout)
  /// Whether batches arrive in sampler order (default true) or as workers finish them.
  EMBER_DATA_OPTION(bool, enforce_ordering)
  /// Whether to drop the last batch when it is short (default false).
  EMBER_DATA_OPTION(bool, drop_last)
#undef EMBER_DATA_OPTION

 private:
  size_t batch_size_ = 1;
  size_t workers_ = 0;
  std::optional<size_t> max_jobs_;
  std::optional<std::chrono::milliseconds> timeout_;
  bool enforce_ordering_ = true;
  bool drop_last_ = false;
};

/// An input iterator over a loader's batches; the default-constructed one is the end.
template <class Batch>
class Iterator {
 public:
  using iterator_category = std::input_iterator_tag;
  using value_type = Batch;
  using difference_type = std::ptrdiff_t;
  using pointer = Batch*;
  using reference = Batch&;

  Iterator() = default;
  explicit Iterator(std::function<std::optional<Batch>()> next) : next_(std::move(next)) {
    batch_ = next_();
  }
  Batch& operator*() {
    EMBER_CHECK(batch_.has_value(), "DataLoader: dereferenced the end iterator");
    return *batch_;
  }
  Batch* operator->() { return &**this; }
  Iterator& operator++() {
    EMBER_CHECK(batch_.has_value(), "DataLoader: incremented the end iterator");
    std::optional<Batch> next = next_();
    batch_ = std::move(next);
    return *this;
  }
  /// Equal when both are at the end (or are the same iterator).
  bool operator==(const Iterator& other) const {
    return this == &other || (!batch_.has_value() && !other.batch_.has_value());
  }

 private:
  std::function<std::optional<Batch>()> next_;
  std::optional<Batch> batch_;
};

namespace detail {

/// Worker threads running numbered jobs in FIFO order; the consumer takes finished jobs in
/// number order (or as they finish) with each job's exception, if it threw.
class EMBER_API WorkerPool {
 public:
  WorkerPool(size_t workers, std::optional<std::chrono::milliseconds> timeout);
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  /// Queues job (called with the worker's number) and returns its number.
  size_t push(std::function<void(size_t)> job);
  /// Waits for the oldest job (in_order) or any finished one; its number and exception.
  std::pair<size_t, std::exception_ptr> take(bool in_order);
  /// Drops queued jobs, waits for running ones and forgets every job.
  void reset();

 private:
  void run(size_t worker);

  std::optional<std::chrono::milliseconds> timeout_;
  std::mutex mutex_;
  std::condition_variable work_cv_, done_cv_;
  std::map<size_t, std::function<void(size_t)>> queue_;
  std::map<size_t, std::exception_ptr> done_;
  std::set<size_t> pending_;   // pushed and not taken
  size_t next_ = 0, running_ = 0;
  bool stop_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace detail

/// A loader over a dataset whose batches depend only on their indices (every dataset
/// here): each epoch (begin()) resets the sampler and walks it to its end.
template <class Dataset, class Sampler = samplers::RandomSampler>
class StatelessDataLoader {
 public:
  using BatchType = typename Dataset::BatchType;
  using BatchRequestType = std::vector<size_t>;

  StatelessDataLoader(Dataset dataset, Sampler sampler, DataLoaderOptions options)
      : options_(std::move(options)), dataset_(std::move(dataset)), sampler_(std::move(sampler)) {
    EMBER_CHECK_VALUE(options_.batch_size() > 0, "make_data_loader(): expected batch_size to "
                      "be positive, but got 0");
    if (options_.workers() > 0) {
      // One copy of the dataset per worker, as libtorch makes: workers share nothing.
      worker_datasets_.assign(options_.workers(), dataset_);
      pool_ = std::make_unique<detail::WorkerPool>(options_.workers(), options_.timeout());
    }
  }
  ~StatelessDataLoader() { pool_.reset(); }

  /// Starts an epoch: resets the sampler and begins prefetching.
  Iterator<BatchType> begin() {
    reset();
    return Iterator<BatchType>([this] { return next(); });
  }
  /// The end of every epoch.
  Iterator<BatchType> end() { return Iterator<BatchType>(); }
  /// Stops the workers (the destructor does too).
  void join() {
    if (pool_) pool_->reset();
    slots_.clear();
  }
  const DataLoaderOptions& options() const noexcept { return options_; }

 private:
  using Slot = std::shared_ptr<std::optional<BatchType>>;

  void reset() {
    if (pool_) pool_->reset();
    slots_.clear();
    sampler_.reset(std::nullopt);
    exhausted_ = false;
    if (pool_) {
      const size_t jobs = options_.max_jobs().value_or(2 * options_.workers());
      for (size_t i = 0; i < std::max<size_t>(jobs, 1); ++i) {
        if (!push_job()) break;
      }
    }
  }

  std::optional<std::vector<size_t>> next_indices() {
    if (exhausted_) return std::nullopt;
    std::optional<std::vector<size_t>> indices = sampler_.next(options_.batch_size());
    if (!indices || indices->empty() ||
        (options_.drop_last() && indices->size() < options_.batch_size())) {
      exhausted_ = true;
      return std::nullopt;
    }
    return indices;
  }

  bool push_job() {
    std::optional<std::vector<size_t>> indices = next_indices();
    if (!indices) return false;
    Slot slot = std::make_shared<std::optional<BatchType>>();
    const size_t id = pool_->push(
        [this, slot, request = std::move(*indices)](size_t worker) {
          slot->emplace(worker_datasets_[worker].get_batch(request));
        });
    slots_.emplace(id, std::move(slot));
    return true;
  }

  std::optional<BatchType> next() {
    if (!pool_) {
      std::optional<std::vector<size_t>> indices = next_indices();
      if (!indices) return std::nullopt;
      return dataset_.get_batch(*indices);
    }
    if (slots_.empty()) return std::nullopt;
    auto [id, error] = pool_->take(options_.enforce_ordering());
    const auto it = slots_.find(id);
    Slot slot = std::move(it->second);
    slots_.erase(it);
    push_job();   // keep the pipeline full
    if (error) std::rethrow_exception(error);
    return std::move(*slot);
  }

  DataLoaderOptions options_;
  Dataset dataset_;
  Sampler sampler_;
  bool exhausted_ = false;
  std::vector<Dataset> worker_datasets_;
  std::map<size_t, Slot> slots_;   // in flight, by job number
  std::unique_ptr<detail::WorkerPool> pool_;   // last: stopped before what its jobs use
};

/// A loader over dataset with a Sampler (default RandomSampler) of dataset.size() indices.
template <class Sampler = samplers::RandomSampler, class Dataset>
std::unique_ptr<StatelessDataLoader<Dataset, Sampler>> make_data_loader(
    Dataset dataset, DataLoaderOptions options = DataLoaderOptions()) {
  const std::optional<size_t> size = dataset.size();
  EMBER_CHECK_VALUE(size.has_value(), "make_data_loader(): expected a dataset whose size() "
                    "is known, to construct the sampler; pass a sampler instead");
  Sampler sampler(*size);
  return std::make_unique<StatelessDataLoader<Dataset, Sampler>>(
      std::move(dataset), std::move(sampler), std::move(options));
}

/// The same, with only a batch size.
template <class Sampler = samplers::RandomSampler, class Dataset>
std::unique_ptr<StatelessDataLoader<Dataset, Sampler>> make_data_loader(Dataset dataset,
                                                                        size_t batch_size) {
  return make_data_loader<Sampler>(std::move(dataset), DataLoaderOptions(batch_size));
}

/// A loader over dataset with the given sampler.
template <class Dataset, class Sampler>
  requires requires(Sampler s) { s.next(size_t{1}); s.reset(std::nullopt); }
std::unique_ptr<StatelessDataLoader<Dataset, Sampler>> make_data_loader(
    Dataset dataset, Sampler sampler, DataLoaderOptions options = DataLoaderOptions()) {
  return std::make_unique<StatelessDataLoader<Dataset, Sampler>>(
      std::move(dataset), std::move(sampler), std::move(options));
}

}  // namespace ember::data
