#pragma once
// Experience replay as RLlib 0.7's ReplayBuffer and PrioritizedReplayBuffer (after
// OpenAI baselines; prioritized: Schaul et al. 2015, "Prioritized Experience Replay").
//
// A buffer holds up to `capacity` transitions (obs, action, reward, new_obs, done);
// once full, each new one overwrites the oldest (a ring). Sample(n) draws n rows
// with replacement:
//  * ReplayBuffer: uniformly; every weight 1.
//  * PrioritizedReplayBuffer: row i with probability p_i^alpha / sum_k p_k^alpha
//    (a sum tree), with importance weight (N * P(i))^-beta normalised by the largest
//    possible weight, (N * P_min)^-beta (a min tree), N the rows stored. A new row
//    gets the largest priority seen so far (1 at first); UpdatePriorities sets rows'
//    priorities (RLlib: |td_error| + prioritized_replay_eps).
// The sampled batch has columns obs, actions, rewards, new_obs, terminateds (done)
// and weights; ReplaySample::indexes names the slots for UpdatePriorities. Seeded,
// so a run is reproducible. Pure code, not thread-safe.

#include <cstdint>
#include <random>
#include <vector>

#include <ray/rllib/sample_batch.h>

#include "runtime/rllib/replay/segment_tree.h"

namespace ray::rllib {

struct ReplaySample {
  SampleBatch batch;
  std::vector<int64_t> indexes;  // the slot each row came from
};

class ReplayBuffer {
 public:
  // capacity > 0, else std::invalid_argument.
  ReplayBuffer(int64_t capacity, uint64_t seed);
  virtual ~ReplayBuffer() = default;

  // Adds every row of `batch`, which needs obs, actions, rewards, terminateds and
  // new_obs; widths must match the rows already stored (std::invalid_argument).
  void Add(const SampleBatch& batch);
  // n rows drawn with replacement; std::invalid_argument if the buffer is empty or
  // n <= 0. `beta` is used by the prioritized buffer only.
  virtual ReplaySample Sample(int64_t n, double beta = 0.0);

  int64_t size() const { return size_; }
  int64_t capacity() const { return capacity_; }
  int64_t num_added() const { return num_added_; }

 protected:
  // Called with each slot a new row was written to.
  virtual void OnAdd(int64_t slot) {}
  SampleBatch Gather(const std::vector<int64_t>& slots) const;
  int64_t next_slot() const { return next_; }
  std::mt19937_64& rng() { return rng_; }

 private:
  int64_t capacity_;
  int64_t size_ = 0;
  int64_t next_ = 0;  // the slot the next row goes to
  int64_t num_added_ = 0;
  int32_t obs_dim_ = 0, action_dim_ = 0;
  std::vector<float> obs_, new_obs_, actions_, rewards_;
  std::vector<int32_t> dones_;
  std::mt19937_64 rng_;
};

class PrioritizedReplayBuffer : public ReplayBuffer {
 public:
  // alpha >= 0 (0: uniform), else std::invalid_argument.
  PrioritizedReplayBuffer(int64_t capacity, double alpha, uint64_t seed);

  // Proportional sampling; beta > 0 (RLlib asserts it), else std::invalid_argument.
  ReplaySample Sample(int64_t n, double beta) override;
  // priorities[k] > 0 for slot indexes[k] (a stored slot), else std::invalid_argument.
  void UpdatePriorities(const std::vector<int64_t>& indexes, const std::vector<double>& priorities);
  // Add, with the rows' priorities taken from batch.weights (RLlib's ReplayActor with
  // worker-side prioritization) when the batch has them.
  void AddWithPriorities(const SampleBatch& batch);

  double max_priority() const { return max_priority_; }
  // priority^alpha of a slot (for tests).
  double PriorityAlpha(int64_t slot) const { return sum_.Get(slot); }

 protected:
  void OnAdd(int64_t slot) override;

 private:
  double alpha_;
  double max_priority_ = 1.0;
  SumSegmentTree sum_;
  MinSegmentTree min_;
};

}  // namespace ray::rllib
