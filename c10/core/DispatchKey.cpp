#include "c10/core/DispatchKey.h"

#include "c10/core/DispatchKeySet.h"
#include "c10/util/Exception.h"

namespace ember {
namespace {

struct KeyName { DispatchKey key; const char* name; };
constexpr KeyName kKeyNames[] = {
    {DispatchKey::Undefined, "Undefined"},
    {DispatchKey::CPU, "CPU"},
    {DispatchKey::CUDA, "CUDA"},
    {DispatchKey::Meta, "Meta"},
    {DispatchKey::PrivateUse1, "PrivateUse1"},
    {DispatchKey::PrivateUse2, "PrivateUse2"},
    {DispatchKey::PrivateUse3, "PrivateUse3"},
    {DispatchKey::PrivateUse4, "PrivateUse4"},
    {DispatchKey::MkldnnCPU, "MkldnnCPU"},
    {DispatchKey::SparseCPU, "SparseCPU"},
    {DispatchKey::SparseCUDA, "SparseCUDA"},
    {DispatchKey::SparseCsrCPU, "SparseCsrCPU"},
    {DispatchKey::SparseCsrCUDA, "SparseCsrCUDA"},
    {DispatchKey::BackendSelect, "BackendSelect"},
    {DispatchKey::ADInplaceOrView, "ADInplaceOrView"},
    {DispatchKey::AutogradOther, "AutogradOther"},
    {DispatchKey::AutogradCPU, "AutogradCPU"},
    {DispatchKey::AutogradCUDA, "AutogradCUDA"},
    {DispatchKey::AutogradPrivateUse1, "AutogradPrivateUse1"},
    {DispatchKey::AutogradPrivateUse2, "AutogradPrivateUse2"},
    {DispatchKey::AutogradPrivateUse3, "AutogradPrivateUse3"},
    {DispatchKey::AutogradPrivateUse4, "AutogradPrivateUse4"},
    {DispatchKey::Tracer, "Tracer"},
    {DispatchKey::AutocastCPU, "AutocastCPU"},
    {DispatchKey::Profiler, "Profiler"},
    {DispatchKey::Autograd, "Autograd"},
    {DispatchKey::CompositeExplicitAutograd, "CompositeExplicitAutograd"},
    {DispatchKey::CompositeImplicitAutograd, "CompositeImplicitAutograd"},
};

}  // namespace

const char* dispatch_key_name(DispatchKey k) {
  for (const auto& kn : kKeyNames) {
    if (kn.key == k) return kn.name;
  }
  return "UnnamedKey";
}

std::optional<DispatchKey> parse_dispatch_key(std::string_view name) {
  for (const auto& kn : kKeyNames) {
    if (name == kn.name) return kn.key;
  }
  return std::nullopt;
}

DispatchKey autograd_key_of(DispatchKey backend) {
  switch (backend) {
    case DispatchKey::CPU:
    case DispatchKey::SparseCPU:
    case DispatchKey::MkldnnCPU:
    case DispatchKey::SparseCsrCPU: return DispatchKey::AutogradCPU;
    case DispatchKey::CUDA:
    case DispatchKey::SparseCUDA:
    case DispatchKey::SparseCsrCUDA: return DispatchKey::AutogradCUDA;
    case DispatchKey::PrivateUse1: return DispatchKey::AutogradPrivateUse1;
    case DispatchKey::PrivateUse2: return DispatchKey::AutogradPrivateUse2;
    case DispatchKey::PrivateUse3: return DispatchKey::AutogradPrivateUse3;
    case DispatchKey::PrivateUse4: return DispatchKey::AutogradPrivateUse4;
    default: return DispatchKey::AutogradOther;
  }
}

DispatchKey backend_key_of(Device device, Layout layout) {
  const auto t = device.type();
  switch (layout) {
    case Layout::Strided:
      switch (t) {
        case DeviceType::CPU: return DispatchKey::CPU;
        case DeviceType::CUDA: return DispatchKey::CUDA;
        case DeviceType::Meta: return DispatchKey::Meta;
        case DeviceType::PrivateUse1: return DispatchKey::PrivateUse1;
        case DeviceType::PrivateUse2: return DispatchKey::PrivateUse2;
        case DeviceType::PrivateUse3: return DispatchKey::PrivateUse3;
        case DeviceType::PrivateUse4: return DispatchKey::PrivateUse4;
      }
      break;
    case Layout::Sparse:
      if (t == DeviceType::CPU) return DispatchKey::SparseCPU;
      if (t == DeviceType::CUDA) return DispatchKey::SparseCUDA;
      break;
    case Layout::SparseCsr:
    case Layout::SparseCsc:
      if (t == DeviceType::CPU) return DispatchKey::SparseCsrCPU;
      if (t == DeviceType::CUDA) return DispatchKey::SparseCsrCUDA;
      break;
    case Layout::Mkldnn:
      if (t == DeviceType::CPU) return DispatchKey::MkldnnCPU;
      break;
  }
  EMBER_THROW(NotImplementedError, "expected a supported device and layout, but got layout ",
              layout, " on device '", device, "'");
}

DispatchKeySet DispatchKeySet::of_alias(DispatchKey k) {
  constexpr DispatchKeySet autograd{DispatchKey::AutogradOther, DispatchKey::AutogradCPU,
                                    DispatchKey::AutogradCUDA,
                                    DispatchKey::AutogradPrivateUse1, DispatchKey::AutogradPrivateUse2,
                                    DispatchKey::AutogradPrivateUse3, DispatchKey::AutogradPrivateUse4};
  constexpr DispatchKeySet backends{
      DispatchKey::CPU,       DispatchKey::CUDA,       DispatchKey::Meta,
      DispatchKey::PrivateUse1, DispatchKey::PrivateUse2, DispatchKey::PrivateUse3, DispatchKey::PrivateUse4,
      DispatchKey::MkldnnCPU, DispatchKey::SparseCPU,
      DispatchKey::SparseCUDA, DispatchKey::SparseCsrCPU, DispatchKey::SparseCsrCUDA};
  switch (k) {
    case DispatchKey::Autograd: return autograd;
    case DispatchKey::CompositeExplicitAutograd: return backends;
    case DispatchKey::CompositeImplicitAutograd: return backends | autograd;
    default: return DispatchKeySet(k);
  }
}

std::string DispatchKeySet::str() const {
  std::string s = "DispatchKeySet(";
  bool first = true;
  for (int i = 1; i < kNumRuntimeKeys; ++i) {
    if ((bits_ >> i) & 1) {
      s += first ? "" : ", ";
      s += dispatch_key_name(static_cast<DispatchKey>(i));
      first = false;
    }
  }
  return s + ")";
}

DispatchKeySet tensor_key_set(Device device, Layout layout) {
  DispatchKey backend = backend_key_of(device, layout);
  return DispatchKeySet{backend, autograd_key_of(backend), DispatchKey::ADInplaceOrView};
}

}  // namespace ember
