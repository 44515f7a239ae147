// ember::save / ember::load (frontend/serialize/Serialize.h): the records of a checkpoint
// around its pickle, as python/ember/serialization/__init__.py writes and reads them.

#include "frontend/serialize/Serialize.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>

#include "aten/TensorFactories.h"
#include "aten/autograd/GradMode.h"
#include "ember/generated/ops/empty.h"
#include "frontend/serialize/Pickle.h"
#include "frontend/serialize/Zip.h"

namespace ember {
namespace serialize {
namespace serialize_detail {

constexpr std::string_view kIntegrityNote =
    "ember wrote this file: the zip comment is a CRC-32 of the zip headers\n";

void write_checkpoint(const PickledTensors& p, std::ostream& out) {
  std::vector<ZipRecord> records;
  records.push_back({"archive/data.pkl", p.pickle.data(), p.pickle.size()});
  static const std::string kLittle = "little", kVersion = "3\n";
  records.push_back({"archive/byteorder", kLittle.data(), kLittle.size()});
  for (const SavedStorage& s : p.storages) {
    records.push_back({"archive/data/" + s.key, s.data, s.nbytes});
  }
  records.push_back({"archive/version", kVersion.data(), kVersion.size()});
  records.push_back({"archive/.data/ember_integrity", kIntegrityNote.data(), kIntegrityNote.size()});
  write_zip(out, records);
}

void write_file(const PickledTensors& p, const std::string& path) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    EMBER_CHECK(out.is_open(), "save(): cannot open '", tmp, "' for writing: ",
                std::strerror(errno));
    write_checkpoint(p, out);
    out.close();
    EMBER_CHECK(!out.fail(), "save(): writing '", tmp, "' failed");
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  EMBER_CHECK(!ec, "save(): cannot move '", tmp, "' to '", path, "': ", ec.message());
}

std::string read_all(std::istream& in) {
  std::ostringstream buf;
  if (in.peek() != std::char_traits<char>::eof()) buf << in.rdbuf();
  EMBER_CHECK_CHECKPOINT(!in.bad(), "reading the checkpoint failed");
  return std::move(buf).str();
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  EMBER_CHECK_CHECKPOINT(in.is_open(), "cannot open '", path, "' for reading: ",
                         std::strerror(errno));
  const std::streamoff size = in.tellg();
  in.seekg(0);
  std::string buf(static_cast<size_t>(std::max<std::streamoff>(size, 0)), '\0');
  in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
  EMBER_CHECK_CHECKPOINT(size >= 0 && in.gcount() == size, "reading '", path, "' failed");
  return buf;
}

void byteswap(Tensor& t) {
  const size_t width = t.scalar_type() == ScalarType::ComplexFloat    ? 4
                       : t.scalar_type() == ScalarType::ComplexDouble ? 8
                                                                      : t.element_size();
  auto* p = static_cast<uint8_t*>(t.data_ptr());
  const size_t n = static_cast<size_t>(t.numel()) * t.element_size();
  for (size_t i = 0; i + width <= n; i += width) std::reverse(p + i, p + i + width);
}

// The value a checkpoint in buf holds.
PickleValue read_checkpoint(std::string buf) {
  EMBER_CHECK_CHECKPOINT(buf.size() >= 4 && buf.compare(0, 2, "PK") == 0,
                         buf.size() >= 2 && uint8_t(buf[0]) == 0x80
                             ? "the checkpoint is in torch's legacy format (torch.save with "
                               "_use_new_zipfile_serialization=False, or PyTorch before 1.6), "
                               "which the C++ load() does not read; save it again with torch.save"
                             : "the checkpoint is not a zip archive; expected a file written by "
                               "torch.save, ember.save or ember::save",
                         " (", buf.size(), " bytes)");
  const ZipReader archive(std::move(buf));
  std::string prefix;
  bool found = false;
  for (const std::string& name : archive.names()) {
    const size_t slash = name.find('/');
    if (slash != std::string::npos && name.compare(slash + 1, std::string::npos, "data.pkl") == 0) {
      prefix = name.substr(0, slash + 1);
      found = true;
      break;
    }
    EMBER_CHECK_CHECKPOINT(name.find("/constants.pkl") == std::string::npos &&
                               name.find("/code/") == std::string::npos,
                           "the checkpoint is a TorchScript archive (torch.jit.save, or "
                           "libtorch's torch::save), which ember does not read; save the "
                           "tensors or the state dict with torch.save");
  }
  EMBER_CHECK_CHECKPOINT(found, "the checkpoint is a zip archive without data.pkl");
  std::string byteorder = "little";
  if (archive.has(prefix + "byteorder")) byteorder = std::string(archive.data(prefix + "byteorder"));
  EMBER_CHECK_CHECKPOINT(byteorder == "little" || byteorder == "big", "the checkpoint has byte "
                         "order '", byteorder.substr(0, 20), "', expected 'little' or 'big'");
  std::map<std::string, Tensor> storages;
  const StorageLoader loader = [&](ScalarType dtype, const std::string& key,
                                   const std::string& location, int64_t numel) {
    (void)location;   // loaded onto the CPU, as torch.load(map_location="cpu")
    auto it = storages.find(key);
    if (it != storages.end()) {
      EMBER_CHECK_CHECKPOINT(it->second.scalar_type() == dtype, "the checkpoint reads storage '",
                             key, "' as both ", it->second.scalar_type(), " and ", dtype);
      return it->second;
    }
    const std::string name = prefix + "data/" + key;
    EMBER_CHECK_CHECKPOINT(archive.has(name), "the checkpoint names storage '", key,
                           "', but its archive has no record ", name);
    const std::string_view bytes = archive.data(name);
    const size_t want = static_cast<size_t>(numel) * itemsize(dtype);
    EMBER_CHECK_CHECKPOINT(static_cast<uint64_t>(numel) <= bytes.size() / itemsize(dtype), "the checkpoint's storage '", key, "' holds ",
                           bytes.size(), " bytes, but its pickle says ", numel, " elements of ",
                           dtype, " (", want, " bytes)");
    Tensor t;
    const auto address = reinterpret_cast<uintptr_t>(bytes.data());
    if (want > 0 && byteorder == "little" && address % itemsize(dtype) == 0) {
      // A view of the archive's bytes (records are 64-byte aligned): no second copy.
      std::shared_ptr<std::string> keep = archive.buffer();
      t = from_blob(const_cast<char*>(bytes.data()), {numel}, [keep](void*) {},
                    TensorOptions().dtype(dtype));
    } else {
      t = empty({numel}, TensorOptions().dtype(dtype));
      if (want) std::memcpy(t.data_ptr(), bytes.data(), want);
      if (byteorder == "big") byteswap(t);
    }
    storages.emplace(key, t);
    return t;
  };
  return unpickle(archive.data(prefix + "data.pkl"), loader);
}

PickleValue read_checkpoint(std::istream& in) { return read_checkpoint(read_all(in)); }
PickleValue read_checkpoint_file(const std::string& path) { return read_checkpoint(read_file(path)); }

Tensor as_tensor(const PickleValue& v) {
  EMBER_CHECK_CHECKPOINT(v.kind == PickleValue::Kind::Tensor, "expected the checkpoint to hold "
                         "a tensor, but it holds ", v.describe());
  return v.tensor;
}

std::vector<Tensor> as_tensors(const PickleValue& v) {
  EMBER_CHECK_CHECKPOINT(v.kind == PickleValue::Kind::List || v.kind == PickleValue::Kind::Tuple,
                         "expected the checkpoint to hold a list of tensors, but it holds ",
                         v.describe());
  std::vector<Tensor> out;
  for (const PickleValue& item : *v.items) {
    EMBER_CHECK_CHECKPOINT(item.kind == PickleValue::Kind::Tensor, "expected the checkpoint to "
                           "hold a list of tensors, but item ", out.size(), " is ",
                           item.describe());
    out.push_back(item.tensor);
  }
  return out;
}

NamedTensors as_named(const PickleValue& v) {
  EMBER_CHECK_CHECKPOINT(v.kind == PickleValue::Kind::Dict, "expected the checkpoint to hold a "
                         "state dict (a dict of name -> tensor), but it holds ", v.describe());
  NamedTensors out;
  for (const auto& [k, value] : *v.entries) {
    EMBER_CHECK_CHECKPOINT(k.kind == PickleValue::Kind::String, "expected the checkpoint's state "
                           "dict to have string keys, but one is ", k.describe());
    EMBER_CHECK_CHECKPOINT(value.kind == PickleValue::Kind::Tensor, "expected the checkpoint's "
                           "state dict to map names to tensors, but '", k.text, "' is ",
                           value.describe());
    out.emplace_back(k.text, value.tensor);
  }
  return out;
}

PickledTensors pickle_one(const Tensor& t) {
  EMBER_CHECK_VALUE(t.defined(), "save(): expected a defined tensor, but got an undefined one");
  return pickle_tensors({{"", t}}, PickleShape::Tensor);
}

PickledTensors pickle_list(const std::vector<Tensor>& tensors) {
  NamedTensors named;
  for (const Tensor& t : tensors) {
    EMBER_CHECK_VALUE(t.defined(), "save(): expected defined tensors, but tensor ", named.size(),
                      " is undefined");
    named.emplace_back("", t);
  }
  return pickle_tensors(named, PickleShape::List);
}

PickledTensors pickle_dict(const NamedTensors& named) {
  NamedTensors detached;
  for (const auto& [name, t] : named) {
    EMBER_CHECK_VALUE(t.defined(), "save(): expected defined tensors, but '", name,
                      "' is undefined");
    detached.emplace_back(name, t.detach());
  }
  return pickle_tensors(detached, PickleShape::OrderedDict);
}

}  // namespace serialize_detail

using namespace serialize_detail;

void save_state_dict(const NamedTensors& named, std::ostream& out) {
  write_checkpoint(pickle_dict(named), out);
}
void save_state_dict(const NamedTensors& named, const std::string& path) {
  write_file(pickle_dict(named), path);
}
NamedTensors load_state_dict(std::istream& in) { return as_named(read_checkpoint(in)); }
NamedTensors load_state_dict(const std::string& path) {
  return as_named(read_checkpoint_file(path));
}

NamedTensors merge_state_dict(NamedTensors parameters, const NamedTensors& buffers) {
  const auto prefix = [](const std::string& name) {
    const size_t dot = name.rfind('.');
    return dot == std::string::npos ? std::string() : name.substr(0, dot);
  };
  for (const auto& buffer : buffers) {
    const std::string mine = prefix(buffer.first);
    auto at = parameters.end();
    for (auto it = parameters.begin(); it != parameters.end(); ++it) {
      if (prefix(it->first) == mine) at = it + 1;
    }
    parameters.insert(at, buffer);
  }
  return parameters;
}

void copy_state_dict(const NamedTensors& targets, const NamedTensors& loaded) {
  std::map<std::string, const Tensor*> by_name;
  for (const auto& [name, t] : loaded) by_name[name] = &t;
  std::vector<std::pair<const Tensor*, const Tensor*>> copies;
  std::map<std::string, bool> expected;
  for (const auto& [name, target] : targets) {
    expected[name] = true;
    const auto it = by_name.find(name);
    EMBER_CHECK_CHECKPOINT(it != by_name.end(), "the state dict has no entry for '", name,
                           "', which the module has (missing key)");
    EMBER_CHECK_CHECKPOINT(it->second->sizes().vec() == target.sizes().vec(), "the state dict's '", name,
                           "' has shape ", it->second->sizes(), ", but the module's has shape ",
                           target.sizes(), " (shape mismatch)");
    copies.emplace_back(&target, it->second);
  }
  for (const auto& [name, t] : loaded) {
    EMBER_CHECK_CHECKPOINT(expected.count(name) != 0, "the state dict has an entry '", name,
                           "', which the module does not have (unexpected key)");
  }
  autograd::NoGradGuard no_grad;
  for (const auto& [target, source] : copies) target->copy_(*source);
}

}  // namespace serialize

using namespace serialize::serialize_detail;

void save(const Tensor& tensor, const std::string& path) { write_file(pickle_one(tensor), path); }
void save(const Tensor& tensor, std::ostream& out) { write_checkpoint(pickle_one(tensor), out); }
void save(const std::vector<Tensor>& tensors, const std::string& path) {
  write_file(pickle_list(tensors), path);
}
void save(const std::vector<Tensor>& tensors, std::ostream& out) {
  write_checkpoint(pickle_list(tensors), out);
}
std::vector<char> pickle_save(const IValue& value) {
  EMBER_CHECK_TYPE(value.is_tensor() || value.is_tensor_list(), "pickle_save(): expected a "
                   "tensor or a list of tensors, which the C++ save() writes");
  std::ostringstream out;
  write_checkpoint(value.is_tensor() ? pickle_one(value.to_tensor())
                                     : pickle_list(value.to_tensor_list()), out);
  const std::string bytes = std::move(out).str();
  return std::vector<char>(bytes.begin(), bytes.end());
}

IValue pickle_load(const std::vector<char>& data) {
  const serialize::PickleValue v = read_checkpoint(std::string(data.begin(), data.end()));
  if (v.kind == serialize::PickleValue::Kind::Tensor) return IValue(v.tensor);
  return IValue(as_tensors(v));
}

void load(Tensor& tensor, const std::string& path) {
  tensor = as_tensor(read_checkpoint_file(path));
}
void load(Tensor& tensor, std::istream& in) { tensor = as_tensor(read_checkpoint(in)); }
void load(std::vector<Tensor>& tensors, const std::string& path) {
  tensors = as_tensors(read_checkpoint_file(path));
}
void load(std::vector<Tensor>& tensors, std::istream& in) {
  tensors = as_tensors(read_checkpoint(in));
}

void load(Tensor& tensor, const std::string& path, Device device) {
  load(tensor, path);
  tensor = tensor.to(device);
}
void load(Tensor& tensor, std::istream& in, Device device) {
  load(tensor, in);
  tensor = tensor.to(device);
}
void load(std::vector<Tensor>& tensors, const std::string& path, Device device) {
  load(tensors, path);
  for (Tensor& t : tensors) t = t.to(device);
}
void load(std::vector<Tensor>& tensors, std::istream& in, Device device) {
  load(tensors, in);
  for (Tensor& t : tensors) t = t.to(device);
}

}  // namespace ember
