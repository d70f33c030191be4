#pragma once
// RLlib's callbacks (config key "callbacks", catalog RL-023) as a plugin library:
//
//   rllib train --run PG --env CartPole-v1 --config '{"callbacks": "./my_callbacks.so"}'
//
// Every rollout worker (and the trainer, for on_train_result and its evaluation
// episodes) loads the library and makes one callbacks object, told the trainer's
// config and its worker index (0: the trainer's process). The worker calls it, from
// one thread at a time:
//   on_episode_start  an episode begins (its first observation is known)
//   on_episode_step   after each step of a running episode
//   on_episode_end    the episode ended (terminated, truncated or cut by `horizon`);
//                     its custom_metrics are reported in the results as
//                     custom_metrics/<name>_mean, _min and _max over the last
//                     metrics_smoothing_episodes episodes
//   on_postprocess_traj  after the policy postprocessed one trajectory (an episode's
//                     rows from one sample, ending where the episode or the
//                     fragment ended), before it joins the sample: sees the episode
//                     (before on_episode_end for its last trajectory, so metrics set
//                     here are reported) and the batch, whose advantages and
//                     value_targets it may change (they are what the learner trains
//                     on)
//   on_sample_end     a Sample() call's batch is ready (after postprocessing)
//   on_train_result   in the trainer, with each iteration's result, which the
//                     callback may change (add keys) before Tune sees it
// Episodes show their raw (unfiltered) last observation and the raw rewards.
//
// The boundary is C and JSON, versioned: the library exports
// `ray_rllib_callbacks_api()`, whose `abi_version` is checked first. A callback that
// fails returns a message (freed with free_string); the runtime fails the sampling
// call (or the training step) with it, naming the library and the callback.
// Exceptions never cross the boundary.
//
// In C++, derive from ray::rllib::Callbacks and export it with
// RAY_RLLIB_CALLBACKS(MyCallbacks); the class is constructible from
// (const nlohmann::json& config, int worker_index).

#include <stddef.h>
#include <stdint.h>

#define RAY_RLLIB_CALLBACKS_ABI_VERSION 2u

extern "C" {

// One running episode, as the worker sees it when it calls back.
typedef struct RayRllibEpisode {
  int64_t episode_id;             // unique within the worker
  int32_t env_index;              // its slot in the worker's vector env
  int64_t length;                 // steps so far
  double total_reward;            // raw rewards so far
  double last_reward;             // 0 before the first step
  const float* last_observation;  // obs_size raw floats, valid during the call
  size_t obs_size;
} RayRllibEpisode;

// A sampled batch, read-only, valid during the call.
typedef struct RayRllibSamples {
  int64_t count;          // rows (env steps)
  int64_t obs_dim;
  const float* obs;       // count * obs_dim (filtered, as trained on)
  const float* rewards;   // count (clipped, as trained on)
  const int64_t* eps_id;  // count
} RayRllibSamples;

// One postprocessed trajectory, valid during the call. advantages and value_targets
// are null when the algorithm computes none on the worker (IMPALA: V-trace at learn
// time); where present the callback may overwrite them in place.
typedef struct RayRllibTrajectory {
  int64_t count;                // rows (env steps)
  int64_t obs_dim;
  int64_t action_dim;
  const float* obs;             // count * obs_dim (filtered, as trained on)
  const float* actions;         // count * action_dim
  const float* rewards;         // count (clipped, as trained on)
  const int32_t* terminateds;   // count
  const int32_t* truncateds;    // count
  float* advantages;            // count, or null
  float* value_targets;         // count, or null
} RayRllibTrajectory;

typedef struct RayRllibCallbacksApi {
  uint32_t abi_version;  // RAY_RLLIB_CALLBACKS_ABI_VERSION
  // Null on failure, with *error set.
  void* (*create)(const char* config_json, int32_t worker_index, char** error);
  // Each returns null on success, else an error message.
  char* (*on_episode_start)(void* self, const RayRllibEpisode* episode);
  char* (*on_episode_step)(void* self, const RayRllibEpisode* episode);
  // Sets *custom_metrics_json to a JSON object {name: number} (or null for none),
  // which the caller frees with free_string.
  char* (*on_episode_end)(void* self, const RayRllibEpisode* episode, char** custom_metrics_json);
  char* (*on_sample_end)(void* self, const RayRllibSamples* samples);
  // Sets *result_out to the result to report (null: unchanged), freed by the caller.
  char* (*on_train_result)(void* self, const char* result_json, char** result_out);
  void (*free_string)(char* s);
  void (*destroy)(void* self);
  char* (*on_postprocess_traj)(void* self, const RayRllibEpisode* episode, RayRllibTrajectory* batch);
} RayRllibCallbacksApi;

typedef const RayRllibCallbacksApi* (*RayRllibCallbacksApiFn)(void);

}  // extern "C"

#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ray/plugin_strings.h"

namespace ray::rllib {

// What an episode callback sees (RLlib's episode object, one agent).
struct Episode {
  int64_t episode_id = 0;
  int env_index = 0;
  int64_t length = 0;
  double total_reward = 0;
  double last_reward = 0;
  std::vector<float> last_observation;
  nlohmann::json user_data = nlohmann::json::object();  // scratch, kept for the episode
  std::map<std::string, double> custom_metrics;         // reported when it ends
};

// What on_sample_end sees.
struct SampleView {
  int64_t count = 0;
  int64_t obs_dim = 0;
  const float* obs = nullptr;
  const float* rewards = nullptr;
  const int64_t* eps_id = nullptr;
};

// What on_postprocess_traj sees: the trajectory's columns (see RayRllibTrajectory).
struct TrajectoryView {
  int64_t count = 0;
  int64_t obs_dim = 0;
  int64_t action_dim = 0;
  const float* obs = nullptr;
  const float* actions = nullptr;
  const float* rewards = nullptr;
  const int32_t* terminateds = nullptr;
  const int32_t* truncateds = nullptr;
  float* advantages = nullptr;     // null: none on the worker; else writable
  float* value_targets = nullptr;  // likewise
};

class Callbacks {
 public:
  virtual ~Callbacks() = default;
  virtual void OnEpisodeStart(Episode& /*episode*/) {}
  virtual void OnEpisodeStep(Episode& /*episode*/) {}
  virtual void OnEpisodeEnd(Episode& /*episode*/) {}
  virtual void OnPostprocessTraj(Episode& /*episode*/, TrajectoryView& /*batch*/) {}
  virtual void OnSampleEnd(const SampleView& /*samples*/) {}
  virtual void OnTrainResult(nlohmann::json& /*result*/) {}
};

#pragma GCC visibility push(hidden)
namespace callbacks_internal {

using ::ray::plugin_strings::Dup;
using ::ray::plugin_strings::Guard;

// The user's callbacks plus the episodes they are following (user_data, metrics).
struct Holder {
  std::unique_ptr<Callbacks> callbacks;
  std::map<int64_t, Episode> episodes;

  Episode& Track(const RayRllibEpisode* e) {
    Episode& ep = episodes[e->episode_id];
    ep.episode_id = e->episode_id;
    ep.env_index = e->env_index;
    ep.length = e->length;
    ep.total_reward = e->total_reward;
    ep.last_reward = e->last_reward;
    ep.last_observation.assign(e->last_observation, e->last_observation + e->obs_size);
    return ep;
  }
};

template <typename Class>
const RayRllibCallbacksApi* Table() {
  static const RayRllibCallbacksApi api = {
      RAY_RLLIB_CALLBACKS_ABI_VERSION,
      [](const char* config, int32_t worker_index, char** error) -> void* {
        Holder* made = nullptr;
        *error = Guard([&] {
          auto holder = std::make_unique<Holder>();
          holder->callbacks = std::make_unique<Class>(nlohmann::json::parse(config), worker_index);
          made = holder.release();
        });
        return made;
      },
      [](void* self, const RayRllibEpisode* e) -> char* {
        return Guard([&] {
          auto* h = static_cast<Holder*>(self);
          h->episodes.erase(e->episode_id);
          h->callbacks->OnEpisodeStart(h->Track(e));
        });
      },
      [](void* self, const RayRllibEpisode* e) -> char* {
        return Guard([&] {
          auto* h = static_cast<Holder*>(self);
          h->callbacks->OnEpisodeStep(h->Track(e));
        });
      },
      [](void* self, const RayRllibEpisode* e, char** metrics) -> char* {
        *metrics = nullptr;
        return Guard([&] {
          auto* h = static_cast<Holder*>(self);
          Episode& ep = h->Track(e);
          h->callbacks->OnEpisodeEnd(ep);
          nlohmann::json m(ep.custom_metrics);
          h->episodes.erase(e->episode_id);
          *metrics = Dup(m.dump());
        });
      },
      [](void* self, const RayRllibSamples* s) -> char* {
        return Guard([&] {
          static_cast<Holder*>(self)->callbacks->OnSampleEnd(
              SampleView{s->count, s->obs_dim, s->obs, s->rewards, s->eps_id});
        });
      },
      [](void* self, const char* result, char** out) -> char* {
        *out = nullptr;
        return Guard([&] {
          nlohmann::json r = nlohmann::json::parse(result);
          static_cast<Holder*>(self)->callbacks->OnTrainResult(r);
          *out = Dup(r.dump());
        });
      },
      [](char* s) { std::free(s); },
      [](void* self) { delete static_cast<Holder*>(self); },
      [](void* self, const RayRllibEpisode* e, RayRllibTrajectory* t) -> char* {
        return Guard([&] {
          auto* h = static_cast<Holder*>(self);
          TrajectoryView view{t->count,       t->obs_dim,     t->action_dim, t->obs,        t->actions,
                              t->rewards,     t->terminateds, t->truncateds, t->advantages, t->value_targets};
          h->callbacks->OnPostprocessTraj(h->Track(e), view);
        });
      }};
  return &api;
}

}  // namespace callbacks_internal
#pragma GCC visibility pop
}  // namespace ray::rllib

// Exports `Class` (a ray::rllib::Callbacks constructible from (const nlohmann::json&
// config, int worker_index)) as this library's callbacks.
#define RAY_RLLIB_CALLBACKS(Class)                                                 \
  extern "C" __attribute__((visibility("default"), used)) const RayRllibCallbacksApi* \
  ray_rllib_callbacks_api() {                                                      \
    return ::ray::rllib::callbacks_internal::Table<Class>();                       \
  }
