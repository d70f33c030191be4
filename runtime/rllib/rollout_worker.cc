#include "runtime/rllib/rollout_worker.h"

#include <algorithm>
#include <random>
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
  RAY_ASSIGN_OR_RETURN(EnvConfig env_config, EnvConfig::FromJson(config.env_config));
  env_config.set_worker_index(worker_index);
  RAY_ASSIGN_OR_RETURN(auto env, VectorEnv::Make(env_name, config.num_envs_per_worker, env_config));
  std::optional<int64_t> seed = config.seed;
  if (seed) *seed += 1000 * worker_index;
  RAY_ASSIGN_OR_RETURN(auto policy, make_policy(SpecFor(*env), seed));
  std::unique_ptr<RolloutWorker> w(
      new RolloutWorker(std::move(env), std::move(policy), config, worker_index));
  if (config.observation_filter == "MeanStdFilter") {
    w->filter_ = std::make_unique<MeanStdFilter>(static_cast<size_t>(w->env_->obs_size()));
  }
  if (!config.callbacks.empty()) {
    RAY_ASSIGN_OR_RETURN(w->callbacks_,
                         CallbacksPlugin::Load(config.callbacks, config.CommonJson(), worker_index));
  }
  std::optional<uint64_t> env_seed;
  if (seed) env_seed = static_cast<uint64_t>(*seed) * 7919 + worker_index * 101;
  const std::vector<float> raw = w->env_->VectorReset(env_seed);
  const size_t dim = static_cast<size_t>(w->env_->obs_size());
  try {
    for (int i = 0; i < w->env_->num_envs(); ++i) {
      std::vector<float> obs = w->Filtered(&raw[i * dim]);
      w->obs_.insert(w->obs_.end(), obs.begin(), obs.end());
      w->StartEpisode(i, &raw[i * dim]);
    }
  } catch (const std::exception& e) {
    return Status::InvalidArgument(std::string("rollout worker: ") + e.what());
  }
  return w;
}

RolloutWorker::RolloutWorker(std::unique_ptr<VectorEnv> env, std::unique_ptr<Policy> policy,
                             const CommonConfig& config, int worker_index)
    : env_(std::move(env)),
      policy_(std::move(policy)),
      config_(config),
      // Unique across the workers whose batches a learner concatenates, recreated
      // ones included: the worker index, then 24 random bits, then the count.
      next_episode_id_((int64_t{worker_index} << 48) | (int64_t{std::random_device{}() & 0xffffff} << 24)) {
  int n = env_->num_envs();
  open_.resize(n);
  states_.assign(static_cast<size_t>(n) * policy_->StateSize(), 0.f);
  returns_.assign(n, 0.0);
  lengths_.assign(n, 0);
  last_rewards_.assign(n, 0.0);
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

void RolloutWorker::OrThrow(const Status& st) {
  if (!st.ok()) throw std::runtime_error(st.message());
}

void RolloutWorker::Finish(int slot, const std::vector<float>& next_obs, const float* raw_obs,
                           SampleResult* out) {
  SampleBatch& b = open_[slot];
  if (b.size() == 0) return;
  policy_->Postprocess(&b, next_obs);
  if (callbacks_) {
    const int64_t n = b.size();
    auto column = [n](std::vector<float>& c) { return static_cast<int64_t>(c.size()) == n ? c.data() : nullptr; };
    RayRllibTrajectory t{n,
                         b.obs_dim,
                         b.action_dim,
                         b.obs.data(),
                         b.actions.data(),
                         b.rewards.data(),
                         b.terminateds.data(),
                         b.truncateds.data(),
                         column(b.advantages),
                         column(b.value_targets)};
    OrThrow(callbacks_->OnPostprocessTraj(EpisodeView(slot, raw_obs), &t));
  }
  out->batch.Append(b);
  b = SampleBatch();
}

std::vector<float> RolloutWorker::Filtered(const float* raw) {
  std::vector<float> obs(raw, raw + env_->obs_size());
  if (filter_) filter_->Apply(obs.data(), /*update=*/true);
  return obs;
}

RayRllibEpisode RolloutWorker::EpisodeView(int i, const float* raw_obs) const {
  return RayRllibEpisode{episode_ids_[i], i,       lengths_[i], returns_[i], last_rewards_[i],
                         raw_obs,         static_cast<size_t>(env_->obs_size())};
}

void RolloutWorker::StartEpisode(int i, const float* raw_first) {
  const int width = policy_->StateSize();
  std::fill(states_.begin() + i * width, states_.begin() + (i + 1) * width, 0.f);
  returns_[i] = 0;
  lengths_[i] = 0;
  last_rewards_[i] = 0;
  if (callbacks_) OrThrow(callbacks_->OnEpisodeStart(EpisodeView(i, raw_first)));
}

void RolloutWorker::EndEpisode(int i, const float* raw_last, SampleResult* out) {
  std::map<std::string, double> custom;
  if (callbacks_) {
    auto metrics = callbacks_->OnEpisodeEnd(EpisodeView(i, raw_last));
    OrThrow(metrics.status());
    custom = std::move(metrics).value();
  }
  out->episode_returns.push_back(returns_[i]);
  out->episode_lengths.push_back(lengths_[i]);
  out->episode_custom_metrics.push_back(std::move(custom));
  episode_ids_[i] = next_episode_id_++;
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
  std::vector<float> next_obs(obs_.size());
  const int state_width = policy_->StateSize();
  for (int64_t t = 0; complete ? out->batch.size() < min_rows : t < config_.sample_batch_size; ++t) {
    ActionBatch act = state_width > 0 ? policy_->ComputeActionsWithState(obs_, states_, true)
                                      : policy_->ComputeActions(obs_);
    // Each row's state before this step goes into the batch; after it, on to the next
    // step (StartEpisode zeroes the slots whose episode ends now).
    std::vector<float> state_in = std::move(states_);
    states_ = std::move(act.state_out);
    if (states_.size() != state_in.size()) {
      throw std::invalid_argument("ComputeActionsWithState returned " + std::to_string(states_.size()) +
                                  " floats of state, expected " + std::to_string(state_in.size()));
    }
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
      b.state_size = state_width;
      b.state_in.insert(b.state_in.end(), state_in.begin() + i * state_width,
                        state_in.begin() + (i + 1) * state_width);
      b.obs.insert(b.obs.end(), obs_.begin() + i * obs_dim, obs_.begin() + (i + 1) * obs_dim);
      b.actions.insert(b.actions.end(), act.actions.begin() + i * act.action_dim,
                       act.actions.begin() + (i + 1) * act.action_dim);
      b.action_dist_inputs.insert(b.action_dist_inputs.end(),
                                  act.action_dist_inputs.begin() + i * act.dist_dim,
                                  act.action_dist_inputs.begin() + (i + 1) * act.dist_dim);
      b.action_logp.push_back(act.action_logp[i]);
      if (!act.vf_preds.empty()) b.vf_preds.push_back(act.vf_preds[i]);
      b.eps_id.push_back(episode_ids_[i]);
      b.rewards.push_back(static_cast<float>(config_.clip_rewards.Apply(step.rewards[i])));
      returns_[i] += step.rewards[i];
      last_rewards_[i] = step.rewards[i];
      ++lengths_[i];
      // Cut by the horizon: a truncation, whether or not the env is reset.
      const bool cut = !step.done(i) && config_.horizon && lengths_[i] >= *config_.horizon;
      b.terminateds.push_back(step.terminated[i]);
      b.truncateds.push_back((step.truncated[i] && !step.terminated[i]) || cut);
      float* raw = &step.obs[i * obs_dim];  // the slot's next observation
      float* slot_next = &next_obs[i * obs_dim];
      if (!step.done(i) && !cut) {
        std::vector<float> obs = Filtered(raw);
        std::copy(obs.begin(), obs.end(), slot_next);
        if (callbacks_) OrThrow(callbacks_->OnEpisodeStep(EpisodeView(i, raw)));
        continue;
      }
      if (cut) {
        // Bootstrap from the observation after the cut; soft: the next episode starts there.
        std::vector<float> after = Filtered(raw);
        Finish(i, after, raw, out);
        EndEpisode(i, raw, out);
        if (!config_.soft_horizon) {
          Observation first = env_->ResetAt(i, std::nullopt);
          std::copy(first.begin(), first.end(), raw);
          after = Filtered(raw);
        }
        std::copy(after.begin(), after.end(), slot_next);
        StartEpisode(i, raw);
        continue;
      }
      // Ended by the env: cut by its time limit, bootstrap from its last observation;
      // terminated, from none. The env has reset the slot already.
      std::vector<float> last = Filtered(step.final_obs[i].data());
      Finish(i, step.terminated[i] ? std::vector<float>{} : last, step.final_obs[i].data(), out);
      EndEpisode(i, step.final_obs[i].data(), out);
      std::vector<float> first = Filtered(raw);
      std::copy(first.begin(), first.end(), slot_next);
      StartEpisode(i, raw);
    }
    obs_.swap(next_obs);
  }
  if (!complete) {
    // The fragment ends mid-episode: bootstrap from the current obs; go on next time.
    // (step.obs holds each slot's current raw observation: the last step's, or its
    // episode's first after a reset.)
    for (int i = 0; i < n; ++i) {
      Finish(i, std::vector<float>(obs_.begin() + i * obs_dim, obs_.begin() + (i + 1) * obs_dim),
             &step.obs[i * obs_dim], out);
    }
  }
  if (callbacks_) {
    const SampleBatch& b = out->batch;
    OrThrow(callbacks_->OnSampleEnd(
        RayRllibSamples{b.size(), b.obs_dim, b.obs.data(), b.rewards.data(), b.eps_id.data()}));
  }
}

}  // namespace ray::rllib
