#include "c10/dispatch/Dispatcher.h"

#include <algorithm>
#include <functional>

#include "c10/util/Exception.h"

namespace ember {
namespace {

size_t slot_of(std::string_view qualified_name, size_t slots) {
  return std::hash<std::string_view>{}(qualified_name) & (slots - 1);
}

// Levenshtein distance, to suggest close names for a typo.
size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] != b[j - 1])});
      diag = up;
    }
  }
  return row[b.size()];
}

}  // namespace

Dispatcher::Dispatcher() : slots_(new std::atomic<OperatorEntry*>[kSlots]) {
  for (size_t i = 0; i < kSlots; ++i) slots_[i].store(nullptr, std::memory_order_relaxed);
}

Dispatcher& Dispatcher::singleton() {
  // Leaked on purpose: libraries deregister from static destructors in any order.
  static Dispatcher* d = new Dispatcher();
  return *d;
}

OperatorEntry* Dispatcher::lookup(std::string_view qualified_name) const {
  for (size_t i = slot_of(qualified_name, kSlots);; i = (i + 1) & (kSlots - 1)) {
    OperatorEntry* e = slots_[i].load(std::memory_order_acquire);
    if (e == nullptr) return nullptr;
    if (e->qualified_name() == qualified_name) return e;
  }
}

OperatorEntry* Dispatcher::find_or_create(const OperatorName& name) {
  const std::string key = name.str();
  if (OperatorEntry* e = lookup(key)) return e;
  EMBER_CHECK(entries_.size() < kSlots / 2, "Dispatcher: too many operators (", entries_.size(),
              "); raise Dispatcher::kSlots");
  entries_.push_back(std::make_unique<OperatorEntry>(name));
  OperatorEntry* e = entries_.back().get();
  e->refresh(current_fallbacks());
  size_t i = slot_of(key, kSlots);
  while (slots_[i].load(std::memory_order_relaxed) != nullptr) i = (i + 1) & (kSlots - 1);
  slots_[i].store(e, std::memory_order_release);
  return e;
}

std::optional<OperatorHandle> Dispatcher::find_op(std::string_view qualified_name) const {
  OperatorEntry* e = lookup(qualified_name);
  if (e == nullptr || e->schema() == nullptr) return std::nullopt;
  return OperatorHandle(e);
}

OperatorHandle Dispatcher::find_op_or_throw(std::string_view qualified_name) const {
  if (auto op = find_op(qualified_name)) return *op;
  std::string close;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (const auto& e : entries_) {
      if (e->schema() == nullptr) continue;
      const std::string& n = e->qualified_name();
      if (edit_distance(n, qualified_name) <= 3) close += (close.empty() ? "" : ", ") + n;
    }
  }
  EMBER_THROW(ValueError, "Dispatcher: unknown operator '", qualified_name, "'",
              close.empty() ? std::string() : " (did you mean: " + close + "?)",
              "; operators are named 'namespace::name.overload', e.g. 'aten::add.Tensor'");
}

std::vector<OperatorHandle> Dispatcher::ops() const {
  std::vector<OperatorHandle> out;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (const auto& e : entries_) {
      if (e->schema() != nullptr) out.emplace_back(e.get());
    }
  }
  std::sort(out.begin(), out.end(), [](const OperatorHandle& a, const OperatorHandle& b) {
    return a.entry().qualified_name() < b.entry().qualified_name();
  });
  return out;
}

std::array<const KernelFunction*, kNumRuntimeKeys> Dispatcher::current_fallbacks() const {
  std::array<const KernelFunction*, kNumRuntimeKeys> fb{};
  for (int i = 0; i < kNumRuntimeKeys; ++i) {
    fb[i] = fallbacks_[i].empty() ? nullptr : fallbacks_[i].front().kernel.get();
  }
  return fb;
}

void Dispatcher::refresh_all() {
  auto fb = current_fallbacks();
  for (auto& e : entries_) e->refresh(fb);
}

RegistrationHandle Dispatcher::def(FunctionSchema schema, std::string debug) {
  auto info = std::make_unique<SchemaInfo>(std::move(schema), std::move(debug));
  std::lock_guard<std::mutex> lock(mutex_);
  OperatorEntry* e = find_or_create(info->schema.name);
  if (const SchemaInfo* old = e->schema()) {
    EMBER_THROW(ValueError, "Library.def(): operator ", e->name().str(), " is already defined (at ",
                old->debug, "); define it once, and use impl() to add kernels");
  }
  for (const auto& [key, regs] : e->kernels_) {
    for (const auto& r : regs) {
      EMBER_CHECK_TYPE(r.kernel->signature.empty() || r.kernel->signature == info->signature,
                       "Library.def(): the kernel registered for ", e->name().str(), " (",
                       dispatch_key_name(key), ", at ", r.kernel->debug, ") has C++ signature ",
                       r.kernel->signature, ", but the schema ", info->schema.str(),
                       " expects ", info->signature);
    }
  }
  e->set_schema(std::move(info));
  return RegistrationHandle([this, e] {
    std::lock_guard<std::mutex> lock(mutex_);
    e->clear_schema();
  });
}

RegistrationHandle Dispatcher::impl(const OperatorName& op, DispatchKey key, KernelFunction kernel,
                                    const void* owner) {
  std::lock_guard<std::mutex> lock(mutex_);
  OperatorEntry* e = find_or_create(op);
  EMBER_CHECK_VALUE(!e->owner_has_kernel(key, owner), "Library.impl(): a kernel for ",
                    op.str(), " at dispatch key ", dispatch_key_name(key),
                    " is already registered by this library; register one kernel per "
                    "(operator, key) in a library");
  if (const SchemaInfo* s = e->schema()) {
    EMBER_CHECK_TYPE(kernel.signature.empty() || kernel.signature == s->signature,
                     "Library.impl(): the kernel for ", op.str(), " (", dispatch_key_name(key),
                     ") has C++ signature ", kernel.signature, ", but the schema ", s->schema.str(),
                     " expects ", s->signature);
  }
  auto owned = std::make_unique<KernelFunction>(std::move(kernel));
  const KernelFunction* k = owned.get();
  e->add_kernel(key, std::move(owned), owner);
  e->refresh(current_fallbacks());
  return RegistrationHandle([this, e, key, k] {
    std::lock_guard<std::mutex> lock(mutex_);
    e->remove_kernel(key, k);
    e->refresh(current_fallbacks());
  });
}

RegistrationHandle Dispatcher::fallback(DispatchKey key, KernelFunction kernel, const void* owner) {
  EMBER_CHECK_VALUE(!is_alias_key(key) && key != DispatchKey::Undefined,
                    "Library.fallback(): expected a runtime dispatch key, but got ",
                    dispatch_key_name(key));
  EMBER_CHECK_VALUE(kernel.fallthrough || kernel.unboxed == nullptr,
                    "Library.fallback(): expected a boxed kernel (CppFunction::boxed) or "
                    "CppFunction::fallthrough(); a fallback serves operators of every signature");
  std::lock_guard<std::mutex> lock(mutex_);
  auto& list = fallbacks_[static_cast<uint8_t>(key)];
  for (const auto& f : list) {
    EMBER_CHECK_VALUE(f.owner != owner, "Library.fallback(): this library already registered a "
                      "fallback for ", dispatch_key_name(key));
  }
  list.push_front(Fallback{std::make_unique<KernelFunction>(std::move(kernel)), owner});
  const KernelFunction* k = list.front().kernel.get();
  refresh_all();
  return RegistrationHandle([this, key, k] {
    std::lock_guard<std::mutex> lock(mutex_);
    auto& l = fallbacks_[static_cast<uint8_t>(key)];
    for (auto it = l.begin(); it != l.end(); ++it) {
      if (it->kernel.get() == k) {
        retired_fallbacks_.push_back(std::move(it->kernel));
        l.erase(it);
        break;
      }
    }
    refresh_all();
  });
}

RegistrationHandle Dispatcher::claim_namespace(const std::string& ns, std::string debug) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = namespaces_.find(ns);
  EMBER_CHECK_VALUE(it == namespaces_.end(), "EMBER_LIBRARY(", ns,
                    "): the namespace is already defined by a library at ", it->second,
                    "; use EMBER_LIBRARY_FRAGMENT to define more operators in it");
  namespaces_.emplace(ns, std::move(debug));
  return RegistrationHandle([this, ns] {
    std::lock_guard<std::mutex> lock(mutex_);
    namespaces_.erase(ns);
  });
}

std::vector<std::string> Dispatcher::library_errors() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return library_errors_;
}

void Dispatcher::record_library_error(std::string message) {
  std::lock_guard<std::mutex> lock(mutex_);
  library_errors_.push_back(std::move(message));
}

// --- OperatorHandle ---------------------------------------------------------------------

const FunctionSchema& OperatorHandle::schema() const {
  const SchemaInfo* s = entry_->schema();
  EMBER_CHECK(s != nullptr, "operator ", entry_->name().str(), " is not defined (its library was "
              "unloaded)");
  return s->schema;
}

void OperatorHandle::check_signature(const std::string& cpp_signature) const {
  const SchemaInfo* s = entry_->schema();
  EMBER_CHECK(s != nullptr, "operator ", entry_->name().str(), " is not defined");
  EMBER_CHECK_TYPE(cpp_signature == s->signature, "OperatorHandle.typed(): the C++ signature ",
                   cpp_signature, " does not match the schema ", s->schema.str(), ", which expects ",
                   s->signature);
}

void OperatorHandle::call_boxed(Stack* stack) const {
  const SchemaInfo* s = entry_->schema();
  EMBER_CHECK(s != nullptr, "operator ", entry_->name().str(), " is not defined");
  const auto& args = s->schema.arguments;
  // Messages name the op; EMBER_CHECK evaluates them only on failure.
  auto op = [this] { return entry_->name().str(); };
  EMBER_CHECK_TYPE(stack->size() <= args.size(), op(), "(): expected at most ", args.size(),
                   " arguments, but got ", stack->size());
  // Validate everything (and fill defaults) before any kernel runs.
  for (size_t i = stack->size(); i < args.size(); ++i) {
    EMBER_CHECK_TYPE(args[i].default_value.has_value(), op(), "(): missing argument '",
                     args[i].name, "' (position ", i, ", type ", schema_type_str(args[i].type),
                     "); expected ", args.size(), " arguments, but got ", stack->size());
  }
  for (size_t i = stack->size(); i < args.size(); ++i) stack->push_back(*args[i].default_value);
  DispatchKeySet from_args;
  for (size_t i = 0; i < args.size(); ++i) {
    const IValue& v = (*stack)[i];
    EMBER_CHECK_TYPE((s->accepted_tags[i] >> static_cast<int>(v.tag())) & 1, op(), "(): expected argument '", args[i].name,
                     "' to be ", schema_type_str(args[i].type), ", but got ", v.type_name());
  }
  for (uint32_t i : s->tensor_args) {
    const IValue& v = (*stack)[i];
    if (v.is_tensor()) from_args = from_args | v.to_tensor().key_set();
    else if (v.is_tensor_list()) from_args = from_args | detail::keys_of(TensorList(v.to_tensor_list()));
  }
  const LocalDispatchKeySet tls = local_dispatch_key_set();
  redispatch_boxed((from_args | tls.included) - tls.excluded, stack);
}

void OperatorHandle::redispatch_boxed(DispatchKeySet keys, Stack* stack) const {
  keys = keys & entry_->mask();
  const KernelFunction& k = entry_->lookup(keys.highest());
  k.boxed(k.fn, *this, keys, stack);
}

}  // namespace ember
