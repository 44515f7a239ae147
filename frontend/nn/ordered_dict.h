#pragma once
/// OrderedDict: libtorch's insertion-ordered map (torch::OrderedDict), what
/// Module::named_parameters() and friends return; its items have key() and value().

#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "c10/util/Exception.h"

namespace ember {

/// A map that keeps insertion order; keys are unique, lookups are hashed.
template <class Key, class Value>
class OrderedDict {
 public:
  /// One entry: key() and value().
  class Item {
   public:
    Item(Key key, Value value) : pair_(std::move(key), std::move(value)) {}
    /// The entry's value.
    Value& value() { return pair_.second; }
    const Value& value() const { return pair_.second; }
    /// The entry's key.
    const Key& key() const { return pair_.first; }
    Value& operator*() { return pair_.second; }
    const Value& operator*() const { return pair_.second; }
    Value* operator->() { return &pair_.second; }
    const Value* operator->() const { return &pair_.second; }
    /// The entry as a (key, value) pair.
    const std::pair<Key, Value>& pair() const { return pair_; }

   private:
    std::pair<Key, Value> pair_;
  };

  using Iterator = typename std::vector<Item>::iterator;
  using ConstIterator = typename std::vector<Item>::const_iterator;

  /// An empty dict; key_description names keys in error messages ("Parameter", ...).
  explicit OrderedDict(std::string key_description = "Key")
      : key_description_(std::move(key_description)) {}

  Iterator begin() { return items_.begin(); }
  ConstIterator begin() const { return items_.begin(); }
  Iterator end() { return items_.end(); }
  ConstIterator end() const { return items_.end(); }

  /// The first entry; throws when empty.
  Item& front() { check_not_empty("front"); return items_.front(); }
  const Item& front() const { check_not_empty("front"); return items_.front(); }
  /// The last entry; throws when empty.
  Item& back() { check_not_empty("back"); return items_.back(); }
  const Item& back() const { check_not_empty("back"); return items_.back(); }

  /// The entry at position index.
  Item& operator[](size_t index) { check_index(index); return items_[index]; }
  const Item& operator[](size_t index) const { check_index(index); return items_[index]; }
  /// The value under key; throws when there is none.
  Value& operator[](const Key& key) {
    Value* v = find(key);
    EMBER_CHECK_INDEX(v != nullptr, key_description_, " '", key, "' is not defined");
    return *v;
  }
  const Value& operator[](const Key& key) const {
    const Value* v = find(key);
    EMBER_CHECK_INDEX(v != nullptr, key_description_, " '", key, "' is not defined");
    return *v;
  }

  /// The value under key, or null.
  Value* find(const Key& key) {
    auto it = index_.find(key);
    return it == index_.end() ? nullptr : &items_[it->second].value();
  }
  const Value* find(const Key& key) const {
    auto it = index_.find(key);
    return it == index_.end() ? nullptr : &items_[it->second].value();
  }
  /// Whether key is present.
  bool contains(const Key& key) const { return index_.count(key) != 0; }

  /// Adds (key, value) at the end; throws when key is already present.
  template <class K, class V>
  Value& insert(K&& key, V&& value) {
    EMBER_CHECK_VALUE(!contains(key), key_description_, " '", key, "' already defined");
    items_.emplace_back(Key(std::forward<K>(key)), Value(std::forward<V>(value)));
    index_.emplace(items_.back().key(), items_.size() - 1);
    return items_.back().value();
  }
  /// Inserts every entry of other (throws on a duplicate key).
  void update(const OrderedDict& other) {
    for (const Item& item : other) insert(item.key(), item.value());
  }
  /// Removes key; throws when absent.
  void erase(const Key& key) {
    auto it = index_.find(key);
    EMBER_CHECK_INDEX(it != index_.end(), key_description_, " '", key, "' is not defined");
    items_.erase(items_.begin() + static_cast<std::ptrdiff_t>(it->second));
    index_.clear();
    for (size_t i = 0; i < items_.size(); ++i) index_.emplace(items_[i].key(), i);
  }
  /// Removes every entry.
  void clear() { items_.clear(); index_.clear(); }

  size_t size() const noexcept { return items_.size(); }
  bool is_empty() const noexcept { return items_.empty(); }
  /// The entries in order.
  const std::vector<Item>& items() const noexcept { return items_; }
  /// The keys in order.
  std::vector<Key> keys() const {
    std::vector<Key> out;
    out.reserve(items_.size());
    for (const Item& item : items_) out.push_back(item.key());
    return out;
  }
  /// The values in order.
  std::vector<Value> values() const {
    std::vector<Value> out;
    out.reserve(items_.size());
    for (const Item& item : items_) out.push_back(item.value());
    return out;
  }
  /// The entries as (key, value) pairs.
  std::vector<std::pair<Key, Value>> pairs() const {
    std::vector<std::pair<Key, Value>> out;
    for (const Item& item : items_) out.push_back(item.pair());
    return out;
  }
  /// What keys are called in error messages.
  const std::string& key_description() const noexcept { return key_description_; }

 private:
  void check_not_empty(const char* what) const {
    EMBER_CHECK_INDEX(!items_.empty(), "OrderedDict::", what, "(): called on an empty dict");
  }
  void check_index(size_t index) const {
    EMBER_CHECK_INDEX(index < items_.size(), "OrderedDict: index ", index,
                      " is out of range for a dict of size ", items_.size());
  }

  std::unordered_map<Key, size_t> index_;
  std::vector<Item> items_;
  std::string key_description_;
};

}  // namespace ember
