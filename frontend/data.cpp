// ember::data's compiled parts (frontend/data/): MNIST's IDX reader, the samplers, the
// tensor helpers of Normalize and Stack, and the data loader's worker pool.

#include "frontend/data.h"

#include <algorithm>
#include <fstream>
#include <numeric>

#include "aten/PhiloxGenerator.h"
#include "aten/TensorFactories.h"
#include "ember/generated/ops/empty.h"
#include "ember/generated/ops/randperm.h"
#include "ember/generated/ops/stack.h"

namespace ember::data {

// ---------------------------------------------------------------------------------------
// MNIST

namespace datasets {
namespace mnist_detail {

constexpr uint32_t kImageMagic = 2051, kLabelMagic = 2049;
constexpr uint32_t kRows = 28, kColumns = 28;

std::string join(const std::string& root, const char* name) {
  if (root.empty() || root.back() == '/') return root + name;
  return root + "/" + name;
}

// A big-endian 32-bit field of an IDX header, checked against want when given.
uint32_t read_header(std::ifstream& in, const std::string& path, const char* what,
                     std::optional<uint32_t> want = std::nullopt) {
  unsigned char b[4];
  in.read(reinterpret_cast<char*>(b), 4);
  EMBER_CHECK_VALUE(in.gcount() == 4, "MNIST: the file ", path, " is truncated: it ends inside "
                    "its header (", what, ")");
  const uint32_t v = (uint32_t(b[0]) << 24) | (uint32_t(b[1]) << 16) | (uint32_t(b[2]) << 8) | b[3];
  EMBER_CHECK_VALUE(!want || v == *want, "MNIST: the file ", path, " is not an MNIST IDX file: "
                    "expected ", what, " ", want.value_or(0), ", but got ", v);
  return v;
}

std::ifstream open(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EMBER_CHECK_VALUE(in.is_open(), "MNIST: cannot open ", path, "; expected the four files "
                    "train-images-idx3-ubyte, train-labels-idx1-ubyte, t10k-images-idx3-ubyte "
                    "and t10k-labels-idx1-ubyte (unpacked) in the root folder");
  return in;
}

// count bytes after the header, into a new uint8 tensor of the given sizes.
Tensor read_body(std::ifstream& in, const std::string& path, std::vector<int64_t> sizes) {
  Tensor t = empty(sizes, TensorOptions().dtype(ScalarType::Byte));
  const std::streamsize n = static_cast<std::streamsize>(t.numel());
  in.read(static_cast<char*>(t.data_ptr()), n);
  EMBER_CHECK_VALUE(in.gcount() == n, "MNIST: the file ", path, " is truncated: its header "
                    "promises ", n, " bytes of data, but it holds ", in.gcount());
  return t;
}

Tensor read_images(const std::string& root, bool train) {
  const std::string path = join(root, train ? "train-images-idx3-ubyte" : "t10k-images-idx3-ubyte");
  std::ifstream in = open(path);
  read_header(in, path, "magic number", kImageMagic);
  const uint32_t count = read_header(in, path, "image count");
  read_header(in, path, "rows", kRows);
  read_header(in, path, "columns", kColumns);
  const Tensor bytes = read_body(in, path, {int64_t(count), 1, kRows, kColumns});
  return bytes.to(ScalarType::Float).div_(255);
}

Tensor read_targets(const std::string& root, bool train) {
  const std::string path = join(root, train ? "train-labels-idx1-ubyte" : "t10k-labels-idx1-ubyte");
  std::ifstream in = open(path);
  read_header(in, path, "magic number", kLabelMagic);
  const uint32_t count = read_header(in, path, "label count");
  return read_body(in, path, {int64_t(count)}).to(ScalarType::Long);
}

}  // namespace mnist_detail

MNIST::MNIST(const std::string& root, Mode mode)
    : images_(mnist_detail::read_images(root, mode == Mode::kTrain)),
      targets_(mnist_detail::read_targets(root, mode == Mode::kTrain)),
      is_train_(mode == Mode::kTrain) {
  EMBER_CHECK_VALUE(images_.size(0) == targets_.size(0), "MNIST: the ",
                    is_train_ ? "training" : "test", " split in ", root, " has ", images_.size(0),
                    " images but ", targets_.size(0), " labels");
}

Example<> MNIST::get(size_t index) {
  EMBER_CHECK_INDEX(index < static_cast<size_t>(images_.size(0)), "MNIST::get(): index ", index,
                    " is out of range for ", images_.size(0), " examples");
  const int64_t i = static_cast<int64_t>(index);
  return {images_[i], targets_[i]};
}

std::optional<size_t> MNIST::size() const { return static_cast<size_t>(images_.size(0)); }

TensorDataset::TensorDataset(const std::vector<Tensor>& tensors) {
  EMBER_CHECK_VALUE(tensors.size() == 1, "TensorDataset: expected one tensor, but got ",
                    tensors.size());
  tensor = tensors[0];
}

TensorDataset::TensorDataset(Tensor t) : tensor(std::move(t)) {
  EMBER_CHECK_VALUE(tensor.defined() && tensor.dim() > 0, "TensorDataset: expected a defined "
                    "tensor with at least one dimension");
}

TensorExample TensorDataset::get(size_t index) {
  EMBER_CHECK_INDEX(index < static_cast<size_t>(tensor.size(0)), "TensorDataset::get(): index ",
                    index, " is out of range for ", tensor.size(0), " examples");
  return tensor[static_cast<int64_t>(index)];
}

std::optional<size_t> TensorDataset::size() const { return static_cast<size_t>(tensor.size(0)); }

}  // namespace datasets

// ---------------------------------------------------------------------------------------
// transforms

namespace transforms::detail {

Tensor channel_values(ArrayRef<double> values, const char* what) {
  EMBER_CHECK_VALUE(!values.empty(), "Normalize: expected at least one ", what,
                    " value, but got none");
  return tensor(values.vec(), TensorOptions().dtype(ScalarType::Float))
      .reshape({static_cast<int64_t>(values.size()), 1, 1});
}

Tensor normalize(const Tensor& input, const Tensor& mean, const Tensor& stddev) {
  return input.sub(mean).div(stddev);
}

Tensor stack_batch(const std::vector<Tensor>& tensors) { return stack(tensors, 0); }

}  // namespace transforms::detail

// ---------------------------------------------------------------------------------------
// samplers

namespace samplers {
namespace sampler_detail {

std::optional<std::vector<size_t>> next_of(const std::vector<size_t>& indices, size_t& index,
                                           size_t batch_size) {
  if (index >= indices.size()) return std::nullopt;
  const size_t n = std::min(batch_size, indices.size() - index);
  std::vector<size_t> out(indices.begin() + index, indices.begin() + index + n);
  index += n;
  return out;
}

std::vector<size_t> to_indices(const Tensor& perm) {
  const Tensor p = perm.to(ScalarType::Long).contiguous();
  const int64_t* d = p.data_ptr<int64_t>();
  return std::vector<size_t>(d, d + p.numel());
}

}  // namespace sampler_detail

void SequentialSampler::reset(std::optional<size_t> new_size) {
  if (new_size) size_ = *new_size;
  index_ = 0;
}

std::optional<std::vector<size_t>> SequentialSampler::next(size_t batch_size) {
  if (index_ >= size_) return std::nullopt;
  const size_t n = std::min(batch_size, size_ - index_);
  std::vector<size_t> out(n);
  std::iota(out.begin(), out.end(), index_);
  index_ += n;
  return out;
}

RandomSampler::RandomSampler(int64_t size, ScalarType index_dtype) {
  EMBER_CHECK_VALUE(size >= 0, "RandomSampler: expected a size >= 0, but got ", size);
  (void)index_dtype;   // indices are handed out as size_t whatever the dtype
  indices_ = sampler_detail::to_indices(randperm(size));
}

void RandomSampler::reset(std::optional<size_t> new_size) {
  const size_t n = new_size.value_or(indices_.size());
  indices_ = sampler_detail::to_indices(randperm(static_cast<int64_t>(n)));
  index_ = 0;
}

std::optional<std::vector<size_t>> RandomSampler::next(size_t batch_size) {
  return sampler_detail::next_of(indices_, index_, batch_size);
}

DistributedSampler::DistributedSampler(size_t size, size_t num_replicas, size_t rank,
                                       bool allow_duplicates)
    : size_(size), num_replicas_(num_replicas), rank_(rank), allow_duplicates_(allow_duplicates) {
  EMBER_CHECK_VALUE(num_replicas > 0 && rank < num_replicas, "DistributedSampler: expected "
                    "0 <= rank < num_replicas, but got rank ", rank, " of ", num_replicas);
}

size_t DistributedSampler::local_sample_count() const {
  return allow_duplicates_ ? (size_ + num_replicas_ - 1) / num_replicas_ : size_ / num_replicas_;
}

DistributedRandomSampler::DistributedRandomSampler(size_t size, size_t num_replicas, size_t rank,
                                                   bool allow_duplicates)
    : DistributedSampler(size, num_replicas, rank, allow_duplicates) {
  reset();
}

void DistributedRandomSampler::reset(std::optional<size_t> new_size) {
  if (new_size) size_ = *new_size;
  // Every rank draws the same permutation (seeded by the epoch), padded by wrapping around.
  std::vector<size_t> all = sampler_detail::to_indices(
      randperm(static_cast<int64_t>(size_), make_cpu_generator(epoch_)));
  const size_t local = local_sample_count();
  indices_.clear();
  for (size_t i = rank_ * local; i < (rank_ + 1) * local && !all.empty(); ++i) {
    indices_.push_back(all[i % all.size()]);
  }
  index_ = 0;
}

std::optional<std::vector<size_t>> DistributedRandomSampler::next(size_t batch_size) {
  return sampler_detail::next_of(indices_, index_, batch_size);
}

DistributedSequentialSampler::DistributedSequentialSampler(size_t size, size_t num_replicas,
                                                           size_t rank, bool allow_duplicates)
    : DistributedSampler(size, num_replicas, rank, allow_duplicates) {
  reset();
}

void DistributedSequentialSampler::reset(std::optional<size_t> new_size) {
  if (new_size) size_ = *new_size;
  const size_t local = local_sample_count();
  indices_.clear();
  for (size_t i = rank_ * local; i < (rank_ + 1) * local && size_ > 0; ++i) {
    indices_.push_back(i % size_);
  }
  index_ = 0;
}

std::optional<std::vector<size_t>> DistributedSequentialSampler::next(size_t batch_size) {
  return sampler_detail::next_of(indices_, index_, batch_size);
}

}  // namespace samplers

// ---------------------------------------------------------------------------------------
// the worker pool

namespace detail {

WorkerPool::WorkerPool(size_t workers, std::optional<std::chrono::milliseconds> timeout)
    : timeout_(timeout) {
  threads_.reserve(workers);
  for (size_t i = 0; i < workers; ++i) threads_.emplace_back([this, i] { run(i); });
}

WorkerPool::~WorkerPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
    queue_.clear();
  }
  work_cv_.notify_all();
  for (std::thread& t : threads_) t.join();
}

size_t WorkerPool::push(std::function<void(size_t)> job) {
  size_t id;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    id = next_++;
    queue_.emplace(id, std::move(job));
    pending_.insert(id);
  }
  work_cv_.notify_one();
  return id;
}

void WorkerPool::run(size_t worker) {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    work_cv_.wait(lock, [this] { return stop_ || !queue_.empty(); });
    if (stop_) return;
    auto node = queue_.extract(queue_.begin());
    ++running_;
    lock.unlock();
    std::exception_ptr error;
    try {
      node.mapped()(worker);
    } catch (...) {
      error = std::current_exception();
    }
    node.mapped() = nullptr;   // release what the job holds before reporting it done
    lock.lock();
    --running_;
    if (pending_.count(node.key())) done_.emplace(node.key(), error);
    done_cv_.notify_all();
  }
}

std::pair<size_t, std::exception_ptr> WorkerPool::take(bool in_order) {
  std::unique_lock<std::mutex> lock(mutex_);
  EMBER_INTERNAL_ASSERT(!pending_.empty(), "take() without a job in flight");
  const auto ready = [&] {
    return in_order ? done_.count(*pending_.begin()) != 0 : !done_.empty();
  };
  if (timeout_) {
    EMBER_CHECK(done_cv_.wait_for(lock, *timeout_, ready), "DataLoader: no batch arrived within "
                "the timeout of ", timeout_->count(), " ms");
  } else {
    done_cv_.wait(lock, ready);
  }
  const auto it = in_order ? done_.find(*pending_.begin()) : done_.begin();
  std::pair<size_t, std::exception_ptr> out(it->first, it->second);
  done_.erase(it);
  pending_.erase(out.first);
  return out;
}

void WorkerPool::reset() {
  std::unique_lock<std::mutex> lock(mutex_);
  queue_.clear();
  pending_.clear();
  done_cv_.wait(lock, [this] { return running_ == 0; });
  done_.clear();
}

}  // namespace detail
}  // namespace ember::data
