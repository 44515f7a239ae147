// The weights-only pickle of checkpoints (frontend/serialize/Pickle.h): the writer emits what
// torch.save (and ember.save) write; the reader runs pickle's protocol 0-5 opcodes over an
// allow-list of globals, as torch.load(weights_only=True) does.

#include "frontend/serialize/Pickle.h"

#include <bit>
#include <cstring>
#include <map>

#include "aten/autograd/GradMode.h"
#include "ember/generated/ops/as_strided.h"
#include "ember/generated/ops/empty_strided.h"
#include "frontend/serialize/CheckpointError.h"

namespace ember::serialize {
namespace pickle_detail {

// dtype <-> the legacy typed storage class torch names in a file.
struct StorageTypeName {
  ScalarType dtype;
  const char* name;
};
constexpr StorageTypeName kStorageTypes[] = {
    {ScalarType::Float, "FloatStorage"},         {ScalarType::Double, "DoubleStorage"},
    {ScalarType::Half, "HalfStorage"},           {ScalarType::BFloat16, "BFloat16Storage"},
    {ScalarType::Char, "CharStorage"},           {ScalarType::Short, "ShortStorage"},
    {ScalarType::Int, "IntStorage"},             {ScalarType::Long, "LongStorage"},
    {ScalarType::Byte, "ByteStorage"},           {ScalarType::Bool, "BoolStorage"},
    {ScalarType::ComplexFloat, "ComplexFloatStorage"},
    {ScalarType::ComplexDouble, "ComplexDoubleStorage"},
};

const char* storage_type_name(ScalarType dtype) {
  for (const auto& s : kStorageTypes) {
    if (s.dtype == dtype) return s.name;
  }
  EMBER_THROW(TypeError, "save(): cannot save a tensor of dtype ", dtype);
}

// ---------------------------------------------------------------------------------------
// writing

class Writer {
 public:
  std::string out;

  void op(char c) { out.push_back(c); }
  void op(uint8_t c) { out.push_back(static_cast<char>(c)); }
  void le(uint64_t v, int n) {
    for (int i = 0; i < n; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
  }
  void integer(int64_t v) {
    if (v >= 0 && v < 256) {
      op('K');
      le(uint64_t(v), 1);
    } else if (v >= 0 && v < 65536) {
      op('M');
      le(uint64_t(v), 2);
    } else if (v >= INT32_MIN && v <= INT32_MAX) {
      op('J');
      le(uint64_t(uint32_t(int32_t(v))), 4);
    } else {   // LONG1: 8 little-endian two's-complement bytes
      op(uint8_t(0x8a));
      le(8, 1);
      le(uint64_t(v), 8);
    }
  }
  void string(std::string_view s) {
    op('X');
    le(s.size(), 4);
    out.append(s);
  }
  void global(std::string_view module, std::string_view name) {
    op('c');
    out.append(module);
    out.push_back('\n');
    out.append(name);
    out.push_back('\n');
  }
  void int_tuple(IntArrayRef values) {
    if (values.empty()) {
      op(')');
      return;
    }
    op('(');
    for (int64_t v : values) integer(v);
    op('t');
  }
  void ordered_dict_empty() {   // collections.OrderedDict()
    global("collections", "OrderedDict");
    op(')');
    op('R');
  }
};

struct StorageKey {
  const void* impl;
  ScalarType dtype;
  bool operator<(const StorageKey& o) const {
    return impl != o.impl ? std::less<const void*>()(impl, o.impl) : dtype < o.dtype;
  }
};

class TensorWriter {
 public:
  Writer w;
  std::vector<SavedStorage> storages;

  void tensor(Tensor t) {
    EMBER_CHECK_NOT_IMPLEMENTED(t.layout() == Layout::Strided, "save(): cannot save a tensor of "
                                "layout ", t.layout(), "; convert it to a dense tensor first");
    if (t.device().type() != DeviceType::CPU) t = t.cpu();
    const ScalarType dtype = t.scalar_type();
    const char* type_name = storage_type_name(dtype);
    const StorageKey id{t.storage().impl(), dtype};
    auto it = keys_.find(id);
    if (it == keys_.end()) {
      const std::string key = std::to_string(storages.size());
      it = keys_.emplace(id, key).first;
      const size_t nbytes = t.storage() ? t.storage()->nbytes() : 0;
      storages.push_back(SavedStorage{key, t.storage(),
                                      nbytes ? t.storage()->data() : nullptr, nbytes});
    }
    const size_t nbytes = t.storage() ? t.storage()->nbytes() : 0;
    w.global("torch._utils", "_rebuild_tensor_v2");
    w.op('(');
    // persistent id ('storage', torch.<Type>Storage, key, location, numel)
    w.op('(');
    w.string("storage");
    w.global("torch", type_name);
    w.string(it->second);
    w.string("cpu");
    w.integer(static_cast<int64_t>(nbytes / itemsize(dtype)));
    w.op('t');
    w.op('Q');
    w.integer(t.storage_offset());
    w.int_tuple(t.sizes());
    w.int_tuple(t.strides());
    w.op(t.requires_grad() ? uint8_t(0x88) : uint8_t(0x89));
    w.ordered_dict_empty();
    w.op('t');
    w.op('R');
  }

 private:
  std::map<StorageKey, std::string> keys_;
};

// ---------------------------------------------------------------------------------------
// reading

using Kind = PickleValue::Kind;

PickleValue make(Kind kind) {
  PickleValue v;
  v.kind = kind;
  return v;
}
PickleValue make_int(int64_t i) {
  PickleValue v = make(Kind::Int);
  v.integer = i;
  return v;
}
PickleValue make_sequence(Kind kind, std::vector<PickleValue> items) {
  PickleValue v = make(kind);
  v.items = std::make_shared<std::vector<PickleValue>>(std::move(items));
  return v;
}

class Reader {
 public:
  Reader(std::string_view data, const StorageLoader& loader) : data_(data), loader_(loader) {}

  PickleValue run();

 private:
  std::string_view data_;
  const StorageLoader& loader_;
  size_t pos_ = 0;
  std::vector<PickleValue> stack_;
  std::vector<size_t> marks_;
  std::map<uint64_t, PickleValue> memo_;

  std::string_view take(size_t n) {
    EMBER_CHECK_CHECKPOINT(n <= data_.size() - pos_, "the checkpoint's pickle (data.pkl) is "
                           "truncated at byte ", pos_);
    const std::string_view s = data_.substr(pos_, n);
    pos_ += n;
    return s;
  }
  uint64_t le(size_t n) {
    const std::string_view s = take(n);
    uint64_t v = 0;
    for (size_t i = 0; i < n; ++i) v |= uint64_t(uint8_t(s[i])) << (8 * i);
    return v;
  }
  std::string_view line() {
    const size_t end = data_.find('\n', pos_);
    EMBER_CHECK_CHECKPOINT(end != std::string_view::npos, "the checkpoint's pickle (data.pkl) "
                           "is truncated at byte ", pos_);
    const std::string_view s = data_.substr(pos_, end - pos_);
    pos_ = end + 1;
    return s;
  }
  PickleValue pop() {
    EMBER_CHECK_CHECKPOINT(stack_.size() > (marks_.empty() ? 0 : marks_.back()),
                           "the checkpoint's pickle (data.pkl) is malformed: it pops an empty "
                           "stack at byte ", pos_);
    PickleValue v = std::move(stack_.back());
    stack_.pop_back();
    return v;
  }
  PickleValue& top() {
    EMBER_CHECK_CHECKPOINT(!stack_.empty(), "the checkpoint's pickle (data.pkl) is malformed: "
                           "it reads an empty stack at byte ", pos_);
    return stack_.back();
  }
  std::vector<PickleValue> pop_mark() {
    EMBER_CHECK_CHECKPOINT(!marks_.empty(), "the checkpoint's pickle (data.pkl) is malformed: "
                           "no MARK before byte ", pos_);
    const size_t at = marks_.back();
    marks_.pop_back();
    std::vector<PickleValue> items(std::make_move_iterator(stack_.begin() + at),
                                   std::make_move_iterator(stack_.end()));
    stack_.resize(at);
    return items;
  }
  void push_tuple(size_t n) {
    EMBER_CHECK_CHECKPOINT(stack_.size() >= n + (marks_.empty() ? 0 : marks_.back()),
                           "the checkpoint's pickle (data.pkl) is malformed at byte ", pos_);
    std::vector<PickleValue> items(std::make_move_iterator(stack_.end() - n),
                                   std::make_move_iterator(stack_.end()));
    stack_.resize(stack_.size() - n);
    stack_.push_back(make_sequence(Kind::Tuple, std::move(items)));
  }
  void push_global(std::string module, std::string name);
  PickleValue reduce(const PickleValue& fn, const PickleValue& args);
  PickleValue persistent_load(const PickleValue& pid);
  void set_items(PickleValue& dict, std::vector<PickleValue>& kv);
  void append_items(PickleValue& list, std::vector<PickleValue>& items);
};

void Reader::push_global(std::string module, std::string name) {
  PickleValue g = make(Kind::Global);
  g.text = module + "." + name;
  if (module == "torch") {
    for (const auto& s : kStorageTypes) {
      if (name == s.name) g.dtype = s.dtype;
    }
  }
  static const char* const kAllowed[] = {
      "collections.OrderedDict", "torch._utils._rebuild_tensor_v2",
      "torch._utils._rebuild_tensor", "torch._utils._rebuild_parameter", "torch.Size",
      "builtins.set", "builtins.frozenset"};
  bool allowed = g.dtype != ScalarType::Undefined;
  for (const char* a : kAllowed) allowed = allowed || g.text == a;
  EMBER_CHECK_CHECKPOINT(allowed, "the checkpoint names the global '", g.text, "', which the "
                         "C++ load() does not allow: it reads tensors and lists, tuples, dicts "
                         "and OrderedDicts of them, as torch.load(weights_only=True) does");
  stack_.push_back(std::move(g));
}

PickleValue Reader::persistent_load(const PickleValue& pid) {
  const auto* p = pid.kind == Kind::Tuple ? pid.items.get() : nullptr;
  EMBER_CHECK_CHECKPOINT(p && p->size() >= 5 && (*p)[0].kind == Kind::String &&
                             (*p)[0].text == "storage" && (*p)[1].kind == Kind::Global &&
                             (*p)[1].dtype != ScalarType::Undefined &&
                             (*p)[2].kind == Kind::String && (*p)[3].kind == Kind::String &&
                             (*p)[4].kind == Kind::Int && (*p)[4].integer >= 0,
                         "the checkpoint has a persistent id that is not ('storage', "
                         "torch.<Type>Storage, key, location, numel): ", pid.describe());
  PickleValue s = make(Kind::Storage);
  s.dtype = (*p)[1].dtype;
  s.tensor = loader_(s.dtype, (*p)[2].text, (*p)[3].text, (*p)[4].integer);
  return s;
}

std::vector<int64_t> int_tuple(const PickleValue& v, const char* what) {
  EMBER_CHECK_CHECKPOINT(v.kind == Kind::Tuple, "the checkpoint rebuilds a tensor with ", what,
                         " ", v.describe(), ", expected a tuple of ints");
  std::vector<int64_t> out;
  for (const PickleValue& x : *v.items) {
    EMBER_CHECK_CHECKPOINT(x.kind == Kind::Int && x.integer >= 0, "the checkpoint rebuilds a "
                           "tensor with a malformed ", what);
    out.push_back(x.integer);
  }
  return out;
}

Tensor rebuild_tensor(const std::vector<PickleValue>& a) {
  EMBER_CHECK_CHECKPOINT(a.size() >= 4 && a[0].kind == Kind::Storage && a[1].kind == Kind::Int &&
                             a[1].integer >= 0,
                         "the checkpoint calls torch._utils._rebuild_tensor_v2 with malformed "
                         "arguments; expected (storage, offset, size, stride, ...)");
  const std::vector<int64_t> size = int_tuple(a[2], "size");
  const std::vector<int64_t> stride = int_tuple(a[3], "stride");
  EMBER_CHECK_CHECKPOINT(size.size() == stride.size(), "the checkpoint rebuilds a tensor of size ",
                         IntArrayRef(size), " with stride ", IntArrayRef(stride));
  const Tensor& base = a[0].tensor;
  const int64_t offset = a[1].integer;
  Tensor t;
  bool empty = false;
  int64_t hi = offset;
  bool overflow = false;
  for (size_t d = 0; d < size.size(); ++d) {
    empty = empty || size[d] == 0;
    int64_t reach = 0;
    if (size[d] > 0) {
      overflow = overflow || __builtin_mul_overflow(size[d] - 1, stride[d], &reach) ||
                 __builtin_add_overflow(hi, reach, &hi);
    }
  }
  EMBER_CHECK_CHECKPOINT(!overflow, "the checkpoint has a tensor of size ", IntArrayRef(size),
                         " and stride ", IntArrayRef(stride), " whose extent overflows");
  if (empty) {
    t = empty_strided(size, stride, TensorOptions().dtype(base.scalar_type()));
  } else {
    EMBER_CHECK_CHECKPOINT(hi < base.numel(), "the checkpoint has a tensor of size ",
                           IntArrayRef(size), " and stride ", IntArrayRef(stride), " at offset ",
                           offset, " that reaches past the end of its storage (", base.numel(),
                           " elements of ", base.scalar_type(), ")");
    autograd::NoGradGuard no_grad;
    t = as_strided(base, size, stride, offset);
  }
  if (a.size() >= 5) {
    EMBER_CHECK_CHECKPOINT(a[4].kind == Kind::Bool, "the checkpoint rebuilds a tensor with "
                           "requires_grad ", a[4].describe(), ", expected a bool");
    if (a[4].boolean) t.requires_grad_(true);
  }
  if (a.size() >= 7) {
    const PickleValue& meta = a[6];
    EMBER_CHECK_CHECKPOINT(meta.kind == Kind::None || (meta.kind == Kind::Dict && meta.entries->empty()),
                           "the checkpoint rebuilds a tensor with metadata (torch's lazy conj "
                           "or neg bits), which the C++ load() does not read; resolve them "
                           "(t.resolve_conj().resolve_neg()) before torch.save");
  }
  return t;
}

PickleValue Reader::reduce(const PickleValue& fn, const PickleValue& args) {
  EMBER_CHECK_CHECKPOINT(fn.kind == Kind::Global && args.kind == Kind::Tuple, "the checkpoint "
                         "calls ", fn.describe(), " with ", args.describe(),
                         ", expected an allowed global and a tuple");
  const std::vector<PickleValue>& a = *args.items;
  if (fn.text == "collections.OrderedDict") {
    EMBER_CHECK_CHECKPOINT(a.empty(), "the checkpoint calls collections.OrderedDict with "
                           "arguments, expected none");
    PickleValue d = make(Kind::Dict);
    d.entries = std::make_shared<std::vector<std::pair<PickleValue, PickleValue>>>();
    return d;
  }
  if (fn.text == "torch._utils._rebuild_tensor_v2" || fn.text == "torch._utils._rebuild_tensor") {
    PickleValue t = make(Kind::Tensor);
    t.tensor = rebuild_tensor(a);
    return t;
  }
  if (fn.text == "torch._utils._rebuild_parameter") {
    EMBER_CHECK_CHECKPOINT(a.size() >= 2 && a[0].kind == Kind::Tensor && a[1].kind == Kind::Bool,
                           "the checkpoint calls torch._utils._rebuild_parameter with malformed "
                           "arguments; expected (tensor, requires_grad, hooks)");
    PickleValue t = a[0];
    t.tensor = t.tensor.detach();
    if (a[1].boolean) t.tensor.requires_grad_(true);
    return t;
  }
  if (fn.text == "torch.Size" || fn.text == "builtins.set" || fn.text == "builtins.frozenset") {
    EMBER_CHECK_CHECKPOINT(a.size() <= 1, "the checkpoint calls ", fn.text, " with ", a.size(),
                           " arguments");
    if (a.empty()) return make_sequence(Kind::Tuple, {});
    EMBER_CHECK_CHECKPOINT(a[0].kind == Kind::Tuple || a[0].kind == Kind::List, "the checkpoint "
                           "calls ", fn.text, " with ", a[0].describe());
    return make_sequence(Kind::Tuple, *a[0].items);
  }
  EMBER_THROW(CheckpointError, "load(): the checkpoint calls ", fn.text,
              ", which builds no value the C++ load() reads");
}

void Reader::set_items(PickleValue& dict, std::vector<PickleValue>& kv) {
  EMBER_CHECK_CHECKPOINT(dict.kind == Kind::Dict && kv.size() % 2 == 0, "the checkpoint's "
                         "pickle sets items on ", dict.describe());
  for (size_t i = 0; i < kv.size(); i += 2) {
    const PickleValue& k = kv[i];
    EMBER_CHECK_CHECKPOINT(k.kind == Kind::String || k.kind == Kind::Int, "the checkpoint has a "
                           "dict key that is ", k.describe(), "; the C++ load() reads string "
                           "and int keys");
    auto& entries = *dict.entries;
    bool replaced = false;
    for (auto& [ek, ev] : entries) {
      if (ek.kind == k.kind && ek.text == k.text && ek.integer == k.integer) {
        ev = std::move(kv[i + 1]);
        replaced = true;
      }
    }
    if (!replaced) entries.emplace_back(std::move(kv[i]), std::move(kv[i + 1]));
  }
}

void Reader::append_items(PickleValue& list, std::vector<PickleValue>& items) {
  EMBER_CHECK_CHECKPOINT(list.kind == Kind::List, "the checkpoint's pickle appends to ",
                         list.describe());
  for (PickleValue& v : items) list.items->push_back(std::move(v));
}

PickleValue Reader::run() {
  for (;;) {
    const uint8_t code = static_cast<uint8_t>(take(1)[0]);
    switch (code) {
      case 0x80: take(1); break;                  // PROTO
      case 0x95: take(8); break;                  // FRAME
      case '.': {                                 // STOP
        EMBER_CHECK_CHECKPOINT(stack_.size() == 1 && marks_.empty(), "the checkpoint's pickle "
                               "(data.pkl) is malformed: it stops with ", stack_.size(),
                               " values on its stack");
        return std::move(stack_.back());
      }
      case '(': marks_.push_back(stack_.size()); break;   // MARK
      case '0': pop(); break;                             // POP
      case '1': pop_mark(); break;                        // POP_MARK
      case '2': stack_.push_back(top()); break;           // DUP
      case 'N': stack_.push_back(make(Kind::None)); break;
      case 0x88: case 0x89: {                             // NEWTRUE, NEWFALSE
        PickleValue b = make(Kind::Bool);
        b.boolean = code == 0x88;
        stack_.push_back(std::move(b));
        break;
      }
      case 'K': stack_.push_back(make_int(int64_t(le(1)))); break;   // BININT1
      case 'M': stack_.push_back(make_int(int64_t(le(2)))); break;   // BININT2
      case 'J': stack_.push_back(make_int(int32_t(uint32_t(le(4))))); break;   // BININT
      case 0x8a: {                                        // LONG1
        const size_t n = size_t(le(1));
        EMBER_CHECK_CHECKPOINT(n <= 8, "the checkpoint has an integer of ", n, " bytes, wider "
                               "than 64 bits");
        const std::string_view s = take(n);
        uint64_t v = 0;
        for (size_t i = 0; i < n; ++i) v |= uint64_t(uint8_t(s[i])) << (8 * i);
        if (n > 0 && n < 8 && (uint8_t(s[n - 1]) & 0x80)) v |= ~uint64_t(0) << (8 * n);
        stack_.push_back(make_int(int64_t(v)));
        break;
      }
      case 'G': {                                         // BINFLOAT (big-endian)
        const std::string_view s = take(8);
        uint64_t bits = 0;
        for (size_t i = 0; i < 8; ++i) bits = (bits << 8) | uint8_t(s[i]);
        PickleValue f = make(Kind::Float);
        f.real = std::bit_cast<double>(bits);
        stack_.push_back(std::move(f));
        break;
      }
      case 'X': case 0x8c: case 0x8d: case 'U': case 'T': case 'B': case 'C': case 0x8e: {
        // BINUNICODE, SHORT_BINUNICODE, BINUNICODE8, SHORT_BINSTRING, BINSTRING, BINBYTES,
        // SHORT_BINBYTES, BINBYTES8: all read as text
        const size_t width = (code == 0x8c || code == 'U' || code == 'C') ? 1
                             : (code == 0x8d || code == 0x8e)             ? 8
                                                                          : 4;
        const size_t n = size_t(le(width));
        PickleValue s = make(Kind::String);
        s.text = std::string(take(n));
        stack_.push_back(std::move(s));
        break;
      }
      case ')': stack_.push_back(make_sequence(Kind::Tuple, {})); break;   // EMPTY_TUPLE
      case 't': stack_.push_back(make_sequence(Kind::Tuple, pop_mark())); break;
      case 0x85: push_tuple(1); break;
      case 0x86: push_tuple(2); break;
      case 0x87: push_tuple(3); break;
      case ']': stack_.push_back(make_sequence(Kind::List, {})); break;    // EMPTY_LIST
      case 'l': stack_.push_back(make_sequence(Kind::List, pop_mark())); break;
      case 'a': {                                          // APPEND
        std::vector<PickleValue> one{pop()};
        append_items(top(), one);
        break;
      }
      case 'e': {                                          // APPENDS
        std::vector<PickleValue> items = pop_mark();
        append_items(top(), items);
        break;
      }
      case '}': case 'd': {                                // EMPTY_DICT, DICT
        PickleValue d = make(Kind::Dict);
        d.entries = std::make_shared<std::vector<std::pair<PickleValue, PickleValue>>>();
        if (code == 'd') {
          std::vector<PickleValue> kv = pop_mark();
          set_items(d, kv);
        }
        stack_.push_back(std::move(d));
        break;
      }
      case 's': {                                          // SETITEM
        std::vector<PickleValue> kv(2);
        kv[1] = pop();
        kv[0] = pop();
        set_items(top(), kv);
        break;
      }
      case 'u': {                                          // SETITEMS
        std::vector<PickleValue> kv = pop_mark();
        set_items(top(), kv);
        break;
      }
      case 'c': {                                          // GLOBAL
        std::string module(line());
        std::string name(line());
        push_global(std::move(module), std::move(name));
        break;
      }
      case 0x93: {                                         // STACK_GLOBAL
        const PickleValue name = pop(), module = pop();
        EMBER_CHECK_CHECKPOINT(name.kind == Kind::String && module.kind == Kind::String,
                               "the checkpoint's STACK_GLOBAL names a global by non-strings");
        push_global(module.text, name.text);
        break;
      }
      case 'Q': {                                          // BINPERSID
        const PickleValue pid = pop();
        stack_.push_back(persistent_load(pid));
        break;
      }
      case 'R': {                                          // REDUCE
        const PickleValue args = pop(), fn = pop();
        stack_.push_back(reduce(fn, args));
        break;
      }
      case 'b': {                                          // BUILD
        const PickleValue state = pop();
        // An OrderedDict's state (a state dict's _metadata) has no C++ counterpart.
        EMBER_CHECK_CHECKPOINT(top().kind == Kind::Dict || top().kind == Kind::Tensor,
                               "the checkpoint sets the state of ", top().describe());
        (void)state;
        break;
      }
      case 'q': memo_[le(1)] = top(); break;               // BINPUT
      case 'r': memo_[le(4)] = top(); break;               // LONG_BINPUT
      case 0x94: memo_[memo_.size()] = top(); break;       // MEMOIZE
      case 'h': case 'j': {                                // BINGET, LONG_BINGET
        const uint64_t key = le(code == 'h' ? 1 : 4);
        const auto it = memo_.find(key);
        EMBER_CHECK_CHECKPOINT(it != memo_.end(), "the checkpoint's pickle (data.pkl) reads "
                               "memo entry ", key, ", which it never wrote");
        stack_.push_back(it->second);
        break;
      }
      default:
        EMBER_THROW(CheckpointError, "load(): the checkpoint's pickle (data.pkl) has opcode 0x",
                    std::hex, int(code), std::dec, " at byte ", pos_ - 1,
                    ", which the C++ load() does not read (it reads the weights-only subset "
                    "that torch.save writes)");
    }
  }
}

}  // namespace pickle_detail

std::string PickleValue::describe() const {
  switch (kind) {
    case Kind::None: return "None";
    case Kind::Bool: return boolean ? "True" : "False";
    case Kind::Int: return "the int " + std::to_string(integer);
    case Kind::Float: return "a float";
    case Kind::String: return "the string '" + text.substr(0, 40) + "'";
    case Kind::Tuple: return "a tuple of " + std::to_string(items->size());
    case Kind::List: return "a list of " + std::to_string(items->size());
    case Kind::Dict: return "a dict of " + std::to_string(entries->size());
    case Kind::Tensor: return "a tensor";
    case Kind::Global: return "the global " + text;
    case Kind::Storage: return "a storage";
  }
  return "a value";
}

PickleValue unpickle(std::string_view data, const StorageLoader& load_storage) {
  return pickle_detail::Reader(data, load_storage).run();
}

PickledTensors pickle_tensors(const std::vector<std::pair<std::string, Tensor>>& named,
                              PickleShape shape) {
  pickle_detail::TensorWriter tw;
  pickle_detail::Writer& w = tw.w;
  w.op(uint8_t(0x80));
  w.le(2, 1);
  if (shape == PickleShape::Tensor) {
    EMBER_INTERNAL_ASSERT(named.size() == 1);
    tw.tensor(named[0].second);
  } else if (shape == PickleShape::List) {
    w.op(']');
    if (!named.empty()) {
      w.op('(');
      for (const auto& [name, t] : named) tw.tensor(t);
      w.op('e');
    }
  } else {
    w.ordered_dict_empty();
    if (!named.empty()) {
      w.op('(');
      for (const auto& [name, t] : named) {
        w.string(name);
        tw.tensor(t);
      }
      w.op('u');
    }
  }
  w.op('.');
  return PickledTensors{std::move(w.out), std::move(tw.storages)};
}

}  // namespace ember::serialize
