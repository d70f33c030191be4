#pragma once
// DDPGPolicy: RLlib 0.7's DDPG policy (Lillicrap et al. 2015) with the TD3 options
// (Fujimoto et al. 2018) twin_q, policy_delay and smooth_target_policy, on a Box
// action space. The TD3 plugin runs it with DDPGConfig::TD3Defaults().
//
//  * Actor: obs -> actor_hiddens -> d, squashed by a sigmoid onto the Box's bounds
//    (low + sigmoid(x) (high - low)). Critic(s): Q(obs, a in [-1, 1]) ->
//    critic_hiddens -> 1. Target copies of all, updated by tau.
//  * ComputeActions with explore: uniformly random actions in the bounds for the first
//    pure_exploration_steps env steps (the global timestep); after that the actor's
//    action plus noise, clipped to the bounds: Ornstein-Uhlenbeck,
//    scale * exploration_ou_noise_scale * x_t * (high - low) (exploration_noise.h;
//    one process per row and dimension), or Gaussian, scale * N(0,
//    exploration_gaussian_sigma); scale = config.NoiseScaleAt(timestep). Without
//    explore: the actor's action.
//  * One learn step: a' = target actor(s') (smoothed: TD3's clipped noise
//    target_noise / target_noise_clip, clipped to the bounds); target = r +
//    gamma^n_step (1 - done) min_i Q_i^target(s', a'); critic loss = mean(w
//    sum_i err(Q_i(s, a) - target)) + l2_reg l2(critic weights), err huber
//    (use_huber, huber_threshold) or 0.5 x^2; actor loss = -mean(Q_1(s, actor(s))) +
//    l2_reg l2(actor weights), stepped every policy_delay-th learn step only.
//    Adam at critic_lr / actor_lr. |td| = |Q_1 - target|. Stats: critic_loss,
//    actor_loss, mean_q, max_q, min_q, noise_scale.
// Torch-free header.

#include <memory>

#include "algorithms/ddpg/ddpg_config.h"
#include "runtime/rllib/policy/continuous_policy.h"

namespace ray::rllib {

class DDPGPolicy : public ContinuousReplayPolicy {
 public:
  // InvalidArgument for a Discrete action space, missing bounds or a bad config.
  static Result<std::unique_ptr<DDPGPolicy>> Create(const PolicySpec& spec, const DDPGConfig& config);
  ~DDPGPolicy() override;

  ActionBatch ComputeActions(const std::vector<float>& obs, bool explore = true) override;

 protected:
  LossStep Losses(const ReplayTensors& batch) override;
  std::vector<bool> GroupsToStep() const override;

 private:
  DDPGPolicy(const PolicySpec& spec, const DDPGConfig& config);
  struct Nets;

  DDPGConfig config_;
  std::unique_ptr<Nets> ddpg_;
};

}  // namespace ray::rllib
