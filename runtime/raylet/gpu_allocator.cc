#include "runtime/raylet/gpu_allocator.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace ray::raylet {

std::vector<int> GpuGrant::ids() const {
  std::vector<int> out;
  for (const auto& [id, share] : shares) out.push_back(id);
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<int> GpuAllocator::NodeGpuIds(double num_gpus, const char* cuda_visible_devices) {
  size_t wanted = num_gpus > 0 ? static_cast<size_t>(std::ceil(num_gpus - 1e-9)) : 0;
  std::vector<int> ids;
  if (cuda_visible_devices != nullptr) {
    std::stringstream in(cuda_visible_devices);
    std::string item;
    while (ids.size() < wanted && std::getline(in, item, ',')) {
      try {
        size_t used = 0;
        int id = std::stoi(item, &used);
        if (used == item.size() && id >= 0 &&
            std::find(ids.begin(), ids.end(), id) == ids.end()) {
          ids.push_back(id);
        }
      } catch (const std::exception&) {
        // Not an integer id (e.g. a GPU UUID): skipped.
      }
    }
  }
  int next = ids.empty() ? 0 : *std::max_element(ids.begin(), ids.end()) + 1;
  while (ids.size() < wanted) ids.push_back(next++);
  return ids;
}

GpuAllocator::GpuAllocator(std::vector<int> ids) : ids_(std::move(ids)), free_(ids_.size(), kUnit) {}

std::optional<GpuGrant> GpuAllocator::Plan(double amount) const {
  GpuGrant grant;
  if (!(amount > 0)) return grant;
  int64_t units = std::llround(amount * kUnit);
  int64_t whole = units / kUnit, part = units % kUnit;
  std::vector<bool> taken(ids_.size(), false);
  for (size_t i = 0; i < ids_.size() && whole > 0; ++i) {
    if (free_[i] == kUnit) {
      taken[i] = true;
      grant.shares.emplace_back(ids_[i], kUnit);
      --whole;
    }
  }
  if (whole > 0) return std::nullopt;
  if (part > 0) {
    std::optional<size_t> best;
    for (size_t i = 0; i < ids_.size(); ++i) {
      if (taken[i] || free_[i] < part) continue;
      if (!best || free_[i] < free_[*best]) best = i;
    }
    if (!best) return std::nullopt;
    grant.shares.emplace_back(ids_[*best], part);
  }
  return grant;
}

bool GpuAllocator::CanAcquire(double amount) const { return Plan(amount).has_value(); }

std::optional<GpuGrant> GpuAllocator::Acquire(double amount) {
  auto grant = Plan(amount);
  if (!grant) return std::nullopt;
  for (const auto& [id, share] : grant->shares) {
    auto it = std::find(ids_.begin(), ids_.end(), id);
    free_[it - ids_.begin()] -= share;
  }
  return grant;
}

void GpuAllocator::Release(const GpuGrant& grant) {
  for (const auto& [id, share] : grant.shares) {
    auto it = std::find(ids_.begin(), ids_.end(), id);
    if (it == ids_.end()) continue;
    int64_t& f = free_[it - ids_.begin()];
    f = std::min(kUnit, f + share);
  }
}

std::string JoinGpuIds(const std::vector<int>& ids) {
  std::string out;
  for (int id : ids) out += (out.empty() ? "" : ",") + std::to_string(id);
  return out;
}

}  // namespace ray::raylet
