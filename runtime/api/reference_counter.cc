#include "runtime/api/reference_counter.h"

namespace ray::core {

void ReferenceCounter::Own(const ObjectId& id, bool direct) {
  std::lock_guard<std::mutex> lock(mu_);
  refs_.try_emplace(id).first->second.direct = direct;
}

void ReferenceCounter::RefDelta(const ObjectId& id, int32_t delta) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = refs_.find(id);
  if (it == refs_.end()) return;
  it->second.refs += delta;
  if (it->second.refs <= 0 && !it->second.escaped) unreferenced_.push_back(id);
}

void ReferenceCounter::RefEscaped(const ObjectId& id) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = refs_.find(id);
  if (it == refs_.end() || it->second.escaped) return;
  it->second.escaped = true;
  if (it->second.direct) to_promote_.push_back(id);
}

void ReferenceCounter::ClearDirect(const std::vector<ObjectId>& ids) {
  std::lock_guard<std::mutex> lock(mu_);
  for (const ObjectId& id : ids) {
    if (auto it = refs_.find(id); it != refs_.end()) it->second.direct = false;
  }
}

std::vector<ObjectId> ReferenceCounter::TakeUnreferenced(bool all) {
  std::vector<ObjectId> ids;
  std::lock_guard<std::mutex> lock(mu_);
  if (unreferenced_.empty() || (!all && unreferenced_.size() < kFreeBatch)) return ids;
  for (const ObjectId& id : unreferenced_) {
    // Only if still unreferenced: a raw id may have become an ObjectRef again.
    auto it = refs_.find(id);
    if (it == refs_.end() || it->second.refs > 0 || it->second.escaped) continue;
    refs_.erase(it);
    ids.push_back(id);
  }
  unreferenced_.clear();
  return ids;
}

std::vector<ObjectId> ReferenceCounter::TakeEscapedDirect() {
  std::vector<ObjectId> ids;
  std::lock_guard<std::mutex> lock(mu_);
  ids.swap(to_promote_);
  return ids;
}

}  // namespace ray::core
