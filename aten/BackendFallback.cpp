// Note [CPU fallback] (aten/BackendFallback.h).
#include "aten/BackendFallback.h"

#include <cstdio>
#include <mutex>
#include <set>

#include "c10/core/TensorOptions.h"
#include "c10/dispatch/Library.h"
#include "c10/util/Exception.h"
#include "ember/generated/ops/copy_.h"
#include "ember/generated/ops/empty.h"

namespace ember::backend {
namespace {

struct SlotState {
  std::string name;
  std::set<std::string> deny;
  bool warn = true;
  bool enabled = false;
  std::set<std::string> warned;
  std::map<std::string, int64_t> counts;
};

std::mutex state_mutex;
// One per out-of-tree device slot, and CUDA's last (enable_cuda_cpu_fallback).
constexpr int kCudaSlot = kNumPrivateUseSlots;
SlotState slots[kNumPrivateUseSlots + 1];
void (*warning_handler)(const std::string&) = nullptr;

// Operators the fallback itself moves tensors with: a backend must have kernels for them.
bool is_own_tool(const OperatorName& n) {
  return n.ns == "aten" && (n.name == "copy_" || n.name == "empty" || n.name == "empty_strided");
}

bool denied(const SlotState& s, const OperatorName& n) {
  const std::string base = n.ns + "::" + n.name;
  return s.deny.count(n.str()) || s.deny.count(base) || s.deny.count(n.name) ||
         s.deny.count(n.overload.empty() ? n.name : n.name + "." + n.overload);
}

Tensor to_cpu(const Tensor& t) {
  Tensor c = ember::empty(t.sizes(), TensorOptions().dtype(t.scalar_type()));
  c.copy_(t);
  return c;
}

Tensor to_device(const Tensor& t, Device d) {
  Tensor out = ember::empty(t.sizes(), TensorOptions().dtype(t.scalar_type()).device(d));
  out.copy_(t.contiguous());
  return out;
}

// A write argument's device original and its CPU copy; lists element by element.
struct Written {
  std::string alias_set;
  std::vector<Tensor> device, cpu;
};

void cpu_fallback(const OperatorHandle& op, DispatchKeySet keys, Stack* stack) {
  int slot = -1;
  for (int i = kNumPrivateUseSlots - 1; i >= 0 && slot < 0; --i) {
    if (keys.has(static_cast<DispatchKey>(static_cast<int>(DispatchKey::PrivateUse1) + i))) slot = i;
  }
  if (slot < 0 && keys.has(DispatchKey::CUDA)) slot = kCudaSlot;
  EMBER_CHECK(slot >= 0, op.name().str(), "(): the CPU fallback ran for no device key it serves");
  const DeviceType type = slot == kCudaSlot ? DeviceType::CUDA
                                            : static_cast<DeviceType>(static_cast<int>(DeviceType::PrivateUse1) + slot);
  const OperatorName& name = op.name();
  const std::string opname = name.str();
  const std::string devname = device_type_name(type);
  EMBER_CHECK_NOT_IMPLEMENTED(!is_own_tool(name), opname, "(): the '", devname, "' backend has no kernel for it, "
                              "and the CPU fallback cannot stand in: it moves tensors with aten::empty, "
                              "empty_strided and copy_, which a backend must implement");
  const FunctionSchema& schema = op.schema();
  for (const Argument& r : schema.returns) {
    EMBER_CHECK_NOT_IMPLEMENTED(!r.alias || r.alias->is_write, opname, "(): the '", devname, "' backend has no "
                                "kernel for this view operator, and the CPU fallback cannot run it: a copy on the "
                                "CPU would not alias its input. Register a kernel for it");
  }
  bool warn_now = false;
  {
    std::lock_guard<std::mutex> lock(state_mutex);
    SlotState& s = slots[slot];
    EMBER_CHECK_NOT_IMPLEMENTED(!denied(s, name), opname, "(): the '", devname, "' backend has no kernel for it, "
                                "and its CPU fallback refuses it (the backend's deny list); move the tensors to the "
                                "CPU first, or add a kernel");
    ++s.counts[opname];
    if (s.warn && s.warned.insert(opname).second) warn_now = true;
  }
  if (warn_now) {
    const std::string msg = str(opname, " has no kernel on the '", devname, "' device: it ran on the CPU through "
                                "the backend's fallback (its tensors copied to the host and back); register a kernel "
                                "for it on ", devname, " to keep the work on the device. Warned once per operator; "
                                "ember.backends.fallback_stats() counts the calls.");
    if (warning_handler) warning_handler(msg);
    else std::fprintf(stderr, "ember: %s\n", msg.c_str());
  }

  const size_t nargs = schema.arguments.size();
  EMBER_CHECK(stack->size() >= nargs, opname, "(): the stack holds fewer values than the op's arguments");
  const size_t first = stack->size() - nargs;
  std::optional<Device> target;
  std::vector<Written> written;
  for (size_t i = 0; i < nargs; ++i) {
    IValue& v = (*stack)[first + i];
    const auto& alias = schema.arguments[i].alias;
    const bool writes = alias && alias->is_write;
    if (v.is_tensor()) {
      const Tensor t = v.to_tensor();
      if (!t.defined() || t.device().type() != type) continue;
      if (!target) target = t.device();
      Tensor c = to_cpu(t);
      if (writes) written.push_back({alias->before.empty() ? "" : alias->before[0], {t}, {c}});
      v = IValue(c);
    } else if (v.is_tensor_list()) {
      std::vector<Tensor> ts = v.to_tensor_list();
      Written w{writes && !alias->before.empty() ? alias->before[0] : "", {}, {}};
      bool any = false;
      for (Tensor& t : ts) {
        if (!t.defined() || t.device().type() != type) continue;
        if (!target) target = t.device();
        Tensor c = to_cpu(t);
        if (writes) {
          w.device.push_back(t);
          w.cpu.push_back(c);
        }
        t = c;
        any = true;
      }
      if (any) v = IValue(std::move(ts));
      if (writes && !w.device.empty()) written.push_back(std::move(w));
    } else if (v.is_device() && v.to_device().type() == type) {
      if (!target) target = v.to_device();
      v = IValue(Device(DeviceType::CPU));
    }
  }
  op.redispatch_boxed(DispatchKeySet(DispatchKey::CPU), stack);
  // In-place and out= effects: the CPU copies' new contents go back into the originals.
  for (Written& w : written) {
    for (size_t k = 0; k < w.device.size(); ++k) {
      if (w.device[k].sizes() != w.cpu[k].sizes()) {
        // An out= argument the CPU kernel resized: the device tensor takes the new sizes
        // within its storage (growing device memory would need the backend's copy).
        TensorImpl* impl = w.device[k].impl();
        const size_t needed = static_cast<size_t>(w.cpu[k].numel() + impl->storage_offset()) * itemsize(impl->dtype());
        EMBER_CHECK_NOT_IMPLEMENTED(impl->storage()->nbytes() >= needed, opname, "(): the CPU fallback cannot grow "
                                    "the '", devname, "' out= argument from ", w.device[k].sizes(), " to ",
                                    w.cpu[k].sizes(), "; pass an out= tensor of the result's size");
        impl->set_sizes_contiguous(w.cpu[k].sizes());
      }
      w.device[k].copy_(w.cpu[k]);
    }
  }
  if (!target) return;
  const size_t nret = schema.returns.size();
  for (size_t j = 0; j < nret; ++j) {
    IValue& r = (*stack)[stack->size() - nret + j];
    const auto& alias = schema.returns[j].alias;
    if (alias && alias->is_write) {
      // The result is an argument written in place: the device original.
      const std::string set = alias->before.empty() ? "" : alias->before[0];
      for (const Written& w : written) {
        if (w.alias_set != set) continue;
        r = w.device.size() == 1 && r.is_tensor() ? IValue(w.device[0]) : IValue(w.device);
        break;
      }
      continue;
    }
    if (r.is_tensor()) {
      const Tensor t = r.to_tensor();
      if (t.defined() && t.device().is_cpu()) r = IValue(to_device(t, *target));
    } else if (r.is_tensor_list()) {
      std::vector<Tensor> ts = r.to_tensor_list();
      for (Tensor& t : ts) {
        if (t.defined() && t.device().is_cpu()) t = to_device(t, *target);
      }
      r = IValue(std::move(ts));
    }
  }
}

}  // namespace

void enable_cpu_fallback(Registration& r, CpuFallbackOptions options) {
  {
    std::lock_guard<std::mutex> lock(state_mutex);
    SlotState& s = slots[privateuse_slot(r.device_type())];
    s = SlotState{};
    s.name = r.name();
    s.deny = std::set<std::string>(options.deny.begin(), options.deny.end());
    s.warn = options.warn;
    s.enabled = true;
  }
  r.kernels("_").fallback(CppFunction::boxed(&cpu_fallback));
}

void enable_cuda_cpu_fallback() {
  {
    std::lock_guard<std::mutex> lock(state_mutex);
    SlotState& s = slots[kCudaSlot];
    s = SlotState{};
    s.name = "cuda";
    s.enabled = true;
  }
  static Library lib(Library::Kind::Impl, "_", DispatchKey::CUDA, __FILE__, __LINE__);
  lib.fallback(CppFunction::boxed(&cpu_fallback));
}

std::map<std::string, std::map<std::string, int64_t>> fallback_stats() {
  std::lock_guard<std::mutex> lock(state_mutex);
  std::map<std::string, std::map<std::string, int64_t>> out;
  for (const SlotState& s : slots) {
    if (s.enabled) out[s.name] = s.counts;
  }
  return out;
}

void reset_fallback_stats() {
  std::lock_guard<std::mutex> lock(state_mutex);
  for (SlotState& s : slots) {
    s.counts.clear();
    s.warned.clear();
  }
}

void set_fallback_warning_handler(void (*handler)(const std::string&)) { warning_handler = handler; }

}  // namespace ember::backend
