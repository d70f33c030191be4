#pragma once
// The AsyncSamplesOptimizer's options from an IMPALA (or APPO) config.

#include "algorithms/impala/impala_config.h"
#include "runtime/rllib/optimizers/async_samples_optimizer.h"

namespace ray::rllib {

inline AsyncSamplesOptions ImpalaOptimizerOptions(const IMPALAConfig& c) {
  return {.train_batch_size = c.train_batch_size,
          .max_sample_requests_in_flight_per_worker = c.max_sample_requests_in_flight_per_worker,
          .broadcast_interval = c.broadcast_interval,
          .num_sgd_iter = c.num_sgd_iter,
          .learner_queue_size = c.learner_queue_size,
          .replay_proportion = c.replay_proportion,
          .replay_buffer_num_slots = c.replay_buffer_num_slots,
          .sample_batch_size = c.sample_batch_size,
          .seed = c.seed ? std::optional<uint64_t>(static_cast<uint64_t>(*c.seed)) : std::nullopt};
}

}  // namespace ray::rllib
