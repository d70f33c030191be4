#pragma once
// The results of direct calls this process made (see task_submitter.h), held here,
// their owner, rather than in the raylet: pending until the worker answers, then the
// value (inline bytes or an error). Large results go to the raylet's store instead,
// and so do results whose ids escape the process (ObjectClient::PromoteEscaped).
//
// Not thread-safe: the client's thread.

#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ray/wire.h"
#include "runtime/api/object_cache.h"
#include "runtime/ids/ids.h"

namespace ray::core {

class DirectResults {
 public:
  void Expect(const ObjectId& id) { pending_.insert(id); }
  bool Pending(const ObjectId& id) const { return pending_.count(id) > 0; }
  bool AnyPending() const { return !pending_.empty(); }
  // The worker answered for `id`: false if it was not awaited (freed in flight).
  bool Settle(const ObjectId& id) { return pending_.erase(id) > 0; }
  void Store(const ObjectId& id, ObjectCache::Entry value) { values_[id] = std::move(value); }
  // The results still pending among `ids` become the error (packed only if one is:
  // every answer from a worker ends with this call).
  void Fail(const std::vector<ObjectId>& ids, const ray::internal::ErrorInfo& error) {
    std::shared_ptr<const std::string> bytes;
    for (const ObjectId& id : ids) {
      if (!pending_.erase(id)) continue;  // arrived, or freed
      if (!bytes) bytes = std::make_shared<const std::string>(ray::internal::Pack(error));
      values_[id] = ObjectCache::Entry{protocol::ObjectState::kError, bytes};
    }
  }
  const ObjectCache::Entry* Find(const ObjectId& id) const {
    auto it = values_.find(id);
    return it == values_.end() ? nullptr : &it->second;
  }
  // Freed: true if `id` was a direct result (the raylet never saw it).
  bool Forget(const ObjectId& id) { return pending_.erase(id) > 0 || values_.erase(id) > 0; }
  // The raylet answers for these from now on (the call went through it again).
  void HandOver(const std::vector<ObjectId>& ids) {
    for (const ObjectId& id : ids) pending_.erase(id);
  }

 private:
  std::unordered_set<ObjectId, IdHash> pending_;
  std::unordered_map<ObjectId, ObjectCache::Entry, IdHash> values_;
};

}  // namespace ray::core
