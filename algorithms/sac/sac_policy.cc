#include "algorithms/sac/sac_policy.h"

#include <cmath>
#include <random>
#include <stdexcept>

#include "runtime/rllib/policy/continuous_policy_impl.h"
#include "runtime/rllib/policy/torch_policy_impl.h"

namespace ray::rllib {

struct SACPolicy::Nets {
  torch::nn::Sequential actor{nullptr}, q1{nullptr}, q2{nullptr}, q1_target{nullptr}, q2_target{nullptr};
  torch::Tensor log_alpha;
  std::unique_ptr<torch::optim::Adam> actor_optim, critic_optim, alpha_optim;

  // (mean, log_std) of the actor.
  std::pair<torch::Tensor, torch::Tensor> Dist(const torch::Tensor& obs) {
    auto out = actor->forward(obs);
    auto parts = out.chunk(2, -1);
    return {parts[0], torch::clamp(parts[1], -20.0, 2.0)};
  }
  // Q_1 and (twin) Q_2 of (obs, unit actions); q2 undefined without a twin.
  std::pair<torch::Tensor, torch::Tensor> Q(const torch::Tensor& obs, const torch::Tensor& a, bool target) {
    return target ? TwinQValues(q1_target, q2_target, obs, a) : TwinQValues(q1, q2, obs, a);
  }
};

Result<std::unique_ptr<SACPolicy>> SACPolicy::Create(const PolicySpec& spec, const SACConfig& config) {
  RAY_RETURN_IF_ERROR(config.Validate());
  try {
    return std::unique_ptr<SACPolicy>(new SACPolicy(spec, config));
  } catch (const std::invalid_argument& e) {
    return Status::InvalidArgument(e.what());
  }
}

SACPolicy::SACPolicy(const PolicySpec& spec, const SACConfig& config)
    : ContinuousReplayPolicy(spec, {"SAC", config.gamma, config.replay.n_step, config.tau, !config.no_done_at_end,
                                    config.grad_clip}),
      config_(config),
      target_entropy_(config.target_entropy ? *config.target_entropy : -static_cast<double>(spec.num_actions)),
      sac_(std::make_unique<Nets>()) {
  if (config.seed) torch::manual_seed(static_cast<uint64_t>(*config.seed));
  const int d = spec.num_actions;
  const auto& pm = config.policy_model;
  const auto& qm = config.Q_model;
  Nets& n = *sac_;
  n.actor = Mlp(spec.obs_dim, pm.hidden_layer_sizes, pm.hidden_activation, 2 * d);
  n.q1 = Mlp(spec.obs_dim + d, qm.hidden_layer_sizes, qm.hidden_activation, 1);
  n.q1_target = Mlp(spec.obs_dim + d, qm.hidden_layer_sizes, qm.hidden_activation, 1);
  if (config.twin_q) {
    n.q2 = Mlp(spec.obs_dim + d, qm.hidden_layer_sizes, qm.hidden_activation, 1);
    n.q2_target = Mlp(spec.obs_dim + d, qm.hidden_layer_sizes, qm.hidden_activation, 1);
  }
  n.log_alpha = torch::full({1}, std::log(config.initial_alpha)).set_requires_grad(true);
  std::vector<torch::Tensor> critic_params = n.q1->parameters();
  if (n.q2) {
    auto more = n.q2->parameters();
    critic_params.insert(critic_params.end(), more.begin(), more.end());
  }
  n.actor_optim = std::make_unique<torch::optim::Adam>(n.actor->parameters(),
                                                       torch::optim::AdamOptions(config.actor_learning_rate));
  n.critic_optim =
      std::make_unique<torch::optim::Adam>(critic_params, torch::optim::AdamOptions(config.critic_learning_rate));
  n.alpha_optim = std::make_unique<torch::optim::Adam>(std::vector<torch::Tensor>{n.log_alpha},
                                                       torch::optim::AdamOptions(config.entropy_learning_rate));

  auto nets = std::make_unique<ContinuousNets>();
  nets->weights.modules = {{"policy", n.actor.ptr().get()}, {"q", n.q1.ptr().get()}};
  if (n.q2) nets->weights.modules.push_back({"twin_q", n.q2.ptr().get()});
  nets->weights.extra_params = {{"log_alpha", n.log_alpha}};
  nets->checkpoint = nets->weights;
  nets->checkpoint.modules.push_back({"target_q", n.q1_target.ptr().get()});
  nets->targets.push_back({n.q1_target->parameters(), n.q1->parameters()});
  if (n.q2) {
    nets->checkpoint.modules.push_back({"target_twin_q", n.q2_target.ptr().get()});
    nets->targets.push_back({n.q2_target->parameters(), n.q2->parameters()});
  }
  nets->checkpoint.optimizers = {
      {"actor_optimizer", n.actor_optim.get()},
      {"critic_optimizer", n.critic_optim.get()},
      {"alpha_optimizer", n.alpha_optim.get()},
  };
  nets->groups = {{n.actor_optim.get(), n.actor->parameters()},
                  {n.critic_optim.get(), critic_params},
                  {n.alpha_optim.get(), {n.log_alpha}}};
  SetNets(std::move(nets));
}

SACPolicy::~SACPolicy() = default;

double SACPolicy::alpha() const { return std::exp(sac_->log_alpha.item<double>()); }

ActionBatch SACPolicy::ComputeActions(const std::vector<float>& obs, bool explore) {
  const int obs_dim = spec().obs_dim, d = spec().num_actions;
  if (obs.empty() || obs.size() % obs_dim != 0) {
    throw std::invalid_argument("SAC: " + std::to_string(obs.size()) + " floats is not a positive multiple of obs_dim " +
                                std::to_string(obs_dim));
  }
  torch::NoGradGuard no_grad;
  const int64_t rows = static_cast<int64_t>(obs.size()) / obs_dim;
  auto [mean, log_std] = sac_->Dist(ToTensor(obs, rows, obs_dim));
  auto [unit, logp] = SquashedGaussianSample(mean, log_std, !(explore && config_.exploration_enabled));
  ActionBatch out;
  out.action_dim = d;
  out.dist_dim = 2 * d;
  out.actions = ToVector(Unsquash(unit, nets().low, nets().high));
  out.action_logp = ToVector(logp);
  out.action_dist_inputs = ToVector(torch::cat({mean, log_std}, 1));
  return out;
}

std::vector<float> SACPolicy::QValues(const std::vector<float>& obs, const std::vector<float>& actions,
                                      bool target) const {
  torch::NoGradGuard no_grad;
  const int64_t rows = static_cast<int64_t>(obs.size()) / spec().obs_dim;
  auto a = Squash(ToTensor(actions, rows, spec().num_actions), nets().low, nets().high);
  auto [q1, q2] = sac_->Q(ToTensor(obs, rows, spec().obs_dim), a, target);
  return ToVector(q2.defined() ? torch::min(q1, q2) : q1);
}

LossStep SACPolicy::Losses(const ReplayTensors& b) {
  Nets& n = *sac_;
  const auto alpha = torch::exp(n.log_alpha);
  torch::Tensor target;
  {
    torch::NoGradGuard no_grad;
    auto [mean_tp1, log_std_tp1] = n.Dist(b.new_obs);
    auto [a_tp1, logp_tp1] = SquashedGaussianSample(mean_tp1, log_std_tp1, false);
    auto [q1_tp1, q2_tp1] = n.Q(b.new_obs, a_tp1, /*target=*/true);
    auto entropy_bonus = alpha.detach() * logp_tp1;
    target = TwinQTarget(b.rewards, b.dones, std::pow(config_.gamma, config_.replay.n_step), q1_tp1 - entropy_bonus,
                         q2_tp1.defined() ? q2_tp1 - entropy_bonus : q2_tp1);
  }
  auto [q1, q2] = n.Q(b.obs, b.actions, false);
  auto td1 = q1 - target;
  auto critic_loss = 0.5 * (b.weights * td1.pow(2)).mean();
  auto td = td1.abs();
  if (q2.defined()) {
    auto td2 = q2 - target;
    critic_loss = critic_loss + 0.5 * (b.weights * td2.pow(2)).mean();
    td = 0.5 * (td + td2.abs());
  }
  auto [mean_t, log_std_t] = n.Dist(b.obs);
  auto [a_t, logp_t] = SquashedGaussianSample(mean_t, log_std_t, false);
  auto [q1_pi, q2_pi] = n.Q(b.obs, a_t, false);
  auto q_pi = q2_pi.defined() ? torch::min(q1_pi, q2_pi) : q1_pi;
  auto actor_loss = (alpha.detach() * logp_t - q_pi).mean();
  auto alpha_loss = -(n.log_alpha * (logp_t.detach() + target_entropy_)).mean();

  LossStep out;
  const size_t actor_n = n.actor->parameters().size();
  const size_t critic_n = nets().groups[1].params.size();
  GradInto(actor_loss, n.actor->parameters(), &out.grads, 0);
  GradInto(critic_loss, nets().groups[1].params, &out.grads, actor_n);
  GradInto(alpha_loss, {n.log_alpha}, &out.grads, actor_n + critic_n);
  out.td = td.detach();
  auto q = q1.detach();
  out.stats = {{"actor_loss", actor_loss.item<double>()},
               {"critic_loss", critic_loss.item<double>()},
               {"alpha_loss", alpha_loss.item<double>()},
               {"alpha_value", alpha.item<double>()},
               {"target_entropy", target_entropy_},
               {"log_pis_t", logp_t.detach().mean().item<double>()},
               {"mean_q", q.mean().item<double>()},
               {"max_q", q.max().item<double>()},
               {"min_q", q.min().item<double>()}};
  return out;
}

}  // namespace ray::rllib
