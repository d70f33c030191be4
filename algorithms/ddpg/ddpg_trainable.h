#pragma once
// The trainer traits DDPG and TD3 share (trainer.h): the DDPG policy, its config
// over DDPG's defaults or, with kTD3, over RLlib's TD3 defaults, and
// SyncReplayOptimizer. Each plugin adds its kName.

#include "algorithms/ddpg/ddpg_policy.h"
#include "runtime/rllib/trainer/trainer.h"

namespace ray::rllib {

template <bool kTD3>
struct DDPGTraits {
  using Config = DDPGConfig;
  static Result<Config> ParseConfig(const std::string& json) {
    return Config::FromJson(json, kTD3 ? Config::TD3Defaults() : Config());
  }
  static std::string ConfigJson(const Config& c) { return c.ToJson(); }
  static Result<std::unique_ptr<Policy>> MakePolicy(const PolicySpec& spec, const Config& c) {
    RAY_ASSIGN_OR_RETURN(auto policy, DDPGPolicy::Create(spec, c));
    return std::unique_ptr<Policy>(std::move(policy));
  }
  static SyncReplayOptions ReplayOptions(const Config& c) { return c.ReplayOptions(); }
};

}  // namespace ray::rllib
