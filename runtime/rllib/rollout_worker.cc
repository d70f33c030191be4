#include "runtime/rllib/rollout_worker.h"

#include <algorithm>

#include "runtime/rllib/env/env_plugin_loader.h"
#include "runtime/rllib/ppo/postprocessing.h"

namespace ray::rllib {

PolicySpec RolloutWorker::SpecFor(const VectorEnv& env) {
  PolicySpec spec;
  spec.obs_dim = static_cast<int>(env.obs_size());
  const Space& a = env.action_space();
  spec.discrete = a.is_discrete();
  spec.num_actions = static_cast<int>(a.is_discrete() ? a.discrete().n() : a.box().size());
  return spec;
}

Result<std::unique_ptr<RolloutWorker>> RolloutWorker::Create(const std::string& env_name,
                                                             const PPOConfig& config,
                                                             int worker_index) {
  if (!config.env_plugin.empty()) RAY_RETURN_IF_ERROR(LoadEnvPlugin(config.env_plugin));
  EnvConfig env_config;
  env_config.set_worker_index(worker_index);
  RAY_ASSIGN_OR_RETURN(auto env, VectorEnv::Make(env_name, config.num_envs_per_worker, env_config));
  PPOConfig c = config;
  if (c.seed) *c.seed += 1000 * worker_index;
  RAY_ASSIGN_OR_RETURN(auto policy, PPOPolicy::Create(SpecFor(*env), c));
  std::unique_ptr<RolloutWorker> w(new RolloutWorker(std::move(env), std::move(policy)));
  std::optional<uint64_t> seed;
  if (c.seed) seed = static_cast<uint64_t>(*c.seed) * 7919 + worker_index * 101;
  w->obs_ = w->env_->VectorReset(seed);
  return w;
}

RolloutWorker::RolloutWorker(std::unique_ptr<VectorEnv> env, std::unique_ptr<PPOPolicy> policy)
    : env_(std::move(env)), policy_(std::move(policy)) {
  int n = env_->num_envs();
  open_.resize(n);
  returns_.assign(n, 0.0);
  lengths_.assign(n, 0);
  episode_ids_.resize(n);
  for (int i = 0; i < n; ++i) episode_ids_[i] = next_episode_id_++;
}

Status RolloutWorker::Finish(int slot, float last_value, SampleResult* out) {
  SampleBatch& b = open_[slot];
  if (b.size() == 0) return Status::Ok();
  const PPOConfig& c = policy_->config();
  RAY_RETURN_IF_ERROR(ComputeGaeForTrajectory(&b, last_value, c.gamma, c.lambda, c.use_gae,
                                              c.use_critic));
  RAY_RETURN_IF_ERROR(out->batch.Append(b));
  b = SampleBatch();
  return Status::Ok();
}

Result<SampleResult> RolloutWorker::Sample() {
  const PPOConfig& c = policy_->config();
  const int n = env_->num_envs();
  const int obs_dim = static_cast<int>(env_->obs_size());
  const Space& action_space = env_->action_space();
  SampleResult out;
  std::vector<Action> actions(n);
  VectorStepResult step;
  for (int64_t t = 0; t < c.sample_batch_size; ++t) {
    RAY_ASSIGN_OR_RETURN(ActionBatch act, policy_->ComputeActions(obs_));
    for (int i = 0; i < n; ++i) {
      const float* a = &act.actions[i * act.action_dim];
      if (action_space.is_discrete()) {
        actions[i] = Action::OfIndex(static_cast<int64_t>(a[0]));
      } else {
        std::vector<float> v(a, a + act.action_dim);
        if (c.clip_actions) {  // the env gets the clipped action; training the sampled one
          const Box& box = action_space.box();
          for (int k = 0; k < act.action_dim; ++k) v[k] = std::clamp(v[k], box.low()[k], box.high()[k]);
        }
        actions[i] = Action::OfValues(std::move(v));
      }
    }
    env_->VectorStep(actions, &step);
    std::vector<int> truncated;
    std::vector<float> final_obs;
    for (int i = 0; i < n; ++i) {
      SampleBatch& b = open_[i];
      b.obs_dim = obs_dim;
      b.action_dim = act.action_dim;
      b.dist_dim = act.dist_dim;
      b.obs.insert(b.obs.end(), obs_.begin() + i * obs_dim, obs_.begin() + (i + 1) * obs_dim);
      b.actions.insert(b.actions.end(), act.actions.begin() + i * act.action_dim,
                       act.actions.begin() + (i + 1) * act.action_dim);
      b.action_dist_inputs.insert(b.action_dist_inputs.end(),
                                  act.action_dist_inputs.begin() + i * act.dist_dim,
                                  act.action_dist_inputs.begin() + (i + 1) * act.dist_dim);
      b.action_logp.push_back(act.action_logp[i]);
      b.vf_preds.push_back(act.vf_preds[i]);
      b.eps_id.push_back(episode_ids_[i]);
      b.rewards.push_back(static_cast<float>(step.rewards[i]));
      b.terminateds.push_back(step.terminated[i]);
      b.truncateds.push_back(step.truncated[i] && !step.terminated[i]);
      returns_[i] += step.rewards[i];
      ++lengths_[i];
      if (!step.done(i)) continue;
      out.episode_returns.push_back(returns_[i]);
      out.episode_lengths.push_back(lengths_[i]);
      returns_[i] = 0;
      lengths_[i] = 0;
      episode_ids_[i] = next_episode_id_++;
      if (step.terminated[i]) {
        RAY_RETURN_IF_ERROR(Finish(i, 0.f, &out));
      } else {
        truncated.push_back(i);
        final_obs.insert(final_obs.end(), step.final_obs[i].begin(), step.final_obs[i].end());
      }
    }
    if (!truncated.empty()) {
      // Episodes cut by the time limit: bootstrap from V(their last observation).
      RAY_ASSIGN_OR_RETURN(std::vector<float> v, policy_->ComputeValues(final_obs));
      for (size_t k = 0; k < truncated.size(); ++k) RAY_RETURN_IF_ERROR(Finish(truncated[k], v[k], &out));
    }
    obs_ = step.obs;
  }
  // The fragment ends mid-episode: bootstrap from V(current obs) and keep going next time.
  RAY_ASSIGN_OR_RETURN(std::vector<float> v, policy_->ComputeValues(obs_));
  for (int i = 0; i < n; ++i) RAY_RETURN_IF_ERROR(Finish(i, v[i], &out));
  return out;
}

}  // namespace ray::rllib
