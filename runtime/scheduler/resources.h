#pragma once
// Resource quantities in fixed point (1/10000 of a unit), so that fractional
// requests such as 0.5 GPU add up and subtract exactly.

#include <compare>
#include <cstdint>
#include <map>
#include <string>

namespace ray::scheduler {

class ResourceSet {
 public:
  static constexpr int64_t kUnit = 10000;

  ResourceSet() = default;
  // Zero, negative and non-finite amounts are dropped; amounts are capped at 1e11.
  static ResourceSet FromDoubles(const std::map<std::string, double>& amounts);
  std::map<std::string, double> ToDoubles() const;

  // True if every amount in `request` is available here.
  bool Contains(const ResourceSet& request) const;
  // Adds or subtracts amounts; subtraction may go below zero (an overcommit that a
  // blocked worker's reacquisition is allowed to cause).
  void Add(const ResourceSet& other);
  void Subtract(const ResourceSet& other);
  // Adds `other`, keeping each amount at most what `cap` has of it.
  void AddUpTo(const ResourceSet& other, const ResourceSet& cap);
  // Removes the entries named in `names` that are exactly zero (resources a node
  // stopped having, such as a released bundle's).
  void DropZerosOf(const ResourceSet& names);
  // The amount of one resource (0 if absent).
  double Amount(const std::string& name) const;
  // Only the CPUs of this set: "CPU", and a placement group's CPUs ("CPU_group_...":
  // what a task in a bundle holds instead), so that a task blocked in Get lends the
  // CPU it holds, in a group or not.
  ResourceSet CpuOnly() const;
  bool empty() const { return amounts_.empty(); }
  // {"CPU": 2, "GPU": 0.5}
  std::string ToString() const;
  // An order, so that sets can key maps (the raylet's queue per resource shape).
  auto operator<=>(const ResourceSet&) const = default;
  bool operator==(const ResourceSet&) const = default;

 private:
  std::map<std::string, int64_t> amounts_;
};

}  // namespace ray::scheduler
