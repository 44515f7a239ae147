#pragma once
/// The pickle inside a checkpoint (archive/data.pkl), for the weights-only subset that
/// torch.load(weights_only=True) reads: tensors (torch._utils._rebuild_tensor_v2 over
/// persistent-id storages), lists, tuples, dicts and OrderedDicts of them, and the scalars
/// and strings around them. python/ember/serialization/_pickler.py writes the same opcodes.
/// Internal to ember::save/ember::load.

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "c10/core/ScalarType.h"
#include "c10/core/Storage.h"
#include "c10/core/Tensor.h"

namespace ember::serialize {

/// One value of an unpickled checkpoint.
struct EMBER_API PickleValue {
  enum class Kind : uint8_t { None, Bool, Int, Float, String, Tuple, List, Dict, Tensor, Global, Storage };
  Kind kind = Kind::None;
  bool boolean = false;
  int64_t integer = 0;
  double real = 0;
  /// A String's text; a Global's "module.name".
  std::string text;
  /// A Tuple's or List's items (shared, as pickle's memo shares them).
  std::shared_ptr<std::vector<PickleValue>> items;
  /// A Dict's entries in order (an OrderedDict too).
  std::shared_ptr<std::vector<std::pair<PickleValue, PickleValue>>> entries;
  /// A Tensor; a Storage's 1-D base tensor.
  Tensor tensor;
  /// A storage-type Global's dtype (torch.FloatStorage: float32).
  ScalarType dtype = ScalarType::Undefined;

  /// What the kind is called in messages ("a list", "a tensor").
  std::string describe() const;
};

/// Loads the storage a persistent id ('storage', type, key, location, numel) names.
using StorageLoader = std::function<Tensor(ScalarType dtype, const std::string& key,
                                           const std::string& location, int64_t numel)>;

/// The value a pickle holds; CheckpointError for a malformed pickle or a global outside
/// the weights-only subset (named in the message).
EMBER_API PickleValue unpickle(std::string_view data, const StorageLoader& load_storage);

/// A storage a pickle names: its key ("0", "1", ...) and bytes, kept alive by `storage`.
struct SavedStorage {
  std::string key;
  Storage storage;
  const void* data;
  size_t nbytes;
};

/// How the tensors of pickle_tensors() are arranged.
enum class PickleShape : uint8_t { Tensor, List, OrderedDict };

/// A pickle (protocol 2, as torch.save writes) and the storages it names.
struct PickledTensors {
  std::string pickle;
  std::vector<SavedStorage> storages;
};

/// The pickle of one tensor (Tensor: named holds one entry), a list of tensors (List) or
/// an OrderedDict of name -> tensor (OrderedDict); tensors that share a storage share it in
/// the file. Tensors off the CPU are saved from a CPU copy.
EMBER_API PickledTensors pickle_tensors(const std::vector<std::pair<std::string, Tensor>>& named,
                                        PickleShape shape);

}  // namespace ember::serialize
