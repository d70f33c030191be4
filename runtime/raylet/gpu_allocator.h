#pragma once
// Which of a node's GPUs each task or actor holds, so that it can be told (through
// CUDA_VISIBLE_DEVICES and ray::GetGpuIds) which devices are its own. The raylet's
// ResourceSet counts how much "GPU" is free; this class decides which ids.
//
// Policy (Ray's): the integer part of a request gets that many whole GPUs, each
// entirely free, lowest ids first; a fractional part (0.5 of `GPU: 1.5`, or all of
// `GPU: 0.25`) gets a share of one more GPU, chosen best-fit: the GPU with the least
// free capacity that still holds the share (ties: lowest id), so fractions pack
// together and whole GPUs stay free for whole requests. Shares are fixed point
// (1/10000 of a GPU), as ResourceSet's amounts are. Not thread-safe (the raylet loop
// owns it).

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ray::raylet {

// What one task or actor holds: (gpu id, share in 1/10000 of a GPU) pairs.
struct GpuGrant {
  std::vector<std::pair<int, int64_t>> shares;
  bool empty() const { return shares.empty(); }
  // The ids, ascending.
  std::vector<int> ids() const;
};

class GpuAllocator {
 public:
  static constexpr int64_t kUnit = 10000;

  // The GPU ids of a node with `num_gpus` GPUs: the first ceil(num_gpus) entries of
  // `cuda_visible_devices` (a comma-separated id list, as the raylet found it in its
  // environment; null or "" if unset), else 0..ceil(num_gpus)-1. A list shorter than
  // that is extended past its largest id (declared GPUs may exceed real ones).
  static std::vector<int> NodeGpuIds(double num_gpus, const char* cuda_visible_devices);

  explicit GpuAllocator(std::vector<int> ids);

  // Grants `amount` GPUs per the policy above, or nullopt if the free capacity
  // cannot hold it now (an empty grant for amount <= 0).
  std::optional<GpuGrant> Acquire(double amount);
  bool CanAcquire(double amount) const;
  // Returns a grant's shares; each grant is released once.
  void Release(const GpuGrant& grant);
  const std::vector<int>& ids() const { return ids_; }

 private:
  std::optional<GpuGrant> Plan(double amount) const;

  std::vector<int> ids_;
  std::vector<int64_t> free_;  // per index of ids_, in kUnit
};

// "0,1" for CUDA_VISIBLE_DEVICES.
std::string JoinGpuIds(const std::vector<int>& ids);

}  // namespace ray::raylet
