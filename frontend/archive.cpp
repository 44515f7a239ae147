// torch::serialize::OutputArchive / InputArchive (frontend/serialize/Archive.h): state
// dicts with dotted keys for nesting.

#include "frontend/serialize/Archive.h"

#include "aten/autograd/GradMode.h"

namespace ember::serialize {

void OutputArchive::write(const std::string& key, const Tensor& tensor, bool is_buffer) {
  (void)is_buffer;
  EMBER_CHECK_VALUE(tensor.defined(), "OutputArchive::write(): expected a defined tensor for '",
                    key, "', but got an undefined one");
  for (const auto& [name, t] : tensors_) {
    EMBER_CHECK_VALUE(name != key, "OutputArchive::write(): the key '", key,
                      "' was already written");
  }
  tensors_.emplace_back(key, tensor);
}

void OutputArchive::write(const std::string& key, const OutputArchive& nested) {
  for (const auto& [name, t] : nested.tensors_) write(key + "." + name, t);
}

void OutputArchive::save_to(const std::string& path) const { save_state_dict(tensors_, path); }
void OutputArchive::save_to(std::ostream& stream) const { save_state_dict(tensors_, stream); }

void InputArchive::load_from(const std::string& path) {
  tensors_ = load_state_dict(path);
  prefix_.clear();
}
void InputArchive::load_from(std::istream& stream) {
  tensors_ = load_state_dict(stream);
  prefix_.clear();
}

bool InputArchive::try_read(const std::string& key, Tensor& tensor, bool is_buffer) {
  (void)is_buffer;
  for (const auto& [name, loaded] : tensors_) {
    if (name != key) continue;
    if (!tensor.defined()) {
      tensor = loaded;
      return true;
    }
    EMBER_CHECK_CHECKPOINT(tensor.sizes() == loaded.sizes(), "the archive's '", prefix_, key,
                           "' has shape ", loaded.sizes(), ", but the tensor read into has "
                           "shape ", tensor.sizes(), " (shape mismatch)");
    autograd::NoGradGuard no_grad;
    tensor.copy_(loaded);
    return true;
  }
  return false;
}

void InputArchive::read(const std::string& key, Tensor& tensor, bool is_buffer) {
  EMBER_CHECK_CHECKPOINT(try_read(key, tensor, is_buffer), "the archive has no tensor '",
                         prefix_, key, "'");
}

bool InputArchive::try_read(const std::string& key, InputArchive& nested) {
  const std::string start = key + ".";
  NamedTensors found;
  for (const auto& [name, t] : tensors_) {
    if (name.compare(0, start.size(), start) == 0) found.emplace_back(name.substr(start.size()), t);
  }
  if (found.empty()) return false;
  nested.tensors_ = std::move(found);
  nested.prefix_ = prefix_ + start;
  return true;
}

void InputArchive::read(const std::string& key, InputArchive& nested) {
  EMBER_CHECK_CHECKPOINT(try_read(key, nested), "the archive has no entries under '", prefix_,
                         key, ".'");
}

std::vector<std::string> InputArchive::keys() const {
  std::vector<std::string> out;
  for (const auto& [name, t] : tensors_) out.push_back(name);
  return out;
}

}  // namespace ember::serialize
