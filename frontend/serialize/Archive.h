#pragma once
/// libtorch's torch::serialize::OutputArchive / InputArchive over the checkpoint format:
/// an archive is a state dict (an OrderedDict of name -> tensor), nested archives named by
/// dotted prefixes ("encoder.weight"), so Python reads one as it reads a state dict.
///   torch::serialize::OutputArchive out;
///   out.write("weight", w);  out.save_to("ckpt.pt");
///   torch::serialize::InputArchive in;
///   in.load_from("ckpt.pt");  in.read("weight", w);
/// ember::save(x, path) / ember::load(x, path) also take anything with
/// `save(OutputArchive&) const` / `load(InputArchive&)` (an optimizer, say).

#include <iosfwd>
#include <map>
#include <string>
#include <vector>

#include "frontend/serialize/Serialize.h"

namespace ember::serialize {

/// Named tensors (and nested archives) to be written as one checkpoint.
class EMBER_API OutputArchive {
 public:
  /// Adds tensor under key (is_buffer is accepted for libtorch's signature; buffers and
  /// parameters are saved alike).
  void write(const std::string& key, const Tensor& tensor, bool is_buffer = false);
  /// Adds every entry of nested under "key.".
  void write(const std::string& key, const OutputArchive& nested);
  /// Writes the archive as a checkpoint.
  void save_to(const std::string& path) const;
  void save_to(std::ostream& stream) const;
  /// The entries, in the order written.
  const NamedTensors& tensors() const noexcept { return tensors_; }

 private:
  NamedTensors tensors_;
};

/// The named tensors of a checkpoint holding a dict (a state dict or an OutputArchive).
class EMBER_API InputArchive {
 public:
  /// Reads a checkpoint; CheckpointError as load() raises it.
  void load_from(const std::string& path);
  void load_from(std::istream& stream);
  /// Reads key into tensor: copied in place (under NoGradGuard) when tensor is defined, which
  /// needs the same shape; else tensor becomes the loaded one. False when key is absent.
  bool try_read(const std::string& key, Tensor& tensor, bool is_buffer = false);
  /// The same; CheckpointError naming the key when it is absent or the shapes differ.
  void read(const std::string& key, Tensor& tensor, bool is_buffer = false);
  /// The entries under "key." as an archive of their own; false when there are none.
  bool try_read(const std::string& key, InputArchive& nested);
  void read(const std::string& key, InputArchive& nested);
  /// Every key, in file order.
  std::vector<std::string> keys() const;

 private:
  std::string prefix_;   // of this archive's keys within the file, for messages
  NamedTensors tensors_;
};

}  // namespace ember::serialize

namespace ember {

/// Anything that writes itself into an OutputArchive (libtorch's Optimizer::save).
template <class T>
concept ArchiveSavable = requires(const T& value, serialize::OutputArchive& archive) {
  value.save(archive);
};
/// Anything that reads itself from an InputArchive (libtorch's Optimizer::load).
template <class T>
concept ArchiveLoadable = requires(T& value, serialize::InputArchive& archive) {
  value.load(archive);
};

/// Saves value through its save(OutputArchive&).
template <ArchiveSavable T>
  requires(!ModuleWithState<T>)
void save(const T& value, const std::string& path) {
  serialize::OutputArchive archive;
  value.save(archive);
  archive.save_to(path);
}
/// Loads value through its load(InputArchive&).
template <ArchiveLoadable T>
  requires(!ModuleWithState<T>)
void load(T& value, const std::string& path) {
  serialize::InputArchive archive;
  archive.load_from(path);
  value.load(archive);
}

}  // namespace ember
