// PPO policy: Schulman et al., "Proximal Policy Optimization Algorithms",
// arXiv:1707.06347, in the shape of RLlib's PPOTorchPolicy (loss in ppo_loss.cc, GAE in
// postprocessing.cc). This file holds the train step: advantage standardisation,
// epochs of shuffled minibatch Adam updates, and the adaptive KL coefficient
//   kl > 2 * kl_target   -> kl_coeff *= 1.5
//   kl < 0.5 * kl_target -> kl_coeff *= 0.5
// applied once per train step with the step's mean KL (RLlib's KLCoeffMixin.update_kl).

#include "runtime/rllib/ppo/ppo_policy.h"

#include <torch/torch.h>

#include <algorithm>
#include <numeric>
#include <random>

#include "runtime/rllib/ppo/action_dist.h"
#include "runtime/rllib/ppo/fcnet.h"
#include "runtime/rllib/ppo/postprocessing.h"
#include "runtime/rllib/ppo/ppo_loss.h"

namespace ray::rllib {
namespace {

torch::Tensor ToTensor(const std::vector<float>& v, int64_t rows, int64_t width) {
  // from_blob does not own the memory; clone so the tensor outlives `v`.
  return torch::from_blob(const_cast<float*>(v.data()), {rows, width}, torch::kFloat32).clone();
}

std::vector<float> ToVector(const torch::Tensor& t) {
  auto c = t.contiguous().to(torch::kFloat32);
  return std::vector<float>(c.data_ptr<float>(), c.data_ptr<float>() + c.numel());
}

}  // namespace

std::map<std::string, double> LearnerStats::ToMap() const {
  return {{"cur_kl_coeff", cur_kl_coeff}, {"cur_lr", cur_lr},
          {"total_loss", total_loss},     {"policy_loss", policy_loss},
          {"vf_loss", vf_loss},           {"vf_explained_var", vf_explained_var},
          {"kl", kl},                     {"entropy", entropy},
          {"entropy_coeff", entropy_coeff}};
}

void SetTorchNumThreads(int num_threads) { torch::set_num_threads(num_threads); }

struct PPOPolicy::Impl {
  PolicySpec spec;
  PPOConfig config;
  FullyConnectedNetwork model{nullptr};
  std::unique_ptr<torch::optim::Adam> optimizer;
  double kl_coeff = 0;
  int64_t timesteps_trained = 0;  // env steps seen by LearnOnBatch (drives lr_schedule)
  std::mt19937_64 rng;

  torch::Tensor Actions(const SampleBatch& b) const {
    if (spec.discrete) return ToTensor(b.actions, b.size(), 1).squeeze(-1);
    return ToTensor(b.actions, b.size(), spec.num_actions);
  }
};

PPOPolicy::PPOPolicy(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
PPOPolicy::~PPOPolicy() = default;

Result<std::unique_ptr<PPOPolicy>> PPOPolicy::Create(const PolicySpec& spec,
                                                     const PPOConfig& config) {
  if (spec.obs_dim <= 0 || spec.num_actions <= 0) {
    return Status::InvalidArgument("PolicySpec: obs_dim and num_actions must be > 0");
  }
  RAY_RETURN_IF_ERROR(config.Validate());
  auto impl = std::make_unique<Impl>();
  impl->spec = spec;
  impl->config = config;
  impl->kl_coeff = config.kl_coeff;
  if (config.seed) {
    torch::manual_seed(static_cast<uint64_t>(*config.seed));
    impl->rng.seed(static_cast<uint64_t>(*config.seed));
  } else {
    impl->rng.seed(std::random_device{}());
  }
  impl->model = FullyConnectedNetwork(spec.obs_dim, spec.num_actions, spec.discrete, config.model);
  impl->optimizer = std::make_unique<torch::optim::Adam>(
      impl->model->parameters(), torch::optim::AdamOptions(config.lr));
  return std::unique_ptr<PPOPolicy>(new PPOPolicy(std::move(impl)));
}

Result<ActionBatch> PPOPolicy::ComputeActions(const std::vector<float>& obs, bool explore) {
  const int obs_dim = impl_->spec.obs_dim;
  if (obs.empty() || obs.size() % obs_dim != 0) {
    return Status::InvalidArgument("ComputeActions: " + std::to_string(obs.size()) +
                                   " floats is not a positive multiple of obs_dim " +
                                   std::to_string(obs_dim));
  }
  torch::NoGradGuard no_grad;
  const int64_t rows = obs.size() / obs_dim;
  auto input = torch::from_blob(const_cast<float*>(obs.data()), {rows, obs_dim}, torch::kFloat32);
  auto [dist_inputs, values] = impl_->model->forward(input);
  auto dist = MakeActionDistribution(impl_->spec.discrete, dist_inputs);
  auto actions = explore ? dist->Sample() : dist->DeterministicSample();
  ActionBatch out;
  out.action_dim = impl_->spec.discrete ? 1 : impl_->spec.num_actions;
  out.dist_dim = impl_->model->dist_dim();
  out.action_logp = ToVector(dist->Logp(actions));
  out.actions = ToVector(actions);
  out.vf_preds = ToVector(values);
  out.action_dist_inputs = ToVector(dist_inputs);
  return out;
}

Result<std::vector<float>> PPOPolicy::ComputeValues(const std::vector<float>& obs) {
  const int obs_dim = impl_->spec.obs_dim;
  if (obs.empty() || obs.size() % obs_dim != 0) {
    return Status::InvalidArgument("ComputeValues: bad observation size");
  }
  torch::NoGradGuard no_grad;
  const int64_t rows = obs.size() / obs_dim;
  auto input = torch::from_blob(const_cast<float*>(obs.data()), {rows, obs_dim}, torch::kFloat32);
  return ToVector(impl_->model->forward(input).second);
}

Status PPOPolicy::PostprocessTrajectory(SampleBatch* traj, const std::vector<float>& next_obs) {
  if (traj->size() == 0) return Status::InvalidArgument("PostprocessTrajectory: empty");
  float bootstrap = 0.f;
  const PPOConfig& c = impl_->config;
  if (!traj->terminateds.back() && c.use_critic) {
    RAY_ASSIGN_OR_RETURN(std::vector<float> v, ComputeValues(next_obs));
    bootstrap = v.at(0);
  }
  return ComputeGaeForTrajectory(traj, bootstrap, c.gamma, c.lambda, c.use_gae, c.use_critic);
}

Result<LearnerStats> PPOPolicy::LearnOnBatch(const SampleBatch& batch) {
  RAY_RETURN_IF_ERROR(batch.Validate());
  const int64_t n = batch.size();
  if (n == 0 || batch.advantages.empty()) {
    return Status::FailedPrecondition("LearnOnBatch: batch is empty or not postprocessed");
  }
  const PolicySpec& spec = impl_->spec;
  const int dist_dim = impl_->model->dist_dim();
  if (batch.obs_dim != spec.obs_dim || batch.dist_dim != dist_dim) {
    return Status::InvalidArgument("LearnOnBatch: batch widths do not match the policy");
  }
  const PPOConfig& c = impl_->config;
  std::vector<float> advantages = batch.advantages;
  Standardize(&advantages);

  const auto obs = ToTensor(batch.obs, n, spec.obs_dim);
  const auto actions = impl_->Actions(batch);
  const auto prev_inputs = ToTensor(batch.action_dist_inputs, n, dist_dim);
  const auto old_logp = ToTensor(batch.action_logp, n, 1).squeeze(-1);
  const auto adv = ToTensor(advantages, n, 1).squeeze(-1);
  const auto targets = ToTensor(batch.value_targets, n, 1).squeeze(-1);

  PPOLossCoeffs coeffs;
  coeffs.clip_param = c.clip_param;
  coeffs.vf_clip_param = c.vf_clip_param;
  coeffs.vf_loss_coeff = c.vf_loss_coeff;
  coeffs.entropy_coeff = c.entropy_coeff;
  coeffs.kl_coeff = impl_->kl_coeff;
  coeffs.use_critic = c.use_critic;

  const double lr = c.LrAt(impl_->timesteps_trained);
  for (auto& group : impl_->optimizer->param_groups()) {
    static_cast<torch::optim::AdamOptions&>(group.options()).lr(lr);
  }
  impl_->timesteps_trained += n;

  const int64_t mb = std::min<int64_t>(c.sgd_minibatch_size, n);
  const int64_t num_minibatches = std::max<int64_t>(1, n / mb);
  std::vector<int64_t> perm(n);
  std::iota(perm.begin(), perm.end(), 0);
  auto params = impl_->model->parameters();

  LearnerStats stats;
  torch::Tensor sums;  // [6] running sums of the loss terms
  for (int epoch = 0; epoch < c.num_sgd_iter; ++epoch) {
    if (c.shuffle_sequences) std::shuffle(perm.begin(), perm.end(), impl_->rng);
    auto perm_t = torch::from_blob(perm.data(), {n}, torch::kInt64);
    for (int64_t i = 0; i < num_minibatches; ++i) {
      auto idx = perm_t.narrow(0, i * mb, mb);
      auto [dist_inputs, values] = impl_->model->forward(obs.index_select(0, idx));
      auto curr = MakeActionDistribution(spec.discrete, dist_inputs);
      auto prev = MakeActionDistribution(spec.discrete, prev_inputs.index_select(0, idx));
      PPOLossTerms t = ComputePPOLoss(*curr, values, *prev, actions.index_select(0, idx),
                                      old_logp.index_select(0, idx), adv.index_select(0, idx),
                                      targets.index_select(0, idx), coeffs);
      impl_->optimizer->zero_grad();
      t.total_loss.backward();
      if (c.grad_clip) torch::nn::utils::clip_grad_norm_(params, *c.grad_clip);
      impl_->optimizer->step();

      // Summed as one tensor and read once at the end: item() per step costs a sync.
      auto terms = torch::stack({t.total_loss, t.policy_loss, t.vf_loss, t.vf_explained_var,
                                 t.kl, t.entropy})
                       .detach();
      sums = sums.defined() ? sums + terms : terms;
      ++stats.num_sgd_steps;
    }
  }
  auto mean = (sums / static_cast<double>(stats.num_sgd_steps)).to(torch::kDouble);
  const double* m = mean.data_ptr<double>();
  stats.total_loss = m[0];
  stats.policy_loss = m[1];
  stats.vf_loss = m[2];
  stats.vf_explained_var = m[3];
  stats.kl = m[4];
  stats.entropy = m[5];
  stats.cur_kl_coeff = impl_->kl_coeff;
  stats.cur_lr = lr;
  stats.entropy_coeff = c.entropy_coeff;
  if (stats.kl > 2.0 * c.kl_target) {
    impl_->kl_coeff *= 1.5;
  } else if (stats.kl < 0.5 * c.kl_target) {
    impl_->kl_coeff *= 0.5;
  }
  return stats;
}

std::vector<float> PPOPolicy::GetWeights() const {
  std::vector<float> flat;
  flat.reserve(NumWeights());
  for (const auto& p : impl_->model->parameters()) {
    auto v = ToVector(p.detach());
    flat.insert(flat.end(), v.begin(), v.end());
  }
  return flat;
}

Status PPOPolicy::SetWeights(const std::vector<float>& weights) {
  if (static_cast<int64_t>(weights.size()) != NumWeights()) {
    return Status::InvalidArgument("SetWeights: got " + std::to_string(weights.size()) +
                                   " values, the layout has " + std::to_string(NumWeights()));
  }
  torch::NoGradGuard no_grad;
  int64_t offset = 0;
  for (auto& p : impl_->model->parameters()) {
    const int64_t k = p.numel();
    p.copy_(torch::from_blob(const_cast<float*>(weights.data() + offset), p.sizes(),
                             torch::kFloat32));
    offset += k;
  }
  return Status::Ok();
}

int64_t PPOPolicy::NumWeights() const {
  int64_t total = 0;
  for (const auto& p : impl_->model->parameters()) total += p.numel();
  return total;
}

std::string PPOPolicy::WeightsLayout() const {
  std::string out;
  for (const auto& item : impl_->model->named_parameters()) {
    if (!out.empty()) out += ",";
    out += item.key() + ":";
    const auto sizes = item.value().sizes();
    for (size_t i = 0; i < sizes.size(); ++i) {
      out += (i ? "x" : "") + std::to_string(sizes[i]);
    }
  }
  return out;
}

Status PPOPolicy::Save(const std::string& path) const {
  try {
    torch::serialize::OutputArchive archive;
    torch::serialize::OutputArchive model_archive, optim_archive;
    impl_->model->save(model_archive);
    impl_->optimizer->save(optim_archive);
    archive.write("model", model_archive);
    archive.write("optimizer", optim_archive);
    archive.write("kl_coeff", c10::IValue(impl_->kl_coeff));
    archive.write("timesteps_trained", c10::IValue(impl_->timesteps_trained));
    archive.write("layout", c10::IValue(WeightsLayout()));
    archive.save_to(path);
  } catch (const std::exception& e) {
    return Status::Internal("PPOPolicy::Save(" + path + "): " + e.what());
  }
  return Status::Ok();
}

Status PPOPolicy::Restore(const std::string& path) {
  try {
    torch::serialize::InputArchive archive;
    archive.load_from(path);
    c10::IValue layout;
    archive.read("layout", layout);
    if (!layout.isString() || layout.toStringRef() != WeightsLayout()) {
      return Status::FailedPrecondition("PPOPolicy::Restore(" + path +
                                        "): checkpoint layout differs from this policy's");
    }
    torch::serialize::InputArchive model_archive, optim_archive;
    archive.read("model", model_archive);
    archive.read("optimizer", optim_archive);
    impl_->model->load(model_archive);
    impl_->optimizer->load(optim_archive);
    c10::IValue kl;
    archive.read("kl_coeff", kl);
    impl_->kl_coeff = kl.toDouble();
    c10::IValue timesteps;
    archive.read("timesteps_trained", timesteps);
    impl_->timesteps_trained = timesteps.toInt();
  } catch (const std::exception& e) {
    return Status::DataLoss("PPOPolicy::Restore(" + path + "): " + e.what());
  }
  return Status::Ok();
}

double PPOPolicy::kl_coeff() const { return impl_->kl_coeff; }
const PPOConfig& PPOPolicy::config() const { return impl_->config; }
const PolicySpec& PPOPolicy::spec() const { return impl_->spec; }

}  // namespace ray::rllib
