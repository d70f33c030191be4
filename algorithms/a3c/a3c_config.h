#pragma once
// A3C's config: RLlib 0.7's A3C DEFAULT_CONFIG (catalog §6, A2C / A3C table) over
// COMMON_CONFIG. A2C's config is A3C's with sampling made synchronous, so this is
// A2CConfig with A3C's defaults (sample_batch_size 10, min_iter_time_s 5, lr 1e-4,
// grad_clip 40, lambda 1, vf_loss_coeff 0.5, entropy_coeff 0.01, sample_async true: a
// sampler thread per worker) and the optimizer's argument
// `optimizer: {grads_per_step: 100}` (AsyncGradientsOptimizer's default).
//
// Refused by name: `microbatch_size` (A2C only), unknown `optimizer` keys, and
// num_workers 0 (the optimizer needs remote workers, as in RLlib).
// `use_pytorch` is accepted with either value: the backend is always libtorch.

#include <string>

#include "algorithms/a2c/a2c_policy.h"
#include "runtime/base/status.h"

namespace ray::rllib {

struct A3CConfig : A2CConfig {
  A3CConfig() {
    sample_batch_size = 10;
    min_iter_time_s = 5;
    lr = 0.0001;
    grad_clip = 40.0;
    sample_async = true;
  }
  int grads_per_step = 100;  // optimizer.grads_per_step
  bool use_pytorch = false;  // reported as given; the policy is libtorch's either way

  static Result<A3CConfig> FromJson(const std::string& json);
  std::string ToJson() const;
  Status Validate() const;
};

}  // namespace ray::rllib
