#pragma once
// The config keys ES and ARS share (RLlib 0.7's agents/es and agents/ars
// DEFAULT_CONFIGs), and ES's own. ARS's are in algorithms/ars/ars_config.h. Only keys
// that act are accepted: RLlib merges these tables into COMMON_CONFIG, but the
// evolution trainers read none of its sampling or learning keys (gamma, lr,
// sample_batch_size, ...), so those are refused as unknown, by name. No torch.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <msgpack.hpp>
#include <nlohmann/json.hpp>

#include "runtime/base/status.h"
#include "runtime/rllib/common_config.h"

namespace ray::rllib {

struct EvolutionConfig {
  double noise_stdev = 0.02;          // sigma: std of the parameter perturbations
  int64_t noise_size = 250000000;     // floats in the shared noise table
  double eval_prob = 0.003;           // chance that a worker's next episode is unperturbed
  int report_length = 10;             // episode_reward_mean: over this many iterations' evaluations
  int num_workers = 10;               // rollout actors (at least 1)
  double num_cpus_per_worker = 1;
  double num_cpus_for_driver = 1;
  std::string observation_filter = "MeanStdFilter";  // or NoFilter
  double action_noise_std = 0.01;     // Box actions only, perturbed episodes only
  std::optional<int64_t> seed;        // null: nondeterministic
  nlohmann::json env_config = nlohmann::json::object();
  std::string env_plugin;
  std::string env;
  std::vector<int> fcnet_hiddens = {256, 256};  // "model": the policy's layers
  std::string fcnet_activation = "tanh";

  // Checks the shared keys; InvalidArgument naming the key.
  Status ValidateShared() const;
  nlohmann::json SharedJson() const;
};

// The setters of the shared keys (and "model"), writing into `c`.
ConfigKeys EvolutionConfigKeys(EvolutionConfig* c);

struct ESConfig : EvolutionConfig {
  double l2_coeff = 0.005;              // weight decay added to the descent direction
  int64_t episodes_per_batch = 1000;    // at least this many episodes per iteration
  int64_t train_batch_size = 10000;     // and at least this many env steps
  std::string return_proc_mode = "centered_rank";  // the only mode RLlib has
  double stepsize = 0.01;               // Adam's step size

  static Result<ESConfig> FromJson(const std::string& json);
  std::string ToJson() const;
  Status Validate() const;
};

// What each rollout actor needs of the config (sent once, at creation).
struct EvolutionWorkerOptions {
  std::string env;
  std::string env_config;  // JSON object
  std::string env_plugin;
  std::vector<int> hiddens;
  std::string activation;
  bool mean_std_filter = true;
  double noise_stdev = 0.02;
  double eval_prob = 0;
  double action_noise_std = 0;
  double offset = 0;        // subtracted (as |offset|) from every reward (ARS)
  int64_t seed = -1;        // < 0: from entropy
  MSGPACK_DEFINE_ARRAY(env, env_config, env_plugin, hiddens, activation, mean_std_filter, noise_stdev, eval_prob,
                       action_noise_std, offset, seed);
};

}  // namespace ray::rllib
