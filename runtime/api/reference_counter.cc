#include "runtime/api/reference_counter.h"

namespace ray::core {

void ReferenceCounter::Own(const ObjectId& id, bool direct) {
  std::lock_guard<std::mutex> lock(mu_);
  Ref& r = refs_[id];
  r.owned = true;
  r.direct = direct;
}

void ReferenceCounter::RefDelta(const ObjectId& id, int32_t delta) {
  std::lock_guard<std::mutex> lock(mu_);
  auto [it, inserted] = refs_.try_emplace(id);
  it->second.refs += delta;
  if (delta > 0) it->second.referenced = true;
  Changed(id, it, inserted);
}

void ReferenceCounter::CallDelta(const ObjectId& id, int32_t delta) {
  std::lock_guard<std::mutex> lock(mu_);
  auto [it, inserted] = refs_.try_emplace(id);
  it->second.calls += delta;
  Changed(id, it, inserted);
}

void ReferenceCounter::Changed(const ObjectId& id,
                               std::unordered_map<ObjectId, Ref, IdHash>::iterator it,
                               bool inserted) {
  Ref& r = it->second;
  const bool held = r.refs > 0 || r.calls > 0;
  if (r.owned) {
    if (!held && r.referenced) unreferenced_.push_back(id);
    return;
  }
  if (inserted && !held) {  // an owned object freed and forgotten already
    refs_.erase(it);
    return;
  }
  if (!held || !r.registered) borrow_changes_.push_back(id);
}

void ReferenceCounter::RefEscaped(const ObjectId& id) {
  std::lock_guard<std::mutex> lock(mu_);
  contained_[std::this_thread::get_id()].insert(id);
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

std::vector<ObjectId> ReferenceCounter::TakeContained() {
  std::lock_guard<std::mutex> lock(mu_);
  auto mine = contained_.find(std::this_thread::get_id());
  if (mine == contained_.end()) return {};
  std::vector<ObjectId> ids(mine->second.begin(), mine->second.end());
  for (const ObjectId& id : ids) ++in_transit_[id];
  contained_.erase(mine);
  return ids;
}

void ReferenceCounter::CarrierSent(const std::vector<ObjectId>& ids) {
  if (ids.empty()) return;
  std::lock_guard<std::mutex> lock(mu_);
  for (const ObjectId& id : ids) {
    auto it = in_transit_.find(id);
    if (it != in_transit_.end() && --it->second <= 0) in_transit_.erase(it);
  }
}

ReferenceCounter::Changes ReferenceCounter::TakeChanges(bool all) {
  Changes c;
  std::lock_guard<std::mutex> lock(mu_);
  if (!borrow_changes_.empty()) {
    std::vector<ObjectId> later;
    for (const ObjectId& id : borrow_changes_) {
      auto it = refs_.find(id);  // (an id may be listed twice: the second finds it settled)
      if (it == refs_.end() || it->second.owned) continue;
      Ref& r = it->second;
      if (r.refs > 0 || r.calls > 0) {
        if (!r.registered) c.borrowed.push_back(id);
        r.registered = true;
      } else if (HeldBack(id)) {
        later.push_back(id);
      } else {
        if (r.registered) c.unborrowed.push_back(id);
        refs_.erase(it);
      }
    }
    borrow_changes_.swap(later);
  }
  if (unreferenced_.empty() || (!all && unreferenced_.size() < kFreeBatch)) return c;
  std::vector<ObjectId> later;
  for (const ObjectId& id : unreferenced_) {
    // Only if still unreferenced: a raw id may have become an ObjectRef again.
    auto it = refs_.find(id);
    if (it == refs_.end() || it->second.refs > 0 || it->second.calls > 0) continue;
    if (HeldBack(id)) {
      later.push_back(id);
      continue;
    }
    c.freed.push_back(id);
    c.freed_escaped.push_back(it->second.escaped);
    refs_.erase(it);
  }
  unreferenced_.swap(later);
  return c;
}

bool ReferenceCounter::BorrowsPending() const {
  std::lock_guard<std::mutex> lock(mu_);
  for (const ObjectId& id : borrow_changes_) {
    auto it = refs_.find(id);
    if (it != refs_.end() && !it->second.owned && !it->second.registered &&
        (it->second.refs > 0 || it->second.calls > 0)) {
      return true;
    }
  }
  return false;
}

std::vector<ObjectId> ReferenceCounter::TakeEscapedDirect() {
  std::vector<ObjectId> ids;
  std::lock_guard<std::mutex> lock(mu_);
  ids.swap(to_promote_);
  return ids;
}

}  // namespace ray::core
