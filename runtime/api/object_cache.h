#pragma once
// Small objects a process put or fetched, kept so that Get and Wait on them need no
// round trip to the raylet (Ray keeps small objects in the owner's memory store the
// same way). Objects are immutable once stored, so a cached copy never goes stale.
// Bounded in count and bytes: the oldest entries go first.

#include <deque>
#include <memory>
#include <string>
#include <unordered_map>

#include "runtime/ids/ids.h"
#include "runtime/serialization/protocol.h"

namespace ray::core {

class ObjectCache {
 public:
  struct Entry {
    protocol::ObjectState state;  // kInline or kError
    std::shared_ptr<const std::string> data;
  };

  ObjectCache(size_t max_entries, size_t max_bytes)
      : max_entries_(max_entries), max_bytes_(max_bytes) {}

  // Keeps inline values and errors; other states are not values to keep.
  void Insert(const ObjectId& id, protocol::ObjectState state,
              std::shared_ptr<const std::string> data) {
    if (state != protocol::ObjectState::kInline && state != protocol::ObjectState::kError) return;
    if (data->size() > max_bytes_ || entries_.count(id)) return;
    bytes_ += data->size();
    entries_.emplace(id, Entry{state, std::move(data)});
    order_.push_back(id);
    while (entries_.size() > max_entries_ || bytes_ > max_bytes_) {
      auto it = entries_.find(order_.front());
      order_.pop_front();
      if (it == entries_.end()) continue;  // erased before
      bytes_ -= it->second.data->size();
      entries_.erase(it);
    }
  }

  void Erase(const ObjectId& id) {
    auto it = entries_.find(id);
    if (it == entries_.end()) return;
    bytes_ -= it->second.data->size();
    entries_.erase(it);
    // `order_` keeps the id until it reaches the front; drop such ids in bulk when
    // they outnumber the entries, so that put-then-free loops stay bounded.
    if (order_.size() > 2 * entries_.size() + 1024) {
      std::erase_if(order_, [&](const ObjectId& o) { return !entries_.count(o); });
    }
  }

  const Entry* Find(const ObjectId& id) const {
    auto it = entries_.find(id);
    return it == entries_.end() ? nullptr : &it->second;
  }

  size_t size() const { return entries_.size(); }
  size_t bytes() const { return bytes_; }

 private:
  size_t max_entries_, max_bytes_;
  size_t bytes_ = 0;
  std::unordered_map<ObjectId, Entry, IdHash> entries_;
  std::deque<ObjectId> order_;  // insertion order
};

}  // namespace ray::core
