#include "algorithms/ddpg/ddpg_policy.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>

#include "runtime/rllib/policy/continuous_policy_impl.h"
#include "runtime/rllib/policy/exploration_noise.h"
#include "runtime/rllib/policy/torch_policy_impl.h"

namespace ray::rllib {

struct DDPGPolicy::Nets {
  torch::nn::Sequential actor{nullptr}, actor_target{nullptr};
  torch::nn::Sequential q1{nullptr}, q2{nullptr}, q1_target{nullptr}, q2_target{nullptr};
  std::vector<torch::Tensor> critic_params;
  std::unique_ptr<torch::optim::Adam> actor_optim, critic_optim;
  std::mt19937_64 rng;
  std::unique_ptr<OrnsteinUhlenbeckNoise> ou;

  // The actor's actions in [-1, 1]: 2 sigmoid(x) - 1, i.e. RLlib's sigmoid onto the bounds.
  torch::Tensor Act(const torch::Tensor& obs, bool target) {
    return 2.0 * torch::sigmoid((target ? actor_target : actor)->forward(obs)) - 1.0;
  }
  std::pair<torch::Tensor, torch::Tensor> Q(const torch::Tensor& obs, const torch::Tensor& a, bool target) {
    return target ? TwinQValues(q1_target, q2_target, obs, a) : TwinQValues(q1, q2, obs, a);
  }
};

Result<std::unique_ptr<DDPGPolicy>> DDPGPolicy::Create(const PolicySpec& spec, const DDPGConfig& config) {
  RAY_RETURN_IF_ERROR(config.Validate());
  try {
    return std::unique_ptr<DDPGPolicy>(new DDPGPolicy(spec, config));
  } catch (const std::invalid_argument& e) {
    return Status::InvalidArgument(e.what());
  }
}

DDPGPolicy::DDPGPolicy(const PolicySpec& spec, const DDPGConfig& config)
    : ContinuousReplayPolicy(spec, {"DDPG", config.gamma, config.replay.n_step, config.tau,
                                    false, config.grad_clip}),
      config_(config),
      ddpg_(std::make_unique<Nets>()) {
  Nets& n = *ddpg_;
  if (config.seed) {
    torch::manual_seed(static_cast<uint64_t>(*config.seed));
    n.rng.seed(static_cast<uint64_t>(*config.seed));
  } else {
    n.rng.seed(std::random_device{}());
  }
  const int d = spec.num_actions, obs = spec.obs_dim;
  auto actor = [&] { return Mlp(obs, config.actor_hiddens, config.actor_hidden_activation, d); };
  auto critic = [&] { return Mlp(obs + d, config.critic_hiddens, config.critic_hidden_activation, 1); };
  n.actor = actor();
  n.actor_target = actor();
  n.q1 = critic();
  n.q1_target = critic();
  n.critic_params = n.q1->parameters();
  if (config.twin_q) {
    n.q2 = critic();
    n.q2_target = critic();
    auto more = n.q2->parameters();
    n.critic_params.insert(n.critic_params.end(), more.begin(), more.end());
  }
  n.actor_optim = std::make_unique<torch::optim::Adam>(n.actor->parameters(), torch::optim::AdamOptions(config.actor_lr));
  n.critic_optim = std::make_unique<torch::optim::Adam>(n.critic_params, torch::optim::AdamOptions(config.critic_lr));
  n.ou = std::make_unique<OrnsteinUhlenbeckNoise>(d, config.exploration_ou_theta, config.exploration_ou_sigma);

  auto nets = std::make_unique<ContinuousNets>();
  nets->weights.modules = {{"policy", n.actor.ptr().get()}, {"q", n.q1.ptr().get()}};
  if (n.q2) nets->weights.modules.push_back({"twin_q", n.q2.ptr().get()});
  nets->checkpoint = nets->weights;
  nets->checkpoint.modules.push_back({"target_policy", n.actor_target.ptr().get()});
  nets->checkpoint.modules.push_back({"target_q", n.q1_target.ptr().get()});
  nets->targets.push_back({n.actor_target->parameters(), n.actor->parameters()});
  nets->targets.push_back({n.q1_target->parameters(), n.q1->parameters()});
  if (n.q2) {
    nets->checkpoint.modules.push_back({"target_twin_q", n.q2_target.ptr().get()});
    nets->targets.push_back({n.q2_target->parameters(), n.q2->parameters()});
  }
  nets->checkpoint.optimizers = {{"actor_optimizer", n.actor_optim.get()}, {"critic_optimizer", n.critic_optim.get()}};
  nets->groups = {{n.actor_optim.get(), n.actor->parameters()}, {n.critic_optim.get(), n.critic_params}};
  SetNets(std::move(nets));
}

DDPGPolicy::~DDPGPolicy() = default;

ActionBatch DDPGPolicy::ComputeActions(const std::vector<float>& obs, bool explore) {
  const int obs_dim = spec().obs_dim, d = spec().num_actions;
  if (obs.empty() || obs.size() % obs_dim != 0) {
    throw std::invalid_argument(options().name + ": " + std::to_string(obs.size()) +
                                " floats is not a positive multiple of obs_dim " + std::to_string(obs_dim));
  }
  torch::NoGradGuard no_grad;
  Nets& n = *ddpg_;
  const int64_t rows = static_cast<int64_t>(obs.size()) / obs_dim;
  auto unit = n.Act(ToTensor(obs, rows, obs_dim), false);
  ActionBatch out;
  out.action_dim = d;
  out.dist_dim = d;
  out.action_dist_inputs = ToVector(unit);
  out.actions = ToVector(Unsquash(unit, nets().low, nets().high));
  out.action_logp.assign(rows, 0.f);
  if (!explore) return out;
  const auto& low = spec().action_low;
  const auto& high = spec().action_high;
  if (timestep() < config_.pure_exploration_steps) {
    for (int64_t i = 0; i < rows * d; ++i) {
      out.actions[i] = std::uniform_real_distribution<float>(low[i % d], high[i % d])(n.rng);
    }
    return out;
  }
  const double scale = config_.NoiseScaleAt(timestep());
  if (config_.GaussianNoise()) {
    std::normal_distribution<double> normal(0.0, config_.exploration_gaussian_sigma);
    for (int64_t i = 0; i < rows * d; ++i) out.actions[i] += static_cast<float>(scale * normal(n.rng));
  } else {
    n.ou->Resize(static_cast<int>(rows * d));
    const auto& x = n.ou->Step(n.rng);
    for (int64_t i = 0; i < rows * d; ++i) {
      out.actions[i] += static_cast<float>(scale * config_.exploration_ou_noise_scale * x[i] *
                                           (high[i % d] - low[i % d]));
    }
  }
  for (int64_t i = 0; i < rows * d; ++i) out.actions[i] = std::clamp(out.actions[i], low[i % d], high[i % d]);
  return out;
}

std::vector<bool> DDPGPolicy::GroupsToStep() const {
  return {num_learn_steps() % config_.policy_delay == 0, true};
}

LossStep DDPGPolicy::Losses(const ReplayTensors& b) {
  Nets& n = *ddpg_;
  torch::Tensor target;
  {
    torch::NoGradGuard no_grad;
    auto a_tp1 = n.Act(b.new_obs, /*target=*/true);
    if (config_.smooth_target_policy) {
      const auto& low = nets().low;
      const auto& high = nets().high;
      a_tp1 = Squash(SmoothTargetAction(Unsquash(a_tp1, low, high), config_.target_noise, config_.target_noise_clip,
                                        low, high),
                     low, high);
    }
    auto [q1_tp1, q2_tp1] = n.Q(b.new_obs, a_tp1, true);
    target = TwinQTarget(b.rewards, b.dones, std::pow(config_.gamma, config_.replay.n_step), q1_tp1, q2_tp1);
  }
  auto err = [&](const torch::Tensor& td) {
    return config_.use_huber ? HuberLoss(td, config_.huber_threshold) : 0.5 * td.pow(2);
  };
  auto [q1, q2] = n.Q(b.obs, b.actions, false);
  auto td1 = q1 - target;
  auto errors = err(td1);
  if (q2.defined()) errors = errors + err(q2 - target);
  auto critic_loss = (b.weights * errors).mean();
  if (config_.l2_reg > 0) critic_loss = critic_loss + config_.l2_reg * L2Loss(n.critic_params);

  LossStep out;
  out.step_groups = GroupsToStep();
  const auto actor_params = n.actor->parameters();
  torch::Tensor actor_loss;
  if (out.step_groups[0]) {
    auto [q_pi, unused] = n.Q(b.obs, n.Act(b.obs, false), false);
    actor_loss = -q_pi.mean();
    if (config_.l2_reg > 0) actor_loss = actor_loss + config_.l2_reg * L2Loss(actor_params);
    GradInto(actor_loss, actor_params, &out.grads, 0);
  } else {
    out.grads.resize(actor_params.size());
  }
  GradInto(critic_loss, n.critic_params, &out.grads, actor_params.size());
  out.td = td1.detach().abs();
  auto q = q1.detach();
  out.stats = {{"critic_loss", critic_loss.item<double>()},
               {"mean_q", q.mean().item<double>()},
               {"max_q", q.max().item<double>()},
               {"min_q", q.min().item<double>()},
               {"noise_scale", config_.NoiseScaleAt(timestep())}};
  if (actor_loss.defined()) out.stats["actor_loss"] = actor_loss.item<double>();
  return out;
}

}  // namespace ray::rllib
