#pragma once
// Test-only helpers for the PPO suite: a private CartPole-v1 transcription (the real
// Gymnasium-exact envs live in runtime/rllib/env/, written separately) and a
// synchronous vectorised sampler + train loop, i.e. single-process PPO without Ray.

#include <chrono>
#include <cmath>
#include <cstdint>
#include <deque>
#include <functional>
#include <numeric>
#include <random>
#include <vector>

#include "runtime/base/status.h"
#include <ray/rllib/sample_batch.h>

#include "algorithms/ppo/ppo_policy.h"
#include "runtime/rllib/policy/postprocessing.h"

namespace ray::rllib::ppo_testing {

// Gymnasium CartPole-v1 (cartpole.py, Euler integrator) with the TimeLimit(500)
// wrapper: reward 1 every step, terminated when |x| > 2.4 or |theta| > 12 degrees,
// truncated at step 500. Reset draws the state uniformly from [-0.05, 0.05]^4.
class CartPole {
 public:
  static constexpr int kObsDim = 4;
  static constexpr int kNumActions = 2;
  static constexpr int kMaxEpisodeSteps = 500;

  explicit CartPole(uint64_t seed) : rng_(seed) { Reset(); }

  void Reset() {
    std::uniform_real_distribution<double> u(-0.05, 0.05);
    for (double& v : state_) v = u(rng_);
    steps_ = 0;
  }

  struct StepResult {
    float reward;
    bool terminated;
    bool truncated;
  };

  StepResult Step(int action) {
    constexpr double kGravity = 9.8, kMassCart = 1.0, kMassPole = 0.1;
    constexpr double kTotalMass = kMassPole + kMassCart, kLength = 0.5;
    constexpr double kPoleMassLength = kMassPole * kLength, kForceMag = 10.0, kTau = 0.02;
    constexpr double kThetaThreshold = 12 * 2 * M_PI / 360, kXThreshold = 2.4;
    auto& [x, x_dot, theta, theta_dot] = state_;
    const double force = action == 1 ? kForceMag : -kForceMag;
    const double costheta = std::cos(theta), sintheta = std::sin(theta);
    const double temp = (force + kPoleMassLength * theta_dot * theta_dot * sintheta) / kTotalMass;
    const double thetaacc = (kGravity * sintheta - costheta * temp) /
                            (kLength * (4.0 / 3.0 - kMassPole * costheta * costheta / kTotalMass));
    const double xacc = temp - kPoleMassLength * thetaacc * costheta / kTotalMass;
    x += kTau * x_dot;
    x_dot += kTau * xacc;
    theta += kTau * theta_dot;
    theta_dot += kTau * thetaacc;
    ++steps_;
    const bool terminated = x < -kXThreshold || x > kXThreshold || theta < -kThetaThreshold ||
                            theta > kThetaThreshold;
    return {1.0f, terminated, steps_ >= kMaxEpisodeSteps};
  }

  void Observe(float* out) const {
    for (int i = 0; i < kObsDim; ++i) out[i] = static_cast<float>(state_[i]);
  }

 private:
  std::mt19937_64 rng_;
  double state_[4];
  int steps_ = 0;
};

struct TrainResult {
  bool solved = false;
  int64_t steps_to_target = -1;      // env steps when episode_reward_mean >= target
  int64_t timesteps_total = 0;
  double episode_reward_mean = 0;    // at the end (or when solved)
  double best_episode_reward_mean = 0;
  int iterations = 0;
  double wall_s = 0;
  double sample_s = 0;               // inference + env stepping + postprocessing
  double learn_s = 0;
  LearnerStats last_stats;
};

// Synchronous PPO: `num_envs` CartPoles stepped as one batch, fragments of
// train_batch_size / num_envs steps, GAE per episode fragment (bootstrapping from
// V(final obs) on truncation and at fragment ends), then one LearnOnBatch. Stops when
// the mean return of the last `metrics_smoothing_episodes` episodes reaches `target`
// or after `max_steps` env steps. `on_iter` (optional) sees each iteration.
inline Result<TrainResult> TrainCartPole(
    PPOPolicy& policy, int num_envs, int64_t max_steps, double target, uint64_t seed,
    const std::function<void(int, int64_t, double, const LearnerStats&)>& on_iter = {}) {
  using Clock = std::chrono::steady_clock;
  auto secs = [](Clock::time_point a, Clock::time_point b) {
    return std::chrono::duration<double>(b - a).count();
  };
  const PPOConfig& config = policy.config();
  const int obs_dim = CartPole::kObsDim;
  const int64_t fragment = std::max<int64_t>(1, config.train_batch_size / num_envs);
  const size_t window = config.metrics_smoothing_episodes;

  std::vector<CartPole> envs;
  for (int i = 0; i < num_envs; ++i) envs.emplace_back(seed * 1000 + i);
  std::vector<SampleBatch> open(num_envs);
  std::vector<float> episode_return(num_envs, 0.f);
  std::vector<int64_t> episode_id(num_envs);
  std::iota(episode_id.begin(), episode_id.end(), 0);
  int64_t next_episode_id = num_envs;
  std::deque<double> returns;
  std::vector<float> obs(num_envs * obs_dim);
  for (int i = 0; i < num_envs; ++i) envs[i].Observe(&obs[i * obs_dim]);

  TrainResult r;
  const auto t_start = Clock::now();
  while (r.timesteps_total < max_steps) {
    const auto t_sample = Clock::now();
    std::vector<SampleBatch> done;
    for (int64_t t = 0; t < fragment; ++t) {
      ActionBatch act = policy.ComputeActions(obs);
      std::vector<int> truncated_envs;
      std::vector<float> final_obs;
      for (int i = 0; i < num_envs; ++i) {
        SampleBatch& b = open[i];
        b.obs_dim = obs_dim;
        b.action_dim = 1;
        b.dist_dim = act.dist_dim;
        b.obs.insert(b.obs.end(), &obs[i * obs_dim], &obs[(i + 1) * obs_dim]);
        b.actions.push_back(act.actions[i]);
        b.action_dist_inputs.insert(b.action_dist_inputs.end(),
                                    &act.action_dist_inputs[i * act.dist_dim],
                                    &act.action_dist_inputs[(i + 1) * act.dist_dim]);
        b.action_logp.push_back(act.action_logp[i]);
        b.vf_preds.push_back(act.vf_preds[i]);
        b.eps_id.push_back(episode_id[i]);
        const auto step = envs[i].Step(static_cast<int>(act.actions[i]));
        b.rewards.push_back(step.reward);
        b.terminateds.push_back(step.terminated);
        b.truncateds.push_back(step.truncated && !step.terminated);
        episode_return[i] += step.reward;
        envs[i].Observe(&obs[i * obs_dim]);
        if (step.terminated || step.truncated) {
          if (!step.terminated) {
            truncated_envs.push_back(i);
            final_obs.insert(final_obs.end(), &obs[i * obs_dim], &obs[(i + 1) * obs_dim]);
          } else {
            policy.Postprocess(&b, {});
            done.push_back(std::move(b));
            b = SampleBatch();
          }
          returns.push_back(episode_return[i]);
          if (returns.size() > window) returns.pop_front();
          episode_return[i] = 0.f;
          episode_id[i] = next_episode_id++;
          envs[i].Reset();
          envs[i].Observe(&obs[i * obs_dim]);
        }
      }
      if (!truncated_envs.empty()) {
        // One batched value call for every truncated episode's final observation.
        std::vector<float> v = policy.ComputeValues(final_obs);
        const PPOConfig& c = policy.config();
        for (size_t k = 0; k < truncated_envs.size(); ++k) {
          SampleBatch& b = open[truncated_envs[k]];
          RAY_RETURN_IF_ERROR(
              ComputeGaeForTrajectory(&b, v[k], c.gamma, c.lambda, c.use_gae, c.use_critic));
          done.push_back(std::move(b));
          b = SampleBatch();
        }
      }
    }
    // Fragment ends mid-episode: bootstrap every open trajectory from V(current obs).
    std::vector<float> v = policy.ComputeValues(obs);
    for (int i = 0; i < num_envs; ++i) {
      if (open[i].size() == 0) continue;
      const PPOConfig& c = policy.config();
      RAY_RETURN_IF_ERROR(
          ComputeGaeForTrajectory(&open[i], v[i], c.gamma, c.lambda, c.use_gae, c.use_critic));
      done.push_back(std::move(open[i]));
      open[i] = SampleBatch();
    }
    SampleBatch batch = SampleBatch::Concat(done);
    const auto t_learn = Clock::now();
    r.sample_s += secs(t_sample, t_learn);
    r.timesteps_total += batch.size();
    r.last_stats = policy.LearnOnBatch(batch);
    r.learn_s += secs(t_learn, Clock::now());
    ++r.iterations;
    r.episode_reward_mean =
        returns.empty() ? 0.0
                        : std::accumulate(returns.begin(), returns.end(), 0.0) / returns.size();
    r.best_episode_reward_mean = std::max(r.best_episode_reward_mean, r.episode_reward_mean);
    if (on_iter) on_iter(r.iterations, r.timesteps_total, r.episode_reward_mean, r.last_stats);
    if (returns.size() >= window && r.episode_reward_mean >= target) {
      r.solved = true;
      r.steps_to_target = r.timesteps_total;
      break;
    }
  }
  r.wall_s = secs(t_start, Clock::now());
  return r;
}

}  // namespace ray::rllib::ppo_testing
