#pragma once
// IMPALA's config: RLlib 0.7's IMPALA DEFAULT_CONFIG (catalog §6, RL-071) over
// COMMON_CONFIG: sample_batch_size 50, train_batch_size 500, min_iter_time_s 10,
// num_workers 2, lr 5e-4, grad_clip 40, vf_loss_coeff 0.5, entropy_coeff 0.01, V-trace
// with clip_rho and clip_pg_rho thresholds 1.0 (null: no clipping), and the
// AsyncSamplesOptimizer's keys (learner_queue_size 16,
// max_sample_requests_in_flight_per_worker 2, broadcast_interval 1, num_sgd_iter 1),
// and experience replay (replay_proportion 0, replay_buffer_num_slots 0; with a
// proportion, more slots than a train batch's fragments are required, since fewer
// would never replay).
//
// Differences, refused by name when set to anything else: num_gpus is 0 (RLlib: 1;
// libtorch here is CPU-only), vtrace only true (false is APPO's GAE path),
// num_data_loader_buffers and minibatch_buffer_size only 1,
// num_aggregation_workers only 0, _fake_sampler only false. opt_type "adam" (the
// default) or "rmsprop" (torch's RMSprop with decay as its alpha, momentum, and
// epsilon added to the root of the mean square: TensorFlow's RMSProp, RLlib's, adds
// it inside the root); decay, momentum and epsilon are unused with Adam, as in RLlib.

#include <optional>
#include <string>

#include "runtime/base/status.h"
#include "runtime/rllib/common_config.h"

namespace ray::rllib {

struct IMPALAConfig : CommonConfig {
  IMPALAConfig() {
    sample_batch_size = 50;
    train_batch_size = 500;
    min_iter_time_s = 10;
    num_workers = 2;
    lr = 0.0005;
    grad_clip = 40.0;
  }
  bool vtrace = true;
  std::optional<double> vtrace_clip_rho_threshold = 1.0;     // null: no clipping
  std::optional<double> vtrace_clip_pg_rho_threshold = 1.0;  // null: no clipping
  int num_sgd_iter = 1;
  double replay_proportion = 0.0;  // replayed fragments per new one (sample_replay.h)
  int64_t replay_buffer_num_slots = 0;
  int learner_queue_size = 16;
  int max_sample_requests_in_flight_per_worker = 2;
  int broadcast_interval = 1;
  std::string opt_type = "adam";                        // or "rmsprop"
  double decay = 0.99, momentum = 0.0, epsilon = 0.1;  // RMSProp's: unused with adam
  double vf_loss_coeff = 0.5;
  double entropy_coeff = 0.01;

  static Result<IMPALAConfig> FromJson(const std::string& json);
  std::string ToJson() const;
  Status Validate() const;

 protected:
  // IMPALA's keys over the common ones, writing into `c` (APPO adds its own).
  static ConfigKeys Keys(IMPALAConfig* c);
  nlohmann::json ImpalaJson() const;
  Status ValidateImpala() const;
};

}  // namespace ray::rllib
