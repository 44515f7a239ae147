#pragma once
/// ember::save / ember::load (libtorch's torch::save / torch::load) in PyTorch's zip
/// checkpoint format: the files Python's ember.save/ember.load and torch.save/torch.load
/// (weights_only=True) read and write.
///   ember::save(t, "t.pt");                  ember::load(t, "t.pt");
///   ember::save(std::vector<Tensor>{a, b}, "v.pt");
///   ember::save(model, "model.pt");          ember::load(model, "model.pt");   // state dict
/// A tensor saves as torch.save(tensor), a vector as a list of tensors, a module as its
/// state dict (an OrderedDict of name -> tensor, in Python's state_dict() order), which Python
/// reads with model.load_state_dict(torch.load(path)).

#include <iosfwd>
#include <string>
#include <utility>
#include <vector>

#include "c10/core/Device.h"
#include "c10/core/IValue.h"
#include "c10/core/Tensor.h"
#include "frontend/serialize/CheckpointError.h"

namespace ember {
namespace serialize {

/// Named tensors in order: a state dict.
using NamedTensors = std::vector<std::pair<std::string, Tensor>>;

/// Writes named as an OrderedDict of name -> tensor (torch.save(state_dict)).
EMBER_API void save_state_dict(const NamedTensors& named, std::ostream& out);
/// The same, to a file (written whole, then renamed into place).
EMBER_API void save_state_dict(const NamedTensors& named, const std::string& path);
/// The name -> tensor entries of a checkpoint holding a dict (torch.save(state_dict)).
EMBER_API NamedTensors load_state_dict(std::istream& in);
/// The same, from a file.
EMBER_API NamedTensors load_state_dict(const std::string& path);
/// Copies loaded into targets (by name, under NoGradGuard), after checking that the names
/// match both ways and the shapes agree; CheckpointError naming the first key that does not.
EMBER_API void copy_state_dict(const NamedTensors& targets, const NamedTensors& loaded);

/// Parameters and buffers in one list, ordered as Python's state_dict() orders them: each
/// buffer right after the last entry of its own module (the same prefix before the last
/// '.'), else at the end.
EMBER_API NamedTensors merge_state_dict(NamedTensors parameters, const NamedTensors& buffers);

/// A module's state dict: named_parameters(true) and named_buffers(true), merged.
template <class M>
NamedTensors state_dict_of(const M& module) {
  NamedTensors parameters, buffers;
  for (const auto& item : module->named_parameters(true)) {
    if (item.value().defined()) parameters.emplace_back(item.key(), item.value());
  }
  for (const auto& item : module->named_buffers(true)) {
    if (item.value().defined()) buffers.emplace_back(item.key(), item.value());
  }
  return merge_state_dict(std::move(parameters), buffers);
}

}  // namespace serialize

/// Anything with a libtorch module's `->named_parameters(true)` and `->named_buffers(true)`
/// (a module holder, a std::shared_ptr to a module).
template <class M>
concept ModuleWithState = requires(const M& m) {
  m->named_parameters(true);
  m->named_buffers(true);
};

/// Saves a tensor as torch.save(tensor) does.
EMBER_API void save(const Tensor& tensor, const std::string& path);
EMBER_API void save(const Tensor& tensor, std::ostream& out);
/// Saves tensors as torch.save(list_of_tensors) does.
EMBER_API void save(const std::vector<Tensor>& tensors, const std::string& path);
EMBER_API void save(const std::vector<Tensor>& tensors, std::ostream& out);
/// Loads a checkpoint holding one tensor into tensor (replacing the handle).
EMBER_API void load(Tensor& tensor, const std::string& path);
EMBER_API void load(Tensor& tensor, std::istream& in);
/// The same, then moved to device (libtorch's load(tensor, path, device)).
EMBER_API void load(Tensor& tensor, const std::string& path, Device device);
EMBER_API void load(Tensor& tensor, std::istream& in, Device device);
/// Loads a checkpoint holding a list or tuple of tensors into tensors.
EMBER_API void load(std::vector<Tensor>& tensors, const std::string& path);
EMBER_API void load(std::vector<Tensor>& tensors, std::istream& in);
/// The same, then moved to device.
EMBER_API void load(std::vector<Tensor>& tensors, const std::string& path, Device device);
EMBER_API void load(std::vector<Tensor>& tensors, std::istream& in, Device device);

/// The bytes of a checkpoint holding a tensor or a tensor list (libtorch's pickle_save:
/// what torch.load reads from io.BytesIO(bytes)); TypeError for any other value.
EMBER_API std::vector<char> pickle_save(const IValue& value);
/// The tensor or tensor list in the bytes of a checkpoint (libtorch's pickle_load).
EMBER_API IValue pickle_load(const std::vector<char>& data);

/// Saves a module's state dict (parameters and buffers, detached).
template <ModuleWithState M>
void save(const M& module, const std::string& path) {
  serialize::save_state_dict(serialize::state_dict_of(module), path);
}
template <ModuleWithState M>
void save(const M& module, std::ostream& out) {
  serialize::save_state_dict(serialize::state_dict_of(module), out);
}
/// Loads a state dict into a module's existing parameters and buffers (copied in place);
/// CheckpointError for a missing or unexpected key or a shape mismatch, before any copy.
template <ModuleWithState M>
void load(const M& module, const std::string& path) {
  serialize::copy_state_dict(serialize::state_dict_of(module), serialize::load_state_dict(path));
}
template <ModuleWithState M>
void load(const M& module, std::istream& in) {
  serialize::copy_state_dict(serialize::state_dict_of(module), serialize::load_state_dict(in));
}
/// The same; the values land on the device of the module's own tensors, as copies do, so
/// device is accepted for libtorch's signature.
template <ModuleWithState M>
void load(const M& module, const std::string& path, Device device) {
  (void)device;
  load(module, path);
}

}  // namespace ember
