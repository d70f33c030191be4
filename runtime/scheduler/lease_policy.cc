#include "runtime/scheduler/lease_policy.h"

namespace ray::scheduler {

LeasePolicy::Answer LeasePolicy::Decide(const ResourceSet& shape, const LocalTaskQueue& queue,
                                        const ResourceSet& available) const {
  if (queue.Waiting(shape) || QueueWaitsForLeases(queue, available) ||
      shape.Amount("GPU") > 0) {
    return Answer::kNotNow;
  }
  return available.Contains(shape) ? Answer::kMayGrant : Answer::kBusy;
}

void LeasePolicy::Granted(const std::string& peer, const ResourceSet& shape) {
  leased_.Add(shape);
  unreclaimed_.insert(peer);
}

void LeasePolicy::Ended(const std::string& peer, const ResourceSet& held) {
  leased_.Subtract(held);
  unreclaimed_.erase(peer);
}

bool LeasePolicy::QueueWaitsForLeases(const LocalTaskQueue& queue,
                                      const ResourceSet& available) const {
  if (queue.empty()) return false;
  ResourceSet unleased = available;
  unleased.Add(leased_);
  bool waits = false;
  queue.ForEachShape([&](const ResourceSet& shape, size_t) {
    waits = waits || (!available.Contains(shape) && unleased.Contains(shape));
  });
  return waits;
}

std::vector<std::string> LeasePolicy::TakeToYield(const LocalTaskQueue& queue,
                                                  const ResourceSet& available) {
  std::vector<std::string> ask;
  if (unreclaimed_.empty() || !QueueWaitsForLeases(queue, available)) return ask;
  ask.assign(unreclaimed_.begin(), unreclaimed_.end());
  unreclaimed_.clear();
  return ask;
}

void LeasePolicy::Wanted(Want want) {
  for (const Want& w : wants_) {
    if (w.caller == want.caller && w.shape == want.shape) return;
  }
  wants_.push_back(std::move(want));
}

std::optional<LeasePolicy::Want> LeasePolicy::NextOffer(const LocalTaskQueue& queue,
                                                        const ResourceSet& available) const {
  for (const Want& w : wants_) {
    if (Decide(w.shape, queue, available) == Answer::kMayGrant) return w;
  }
  return std::nullopt;
}

void LeasePolicy::Offered(const std::string& caller, const ResourceSet& shape) {
  std::erase_if(wants_, [&](const Want& w) { return w.caller == caller && w.shape == shape; });
}

void LeasePolicy::Forget(const std::string& caller) {
  std::erase_if(wants_, [&](const Want& w) { return w.caller == caller; });
}

}  // namespace ray::scheduler
