#pragma once
// ReplayShard: RLlib 0.7's ReplayActor, one shard of Ape-X's replay memory, hosted by
// an actor (AsyncReplayOptimizer creates num_replay_buffer_shards of them). It holds a
// PrioritizedReplayBuffer of buffer_size / num_shards rows:
//  * Add(batch): every row, with priority |TD error| + prioritized_replay_eps when the
//    rollout worker put the row's TD error in batch.weights (worker-side
//    prioritization), else the largest priority seen so far;
//  * Replay(): once the shard holds learning_starts / num_shards rows, a
//    train_batch_size sample (beta fixed at prioritized_replay_beta, as RLlib's
//    ReplayActor) and the slots it came from; before that, not ready;
//  * UpdatePriorities(slots, td_errors): |td| + prioritized_replay_eps each.
// A TD error that is not finite leaves its row's priority as it was (Add: the
// largest so far), so a diverging learner cannot corrupt the shard's sum tree.
// Header-only (it is an actor class of every algorithm plugin); not thread-safe.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <vector>

#include <msgpack.hpp>
#include <ray/rllib/sample_batch.h>

#include "runtime/rllib/replay/replay_buffer.h"

namespace ray::rllib {

struct ReplayShardOptions {
  int64_t capacity = 50000;       // rows this shard holds
  int64_t learning_starts = 1000;  // rows this shard holds before it replays
  int64_t train_batch_size = 512;
  double alpha = 0.6;
  double beta = 0.4;
  double eps = 1e-6;
  uint64_t seed = 0;
  MSGPACK_DEFINE_MAP(capacity, learning_starts, train_batch_size, alpha, beta, eps, seed);
};

struct ReplayedBatch {
  bool ready = false;  // false until the shard holds learning_starts rows
  SampleBatch batch;
  std::vector<int64_t> indexes;  // the slot of each row, for UpdatePriorities
  MSGPACK_DEFINE_MAP(ready, batch, indexes);
};

class ReplayShard {
 public:
  static ReplayShard* Create(ReplayShardOptions options) { return new ReplayShard(options); }

  int64_t Add(SampleBatch batch) {
    for (float& td : batch.weights) td = std::abs(td) + static_cast<float>(options_.eps);
    // A worker's diverged TD error (NaN, inf) would poison the sum tree: its rows
    // get the largest priority so far instead.
    if (!std::all_of(batch.weights.begin(), batch.weights.end(), [](float p) { return std::isfinite(p); })) {
      batch.weights.clear();
    }
    buffer_.AddWithPriorities(batch);
    return buffer_.size();
  }
  ReplayedBatch Replay() {
    ReplayedBatch out;
    if (buffer_.size() < options_.learning_starts || buffer_.size() == 0) return out;
    ReplaySample s = buffer_.Sample(options_.train_batch_size, options_.beta);
    out.ready = true;
    out.batch = std::move(s.batch);
    out.indexes = std::move(s.indexes);
    return out;
  }
  bool UpdatePriorities(std::vector<int64_t> indexes, std::vector<float> td_errors) {
    std::vector<int64_t> slots;
    std::vector<double> priorities;
    for (size_t k = 0; k < td_errors.size() && k < indexes.size(); ++k) {
      const double p = std::abs(static_cast<double>(td_errors[k])) + options_.eps;
      if (!std::isfinite(p)) continue;  // a diverged TD error leaves the row's priority
      slots.push_back(indexes[k]);
      priorities.push_back(p);
    }
    buffer_.UpdatePriorities(slots, priorities);
    return slots.size() == indexes.size() && indexes.size() == td_errors.size();
  }

 private:
  explicit ReplayShard(const ReplayShardOptions& o)
      : options_(o), buffer_(o.capacity, o.alpha, o.seed) {}
  ReplayShardOptions options_;
  PrioritizedReplayBuffer buffer_;
};

}  // namespace ray::rllib
