#include "algorithms/pg/pg_policy.h"

#include <stdexcept>

#include "runtime/rllib/policy/postprocessing.h"
#include "runtime/rllib/policy/torch_policy_impl.h"

namespace ray::rllib {

Result<PGConfig> PGConfig::FromJson(const std::string& json) {
  PGConfig c;
  RAY_RETURN_IF_ERROR(ApplyConfigJson(json, CommonConfigKeys(&c)));
  RAY_RETURN_IF_ERROR(c.Validate());
  return c;
}

Result<std::unique_ptr<PGPolicy>> PGPolicy::Create(const PolicySpec& spec, const PGConfig& config) {
  RAY_RETURN_IF_ERROR(config.Validate());
  try {
    return std::unique_ptr<PGPolicy>(new PGPolicy(spec, config));
  } catch (const std::invalid_argument& e) {
    return Status::InvalidArgument(e.what());
  }
}

void PGPolicy::Postprocess(SampleBatch* traj, const std::vector<float>&) {
  Status st = ComputeAdvantages(traj, /*last_r=*/0.f, config_.gamma, /*lambda=*/1.0,
                                /*use_gae=*/false, /*use_critic=*/false);
  if (!st.ok()) throw std::invalid_argument(st.message());
}

LossOutput PGPolicy::Loss(const TorchBatch& b) {
  auto dist_inputs = impl().Forward(b).dist_inputs;
  auto dist = MakeActionDistribution(spec().discrete, dist_inputs);
  auto policy_loss = -(dist->Logp(b.actions) * b.advantages).mean();
  return {policy_loss, {{"policy_loss", policy_loss.detach()}}};
}

}  // namespace ray::rllib
