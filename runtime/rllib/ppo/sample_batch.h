#pragma once
// SampleBatch: RLlib's columnar trajectory batch, as plain vectors so it can travel
// between processes (msgpack map keyed by RLlib's column names) without torch.
//
// Row i of a column with width w occupies elements [i*w, (i+1)*w). Discrete actions
// are stored as their index in the float `actions` column (exact below 2^24), so one
// layout serves Discrete and Box spaces. Not thread-safe; a value type.

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <msgpack.hpp>

#include "runtime/base/status.h"

namespace ray::rllib {

struct SampleBatch {
  int32_t obs_dim = 0;     // floats per row of `obs`
  int32_t action_dim = 1;  // floats per row of `actions` (1 for Discrete)
  int32_t dist_dim = 0;    // floats per row of `action_dist_inputs`

  std::vector<float> obs;                 // observation the action was taken in
  std::vector<float> actions;             // action taken
  std::vector<float> rewards;             // reward received for it
  std::vector<int32_t> terminateds;       // 1: the env terminated after this step
  std::vector<int32_t> truncateds;        // 1: the episode was cut (time limit)
  std::vector<float> action_dist_inputs;  // behaviour policy's distribution inputs
  std::vector<float> action_logp;         // behaviour policy's log-prob of the action
  std::vector<float> vf_preds;            // behaviour policy's value estimate
  std::vector<int64_t> eps_id;            // episode id, equal along one episode
  std::vector<float> advantages;          // filled by postprocessing (else empty)
  std::vector<float> value_targets;       // filled by postprocessing (else empty)

  MSGPACK_DEFINE_MAP(obs_dim, action_dim, dist_dim, obs, actions, rewards, terminateds,
                     truncateds, action_dist_inputs, action_logp, vf_preds, eps_id,
                     advantages, value_targets);

  // Rows (the length of `rewards`).
  int64_t size() const { return static_cast<int64_t>(rewards.size()); }
  bool postprocessed() const { return !advantages.empty() || size() == 0; }

  // Checks every column has size() rows of its width; advantages/value_targets
  // may be empty (not yet postprocessed). DataLoss names the offending column.
  Status Validate() const;

  // Rows [begin, end) as a new batch. Requires 0 <= begin <= end <= size().
  SampleBatch Slice(int64_t begin, int64_t end) const;
  // Rows in the given order (indices may repeat). Requires every index < size().
  SampleBatch Gather(const std::vector<int64_t>& rows) const;
  // Reorders rows by a uniformly random permutation drawn from `rng`.
  void Shuffle(std::mt19937_64& rng);

  // Appends `other`'s rows. InvalidArgument if widths differ or only one side is
  // postprocessed; an empty batch adopts `other`'s widths.
  Status Append(const SampleBatch& other);
  // All rows of `batches`, in order.
  static Result<SampleBatch> Concat(const std::vector<SampleBatch>& batches);
};

}  // namespace ray::rllib
