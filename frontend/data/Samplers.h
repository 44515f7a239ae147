#pragma once
/// torch::data::samplers: which indices each batch reads. SequentialSampler (in order),
/// RandomSampler (a fresh permutation from Ember's default CPU generator each epoch), and
/// the distributed samplers, which give each of num_replicas ranks its share.

#include <cstddef>
#include <optional>
#include <vector>

#include "c10/core/ScalarType.h"
#include "c10/macros/Export.h"

namespace ember::data::samplers {

/// The base of samplers: reset() starts an epoch, next(n) gives up to n more indices.
template <class BatchRequest = std::vector<size_t>>
class Sampler {
 public:
  using BatchRequestType = BatchRequest;

  virtual ~Sampler() = default;
  /// Starts a new epoch, over new_size indices when given.
  virtual void reset(std::optional<size_t> new_size) = 0;
  /// Up to batch_size more indices; nullopt once the epoch is over.
  virtual std::optional<BatchRequest> next(size_t batch_size) = 0;
};

/// The indices 0 .. size-1, in order.
class EMBER_API SequentialSampler : public Sampler<> {
 public:
  explicit SequentialSampler(size_t size) : size_(size) {}
  void reset(std::optional<size_t> new_size = std::nullopt) override;
  std::optional<std::vector<size_t>> next(size_t batch_size) override;
  /// How many indices this epoch has given so far.
  size_t index() const noexcept { return index_; }

 private:
  size_t size_;
  size_t index_ = 0;
};

/// A random permutation of 0 .. size-1, drawn anew (from Ember's default CPU generator,
/// so torch::manual_seed fixes it) at construction and at each reset().
class EMBER_API RandomSampler : public Sampler<> {
 public:
  explicit RandomSampler(int64_t size, ScalarType index_dtype = ScalarType::Long);
  void reset(std::optional<size_t> new_size = std::nullopt) override;
  std::optional<std::vector<size_t>> next(size_t batch_size) override;
  /// How many indices this epoch has given so far.
  size_t index() const noexcept { return index_; }

 private:
  std::vector<size_t> indices_;
  size_t index_ = 0;
};

/// What the distributed samplers share: this rank's share of size indices.
class EMBER_API DistributedSampler : public Sampler<> {
 public:
  DistributedSampler(size_t size, size_t num_replicas = 1, size_t rank = 0,
                     bool allow_duplicates = true);
  /// Sets the epoch, which seeds the shuffle of DistributedRandomSampler.
  void set_epoch(size_t epoch) noexcept { epoch_ = epoch; }
  size_t epoch() const noexcept { return epoch_; }

 protected:
  /// Indices per rank: size / num_replicas, rounded up when duplicates are allowed.
  size_t local_sample_count() const;

  size_t size_, num_replicas_, rank_, epoch_ = 0;
  bool allow_duplicates_;
};

/// This rank's share of a permutation seeded by the epoch, so that every rank draws the
/// same permutation and the shares are disjoint (but for padding duplicates).
class EMBER_API DistributedRandomSampler : public DistributedSampler {
 public:
  DistributedRandomSampler(size_t size, size_t num_replicas = 1, size_t rank = 0,
                           bool allow_duplicates = true);
  void reset(std::optional<size_t> new_size = std::nullopt) override;
  std::optional<std::vector<size_t>> next(size_t batch_size) override;

 private:
  std::vector<size_t> indices_;
  size_t index_ = 0;
};

/// This rank's contiguous share of 0 .. size-1, in order.
class EMBER_API DistributedSequentialSampler : public DistributedSampler {
 public:
  DistributedSequentialSampler(size_t size, size_t num_replicas = 1, size_t rank = 0,
                               bool allow_duplicates = true);
  void reset(std::optional<size_t> new_size = std::nullopt) override;
  std::optional<std::vector<size_t>> next(size_t batch_size) override;

 private:
  std::vector<size_t> indices_;
  size_t index_ = 0;
};

}  // namespace ember::data::samplers
