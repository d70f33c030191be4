#include "runtime/worker/pending_calls.h"

namespace ray::worker {

namespace {
void Free(RayResult& r) {
  if (r.free_fn) r.free_fn(r.data);
}
}  // namespace

PendingCalls::~PendingCalls() {
  for (auto& [id, r] : early_) Free(r);
}

PendingCalls::Ready PendingCalls::Pend(uint64_t id, Call call) {
  auto early = early_.find(id);
  if (early == early_.end()) {
    waiting_.emplace(id, std::move(call));
    return std::nullopt;
  }
  RayResult r = early->second;
  early_.erase(early);
  return std::make_pair(std::move(call), r);
}

PendingCalls::Ready PendingCalls::Complete(uint64_t id, RayResult result) {
  auto it = waiting_.find(id);
  if (it != waiting_.end()) {
    Call call = std::move(it->second);
    waiting_.erase(it);
    return std::make_pair(std::move(call), result);
  }
  if (id != 0 && id <= last_started_ && !early_.count(id)) {
    early_.emplace(id, result);  // its invoke has not returned yet
  } else {
    Free(result);
  }
  return std::nullopt;
}

}  // namespace ray::worker
