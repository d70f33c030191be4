#include "algorithms/impala/impala_config.h"

namespace ray::rllib {
namespace {

using Json = nlohmann::json;

// A key that accepts only `allowed` (the one value this implementation supports).
ConfigSetter OnlyValue(Json allowed, std::string why) {
  return [allowed, why](const Json& v, const std::string& key) {
    if (v != allowed) {
      return Status::InvalidArgument("config key '" + key + "': only " + allowed.dump() +
                                     " is supported (" + why + "), got " + v.dump());
    }
    return Status::Ok();
  };
}

}  // namespace

ConfigKeys IMPALAConfig::Keys(IMPALAConfig* c) {
  ConfigKeys keys = CommonConfigKeys(c);
  keys["vtrace"] = BoolKey(&c->vtrace);
  keys["vtrace_clip_rho_threshold"] = NullableDoubleKey(&c->vtrace_clip_rho_threshold);
  keys["vtrace_clip_pg_rho_threshold"] = NullableDoubleKey(&c->vtrace_clip_pg_rho_threshold);
  keys["num_sgd_iter"] = IntKey(&c->num_sgd_iter);
  keys["replay_buffer_num_slots"] = Int64Key(&c->replay_buffer_num_slots);
  keys["learner_queue_size"] = IntKey(&c->learner_queue_size);
  keys["max_sample_requests_in_flight_per_worker"] =
      IntKey(&c->max_sample_requests_in_flight_per_worker);
  keys["broadcast_interval"] = IntKey(&c->broadcast_interval);
  keys["decay"] = DoubleKey(&c->decay);
  keys["momentum"] = DoubleKey(&c->momentum);
  keys["epsilon"] = DoubleKey(&c->epsilon);
  keys["vf_loss_coeff"] = DoubleKey(&c->vf_loss_coeff);
  keys["entropy_coeff"] = DoubleKey(&c->entropy_coeff);
  keys["replay_proportion"] = DoubleKey(&c->replay_proportion);
  keys["num_data_loader_buffers"] = OnlyValue(1, "no GPU data loaders");
  keys["minibatch_buffer_size"] = OnlyValue(1, "no minibatch ring buffer");
  keys["num_aggregation_workers"] = OnlyValue(0, "no aggregation actors");
  keys["opt_type"] = [c](const Json& v, const std::string& key) {
    if (v != "adam" && v != "rmsprop") {
      return Status::InvalidArgument("config key '" + key + "': \"adam\" or \"rmsprop\", got " + v.dump());
    }
    c->opt_type = v.get<std::string>();
    return Status::Ok();
  };
  keys["_fake_sampler"] = OnlyValue(false, "no fake sampler");
  return keys;
}

Result<IMPALAConfig> IMPALAConfig::FromJson(const std::string& json) {
  IMPALAConfig c;
  RAY_RETURN_IF_ERROR(ApplyConfigJson(json, Keys(&c)));
  RAY_RETURN_IF_ERROR(c.Validate());
  return c;
}

nlohmann::json IMPALAConfig::ImpalaJson() const {
  auto nullable = [](const auto& opt) { return opt ? Json(*opt) : Json(nullptr); };
  Json j = CommonJson();
  j.update({{"vtrace", vtrace},
            {"vtrace_clip_rho_threshold", nullable(vtrace_clip_rho_threshold)},
            {"vtrace_clip_pg_rho_threshold", nullable(vtrace_clip_pg_rho_threshold)},
            {"num_sgd_iter", num_sgd_iter},
            {"replay_proportion", replay_proportion},
            {"replay_buffer_num_slots", replay_buffer_num_slots},
            {"num_data_loader_buffers", 1},
            {"minibatch_buffer_size", 1},
            {"num_aggregation_workers", 0},
            {"learner_queue_size", learner_queue_size},
            {"max_sample_requests_in_flight_per_worker", max_sample_requests_in_flight_per_worker},
            {"broadcast_interval", broadcast_interval},
            {"opt_type", opt_type},
            {"decay", decay},
            {"momentum", momentum},
            {"epsilon", epsilon},
            {"vf_loss_coeff", vf_loss_coeff},
            {"entropy_coeff", entropy_coeff},
            {"_fake_sampler", false}});
  return j;
}

std::string IMPALAConfig::ToJson() const { return ImpalaJson().dump(); }

Status IMPALAConfig::ValidateImpala() const {
  RAY_RETURN_IF_ERROR(ValidateCommon());
  RAY_RETURN_IF_ERROR(RefuseModelCatalog("IMPALA and APPO", /*custom_too=*/false));
  auto bad = [](const std::string& m) { return Status::InvalidArgument("config key " + m); };
  if (num_workers < 1)
    return bad("'num_workers' must be >= 1: the AsyncSamplesOptimizer samples on remote workers");
  if (vtrace_clip_rho_threshold && *vtrace_clip_rho_threshold <= 0) {
    return bad("'vtrace_clip_rho_threshold' must be > 0 or null");
  }
  if (vtrace_clip_pg_rho_threshold && *vtrace_clip_pg_rho_threshold <= 0) {
    return bad("'vtrace_clip_pg_rho_threshold' must be > 0 or null");
  }
  if (num_sgd_iter < 1) return bad("'num_sgd_iter' must be >= 1");
  if (replay_buffer_num_slots < 0) return bad("'replay_buffer_num_slots' must be >= 0");
  if (replay_proportion < 0) return bad("'replay_proportion' must be >= 0");
  // RLlib replays only once more fragments are kept than a train batch needs: with
  // fewer slots, replay_proportion would silently do nothing.
  const int64_t needed = (train_batch_size + sample_batch_size - 1) / sample_batch_size;
  if (replay_proportion > 0 && replay_buffer_num_slots <= needed) {
    return bad("'replay_buffer_num_slots' must be > " + std::to_string(needed) +
               " (train_batch_size / sample_batch_size, rounded up) for replay_proportion " +
               std::to_string(replay_proportion) + " to replay anything, got " +
               std::to_string(replay_buffer_num_slots));
  }
  if (learner_queue_size < 1) return bad("'learner_queue_size' must be >= 1");
  if (max_sample_requests_in_flight_per_worker < 1)
    return bad("'max_sample_requests_in_flight_per_worker' must be >= 1");
  if (broadcast_interval < 1) return bad("'broadcast_interval' must be >= 1");
  if (entropy_coeff < 0) return bad("'entropy_coeff' must be >= 0");
  if (decay < 0 || decay >= 1) return bad("'decay' must be in [0, 1)");
  if (momentum < 0) return bad("'momentum' must be >= 0");
  if (epsilon <= 0) return bad("'epsilon' must be > 0");
  return Status::Ok();
}

Status IMPALAConfig::Validate() const {
  RAY_RETURN_IF_ERROR(ValidateImpala());
  if (!vtrace) {
    return Status::InvalidArgument(
        "config key 'vtrace': IMPALA here always uses V-trace (false is not supported; "
        "APPO has the GAE path)");
  }
  return Status::Ok();
}

}  // namespace ray::rllib
