#pragma once
// SampleBatch: RLlib's columnar trajectory batch, as plain vectors so it can travel
// between processes (msgpack map keyed by RLlib's column names) without torch. Part of
// the policy SDK (header-only): policies from plugins take and return it.
//
// Row i of a column with width w occupies elements [i*w, (i+1)*w). Discrete actions
// are stored as their index in the float `actions` column (exact below 2^24), so one
// layout serves Discrete and Box spaces. Not thread-safe; a value type. Misuse
// (inconsistent columns, mixing widths) throws std::invalid_argument naming it.

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <msgpack.hpp>

namespace ray::rllib {

struct SampleBatch {
  int32_t obs_dim = 0;     // floats per row of `obs`
  int32_t action_dim = 1;  // floats per row of `actions` (1 for Discrete)
  int32_t dist_dim = 0;    // floats per row of `action_dist_inputs`
  int32_t state_size = 0;  // floats per row of `state_in` (0: a stateless policy)

  std::vector<float> obs;                 // observation the action was taken in
  std::vector<float> actions;             // action taken
  std::vector<float> rewards;             // reward received for it
  std::vector<int32_t> terminateds;       // 1: the env terminated after this step
  std::vector<int32_t> truncateds;        // 1: the episode was cut (time limit)
  std::vector<float> action_dist_inputs;  // behaviour policy's distribution inputs
  std::vector<float> action_logp;         // behaviour policy's log-prob of the action
  std::vector<float> vf_preds;            // behaviour policy's value estimate (empty: no critic)
  std::vector<int64_t> eps_id;            // episode id, equal along one episode
  std::vector<float> advantages;          // filled by postprocessing (else empty)
  std::vector<float> value_targets;       // filled by postprocessing (else empty)
  // Off-policy columns (empty when unused): the observation after the step (DQN's
  // postprocessing fills it, n-step adjusted) and each row's importance weight
  // (prioritized replay).
  std::vector<float> new_obs;
  std::vector<float> weights;
  // Recurrent policies: the policy's state before each step (Policy::StateSize()).
  // Rows of one episode that are adjacent in a batch are consecutive steps, so a
  // learner can unroll a sequence from its first row's state.
  std::vector<float> state_in;

  MSGPACK_DEFINE_MAP(obs_dim, action_dim, dist_dim, state_size, obs, actions, rewards,
                     terminateds, truncateds, action_dist_inputs, action_logp, vf_preds,
                     eps_id, advantages, value_targets, new_obs, weights, state_in);

  // Rows (the length of `rewards`).
  int64_t size() const { return static_cast<int64_t>(rewards.size()); }
  bool postprocessed() const { return !advantages.empty() || size() == 0; }

  // Checks every column has size() rows of its width; advantages/value_targets
  // may be empty (not yet postprocessed), vf_preds, new_obs and weights too. Throws
  // std::invalid_argument naming the offending column.
  void Validate() const {
    const int64_t n = size();
    ForEachColumn([&](auto col, const char* name, WidthField w) {
      const auto& c = this->*col;
      const std::string_view column = name;
      const bool optional = column == "advantages" || column == "value_targets" ||
                            column == "vf_preds" || column == "new_obs" || column == "weights" ||
                            column == "state_in";
      if (optional && c.empty()) return;
      const int64_t want = n * Width(*this, w);
      if (static_cast<int64_t>(c.size()) != want) {
        throw std::invalid_argument(std::string("SampleBatch column '") + name + "' has " +
                                    std::to_string(c.size()) + " values, expected " +
                                    std::to_string(want));
      }
    });
  }

  // Rows [begin, end) as a new batch. Requires 0 <= begin <= end <= size().
  SampleBatch Slice(int64_t begin, int64_t end) const {
    SampleBatch out = EmptyLike();
    ForEachColumn([&](auto col, const char*, WidthField w) {
      const auto& src = this->*col;
      if (src.empty()) return;
      const int width = Width(*this, w);
      (out.*col).assign(src.begin() + begin * width, src.begin() + end * width);
    });
    return out;
  }

  // Rows in the given order (indices may repeat). Requires every index < size().
  SampleBatch Gather(const std::vector<int64_t>& rows) const {
    SampleBatch out = EmptyLike();
    ForEachColumn([&](auto col, const char*, WidthField w) {
      const auto& src = this->*col;
      if (src.empty()) return;
      const int width = Width(*this, w);
      auto& dst = out.*col;
      dst.reserve(rows.size() * width);
      for (int64_t r : rows) dst.insert(dst.end(), src.begin() + r * width, src.begin() + (r + 1) * width);
    });
    return out;
  }

  // Reorders rows by a uniformly random permutation drawn from `rng`.
  void Shuffle(std::mt19937_64& rng) {
    std::vector<int64_t> perm(size());
    std::iota(perm.begin(), perm.end(), 0);
    std::shuffle(perm.begin(), perm.end(), rng);
    *this = Gather(perm);
  }

  // Appends `other`'s rows; an empty batch adopts `other`'s widths. Throws
  // std::invalid_argument if widths differ or only one side is postprocessed.
  void Append(const SampleBatch& other) {
    if (other.size() == 0) return;
    if (size() == 0) {
      *this = other;
      return;
    }
    if (obs_dim != other.obs_dim || action_dim != other.action_dim || dist_dim != other.dist_dim ||
        state_size != other.state_size) {
      throw std::invalid_argument("SampleBatch::Append: column widths differ");
    }
    if (advantages.empty() != other.advantages.empty() ||
        value_targets.empty() != other.value_targets.empty()) {
      throw std::invalid_argument("SampleBatch::Append: cannot mix postprocessed and raw batches");
    }
    ForEachColumn([&](auto col, const char*, WidthField) {
      auto& dst = this->*col;
      const auto& src = other.*col;
      dst.insert(dst.end(), src.begin(), src.end());
    });
  }

  // All rows of `batches`, in order (RLlib's SampleBatch.concat_samples).
  static SampleBatch Concat(const std::vector<SampleBatch>& batches) {
    SampleBatch out;
    for (const SampleBatch& b : batches) out.Append(b);
    return out;
  }

 private:
  using WidthField = int32_t SampleBatch::*;
  static int Width(const SampleBatch& b, WidthField w) { return w ? b.*w : 1; }

  // Calls fn(member pointer, name, width field or null for a scalar column) per column.
  template <typename Fn>
  static void ForEachColumn(Fn&& fn) {
    fn(&SampleBatch::obs, "obs", &SampleBatch::obs_dim);
    fn(&SampleBatch::actions, "actions", &SampleBatch::action_dim);
    fn(&SampleBatch::rewards, "rewards", WidthField{});
    fn(&SampleBatch::terminateds, "terminateds", WidthField{});
    fn(&SampleBatch::truncateds, "truncateds", WidthField{});
    fn(&SampleBatch::action_dist_inputs, "action_dist_inputs", &SampleBatch::dist_dim);
    fn(&SampleBatch::action_logp, "action_logp", WidthField{});
    fn(&SampleBatch::vf_preds, "vf_preds", WidthField{});
    fn(&SampleBatch::eps_id, "eps_id", WidthField{});
    fn(&SampleBatch::advantages, "advantages", WidthField{});
    fn(&SampleBatch::value_targets, "value_targets", WidthField{});
    fn(&SampleBatch::new_obs, "new_obs", &SampleBatch::obs_dim);
    fn(&SampleBatch::weights, "weights", WidthField{});
    fn(&SampleBatch::state_in, "state_in", &SampleBatch::state_size);
  }

  SampleBatch EmptyLike() const {
    SampleBatch out;
    out.obs_dim = obs_dim;
    out.action_dim = action_dim;
    out.dist_dim = dist_dim;
    out.state_size = state_size;
    return out;
  }
};

}  // namespace ray::rllib
