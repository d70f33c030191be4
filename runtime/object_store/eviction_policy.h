#pragma once
// Which objects leave shared memory when a full store must make room, and how.
//
// The store tracks each object held in memory with its size, whether anyone may
// still ask for it here ("referenced"), and when it was last used. To free `needed`
// bytes it chooses, least recently used first:
//   1. objects nobody references here: evicted (their bytes are gone from this node);
//   2. then, only if that is not enough, referenced objects: spilled to disk (their
//      bytes come back on the next use).
// Pinned objects (mapped by some process right now) are never chosen. The plan stops
// as soon as enough is free; if all candidates together are not enough, there is no
// plan and nothing is touched.
//
// Pure bookkeeping: no clock (recency is the order of Add and Touch calls), no files.
// Not thread-safe.

#include <cstddef>
#include <functional>
#include <list>
#include <optional>
#include <unordered_map>
#include <vector>

#include "runtime/ids/ids.h"

namespace ray::object_store {

class EvictionPolicy {
 public:
  struct Plan {
    std::vector<ObjectId> evict;  // in LRU order
    std::vector<ObjectId> spill;  // in LRU order
    size_t freed_bytes = 0;
  };
  using IsPinned = std::function<bool(const ObjectId&)>;

  // An object now in memory, the most recently used. Re-adding replaces it.
  void Add(const ObjectId& id, size_t size, bool referenced);
  // The object left memory (freed, evicted or spilled). No-op if unknown.
  void Remove(const ObjectId& id);
  // The object was used now: it becomes the most recently used.
  void Touch(const ObjectId& id);

  // The objects to evict and spill to free at least `needed` bytes, or nullopt if
  // the unpinned objects together hold less.
  std::optional<Plan> MakeRoom(size_t needed, const IsPinned& pinned) const;
  // Bytes held by pinned objects.
  size_t PinnedBytes(const IsPinned& pinned) const;

  size_t size() const { return index_.size(); }

 private:
  struct Item {
    ObjectId id;
    size_t size;
    bool referenced;
  };
  std::list<Item> lru_;  // front: least recently used
  std::unordered_map<ObjectId, std::list<Item>::iterator, IdHash> index_;
};

}  // namespace ray::object_store
