#include "c10/dispatch/OperatorEntry.h"

#include <sstream>

#include "c10/dispatch/Dispatcher.h"
#include "c10/util/Exception.h"

namespace ember {
namespace {

bool is_tensor_arg(const SchemaType& t) { return t.base == BaseType::Tensor; }

// The tags ivalue_matches accepts for t, found by asking it about one value of each tag.
uint32_t accepted_tag_mask(const SchemaType& t) {
  const IValue samples[] = {
      IValue(), IValue(Tensor()), IValue(int64_t{0}), IValue(0.0), IValue(false),
      IValue(std::complex<double>()), IValue(std::string()), IValue(std::vector<int64_t>()),
      IValue(std::vector<double>()), IValue(std::vector<bool>()), IValue(std::vector<Tensor>()),
      IValue(Device(DeviceType::CPU)), IValue(ScalarType::Float), IValue(Layout::Strided)};
  uint32_t mask = 0;
  if (t.base == BaseType::Generator) mask |= uint32_t{1} << static_cast<int>(IValue::Tag::Generator);
  for (const IValue& v : samples) {
    if (ivalue_matches(v, t)) mask |= uint32_t{1} << static_cast<int>(v.tag());
  }
  return mask;
}

}  // namespace

std::string schema_type_str(const SchemaType& t) {
  std::string s = t.base == BaseType::SymInt ? "int" : base_type_name(t.base);
  if (t.elem_optional) s += "?";
  if (t.is_list) s += "[]";
  if (t.optional) s += "?";
  return s;
}

std::string schema_signature(const FunctionSchema& s) {
  std::string out = "(";
  for (size_t i = 0; i < s.arguments.size(); ++i) {
    out += (i ? ", " : "") + schema_type_str(s.arguments[i].type);
  }
  out += ") -> ";
  if (s.returns.size() == 1) return out + schema_type_str(s.returns[0].type);
  out += "(";
  for (size_t i = 0; i < s.returns.size(); ++i) {
    out += (i ? ", " : "") + schema_type_str(s.returns[i].type);
  }
  return out + ")";
}

namespace sig {
std::string signature_string(const char* const* args, size_t n_args, const char* const* rets,
                             size_t n_rets, bool parens) {
  std::string out = "(";
  for (size_t i = 0; i < n_args; ++i) (out += i ? ", " : "") += args[i];
  out += ") -> ";
  if (parens) out += "(";
  for (size_t i = 0; i < n_rets; ++i) (out += i ? ", " : "") += rets[i];
  if (parens) out += ")";
  return out;
}
}  // namespace sig

bool ivalue_matches(const IValue& v, const SchemaType& t) {
  using Tag = IValue::Tag;
  if (v.is_none()) return t.optional;
  if (t.is_list) {
    switch (t.base) {
      case BaseType::Tensor: return v.is_tensor_list();
      case BaseType::Int:
      case BaseType::SymInt: return v.is_int_list();
      case BaseType::Float: return v.is_double_list();
      case BaseType::Bool: return v.is_bool_list();
      default: return false;
    }
  }
  switch (t.base) {
    case BaseType::Tensor: return v.is_tensor();
    case BaseType::Int:
    case BaseType::SymInt:
    case BaseType::MemoryFormat: return v.is_int();
    case BaseType::Float: return v.is_double() || v.is_int();
    case BaseType::Bool: return v.is_bool();
    case BaseType::Complex:
    case BaseType::Scalar: return v.is_scalar();
    case BaseType::Str: return v.is_string();
    case BaseType::ScalarType: return v.tag() == Tag::ScalarType;
    case BaseType::Device: return v.is_device();
    case BaseType::Layout: return v.is_layout();
    case BaseType::Generator: return v.is_generator();
    case BaseType::Any: return true;
    default: return false;
  }
}

SchemaInfo::SchemaInfo(FunctionSchema s, std::string debug_)
    : schema(std::move(s)), signature(schema_signature(schema)), debug(std::move(debug_)) {
  for (size_t i = 0; i < schema.arguments.size(); ++i) {
    const Argument& a = schema.arguments[i];
    if (is_tensor_arg(a.type)) tensor_args.push_back(static_cast<uint32_t>(i));
    accepted_tags.push_back(accepted_tag_mask(a.type));
  }
}

OperatorEntry::OperatorEntry(OperatorName name)
    : name_(std::move(name)), qualified_name_(name_.str()) {
  missing_.fn = this;
  missing_.boxed = [](void* fn, const OperatorHandle&, DispatchKeySet keys, Stack*) {
    static_cast<const OperatorEntry*>(fn)->report_missing_kernel(keys.highest());
  };
  missing_.debug = "missing kernel";
  for (auto& slot : table_) slot.store(&missing_, std::memory_order_relaxed);
}

std::vector<DispatchKey> OperatorEntry::registered_keys() const {
  // Registrations change under the dispatcher's mutex; a concurrent error report reads them.
  std::lock_guard<std::mutex> lock(Dispatcher::singleton().mutex_);
  std::vector<DispatchKey> keys;
  for (const auto& [key, regs] : kernels_) {
    if (!regs.empty() && !regs.front().kernel->fallthrough) keys.push_back(key);
  }
  return keys;
}

void OperatorEntry::report_missing_kernel(DispatchKey key) const {
  std::string have;
  for (DispatchKey k : registered_keys()) have += (have.empty() ? "" : ", ") + std::string(dispatch_key_name(k));
  if (have.empty()) have = "none";
  const std::string op = name_.str();
  if (key == DispatchKey::Undefined) {
    // An op whose only tensors come in a list (cat, stack) got an empty list.
    const SchemaInfo* info = schema();
    bool list_only = info != nullptr;
    bool has_list = false;
    for (const Argument& a : info ? info->schema.arguments : std::vector<Argument>{}) {
      if (a.type.base != BaseType::Tensor) continue;
      has_list = has_list || a.type.is_list;
      list_only = list_only && a.type.is_list;
    }
    if (list_only && has_list) {
      EMBER_THROW(ValueError, op, "(): expected a non-empty list of Tensors");
    }
    EMBER_THROW(NotImplementedError, op,
                "(): no kernel could be chosen: the call has no defined tensor argument to take "
                "a backend from (keys with kernels: ", have, "). Pass defined tensors, or a "
                "device= for factories.");
  }
  if (is_backend_key(key) && !is_dense_backend_key(key)) {
    const char* layout = key == DispatchKey::MkldnnCPU ? "_mkldnn"
                         : (key == DispatchKey::SparseCPU || key == DispatchKey::SparseCUDA) ? "sparse_coo"
                                                                                               : "sparse_csr and sparse_csc";
    EMBER_THROW(NotImplementedError, op, "(): not supported for ", layout, " tensors (dispatch key ",
                dispatch_key_name(key), "); kernels are registered for: ", have,
                ". Convert the tensor with .to_dense() first");
  }
  EMBER_THROW(NotImplementedError, op, "(): no kernel for dispatch key ", dispatch_key_name(key),
              "; kernels are registered for: ", have,
              ". Move the tensors to a device that has a kernel (e.g. .to(\"cpu\")), or register "
              "one with EMBER_LIBRARY_IMPL(", name_.ns.empty() ? "aten" : name_.ns, ", ",
              dispatch_key_name(key), ", m) { m.impl(\"", name_.name,
              name_.overload.empty() ? "" : "." + name_.overload, "\", ...); }");
}

std::string OperatorEntry::dump_table() const {
  std::ostringstream os;
  for (int i = 1; i < kNumRuntimeKeys; ++i) {
    const KernelFunction& k = lookup(static_cast<DispatchKey>(i));
    if (&k == &missing_) continue;
    os << dispatch_key_name(static_cast<DispatchKey>(i)) << ": "
       << (k.fallthrough ? "fallthrough" : k.unboxed ? "kernel" : "boxed kernel") << " ["
       << k.debug << "]\n";
  }
  return os.str();
}

void OperatorEntry::set_schema(std::unique_ptr<SchemaInfo> info) {
  schema_.store(info.get(), std::memory_order_release);
  schemas_.push_back(std::move(info));
}

void OperatorEntry::clear_schema() { schema_.store(nullptr, std::memory_order_release); }

bool OperatorEntry::has_kernel(DispatchKey key) const {
  auto it = kernels_.find(key);
  return it != kernels_.end() && !it->second.empty();
}

bool OperatorEntry::owner_has_kernel(DispatchKey key, const void* owner) const {
  auto it = kernels_.find(key);
  if (it == kernels_.end()) return false;
  for (const auto& r : it->second) {
    if (r.owner == owner) return true;
  }
  return false;
}

void OperatorEntry::add_kernel(DispatchKey key, std::unique_ptr<KernelFunction> k,
                               const void* owner) {
  kernels_[key].push_front(Registration{std::move(k), owner});
}

void OperatorEntry::remove_kernel(DispatchKey key, const KernelFunction* k) {
  auto& regs = kernels_[key];
  for (auto it = regs.begin(); it != regs.end(); ++it) {
    if (it->kernel.get() == k) {
      retired_kernels_.push_back(std::move(it->kernel));
      regs.erase(it);
      break;
    }
  }
  if (regs.empty()) kernels_.erase(key);
}

const KernelFunction* OperatorEntry::compute_entry(
    DispatchKey k, const std::array<const KernelFunction*, kNumRuntimeKeys>& fallbacks) const {
  auto registered = [&](DispatchKey key) -> const KernelFunction* {
    auto it = kernels_.find(key);
    return it == kernels_.end() || it->second.empty() ? nullptr : it->second.front().kernel.get();
  };
  // Note [Dispatch table precedence]: as PyTorch fills it (shared/DESIGN.md, "Dispatch").
  if (auto* direct = registered(k)) return direct;
  // Composites fill dense backends only: a layout key (sparse, oneDNN) runs what is
  // registered for it and nothing else, so an op without a kernel for the layout is one
  // clear error (report_missing_kernel) and never a dense kernel reading a tensor that has
  // no strided storage (Note [Layout keys] in DispatchKey.h).
  if (is_dense_backend_key(k)) {
    if (auto* cea = registered(DispatchKey::CompositeExplicitAutograd)) return cea;
    if (auto* cia = registered(DispatchKey::CompositeImplicitAutograd)) return cia;
  }
  if (is_autograd_key(k)) {
    if (auto* cia = registered(DispatchKey::CompositeImplicitAutograd)) {
      bool has_backend_kernel = registered(DispatchKey::CompositeExplicitAutograd) != nullptr;
      for (int b = 1; b < kNumRuntimeKeys && !has_backend_kernel; ++b) {
        auto bk = static_cast<DispatchKey>(b);
        if (is_backend_key(bk) && autograd_key_of(bk) == k && registered(bk)) has_backend_kernel = true;
      }
      if (!has_backend_kernel) return cia;
    }
    if (auto* ag = registered(DispatchKey::Autograd)) return ag;
  }
  if (auto* fb = fallbacks[static_cast<uint8_t>(k)]) return fb;
  return &missing_;
}

void OperatorEntry::refresh(const std::array<const KernelFunction*, kNumRuntimeKeys>& fallbacks) {
  uint64_t mask = DispatchKeySet::full().raw();
  for (int i = 1; i < kNumRuntimeKeys; ++i) {
    const KernelFunction* k = compute_entry(static_cast<DispatchKey>(i), fallbacks);
    if (k->fallthrough) mask &= ~(uint64_t{1} << i);
    table_[i].store(k, std::memory_order_release);
  }
  mask_.store(mask, std::memory_order_relaxed);
}

}  // namespace ember
