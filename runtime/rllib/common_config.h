#pragma once
// RLlib's COMMON_CONFIG (the subset implemented here) and MODEL_DEFAULTS: key names
// and defaults of RLlib ~0.7 (catalog §6.2/§6.5). Every algorithm's config derives
// from CommonConfig and adds its own keys; an algorithm changes a common default in
// its constructor (PPO: lr 5e-5, train_batch_size 4000; PG: num_workers 0, ...).
// Loaded once at the edge from a JSON overlay (ConfigKeys + ApplyConfigJson) and
// passed down by value. No torch here.
//
// Keys RLlib has that are not implemented are either absent (an unknown key is
// refused) or accept only their "off" value; none is accepted and ignored.

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/base/status.h"

namespace ray::rllib {

// The subset of RLlib's MODEL_DEFAULTS the built-in models honour.
struct ModelConfig {
  std::vector<int> fcnet_hiddens = {256, 256};  // layer sizes
  std::string fcnet_activation = "tanh";        // "tanh" | "relu" | "linear"
  // Value head reads the policy trunk's last hidden layer instead of its own trunk.
  // RLlib 0.7 keeps this key at the top level of the PPO config; later releases
  // moved it into "model". Both spellings are accepted.
  bool vf_share_layers = false;
  // Box actions only. false: the net outputs [mean, log_std] (state-dependent
  // log_std, RLlib's default). true: log_std is a free, state-independent parameter.
  bool free_log_std = false;
  // RLlib's LSTM wrapper: the hidden layers feed an LSTM of lstm_cell_size units, whose
  // output feeds the logits and the value head (vf_share_layers does not apply). The
  // learner unrolls sequences of at most max_seq_len steps of one episode, each from
  // the state the sampler recorded at its first step. Algorithms that cannot train it
  // refuse it (RefuseModelCatalog).
  bool use_lstm = false;
  int max_seq_len = 20;
  int lstm_cell_size = 256;
  // A model registered by name in the model plugin (CommonConfig::model_plugin), built
  // with custom_options; empty: a built-in model. Recurrent custom models are cut into
  // sequences of max_seq_len as the LSTM's are.
  std::string custom_model;
  nlohmann::json custom_options = nlohmann::json::object();

  // Every key above, as the config's "model" object.
  nlohmann::json ToJson() const;
};

// clip_rewards: off (null, false), each reward's sign (true, RLlib's np.sign), or
// each reward clipped to [-limit, limit] (a positive number).
struct RewardClip {
  bool sign = false;
  std::optional<double> limit;
  double Apply(double r) const;
  nlohmann::json ToJson() const;
};

struct CommonConfig {
  double gamma = 0.99;                   // discount factor
  double lr = 1e-4;                      // Adam step size
  // Piecewise-linear lr over env steps trained, [[t0, lr0], [t1, lr1], ...] with
  // increasing t; the last value holds beyond the end (RLlib's PiecewiseSchedule with
  // outside_value = last). Empty: constant `lr`.
  std::vector<std::pair<int64_t, double>> lr_schedule;
  int64_t train_batch_size = 200;        // env steps per training step
  int64_t sample_batch_size = 200;       // rollout fragment length per env
  int num_workers = 2;                   // rollout-worker actors (0: sample in the trainer)
  int num_envs_per_worker = 1;           // envs stepped as one batch per worker
  double num_cpus_per_worker = 1;        // CPUs each rollout-worker actor holds
  double num_cpus_for_driver = 1;        // CPUs the trainer (the trial's actor) holds
  int num_gpus = 0;                      // must be 0: the Debian libtorch is CPU-only
  // "truncate_episodes": each Sample() returns sample_batch_size steps per env, episodes
  // cut at the fragment end. "complete_episodes": only whole episodes, at least
  // sample_batch_size * num_envs_per_worker steps per Sample().
  std::string batch_mode = "truncate_episodes";
  // "NoFilter" or "MeanStdFilter" (RLlib's running mean/std of each observation
  // element, per worker; the trainer merges the workers' new observations into its
  // own filter each iteration and, with synchronize_filters, sends it back).
  std::string observation_filter = "NoFilter";
  bool synchronize_filters = true;
  // Episodes are cut after this many steps (null: only the env's own time limit).
  // The cut step is a truncation (postprocessed with its next observation); the env
  // is reset, unless soft_horizon: then the episode ends for the results and the
  // trajectory, but the env goes on from where it is.
  std::optional<int64_t> horizon;
  bool soft_horizon = false;
  // RLlib's env_config: the JSON object each env's factory receives, with the
  // worker index (0: the trainer's) and its slot in the worker's vector env.
  nlohmann::json env_config = nlohmann::json::object();
  RewardClip clip_rewards;               // of the rewards trained on (results: raw)
  // A callbacks plugin (<ray/rllib/callbacks.h>) every rollout worker and the
  // trainer load; empty: none.
  std::string callbacks;
  // Evaluation: every evaluation_interval iterations (null: never), the trainer
  // samples evaluation_num_episodes whole episodes in its own process with the
  // current weights and filter, under the config overlaid with evaluation_config,
  // and reports them under "evaluation".
  std::optional<int64_t> evaluation_interval;
  int64_t evaluation_num_episodes = 10;
  nlohmann::json evaluation_config = nlohmann::json::object();
  // Each remote rollout worker samples in a thread of its own without being asked
  // (RLlib's AsyncSampler, async_sampler.h): a sample may come from weights a version
  // or more old. Needs num_workers >= 1.
  bool sample_async = false;
  // A rollout worker that fails is dropped and training goes on with the others.
  bool ignore_worker_failures = false;
  bool clip_actions = true;              // clip Box actions to the space bounds
  // A rollout worker that dies is replaced by a new one (its restart is counted in
  // the results) instead of failing the training run.
  bool recreate_failed_workers = false;
  std::optional<int64_t> seed;           // null: nondeterministic
  std::string env;                       // env name (informational here)
  std::string env_plugin;                // an env plugin library to load first
  std::string model_plugin;              // a model plugin library (model.custom_model)
  int metrics_smoothing_episodes = 100;  // episode_reward_mean window
  std::optional<double> grad_clip;       // global-norm gradient clip; null: none
  // One training iteration runs optimizer steps until both hold: at least this many
  // seconds passed and at least this many env steps were sampled (RLlib's Trainer).
  double min_iter_time_s = 0;
  int64_t timesteps_per_iteration = 0;
  ModelConfig model;

  // Cross-key checks of the common keys; InvalidArgument naming the key.
  Status ValidateCommon() const;
  // InvalidArgument if model.use_lstm (or, with `custom_too`, model.custom_model) is
  // set: for algorithms whose own networks do not come from the model catalog
  // (`algorithm` names them in the message).
  Status RefuseModelCatalog(const std::string& algorithm, bool custom_too) const;
  // The learning rate after `timesteps` env steps have been trained on.
  double LrAt(int64_t timesteps) const;
  // The common keys as a JSON object (merged into an algorithm's ToJson).
  nlohmann::json CommonJson() const;
};

// How one config key is read: the value and the key's full name for messages.
using ConfigSetter = std::function<Status(const nlohmann::json&, const std::string& key)>;
using ConfigKeys = std::map<std::string, ConfigSetter>;

// Setters for the usual value types; each refuses a wrong type naming the key.
ConfigSetter DoubleKey(double* out);
ConfigSetter IntKey(int* out);
ConfigSetter Int64Key(int64_t* out);
ConfigSetter BoolKey(bool* out);
ConfigSetter StringKey(std::string* out);
ConfigSetter NullableDoubleKey(std::optional<double>* out);
ConfigSetter NullableInt64Key(std::optional<int64_t>* out);
// Accepts only null: keys RLlib has but this implementation does not support.
ConfigSetter OnlyNullKey();

// The setters of every common key (and "model"), writing into `c`.
ConfigKeys CommonConfigKeys(CommonConfig* c);

// Overlays the JSON object `text` through `keys`. Unknown keys and wrong types are
// InvalidArgument naming the key ("model.fcnet_hidens").
Status ApplyConfigJson(const std::string& text, const ConfigKeys& keys);

}  // namespace ray::rllib
