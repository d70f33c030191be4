#include "runtime/scheduler/resources.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace ray::scheduler {

ResourceSet ResourceSet::FromDoubles(const std::map<std::string, double>& amounts) {
  ResourceSet s;
  // Bounded so that sums of a few sets cannot overflow (llround of an out-of-range
  // or non-finite value is unspecified).
  constexpr double kMaxUnits = 1e15;
  for (const auto& [name, amount] : amounts) {
    if (!std::isfinite(amount)) continue;
    auto units = static_cast<int64_t>(std::llround(std::min(amount * kUnit, kMaxUnits)));
    if (units > 0) s.amounts_[name] = units;
  }
  return s;
}

std::map<std::string, double> ResourceSet::ToDoubles() const {
  std::map<std::string, double> out;
  for (const auto& [name, units] : amounts_) out[name] = static_cast<double>(units) / kUnit;
  return out;
}

bool ResourceSet::Contains(const ResourceSet& request) const {
  for (const auto& [name, units] : request.amounts_) {
    auto it = amounts_.find(name);
    if (it == amounts_.end() || it->second < units) return false;
  }
  return true;
}

void ResourceSet::Add(const ResourceSet& other) {
  for (const auto& [name, units] : other.amounts_) amounts_[name] += units;
}

void ResourceSet::AddUpTo(const ResourceSet& other, const ResourceSet& cap) {
  for (const auto& [name, units] : other.amounts_) {
    auto limit = cap.amounts_.find(name);
    if (limit == cap.amounts_.end()) continue;  // (none may be added)
    int64_t& have = amounts_[name];
    have = std::max(have, std::min(have + units, limit->second));
  }
}

void ResourceSet::Subtract(const ResourceSet& other) {
  for (const auto& [name, units] : other.amounts_) amounts_[name] -= units;
}

void ResourceSet::DropZerosOf(const ResourceSet& names) {
  for (const auto& [name, units] : names.amounts_) {
    auto it = amounts_.find(name);
    if (it != amounts_.end() && it->second == 0) amounts_.erase(it);
  }
}

double ResourceSet::Amount(const std::string& name) const {
  auto it = amounts_.find(name);
  return it == amounts_.end() ? 0.0 : static_cast<double>(it->second) / kUnit;
}

ResourceSet ResourceSet::CpuOnly() const {
  ResourceSet s;
  for (const auto& [name, units] : amounts_) {
    if (name == "CPU" || name.rfind("CPU_group_", 0) == 0) s.amounts_[name] = units;
  }
  return s;
}

std::string ResourceSet::ToString() const {
  std::string out = "{";
  for (const auto& [name, units] : amounts_) {
    if (out.size() > 1) out += ", ";
    // Shortest exact form: 2, 0.5, 2147483648 ({:g} would round to 6 digits).
    out += fmt::format("\"{}\": {}", name, static_cast<double>(units) / kUnit);
  }
  return out + "}";
}

}  // namespace ray::scheduler
