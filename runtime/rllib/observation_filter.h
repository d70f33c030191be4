#pragma once
// RLlib's observation filters (rllib/utils/filter.py, catalog RL-050) and the pure
// part of its FilterManager.
//
// MeanStdFilter keeps a RunningStat of every observation it sees (Welford's
// algorithm, element-wise) and maps x to (x - mean) / (std + 1e-8), as RLlib's
// MeanStdFilter(shape, clip=None) that `observation_filter: MeanStdFilter` makes.
// std is sqrt(S / (n - 1)) for n > 1, |mean| for n <= 1 (RLlib's RunningStat.var).
//
// Distributed use (RLlib's FilterManager.synchronize, once per training iteration):
// each worker's filter also keeps a `buffer` of the observations seen since it was
// last flushed. The trainer collects every worker's state (flushing the buffers),
// merges the buffers into its own filter (Merge), and sends its filter back to every
// worker (SyncFrom), so that all workers normalise alike with statistics of every
// worker's observations.
//
// Not thread-safe.

#include <cstdint>
#include <string>
#include <vector>

#include <msgpack.hpp>
#include <nlohmann/json.hpp>

#include "runtime/base/status.h"

namespace ray::rllib {

// Running count, mean and sum of squared deviations of vectors of a fixed size.
class RunningStat {
 public:
  RunningStat() = default;  // size 0
  explicit RunningStat(size_t size) : mean_(size, 0.0), s_(size, 0.0) {}

  void Push(const float* x);
  // Folds in another stat of the same size (Chan et al.'s parallel update).
  void Merge(const RunningStat& other);

  int64_t count() const { return n_; }
  size_t size() const { return mean_.size(); }
  const std::vector<double>& mean() const { return mean_; }
  std::vector<double> Std() const;

  nlohmann::json ToJson() const;
  static Result<RunningStat> FromJson(const nlohmann::json& j);
  MSGPACK_DEFINE_ARRAY(n_, mean_, s_);

 private:
  int64_t n_ = 0;
  std::vector<double> mean_;
  std::vector<double> s_;  // sum of squared deviations from the mean
};

// What a worker's filter reports and receives: the whole statistics and those of the
// observations since the last flush. Both empty (size 0) for NoFilter.
struct FilterState {
  RunningStat rs;
  RunningStat buffer;
  MSGPACK_DEFINE_ARRAY(rs, buffer);
};

class MeanStdFilter {
 public:
  explicit MeanStdFilter(size_t size) : rs_(size), buffer_(size) {}

  // Normalises `x` (size() floats) in place; with update, pushes it first.
  void Apply(float* x, bool update);

  size_t size() const { return rs_.size(); }
  const RunningStat& stat() const { return rs_; }
  // The state, clearing the buffer when flush.
  FilterState GetState(bool flush);
  // RLlib's apply_changes: folds a worker's new observations into this filter.
  Status Merge(const FilterState& worker);
  // RLlib's sync: takes the statistics of `master`; the buffer starts empty.
  Status SyncFrom(const FilterState& master);

  // A checkpoint's form: {"n", "mean", "s"}; FromJson checks the size.
  nlohmann::json ToJson() const { return rs_.ToJson(); }
  Status FromJson(const nlohmann::json& j);

 private:
  Status CheckSize(const RunningStat& s, const char* what) const;

  RunningStat rs_;
  RunningStat buffer_;
};

}  // namespace ray::rllib
