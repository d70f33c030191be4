#include "runtime/rllib/rollout_worker.h"

#include <algorithm>
#include <stdexcept>

#include "runtime/rllib/env/env_plugin_loader.h"

namespace ray::rllib {

PolicySpec RolloutWorker::SpecFor(const VectorEnv& env) {
  PolicySpec spec;
  spec.obs_dim = static_cast<int>(env.obs_size());
  const Space& a = env.action_space();
  spec.discrete = a.is_discrete();
  spec.num_actions = static_cast<int>(a.is_discrete() ? a.discrete().n() : a.box().size());
  if (!a.is_discrete()) {
    spec.action_low.assign(a.box().low().begin(), a.box().low().end());
    spec.action_high.assign(a.box().high().begin(), a.box().high().end());
  }
  return spec;
}

Result<std::unique_ptr<RolloutWorker>> RolloutWorker::Create(const std::string& env_name,
                                                             const CommonConfig& config,
                                                             int worker_index,
                                                             const PolicyFactory& make_policy) {
  if (!config.env_plugin.empty()) RAY_RETURN_IF_ERROR(LoadEnvPlugin(config.env_plugin));
  EnvConfig env_config;
  env_config.set_worker_index(worker_index);
  RAY_ASSIGN_OR_RETURN(auto env, VectorEnv::Make(env_name, config.num_envs_per_worker, env_config));
  std::optional<int64_t> seed = config.seed;
  if (seed) *seed += 1000 * worker_index;
  RAY_ASSIGN_OR_RETURN(auto policy, make_policy(SpecFor(*env), seed));
  std::unique_ptr<RolloutWorker> w(new RolloutWorker(std::move(env), std::move(policy), config));
  std::optional<uint64_t> env_seed;
  if (seed) env_seed = static_cast<uint64_t>(*seed) * 7919 + worker_index * 101;
  w->obs_ = w->env_->VectorReset(env_seed);
  return w;
}

RolloutWorker::RolloutWorker(std::unique_ptr<VectorEnv> env, std::unique_ptr<Policy> policy,
                             const CommonConfig& config)
    : env_(std::move(env)), policy_(std::move(policy)), config_(config) {
  int n = env_->num_envs();
  open_.resize(n);
  returns_.assign(n, 0.0);
  lengths_.assign(n, 0);
  episode_ids_.resize(n);
  for (int i = 0; i < n; ++i) episode_ids_[i] = next_episode_id_++;
}

Status RolloutWorker::SetWeights(const std::vector<float>& weights) {
  try {
    policy_->SetWeights(weights);
  } catch (const std::exception& e) {
    return Status::InvalidArgument(std::string("policy SetWeights: ") + e.what());
  }
  return Status::Ok();
}

void RolloutWorker::Finish(int slot, const std::vector<float>& next_obs, SampleResult* out) {
  SampleBatch& b = open_[slot];
  if (b.size() == 0) return;
  policy_->Postprocess(&b, next_obs);
  out->batch.Append(b);
  b = SampleBatch();
}

Result<SampleResult> RolloutWorker::Sample() {
  SampleResult out;
  try {
    SampleOrThrow(&out);
  } catch (const std::invalid_argument& e) {
    return Status::InvalidArgument(std::string("rollout worker: policy: ") + e.what());
  } catch (const std::exception& e) {
    return Status::Internal(std::string("rollout worker: ") + e.what());
  }
  return out;
}

void RolloutWorker::SampleOrThrow(SampleResult* out) {
  const int n = env_->num_envs();
  const int obs_dim = static_cast<int>(env_->obs_size());
  const Space& action_space = env_->action_space();
  const bool complete = config_.batch_mode == "complete_episodes";
  const int64_t min_rows = config_.sample_batch_size * n;  // complete_episodes
  std::vector<Action> actions(n);
  VectorStepResult step;
  for (int64_t t = 0; complete ? out->batch.size() < min_rows : t < config_.sample_batch_size; ++t) {
    ActionBatch act = policy_->ComputeActions(obs_);
    for (int i = 0; i < n; ++i) {
      const float* a = &act.actions[i * act.action_dim];
      if (action_space.is_discrete()) {
        actions[i] = Action::OfIndex(static_cast<int64_t>(a[0]));
      } else {
        std::vector<float> v(a, a + act.action_dim);
        if (config_.clip_actions) {  // the env gets the clipped action; training the sampled one
          const Box& box = action_space.box();
          for (int k = 0; k < act.action_dim; ++k) v[k] = std::clamp(v[k], box.low()[k], box.high()[k]);
        }
        actions[i] = Action::OfValues(std::move(v));
      }
    }
    env_->VectorStep(actions, &step);
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
      if (!act.vf_preds.empty()) b.vf_preds.push_back(act.vf_preds[i]);
      b.eps_id.push_back(episode_ids_[i]);
      b.rewards.push_back(static_cast<float>(step.rewards[i]));
      b.terminateds.push_back(step.terminated[i]);
      b.truncateds.push_back(step.truncated[i] && !step.terminated[i]);
      returns_[i] += step.rewards[i];
      ++lengths_[i];
      if (!step.done(i)) continue;
      out->episode_returns.push_back(returns_[i]);
      out->episode_lengths.push_back(lengths_[i]);
      returns_[i] = 0;
      lengths_[i] = 0;
      episode_ids_[i] = next_episode_id_++;
      // Cut by the time limit: bootstrap from its last observation; terminated: from none.
      Finish(i, step.terminated[i] ? std::vector<float>{} : step.final_obs[i], out);
    }
    obs_ = step.obs;
  }
  if (complete) return;
  // The fragment ends mid-episode: bootstrap from the current obs; go on next time.
  for (int i = 0; i < n; ++i) {
    Finish(i, std::vector<float>(obs_.begin() + i * obs_dim, obs_.begin() + (i + 1) * obs_dim), out);
  }
}

}  // namespace ray::rllib
